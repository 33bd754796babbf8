/*  library(terms) of SICStus Prolog 4, for solvers run in SWI-Prolog.

    The module exports the predicates SICStus documents for
    library(terms), and only those: SWI's SICStus 4 emulation
    (library(dialect/sicstus4/terms)) also exports SWI's
    term_variables/3, which clashes with the one of library(aggregate).
    Re-exported are SWI-Prolog's predicates with the same meaning, from
    that emulation, library(terms) and library(occurs).  Defined here
    are term_hash/3, depth_bound/2, length_bound/2, size_bound/2 and
    term_depth/2, which SWI lacks, and term_size/2 and term_hash/2,4,
    which SWI defines otherwise: its term_size/2 counts memory cells,
    SICStus' counts symbols, and its term_hash/4 takes no atoms for
    Depth and Range.  Hash values are SWI's, not those SICStus computes.
*/

:- module(sicstus_lib_terms,
          [ subsumeschk/2, subsumes/2, variant/2, term_subsumer/3,
            term_hash/2, term_hash/3, term_hash/4, term_variables_set/2,
            term_variables_bag/2, cyclic_term/1, term_order/3,
            contains_term/2, contains_var/2, free_of_term/2,
            free_of_var/2, occurrences_of_term/3, occurrences_of_var/3,
            sub_term/2, depth_bound/2, length_bound/2, size_bound/2,
            term_depth/2, term_size/2, same_functor/2, same_functor/3,
            same_functor/4
          ]).

:- set_module(base(system)).

:- use_module(library(dialect/sicstus4/terms),
              [ subsumeschk/2, term_variables_set/2, term_order/3,
                term_variables_bag/2
              ]).
:- use_module(library(terms),
              [ subsumes/2, variant/2, term_subsumer/3, same_functor/2,
                same_functor/3, same_functor/4
              ]).
:- use_module(library(occurs),
              [ contains_term/2, contains_var/2, free_of_term/2,
                free_of_var/2, occurrences_of_term/3,
                occurrences_of_var/3, sub_term/2
              ]).
:- use_module(library(error),
              [ must_be/2, domain_error/2, instantiation_error/1 ]).
:- use_module(library(apply), [foldl/4, maplist/2]).

%!  subsumeschk(+General, +Specific) is semidet.
%!  subsumes(?General, +Specific) is semidet.
%!  variant(+Term, +Variant) is semidet.
%!  term_subsumer(+Term1, +Term2, -General) is det.
%!  term_variables_set(+Term, -Variables) is det.
%!  term_variables_bag(+Term, -Variables) is det.
%!  cyclic_term(+Term) is semidet.
%!  term_order(+X, +Y, -R) is det.
%!  contains_term(+Kernel, +Expression) is semidet.
%!  contains_var(+Variable, +Term) is semidet.
%!  free_of_term(+Kernel, +Expression) is semidet.
%!  free_of_var(+Variable, +Term) is semidet.
%!  occurrences_of_term(+Kernel, +Expression, ?Tally) is det.
%!  occurrences_of_var(+Variable, +Term, ?Tally) is det.
%!  sub_term(?Kernel, +Term) is nondet.
%!  same_functor(?T1, ?T2) is semidet.
%!  same_functor(?T1, ?T2, ?N) is semidet.
%!  same_functor(?T1, ?T2, ?F, ?N) is semidet.
%
%   Re-exported from SWI-Prolog, which behaves as SICStus documents:
%   the _term predicates look for subterms that unify with Kernel, the
%   _var ones for identical (==) subterms.

%!  term_hash(+Term, -Hash) is det.
%!  term_hash(+Term, +Options, -Hash) is det.
%!  term_hash(+Term, +Depth, +Range, -Hash) is det.
%
%   Hash is an integer hash value of Term.  Options are
%   algorithm(Name) (all names give SWI's algorithm), range(Range)
%   (a positive integer, infinite, smallint, smallint32, smallint64
%   or default), depth(Depth) (a non-negative integer, infinite or
%   -1; the term itself has depth 1) and if_var(IfVar) for a variable
%   within Depth: error, ignore, value(Value) or default (leave Hash
%   unbound).  term_hash/2 takes the defaults, term_hash/4 gives
%   depth(Depth) and range(Range).

term_hash(Term, Hash) :-
    term_hash(Term, [], Hash).

term_hash(Term, Depth, Range, Hash) :-
    term_hash(Term, [depth(Depth), range(Range)], Hash).

term_hash(Term, Options, Hash) :-
    must_be(list, Options),
    foldl(hash_option, Options,
          hash(infinite, default, value(_)), hash(Depth, Range, IfVar)),
    hash_value(Term, Depth, IfVar, Value),
    (   Value = hashed(Int)
    ->  hash_range(Range, Modulus),
        Hash is Int mod Modulus
    ;   Value = given(Hash)
    ).

hash_option(Option, _, _) :-
    var(Option),
    !,
    instantiation_error(Option).
hash_option(algorithm(Name), Hash, Hash) :-
    hash_algorithm(Name),
    !.
hash_option(range(Range), hash(D, _, V), hash(D, Range, V)) :-
    (   integer(Range)
    ->  Range >= 1
    ;   hash_range(Range, _)
    ),
    !.
hash_option(depth(Depth), hash(_, R, V), hash(Depth, R, V)) :-
    (   integer(Depth)
    ->  Depth >= -1
    ;   Depth == infinite
    ),
    !.
hash_option(if_var(IfVar), hash(D, R, _), hash(D, R, IfVar)) :-
    nonvar(IfVar),
    if_var(IfVar),
    !.
hash_option(if_var(default), hash(D, R, _), hash(D, R, value(_))) :-
    !.
hash_option(Option, _, _) :-
    domain_error(term_hash_option, Option).

hash_algorithm(Name) :-
    atom(Name),
    memberchk(Name, [ default, jenkins, hsieh, sdbm, djb2, djb2_xor,
                      'sicstus-4.0.4', 'sicstus-4.0.5'
                    ]).

if_var(error).
if_var(ignore).
if_var(value(_)).

hash_range(Range, Modulus) :-
    (   integer(Range)
    ->  Modulus = Range
    ;   atom(Range),
        range_modulus(Range, Modulus)
    ).

range_modulus(default, 0x10000000).
range_modulus(smallint32, 0x10000000).
range_modulus(smallint, 0x1000000000000000).
range_modulus(smallint64, 0x1000000000000000).
range_modulus(infinite, 0x100000000).

%   hash_value(+Term, +Depth, +IfVar, -Value): Value is hashed(Int), or
%   given(V) if Term has a variable within Depth and IfVar is value(V).
hash_value(Term, Depth, IfVar, Value) :-
    (   IfVar == ignore
    ->  copy_term(Term, Copy),
        term_variables(Copy, Vars),
        maplist(=('$VAR'('_')), Vars)
    ;   Copy = Term
    ),
    (   ( Depth == infinite ; Depth == -1 )
    ->  system:term_hash(Copy, Value0)
    ;   terms:term_hash(Copy, Depth, 0x7fffffff, Value0)
    ),
    (   nonvar(Value0)
    ->  Value = hashed(Value0)
    ;   IfVar == error
    ->  instantiation_error(Term)
    ;   IfVar = value(Given),
        Value = given(Given)
    ).

%!  term_depth(+Term, -Depth) is det.
%
%   Depth is 0 for a variable or an atomic term, and one more than the
%   greatest depth of its arguments for a compound term.

term_depth(Term, Depth) :-
    (   compound(Term)
    ->  Term =.. [_|Args],
        foldl(deeper, Args, 0, Max),
        Depth is Max + 1
    ;   Depth = 0
    ).

deeper(Arg, Max0, Max) :-
    term_depth(Arg, D),
    Max is max(Max0, D).

%!  term_size(+Term, -Size) is det.
%
%   Size is the number of constant and function symbol occurrences in
%   Term: 0 for a variable, 1 for an atomic term, and one more than the
%   sum of the sizes of its arguments for a compound term.

term_size(Term, Size) :-
    (   var(Term)
    ->  Size = 0
    ;   compound(Term)
    ->  Term =.. [_|Args],
        foldl(add_size, Args, 1, Size)
    ;   Size = 1
    ).

add_size(Arg, Size0, Size) :-
    term_size(Arg, S),
    Size is Size0 + S.

%!  depth_bound(+Term, +Bound) is semidet.
%
%   The term_depth/2 of Term is at most Bound.  Terminates on cyclic
%   terms.

depth_bound(Term, Bound) :-
    (   compound(Term)
    ->  Bound > 0,
        Below is Bound - 1,
        Term =.. [_|Args],
        maplist(within_depth(Below), Args)
    ;   true
    ).

within_depth(Bound, Term) :-
    depth_bound(Term, Bound).

%!  size_bound(+Term, +Bound) is semidet.
%
%   The term_size/2 of Term is at most Bound.  Terminates on cyclic
%   terms.

size_bound(Term, Bound) :-
    size_left(Term, Bound, _).

%   size_left(+Term, +Bound, -Left): Term takes Bound-Left >= 0 symbols.
size_left(Term, Bound, Left) :-
    (   var(Term)
    ->  Left = Bound
    ;   Bound > 0,
        Left0 is Bound - 1,
        (   compound(Term)
        ->  Term =.. [_|Args],
            foldl(size_left_, Args, Left0, Left)
        ;   Left = Left0
        )
    ).

size_left_(Arg, Bound, Left) :-
    size_left(Arg, Bound, Left).

%!  length_bound(?List, +Bound) is nondet.
%
%   List is a list of at most Bound elements; a partial List is made
%   proper in every such way, shortest first.

length_bound([], Bound) :-
    Bound >= 0.
length_bound([_|List], Bound) :-
    Bound > 0,
    Left is Bound - 1,
    length_bound(List, Left).
