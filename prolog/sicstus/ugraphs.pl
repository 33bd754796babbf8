/*  library(ugraphs) of SICStus Prolog 4, for solvers run in SWI-Prolog.

    A graph is a list of Vertex-Neighbours pairs in ascending order of
    vertices, each Neighbours an ordered set, every neighbour also a
    vertex; an undirected graph has both U-V and V-U.  The module
    exports the predicates SICStus documents for library(ugraphs).
    Those SWI-Prolog's library(ugraphs) has with the same meaning are
    re-exported; defined here are those it lacks:
    transitive_reduction/2, symmetric_closure/2, max_path/5,
    min_path/5, min_paths/3, path/3, reduce/2, random_ugraph/3,
    min_tree/3 and max_cliques/2.
*/

:- module(sicstus_lib_ugraphs,
          [ vertices_edges_to_ugraph/3, vertices/2, edges/2,
            add_vertices/3, del_vertices/3, add_edges/3, del_edges/3,
            transpose_ugraph/2, neighbors/3, neighbours/3, complement/2,
            compose/3, transitive_closure/2, transitive_reduction/2,
            symmetric_closure/2, top_sort/2, max_path/5, min_path/5,
            min_paths/3, path/3, reduce/2, reachable/3, random_ugraph/3,
            min_tree/3, max_cliques/2
          ]).

:- set_module(base(system)).

:- use_module(library(ugraphs),
              [ vertices_edges_to_ugraph/3, vertices/2, edges/2,
                add_vertices/3, del_vertices/3, add_edges/3,
                del_edges/3, transpose_ugraph/2, neighbors/3,
                neighbours/3, complement/2, compose/3,
                transitive_closure/2, top_sort/2, reachable/3
              ]).
:- use_module(library(ordsets),
              [ ord_subtract/3, ord_union/3, ord_union/4,
                ord_intersection/3, ord_del_element/3,
                ord_add_element/3, ord_memberchk/2
              ]).
:- use_module(library(lists), [member/2, reverse/2, append/3]).
:- use_module(library(apply), [maplist/3, foldl/4]).
:- use_module(library(assoc),
              [list_to_assoc/2, get_assoc/3, put_assoc/4, empty_assoc/1]).
:- use_module(library(error), [must_be/2]).

%!  vertices_edges_to_ugraph(+Vertices, +Edges, -Graph) is det.
%!  vertices(+Graph, -Vertices) is det.
%!  edges(+Graph, -Edges) is det.
%!  add_vertices(+Graph1, +Vertices, -Graph2) is det.
%!  del_vertices(+Graph1, +Vertices, -Graph2) is det.
%!  add_edges(+Graph1, +Edges, -Graph2) is det.
%!  del_edges(+Graph1, +Edges, -Graph2) is det.
%!  transpose_ugraph(+Graph, -Transpose) is det.
%!  neighbors(+Vertex, +Graph, -Neighbors) is semidet.
%!  neighbours(+Vertex, +Graph, -Neighbors) is semidet.
%!  complement(+Graph, -Complement) is det.
%!  compose(+G1, +G2, -Composition) is det.
%!  transitive_closure(+Graph, -Closure) is det.
%!  top_sort(+Graph, -Sorted) is semidet.
%!  reachable(+Vertex, +Graph, -Reachable) is det.
%
%   Re-exported from SWI-Prolog, which behaves as SICStus documents.
%   top_sort/2 fails if Graph has a cycle.

%!  symmetric_closure(+Graph, -Closure) is det.
%
%   Closure is Graph with the edge V-U added for every edge U-V.

symmetric_closure(Graph, Closure) :-
    transpose_ugraph(Graph, Transpose),
    maplist(union_neighbours, Graph, Transpose, Closure).

union_neighbours(V-Ns1, V-Ns2, V-Ns) :-
    ord_union(Ns1, Ns2, Ns).

%!  transitive_reduction(+Graph, -Reduction) is det.
%
%   Reduction holds the edges U-V of Graph that do not also join U to V
%   by a path of two or more edges, that is, that are not in the
%   composition of Graph with its transitive closure.

transitive_reduction(Graph, Reduction) :-
    transitive_closure(Graph, Closure),
    compose(Graph, Closure, Longer),
    maplist(direct_edges(Longer), Graph, Reduction).

direct_edges(Longer, U-Ns, U-Direct) :-
    (   neighbors(U, Longer, Indirect)
    ->  ord_subtract(Ns, Indirect, Direct)
    ;   Direct = Ns
    ).

%!  min_path(+V1, +V2, +Graph, -Path, -Length) is semidet.
%
%   Path is a shortest path from V1 to V2, a list of vertices, of
%   Length edges.  Fails if V2 is not reachable from V1.

min_path(V1, V2, Graph, Path, Length) :-
    shortest([[V1]|Queue], Queue, [V1], V2, Graph, Reversed),
    reverse(Reversed, Path),
    length(Path, N),
    Length is N - 1.

%   shortest(+Head, +Tail, +Seen, +Goal, +Graph, -Reversed): breadth
%   first on the queue Head-Tail of reversed paths.
shortest(Head, Tail, Seen, Goal, Graph, Reversed) :-
    Head \== Tail,
    Head = [Path|Head1],
    Path = [V|_],
    (   V == Goal
    ->  Reversed = Path
    ;   neighbors(V, Graph, Ns),
        ord_union(Seen, Ns, Seen1, New),
        enqueue(New, Path, Tail, Tail1),
        shortest(Head1, Tail1, Seen1, Goal, Graph, Reversed)
    ).

enqueue([], _, Tail, Tail).
enqueue([V|Vs], Path, [[V|Path]|Tail0], Tail) :-
    enqueue(Vs, Path, Tail0, Tail).

%!  min_paths(+Vertex, +Graph, -Tree) is det.
%
%   Tree is the tree of the shortest paths from Vertex to every vertex
%   reachable from it, as a graph: each reached vertex with the
%   vertices first reached from it.

min_paths(Vertex, Graph, Tree) :-
    bfs_tree([Vertex], Graph, [Vertex], Pairs),
    keysort(Pairs, Tree).

bfs_tree([], _, _, []).
bfs_tree([V|Queue], Graph, Seen, [V-New|Pairs]) :-
    neighbors(V, Graph, Ns),
    ord_union(Seen, Ns, Seen1, New),
    append(Queue, New, Queue1),
    bfs_tree(Queue1, Graph, Seen1, Pairs).

%!  max_path(+V1, +V2, +Graph, -Path, -Cost) is semidet.
%
%   Path is a longest path from V1 to V2 (a list of vertices) of Cost
%   edges.  Fails if V2 is not reachable from V1, or if a path from V1
%   to V2 can go round a cycle.

max_path(V1, V2, Graph, Path, Cost) :-
    reachable(V1, Graph, From),
    transpose_ugraph(Graph, Transpose),
    reachable(V2, Transpose, To),
    ord_intersection(From, To, Between),
    Between \== [],
    maplist(restrict(Between), Graph, Restricted0),
    exclude_absent(Restricted0, Between, Restricted),
    top_sort(Restricted, Order),
    reverse(Order, Backwards),
    empty_assoc(Longest0),
    foldl(longest_from(Restricted, V2), Backwards, Longest0, Longest),
    get_assoc(V1, Longest, Cost-Path).

restrict(Between, V-Ns, V-Kept) :-
    ord_intersection(Ns, Between, Kept).

exclude_absent([], _, []).
exclude_absent([V-Ns|Pairs], Between, Kept) :-
    (   ord_memberchk(V, Between)
    ->  Kept = [V-Ns|Kept1]
    ;   Kept = Kept1
    ),
    exclude_absent(Pairs, Between, Kept1).

%   Longest maps each vertex that reaches Goal to Cost-Path, a longest
%   path from it to Goal; vertices come after all their successors.
longest_from(Graph, Goal, V, Longest0, Longest) :-
    (   V == Goal
    ->  Best = 0-[V]
    ;   neighbors(V, Graph, Ns),
        foldl(better_via(Longest0), Ns, none, Via),
        Via = Cost0-Path0,
        Cost is Cost0 + 1,
        Best = Cost-[V|Path0]
    ),
    put_assoc(V, Longest0, Best, Longest).

better_via(Longest, N, Best0, Best) :-
    get_assoc(N, Longest, Cost-Path),
    (   Best0 = Cost0-_,
        Cost0 >= Cost
    ->  Best = Best0
    ;   Best = Cost-Path
    ).

%!  path(+Vertex, +Graph, -Path) is nondet.
%
%   Path is a maximal path from Vertex, a list of vertices that goes
%   on as long as it can without visiting a vertex twice; other such
%   paths on backtracking.

path(Vertex, Graph, Path) :-
    extend_path([Vertex], [Vertex], Graph, Path).

extend_path(Reversed, Visited, Graph, Path) :-
    Reversed = [V|_],
    neighbors(V, Graph, Ns),
    ord_subtract(Ns, Visited, Next),
    (   Next == []
    ->  reverse(Reversed, Path)
    ;   member(N, Next),
        ord_add_element(Visited, N, Visited1),
        extend_path([N|Reversed], Visited1, Graph, Path)
    ).

%!  reduce(+Graph, -Reduced) is det.
%
%   Reduced is the graph of the strongly connected components of
%   Graph: its vertices are the components (ordered sets of vertices)
%   and it has an edge C1-C2 between two components if Graph has an
%   edge from a vertex of C1 to a vertex of C2.

reduce(Graph, Reduced) :-
    transpose_ugraph(Graph, Transpose),
    maplist(component(Graph, Transpose), Graph, Pairs),
    list_to_assoc(Pairs, ComponentOf),
    pairs_values_(Pairs, Components0),
    sort(Components0, Components),
    edges(Graph, Edges),
    foldl(component_edge(ComponentOf), Edges, CEdges, []),
    vertices_edges_to_ugraph(Components, CEdges, Reduced).

component(Graph, Transpose, V-_, V-Component) :-
    reachable(V, Graph, From),
    reachable(V, Transpose, To),
    ord_intersection(From, To, Component).

pairs_values_([], []).
pairs_values_([_-V|Pairs], [V|Vs]) :-
    pairs_values_(Pairs, Vs).

component_edge(ComponentOf, U-V, Edges0, Edges) :-
    get_assoc(U, ComponentOf, CU),
    get_assoc(V, ComponentOf, CV),
    (   CU == CV
    ->  Edges0 = Edges
    ;   Edges0 = [CU-CV|Edges]
    ).

%!  random_ugraph(+P, +N, -Graph) is det.
%
%   Graph is a random graph on the vertices 1..N that has each of the
%   N*N possible edges with probability P.

random_ugraph(P, N, Graph) :-
    must_be(between(0.0, 1.0), P),
    must_be(nonneg, N),
    numlist_(1, N, Vertices),
    maplist(random_neighbours(P, Vertices), Vertices, Graph0),
    Graph = Graph0.

random_neighbours(P, Vertices, V, V-Ns) :-
    foldl(maybe_edge(P), Vertices, Ns, []).

maybe_edge(P, V, Ns0, Ns) :-
    (   random_float < P
    ->  Ns0 = [V|Ns]
    ;   Ns0 = Ns
    ).

numlist_(Low, High, []) :-
    Low > High,
    !.
numlist_(Low, High, [Low|Ns]) :-
    Next is Low + 1,
    numlist_(Next, High, Ns).

%!  min_tree(+Graph, -Tree, -Cost) is semidet.
%
%   Tree is a spanning tree of the undirected Graph, as an undirected
%   graph, and Cost its number of edges.  Grown from the first vertex,
%   joining the least vertex next to the tree to its least neighbour
%   in the tree.  Fails if Graph is empty or not connected.

min_tree(Graph, Tree, Cost) :-
    Graph = [Start-Ns|_],
    vertices(Graph, Vertices),
    ord_del_element(Ns, Start, Frontier),
    grow_tree(Frontier, [Start], Graph, Edges, []),
    length(Vertices, N),
    Cost is N - 1,
    length(Edges, Twice),
    Twice =:= 2 * Cost,
    vertices_edges_to_ugraph(Vertices, Edges, Tree).

grow_tree([], _, _, Edges, Edges).
grow_tree([W|Frontier], Reached, Graph, [W-U, U-W|Edges0], Edges) :-
    neighbors(W, Graph, Ns),
    ord_intersection(Ns, Reached, [U|_]),
    ord_add_element(Reached, W, Reached1),
    ord_union(Frontier, Ns, Frontier1),
    ord_subtract(Frontier1, Reached1, Frontier2),
    grow_tree(Frontier2, Reached1, Graph, Edges0, Edges).

%!  max_cliques(+Graph, -Cliques) is det.
%
%   Cliques is the ordered set of the maximal cliques of the undirected
%   Graph, each an ordered set of vertices.

max_cliques([], []) :-
    !.
max_cliques(Graph, Cliques) :-
    maplist(without_loop, Graph, Simple),
    vertices(Simple, Vertices),
    cliques(Vertices, [], [], Simple, Found, []),
    sort(Found, Cliques).

without_loop(V-Ns0, V-Ns) :-
    ord_del_element(Ns0, V, Ns).

%   cliques(+Candidates, +Excluded, +Clique, +Graph, -Found0, -Found):
%   Bron-Kerbosch with a pivot from Candidates.
cliques([], Excluded, Clique, _, Found0, Found) :-
    !,
    (   Excluded == []
    ->  sort(Clique, Sorted),
        Found0 = [Sorted|Found]
    ;   Found0 = Found
    ).
cliques(Candidates, Excluded, Clique, Graph, Found0, Found) :-
    Candidates = [Pivot|_],
    neighbors(Pivot, Graph, PivotNs),
    ord_subtract(Candidates, PivotNs, Branches),
    branch_cliques(Branches, Candidates, Excluded, Clique, Graph,
                   Found0, Found).

branch_cliques([], _, _, _, _, Found, Found).
branch_cliques([V|Vs], Candidates, Excluded, Clique, Graph,
               Found0, Found) :-
    neighbors(V, Graph, Ns),
    ord_intersection(Candidates, Ns, Candidates1),
    ord_intersection(Excluded, Ns, Excluded1),
    cliques(Candidates1, Excluded1, [V|Clique], Graph, Found0, Found1),
    ord_del_element(Candidates, V, Candidates2),
    ord_add_element(Excluded, V, Excluded2),
    branch_cliques(Vs, Candidates2, Excluded2, Clique, Graph,
                   Found1, Found).
