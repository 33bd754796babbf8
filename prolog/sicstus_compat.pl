/*  What SWI-Prolog's SICStus 4 emulation lacks for the course's solvers.

    Students wrote sudoku.pl for SICStus Prolog 4.2 and its clpfd
    library.  We load their files in SWI-Prolog's `sicstus4` dialect
    (load_files/2 with dialect(sicstus4)), which maps library(timeout)
    and library(clpfd) (with domain/3) onto SWI.  Against SWI-Prolog
    9.0.4 a 2013 clpfd solver still meets these gaps, which this module
    fills with SICStus semantics:

      - do-loops, `(Iterators do Body)`: SWI declares the operator only;
      - SICStus' library(clpfd) (sicstus/clpfd.pl, below): labeling/2
        with every SICStus option (SWI rejects all, anti_first_fail,
        occurrence, max_regret, median, middle, minimize/1,
        maximize/1, value/1, variable/1, discrepancy/1, assumptions/1,
        time_out/2 and two options of one kind), FD sets in SICStus'
        [[Min|Max],...] form with fd_set/2, in_set/2, fd_dom/2 and the
        fdset_* predicates, in/2 with any ConstantRange, and the
        constraints SWI lacks (all_different/2, all_distinct/2,
        count/4, relation/3, minimum/2, maximum/2, nvalue/2,
        bool_and/2, assignment/2, table/3, ...); delete/4 of
        library(lists);
      - `/` (truncated division) and reifiable constraints used as
        0/1 values inside clpfd arithmetic;
      - double-quoted text, which SICStus reads as a code list;
      - SICStus' libraries lists, sets, ordsets, between, avl, assoc,
        ugraphs, terms, aggregate, samsort, random, system,
        file_systems and clpfd, below.

    How it reaches a solver.  prepare_module/1 puts the module
    sicstus_compat_api first among the import modules of the module a
    solver is loaded into.  That module holds only imports of the
    predicates above, so a solver sees them exactly where SWI finds
    nothing else: its own definitions, and whatever it imports from a
    library, come first, and no import can clash with ours.  The
    expansion hooks live in sicstus_compat_api too, so they apply only
    to prepared modules, never to other code in the process.  They

      - rewrite do-loops into auxiliary predicates and clpfd
        arithmetic as above;
      - send calls of labeling/2 that the solver imports from
        library(clpfd) to ours (a solver that defines its own
        labeling/2 before calling it keeps it);
      - load our module for library(Name) of the libraries below;
      - drop from a solver's explicit import lists our predicates
        (`use_module(library(lists), [delete/4])` would otherwise
        import an undefined predicate) and, for those libraries, what
        their module does not export;
      - turn strings into code lists;
      - prepare the module of a module file that a prepared module
        loads, unless it is part of SWI-Prolog itself.

    Loops and labeling/2 calls that a solver builds at run time (e.g.
    call/N on a loop term) go to do/2 and, through the import module,
    to our labeling/2 (sicstus/clpfd.pl's) unless SWI's library(clpfd)
    was imported.

    SICStus' libraries.  For each library(Name) listed above,
    sicstus/Name.pl (beside this file) holds a module,
    sicstus_lib_Name, that exports exactly the predicates SICStus
    documents for it: SWI's own where they behave the same, its own
    where SWI lacks them or differs.  A solver's use_module/1,2 of
    library(Name) imports from that module, so explicit import lists
    work, its own definitions override (with SWI's usual warning
    about a weak import), and no two libraries clash (SWI's emulation
    of library(terms) exported a term_variables/3 that clashed with
    library(aggregate)'s).  A call Name:Goal reaches that module too:
    compiled into sicstus_lib_Name:Goal where a solver's source has it,
    by a goal_expansion/2 hook in the system module that only acts on
    sicstus4 files, not part of SWI-Prolog, while the module named Name
    is being compiled (which is how SWI expands Name:Goal); and at run
    time, for goals a solver builds, by making sicstus_lib_Name the
    last import module of the module Name (SWI's lists, terms, ...,
    or a new one such as avl).  Knowingly not covered:

      - a goal Name:Goal built at run time gets SWI's predicate where
        SWI's module Name defines Goal itself, and that one differs
        from SICStus' (lists:prefix/2 has its arguments swapped,
        terms:term_size/2 counts memory cells); system:Goal built at
        run time does not reach library(system) at all, since the
        system module cannot have an import module of its own;
      - hash values (term_hash/2,3,4), random numbers and the state of
        getrand/1 are SWI's, not those of SICStus;
      - assoc trees are SWI's AVL trees, and list_to_assoc/2 raises an
        error on a repeated key where SICStus leaves the result
        undefined;
      - environ/2 enumerates the environment the process started
        with (from /proc/self/environ);
      - in the grader's read-only sandbox, file_systems predicates that
        create, rename or delete files raise permission errors.

    source_encoding/2 tells the loader whether a file is UTF-8 or, as
    the course's Hungarian comments often are, Latin-1.

    Of library(clpfd), knowingly not covered: the predicates that
    sicstus/documented.pl lists (user-defined global constraints,
    fd_statistics/0,2, cumulatives/2,3, geost/2,3,4, keysorting/2,3,
    case/3,4, automaton/9, ...), which the grader reports as not
    emulated; constraint options that change the meaning (cost/2,
    wrap/4, margin/3, ...), which raise a domain error; and clpfd:Goal
    built at run time, which gets SWI's predicate where SWI's clpfd
    has one (fd_dom/2 then gives 1..2\/4, not 1..2\/{4}).  Its module
    also re-exports the rest of SWI's clpfd (label/1, ins/2,
    transpose/2, ...), as SWI's own emulation does, and propagation
    strength and fd_degree/2 are SWI's.
*/

:- module(sicstus_compat,
          [ prepare_module/1,          % +Module
            source_encoding/2,         % +File, -Encoding
            delete/4,                  % +List, +Kill, +Count, -Residue
            all_different/2,           % +Vars, +Options
            all_distinct/2,            % +Vars, +Options
            count/4,                   % +Value, +Vars, +RelOp, ?Count
            relation/3,                % ?X, +MapList, ?Y
            minimum/2,                 % ?Value, +Vars
            maximum/2,                 % ?Value, +Vars
            labeling/2,                % +Options, +Vars
            do/2                       % +Iterators, :Body
          ]).

:- use_module(library(clpfd), except([labeling/2])).
:- use_module(library(apply),
              [maplist/2, maplist/3, foldl/4, include/3]).
:- use_module(library(lists), [append/3, reverse/2, nth1/3, numlist/3]).
:- use_module(library(occurs), [sub_term/2]).
:- use_module(library(error),
              [ must_be/2, domain_error/2, instantiation_error/1,
                type_error/2
              ]).
:- use_module(library(readutil), [read_file_to_codes/3]).
%   library(yall), which a lambda `[X]>>Goal` in a solver's maplist makes
%   SWI use, declares its imports as autoloaded: resolved in the middle
%   of a SICStus file, library(lists) would be SICStus' own, which has no
%   append/3 (a built-in there), and a warning would name yall.pl.  They
%   are resolved now, as plain SWI-Prolog.
:- use_module(library(yall), []).
:- yall:use_module(library(lists), [append/3]).
:- yall:use_module(library(error),
                   [instantiation_error/1, must_be/2, domain_error/2,
                    type_error/2]).

%   SICStus' libraries: the file of library(Name) is sicstus/Name.pl,
%   its module sicstus_lib_Name.
:- use_module(sicstus/lists, [delete/4]).
:- use_module(sicstus/sets, []).
:- use_module(sicstus/ordsets, []).
:- use_module(sicstus/between, []).
:- use_module(sicstus/avl, []).
:- use_module(sicstus/assoc, []).
:- use_module(sicstus/ugraphs, []).
:- use_module(sicstus/terms, []).
:- use_module(sicstus/aggregate, []).
:- use_module(sicstus/samsort, []).
:- use_module(sicstus/random, []).
:- use_module(sicstus/system, []).
:- use_module(sicstus/file_systems, []).
:- use_module(sicstus/clpfd,
              [ all_different/2, all_distinct/2, count/4, relation/3,
                minimum/2, maximum/2, labeling/2
              ]).

:- meta_predicate do(+, 0).

%   The SICStus predicates a prepared module sees.
sicstus_predicate(delete/4).
sicstus_predicate(all_different/2).
sicstus_predicate(all_distinct/2).
sicstus_predicate(count/4).
sicstus_predicate(relation/3).
sicstus_predicate(minimum/2).
sicstus_predicate(maximum/2).
sicstus_predicate(labeling/2).
sicstus_predicate(do/2).


                 /*******************************
                 *          SETTING UP          *
                 *******************************/

%!  prepare_module(+Module) is det.
%
%   Make Module see the SICStus predicates of this module and apply
%   its expansions to code loaded into Module.  Call it before
%   loading a solver into Module with dialect(sicstus4).

prepare_module(Module) :-
    must_be(atom, Module),
    add_import_module(Module, sicstus_compat_api, start).

:- forall(sicstus_predicate(PI),
          sicstus_compat_api:import(sicstus_compat:PI)).

%!  source_encoding(+File, -Encoding) is det.
%
%   Encoding is `utf8` if File is valid UTF-8 (as every ASCII file
%   is), otherwise `iso_latin_1`, the 8-bit encoding SICStus users
%   wrote Hungarian comments in.

source_encoding(File, Encoding) :-
    read_file_to_codes(File, Bytes, [encoding(octet)]),
    (   utf8_bytes(Bytes)
    ->  Encoding = utf8
    ;   Encoding = iso_latin_1
    ).

utf8_bytes([]).
utf8_bytes([B|Bs]) :-
    (   B < 0x80
    ->  Rest = Bs
    ;   B >= 0xC2, B =< 0xDF
    ->  utf8_tail(1, Bs, Rest)
    ;   B >= 0xE0, B =< 0xEF
    ->  utf8_tail(2, Bs, Rest)
    ;   B >= 0xF0, B =< 0xF4
    ->  utf8_tail(3, Bs, Rest)
    ),
    utf8_bytes(Rest).

utf8_tail(0, Bs, Bs) :- !.
utf8_tail(N, [B|Bs], Rest) :-
    B >= 0x80, B =< 0xBF,
    N1 is N - 1,
    utf8_tail(N1, Bs, Rest).


                 /*******************************
                 *      SICSTUS LIBRARIES       *
                 *******************************/

%   sicstus_library(?Name, ?Module): SICStus' library(Name) is the
%   module Module, which exports exactly its documented predicates.
sicstus_library(lists, sicstus_lib_lists).
sicstus_library(sets, sicstus_lib_sets).
sicstus_library(ordsets, sicstus_lib_ordsets).
sicstus_library(between, sicstus_lib_between).
sicstus_library(avl, sicstus_lib_avl).
sicstus_library(assoc, sicstus_lib_assoc).
sicstus_library(ugraphs, sicstus_lib_ugraphs).
sicstus_library(terms, sicstus_lib_terms).
sicstus_library(aggregate, sicstus_lib_aggregate).
sicstus_library(samsort, sicstus_lib_samsort).
sicstus_library(random, sicstus_lib_random).
sicstus_library(system, sicstus_lib_system).
sicstus_library(file_systems, sicstus_lib_file_systems).
sicstus_library(clpfd, sicstus_lib_clpfd).

%   A call Name:Goal qualified with a library's name must reach its
%   module, by two means.  At run time, the module Name (SWI's own,
%   e.g. lists, or a new one, e.g. avl) has the library's module as
%   its last import module, so Name:Goal finds Goal there if Name
%   itself lacks it.  The system module cannot have one without every
%   module seeing it, so system:Goal is left out.
:- forall(( sicstus_library(Name, Module),
            Name \== system
          ),
          add_import_module(Name, Module, end)).

%   At compile time, Name:Goal in a SICStus solver becomes Module:Goal
%   if Module exports Goal; this also covers SWI modules that define
%   Goal otherwise (lists:prefix/2, terms:term_size/2) and system.
%   Expanding Name:Goal, SWI calls the goal_expansion/2 hooks of
%   Name's import modules, system among them, with Name as the module
%   being compiled; the hook applies only to sicstus4 code that is not
%   part of SWI-Prolog.

library_goal(Goal, Module) :-
    prolog_load_context(module, Name),
    sicstus_library(Name, Module),
    prolog_load_context(dialect, sicstus4),
    \+ system_source,
    callable(Goal),
    functor(Goal, F, A),
    library_exports(Module, F/A).

library_exports(Module, PI) :-
    module_property(Module, exports(PIs)),
    memberchk(PI, PIs).

%   Installed once library_goal/2 exists: it runs for the rest of this
%   file too.
:- multifile system:goal_expansion/2.

system:goal_expansion(Goal, Module:Goal) :-
    sicstus_compat:library_goal(Goal, Module).

%   library_file(+Spec, -File): Spec is library(Name) of one of the
%   libraries above, and File the file of its module.
library_file(library(Name), File) :-
    atom(Name),
    sicstus_library(Name, Module),
    module_property(Module, file(File)).


                 /*******************************
                 *          EXPANSIONS          *
                 *******************************/

%   Only modules prepared by prepare_module/1 (and the modules they
%   load) have sicstus_compat_api among their import modules, so these
%   hooks see no other code.

sicstus_compat_api:term_expansion(Term0, Term) :-
    sicstus_compat:expand_term_(Term0, Term).
sicstus_compat_api:goal_expansion(Goal0, Goal) :-
    sicstus_compat:expand_goal_(Goal0, Goal).

expand_term_(Term, _) :-
    var(Term), !, fail.
expand_term_((:- module(Name, Public)),
             [ (:- module(Name, Public)),
               (:- sicstus_compat:prepare_module(Name))
             ]) :-
    !,
    \+ system_source.
expand_term_((:- Directive0), (:- Directive)) :-
    import_directive(Directive0, Directive),
    !.
expand_term_(Term0, Term) :-
    Term0 \== begin_of_file,
    Term0 \== end_of_file,
    sub_term(S, Term0), string(S), !,
    strings_to_codes(Term0, Term).

%   True while loading a file of SWI-Prolog itself, e.g. a library
%   that a solver loads, or of plpuzzle (this file's folder): both are
%   SWI code, whoever loads them.
system_source :-
    prolog_load_context(source, File),
    (   current_prolog_flag(home, Home)
    ;   module_property(sicstus_compat, file(Own)),
        file_directory_name(Own, Home)
    ),
    atom_concat(Home, '/', Prefix),
    sub_atom(File, 0, _, _, Prefix),
    !.

%   Rewrite use_module/1,2, ensure_loaded/1 and load_files/2
%   directives, also inside a conjunction; fail if nothing changes.
%   They load our modules for SICStus' libraries, and import lists
%   lose our predicates (found through sicstus_compat_api) and, for
%   those libraries, what their module does not export (in SICStus
%   often a built-in, such as append/3 of library(lists)).
import_directive(Directive0, Directive) :-
    import_directive_(Directive0, Directive),
    Directive0 \== Directive.

import_directive_(D, D) :-
    var(D), !.
import_directive_((A0, B0), (A, B)) :-
    !,
    import_directive_(A0, A),
    import_directive_(B0, B).
import_directive_(use_module(Spec0), use_module(Spec)) :-
    !,
    library_specs(Spec0, Spec).
import_directive_(use_module(Spec0, Imports0), use_module(Spec, Imports)) :-
    !,
    library_specs(Spec0, Spec),
    import_list(Spec0, Imports0, Imports).
import_directive_(ensure_loaded(Spec0), ensure_loaded(Spec)) :-
    !,
    library_specs(Spec0, Spec).
import_directive_(load_files(Spec0, Options), load_files(Spec, Options)) :-
    !,
    library_specs(Spec0, Spec).
import_directive_(D, D).

library_specs(Spec0, Spec) :-
    (   is_list(Spec0)
    ->  maplist(library_spec, Spec0, Spec)
    ;   library_spec(Spec0, Spec)
    ).

library_spec(Spec0, Spec) :-
    (   nonvar(Spec0),
        library_file(Spec0, File)
    ->  Spec = File
    ;   Spec = Spec0
    ).

import_list(Spec, Imports0, Imports) :-
    (   is_list(Imports0)
    ->  exclude_ours(Imports0, Imports1),
        (   nonvar(Spec),
            Spec = library(Name),
            atom(Name),
            sicstus_library(Name, Module)
        ->  include(library_exports(Module), Imports1, Imports)
        ;   Imports = Imports1
        )
    ;   Imports = Imports0
    ).

exclude_ours([], []).
exclude_ours([PI|PIs0], PIs) :-
    (   nonvar(PI), sicstus_predicate(PI)
    ->  PIs = PIs1
    ;   PIs = [PI|PIs1]
    ),
    exclude_ours(PIs0, PIs1).

strings_to_codes(S, Codes) :-
    string(S), !,
    string_codes(S, Codes).
strings_to_codes(T0, T) :-
    compound(T0), !,
    compound_name_arguments(T0, Name, Args0),
    maplist(strings_to_codes, Args0, Args),
    compound_name_arguments(T, Name, Args).
strings_to_codes(T, T).

expand_goal_(Goal, _) :-
    var(Goal), !, fail.
expand_goal_(do(Iterators, Body), Goal) :-
    !,
    compile_loop(Iterators, Body, Goal).
expand_goal_(labeling(Options, Vars),
             sicstus_lib_clpfd:labeling(Module:Options, Vars)) :-
    !,
    prolog_load_context(module, Module),
    predicate_property(Module:labeling(_, _), imported_from(From)),
    memberchk(From, [clpfd, sicstus4_clpfd]).
expand_goal_(Goal0, Goal) :-
    fd_constraint(Goal0),
    fd_body(Goal0, Goal1, Defs, []),
    Goal1-Defs \== Goal0-[],
    list_conj(Defs, Goal1, Goal).

list_conj([], G, G).
list_conj([D|Ds], G, (D, C)) :-
    list_conj(Ds, G, C).


                 /*******************************
                 *       CLPFD ARITHMETIC       *
                 *******************************/

%   SICStus reads X/Y in clpfd arithmetic as truncated division (SWI
%   wants X//Y) and a reifiable constraint there as its truth value,
%   0 or 1 (SWI needs B #<==> C).  fd_body//1 rewrites a constraint
%   that way; the list collects the B #<==> C definitions it needs.

fd_constraint(G) :- fd_relation(G), !.
fd_constraint(G) :- fd_connective(G).

fd_relation(_ #= _).
fd_relation(_ #\= _).
fd_relation(_ #< _).
fd_relation(_ #> _).
fd_relation(_ #=< _).
fd_relation(_ #>= _).

fd_connective(#\ _).
fd_connective(_ #<==> _).
fd_connective(_ #==> _).
fd_connective(_ #<== _).
fd_connective(_ #/\ _).
fd_connective(_ #\/ _).
fd_connective(_ #\ _).
fd_connective(C) :-
    compound(C),
    compound_name_arity(C, Name, 2),
    memberchk(Name, [#<=>, #=>, #<=]).

fd_body(C0, C0) --> { var(C0) }, !.
fd_body(C0, C) -->
    { fd_relation(C0), !,
      C0 =.. [Rel, A0, B0]
    },
    fd_expr(A0, A),
    fd_expr(B0, B),
    { C =.. [Rel, A, B] }.
fd_body(C0, C) -->
    { fd_connective(C0), !,
      C0 =.. [Op|Args0]
    },
    fd_bodies(Args0, Args),
    { C =.. [Op|Args] }.
fd_body(C, C) --> [].

fd_bodies([], []) --> [].
fd_bodies([A0|As0], [A|As]) -->
    fd_body(A0, A),
    fd_bodies(As0, As).

fd_expr(E, E) --> { var(E) }, !.
fd_expr(A0/B0, A//B) --> !,
    fd_expr(A0, A),
    fd_expr(B0, B).
fd_expr(C0, B) -->
    { fd_constraint(C0) }, !,
    fd_body(C0, C),
    [B #<==> C].
fd_expr(E0, E) -->
    { compound(E0),
      compound_name_arity(E0, Name, Arity),
      fd_function(Name, Arity), !,
      compound_name_arguments(E0, Name, Args0)
    },
    fd_exprs(Args0, Args),
    { compound_name_arguments(E, Name, Args) }.
fd_expr(E, E) --> [].

fd_exprs([], []) --> [].
fd_exprs([A0|As0], [A|As]) -->
    fd_expr(A0, A),
    fd_exprs(As0, As).

fd_function(-, 1).
fd_function(abs, 1).
fd_function(Name, 2) :-
    memberchk(Name, [+, -, *, //, div, mod, rem, min, max, ^]).


                 /*******************************
                 *           DO-LOOPS           *
                 *******************************/

%   SICStus defines (Iterators do Body) as `Pre, aux(Call)` with
%
%       aux(Base) :- !.
%       aux(Head) :- BodyPre, Body, aux(Rec).
%
%   where each iterator contributes goals to Pre and BodyPre and
%   arguments to Call, Base, Head and Rec.  Variables of Body that
%   are neither iterator variables nor declared with param/1 are
%   local to each iteration.

%   Expand a loop at compile time into an auxiliary predicate of the
%   module being loaded; fail (leaving the loop to do/2) if the
%   iterators are not known yet.
compile_loop(Iterators, Body, Goal) :-
    catch(loop_parts(Iterators, Parts), _, fail),
    Parts = loop(Pre, Call, Base, Head, BodyPre, Rec),
    length(Call, Arity),
    expand_goal((BodyPre, Body), Body1),
    % The compiler's variables carry attributes.
    copy_term_nat(Base-Head-Body1-Rec, Clause),
    variant_sha1(Clause, Hash),
    atom_concat('__aux_sicstus_do_', Hash, Name),
    AuxCall =.. [Name|Call],
    prolog_load_context(module, Module),
    (   current_predicate(Module:Name/Arity)
    ->  true
    ;   Clause = Base1-Head1-Body2-Rec1,
        BaseHead =.. [Name|Base1],
        RecHead =.. [Name|Head1],
        RecCall =.. [Name|Rec1],
        compile_aux_clauses([ (BaseHead :- !),
                              (RecHead :- Body2, RecCall)
                            ])
    ),
    (   Pre == true
    ->  Goal = AuxCall
    ;   Goal = (Pre, AuxCall)
    ).

%!  do(+Iterators, :Body) is nondet.
%
%   SICStus' do-loop, `(Iterators do Body)`, for loops that are only
%   built at run time.  Loops written in a prepared module's source
%   are compiled instead, into the same clauses.  Iterators are
%   fromto/4, foreach/2, foreacharg/2,3, count/3, for/3 and param/1,
%   joined with commas.

do(Iterators, Body) :-
    loop_parts(Iterators, loop(Pre, Call, Base, Head, BodyPre, Rec)),
    call(Pre),
    run_loop(Call, Base, Head, (BodyPre, Body), Rec).

%   Each iteration runs a fresh copy of the loop, as a clause would.
%   The copies lose attributes: the variables they share with the
%   context are joined back through the arguments, as in aux/N.
run_loop(Args, Base, _, _, _) :-
    copy_term_nat(Base, Args),
    !.
run_loop(Args, Base, Head, Body, Rec) :-
    copy_term_nat(Head-Body-Rec, Args-Body1-Rec1),
    call(Body1),
    run_loop(Rec1, Base, Head, Body, Rec).

loop_parts(Iterators, _) :-
    var(Iterators), !,
    instantiation_error(Iterators).
loop_parts((I1, I2), loop(Pre, Call, Base, Head, BodyPre, Rec)) :-
    !,
    loop_parts(I1, loop(Pre1, Call1, Base1, Head1, BodyPre1, Rec1)),
    loop_parts(I2, loop(Pre2, Call2, Base2, Head2, BodyPre2, Rec2)),
    conj(Pre1, Pre2, Pre),
    append(Call1, Call2, Call),
    append(Base1, Base2, Base),
    append(Head1, Head2, Head),
    conj(BodyPre1, BodyPre2, BodyPre),
    append(Rec1, Rec2, Rec).
loop_parts(Iterator, Parts) :-
    iterator(Iterator, Parts),
    !.
loop_parts(Iterator, _) :-
    domain_error(iterator, Iterator).

%   iterator(+Iterator, -loop(Pre, Call, Base, Head, BodyPre, Rec))
iterator(fromto(First, In, Out, Last),
         loop(true, [First, Last], [L, L], [In, L1], true, [Out, L1])).
iterator(foreach(X, List),
         loop(true, [List], [[]], [[X|Xs]], true, [Xs])).
iterator(foreacharg(X, Struct),
         loop(( functor(Struct, _, N), Past is N + 1 ),
              [Struct, 1, Past], [_, P, P], [S, I, P1],
              ( arg(I, S, X), I1 is I + 1 ), [S, I1, P1])).
iterator(foreacharg(X, Struct, I),
         loop(( functor(Struct, _, N), Past is N + 1 ),
              [Struct, 1, Past], [_, P, P], [S, I, P1],
              ( arg(I, S, X), I1 is I + 1 ), [S, I1, P1])).
iterator(count(I, MinExpr, Max),
         loop(Before is integer(MinExpr) - 1,
              [Before, Max], [L, L], [I0, L1], I is I0 + 1, [I, L1])).
iterator(for(I, MinExpr, MaxExpr),
         loop(( Min is integer(MinExpr),
                Max is integer(MaxExpr),
                Past is max(Min, Max + 1)
              ),
              [Min, Past], [L, L], [I, L1], I1 is I + 1, [I1, L1])).
iterator(param(X),
         loop(true, [X], [_], [X], true, [X])).

conj(true, G, G) :- !.
conj(G, true, G) :- !.
conj(G1, G2, (G1, G2)).
