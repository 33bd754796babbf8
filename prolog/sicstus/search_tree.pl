/*  What library(avl) and library(assoc) share: their search trees.

    Both SICStus libraries ask for the nearest key before or after a
    given one (avl_next/4, avl_prev/4, get_next_assoc/4,
    get_prev_assoc/4), and print a tree as Name{K1->V1,...}.  Their
    trees differ only in the shape of a node, node(K,V,Balance,L,R)
    with leaf `empty` for avl and t(K,V,Balance,L,R) with leaf `t` for
    SWI's assoc, so both are written once.
*/

:- module(sicstus_search_tree, [tree_neighbour/5, portray_pairs/1]).

%!  tree_neighbour(+Tree, +Key, +Direction, -K, -V) is semidet.
%
%   K-V is the entry of Tree whose key comes first after Key (Direction
%   `next`) or last before it (`prev`) in the standard order of terms.
%   Key need not be in Tree.  Fails when there is no such entry.

tree_neighbour(Tree, Key, Direction, K, V) :-
    neighbour(Tree, Key, Direction, none, found(K, V)).

neighbour(Tree, Key, Direction, Best0, Best) :-
    (   node(Tree, K, V, L, R)
    ->  (   beyond(Direction, K, Key)
        ->  closer_side(Direction, L, R, Closer),
            neighbour(Closer, Key, Direction, found(K, V), Best)
        ;   farther_side(Direction, L, R, Farther),
            neighbour(Farther, Key, Direction, Best0, Best)
        )
    ;   Best = Best0
    ).

node(node(K, V, _, L, R), K, V, L, R).          % library(avl)
node(t(K, V, _, L, R), K, V, L, R).             % library(assoc)

beyond(next, K, Key) :-
    K @> Key.
beyond(prev, K, Key) :-
    K @< Key.

closer_side(next, L, _, L).
closer_side(prev, _, R, R).

farther_side(next, _, R, R).
farther_side(prev, L, _, L).

%!  portray_pairs(+Pairs) is det.
%
%   Writes K1-V1, K2-V2, ... as K1->V1,K2->V2,..., keys and values with
%   print/1: the inside of portray_avl/1 and portray_assoc/1.

portray_pairs([]).
portray_pairs([K-V|Pairs]) :-
    print(K),
    write(->),
    print(V),
    (   Pairs == []
    ->  true
    ;   write(','),
        portray_pairs(Pairs)
    ).
