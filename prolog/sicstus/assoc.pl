/*  library(assoc) of SICStus Prolog 4, for solvers run in SWI-Prolog.

    The module exports the predicates SICStus documents for
    library(assoc).  SWI-Prolog's library(assoc) has most of them with
    the same meaning and is re-exported; its trees are AVL trees, `t`
    or t(Key, Value, Balance, Left, Right), where SICStus' are not kept
    balanced, which only shows if a solver looks inside one.  Defined
    here, on SWI's trees, are get_next_assoc/4, get_prev_assoc/4 and
    portray_assoc/1, which SWI lacks.
*/

:- module(sicstus_lib_assoc,
          [ empty_assoc/1, assoc_to_list/2, gen_assoc/3, get_assoc/3,
            get_next_assoc/4, get_prev_assoc/4, is_assoc/1,
            list_to_assoc/2, ord_list_to_assoc/2, map_assoc/2,
            map_assoc/3, max_assoc/3, min_assoc/3, portray_assoc/1,
            put_assoc/4
          ]).

:- set_module(base(system)).

:- use_module(library(assoc),
              [ empty_assoc/1, assoc_to_list/2, gen_assoc/3, get_assoc/3,
                is_assoc/1, list_to_assoc/2, ord_list_to_assoc/2,
                map_assoc/2, map_assoc/3, max_assoc/3, min_assoc/3,
                put_assoc/4
              ]).
:- use_module(search_tree, [tree_neighbour/5, portray_pairs/1]).

%!  empty_assoc(?Assoc) is semidet.
%!  assoc_to_list(+Assoc, -Pairs) is det.
%!  gen_assoc(?Key, +Assoc, ?Value) is nondet.
%!  get_assoc(+Key, +Assoc, -Value) is semidet.
%!  is_assoc(+Assoc) is semidet.
%!  list_to_assoc(+Pairs, -Assoc) is det.
%!  ord_list_to_assoc(+Pairs, -Assoc) is det.
%!  map_assoc(:Pred, +Assoc) is semidet.
%!  map_assoc(:Pred, ?OldAssoc, ?NewAssoc) is semidet.
%!  max_assoc(+Assoc, -Key, -Value) is semidet.
%!  min_assoc(+Assoc, -Key, -Value) is semidet.
%!  put_assoc(+Key, +OldAssoc, +Value, -NewAssoc) is det.
%
%   Re-exported from SWI-Prolog.  As SICStus documents, keys are found
%   only by identical (==) keys, gen_assoc/3 enumerates in ascending
%   order of keys and max_assoc/3 and min_assoc/3 fail on an empty
%   assoc.  Where SICStus leaves the result undefined, SWI raises an
%   error: list_to_assoc/2 with a repeated key, ord_list_to_assoc/2
%   with keys out of order.

%!  get_next_assoc(+Key, +Assoc, -Knext, -Vnext) is semidet.
%!  get_prev_assoc(+Key, +Assoc, -Kprev, -Vprev) is semidet.
%
%   Knext is the least key of Assoc after Key (Kprev the greatest key
%   before Key) in standard order, associated with Vnext (Vprev).  Key
%   need not be in Assoc.  Fails if there is no such key.

get_next_assoc(Key, Assoc, Knext, Vnext) :-
    tree_neighbour(Assoc, Key, next, Knext, Vnext).

get_prev_assoc(Key, Assoc, Kprev, Vprev) :-
    tree_neighbour(Assoc, Key, prev, Kprev, Vprev).

%!  portray_assoc(+Assoc) is det.
%
%   Writes Assoc to the current output as Assoc{K1->V1,K2->V2,...},
%   keys and values with print/1.  This cannot be read back.

portray_assoc(Assoc) :-
    assoc_to_list(Assoc, Pairs),
    write('Assoc{'),
    portray_pairs(Pairs),
    write('}').
