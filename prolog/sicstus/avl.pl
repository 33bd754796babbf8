/*  library(avl) of SICStus Prolog 4, for solvers run in SWI-Prolog.

    SWI-Prolog has no library(avl); this module defines every predicate
    SICStus documents for it.  An AVL tree is `empty` or
    node(Key, Value, Balance, Left, Right), where Balance is the height
    of Right minus the height of Left (-1, 0 or 1), and every key of
    Left precedes Key, which precedes every key of Right, in standard
    order.  Keys are compared with compare/3, so a key is found only by
    an identical (==) one; keys should be ground.
*/

:- module(sicstus_lib_avl,
          [ avl_to_list/2, is_avl/1, avl_change/5, avl_domain/2,
            avl_fetch/2, avl_fetch/3, avl_height/2, avl_incr/4,
            avl_max/2, avl_max/3, avl_member/2, avl_member/3, avl_min/2,
            avl_min/3, avl_next/3, avl_next/4, avl_prev/3, avl_prev/4,
            avl_range/2, avl_size/2, avl_store/4, avl_delete/4,
            avl_del_max/4, avl_del_min/4, avl_map/2, avl_map/3,
            empty_avl/1, list_to_avl/2, ord_list_to_avl/2,
            portray_avl/1
          ]).

:- set_module(base(system)).

:- use_module(library(apply), [foldl/4]).
:- use_module(search_tree, [tree_neighbour/5, portray_pairs/1]).

:- meta_predicate
    avl_map(1, ?),
    avl_map(2, ?, ?).


                 /*******************************
                 *        CONSTRUCTION          *
                 *******************************/

%!  empty_avl(?AVL) is semidet.
%
%   AVL is the empty AVL tree.

empty_avl(empty).

%!  list_to_avl(+Pairs, -AVL) is det.
%
%   AVL holds the Key-Value pairs of the proper list Pairs, inserted
%   one by one: of several pairs with the same key, the last counts.

list_to_avl(Pairs, AVL) :-
    foldl(store_pair, Pairs, empty, AVL0),
    AVL = AVL0.

store_pair(Key-Value, AVL0, AVL) :-
    avl_store(Key, AVL0, Value, AVL).

%!  ord_list_to_avl(+Pairs, -AVL) is det.
%
%   AVL holds the Key-Value pairs of Pairs, whose keys must already be
%   in ascending order without duplicates (this is not checked).
%   Takes linear time.

ord_list_to_avl(Pairs, AVL) :-
    length(Pairs, N),
    balanced(N, Pairs, [], AVL0, _),
    AVL = AVL0.

%   balanced(+N, +Pairs0, -Pairs, -AVL, -Height): AVL holds the first
%   N pairs of Pairs0, Pairs the rest.
balanced(0, Pairs, Pairs, empty, 0) :-
    !.
balanced(N, Pairs0, Pairs, node(K, V, B, L, R), H) :-
    NL is (N - 1) // 2,
    NR is N - 1 - NL,
    balanced(NL, Pairs0, [K-V|Pairs1], L, HL),
    balanced(NR, Pairs1, Pairs, R, HR),
    B is HR - HL,
    H is max(HL, HR) + 1.


                 /*******************************
                 *           QUERIES            *
                 *******************************/

%!  is_avl(+AVL) is semidet.
%
%   AVL is a proper AVL tree: its keys are non-variables in strictly
%   ascending order and every balance is right and within -1..1.

is_avl(AVL) :-
    is_avl(AVL, none, _, _).

%   is_avl(+AVL, +Low, -High, -Height): Low and High are none or
%   key(K), the key left of and the last key in AVL.
is_avl(AVL, _, _, _) :-
    var(AVL),
    !,
    fail.
is_avl(empty, Low, Low, 0).
is_avl(node(K, _, B, L, R), Low, High, H) :-
    nonvar(K),
    is_avl(L, Low, Mid, HL),
    (   Mid = key(Before)
    ->  Before @< K
    ;   true
    ),
    is_avl(R, key(K), High, HR),
    integer(B),
    B =:= HR - HL,
    B >= -1, B =< 1,
    H is max(HL, HR) + 1.

%!  avl_to_list(+AVL, -Pairs) is det.
%!  avl_domain(+AVL, -Keys) is det.
%!  avl_range(+AVL, -Values) is det.
%
%   Pairs are the Key-Value pairs of AVL in ascending order of keys,
%   Keys its keys (an ordered set) and Values the ordered set of its
%   values.

avl_to_list(AVL, Pairs) :-
    in_order(AVL, pair, Pairs0, []),
    Pairs = Pairs0.

avl_domain(AVL, Keys) :-
    in_order(AVL, key, Keys0, []),
    Keys = Keys0.

avl_range(AVL, Values) :-
    in_order(AVL, value, Values0, []),
    sort(Values0, Values1),
    Values = Values1.

in_order(empty, _, Xs, Xs).
in_order(node(K, V, _, L, R), What, Xs0, Xs) :-
    in_order(L, What, Xs0, [X|Xs1]),
    item(What, K, V, X),
    in_order(R, What, Xs1, Xs).

item(pair, K, V, K-V).
item(key, K, _, K).
item(value, _, V, V).

%!  avl_size(+AVL, -Size) is det.
%
%   Size is the number of keys in AVL.

avl_size(AVL, Size) :-
    size(AVL, 0, Size0),
    Size = Size0.

size(empty, N, N).
size(node(_, _, _, L, R), N0, N) :-
    size(L, N0, N1),
    N2 is N1 + 1,
    size(R, N2, N).

%!  avl_height(+AVL, -Height) is det.
%
%   Height is the number of nodes on the longest path of AVL.

avl_height(AVL, Height) :-
    height(AVL, 0, Height0),
    Height = Height0.

height(empty, H, H).
height(node(_, _, B, L, R), H0, H) :-
    H1 is H0 + 1,
    (   B < 0
    ->  height(L, H1, H)
    ;   height(R, H1, H)
    ).

%!  avl_fetch(+Key, +AVL) is semidet.
%!  avl_fetch(+Key, +AVL, -Value) is semidet.
%
%   Key is a key of AVL, associated with Value.

avl_fetch(Key, AVL) :-
    avl_fetch(Key, AVL, _).

avl_fetch(Key, node(K, V, _, L, R), Value) :-
    compare(Order, Key, K),
    fetch(Order, Key, V, L, R, Value).

fetch(=, _, Value, _, _, Value).
fetch(<, Key, _, L, _, Value) :-
    avl_fetch(Key, L, Value).
fetch(>, Key, _, _, R, Value) :-
    avl_fetch(Key, R, Value).

%!  avl_member(?Key, +AVL) is nondet.
%!  avl_member(?Key, +AVL, ?Value) is nondet.
%
%   Key is a key of AVL associated with Value; enumerates the keys in
%   ascending order.

avl_member(Key, AVL) :-
    avl_member(Key, AVL, _).

avl_member(Key, node(K, V, _, L, R), Value) :-
    (   avl_member(Key, L, Value)
    ;   Key = K,
        Value = V
    ;   avl_member(Key, R, Value)
    ).

%!  avl_min(+AVL, -Key) is semidet.
%!  avl_min(+AVL, -Key, -Value) is semidet.
%!  avl_max(+AVL, -Key) is semidet.
%!  avl_max(+AVL, -Key, -Value) is semidet.
%
%   Key is the least (greatest) key of AVL, associated with Value.
%   Fails if AVL is empty.

avl_min(AVL, Key) :-
    avl_min(AVL, Key, _).

avl_min(node(K, V, _, L, _), Key, Value) :-
    (   L == empty
    ->  Key = K,
        Value = V
    ;   avl_min(L, Key, Value)
    ).

avl_max(AVL, Key) :-
    avl_max(AVL, Key, _).

avl_max(node(K, V, _, _, R), Key, Value) :-
    (   R == empty
    ->  Key = K,
        Value = V
    ;   avl_max(R, Key, Value)
    ).

%!  avl_next(+Key, +AVL, -Knext) is semidet.
%!  avl_next(+Key, +AVL, -Knext, -Vnext) is semidet.
%!  avl_prev(+Key, +AVL, -Kprev) is semidet.
%!  avl_prev(+Key, +AVL, -Kprev, -Vprev) is semidet.
%
%   Knext is the least key of AVL after Key (Kprev the greatest key
%   before Key) in standard order, associated with Vnext (Vprev).  Key
%   need not be in AVL.  Fails if there is no such key.

avl_next(Key, AVL, Knext) :-
    avl_next(Key, AVL, Knext, _).

avl_next(Key, AVL, Knext, Vnext) :-
    tree_neighbour(AVL, Key, next, Knext, Vnext).

avl_prev(Key, AVL, Kprev) :-
    avl_prev(Key, AVL, Kprev, _).

avl_prev(Key, AVL, Kprev, Vprev) :-
    tree_neighbour(AVL, Key, prev, Kprev, Vprev).


                 /*******************************
                 *           UPDATES            *
                 *******************************/

%!  avl_store(+Key, +OldAVL, +Value, -NewAVL) is det.
%
%   NewAVL is OldAVL with Key associated with Value, whether or not
%   OldAVL had Key.

avl_store(Key, OldAVL, Value, NewAVL) :-
    insert(OldAVL, Key, Value, NewAVL0, _),
    NewAVL = NewAVL0.

%   insert(+AVL0, +Key, +Value, -AVL, -Grew): Grew is true if AVL is
%   higher than AVL0.
insert(empty, Key, Value, node(Key, Value, 0, empty, empty), true).
insert(node(K, V, B, L, R), Key, Value, AVL, Grew) :-
    compare(Order, Key, K),
    insert(Order, K, V, B, L, R, Key, Value, AVL, Grew).

insert(=, _, _, B, L, R, Key, Value, node(Key, Value, B, L, R), false).
insert(<, K, V, B, L, R, Key, Value, AVL, Grew) :-
    insert(L, Key, Value, L1, LeftGrew),
    (   LeftGrew == true
    ->  B1 is B - 1,
        after_growth(B1, K, V, L1, R, AVL, Grew)
    ;   AVL = node(K, V, B, L1, R),
        Grew = false
    ).
insert(>, K, V, B, L, R, Key, Value, AVL, Grew) :-
    insert(R, Key, Value, R1, RightGrew),
    (   RightGrew == true
    ->  B1 is B + 1,
        after_growth(B1, K, V, L, R1, AVL, Grew)
    ;   AVL = node(K, V, B, L, R1),
        Grew = false
    ).

%   after_growth(+Balance, +K, +V, +L, +R, -AVL, -Grew): one side of
%   the node grew, which gave it Balance.
after_growth(0, K, V, L, R, node(K, V, 0, L, R), false).
after_growth(-1, K, V, L, R, node(K, V, -1, L, R), true).
after_growth(1, K, V, L, R, node(K, V, 1, L, R), true).
after_growth(-2, K, V, L, R, AVL, false) :-
    rotate(-2, K, V, L, R, AVL, _).
after_growth(2, K, V, L, R, AVL, false) :-
    rotate(2, K, V, L, R, AVL, _).

%!  avl_incr(+Key, +OldAVL, +Increment, -NewAVL) is det.
%
%   NewAVL is OldAVL with the value N of Key replaced by N+Increment,
%   or with Key associated with Increment if OldAVL lacks Key.

avl_incr(Key, OldAVL, Increment, NewAVL) :-
    (   avl_fetch(Key, OldAVL, N)
    ->  N1 is N + Increment,
        avl_change(Key, OldAVL, N, NewAVL0, N1)
    ;   avl_store(Key, OldAVL, Increment, NewAVL0)
    ),
    NewAVL = NewAVL0.

%!  avl_change(+Key, ?AVL1, ?Value1, ?AVL2, ?Value2) is semidet.
%
%   AVL1 and AVL2 have the same shape and associate the same values
%   with their keys, except Key: Value1 in AVL1 and Value2 in AVL2.
%   Fails if Key is not in the tree.  Use it to change the value of a
%   key that is present; one of AVL1 and AVL2 must be given.

avl_change(Key, AVL1, Value1, AVL2, Value2) :-
    change(AVL1, AVL2, Key, Value1, Value2).

change(node(K, V1, B, L1, R1), node(K, V2, B, L2, R2), Key, Value1,
       Value2) :-
    compare(Order, Key, K),
    change(Order, V1, L1, R1, V2, L2, R2, Key, Value1, Value2).

change(=, Value1, L, R, Value2, L, R, _, Value1, Value2).
change(<, V, L1, R, V, L2, R, Key, Value1, Value2) :-
    change(L1, L2, Key, Value1, Value2).
change(>, V, L, R1, V, L, R2, Key, Value1, Value2) :-
    change(R1, R2, Key, Value1, Value2).

%!  avl_delete(+Key, +OldAVL, -Value, -NewAVL) is semidet.
%
%   OldAVL associates Key with Value and NewAVL is OldAVL without Key.
%   Fails if OldAVL lacks Key.

avl_delete(Key, OldAVL, Value, NewAVL) :-
    delete(OldAVL, Key, Value0, NewAVL0, _),
    Value = Value0,
    NewAVL = NewAVL0.

%   delete(+AVL0, +Key, -Value, -AVL, -Shrank): Shrank is true if AVL
%   is lower than AVL0.
delete(node(K, V, B, L, R), Key, Value, AVL, Shrank) :-
    compare(Order, Key, K),
    delete(Order, K, V, B, L, R, Key, Value, AVL, Shrank).

delete(=, _, V, B, L, R, _, V, AVL, Shrank) :-
    (   L == empty
    ->  AVL = R,
        Shrank = true
    ;   R == empty
    ->  AVL = L,
        Shrank = true
    ;   del_max(L, K1, V1, L1, LeftShrank),
        left_shrank(LeftShrank, K1, V1, B, L1, R, AVL, Shrank)
    ).
delete(<, K, V, B, L, R, Key, Value, AVL, Shrank) :-
    delete(L, Key, Value, L1, LeftShrank),
    left_shrank(LeftShrank, K, V, B, L1, R, AVL, Shrank).
delete(>, K, V, B, L, R, Key, Value, AVL, Shrank) :-
    delete(R, Key, Value, R1, RightShrank),
    right_shrank(RightShrank, K, V, B, L, R1, AVL, Shrank).

%!  avl_del_min(+OldAVL, -Key, -Value, -NewAVL) is semidet.
%!  avl_del_max(+OldAVL, -Key, -Value, -NewAVL) is semidet.
%
%   Key is the least (greatest) key of OldAVL, associated with Value,
%   and NewAVL is OldAVL without it.  Fails if OldAVL is empty.

avl_del_min(OldAVL, Key, Value, NewAVL) :-
    del_min(OldAVL, Key0, Value0, NewAVL0, _),
    Key = Key0,
    Value = Value0,
    NewAVL = NewAVL0.

avl_del_max(OldAVL, Key, Value, NewAVL) :-
    del_max(OldAVL, Key0, Value0, NewAVL0, _),
    Key = Key0,
    Value = Value0,
    NewAVL = NewAVL0.

del_min(node(K, V, B, L, R), Key, Value, AVL, Shrank) :-
    (   L == empty
    ->  Key = K,
        Value = V,
        AVL = R,
        Shrank = true
    ;   del_min(L, Key, Value, L1, LeftShrank),
        left_shrank(LeftShrank, K, V, B, L1, R, AVL, Shrank)
    ).

del_max(node(K, V, B, L, R), Key, Value, AVL, Shrank) :-
    (   R == empty
    ->  Key = K,
        Value = V,
        AVL = L,
        Shrank = true
    ;   del_max(R, Key, Value, R1, RightShrank),
        right_shrank(RightShrank, K, V, B, L, R1, AVL, Shrank)
    ).

%   left_shrank(+Shrank, +K, +V, +B, +L, +R, -AVL, -NodeShrank): L
%   replaces a subtree that was higher if Shrank is true.
left_shrank(false, K, V, B, L, R, node(K, V, B, L, R), false).
left_shrank(true, K, V, B, L, R, AVL, Shrank) :-
    B1 is B + 1,
    after_shrinking(B1, K, V, L, R, AVL, Shrank).

right_shrank(false, K, V, B, L, R, node(K, V, B, L, R), false).
right_shrank(true, K, V, B, L, R, AVL, Shrank) :-
    B1 is B - 1,
    after_shrinking(B1, K, V, L, R, AVL, Shrank).

after_shrinking(0, K, V, L, R, node(K, V, 0, L, R), true).
after_shrinking(-1, K, V, L, R, node(K, V, -1, L, R), false).
after_shrinking(1, K, V, L, R, node(K, V, 1, L, R), false).
after_shrinking(-2, K, V, L, R, AVL, Shrank) :-
    rotate(-2, K, V, L, R, AVL, Shrank).
after_shrinking(2, K, V, L, R, AVL, Shrank) :-
    rotate(2, K, V, L, R, AVL, Shrank).

%   rotate(+Balance, +K, +V, +L, +R, -AVL, -Shrank): AVL is the node
%   K-V with subtrees L and R, whose heights differ by two (Balance),
%   rebalanced.  Shrank is true if AVL is lower than that node.
rotate(-2, K, V, node(LK, LV, LB, LL, LR), R, AVL, Shrank) :-
    (   LB =< 0
    ->  KB is -(LB + 1),
        TopB is LB + 1,
        AVL = node(LK, LV, TopB, LL, node(K, V, KB, LR, R)),
        shrank_if(LB =:= -1, Shrank)
    ;   LR = node(MK, MV, MB, ML, MR),
        inner_balances(MB, LeftB, RightB),
        AVL = node(MK, MV, 0, node(LK, LV, LeftB, LL, ML),
                   node(K, V, RightB, MR, R)),
        Shrank = true
    ).
rotate(2, K, V, L, node(RK, RV, RB, RL, RR), AVL, Shrank) :-
    (   RB >= 0
    ->  KB is 1 - RB,
        TopB is RB - 1,
        AVL = node(RK, RV, TopB, node(K, V, KB, L, RL), RR),
        shrank_if(RB =:= 1, Shrank)
    ;   RL = node(MK, MV, MB, ML, MR),
        inner_balances(MB, LeftB, RightB),
        AVL = node(MK, MV, 0, node(K, V, LeftB, L, ML),
                   node(RK, RV, RightB, MR, RR)),
        Shrank = true
    ).

%   The balances of the two nodes that a double rotation puts under the
%   former inner grandchild, whose balance was MB.
inner_balances(-1, 0, 1).
inner_balances(0, 0, 0).
inner_balances(1, -1, 0).

shrank_if(Test, Shrank) :-
    (   call(Test)
    ->  Shrank = true
    ;   Shrank = false
    ).


                 /*******************************
                 *       MAPPING, PRINTING      *
                 *******************************/

%!  avl_map(:Pred, +AVL) is semidet.
%!  avl_map(:Pred, +OldAVL, ?NewAVL) is semidet.
%
%   Pred(Value) holds for every value of AVL, in ascending order of
%   keys; NewAVL has the shape and keys of OldAVL and values New for
%   Pred(Old, New).

avl_map(Pred, AVL) :-
    map_values(AVL, Pred).

map_values(empty, _).
map_values(node(_, V, _, L, R), Pred) :-
    map_values(L, Pred),
    call(Pred, V),
    map_values(R, Pred).

avl_map(Pred, OldAVL, NewAVL) :-
    map_values(OldAVL, NewAVL, Pred).

map_values(empty, empty, _).
map_values(node(K, V0, B, L0, R0), node(K, V, B, L, R), Pred) :-
    map_values(L0, L, Pred),
    call(Pred, V0, V),
    map_values(R0, R, Pred).

%!  portray_avl(+AVL) is det.
%
%   Writes AVL to the current output as AVL{K1->V1,K2->V2,...}, keys
%   and values with print/1.  This cannot be read back.

portray_avl(AVL) :-
    avl_to_list(AVL, Pairs),
    write('AVL{'),
    portray_pairs(Pairs),
    write('}').
