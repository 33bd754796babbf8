/*  Knight's tours on W x H boards: find one, or count them all.

    A square is X-Y, 0-based, with 0-0 the top-left square as printed: X
    counts files left to right and Y counts rows top to bottom (the Python
    side's convention).  Inside, square X-Y is the index Y*W + X + 1, so
    per-square data lives in terms accessed with arg/3:

      - the neighbour term: argument I is the list of the squares a knight
        on I reaches;
      - the state term: argument I is the number of unvisited neighbours
        of I, plus 16 once I is visited, and one more argument names the
        square where the path must end, once that is known.  It is
        changed with setarg/3, whose changes are undone on backtracking,
        so the search stays a plain Prolog search.

    Every such term is made afresh by each call and dies with it; no
    global state is kept.  The one destructive update is knight_tour/6's
    move counter (nb_setarg/3), so that moves taken back still count.

    Both searches prune with the same sound test.  Whatever is unvisited
    must still be covered by one path from the current square, so every
    unvisited square that is not next to the current square needs two
    unvisited neighbours, except the one square where the path ends,
    which needs one.  A square's count only drops when one of its
    neighbours is visited, so the test only looks at the neighbours of the
    square just left.

    knight_tour/6 follows Warnsdorff's rule (go where the fewest onward
    moves are), breaks ties by a second rule, and backtracks when stuck,
    so it is complete.  When one tie-break rule makes no progress, it
    starts again with another.  knight_count/5 tries every move.
*/

:- module(knight, [knight_tour/6, knight_count/5]).

:- use_module(library(apply)).
:- use_module(library(lists)).
:- use_module(library(error)).

%!  knight_tour(+W, +H, +Start, +Closed, -Path, -Moves) is semidet.
%
%   Path is a knight's tour of the W x H board that starts on Start (a
%   square X-Y) and visits each square once: a list of W*H squares X-Y.
%   With Closed = true the last square is also a knight's move from the
%   first.  Moves is the number of moves the search made, counting those
%   it took back.  Fails when there is no such tour.
%
%   The search follows Warnsdorff's rule in stages that differ in how
%   they break ties (see stages/3).  All stages but the last give up
%   after a budget of moves; a stage that fails within its budget has
%   tried everything, so the answer is then final.  Closed tours are
%   searched from the top-left corner, and the cycle found is then turned
%   to begin on Start.

knight_tour(W, H, X0-Y0, Closed, Path, Moves) :-
    check_board(W, H),
    check_square(W, H, X0-Y0),
    must_be(boolean, Closed),
    (   Closed == true
    ->  closed_possible(W, H)
    ;   open_start(W, H, X0-Y0)
    ),
    Start is Y0*W + X0 + 1,
    neighbour_term(W, H, Nbrs),
    stages(W, H, Stages),
    Counter = moves(0, none),
    staged_search(Stages, board(W, H, Nbrs), Start, Closed, Counter,
                  Tour),
    maplist(square(W), Tour, Path),
    arg(1, Counter, Moves).

%!  knight_count(+W, +H, +Start, +Closed, -Count) is det.
%
%   Count is the number of directed knight's tours of the W x H board
%   from Start (a square X-Y), or from every square when Start is `all`.
%   With Closed = true only closed tours count.  Plain backtracking with
%   the pruning test described at the top of this file: meant for boards
%   up to about 5 x 5 (6 x 6 for closed tours from one square).

knight_count(W, H, Start, Closed, Count) :-
    check_board(W, H),
    must_be(boolean, Closed),
    N is W*H,
    (   Start == all
    ->  numlist(1, N, Starts)
    ;   check_square(W, H, Start),
        Start = X0-Y0,
        I is Y0*W + X0 + 1,
        Starts = [I]
    ),
    (   Closed == true,
        \+ closed_possible(W, H)
    ->  Count = 0
    ;   neighbour_term(W, H, Nbrs),
        foldl(count_from(Nbrs, Closed), Starts, 0, Count)
    ).

count_from(Nbrs, Closed, Start, Count0, Count) :-
    aggregate_all(count, count_path(Nbrs, Closed, Start), C),
    Count is Count0 + C.

count_path(Nbrs, Closed, Start) :-
    functor(Nbrs, _, N),
    state_term(N, Nbrs, State),
    visit(Start, Nbrs, State),
    (   Closed == true
    ->  Mode = closed(Start)
    ;   Mode = open
    ),
    Left is N - 1,
    every_path(Left, Start, Nbrs, State, Mode).

%   every_path(+Left, +Here, +Nbrs, +State, +Mode) is nondet.
%   Succeeds once for each path from Here over the Left unvisited
%   squares.  Mode is `open`, or closed(Start) when the path must end
%   next to Start: Start then needs an unvisited neighbour all along,
%   and a square that must end the path has to be one of them.
every_path(0, Last, Nbrs, _, Mode) :-
    !,
    (   Mode = closed(Start)
    ->  arg(Start, Nbrs, Ns),
        memberchk(Last, Ns)
    ;   true
    ).
every_path(Left, Here, Nbrs, State, Mode) :-
    (   Mode = closed(Start)
    ->  arg(Start, State, S),
        S > 16,
        functor(State, _, EndArg),
        arg(EndArg, State, End),
        (   End == 0
        ->  true
        ;   arg(Start, Nbrs, StartNs),
            memberchk(End, StartNs)
        )
    ;   true
    ),
    arg(Here, Nbrs, Ns),
    member(Next, Ns),
    arg(Next, State, D),
    D < 16,
    (   D =:= 0
    ->  Left =:= 1
    ;   true
    ),
    visit(Next, Nbrs, State),
    left_behind(Ns, Next, State),
    Left1 is Left - 1,
    every_path(Left1, Next, Nbrs, State, Mode).

%   ---- finding one tour ----

%   stages(+W, +H, -Stages): the tie-break rules to try, each with its
%   move budget (`none`: no limit).  Taking the square farthest from the
%   centre suits square and near-square boards; taking the square
%   nearest the first one suits some long narrow boards (such as those
%   three squares wide), which the search then sweeps from one end.
stages(W, H, [centre-Budget, start-Budget, centre-none]) :-
    Budget is 10*W*H + 20000.

%   staged_search(+Stages, +Board, +Start, +Closed, +Counter, -Tour)
%   Tour is a list of square indices.  Counter is moves(Made, Limit):
%   the moves made in all stages, and the count at which the current
%   stage gives up (`none`: never).  The term is local to one
%   knight_tour/6 call and changed with nb_setarg/3, so that moves taken
%   back still count.
staged_search([Rule-Budget|Stages], Board, Start, Closed, Counter,
              Tour) :-
    arg(1, Counter, Made),
    (   Budget == none
    ->  Limit = none
    ;   Limit is Made + Budget
    ),
    nb_setarg(2, Counter, Limit),
    catch(( search(Closed, Rule, Board, Start, Counter, Tour0)
          ->  Result = found(Tour0)
          ;   Result = exhausted
          ),
          knight_budget,
          Result = over_budget),
    (   Result = found(Tour)
    ->  true
    ;   Result == over_budget
    ->  staged_search(Stages, Board, Start, Closed, Counter, Tour)
    ).

%   search(+Closed, +Rule, +Board, +Start, +Counter, -Tour)
%   A closed tour starts on the corner, square 1, whose two neighbours A
%   and B come second and last: the first move is A, and B is reserved
%   as the end of the path.
search(false, Rule, board(W, H, Nbrs), Start, Counter, [Start|Path]) :-
    N is W*H,
    weights(Rule, W, H, Start, Weights),
    state_term(N, Nbrs, State),
    visit(Start, Nbrs, State),
    Left is N - 1,
    walk(Left, Start, Nbrs, Weights, State, Counter, Path).
search(true, Rule, board(W, H, Nbrs), Start, Counter, Tour) :-
    N is W*H,
    arg(1, Nbrs, [A, B]),
    weights(Rule, W, H, 1, Weights),
    state_term(N, Nbrs, State),
    EndArg is N + 1,
    setarg(EndArg, State, B),
    visit(1, Nbrs, State),
    count_move(Counter),
    visit(A, Nbrs, State),
    left_behind([A, B], A, State),
    Left is N - 2,
    walk(Left, A, Nbrs, Weights, State, Counter, Path),
    rotate([1, A|Path], Start, Tour).

%   walk(+Left, +Here, +Nbrs, +Weights, +State, +Counter, -Path)
%   Path continues from Here over the Left unvisited squares.
walk(0, _, _, _, _, _, []) :-
    !.
walk(Left, Here, Nbrs, Weights, State, Counter, [Next|Path]) :-
    arg(Here, Nbrs, Ns),
    candidates(Ns, Left, Weights, State, Keyed),
    keysort(Keyed, Sorted),
    member(_-Next, Sorted),
    count_move(Counter),
    visit(Next, Nbrs, State),
    left_behind(Ns, Next, State),
    Left1 is Left - 1,
    walk(Left1, Next, Nbrs, Weights, State, Counter, Path).

count_move(Counter) :-
    arg(1, Counter, M0),
    M is M0 + 1,
    nb_setarg(1, Counter, M),
    arg(2, Counter, Limit),
    (   ( Limit == none ; M =< Limit )
    ->  true
    ;   throw(knight_budget)
    ).

%   The unvisited squares of Ns, keyed by Warnsdorff's rule with ties
%   broken by Weights.  Squares without onward moves, and the square
%   reserved as the end, are left out until only one square is left.
candidates([], _, _, _, []).
candidates([I|Is], Left, Weights, State, Keyed) :-
    arg(I, State, D),
    (   D >= 16
    ->  Keyed = Keyed1
    ;   Left > 1,
        (   D =:= 0
        ;   functor(State, _, EndArg),
            arg(EndArg, State, I)
        )
    ->  Keyed = Keyed1
    ;   arg(I, Weights, T),
        Keyed = [(D-T)-I|Keyed1]
    ),
    candidates(Is, Left, Weights, State, Keyed1).

%   weights(+Rule, +W, +H, +First, -Weights): argument I is the
%   tie-break weight of square I, the smaller the better.  Rule `centre`
%   favours squares far from the centre, `start` squares near First.
weights(Rule, W, H, First, Weights) :-
    N is W*H,
    functor(Weights, weights, N),
    square(W, First, FX-FY),
    Far is W*W + H*H,
    fill_weights(1, N, Rule, W, H, FX-FY, Far, Weights).

fill_weights(I, N, Rule, W, H, First, Far, Weights) :-
    (   I > N
    ->  true
    ;   square(W, I, Square),
        weight(Rule, W, H, First, Far, Square, T),
        setarg(I, Weights, T),
        I1 is I + 1,
        fill_weights(I1, N, Rule, W, H, First, Far, Weights)
    ).

weight(centre, W, H, _, Far, X-Y, T) :-
    T is Far - ((2*X - W + 1)^2 + (2*Y - H + 1)^2).
weight(start, _, _, FX-FY, _, X-Y, T) :-
    T is (X - FX)^2 + (Y - FY)^2.

%   ---- the state term and the pruning test ----

%   state_term(+N, +Nbrs, -State): argument I (1..N) holds the degree of
%   square I, argument N+1 the square where the path must end (0 while
%   unknown).
state_term(N, Nbrs, State) :-
    N1 is N + 1,
    functor(State, state, N1),
    setarg(N1, State, 0),
    init_degrees(1, N, Nbrs, State).

init_degrees(I, N, Nbrs, State) :-
    (   I > N
    ->  true
    ;   arg(I, Nbrs, Ns),
        length(Ns, D),
        setarg(I, State, D),
        I1 is I + 1,
        init_degrees(I1, N, Nbrs, State)
    ).

visit(I, Nbrs, State) :-
    arg(I, State, D),
    D1 is D + 16,
    setarg(I, State, D1),
    arg(I, Nbrs, Ns),
    lower(Ns, State).

lower([], _).
lower([I|Is], State) :-
    arg(I, State, D),
    D1 is D - 1,
    setarg(I, State, D1),
    lower(Is, State).

%   left_behind(+Ns, +Next, +State): after moving to Next, the unvisited
%   squares Ns around the square just left are no longer next to the
%   path's head: each needs two unvisited neighbours, or else must be the
%   path's one end.
left_behind([], _, _).
left_behind([I|Is], Next, State) :-
    arg(I, State, D),
    (   ( D >= 16 ; I == Next ; D >= 2 )
    ->  true
    ;   D =:= 1,
        functor(State, _, EndArg),
        arg(EndArg, State, End),
        (   End == 0
        ->  setarg(EndArg, State, I)
        ;   End == I
        )
    ),
    left_behind(Is, Next, State).

%   ---- the board ----

%   Two facts cut short searches that could not succeed but would take
%   long to find that out.
%
%   A knight changes colour on every move, so a path over a board with an
%   odd number of squares begins and ends on the colour of the corners,
%   which has one square more; and a closed tour needs an even number of
%   squares.
%
%   On a board four rows high, a knight on one of the two outer rows can
%   only jump to the two inner rows, which hold as many squares.  In a
%   tour no two outer squares follow each other, so either inner and
%   outer squares alternate all along, or the tour begins and ends on
%   outer squares.  If they alternated, the outer squares would all come
%   an even number of moves apart and so share one colour, yet each outer
%   row has both colours.  Hence an open tour starts on an outer row, and
%   there is no closed tour.  The same holds for four columns.
open_start(W, H, X-Y) :-
    (   W*H mod 2 =:= 1
    ->  (X + Y) mod 2 =:= 0
    ;   true
    ),
    outer_line(W, X),
    outer_line(H, Y).

outer_line(Length, C) :-
    (   Length =:= 4
    ->  ( C =:= 0 ; C =:= 3 ), !
    ;   true
    ).

%   A closed tour also needs every square to have two neighbours, which
%   the corners lack when a side is shorter than three.
closed_possible(W, H) :-
    W*H mod 2 =:= 0,
    W >= 3, H >= 3,
    W =\= 4, H =\= 4.

check_board(W, H) :-
    must_be(positive_integer, W),
    must_be(positive_integer, H).

check_square(W, H, Square) :-
    (   Square = X-Y, integer(X), integer(Y),
        X >= 0, X < W, Y >= 0, Y < H
    ->  true
    ;   domain_error(square_on_board(W, H), Square)
    ).

square(W, I, X-Y) :-
    X is (I-1) mod W,
    Y is (I-1) // W.

%   neighbour_term(+W, +H, -Nbrs): argument I lists the squares a knight
%   on square I reaches.
neighbour_term(W, H, Nbrs) :-
    N is W*H,
    functor(Nbrs, nbrs, N),
    fill_neighbours(1, N, W, H, Nbrs).

fill_neighbours(I, N, W, H, Nbrs) :-
    (   I > N
    ->  true
    ;   square(W, I, X-Y),
        findall(J, jump(W, H, X, Y, J), Js),
        setarg(I, Nbrs, Js),
        I1 is I + 1,
        fill_neighbours(I1, N, W, H, Nbrs)
    ).

jump(W, H, X, Y, J) :-
    step(DX, DY),
    X1 is X + DX, X1 >= 0, X1 < W,
    Y1 is Y + DY, Y1 >= 0, Y1 < H,
    J is Y1*W + X1 + 1.

step(1, 2).
step(2, 1).
step(2, -1).
step(1, -2).
step(-1, -2).
step(-2, -1).
step(-2, 1).
step(-1, 2).

%   rotate(+Cycle, +Start, -Tour): Tour is the cycle begun at Start.
rotate(Cycle, Start, Tour) :-
    append(Before, [Start|After], Cycle),
    !,
    append([Start|After], Before, Tour).
