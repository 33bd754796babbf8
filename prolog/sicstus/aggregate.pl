/*  library(aggregate) of SICStus Prolog 4, for solvers run in SWI-Prolog.

    The module exports the predicates SICStus documents for
    library(aggregate).  forall/2 is SWI-Prolog's built-in; foreach/2
    and free_variables/4 come from SWI's library(aggregate), which
    behaves as SICStus documents.  aggregate/3,4 and aggregate_all/3,4
    are defined here, since SWI's reject templates SICStus accepts
    (lists, and constants inside a constructor such as r(count, a)) and
    its aggregate_all/3,4 do not allow Var^Goal; term_variables/3 is
    SICStus' (the union of a list with the variables of a term), not
    SWI's built-in of that name.

    A template is count, sum(E), min(E), max(E), min(E, W), max(E, W),
    set(X) or bag(X), where E is an arithmetic expression; or a
    constructor: a list or compound term of templates, or a ground term
    that stands for itself; a variable stands for its value in the
    first solution.  The result has the shape of the template:
    min(E, W) gives min(Min, W) for the first solution with the least
    value, set(X) the ordered set and bag(X) the list of the X.
*/

:- module(sicstus_lib_aggregate,
          [ forall/2, foreach/2, aggregate/3, aggregate/4,
            aggregate_all/3, aggregate_all/4, free_variables/4,
            term_variables/3
          ]).

:- set_module(base(system)).

:- use_module(library(aggregate), [foreach/2, free_variables/4]).
:- use_module(library(apply), [foldl/4, maplist/3]).
:- use_module(library(lists), [sum_list/2]).
:- use_module(library(pairs), [pairs_values/2]).

:- meta_predicate
    aggregate(?, ^, ?),
    aggregate(?, ?, ^, ?),
    aggregate_all(?, 0, ?),
    aggregate_all(?, ?, 0, ?).

%!  forall(:Generator, :Goal) is semidet.
%!  foreach(:Generator, :Goal) is semidet.
%!  free_variables(:Goal, +Bound, +Vars0, -Vars) is det.
%
%   Re-exported from SWI-Prolog.  forall/2 proves Goal for every
%   solution of Generator and binds nothing; foreach/2 proves the
%   conjunction of the instances of Goal, one for each solution of
%   Generator.

%!  aggregate(+Template, :Generator, -Result) is nondet.
%
%   Result aggregates Template over the solutions of Generator, found
%   as with bagof/3: one Result for each binding of the free variables
%   of Generator, and failure if Generator has no solution.

aggregate(Template, Generator, Result) :-
    bagof(Template, Generator, Instances),
    aggregate_list(Template, Instances, Result).

%!  aggregate(+Template, +Discriminator, :Generator, -Result) is nondet.
%
%   As aggregate/3, but solutions with the same instance of
%   Discriminator-Template count once (found as with setof/3).

aggregate(Template, Discriminator, Generator, Result) :-
    setof(Discriminator-Template, Generator, Pairs),
    pairs_values(Pairs, Instances),
    aggregate_list(Template, Instances, Result).

%!  aggregate_all(+Template, :Generator, -Result) is semidet.
%!  aggregate_all(+Template, +Discriminator, :Generator, -Result)
%!      is semidet.
%
%   As aggregate/3,4, but over all solutions of Generator (as with
%   findall/3), binding none of its variables.  With no solution,
%   count and sum give 0, set and bag [], min and max fail.

aggregate_all(Template, Generator, Result) :-
    strip_quantifiers(Generator, Goal),
    findall(Template, Goal, Instances),
    aggregate_list(Template, Instances, Result).

aggregate_all(Template, Discriminator, Generator, Result) :-
    strip_quantifiers(Generator, Goal),
    findall(Discriminator-Template, Goal, Pairs0),
    sort(Pairs0, Pairs),
    pairs_values(Pairs, Instances),
    aggregate_list(Template, Instances, Result).

strip_quantifiers(Goal0, Goal) :-
    (   var(Goal0)
    ->  Goal = Goal0
    ;   Goal0 = Module:Inner0
    ->  strip_quantifiers(Inner0, Inner),
        Goal = Module:Inner
    ;   Goal0 = _^Inner0
    ->  strip_quantifiers(Inner0, Goal)
    ;   Goal = Goal0
    ).

%   aggregate_list(+Template, +Instances, -Result): Instances are the
%   instances of Template, one for each solution.
aggregate_list(Template, Instances, Result) :-
    var(Template),
    !,
    Instances = [Result|_].
aggregate_list(Template, Instances, Result) :-
    operator(Template),
    !,
    combine(Template, Instances, Result).
aggregate_list(Template, _, Result) :-
    ground(Template),
    !,
    Result = Template.
aggregate_list(Template, Instances, Result) :-
    compound(Template),
    compound_name_arguments(Template, Name, Templates),
    length(Templates, Arity),
    numlist_(1, Arity, Positions),
    maplist(aggregate_argument(Instances, Templates), Positions,
            Results),
    compound_name_arguments(Result, Name, Results).

aggregate_argument(Instances, Templates, I, Result) :-
    nth1_(I, Templates, Template),
    maplist(arg(I), Instances, ArgInstances),
    aggregate_list(Template, ArgInstances, Result).

operator(count).
operator(sum(_)).
operator(min(_)).
operator(max(_)).
operator(min(_, _)).
operator(max(_, _)).
operator(set(_)).
operator(bag(_)).

combine(count, Instances, Count) :-
    length(Instances, Count).
combine(sum(_), Instances, Sum) :-
    maplist(value, Instances, Values),
    sum_list(Values, Sum).
combine(bag(_), Instances, Bag) :-
    maplist(arg(1), Instances, Bag).
combine(set(_), Instances, Set) :-
    maplist(arg(1), Instances, Bag),
    sort(Bag, Set).
combine(min(_), [I|Is], Min) :-
    foldl(better(<), Is, I, Best),
    value(Best, Min).
combine(max(_), [I|Is], Max) :-
    foldl(better(>), Is, I, Best),
    value(Best, Max).
combine(min(_, _), [I|Is], min(Min, Witness)) :-
    foldl(better(<), Is, I, Best),
    value(Best, Min),
    arg(2, Best, Witness).
combine(max(_, _), [I|Is], max(Max, Witness)) :-
    foldl(better(>), Is, I, Best),
    value(Best, Max),
    arg(2, Best, Witness).

value(Instance, Value) :-
    arg(1, Instance, Expression),
    Value is Expression.

%   The first of the instances with the least (greatest) value.
better(Compare, Instance, Best0, Best) :-
    value(Instance, Value),
    value(Best0, Value0),
    (   call(Compare, Value, Value0)
    ->  Best = Instance
    ;   Best = Best0
    ).

numlist_(Low, High, []) :-
    Low > High,
    !.
numlist_(Low, High, [Low|Ns]) :-
    Next is Low + 1,
    numlist_(Next, High, Ns).

nth1_(1, [X|_], X) :-
    !.
nth1_(I, [_|Xs], X) :-
    I1 is I - 1,
    nth1_(I1, Xs, X).

%!  term_variables(+Term, +Vars0, -Vars) is det.
%
%   Vars is Vars0 with the variables of Term that are not in it (==)
%   added in front, as the term is walked depth-first left to right,
%   each new variable in front of those found before it.

term_variables(Term, Vars0, Vars) :-
    system:term_variables(Term, TermVars),
    foldl(add_variable, TermVars, Vars0, Vars1),
    Vars = Vars1.

add_variable(Var, Vars0, Vars) :-
    (   member_eq(Var, Vars0)
    ->  Vars = Vars0
    ;   Vars = [Var|Vars0]
    ).

member_eq(X, [Y|Ys]) :-
    (   X == Y
    ->  true
    ;   member_eq(X, Ys)
    ).
