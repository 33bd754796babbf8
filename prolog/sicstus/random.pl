/*  library(random) of SICStus Prolog 4, for solvers run in SWI-Prolog.

    The module exports the predicates SICStus documents for
    library(random).  SWI-Prolog's library(random) is re-exported where
    it behaves as documented; defined here are setrand/1, which also
    takes an integer seed in SICStus, and random/3, maybe/1 and
    maybe/2, which fail where SWI's raise an error.  The generator is
    SWI's, so the numbers drawn differ from SICStus', and the state of
    getrand/1 is SWI's term, not random(X,Y,Z,B).
*/

:- module(sicstus_lib_random,
          [ getrand/1, setrand/1, maybe/0, maybe/1, maybe/2, random/1,
            random/3, random_numlist/4, random_member/2,
            random_select/3, random_subseq/3, random_permutation/2,
            random_perm2/4
          ]).

:- set_module(base(system)).

:- use_module(library(random),
              [ getrand/1, maybe/0, random/1, random_numlist/4,
                random_member/2, random_select/3, random_subseq/3,
                random_permutation/2, random_perm2/4
              ]).
:- use_module(library(error), [must_be/2]).

%!  getrand(-State) is det.
%!  maybe is semidet.
%!  random(-Uniform) is det.
%!  random_numlist(+P, +Low, +High, -List) is det.
%!  random_member(-Elem, +List) is semidet.
%!  random_select(?Elem, ?List, ?Rest) is semidet.
%!  random_subseq(+List, -Subseq, -Complement) is det.
%!  random_permutation(?List, ?Perm) is det.
%!  random_perm2(?A, ?B, ?X, ?Y) is det.
%
%   Re-exported from SWI-Prolog, which behaves as SICStus documents.

%!  setrand(+State) is det.
%
%   Sets the state of the generator to one from getrand/1, or seeds it
%   with an integer.  (SWI's states are integers too, but large ones
%   that no seed of interest resembles.)

setrand(State) :-
    (   catch(random:setrand(State), error(type_error(state, _), _), fail)
    ->  true
    ;   integer(State)
    ->  set_random(seed(State))
    ;   random:setrand(State)
    ).

%!  random(+L, +U, -R) is semidet.
%
%   R is a random integer in [L, U) if L and U are integers, otherwise
%   a random float in [L, U).  Fails if L >= U or either is not a
%   number.

random(L, U, R) :-
    number(L),
    number(U),
    L < U,
    (   integer(L), integer(U)
    ->  R is L + random(U - L)
    ;   R is L + (U - L) * random_float
    ).

%!  maybe(+Probability) is semidet.
%
%   Succeeds with probability Probability: never if it is 0 or less,
%   always if it is 1 or more.

maybe(P) :-
    must_be(number, P),
    random_float < P.

%!  maybe(+P, +N) is semidet.
%
%   Succeeds with probability P/N for integers 0 =< P =< N; fails
%   otherwise.

maybe(P, N) :-
    integer(P),
    integer(N),
    0 =< P, P =< N,
    N > 0,
    random(N) < P.
