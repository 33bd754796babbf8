/* The similarity report's reference of independent work: the answers
   every textbook and first Prolog course gives to its first exercises,
   written for plpuzzle. What a hand-in shares with this file is left
   out of the comparison, as --base code is: two students who both write
   the accumulator reverse/3 have copied nothing from each other.
   Predicate and variable names do not matter (the normal form numbers
   them); only the clauses' shapes do. */

% Lists.
len([], 0).
len([_|T], N) :- len(T, M), N is M+1.
len_acc([], N, N).
len_acc([_|T], A, N) :- A1 is A+1, len_acc(T, A1, N).
app([], L, L).
app([H|T], L, [H|R]) :- app(T, L, R).
mem(X, [X|_]).
mem(X, [_|T]) :- mem(X, T).
rev([], []).
rev([H|T], R) :- rev(T, RT), app(RT, [H], R).
rev_acc([], A, A).
rev_acc([H|T], A, R) :- rev_acc(T, [H|A], R).
last_of([X], X).
last_of([_|T], X) :- last_of(T, X).
nth_of(1, [X|_], X) :- !.
nth_of(N, [_|T], X) :- N > 1, N1 is N-1, nth_of(N1, T, X).
sum_of([], 0).
sum_of([H|T], S) :- sum_of(T, S1), S is S1+H.
sum_acc([], S, S).
sum_acc([H|T], A, S) :- A1 is A+H, sum_acc(T, A1, S).
max_of([X], X).
max_of([H|T], M) :- max_of(T, M1), M is max(H, M1).
max_of2([H|T], M) :- max_of2(T, H, M).
max_of2([], M, M).
max_of2([H|T], A, M) :- H > A, !, max_of2(T, H, M).
max_of2([_|T], A, M) :- max_of2(T, A, M).
del(X, [X|T], T).
del(X, [H|T], [H|R]) :- del(X, T, R).
del_all(_, [], []).
del_all(X, [X|T], R) :- !, del_all(X, T, R).
del_all(X, [H|T], [H|R]) :- del_all(X, T, R).
count(_, [], 0).
count(X, [X|T], N) :- !, count(X, T, N1), N is N1+1.
count(X, [_|T], N) :- count(X, T, N).
flat([], []) :- !.
flat([H|T], F) :- !, flat(H, FH), flat(T, FT), app(FH, FT, F).
flat(X, [X]).
perm([], []).
perm(L, [H|T]) :- del(H, L, R), perm(R, T).
ins_sort([], []).
ins_sort([H|T], S) :- ins_sort(T, ST), ins(H, ST, S).
ins(X, [], [X]).
ins(X, [H|T], [X,H|T]) :- X =< H, !.
ins(X, [H|T], [H|R]) :- ins(X, T, R).
qsort([], []).
qsort([H|T], S) :- part(H, T, L, G), qsort(L, SL), qsort(G, SG), app(SL, [H|SG], S).
part(_, [], [], []).
part(P, [X|T], [X|L], G) :- X =< P, !, part(P, T, L, G).
part(P, [X|T], L, [X|G]) :- part(P, T, L, G).
sublist_of([], _).
sublist_of([H|T], [H|R]) :- sublist_of(T, R).
sublist_of(S, [_|R]) :- sublist_of(S, R).
prefix_of([], _).
prefix_of([H|T], [H|R]) :- prefix_of(T, R).
palindrome(L) :- rev(L, L).
even_len([]).
even_len([_,_|T]) :- even_len(T).

% Numbers.
fact(0, 1) :- !.
fact(N, F) :- N > 0, N1 is N-1, fact(N1, F1), F is N*F1.
fib(0, 0).
fib(1, 1).
fib(N, F) :- N > 1, N1 is N-1, N2 is N-2, fib(N1, F1), fib(N2, F2), F is F1+F2.
gcd(X, 0, X) :- !.
gcd(X, Y, G) :- Z is X mod Y, gcd(Y, Z, G).
pow_of(_, 0, 1) :- !.
pow_of(X, N, P) :- N1 is N-1, pow_of(X, N1, P1), P is X*P1.
range(N, N, [N]) :- !.
range(I, N, [I|T]) :- I < N, I1 is I+1, range(I1, N, T).
hanoi(0, _, _, _) :- !.
hanoi(N, A, B, C) :- N1 is N-1, hanoi(N1, A, C, B), write(A-B), nl, hanoi(N1, C, B, A).

% Family trees (the people are the data: no facts here).
father(X, Y) :- parent(X, Y), male(X).
mother(X, Y) :- parent(X, Y), female(X).
grandparent(X, Z) :- parent(X, Y), parent(Y, Z).
grandfather(X, Z) :- parent(X, Y), parent(Y, Z), male(X).
grandmother(X, Z) :- parent(X, Y), parent(Y, Z), female(X).
sibling(X, Y) :- parent(Z, X), parent(Z, Y), X \= Y.
sibling2(X, Y) :- parent(Z, X), parent(Z, Y), \+ X = Y.
brother(X, Y) :- sibling(X, Y), male(X).
sister(X, Y) :- sibling(X, Y), female(X).
uncle(X, Y) :- parent(Z, Y), brother(X, Z).
aunt(X, Y) :- parent(Z, Y), sister(X, Z).
cousin(X, Y) :- parent(A, X), parent(B, Y), sibling(A, B).
ancestor(X, Y) :- parent(X, Y).
ancestor(X, Y) :- parent(X, Z), ancestor(Z, Y).
descendant(X, Y) :- ancestor(Y, X).

% Graphs.
connected(X, Y) :- edge(X, Y).
connected(X, Y) :- edge(Y, X).
reach(X, Y) :- edge(X, Y).
reach(X, Y) :- edge(X, Z), reach(Z, Y).
path(X, Y, P) :- path(X, Y, [X], Q), rev(Q, P).
path(X, X, V, V).
path(X, Y, V, P) :- edge(X, Z), \+ mem(Z, V), path(Z, Y, [Z|V], P).
route(X, Y, D) :- road(X, Y, D).
route(X, Y, D) :- road(X, Z, D1), route(Z, Y, D2), D is D1+D2.
