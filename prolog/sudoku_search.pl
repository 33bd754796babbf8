/*  The fast search behind sudoku/3's search(board) option.

    search_board/4 solves a puzzle on bit masks of its own instead of
    labelling the plain model of sudoku.pl: first-fail labelling explores
    tens of thousands of nodes on the hard puzzles, and SWI-Prolog's
    all_distinct makes each node slow.  Every answer is still a labelling
    that a CLP(FD) model of the same rules accepts (the tests check it).

    A board's state is a cell's candidates and a unit's places per value
    (see "The value search" below), changed with setarg/3: backtracking
    undoes each change, so a child node starts from its parent's state
    and nothing is rebuilt per node.

    Under `oddsum` the search runs in two stages:

    1.  Parities.  The value rules run on the whole grid, an s or w info
        meaning that the two values have different parities; Hall's
        theorem on the values sees that every unit holds exactly
        ceil(N/2) odd ones, so no parity grid that no values can fill
        gets through.  The parity counts (see "Parity counts" below)
        see earlier what the links imply for those odd counts.  While
        some cell's parity is open, a node probes like the value search
        and branches on the pair the probes favour (a cell takes a value
        or not), or else on a cell's parity.  On the course's puzzles
        the rules usually fix every parity without a branch; on sparse
        ones, branching where the probes point keeps the tree several
        times smaller than branching on parities alone.
    2.  Values, for one parity grid.  Odd cells take odd values and even
        cells even ones, so each unit splits into an odd and an even
        part, each holding the values of its parity once.  Nothing else
        links the two halves: they are solved apart, from the candidates
        the first stage left, and their solutions combined, so a failure
        in one half never makes the search revisit the other.

    Every solution has exactly one parity grid, so the stages together
    still produce each solution once.  Under `consecutive` an s/w pair
    ties values, not only parities, and parity grids are many, so the
    values are searched directly, the s/w pairs as |A-B| = 1.

    The value search applies the naked and hidden singles, Hall's
    theorem on each unit and box-line confinement, then probes failed
    literals: it tries both sides of every bivalue cell (two candidates
    left) and bilocal value (two places left in a unit) with the singles
    alone.  A side that fails is excluded, and the node branches on the
    pair whose two sides remove most candidates: the cell takes the
    value, or it does not.
*/

:- module(sudoku_search, [search_board/4]).

:- use_module(library(apply)).
:- use_module(library(assoc)).
:- use_module(library(lists)).
:- use_module(library(pairs)).
:- use_module(sudoku_grid).

%   Compile arithmetic inline: the search is mostly bit operations.  The
%   flag holds only while this file is being loaded.
:- set_prolog_flag(optimise, true).

%   clear_place(+U, +Base, +P, +V, +Board, +Doms, +Places, +Events0,
%   -Events): value V loses position P of unit U (its places at Base+V).
%   Only a value left with at most one place in the unit needs more
%   work: none fails, one is a hidden single (V goes there at once).
%   This is the innermost step of the singles, run tens of millions of
%   times on the hard puzzles, so it is compiled inline where it is
%   called (a call costs about as much as the body).
goal_expansion(clear_place(U, Base, P, V, Board, Doms, Places, Events0,
                           Events),
               (   A is Base + V,
                   arg(A, Places, Old),
                   Left is Old /\ \ (1 << P),
                   setarg(A, Places, Left),
                   (   Left /\ (Left-1) =:= 0
                   ->  Left =\= 0,
                       Board = board(_, _, UnitCellT, _, _, _, _, _),
                       P1 is lsb(Left) + 1,
                       arg(U, UnitCellT, Cells),
                       arg(P1, Cells, J),
                       arg(J, Doms, DJ),
                       Bit is 1 << V,
                       (   DJ =:= Bit
                       ->  Events = Events0
                       ;   narrow(Board, Doms, Places, J, Bit, Events0,
                                  Events)
                       )
                   ;   Events = Events0
                   )
               )).

%   leave_unit(+U, +Base, +P, +V, +M, +Board, +Doms, +Places, +Events0,
%   -Events): value V (mask M) of the cell at position P of unit U
%   leaves the unit's other cells that still have it.  Its places in U
%   come down to P at once; each such cell then only loses the place of
%   V in its other two units (leave/10).  Also inline: three per decided
%   cell.
goal_expansion(leave_unit(U, Base, P, V, M, Board, Doms, Places, Events0,
                          Events),
               (   A is Base + V,
                   arg(A, Places, Pl),
                   Hit is Pl /\ \ (1 << P),
                   (   Hit =:= 0
                   ->  Events = Events0
                   ;   Kept is Pl /\ \Hit,
                       setarg(A, Places, Kept),
                       Board = board(_, _, UnitCellT, _, _, _, _, _),
                       arg(U, UnitCellT, Cells),
                       leave(Hit, Cells, U, V, M, Board, Doms, Places,
                             Events0, Events)
                   )
               )).

%!  search_board(+Rules, +K, +Board, -Rows) is nondet.
%
%   Rows is a solution of the puzzle s(K, Board) under Rules
%   (`consecutive` or `oddsum`); every solution comes once on
%   backtracking.

search_board(Rules, K, Board, Rows) :-
    N is K*K,
    matrix(N, Rows),
    append(Rows, Vs),
    Size is N*N,
    numlist(1, Size, Is),
    numlist(1, N, Values),
    foldl(value_bit, Values, 0, All),
    parity_masks(N, Odd, Even),
    append(Board, Fields),
    maplist(field_mask(N, All, Odd, Even), Fields, Masks),
    matrix_of(K, Is, Index),
    cells(Board, Index, Cells),
    foldl(cell_links, Cells, Links, []),
    relation(Rules, Odd, Even, Relation),
    make_board(K, Vs, Is, Links, Relation, Whole),
    start_board(Whole, Masks, All, Doms, Places, Units, Touched),
    (   Rules == consecutive
    ->  board_search(Whole, Doms, Places, Units, Touched)
    ;   parity_root(Whole, Doms, Places, Units, Touched, K, Odd)
    ).

%   What an s/w link asks of the two values: `next`, they differ by one
%   (`consecutive`), or parity(Odd, Even), their parities differ
%   (`oddsum`; the masks of the odd and the even values).
relation(consecutive, _, _, next).
relation(oddsum, Odd, Even, parity(Odd, Even)).

%   The masks of the odd and of the even values among 1..N.
parity_masks(N, Odd, Even) :-
    parity_values(N, 1, Os),
    parity_values(N, 0, Es),
    foldl(value_bit, Os, 0, Odd),
    foldl(value_bit, Es, 0, Even).

%   The values 1..N of parity P (1 = odd).
parity_values(N, P, Xs) :-
    findall(X, (between(1, N, X), X mod 2 =:= P), Xs).

%   A field's candidates by its value and parity infos; fails if none.
field_mask(N, All, Odd, Even, Infos, Mask) :-
    foldl(info_mask(N, Odd, Even), Infos, All, Mask),
    Mask =\= 0.

info_mask(N, _, _, v(M), M0, M1) :-
    (   integer(M),
        between(1, N, M)
    ->  M1 is M0 /\ (1 << M)
    ;   M1 = 0
    ).
info_mask(_, Odd, _, o, M0, M1) :- M1 is M0 /\ Odd.
info_mask(_, _, Even, e, M0, M1) :- M1 is M0 /\ Even.
info_mask(_, _, _, s, M, M).
info_mask(_, _, _, w, M, M).

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

%   The root of the first stage under `oddsum`.  On most puzzles the
%   rules fix every parity at the root: the halves follow at once, and
%   the model of the parity counts is built only for a puzzle that needs
%   it.
parity_root(Whole, Doms, Places, Units, Values, K, Odd) :-
    tighten(Whole, Doms, Places, Units, Values),
    (   parity_open(Doms, Odd)
    ->  parity_model(Whole, Odd, Count),
        parity_search(Whole, Doms, Places, 0, 0, K, Odd-Count)
    ;   label_halves(Whole, Doms, K, Odd)
    ).

%   parity_search(+Whole, +Doms, +Places, +Units, +Values, +K,
%                 +Odd-Count)
%
%   The first stage under `oddsum`: the value rules on the whole grid
%   (Hall's theorem sees the odd count of every unit, and the links
%   their parities), the parity counts (parity_tighten/7; Count is the
%   puzzle's parity_model/3) and the probes, branching (parity_branch/6)
%   while some cell's parity is open; then the halves.  Each branch
%   splits the node's solutions in two, so every parity grid, and every
%   solution, comes once.
parity_search(Whole, Doms, Places, Units, Values, K, Odd-Count) :-
    parity_tighten(Whole, Doms, Places, Units, Values, Odd, Count),
    (   parity_open(Doms, Odd)
    ->  probe_failed_literals(Whole, Doms, Places, Result),
        (   parity_open(Doms, Odd)
        ->  parity_branch(Result, Doms, Odd, I, A, B),
            (   Keep = A
            ;   Keep = B
            ),
            narrow_settle(Whole, Doms, Places, I, Keep, [], Log),
            touched(Log, Whole, 0, Units1, 0, Values1),
            parity_search(Whole, Doms, Places, Units1, Values1, K,
                          Odd-Count)
        ;   label_halves(Whole, Doms, K, Odd)
        )
    ;   label_halves(Whole, Doms, K, Odd)
    ).

%   Some cell still has both odd and even candidates.
parity_open(Doms, Odd) :-
    functor(Doms, _, Size),
    some_mixed(Size, Doms, Odd).

some_mixed(I, Doms, Odd) :-
    I > 0,
    arg(I, Doms, D),
    (   D /\ Odd =\= 0,
        D /\ \Odd =\= 0
    ->  true
    ;   I1 is I - 1,
        some_mixed(I1, Doms, Odd)
    ).

%   parity_branch(+Result, +Doms, +Odd, -I, -A, -B)
%
%   Where a parity-stage node branches, cell I kept to A or to B: the
%   probes' favourite pair if its cell is still open (V in cell I, or
%   not), else the parity of the mixed cell with fewest candidates.
parity_branch(Result, Doms, Odd, I, A, B) :-
    (   Result = best([I-V|_]),
        arg(I, Doms, D),
        D /\ (D-1) =\= 0,
        D /\ (1 << V) =\= 0
    ->  A is 1 << V,
        B is D /\ \A
    ;   functor(Doms, _, Size),
        fewest(mixed(Odd), Size, Doms, 0, 0, I),
        arg(I, Doms, D),
        A is D /\ Odd,
        B is D /\ \Odd
    ).

/*  Parity counts.

    Every unit holds exactly ceil(N/2) odd values, so ceil(N/2) odd
    cells.  The value rules see that count only through Hall's theorem,
    unit by unit and value by value, and never see the links behind it:
    two linked cells of one row always give that row exactly one odd
    cell, whichever is odd, so the row's other cells must make up the
    rest of the count.

    The links split the cells into components (a cell without links is
    a component of its own), and within a component the parities are
    tied: colour the component in two, a linked cell taking the other
    colour, and one unknown flag F per component decides them all, a
    cell being odd iff F xor its colour is 1.  A unit's odd count is
    then a sum over the components it meets, each giving A odd cells if
    its F is 0 (its colour-1 cells in the unit) and B if F is 1 (its
    colour-0 ones).  A component whose F some cell's candidates already
    fix gives its count; an open one gives between min(A,B) and
    max(A,B).  A unit whose bounds miss the count is dead, and an open
    component that would push its unit past one of the bounds must take
    its other option.  (The colours come from the links of a spanning
    tree of each component, each of which holds in every solution, so
    they are sound even where other links close an odd cycle.)
*/

%   parity_model(+Whole, +Odd, -Count)
%
%   What the parity counts need of a puzzle, fixed for all its nodes:
%   Count = count(CompT, MemberT, Units), CompT giving per cell its
%   Component-Colour, MemberT per component its cells as Cell-Colour,
%   and Units, per unit, unit(Target, Terms): Terms the t(C, A, B) of
%   the components C with A and B different, Target the unit's odd
%   count less what the components with A = B always give.  Fails if a
%   unit's count can never be met.
parity_model(Whole, Odd, count(CompT, MemberT, Units)) :-
    Whole = board(_, _, UnitCellT, _, _-LinkT, _, N, _),
    functor(LinkT, _, Size),
    functor(CompT, c, Size),
    numlist(1, Size, Is),
    foldl(colour_component(LinkT, CompT), Is, 0, _),
    findall(C-(I-Colour), (member(I, Is), arg(I, CompT, C-Colour)),
            Pairs),
    msort(Pairs, Sorted),
    group_pairs_by_key(Sorted, Groups),
    pairs_values(Groups, Members),
    MemberT =.. [m|Members],
    OddCount is popcount(Odd),
    NU is 3*N,
    numlist(1, NU, Us),
    foldl(unit_terms(UnitCellT, CompT, OddCount), Us, Units, []).

%   Cell I not reached yet starts component C0+1, colour 0 at I.
colour_component(LinkT, CompT, I, C0, C) :-
    arg(I, CompT, Here),
    (   nonvar(Here)
    ->  C = C0
    ;   C is C0 + 1,
        Here = C-0,
        colour_links([I], LinkT, CompT)
    ).

%   Give the partners of the cells to visit their component and the
%   other colour, and visit those not reached before.
colour_links([], _, _).
colour_links([I|Is], LinkT, CompT) :-
    arg(I, CompT, C-Colour),
    Other is 1 - Colour,
    arg(I, LinkT, Partners),
    foldl(colour_partner(C-Other, CompT), Partners, Is, Is1),
    colour_links(Is1, LinkT, CompT).

colour_partner(Here, CompT, J, Is0, Is) :-
    arg(J, CompT, There),
    (   var(There)
    ->  There = Here,
        Is = [J|Is0]
    ;   Is = Is0
    ).

unit_terms(UnitCellT, CompT, OddCount, U, [unit(Target, Terms)|Us], Us) :-
    arg(U, UnitCellT, Cells),
    Cells =.. [_|Is],
    maplist(cell_component(CompT), Is, Pairs),
    msort(Pairs, Sorted),
    group_pairs_by_key(Sorted, Groups),
    foldl(component_term, Groups, OddCount-Terms, Target-[]),
    (   Terms == []
    ->  Target =:= 0
    ;   true
    ).

cell_component(CompT, I, Pair) :-
    arg(I, CompT, Pair).

%   A component's cells in a unit (their colours): a term, or its fixed
%   count taken off the target.
component_term(C-Colours, T0-Terms0, T-Terms) :-
    sum_list(Colours, A),
    length(Colours, Len),
    B is Len - A,
    (   A =:= B
    ->  T is T0 - A,
        Terms0 = Terms
    ;   T = T0,
        Terms0 = [t(C, A, B)|Terms]
    ).

%   parity_tighten(+Whole, +Doms, +Places, +Units, +Values, +Odd,
%                  +Count)
%
%   tighten/5, then the parity counts while some parity is open: the
%   cells of each component they decide keep the candidates of their
%   parity (with the singles), and the rules run again on what that
%   touched.  Fails if the node is dead.
parity_tighten(Whole, Doms, Places, Units, Values, Odd, Count) :-
    tighten(Whole, Doms, Places, Units, Values),
    (   parity_open(Doms, Odd)
    ->  forced_flags(Count, Doms, Odd, Forced),
        (   Forced == []
        ->  true
        ;   Count = count(_, MemberT, _),
            foldl(keep_flag(MemberT, Whole, Doms, Places, Odd), Forced,
                  [], Log),
            touched(Log, Whole, 0, Units1, 0, Values1),
            parity_tighten(Whole, Doms, Places, Units1, Values1, Odd,
                           Count)
        )
    ;   true
    ).

%   forced_flags(+Count, +Doms, +Odd, -Forced): Forced, as C-F, the
%   flags of the open components that the counts decide; fails if the
%   node is dead.  A flag is a variable of the term Flags, bound to 0
%   or 1 when known: two cells that disagree on it fail to unify.
forced_flags(count(CompT, MemberT, Units), Doms, Odd, Forced) :-
    functor(MemberT, _, NC),
    functor(Flags, f, NC),
    functor(Doms, _, Size),
    known_flags(Size, Doms, Odd, CompT, Flags),
    count_units(Units, Flags, [], Cs),
    maplist(flag_of(Flags), Cs, Forced).

flag_of(Flags, C, C-F) :-
    arg(C, Flags, F).

%   Cells 1..I of a single parity fix the flags of their components.
known_flags(0, _, _, _, _) :- !.
known_flags(I, Doms, Odd, CompT, Flags) :-
    arg(I, Doms, D),
    (   D /\ Odd =:= 0
    ->  arg(I, CompT, C-Colour),
        arg(C, Flags, Colour)
    ;   D /\ \Odd =:= 0
    ->  arg(I, CompT, C-Colour),
        F is 1 - Colour,
        arg(C, Flags, F)
    ;   true
    ),
    I1 is I - 1,
    known_flags(I1, Doms, Odd, CompT, Flags).

%   Passes over the units until one forces no flag; Cs0/Cs are the
%   components forced so far.
count_units(Units, Flags, Cs0, Cs) :-
    foldl(count_unit(Flags), Units, Cs0, Cs1),
    (   Cs1 == Cs0
    ->  Cs = Cs0
    ;   count_units(Units, Flags, Cs1, Cs)
    ).

count_unit(Flags, unit(Target, Terms), Cs0, Cs) :-
    foldl(term_bounds(Flags), Terms, 0-0, Lo-Hi),
    Lo =< Target,
    Target =< Hi,
    foldl(force_term(Flags, Target, Lo, Hi), Terms, Cs0, Cs).

term_bounds(Flags, t(C, A, B), Lo0-Hi0, Lo-Hi) :-
    arg(C, Flags, F),
    (   var(F)
    ->  Lo is Lo0 + min(A, B),
        Hi is Hi0 + max(A, B)
    ;   F =:= 0
    ->  Lo is Lo0 + A,
        Hi is Hi0 + A
    ;   Lo is Lo0 + B,
        Hi is Hi0 + B
    ).

%   An open component whose larger option would lift the unit's low
%   bound past the target takes its smaller one, and the other way
%   round.  (Lo and Hi may be a pass old: still bounds.)
force_term(Flags, Target, Lo, Hi, t(C, A, B), Cs0, Cs) :-
    arg(C, Flags, F),
    (   var(F),
        Lo - min(A, B) + max(A, B) > Target
    ->  ( A < B -> F = 0 ; F = 1 ),
        Cs = [C|Cs0]
    ;   var(F),
        Hi - max(A, B) + min(A, B) < Target
    ->  ( A > B -> F = 0 ; F = 1 ),
        Cs = [C|Cs0]
    ;   Cs = Cs0
    ).

%   Each cell of component C keeps the candidates of the parity its
%   flag F gives it (and the singles run).
keep_flag(MemberT, Whole, Doms, Places, Odd, C-F, Log0, Log) :-
    arg(C, MemberT, Cells),
    foldl(keep_parity(F, Whole, Doms, Places, Odd), Cells, Log0, Log).

keep_parity(F, Whole, Doms, Places, Odd, I-Colour, Log0, Log) :-
    arg(I, Doms, D),
    (   F =\= Colour
    ->  Keep is D /\ Odd
    ;   Keep is D /\ \Odd
    ),
    Keep =\= 0,
    (   Keep =:= D
    ->  Log = Log0
    ;   narrow_settle(Whole, Doms, Places, I, Keep, Log0, Log)
    ).

%   The odd and the even cells are independent problems: Odd cells take
%   odd values, even ones even values, and each unit holds each value of
%   a parity once among its cells of that parity.  Every solution of the
%   half with fewer open cells is collected once, then paired with each
%   solution of the other, so neither is searched again for the other's
%   sake.  The halves start from the candidates the first stage left.
label_halves(Whole, Doms, K, Odd) :-
    board_vars(Whole, VarT),
    functor(VarT, _, Size),
    numlist(1, Size, Is),
    foldl(split_cell(VarT, Doms, Odd), Is, []-[], OddR-EvenR),
    reverse(OddR, OddH),
    reverse(EvenR, EvenH),
    board_n(Whole, N),
    All is ((1 << N) - 1) << 1,
    Even is All /\ \Odd,
    free_first(OddH-Odd, EvenH-Even, Small-SmallVs, Large-LargeVs),
    findall(SmallVs, solve_half(K, Small, SmallVs), Solutions),
    Solutions \== [],
    solve_half(K, Large, LargeVs),
    member(SmallVs, Solutions).

%   Put cell I into its half, a list of I-Var-Mask (in reverse order).
split_cell(VarT, Doms, Odd, I, Os0-Es0, Os-Es) :-
    arg(I, VarT, X),
    arg(I, Doms, D),
    (   D /\ Odd =\= 0
    ->  Os = [I-X-D|Os0],
        Es = Es0
    ;   Os = Os0,
        Es = [I-X-D|Es0]
    ).

%   H-Values-Vs: a half, the mask of its values and its variables.
free_first(A-VA, B-VB, Small-SVs, Large-LVs) :-
    include(open_cell, A, OpenA),
    include(open_cell, B, OpenB),
    length(OpenA, NA),
    length(OpenB, NB),
    (   NA =< NB
    ->  Small = A-VA,
        Large = B-VB
    ;   Small = B-VB,
        Large = A-VA
    ),
    Small = S-_,
    Large = L-_,
    maplist(cell_var, S, SVs),
    maplist(cell_var, L, LVs).

open_cell(_-_-D) :-
    D /\ (D-1) =\= 0.

cell_var(_-X-_, X).

%   Every labelling Vs of one half (its cells I-Var-Mask).  A half whose
%   cells the first stage decided already is its own labelling: the
%   singles left no two of them alike in a unit, so it needs no board.
%   (On a K = 7 oddsum stress puzzle with most values given, every half
%   is so, and building their boards took 40 % of the inferences.)
solve_half(K, Cells-Values, Vs) :-
    maplist(cell_parts, Cells, Is, Vs, Masks),
    (   maplist(single_value, Masks, Vs)
    ->  true
    ;   solve_board(K, Vs, Masks, Is, Values, [], next)
    ).

cell_parts(I-X-D, I, X, D).

single_value(M, V) :-
    M /\ (M-1) =:= 0,
    V is lsb(M).


/*  The value search.

    A board is a set of cells to label, numbered 1..Size, and the units
    that must hold each of their values exactly once: units 1..N are the
    rows, N+1..2N the columns and 2N+1..3N the boxes, cut down to the
    board's cells (under `oddsum` the first stage's board holds every
    cell, a half's board the cells of one parity).

        board(Vars, CellUnits, UnitCells, Lines, Rel-Links, Cross, N,
              Slots)

    Vars holds the cell variables.  The cells of a unit have positions
    0, 1, ... in it: UnitCells gives, per unit, the cells in position
    order (`none` for a unit without cells), and CellUnits, per cell, its
    row, column and box as Unit-Position pairs.  Links gives the cells
    linked to each cell by s/w infos, related as Rel says (relation/4),
    and Cross, per unit, the units crossing it (a row's or a column's
    boxes, a box's rows and columns) as x(Unit, Here, There): the
    positions of their common cells in this unit and in the other.
    Lines is the mutable term described below.  Slots is CellUnits
    again, per cell k(Row, RowBase, RowPosition, Column, ..., Box, ...),
    each Base being (Unit-1)*N, so that the singles, the hot path, index
    Places without a loop over a list.

    A node's state is two mutable terms that say the same thing from both
    sides: Doms, per cell, its candidates (bit V for value V), and Places,
    per unit and value (argument (Unit-1)*N + Value), the positions in the
    unit that can still take the value.  Both are built once, at the root;
    the rules and the branches change them with setarg/3, which
    backtracking undoes, so a probe leaves them as they were and a branch
    that fails hands its sibling the parent's state.  Lines, per value,
    is the mask of the units where the value lost places since box-line
    confinement last looked at it (see tighten/5); it too changes only
    with setarg/3, and is all zero after each tightening.
*/

%   solve_board(+K, +Vars, +Masks, +Positions, +Values, +Links, +Rel)
%   is nondet.
%
%   Every labelling of Vars that the model allows, each once.  Vars are
%   the cells at Positions (row-major grid indices) of a K*K x K*K grid,
%   Masks their candidates, each unit of which holds each value of the
%   mask Values once; Links are pairs of grid indices whose values are
%   related by Rel (see relation/4).
solve_board(_, [], _, _, _, _, _) :- !.
solve_board(K, Vars, Masks, Positions, Values, Links, Rel) :-
    make_board(K, Vars, Positions, Links, Rel, Board),
    start_board(Board, Masks, Values, Doms, Places, Units, Touched),
    board_search(Board, Doms, Places, Units, Touched).

%   The root node's state and what Hall's theorem must look at first.
start_board(Board, Masks, Values, Doms, Places, Units, Touched) :-
    node_state(Board, Masks, Doms, Places),
    root(Values, Masks, Board, Doms, Places, Units, Touched).

value_bit(V, M0, M) :-
    M is M0 \/ (1 << V).

make_board(K, Vars, Positions, Links, Rel, Board) :-
    Board = board(VarT, CellUnitT, UnitCellT, LineT, Rel-LinkT, CrossT,
                  N, SlotT),
    N is K*K,
    VarT =.. [v|Vars],
    length(Vars, Size),
    numlist(1, Size, Is),
    maplist(coords(K), Positions, Coords),
    length(Zeros, N),
    maplist(=(0), Zeros),
    LineT =.. [l|Zeros],
    foldl(unit_members(N), Is, Coords, Members, []),
    msort(Members, Sorted),
    group_pairs_by_key(Sorted, Groups),
    NU is 3*N,
    numlist(1, NU, Us),
    by_unit(Us, Groups, none, UnitLists),
    maplist(unit_cells, UnitLists, UnitCells),
    UnitCellT =.. [u|UnitCells],
    foldl(cell_positions, Groups, Triples, []),
    msort(Triples, SortedTriples),
    group_pairs_by_key(SortedTriples, CellGroups),
    pairs_values(CellGroups, CellUnits),
    CellUnitT =.. [o|CellUnits],
    maplist(cell_slots(N), CellUnits, Slots),
    SlotT =.. [k|Slots],
    link_table(Positions, Links, Size, LinkT),
    foldl(crossing_pairs, CellUnits, Pairs, []),
    msort(Pairs, SortedPairs),
    group_pairs_by_key(SortedPairs, PairGroups),
    maplist(crossing, PairGroups, Crossings0),
    append(Crossings0, Crossings1),
    msort(Crossings1, Crossings),
    group_pairs_by_key(Crossings, CrossGroups),
    by_unit(Us, CrossGroups, [], CrossLists),
    CrossT =.. [x|CrossLists].

cell_slots(N, [R-PR, C-PC, B-PB], k(R, BR, PR, C, BC, PC, B, BB, PB)) :-
    BR is (R-1)*N,
    BC is (C-1)*N,
    BB is (B-1)*N.

%   The fields of a board, by name (see "The value search" above).
board_vars(board(VarT, _, _, _, _, _, _, _), VarT).
board_cell_units(board(_, CellUnitT, _, _, _, _, _, _), CellUnitT).
board_unit_cells(board(_, _, UnitCellT, _, _, _, _, _), UnitCellT).
board_lines(board(_, _, _, LineT, _, _, _, _), LineT).
board_crossings(board(_, _, _, _, _, CrossT, _, _), CrossT).
board_n(board(_, _, _, _, _, _, N, _), N).

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

%   by_unit(+Us, +Groups, +None, -Xs): per unit of Us (ascending), its
%   value in Groups (Unit-Value pairs sorted by unit), else None.
by_unit([], _, _, []).
by_unit([U|Us], Groups, None, [X|Xs]) :-
    (   Groups = [U-X0|Groups1]
    ->  X = X0
    ;   X = None,
        Groups1 = Groups
    ),
    by_unit(Us, Groups1, None, Xs).

coords(K, Pos, c(Row, Col, Box)) :-
    N is K*K,
    Row is (Pos-1) // N,
    Col is (Pos-1) mod N,
    Box is (Row // K) * K + Col // K.

unit_members(N, I, c(Row, Col, Box), [R-I, C-I, B-I|Ms], Ms) :-
    R is Row + 1,
    C is N + Col + 1,
    B is 2*N + Box + 1.

unit_cells(Is, Cells) :-
    (   Is == none
    ->  Cells = none
    ;   Cells =.. [c|Is]
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

mask_bits(0, []) :- !.
mask_bits(M, [V|Vs]) :-
    V is lsb(M),
    M1 is M xor (1 << V),
    mask_bits(M1, Vs).

%   board_search(+Board, +Doms, +Places, +Units, +Values) is nondet:
%   every labelling of the board's cells that the node Doms/Places
%   allows, each once.  Units and Values (masks) are what changed since
%   the rules last looked, and so what Hall's theorem must look at.  The
%   node's state lives on in its children: a branch narrows it with
%   setarg/3, which backtracking undoes, so nothing is rebuilt per node.
board_search(Board, Doms, Places, Units, Values) :-
    tighten(Board, Doms, Places, Units, Values),
    probe_failed_literals(Board, Doms, Places, Result),
    (   Result = best([I-V|_]),
        arg(I, Doms, D),
        D /\ (D-1) =\= 0,
        D /\ (1 << V) =\= 0
    ->  branch(I, V, Board, Doms, Places)
    ;   functor(Doms, _, Size),
        fewest(open, Size, Doms, 0, 0, I),
        I > 0
    ->  arg(I, Doms, D),
        V is lsb(D),
        branch(I, V, Board, Doms, Places)
    ;   board_vars(Board, VarT),
        bind_vars(1, VarT, Doms)
    ).

%   Either cell I takes V or it does not, each followed by the rest of
%   the search.
branch(I, V, Board, Doms, Places) :-
    Bit is 1 << V,
    (   Keep = Bit
    ;   arg(I, Doms, D),
        Keep is D /\ \Bit
    ),
    narrow_settle(Board, Doms, Places, I, Keep, [], Log),
    touched(Log, Board, 0, Units, 0, Values),
    board_search(Board, Doms, Places, Units, Values).

%   fewest(+Which, +J, +Doms, +Best0, +I0, -I)
%
%   Of cells 1..J, the one with fewest candidates among those Which
%   selects (0 if there is none): `open` cells, with two candidates or
%   more, or `mixed(Odd)` cells, with both odd and even ones.
fewest(_, 0, _, _, I, I) :- !.
fewest(Which, J, Doms, Best0, I0, I) :-
    arg(J, Doms, D),
    (   selected(Which, D),
        C is popcount(D),
        (   I0 =:= 0
        ;   C =< Best0
        )
    ->  Best1 = C,
        I1 = J
    ;   Best1 = Best0,
        I1 = I0
    ),
    J1 is J - 1,
    fewest(Which, J1, Doms, Best1, I1, I).

selected(open, D) :-
    D /\ (D-1) =\= 0.
selected(mixed(Odd), D) :-
    D /\ Odd =\= 0,
    D /\ \Odd =\= 0.

%   Every cell is decided: give the variables their values.
bind_vars(I, VarT, Doms) :-
    (   arg(I, VarT, X)
    ->  arg(I, Doms, D),
        X is lsb(D),
        I1 is I + 1,
        bind_vars(I1, VarT, Doms)
    ;   true
    ).

%   Bring the root to a fixpoint of the singles, after a search for
%   values with one place in a unit (or none: then the root fails), and
%   say that Hall's theorem must look at every unit and value.
root(ValueMask, Masks, Board, Doms, Places, Units, ValueMask) :-
    length(Masks, Size),
    numlist(1, Size, Is),
    maplist(no_loss, Is, Events),
    settle(Board, Doms, Places, Events, 0, _, _),
    board_n(Board, N),
    NU is 3*N,
    mask_bits(ValueMask, Vs),
    hidden_singles(1, NU, N, Vs, Board, Doms, Places),
    Units is ((1 << NU) - 1) << 1,
    board_lines(Board, LineT),
    maplist(set_lines(LineT, Units), Vs).

set_lines(LineT, Units, V) :-
    setarg(V, LineT, Units).

no_loss(I, I-0).

hidden_singles(U, NU, N, Vs, Board, Doms, Places) :-
    (   U > NU
    ->  true
    ;   board_unit_cells(Board, UnitCellT),
        arg(U, UnitCellT, Cells),
        (   Cells == none
        ->  true
        ;   maplist(hidden_single(U, N, Cells, Board, Doms, Places), Vs)
        ),
        U1 is U + 1,
        hidden_singles(U1, NU, N, Vs, Board, Doms, Places)
    ).

hidden_single(U, N, Cells, Board, Doms, Places, V) :-
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
    Board = board(_, _, _, _, _, _, _, SlotT),
    arg(I, Doms, Old),
    Gone is Old /\ \Keep,
    setarg(I, Doms, Keep),
    arg(I, SlotT, Slots),
    clear_values(Gone, Slots, Board, Doms, Places, [I-Gone|Events0],
                 Events).

clear_values(0, _, _, _, _, Events, Events) :- !.
clear_values(Gone, Slots, Board, Doms, Places, Events0, Events) :-
    V is lsb(Gone),
    Slots = k(R, BR, PR, C, BC, PC, B, BB, PB),
    clear_place(R, BR, PR, V, Board, Doms, Places, Events0, Events1),
    clear_place(C, BC, PC, V, Board, Doms, Places, Events1, Events2),
    clear_place(B, BB, PB, V, Board, Doms, Places, Events2, Events3),
    Gone1 is Gone xor (1 << V),
    clear_values(Gone1, Slots, Board, Doms, Places, Events3, Events).

%   settle(+Board, +Doms, +Places, +Events, +R0, -R, -Log): work through
%   the events to a fixpoint of the singles, failing on a contradiction.
%   A decided cell's value leaves the rest of its units, and a linked
%   cell keeps only the values next to one of its partner's (narrow/7
%   has done the hidden singles).  R counts the candidates removed; Log
%   is the events handled, for the costlier rules to look at.
settle(_, _, _, [], R, R, []).
settle(Board, Doms, Places, [I-Gone|Events], R0, R, [I-Gone|Log]) :-
    Board = board(_, _, _, _, Rel-Links, _, _, SlotT),
    R1 is R0 + popcount(Gone),
    arg(I, Doms, M),
    (   M /\ (M-1) =:= 0
    ->  V is lsb(M),
        arg(I, SlotT, k(U1, B1, P1, U2, B2, P2, U3, B3, P3)),
        leave_unit(U1, B1, P1, V, M, Board, Doms, Places, Events, E1),
        leave_unit(U2, B2, P2, V, M, Board, Doms, Places, E1, E2),
        leave_unit(U3, B3, P3, V, M, Board, Doms, Places, E2, Events1)
    ;   Events1 = Events
    ),
    arg(I, Links, Partners),
    (   Partners == []
    ->  Events2 = Events1
    ;   link_partners(Partners, Rel, M, Board, Doms, Places, Events1,
                      Events2)
    ),
    settle(Board, Doms, Places, Events2, R1, R, Log).

leave(0, _, _, _, _, _, _, _, Events, Events) :- !.
leave(Hit, Cells, U, V, M, Board, Doms, Places, Events0, Events) :-
    P is lsb(Hit),
    Hit1 is Hit xor (1 << P),
    P1 is P + 1,
    arg(P1, Cells, J),
    arg(J, Doms, DJ),
    (   DJ /\ M =:= 0
    ->  Events1 = Events0
    ;   Left is DJ /\ \M,
        Left =\= 0,
        setarg(J, Doms, Left),
        Board = board(_, _, _, _, _, _, _, SlotT),
        arg(J, SlotT, k(R, BR, PR, C, BC, PC, B, BB, PB)),
        E0 = [J-M|Events0],
        (   U =:= R
        ->  clear_place(C, BC, PC, V, Board, Doms, Places, E0, E1),
            clear_place(B, BB, PB, V, Board, Doms, Places, E1, Events1)
        ;   clear_place(R, BR, PR, V, Board, Doms, Places, E0, E1),
            (   U =:= C
            ->  clear_place(B, BB, PB, V, Board, Doms, Places, E1,
                            Events1)
            ;   clear_place(C, BC, PC, V, Board, Doms, Places, E1,
                            Events1)
            )
        )
    ),
    leave(Hit1, Cells, U, V, M, Board, Doms, Places, Events1, Events).

%   The partners Js of a cell with candidates M keep the values that Rel
%   allows next to one of them: under `next` the values one off, under
%   parity(Odd, Even) the other parity once M has only one.
link_partners(Js, Rel, M, Board, Doms, Places, Events0, Events) :-
    (   Rel == next
    ->  Allowed is (M << 1) \/ (M >> 1),
        partners_keep(Js, Allowed, Board, Doms, Places, Events0, Events)
    ;   Rel = parity(Odd, Even),
        (   M /\ Even =:= 0
        ->  partners_keep(Js, Even, Board, Doms, Places, Events0, Events)
        ;   M /\ Odd =:= 0
        ->  partners_keep(Js, Odd, Board, Doms, Places, Events0, Events)
        ;   Events = Events0
        )
    ).

partners_keep([], _, _, _, _, Events, Events).
partners_keep([J|Js], Allowed, Board, Doms, Places, Events0, Events) :-
    arg(J, Doms, DJ),
    Keep is DJ /\ Allowed,
    (   Keep =:= DJ
    ->  Events1 = Events0
    ;   Keep =\= 0,
        narrow(Board, Doms, Places, J, Keep, Events0, Events1)
    ),
    partners_keep(Js, Allowed, Board, Doms, Places, Events1, Events).

%   Narrow cell I to Keep and settle, adding the events handled to the
%   log; fails on a contradiction.
narrow_settle(Board, Doms, Places, I, Keep, Log0, Log) :-
    Keep =\= 0,
    narrow(Board, Doms, Places, I, Keep, [], Events),
    settle(Board, Doms, Places, Events, 0, _, Log1),
    append(Log1, Log0, Log).

/*  Hall's theorem.  A group of m cells that must take m distinct values,
    every value once (a unit's open cells), is a bipartite graph with an
    edge for each candidate.  A candidate can stay exactly when some
    perfect matching uses its edge: given one perfect matching, that is
    when the edge is matched or lies on an alternating cycle, i.e. when
    the cell and the cell matched to the candidate lie in the same
    strongly connected component of the graph with an arc from each cell
    to the cells matched to its other candidates.  This finds every naked
    and hidden subset at once.
*/

%   hall(+Cells, +Doms, +N, -Owner, -Components): Owner is a perfect
%   matching of the open cells of a unit (its cells Cells, values 1..N):
%   argument V holds the cell matched to value V.  Components are the
%   strongly connected components of the matched values (masks); a
%   candidate can stay exactly when it is in the component of its
%   cell's matched value, or one component with everything when there
%   are fewer than four open cells (no subset that the singles miss).
%   Fails if there is no perfect matching.
%
%   The components are found on the matched values rather than the
%   cells (value V stands for the cell matched to it): the arcs of V are
%   then simply the candidates of its cell, a mask, so nothing is built
%   per arc.  Most units are one component and keep everything; that is
%   settled by one search forward and one backward from any value.
hall(Cells, Doms, N, Owner, Components) :-
    functor(Owner, o, N),
    Taken = t(0),
    functor(Cells, _, Size),
    match_cells(Size, Cells, Doms, Owner, Taken, 0, M),
    arg(1, Taken, Matched),
    (   M < 4
    ->  Components = [Matched]
    ;   split_components(Matched, Owner-Doms, Components)
    ).

%   Match the open cells among positions 1..P of a unit, one by one, a
%   free candidate first; M counts them.
match_cells(0, _, _, _, _, M, M) :- !.
match_cells(P, Cells, Doms, Owner, Taken, M0, M) :-
    arg(P, Cells, X),
    arg(X, Doms, D),
    (   D /\ (D-1) =:= 0
    ->  M1 = M0
    ;   M1 is M0 + 1,
        augment(X, Doms, Owner, Taken, s(0))
    ),
    P1 is P - 1,
    match_cells(P1, Cells, Doms, Owner, Taken, M1, M).

%   Match cell X, moving others along an augmenting path if need be.
%   Taken holds the values matched so far (a mask), Seen those tried on
%   the way.
augment(X, Doms, Owner, Taken, Seen) :-
    arg(X, Doms, D),
    arg(1, Taken, T),
    Free is D /\ \T,
    (   Free =\= 0
    ->  V is lsb(Free),
        T1 is T \/ (1 << V),
        nb_setarg(1, Taken, T1),
        nb_setarg(V, Owner, X)
    ;   arg(1, Seen, S),
        Cand is D /\ \S,
        augment_values(Cand, X, Doms, Owner, Taken, Seen)
    ).

%   Try the taken candidates Cand: move their owners elsewhere.
augment_values(Cand, X, Doms, Owner, Taken, Seen) :-
    Cand =\= 0,
    V is lsb(Cand),
    arg(1, Seen, S0),
    S is S0 \/ (1 << V),
    nb_setarg(1, Seen, S),
    arg(V, Owner, Y),
    (   augment(Y, Doms, Owner, Taken, Seen)
    ->  nb_setarg(V, Owner, X)
    ;   arg(1, Seen, S1),
        Cand1 is Cand /\ \S1,
        augment_values(Cand1, X, Doms, Owner, Taken, Seen)
    ).

%   The strongly connected components (value masks) of the value graph
%   on the values Left, arcs ArcT = Owner-Doms: the arcs of value X are
%   the candidates of cell arg(X, Owner), read where they are needed.
%   Forward reach follows the arcs;
%   backward reach adds, until nothing changes, every value with an arc
%   into what is reached.
split_components(0, _, []) :- !.
split_components(Left, ArcT, [C|Cs]) :-
    X is lsb(Left),
    Start is 1 << X,
    reachable(Start, Start, ArcT, Left, F),
    reaching(Left, Start, ArcT, B),
    C is F /\ B,
    Left1 is Left /\ \C,
    split_components(Left1, ArcT, Cs).

reachable(0, Seen, _, _, Seen) :- !.
reachable(Frontier, Seen, ArcT, Within, Reach) :-
    step(Frontier, ArcT, 0, Next0),
    Next is Next0 /\ Within /\ \Seen,
    Seen1 is Seen \/ Next,
    reachable(Next, Seen1, ArcT, Within, Reach).

step(0, _, Next, Next) :- !.
step(Frontier, ArcT, Next0, Next) :-
    X is lsb(Frontier),
    ArcT = Owner-Doms,
    arg(X, Owner, Cell),
    arg(Cell, Doms, Ys),
    Next1 is Next0 \/ Ys,
    Frontier1 is Frontier xor (1 << X),
    step(Frontier1, ArcT, Next1, Next).

%   The values of Within from which Seen can be reached.  A pass over
%   the values not reached yet adds each one with an arc into what is
%   reached so far, the values it added included.
reaching(Within, Seen, ArcT, Reach) :-
    Rest is Within /\ \Seen,
    into(Rest, ArcT, Seen, Seen1),
    (   Seen1 =:= Seen
    ->  Reach = Seen
    ;   reaching(Within, Seen1, ArcT, Reach)
    ).

into(0, _, Seen, Seen) :- !.
into(Rest, ArcT, Seen0, Seen) :-
    X is lsb(Rest),
    ArcT = Owner-Doms,
    arg(X, Owner, Cell),
    arg(Cell, Doms, Ys),
    (   Ys /\ Seen0 =\= 0
    ->  Seen1 is Seen0 \/ (1 << X)
    ;   Seen1 = Seen0
    ),
    Rest1 is Rest xor (1 << X),
    into(Rest1, ArcT, Seen1, Seen).

%   Each cell matched to a value of component C keeps only C (and the
%   singles run).
prune_components([], _, _, _, _, Log, Log).
prune_components([C|Cs], Owner, Board, Doms, Places, Log0, Log) :-
    prune_component(C, C, Owner, Board, Doms, Places, Log0, Log1),
    prune_components(Cs, Owner, Board, Doms, Places, Log1, Log).

prune_component(0, _, _, _, _, _, Log, Log) :- !.
prune_component(Vs, C, Owner, Board, Doms, Places, Log0, Log) :-
    V is lsb(Vs),
    arg(V, Owner, X),
    prune_cell(Board, Doms, Places, X, C, Log0, Log1),
    Vs1 is Vs xor (1 << V),
    prune_component(Vs1, C, Owner, Board, Doms, Places, Log1, Log).

/*  Node tightening: box-line confinement per value, then Hall's
    theorem on the units, each followed by the singles, until nothing
    changes; only the units and values touched since they were last
    looked at are looked at again.  Fails if the node is dead.  The
    cheap rule goes first: what it removes would otherwise make the
    matchings of the units it touches run again.

    Hall's theorem per value (the rows where a value is open against the
    columns, i.e. the fish) is left out: after box-line confinement it
    removed almost nothing on the hard puzzles and cost a tenth of the
    time.  Nor is a unit's matching gated by counting its candidates:
    the counts let through most units anyway.
*/

%   tighten(+Board, +Doms, +Places, +Units, +Values): Units and Values are
%   masks of what is to be looked at: Hall's theorem looks at the units
%   Units, box-line confinement at each value of Values in the units
%   where it lost places (the board's Lines).  A unit and value whose
%   places have not changed since confinement last looked at them give
%   nothing new: the places of the crossing units only shrink.
tighten(Board, Doms, Places, Units, Values) :-
    (   Values =\= 0
    ->  V is lsb(Values),
        Values0 is Values xor (1 << V),
        board_lines(Board, LineT),
        arg(V, LineT, Lines),
        setarg(V, LineT, 0),
        confine(Lines, V, Board, Doms, Places, [], Log),
        touched(Log, Board, Units, Units1, Values0, Values1),
        tighten(Board, Doms, Places, Units1, Values1)
    ;   Units =\= 0
    ->  U is lsb(Units),
        Units0 is Units xor (1 << U),
        unit_hall(U, Board, Doms, Places, Log),
        touched(Log, Board, Units0, Units1, 0, Values1),
        tighten(Board, Doms, Places, Units1, Values1)
    ;   true
    ).

%   touched(+Log, +Board, +Units0, -Units, +Values0, -Values): add the
%   units and the values that the events of Log changed, and mark, per
%   value lost, the cell's units in the board's Lines.
touched([], _, Units, Units, Values, Values).
touched([I-Gone|Log], Board, U0, U, V0, V) :-
    Board = board(_, _, _, LineT, _, _, _, SlotT),
    arg(I, SlotT, k(R, _, _, C, _, _, B, _, _)),
    Here is (1 << R) \/ (1 << C) \/ (1 << B),
    U1 is U0 \/ Here,
    V1 is V0 \/ Gone,
    mark_lines(Gone, LineT, Here),
    touched(Log, Board, U1, U, V1, V).

mark_lines(0, _, _) :- !.
mark_lines(Gone, LineT, Here) :-
    V is lsb(Gone),
    arg(V, LineT, L0),
    L is L0 \/ Here,
    setarg(V, LineT, L),
    Gone1 is Gone xor (1 << V),
    mark_lines(Gone1, LineT, Here).

%   Hall's theorem on unit U.
unit_hall(U, Board, Doms, Places, Log) :-
    board_unit_cells(Board, UnitCellT),
    arg(U, UnitCellT, Cells),
    (   Cells \== none
    ->  board_n(Board, N),
        hall(Cells, Doms, N, Owner, Components),
        (   Components = [_]
        ->  Log = []
        ;   prune_components(Components, Owner, Board, Doms, Places, [],
                             Log)
        )
    ;   Log = []
    ).

%   Cell I keeps only the candidates in New (and settles).
prune_cell(Board, Doms, Places, I, New, Log0, Log) :-
    arg(I, Doms, Now),
    Keep is Now /\ New,
    (   Keep =:= Now
    ->  Log = Log0
    ;   narrow_settle(Board, Doms, Places, I, Keep, Log0, Log)
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
confine(0, _, _, _, _, Log, Log) :- !.
confine(Lines, V, Board, Doms, Places, Log0, Log) :-
    U is lsb(Lines),
    Lines1 is Lines xor (1 << U),
    board_crossings(Board, CrossT),
    board_n(Board, N),
    A is (U-1)*N + V,
    arg(A, Places, Pl),
    (   Pl /\ (Pl-1) =\= 0
    ->  arg(U, CrossT, Crossings),
        clear_crossings(Crossings, Pl, V, Board, Doms, Places, Log0, Log1)
    ;   Log1 = Log0
    ),
    confine(Lines1, V, Board, Doms, Places, Log1, Log).

clear_crossings([], _, _, _, _, _, Log, Log).
clear_crossings([X|Xs], Pl, V, Board, Doms, Places, Log0, Log) :-
    clear_crossing(Pl, V, Board, Doms, Places, X, Log0, Log1),
    clear_crossings(Xs, Pl, V, Board, Doms, Places, Log1, Log).

clear_crossing(Pl, V, Board, Doms, Places, x(W, Here, There), Log0, Log) :-
    (   Pl /\ \Here =:= 0
    ->  board_unit_cells(Board, UnitCellT),
        board_n(Board, N),
        A is (W-1)*N + V,
        arg(A, Places, PlW),
        Others is PlW /\ \There,
        (   Others =:= 0
        ->  Log = Log0
        ;   arg(W, UnitCellT, Cells),
            drop_at(Others, Cells, V, Board, Doms, Places, Log0, Log)
        )
    ;   Log = Log0
    ).

%   Value V leaves the cells at the positions Pl of a unit (Cells).
drop_at(0, _, _, _, _, _, Log, Log) :- !.
drop_at(Pl, Cells, V, Board, Doms, Places, Log0, Log) :-
    P is lsb(Pl),
    P1 is P + 1,
    arg(P1, Cells, J),
    drop_value(Board, Doms, Places, V, J, Log0, Log1),
    Pl1 is Pl xor (1 << P),
    drop_at(Pl1, Cells, V, Board, Doms, Places, Log1, Log).

%   probe_failed_literals(+Board, +Doms, +Places, -Result)
%
%   Failed-literal probing: try both sides of every bivalue cell and
%   bilocal value of the node (probe_candidates/4), in one pass.  A
%   literal whose probe fails is taken out of the node at once (with the
%   singles), so the probes after it start from the narrower node; the
%   costlier rules (tighten/5) run once, after the pass, on all that the
%   exclusions touched.  A pair whose sides are no longer both open is
%   skipped: the singles have decided it.  Result is best(Pair), the pair
%   whose two probes removed most candidates (largest product), or `none`
%   if there is no pair.  Fails if the node is dead.
probe_failed_literals(Board, Doms, Places, Result) :-
    probe_candidates(Board, Doms, Places, Pairs),
    functor(Doms, _, Size),
    functor(Reached, r, Size),
    functor(Implied, i, Size),
    probe_pairs(Pairs, Board, Doms, Places, Reached-Implied, none-0, 0-0,
                Touched, Result),
    (   Touched = 0-0
    ->  true
    ;   Touched = Units-Values,
        tighten(Board, Doms, Places, Units, Values)
    ).

probe_pairs([], _, _, _, _, Best-_, T, T, Result) :-
    (   Best == none
    ->  Result = none
    ;   Result = best(Best)
    ).
probe_pairs([[A,B]|Pairs], Board, Doms, Places, R, Best0, T0, T,
            Result) :-
    (   open_literal(A, Doms),
        open_literal(B, Doms)
    ->  Best0 = _-BestScore,
        pair_outcome(A, B, bound, Board, Doms, Places, R, Outcome0),
        (   Outcome0 = score(Bound),
            Bound > BestScore
        ->  pair_outcome(A, B, exact, Board, Doms, Places, R, Outcome)
        ;   Outcome = Outcome0
        ),
        (   Outcome = failed(L)
        ->  exclude_literal(L, Board, Doms, Places, T0, T1),
            probe_pairs(Pairs, Board, Doms, Places, R, Best0, T1, T,
                        Result)
        ;   Outcome = score(Score),
            (   Score > BestScore
            ->  Best1 = [A,B]-Score
            ;   Best1 = Best0
            ),
            probe_pairs(Pairs, Board, Doms, Places, R, Best1, T0, T,
                        Result)
        )
    ;   probe_pairs(Pairs, Board, Doms, Places, R, Best0, T0, T, Result)
    ).

%   pair_outcome(+A, +B, +Mode, +Board, +Doms, +Places, +R, -Outcome)
%
%   Outcome is failed(L) for the first literal L of the pair whose probe
%   fails, else score(S), S the product of the two reaches.  In Mode
%   `bound` a literal that an earlier probe of the pass decided counts
%   with that probe's reach, a bound of its own (see literal_reach/7):
%   a pair whose bound is no better than the best so far is not probed
%   further.
pair_outcome(A, B, Mode, Board, Doms, Places, R, Outcome) :-
    literal_reach(A, Mode, Board, Doms, Places, R, RA),
    (   RA =:= 0
    ->  Outcome = failed(A)
    ;   literal_reach(B, Mode, Board, Doms, Places, R, RB),
        (   RB =:= 0
        ->  Outcome = failed(B)
        ;   Score is RA * RB,
            Outcome = score(Score)
        )
    ).

%   Literal I-V is still a choice: cell I is open and has V.
open_literal(I-V, Doms) :-
    arg(I, Doms, D),
    D /\ (D-1) =\= 0,
    D /\ (1 << V) =\= 0.

%   Literal I-V failed: cell I loses V (and the singles run); Units-Values
%   collects what the costlier rules must look at afterwards.
exclude_literal(I-V, Board, Doms, Places, Units0-Values0, Units-Values) :-
    drop_value(Board, Doms, Places, V, I, [], Log),
    touched(Log, Board, Units0, Units, Values0, Values).

%   How far literal I-V reaches (0: its probe fails), remembered for
%   the rest of the pass in Reached (argument I, bound as the pass goes):
%   after an exclusion it is a score, no longer exact, and a probe that
%   failed before fails after.  A probe that lives also notes, in
%   Implied, each other cell it decided, with its own reach: the probe
%   of that cell's literal does a part of this one's work, so it cannot
%   fail and reaches no further.  In Mode `bound` such a bound stands in
%   for a literal not probed yet.
literal_reach(I-V, Mode, Board, Doms, Places, Reached-Implied, Reach) :-
    arg(I, Reached, Known),
    (   known_reach(Known, V, Reach0)
    ->  Reach = Reach0
    ;   Mode == bound,
        arg(I, Implied, Bounds),
        known_reach(Bounds, V, Bound)
    ->  Reach = Bound
    ;   probe_literal(Board, Doms, Places, I, V, Reach, Decided),
        add_reach(Known, V, Reach),
        add_bounds(Decided, Implied, Reach)
    ).

%   Each cell J that a probe of reach Reach decided (to W) keeps the
%   smallest such reach as the bound of literal J-W (per cell, unbound
%   or a list of V-Bound, the newest and smallest first).
add_bounds([], _, _).
add_bounds([J-W|Decided], Implied, Reach) :-
    arg(J, Implied, Bounds),
    (   known_reach(Bounds, W, Bound),
        Bound =< Reach
    ->  true
    ;   var(Bounds)
    ->  setarg(J, Implied, [W-Reach])
    ;   setarg(J, Implied, [W-Reach|Bounds])
    ),
    add_bounds(Decided, Implied, Reach).

%   Per cell, the reaches found so far: an open list of V-Reach.
known_reach(Known, V, Reach) :-
    nonvar(Known),
    Known = [W-R|Known1],
    (   W =:= V
    ->  Reach = R
    ;   known_reach(Known1, V, Reach)
    ).

add_reach(Known, V, Reach) :-
    (   var(Known)
    ->  Known = [V-Reach|_]
    ;   Known = [_|Known1],
        add_reach(Known1, V, Reach)
    ).

%   Put V into cell I and apply the singles: Reach is 0 on a
%   contradiction, else 1 + the number of candidates removed, and
%   Decided the other cells that the singles decided, as J-W (cell J
%   takes W).  Doms and Places are restored.
probe_literal(Board, Doms, Places, I, V, Reach, Decided) :-
    Box = r(0, []),
    (   assume_literal(Board, Doms, Places, I, V, R, Log),
        decided_cells(Log, I, Doms, Ds),
        nb_setarg(1, Box, R),
        nb_setarg(2, Box, Ds),
        fail
    ;   arg(1, Box, Reach),
        arg(2, Box, Decided)
    ).

assume_literal(Board, Doms, Places, I, V, Reach, Log) :-
    Bit is 1 << V,
    narrow(Board, Doms, Places, I, Bit, [], Events),
    settle(Board, Doms, Places, Events, 1, Reach, Log).

%   The cells other than I that the events of Log left decided.
decided_cells([], _, _, []).
decided_cells([J-_|Log], I, Doms, Ds) :-
    arg(J, Doms, D),
    (   J =\= I,
        D /\ (D-1) =:= 0
    ->  W is lsb(D),
        Ds = [J-W|Ds1]
    ;   Ds = Ds1
    ),
    decided_cells(Log, I, Doms, Ds1).

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
