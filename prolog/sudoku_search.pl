/*  The fast search behind sudoku/3's search(board) option.

    search_board/4 solves a puzzle with models of its own, shaped for a
    search of its own, instead of labelling the plain model of sudoku.pl:
    first-fail labelling explores tens of thousands of nodes on the hard
    puzzles, and SWI-Prolog's all_distinct makes each node slow.  Every
    answer is still a labelling that a CLP(FD) model of the same rules
    accepts.

    Under `oddsum` the search runs in two stages, each a model of its own:

    1.  Parities.  Every s or w info means that the two values have
        different parities, and every unit holds exactly ceil(N/2) odd
        values.  The 0/1 model also carries value variables, each value
        once per unit, so that it does not offer parity grids no values
        can fill; on the course's puzzles it usually fixes every parity
        before any search.
    2.  Values, for one labelled parity grid.  Odd cells take odd values
        and even cells even ones, so each unit splits into an odd and an
        even part, each holding the values of its parity once.  Nothing
        else links the two halves: they are solved apart and their
        solutions combined, so a failure in one half never makes the
        search revisit the other.

    Every solution has exactly one parity grid, so the stages together
    still produce each solution once.  Under `consecutive` an s/w pair
    ties values, not only parities, and parity grids are many, so the
    values are searched directly, the s/w pairs as |A-B| = 1.

    The value search (see "The value search" below) reads the domains of
    the constraint store into bit masks at each node.  On them it applies
    the naked and hidden singles, Hall's theorem on each unit and on each
    value's rows and columns, and box-line confinement, then probes
    failed literals: it tries both sides of every bivalue cell (two
    candidates left) and bilocal value (two places left in a unit) with
    the singles alone.  A side that fails is excluded, and the node
    branches on the pair whose two sides remove most candidates.  What a
    node concludes is posted back to the store as domains, and the
    branches as X #= V and X #\= V.  A node's masks are rebuilt from the
    store; all a child gets from its parent is the domains the parent
    posted, to see what changed since.
*/

:- module(sudoku_search, [search_board/4]).

:- use_module(library(clpfd)).
:- use_module(library(apply)).
:- use_module(library(assoc)).
:- use_module(library(lists)).
:- use_module(library(pairs)).
:- use_module(sudoku_grid).

%   Compile arithmetic inline: the search is mostly bit operations.  The
%   flag holds only while this file is being loaded.
:- set_prolog_flag(optimise, true).

%!  search_board(+Rules, +K, +Board, -Rows) is nondet.
%
%   Rows is a solution of the puzzle s(K, Board) under Rules
%   (`consecutive` or `oddsum`); every solution comes once on
%   backtracking.

search_board(consecutive, K, Board, Rows) :-
    consecutive_model(K, Board, Rows),
    label_consecutive(K, Board, Rows).
search_board(oddsum, K, Board, Rows) :-
    parity_model(K, Board, Parities),
    append(Parities, Ps),
    labeling([ff], Ps),
    halves_model(K, Board, Parities, Rows),
    label_halves(K, Rows, Parities).

%!  parity_model(+K, +Board, -Parities) is semidet.
%
%   Parities is an N x N matrix of 0/1 variables (1 = odd) constrained by
%   the infos and by the odd count of every unit.  The model also carries
%   value variables, tied to the parities and holding each value once per
%   unit, but never labelled: they keep the parity search away from grids
%   that no values can fill, which parity counts alone do not see.

parity_model(K, Board, Parities) :-
    N is K*K,
    matrix(N, Parities),
    matrix(N, Values),
    append(Parities, Ps),
    append(Values, Vs),
    Vs ins 1..N,
    findall([V, P], (between(1, N, V), P is V mod 2), ParityOf),
    maplist(has_parity(ParityOf), Vs, Ps),
    cells(Board, Parities, ParityCells),
    maplist(parity_infos, ParityCells),
    cells(Board, Values, ValueCells),
    maplist(given_value, ValueCells),
    units(K, Values, Units),
    numlist(1, N, All),
    maplist(each_once(All), Units),
    Odds is (N+1) // 2,
    units(K, Parities, ParityUnits),
    maplist(sum_is(Odds), ParityUnits).

has_parity(ParityOf, V, P) :-
    tuples_in([[V, P]], ParityOf).

parity_infos(cell(Infos, P, South, West)) :-
    maplist(parity_info(P, South, West), Infos).

parity_info(P, _, _, v(M)) :- P #= M mod 2.
parity_info(P, _, _, o) :- P #= 1.
parity_info(P, _, _, e) :- P #= 0.
parity_info(P, South, _, s) :- differ(P, South).
parity_info(P, _, West, w) :- differ(P, West).

%   Both relations join an odd and an even value; `none` is off the board.
differ(P, Q) :-
    (   Q == none
    ->  true
    ;   P + Q #= 1
    ).

given_value(cell(Infos, V, _, _)) :-
    (   memberchk(v(M), Infos)
    ->  V #= M
    ;   true
    ).

%   The variables Vs hold each of Values exactly once (there are as many
%   of them as values).  With value consistency this propagates the naked
%   and hidden singles, far more cheaply than all_distinct's matching.
each_once(Values, Vs) :-
    findall(V-1, member(V, Values), Counts),
    global_cardinality(Vs, Counts, [consistency(value)]).

sum_is(Total, Vars) :-
    sum(Vars, #=, Total).

%!  halves_model(+K, +Board, +Parities, -Rows) is semidet.
%
%   Rows is an N x N matrix of value variables for the ground parity grid
%   Parities: a cell's domain holds the values of its parity, the given
%   values are posted, and each unit's odd part and even part are
%   all_different.  The parity grid gives each part as many cells as its
%   parity has values, so each part holds each of them once.  The search
%   does the stronger reasoning itself, so the cheapest propagation will
%   do here.

halves_model(K, Board, Parities, Rows) :-
    N is K*K,
    matrix(N, Rows),
    append(Rows, Vs),
    append(Parities, Ps),
    maplist(parity_domain(N), Vs, Ps),
    cells(Board, Rows, Cells),
    maplist(given_value, Cells),
    units(K, Rows, Units),
    units(K, Parities, ParityUnits),
    maplist(different_halves, Units, ParityUnits).

parity_domain(N, V, P) :-
    parity_values(N, P, Xs),
    list_to_fdset(Xs, Set),
    V in_set Set.

%   The values 1..N of parity P (1 = odd).
parity_values(N, P, Xs) :-
    findall(X, (between(1, N, X), X mod 2 =:= P), Xs).

different_halves(Unit, Parities) :-
    parity_part(Unit, Parities, 1, Odd),
    parity_part(Unit, Parities, 0, Even),
    all_different(Odd),
    all_different(Even).

%   The entries of Xs whose parity (in Ps) is P.
parity_part([], [], _, []).
parity_part([X|Xs], [Q|Qs], P, Part) :-
    (   Q =:= P
    ->  Part = [X|Part1]
    ;   Part = Part1
    ),
    parity_part(Xs, Qs, P, Part1).

%!  consecutive_model(+K, +Board, -Rows) is semidet.
%
%   Rows is an N x N matrix of value variables: the infos narrow their
%   domains, each s/w pair differs by one, and every unit is
%   all_different (N cells, N values: each value once).  As above, the
%   search does the stronger reasoning.

consecutive_model(K, Board, Rows) :-
    N is K*K,
    matrix(N, Rows),
    append(Rows, Vs),
    Vs ins 1..N,
    cells(Board, Rows, Cells),
    maplist(consecutive_infos(N), Cells),
    units(K, Rows, Units),
    maplist(all_different, Units).

consecutive_infos(N, cell(Infos, V, South, West)) :-
    maplist(consecutive_info(N, V, South, West), Infos).

consecutive_info(_, V, _, _, v(M)) :- V #= M.
consecutive_info(N, V, _, _, o) :- parity_domain(N, V, 1).
consecutive_info(N, V, _, _, e) :- parity_domain(N, V, 0).
consecutive_info(_, V, South, _, s) :- next_to(V, South).
consecutive_info(_, V, _, West, w) :- next_to(V, West).

next_to(A, B) :-
    (   B == none
    ->  true
    ;   abs(A-B) #= 1
    ).

%   Search the whole grid, its s/w pairs linked.
label_consecutive(K, Board, Rows) :-
    append(Rows, Vs),
    length(Vs, Size),
    numlist(1, Size, Is),
    matrix_of(K, Is, Index),
    cells(Board, Index, Cells),
    foldl(cell_links, Cells, Links, []),
    N is K*K,
    numlist(1, N, Values),
    solve_board(K, Vs, Is, Values, Links).

%   A cell's s and w infos, as links between grid indices.
cell_links(cell(Infos, I, South, West), Links0, Links) :-
    foldl(info_link(I, South, West), Infos, Links0, Links).

info_link(I, South, West, Info, Links0, Links) :-
    (   Info == s,
        South \== none
    ->  Links0 = [I-South|Links]
    ;   Info == w,
        West \== none
    ->  Links0 = [I-West|Links]
    ;   Links0 = Links
    ).

%   The odd and the even cells are independent problems: every solution
%   of the one with fewer open cells is collected once, then paired with
%   each solution of the other, so neither is searched again for the
%   other's sake.
label_halves(K, Rows, Parities) :-
    half(K, Rows, Parities, 1, Odd),
    half(K, Rows, Parities, 0, Even),
    free_first(Odd, Even, Small-SmallIs-SmallP, Large-LargeIs-LargeP),
    N is K*K,
    parity_values(N, SmallP, SmallValues),
    parity_values(N, LargeP, LargeValues),
    findall(Small, solve_board(K, Small, SmallIs, SmallValues, []),
            Solutions),
    Solutions \== [],
    solve_board(K, Large, LargeIs, LargeValues, []),
    member(Small, Solutions).

%   Vs-Is-P: the cells of parity P and their row-major grid indices.
half(K, Rows, Parities, P, Vs-Is-P) :-
    append(Rows, All),
    append(Parities, Ps),
    N is K*K,
    Size is N*N,
    numlist(1, Size, AllIs),
    parity_part(All, Ps, P, Vs),
    parity_part(AllIs, Ps, P, Is).

%   The half with fewer unlabelled variables comes first.
free_first(A, B, Small, Large) :-
    A = VsA-_-_,
    B = VsB-_-_,
    include(var, VsA, FreeA),
    include(var, VsB, FreeB),
    length(FreeA, NA),
    length(FreeB, NB),
    (   NA =< NB
    ->  Small = A,
        Large = B
    ;   Small = B,
        Large = A
    ).


/*  The value search.

    A board is a set of cells to label, numbered 1..Size, and the units
    that must hold each of their values exactly once: units 1..N are the
    rows, N+1..2N the columns and 2N+1..3N the boxes, cut down to the
    board's cells (under `oddsum` a board holds the cells of one parity).

        board(Vars, CellUnits, UnitCells, Coords, Links, Cross, N)

    Vars holds the cell variables.  The cells of a unit have positions
    0, 1, ... in it: UnitCells gives, per unit, the cells in position
    order (`none` for a unit without cells), and CellUnits, per cell, its
    row, column and box as Unit-Position pairs.  Coords gives each cell's
    c(Row, Column, Box), counted from 0, Links the cells linked to each
    cell by s/w infos under `consecutive`, and Cross, per unit, the units
    crossing it (a row's or a column's boxes, a box's rows and columns)
    as x(Unit, Here, There): the positions of their common cells in this
    unit and in the other.

    A node's state is two mutable terms that say the same thing from both
    sides: Doms, per cell, its candidates (bit V for value V), and Places,
    per unit and value (argument (Unit-1)*N + Value), the positions in the
    unit that can still take the value.  Both are built afresh from the
    constraint store at each node; the rules change them with setarg/3,
    which backtracking undoes, so a probe leaves them as they were.
*/

%   solve_board(+K, +Vars, +Positions, +Values, +Links) is nondet.
%
%   Every labelling of Vars that the model allows, each once.  Vars are
%   the cells at Positions (row-major grid indices) of a K*K x K*K grid,
%   each unit of which holds each of Values once; Links are pairs of grid
%   indices whose values differ by one.
solve_board(K, Vars, Positions, Values, Links) :-
    (   ground(Vars)
    ->  true
    ;   make_board(K, Vars, Positions, Links, Board),
        foldl(value_bit, Values, 0, ValueMask),
        board_search(Board, root(ValueMask))
    ).

value_bit(V, M0, M) :-
    M is M0 \/ (1 << V).

make_board(K, Vars, Positions, Links, Board) :-
    Board = board(VarT, CellUnitT, UnitCellT, CoordT, LinkT, CrossT, N),
    N is K*K,
    VarT =.. [v|Vars],
    length(Vars, Size),
    numlist(1, Size, Is),
    maplist(coords(K), Positions, Coords),
    CoordT =.. [c|Coords],
    foldl(unit_members(N), Is, Coords, Members, []),
    msort(Members, Sorted),
    group_pairs_by_key(Sorted, Groups),
    NU is 3*N,
    numlist(1, NU, Us),
    maplist(unit_cells(Groups), Us, UnitCells),
    UnitCellT =.. [u|UnitCells],
    foldl(cell_positions, Groups, Triples, []),
    msort(Triples, SortedTriples),
    group_pairs_by_key(SortedTriples, CellGroups),
    pairs_values(CellGroups, CellUnits),
    CellUnitT =.. [o|CellUnits],
    link_table(Positions, Links, Size, LinkT),
    foldl(crossing_pairs, CellUnits, Pairs, []),
    msort(Pairs, SortedPairs),
    group_pairs_by_key(SortedPairs, PairGroups),
    maplist(crossing, PairGroups, Crossings0),
    append(Crossings0, Crossings1),
    msort(Crossings1, Crossings),
    group_pairs_by_key(Crossings, CrossGroups),
    maplist(unit_crossings(CrossGroups), Us, CrossLists),
    CrossT =.. [x|CrossLists].

%   The fields of a board, by name (see "The value search" above).
board_vars(board(VarT, _, _, _, _, _, _), VarT).
board_cell_units(board(_, CellUnitT, _, _, _, _, _), CellUnitT).
board_unit_cells(board(_, _, UnitCellT, _, _, _, _), UnitCellT).
board_coords(board(_, _, _, CoordT, _, _, _), CoordT).
board_links(board(_, _, _, _, LinkT, _, _), LinkT).
board_crossings(board(_, _, _, _, _, CrossT, _), CrossT).
board_n(board(_, _, _, _, _, _, N), N).

%   For a cell, (Line-Box)-(LinePosition-BoxPosition) for its row and
%   its column.
crossing_pairs([R-PR, C-PC, B-PB], [(R-B)-(PR-PB), (C-B)-(PC-PB)|Ps],
               Ps).

%   A line and a box that share cells, seen from both sides.
crossing((L-B)-Positions, [L-x(B, InL, InB), B-x(L, InB, InL)]) :-
    foldl(position_masks, Positions, 0-0, InL-InB).

position_masks(PL-PB, L0-B0, L-B) :-
    L is L0 \/ (1 << PL),
    B is B0 \/ (1 << PB).

unit_crossings(Groups, U, Xs) :-
    (   memberchk(U-Xs0, Groups)
    ->  Xs = Xs0
    ;   Xs = []
    ).

coords(K, Pos, c(Row, Col, Box)) :-
    N is K*K,
    Row is (Pos-1) // N,
    Col is (Pos-1) mod N,
    Box is (Row // K) * K + Col // K.

unit_members(N, I, c(Row, Col, Box), [R-I, C-I, B-I|Ms], Ms) :-
    R is Row + 1,
    C is N + Col + 1,
    B is 2*N + Box + 1.

unit_cells(Groups, U, Cells) :-
    (   memberchk(U-Is, Groups)
    ->  Cells =.. [c|Is]
    ;   Cells = none
    ).

%   Cell-(Unit-Position) for the cells of one unit.
cell_positions(U-Is, Triples0, Triples) :-
    cell_positions(Is, U, 0, Triples0, Triples).

cell_positions([], _, _, Triples, Triples).
cell_positions([I|Is], U, P, [I-(U-P)|Triples0], Triples) :-
    P1 is P + 1,
    cell_positions(Is, U, P1, Triples0, Triples).

link_table(Positions, Links, Size, LinkT) :-
    length(Ls, Size),
    maplist(=([]), Ls),
    LinkT =.. [l|Ls],
    (   Links == []
    ->  true
    ;   numlist(1, Size, Is),
        pairs_keys_values(PosIs, Positions, Is),
        list_to_assoc(PosIs, Index),
        forall(member(A-B, Links), link_cells(Index, LinkT, A, B))
    ).

link_cells(Index, LinkT, A, B) :-
    (   get_assoc(A, Index, I),
        get_assoc(B, Index, J)
    ->  arg(I, LinkT, LI),
        nb_setarg(I, LinkT, [J|LI]),
        arg(J, LinkT, LJ),
        nb_setarg(J, LinkT, [I|LJ])
    ;   true
    ).

%   A variable's domain as a bit mask.
dom_mask(X, M) :-
    (   integer(X)
    ->  M is 1 << X
    ;   fd_dom(X, Dom),
        drep_mask(Dom, M)
    ).

drep_mask(I, M) :-
    integer(I),
    !,
    M is 1 << I.
drep_mask(A..B, M) :-
    !,
    M is ((1 << (B+1)) - 1) xor ((1 << A) - 1).
drep_mask(D1 \/ D2, M) :-
    drep_mask(D1, M1),
    drep_mask(D2, M2),
    M is M1 \/ M2.

mask_bits(0, []) :- !.
mask_bits(M, [V|Vs]) :-
    V is lsb(M),
    M1 is M xor (1 << V),
    mask_bits(M1, Vs).

%   board_search(+Board, +Parent) is nondet: every labelling of the
%   board's cells that the model allows, each once.  Parent is the
%   domains (masks) the parent node handed to the constraint store, or
%   root(Values) at the root (Values: the mask of the values each unit
%   holds): only what changed since then needs looking at again.
board_search(Board, Parent) :-
    board_vars(Board, VarT),
    VarT =.. [_|Vars],
    maplist(dom_mask, Vars, Masks),
    (   maplist(single, Masks)
    ->  true
    ;   node_state(Board, Masks, Doms, Places),
        start(Parent, Masks, Board, Doms, Places, Units, Values),
        tighten(Board, Doms, Places, Units, Values),
        probe_failed_literals(Board, Doms, Places, Result),
        post_domains(Vars, Masks, Doms),
        Doms =.. [_|Final],
        (   Result = best([I-V|_]),
            arg(I, VarT, X),
            fd_var(X),
            fd_dom(X, Dom),
            V in Dom
        ->  branch(X, V, Board, Final)
        ;   include(fd_var, Vars, Open),
            Open \== []
        ->  smallest(Open, X),
            fd_inf(X, V),
            branch(X, V, Board, Final)
        ;   board_search(Board, Final)
        )
    ).

%   Bring the node to a fixpoint of the singles and say which units and
%   values Hall's theorem must look at.  At the root that is everything,
%   after the singles and a search for values with one place in a unit
%   (or none: then the node fails); below, the cells that changed since
%   the parent are the events.
start(root(ValueMask), Masks, Board, Doms, Places, Units, Values) :-
    !,
    length(Masks, Size),
    numlist(1, Size, Is),
    maplist(no_loss, Is, Events),
    settle(Board, Doms, Places, Events, 0, _, _),
    board_n(Board, N),
    NU is 3*N,
    mask_bits(ValueMask, Vs),
    hidden_singles(1, NU, Vs, Board, Doms, Places),
    Units is ((1 << NU) - 1) << 1,
    Values = ValueMask.
start(Parent, Masks, Board, Doms, Places, Units, Values) :-
    lost_since(Parent, Masks, 1, Events0),
    foldl(lost_values(Board, Doms, Places), Events0, Events0, Events),
    settle(Board, Doms, Places, Events, 0, _, Log),
    touched(Log, Board, 0, Units, 0, Values).

no_loss(I, I-0).

lost_since([], [], _, []).
lost_since([P|Ps], [M|Ms], I, Events) :-
    (   P =:= M
    ->  Events = Events1
    ;   Gone is P /\ \M,
        Events = [I-Gone|Events1]
    ),
    I1 is I + 1,
    lost_since(Ps, Ms, I1, Events1).

hidden_singles(U, NU, Vs, Board, Doms, Places) :-
    (   U > NU
    ->  true
    ;   board_unit_cells(Board, UnitCellT),
        arg(U, UnitCellT, Cells),
        (   Cells == none
        ->  true
        ;   maplist(hidden_single(U, Cells, Board, Doms, Places), Vs)
        ),
        U1 is U + 1,
        hidden_singles(U1, NU, Vs, Board, Doms, Places)
    ).

hidden_single(U, Cells, Board, Doms, Places, V) :-
    board_n(Board, N),
    A is (U-1)*N + V,
    arg(A, Places, Pl),
    Pl =\= 0,
    (   Pl /\ (Pl-1) =:= 0
    ->  P1 is lsb(Pl) + 1,
        arg(P1, Cells, J),
        Bit is 1 << V,
        arg(J, Doms, DJ),
        (   DJ =:= Bit
        ->  true
        ;   narrow_settle(Board, Doms, Places, J, Bit, [], _)
        )
    ;   true
    ).

single(M) :-
    M /\ (M-1) =:= 0.

unit_bits([], U, U).
unit_bits([W-_|Ws], U0, U) :-
    U1 is U0 \/ (1 << W),
    unit_bits(Ws, U1, U).

%   Either X = V or not, each followed by the rest of the search.
branch(X, V, Board, Final) :-
    (   X #= V
    ;   X #\= V
    ),
    board_search(Board, Final).

%   Hand what the node learnt to the constraint store.
post_domains(Vars, Masks, Doms) :-
    foldl(post_domain(Doms), Vars, Masks, 1, _).

post_domain(Doms, X, M0, I, I1) :-
    I1 is I + 1,
    arg(I, Doms, M),
    (   M =:= M0
    ->  true
    ;   mask_bits(M, Vs),
        list_to_fdset(Vs, Set),
        X in_set Set
    ).

smallest([X|Xs], Min) :-
    fd_size(X, S),
    foldl(smaller, Xs, X-S, Min-_).

smaller(X, Y-SY, Min) :-
    fd_size(X, SX),
    (   SX < SY
    ->  Min = X-SX
    ;   Min = Y-SY
    ).

%   The node's Doms and Places, for the cells' domains Masks (bit masks).
node_state(Board, Masks, Doms, Places) :-
    board_cell_units(Board, CellUnitT),
    board_n(Board, N),
    Doms =.. [d|Masks],
    NP is 3*N*N,
    length(Zeros, NP),
    maplist(=(0), Zeros),
    Places =.. [p|Zeros],
    foldl(add_places(CellUnitT, N, Places), Masks, 1, _).

add_places(CellUnitT, N, Places, M, I, I1) :-
    I1 is I + 1,
    arg(I, CellUnitT, Units),
    add_values(M, Units, N, Places).

add_values(0, _, _, _) :- !.
add_values(M, Units, N, Places) :-
    V is lsb(M),
    add_positions(Units, V, N, Places),
    M1 is M xor (1 << V),
    add_values(M1, Units, N, Places).

add_positions([], _, _, _).
add_positions([U-P|Us], V, N, Places) :-
    A is (U-1)*N + V,
    arg(A, Places, Old),
    New is Old \/ (1 << P),
    nb_setarg(A, Places, New),
    add_positions(Us, V, N, Places).

%   Narrow cell I to the candidates Keep, recording the event I-Gone.
%   A value it loses that has one place left in one of its units goes
%   there at once (a hidden single); one with no place left fails.
narrow(Board, Doms, Places, I, Keep, Events0, Events) :-
    board_cell_units(Board, CellUnitT),
    arg(I, Doms, Old),
    Gone is Old /\ \Keep,
    setarg(I, Doms, Keep),
    arg(I, CellUnitT, Units),
    clear_values(Gone, Units, Board, Doms, Places, [I-Gone|Events0],
                 Events).

clear_values(0, _, _, _, _, Events, Events) :- !.
clear_values(Gone, Units, Board, Doms, Places, Events0, Events) :-
    V is lsb(Gone),
    clear_positions(Units, V, Board, Doms, Places, Events0, Events1),
    Gone1 is Gone xor (1 << V),
    clear_values(Gone1, Units, Board, Doms, Places, Events1, Events).

clear_positions([], _, _, _, _, Events, Events).
clear_positions([U-P|Us], V, Board, Doms, Places, Events0, Events) :-
    board_n(Board, N),
    A is (U-1)*N + V,
    arg(A, Places, Old),
    Left is Old /\ \ (1 << P),
    setarg(A, Places, Left),
    Left =\= 0,
    only_place(Left, U, V, Board, Doms, Places, Events0, Events1),
    clear_positions(Us, V, Board, Doms, Places, Events1, Events).

%   settle(+Board, +Doms, +Places, +Events, +R0, -R, -Log): work through
%   the events to a fixpoint of the singles, failing on a contradiction.
%   A decided cell's value leaves the rest of its units, and a linked
%   cell keeps only the values next to one of its partner's (narrow/7
%   has done the hidden singles).  R counts the candidates removed; Log
%   is the events handled, for the costlier rules to look at.
settle(_, _, _, [], R, R, []).
settle(Board, Doms, Places, [I-Gone|Events], R0, R, [I-Gone|Log]) :-
    board_cell_units(Board, CellUnitT),
    board_links(Board, Links),
    R1 is R0 + popcount(Gone),
    arg(I, Doms, M),
    (   M /\ (M-1) =:= 0
    ->  V is lsb(M),
        arg(I, CellUnitT, Units),
        leave_units(Units, V, M, Board, Doms, Places, Events, Events1)
    ;   Events1 = Events
    ),
    arg(I, Links, Partners),
    link_partners(Partners, M, Board, Doms, Places, Events1, Events2),
    settle(Board, Doms, Places, Events2, R1, R, Log).

leave_units([], _, _, _, _, _, Events, Events).
leave_units([U-P|Us], V, M, Board, Doms, Places, Events0, Events) :-
    board_unit_cells(Board, UnitCellT),
    board_n(Board, N),
    A is (U-1)*N + V,
    arg(A, Places, Pl),
    Hit is Pl /\ \ (1 << P),
    arg(U, UnitCellT, Cells),
    leave(Hit, Cells, M, Board, Doms, Places, Events0, Events1),
    leave_units(Us, V, M, Board, Doms, Places, Events1, Events).

leave(0, _, _, _, _, _, Events, Events) :- !.
leave(Hit, Cells, M, Board, Doms, Places, Events0, Events) :-
    P is lsb(Hit),
    Hit1 is Hit xor (1 << P),
    P1 is P + 1,
    arg(P1, Cells, J),
    arg(J, Doms, DJ),
    Left is DJ /\ \M,
    Left =\= 0,
    narrow(Board, Doms, Places, J, Left, Events0, Events1),
    leave(Hit1, Cells, M, Board, Doms, Places, Events1, Events).

link_partners([], _, _, _, _, Events, Events).
link_partners([J|Js], M, Board, Doms, Places, Events0, Events) :-
    Allowed is (M << 1) \/ (M >> 1),
    arg(J, Doms, DJ),
    Keep is DJ /\ Allowed,
    (   Keep =:= DJ
    ->  Events1 = Events0
    ;   Keep =\= 0,
        narrow(Board, Doms, Places, J, Keep, Events0, Events1)
    ),
    link_partners(Js, M, Board, Doms, Places, Events1, Events).

%   The values Gone that cell I lost since the parent node: one with one
%   place left in a unit of the cell goes there, one with none fails.
lost_values(Board, Doms, Places, I-Gone, Events0, Events) :-
    board_cell_units(Board, CellUnitT),
    arg(I, CellUnitT, Units),
    lost_values(Gone, Units, Board, Doms, Places, Events0, Events).

lost_values(0, _, _, _, _, Events, Events) :- !.
lost_values(Gone, Units, Board, Doms, Places, Events0, Events) :-
    V is lsb(Gone),
    Gone1 is Gone xor (1 << V),
    last_places(Units, V, Board, Doms, Places, Events0, Events1),
    lost_values(Gone1, Units, Board, Doms, Places, Events1, Events).

last_places([], _, _, _, _, Events, Events).
last_places([U-_|Us], V, Board, Doms, Places, Events0, Events) :-
    board_n(Board, N),
    A is (U-1)*N + V,
    arg(A, Places, Left),
    Left =\= 0,
    only_place(Left, U, V, Board, Doms, Places, Events0, Events1),
    last_places(Us, V, Board, Doms, Places, Events1, Events).

%   only_place(+Left, +U, +V, +Board, +Doms, +Places, +Events0, -Events):
%   Left is the mask of unit U's places still open to value V; when one
%   place is left, V goes there (a hidden single).

only_place(Left, U, V, Board, Doms, Places, Events0, Events) :-
    (   Left /\ (Left-1) =:= 0
    ->  board_unit_cells(Board, UnitCellT),
        P1 is lsb(Left) + 1,
        arg(U, UnitCellT, Cells),
        arg(P1, Cells, J),
        arg(J, Doms, DJ),
        Bit is 1 << V,
        (   DJ =:= Bit
        ->  Events = Events0
        ;   narrow(Board, Doms, Places, J, Bit, Events0, Events)
        )
    ;   Events = Events0
    ).

%   Narrow cell I to Keep and settle, adding the events handled to the
%   log; fails on a contradiction.
narrow_settle(Board, Doms, Places, I, Keep, Log0, Log) :-
    Keep =\= 0,
    narrow(Board, Doms, Places, I, Keep, [], Events),
    settle(Board, Doms, Places, Events, 0, _, Log1),
    append(Log1, Log0, Log).

/*  Hall's theorem.  A group of m cells that must take m distinct values,
    every value once (a unit's open cells, or for one value the rows
    where it is still open, each needing a distinct column), is a
    bipartite graph with an edge for each candidate.  A candidate can stay
    exactly when some perfect matching uses its edge: given one perfect
    matching, that is when the edge is matched or lies on an alternating
    cycle, i.e. when the cell and the cell matched to the candidate lie
    in the same strongly connected component of the graph with an arc
    from each cell to the cells matched to its other candidates.  This
    finds every naked and hidden subset at once, and per value the fish.
*/

%   hall(+Masks, -Pruned): Pruned keeps the candidates of Masks that some
%   perfect matching uses; fails if there is no perfect matching.
hall(Masks, Pruned) :-
    length(Masks, M),
    MaskT =.. [m|Masks],
    length(Ms, M),
    maplist(=(-1), Ms),
    Match =.. [m|Ms],
    max_member(Top0, Masks),
    Top is msb(Top0) + 1,
    length(Os, Top),
    maplist(=(0), Os),
    Owner =.. [o|Os],
    numlist(1, M, Is),
    Taken = t(0),
    maplist(match_cell(MaskT, Match, Owner, Taken), Is),
    foldl(arcs(MaskT, Match, Owner), Is, Arcs, []),
    components(Arcs, M, Components),
    (   Components = [_]
    ->  Pruned = Masks
    ;   length(Keeps, M),
        Keep =.. [k|Keeps],
        maplist(component_keep(Match, Keep), Components),
        maplist(keep_mask, Masks, Keeps, Pruned)
    ).

keep_mask(Mask, Keep, Pruned) :-
    Pruned is Mask /\ Keep.

%   Match cell X, moving others along an augmenting path if need be.
%   Taken holds the values matched so far (a mask).
match_cell(MaskT, Match, Owner, Taken, X) :-
    Seen = s(0),
    augment(X, MaskT, Match, Owner, Taken, Seen).

augment(X, MaskT, Match, Owner, Taken, Seen) :-
    arg(X, MaskT, D),
    arg(1, Seen, S),
    arg(1, Taken, T),
    Free is D /\ \T,
    (   Free =\= 0
    ->  V is lsb(Free),
        T1 is T \/ (1 << V),
        nb_setarg(1, Taken, T1),
        V1 is V + 1,
        nb_setarg(X, Match, V),
        nb_setarg(V1, Owner, X)
    ;   Cand is D /\ \S,
        augment_values(Cand, X, MaskT, Match, Owner, Taken, Seen)
    ).

%   Try the taken candidates Cand: move their owners elsewhere.
augment_values(Cand, X, MaskT, Match, Owner, Taken, Seen) :-
    Cand =\= 0,
    V is lsb(Cand),
    arg(1, Seen, S0),
    S is S0 \/ (1 << V),
    nb_setarg(1, Seen, S),
    V1 is V + 1,
    arg(V1, Owner, Y),
    (   augment(Y, MaskT, Match, Owner, Taken, Seen)
    ->  nb_setarg(X, Match, V),
        nb_setarg(V1, Owner, X)
    ;   arg(1, Seen, S1),
        Cand1 is Cand /\ \S1,
        augment_values(Cand1, X, MaskT, Match, Owner, Taken, Seen)
    ).

%   Arc X-Ys: cell X can take values matched to the cells Ys (a mask).
arcs(MaskT, Match, Owner, X, [X-Ys|As], As) :-
    arg(X, MaskT, D),
    arg(X, Match, V),
    Others is D /\ \ (1 << V),
    owners(Others, Owner, 0, Ys).

owners(0, _, Ys, Ys) :- !.
owners(Vs, Owner, Ys0, Ys) :-
    V is lsb(Vs),
    V1 is V + 1,
    arg(V1, Owner, Y),
    Ys1 is Ys0 \/ (1 << Y),
    Vs1 is Vs xor (1 << V),
    owners(Vs1, Owner, Ys1, Ys).

%   The strongly connected components (cell masks) of the arcs.
components(Arcs, M, Components) :-
    pairs_values(Arcs, Forward),
    ForwardT =.. [f|Forward],
    length(Bs, M),
    maplist(=(0), Bs),
    BackT =.. [b|Bs],
    maplist(back_arcs(BackT), Arcs),
    All is ((1 << M) - 1) << 1,
    split_components(All, ForwardT, BackT, Components).

back_arcs(BackT, X-Ys) :-
    Bit is 1 << X,
    back_arc(Ys, Bit, BackT).

back_arc(0, _, _) :- !.
back_arc(Ys, Bit, BackT) :-
    Y is lsb(Ys),
    arg(Y, BackT, B0),
    B is B0 \/ Bit,
    nb_setarg(Y, BackT, B),
    Ys1 is Ys xor (1 << Y),
    back_arc(Ys1, Bit, BackT).

split_components(0, _, _, []) :- !.
split_components(Left, ForwardT, BackT, [C|Cs]) :-
    X is lsb(Left),
    Start is 1 << X,
    reachable(Start, Start, ForwardT, Left, F),
    reachable(Start, Start, BackT, Left, B),
    C is F /\ B,
    Left1 is Left /\ \C,
    split_components(Left1, ForwardT, BackT, Cs).

reachable(0, Seen, _, _, Seen) :- !.
reachable(Frontier, Seen, ArcT, Within, Reach) :-
    step(Frontier, ArcT, 0, Next0),
    Next is Next0 /\ Within /\ \Seen,
    Seen1 is Seen \/ Next,
    reachable(Next, Seen1, ArcT, Within, Reach).

step(0, _, Next, Next) :- !.
step(Frontier, ArcT, Next0, Next) :-
    X is lsb(Frontier),
    arg(X, ArcT, Ys),
    Next1 is Next0 \/ Ys,
    Frontier1 is Frontier xor (1 << X),
    step(Frontier1, ArcT, Next1, Next).

%   The cells of a component keep the values matched inside it.
component_keep(Match, Keep, C) :-
    component_values(C, Match, 0, Vs),
    component_set(C, Keep, Vs).

component_values(0, _, Vs, Vs) :- !.
component_values(C, Match, Vs0, Vs) :-
    X is lsb(C),
    arg(X, Match, V),
    Vs1 is Vs0 \/ (1 << V),
    C1 is C xor (1 << X),
    component_values(C1, Match, Vs1, Vs).

component_set(0, _, _) :- !.
component_set(C, Keep, Vs) :-
    X is lsb(C),
    arg(X, Keep, Vs),
    C1 is C xor (1 << X),
    component_set(C1, Keep, Vs).

%   Whether m cells with these candidate counts (or m values with these
%   place counts) can hold a closed subset that singles miss: s cells,
%   2 =< s =< m-2, with at most s candidates each.  Without one on both
%   sides Hall's theorem prunes nothing that singles did not.
may_have_subset(Sizes) :-
    msort(Sizes, Sorted),
    length(Sorted, M),
    Last is M - 2,
    nth1(S, Sorted, Size),
    S >= 2,
    S =< Last,
    Size =< S,
    !.

/*  Node tightening: Hall's theorem on the units, then per value on the
    rows against the columns, then box-line confinement, each followed by
    the singles, until nothing changes; only the units and values touched
    since they were last looked at are looked at again.  Fails if the node
    is dead.
*/

%   tighten(+Board, +Doms, +Places, +Units, +Values): Units and Values are
%   masks of what is to be looked at.
tighten(Board, Doms, Places, Units, Values) :-
    (   Units =\= 0
    ->  U is lsb(Units),
        Units0 is Units xor (1 << U),
        unit_hall(U, Board, Doms, Places, Log),
        touched(Log, Board, Units0, Units1, Values, Values1),
        tighten(Board, Doms, Places, Units1, Values1)
    ;   Values =\= 0
    ->  V is lsb(Values),
        Values0 is Values xor (1 << V),
        fish(V, Board, Doms, Places, Log0),
        (   Log0 == []
        ->  board_n(Board, N),
            NU is 3*N,
            confine(1, NU, V, Board, Doms, Places, [], Log)
        ;   Log = Log0
        ),
        touched(Log, Board, 0, Units1, Values0, Values1),
        tighten(Board, Doms, Places, Units1, Values1)
    ;   true
    ).

touched([], _, Units, Units, Values, Values).
touched([I-Gone|Log], Board, U0, U, V0, V) :-
    board_cell_units(Board, CellUnitT),
    arg(I, CellUnitT, CellUnits),
    unit_bits(CellUnits, U0, U1),
    V1 is V0 \/ Gone,
    touched(Log, Board, U1, U, V1, V).

unit_hall(U, Board, Doms, Places, Log) :-
    board_unit_cells(Board, UnitCellT),
    board_n(Board, N),
    arg(U, UnitCellT, Cells),
    (   Cells \== none
    ->  Cells =.. [_|Is],
        open_cells(Is, Doms, OpenIs, Masks),
        length(Masks, M),
        (   M >= 4,
            maplist(popcount_of, Masks, Sizes),
            may_have_subset(Sizes),
            foldl(or_mask, Masks, 0, Values),
            mask_bits(Values, Vs),
            maplist(place_count(U, N, Places), Vs, Counts),
            may_have_subset(Counts)
        ->  hall(Masks, Pruned),
            (   Pruned == Masks
            ->  Log = []
            ;   foldl(prune_cell(Board, Doms, Places), OpenIs, Pruned,
                      [], Log)
            )
        ;   Log = []
        )
    ;   Log = []
    ).

open_cells([], _, [], []).
open_cells([I|Is], Doms, OpenIs, Masks) :-
    arg(I, Doms, M),
    (   M /\ (M-1) =:= 0
    ->  open_cells(Is, Doms, OpenIs, Masks)
    ;   OpenIs = [I|OpenIs1],
        Masks = [M|Masks1],
        open_cells(Is, Doms, OpenIs1, Masks1)
    ).

popcount_of(M, C) :-
    C is popcount(M).

or_mask(M, A, B) :-
    B is A \/ M.

place_count(U, N, Places, V, C) :-
    A is (U-1)*N + V,
    arg(A, Places, Pl),
    C is popcount(Pl).

%   Cell I keeps only the candidates in New (and settles).
prune_cell(Board, Doms, Places, I, New, Log0, Log) :-
    arg(I, Doms, Now),
    Keep is Now /\ New,
    (   Keep =:= Now
    ->  Log = Log0
    ;   narrow_settle(Board, Doms, Places, I, Keep, Log0, Log)
    ).

%   Value V against the rows where it is open: each needs a distinct
%   column.
fish(V, Board, Doms, Places, Log) :-
    board_unit_cells(Board, UnitCellT),
    board_coords(Board, CoordT),
    board_n(Board, N),
    numlist(1, N, Rows),
    open_rows(Rows, V, N, UnitCellT, CoordT, Places, OpenRows, ColMasks),
    length(ColMasks, M),
    (   M >= 4,
        maplist(popcount_of, ColMasks, Sizes),
        may_have_subset(Sizes),
        foldl(or_mask, ColMasks, 0, Cols),
        mask_bits(Cols, Cs),
        maplist(column_count(V, N, Places), Cs, Counts),
        may_have_subset(Counts)
    ->  hall(ColMasks, Pruned),
        (   Pruned == ColMasks
        ->  Log = []
        ;   foldl(prune_row(V, Board, Doms, Places), OpenRows, ColMasks,
                  Pruned, [], Log)
        )
    ;   Log = []
    ).

open_rows([], _, _, _, _, _, [], []).
open_rows([R|Rs], V, N, UnitCellT, CoordT, Places, Open, Masks) :-
    A is (R-1)*N + V,
    arg(A, Places, Pl),
    (   Pl /\ (Pl-1) =\= 0
    ->  arg(R, UnitCellT, Cells),
        columns(Pl, Cells, CoordT, 0, Mask),
        Open = [R|Open1],
        Masks = [Mask|Masks1]
    ;   Open = Open1,
        Masks = Masks1
    ),
    open_rows(Rs, V, N, UnitCellT, CoordT, Places, Open1, Masks1).

%   The columns (bit C for column C) of the cells at positions Pl.
columns(0, _, _, Mask, Mask) :- !.
columns(Pl, Cells, CoordT, Mask0, Mask) :-
    P is lsb(Pl),
    P1 is P + 1,
    arg(P1, Cells, J),
    arg(J, CoordT, c(_, Col, _)),
    Mask1 is Mask0 \/ (1 << Col),
    Pl1 is Pl xor (1 << P),
    columns(Pl1, Cells, CoordT, Mask1, Mask).

column_count(V, N, Places, C, Count) :-
    A is (N + C)*N + V,
    arg(A, Places, Pl),
    Count is popcount(Pl).

%   Row R loses V in the columns Old but not New.
prune_row(V, Board, Doms, Places, R, Old, New, Log0, Log) :-
    (   Old =:= New
    ->  Log = Log0
    ;   Gone is Old /\ \New,
        board_unit_cells(Board, UnitCellT),
        board_coords(Board, CoordT),
        board_n(Board, N),
        A is (R-1)*N + V,
        arg(A, Places, Pl),
        arg(R, UnitCellT, Cells),
        cells_at(Pl, Cells, Js),
        foldl(drop_in_columns(V, Gone, Board, Doms, Places, CoordT), Js,
              Log0, Log)
    ).

cells_at(0, _, []) :- !.
cells_at(Pl, Cells, [J|Js]) :-
    P is lsb(Pl),
    P1 is P + 1,
    arg(P1, Cells, J),
    Pl1 is Pl xor (1 << P),
    cells_at(Pl1, Cells, Js).

drop_in_columns(V, Gone, Board, Doms, Places, CoordT, J, Log0, Log) :-
    arg(J, CoordT, c(_, Col, _)),
    (   Gone /\ (1 << Col) =:= 0
    ->  Log = Log0
    ;   drop_value(Board, Doms, Places, V, J, Log0, Log)
    ).

%   Take V out of cell J (if still there) and settle.
drop_value(Board, Doms, Places, V, J, Log0, Log) :-
    arg(J, Doms, DJ),
    Keep is DJ /\ \ (1 << V),
    (   Keep =:= DJ
    ->  Log = Log0
    ;   narrow_settle(Board, Doms, Places, J, Keep, Log0, Log)
    ).

%   Box-line confinement: when the places of V in a unit all lie in a
%   crossing unit (a box and a row or column), V has no place in the rest
%   of the crossing unit.
confine(U, NU, V, Board, Doms, Places, Log0, Log) :-
    (   U > NU
    ->  Log = Log0
    ;   board_crossings(Board, CrossT),
        board_n(Board, N),
        A is (U-1)*N + V,
        arg(A, Places, Pl),
        (   Pl /\ (Pl-1) =\= 0
        ->  arg(U, CrossT, Crossings),
            foldl(clear_crossing(Pl, V, Board, Doms, Places), Crossings,
                  Log0, Log1)
        ;   Log1 = Log0
        ),
        U1 is U + 1,
        confine(U1, NU, V, Board, Doms, Places, Log1, Log)
    ).

clear_crossing(Pl, V, Board, Doms, Places, x(W, Here, There), Log0, Log) :-
    (   Pl /\ \Here =:= 0
    ->  board_unit_cells(Board, UnitCellT),
        board_n(Board, N),
        A is (W-1)*N + V,
        arg(A, Places, PlW),
        Others is PlW /\ \There,
        arg(W, UnitCellT, Cells),
        cells_at(Others, Cells, Js),
        foldl(drop_value(Board, Doms, Places, V), Js, Log0, Log)
    ;   Log = Log0
    ).

%   probe_failed_literals(+Board, +Doms, +Places, -Result)
%
%   Failed-literal probing: try both sides of every bivalue cell and
%   bilocal value of the node (probe_candidates/4).  A literal whose
%   probe fails is taken out of the node (Doms and Places, then
%   tightened), and the probes start again, until a whole round finds no
%   failure.  Result is best(Pair), the pair whose two probes removed
%   most candidates (largest product), or `none` if there is no pair.
%   Fails if the node is dead.
probe_failed_literals(Board, Doms, Places, Result) :-
    probe_candidates(Board, Doms, Places, Pairs),
    empty_assoc(Reached),
    probe_pairs(Pairs, Board, Doms, Places, Reached, none-0, R0),
    (   R0 = failed(I-V)
    ->  drop_value(Board, Doms, Places, V, I, [], Log),
        touched(Log, Board, 0, Units, 0, Values),
        tighten(Board, Doms, Places, Units, Values),
        probe_failed_literals(Board, Doms, Places, Result)
    ;   Result = R0
    ).

probe_pairs([], _, _, _, _, Best-_, Result) :-
    (   Best == none
    ->  Result = none
    ;   Result = best(Best)
    ).
probe_pairs([[A,B]|Pairs], Board, Doms, Places, R0, Best0, Result) :-
    literal_reach(A, Board, Doms, Places, R0, R1, RA),
    (   RA =:= 0
    ->  Result = failed(A)
    ;   literal_reach(B, Board, Doms, Places, R1, R2, RB),
        (   RB =:= 0
        ->  Result = failed(B)
        ;   Score is RA * RB,
            Best0 = _-BestScore,
            (   Score > BestScore
            ->  Best1 = [A,B]-Score
            ;   Best1 = Best0
            ),
            probe_pairs(Pairs, Board, Doms, Places, R2, Best1, Result)
        )
    ).

%   How far literal I-V reaches (0: its probe fails), remembered for
%   the rest of the round.
literal_reach(I-V, Board, Doms, Places, R0, R, Reach) :-
    Key is I*128 + V,
    (   get_assoc(Key, R0, Reach)
    ->  R = R0
    ;   probe_literal(Board, Doms, Places, I, V, Reach),
        put_assoc(Key, R0, Reach, R)
    ).

%   Put V into cell I and apply the singles: 0 on a contradiction, else 1
%   + the number of candidates removed.  Doms and Places are restored.
probe_literal(Board, Doms, Places, I, V, Reach) :-
    (   findall(R, assume_literal(Board, Doms, Places, I, V, R), [R1])
    ->  Reach = R1
    ;   Reach = 0
    ).

assume_literal(Board, Doms, Places, I, V, Reach) :-
    Bit is 1 << V,
    narrow(Board, Doms, Places, I, Bit, [], Events),
    settle(Board, Doms, Places, Events, 1, Reach, _).

%   The pairs to probe at a node: [I-V1, I-V2] for a bivalue cell I (two
%   candidates V1 and V2 left), [I1-V, I2-V] for a value V bilocal in a
%   unit (two places I1 and I2 left).  One side of each pair holds.
probe_candidates(Board, Doms, Places, Pairs) :-
    functor(Doms, _, Size),
    bivalue_cells(Size, Doms, Pairs, Pairs1),
    board_unit_cells(Board, UnitCellT),
    board_n(Board, N),
    NU is 3*N,
    bilocal_units(NU, UnitCellT, N, Places, Pairs1).

bivalue_cells(0, _, Pairs, Pairs) :- !.
bivalue_cells(I, Doms, Pairs0, Pairs) :-
    arg(I, Doms, M),
    (   popcount(M) =:= 2
    ->  V1 is lsb(M),
        V2 is msb(M),
        Pairs0 = [[I-V1, I-V2]|Pairs1]
    ;   Pairs1 = Pairs0
    ),
    I1 is I - 1,
    bivalue_cells(I1, Doms, Pairs1, Pairs).

bilocal_units(0, _, _, _, []) :- !.
bilocal_units(U, UnitCellT, N, Places, Pairs0) :-
    arg(U, UnitCellT, Cells),
    (   Cells == none
    ->  Pairs1 = Pairs0
    ;   Base is (U-1)*N,
        bilocal_values(N, Base, Cells, Places, Pairs0, Pairs1)
    ),
    U1 is U - 1,
    bilocal_units(U1, UnitCellT, N, Places, Pairs1).

bilocal_values(0, _, _, _, Pairs, Pairs) :- !.
bilocal_values(V, Base, Cells, Places, Pairs0, Pairs) :-
    A is Base + V,
    arg(A, Places, Pl),
    (   popcount(Pl) =:= 2
    ->  P1 is lsb(Pl) + 1,
        P2 is msb(Pl) + 1,
        arg(P1, Cells, I1),
        arg(P2, Cells, I2),
        Pairs0 = [[I1-V, I2-V]|Pairs1]
    ;   Pairs1 = Pairs0
    ),
    V1 is V - 1,
    bilocal_values(V1, Base, Cells, Places, Pairs1, Pairs).
