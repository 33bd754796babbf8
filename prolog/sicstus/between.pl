/*  library(between) of SICStus Prolog 4, for solvers run in SWI-Prolog.

    The module exports the predicates SICStus documents for
    library(between).  between/3 is SWI-Prolog's built-in; gen_nat/1
    and gen_int/1 come from SWI's SICStus 4 emulation
    (library(dialect/sicstus4/between)).  Defined here are repeat/1 and
    numlist/5, which SWI lacks, and numlist/2,3, since SWI's fail where
    SICStus gives [] (numlist(1, 0, []) holds in SICStus) and work in
    one direction only.
*/

:- module(sicstus_lib_between,
          [ between/3, gen_int/1, gen_nat/1, numlist/2, numlist/3,
            numlist/5, repeat/1
          ]).

:- set_module(base(system)).

:- use_module(library(dialect/sicstus4/between), [gen_int/1, gen_nat/1]).
:- use_module(library(error), [must_be/2, instantiation_error/1]).
:- use_module(library(apply), [foldl/4]).
:- use_module(library(lists), [nth0/3, member/2]).

%!  between(+Lower, +Upper, ?Number) is nondet.
%!  gen_nat(?N) is nondet.
%!  gen_int(?I) is nondet.
%
%   Re-exported: SWI-Prolog's built-in between/3 and the SICStus 4
%   emulation's gen_nat/1 (0, 1, 2, ...) and gen_int/1 (0, 1, -1, 2,
%   -2, ...) behave as SICStus documents.

%!  repeat(+N) is nondet.
%
%   Succeeds exactly N times (not at all if N < 1).

repeat(N) :-
    must_be(integer, N),
    N >= 1,
    between(1, N, _).

%!  numlist(?Upper, ?List) is semidet.
%!  numlist(?Lower, ?Upper, ?List) is semidet.
%
%   List is [1, ..., Upper] or [Lower, ..., Upper]; it is [] when
%   Lower is Upper+1.  If the bounds are not both given, List must be
%   a proper list holding at least one integer, or one bound and a
%   proper List must be given.

numlist(Upper, List) :-
    numlist(1, 1, Upper, _, List).

numlist(Lower, Upper, List) :-
    numlist(Lower, 1, Upper, _, List).

%!  numlist(?Lower, ?Step, ?Upper, ?Length, ?List) is semidet.
%
%   List is [Lower, Lower+Step, ..., Upper], of Length elements.
%   Enough must be known to find Length (Length itself, a proper
%   List, or Lower, Step and Upper), and then Lower and Step (given,
%   or found from integers in List); numlist(L, 2, U, N, [1,X,Y,Z])
%   gives L = 1, U = 7, N = 4 and [X,Y,Z] = [3,5,7].

numlist(Lower, Step, Upper, Length, List) :-
    maplist_must_be_integer([Lower, Step, Upper, Length]),
    numlist_length(Lower, Step, Upper, Length, List),
    length(List, Length),
    numlist_start(List, Lower, Step),
    foldl(numlist_element(Step), List, Lower, _),
    Upper is Lower + (Length - 1) * Step.

maplist_must_be_integer([]).
maplist_must_be_integer([X|Xs]) :-
    (   var(X)
    ->  true
    ;   must_be(integer, X)
    ),
    maplist_must_be_integer(Xs).

numlist_length(_, _, _, Length, _) :-
    integer(Length),
    !,
    Length >= 0.
numlist_length(_, _, _, Length, List) :-
    is_list(List),
    !,
    length(List, Length).
numlist_length(Lower, Step, Upper, Length, _) :-
    integer(Lower), integer(Step), integer(Upper),
    !,
    Step =\= 0,
    Span is Upper - Lower + Step,
    Span mod Step =:= 0,
    Length is Span // Step,
    Length >= 0.
numlist_length(_, _, _, Length, _) :-
    instantiation_error(Length).

%   Lower and Step from themselves or the integers in List.
numlist_start(_, Lower, Step) :-
    integer(Lower), integer(Step),
    !.
numlist_start(List, Lower, Step) :-
    findall(I-X, (nth0(I, List, X), integer(X)), Known),
    (   integer(Step), Known = [I-X|_]
    ->  Lower is X - I * Step
    ;   integer(Lower), member(I-X, Known), I > 0
    ->  Diff is X - Lower,
        Diff mod I =:= 0,
        Step is Diff // I
    ;   Known = [I-X, J-Y|_]
    ->  Diff is Y - X,
        Diff mod (J - I) =:= 0,
        Step is Diff // (J - I),
        Lower is X - I * Step
    ;   instantiation_error(List)
    ).

numlist_element(Step, X, X, Next) :-
    Next is X + Step.
