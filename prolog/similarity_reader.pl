/*  Reading hand-ins for the similarity report, without running them.

    The report compares students' files after Prolog has read them, so
    that layout, comments, operator syntax and quoting do not count.  A
    hand-in is untrusted, so this reader runs in a process of its own,
    under limits the caller sets (see plpuzzle's similarity/reading.py),
    and it never runs a clause or a directive of a file:

      - every term is read with read_term/3, with quasi-quotations off
        (so no quasi-quotation parser is called), and nothing read is
        called, expanded or asserted;
      - the only directive that acts is op/3 (also as op/3 in a module
        export list), and it acts on a module made for that one file,
        so a file's operators change how the rest of that file reads,
        as they would when it loads, and nothing else.

    Files are read in the dialect they are graded in: `sicstus4` adds
    the operators of SWI-Prolog's library(dialect/sicstus4) (`do`,
    `block`, ...) and reads double-quoted text as codes; `swi` reads as
    SWI-Prolog does.  library(clpfd)'s operators (`#=`, `ins`, ...) are
    known from the directive that loads the library on (as when the file
    loads: without it, `X ins 1..9` is a syntax error and its clause does
    not exist), or from the start when the request says that another
    file of the hand-in loads it.

    The caller starts

        swipl -q -f none -g similarity_reader:main -t halt
              similarity_reader.pl -- DIALECT SECONDS MAX_TOKENS

    and writes the files on standard input, each as a line
    `file(Id, Chars, Max, Options).` and then exactly Chars characters
    of text, of which at most Max tokens are read (never more than
    MAX_TOKENS; `file(Id, Chars).` reads MAX_TOKENS).  Options is a
    list: `clpfd` in it gives the file clpfd's operators from the start.
    The
    reply on standard output is one line `{"ready":true}` and then one
    JSON line per file, in order:

        {"id": Id, "clauses": [Clause, ...], "errors": [Error, ...],
         "truncated": Bool, "failed": Text or null}

    A Clause is {"from": F, "to": T, "head": [Name, Arity] or null,
    "tokens": [[Kind, Value, From, To], ...]}, with the clause's tokens
    in the order of canonical operator notation: Kind `v` a variable
    (Value: its number in the clause, by first occurrence), `a` an atom
    or a functor's name (Value: the name), `n` a number (Value: its
    text), `q` a string or code list, `p` punctuation (Value: one of
    ( ) [ ] | , { }, with From = To = -1) and `o` a term of another
    kind.  From and To are character offsets in the text.  An Error is
    [From, To, Message, At] for a clause that did not read (a syntax
    error found at character At, where SWI-Prolog's loader reports it):
    the caller reads that stretch of text as tokens.  `failed` names why
    a file could not be read at all (a limit, or an error of the
    reader), and `truncated` says that reading stopped at MAX_TOKENS
    tokens.

        swipl -q -f none -g similarity_reader:vocabulary -t halt
              similarity_reader.pl

    prints, as a JSON list, the names that belong to Prolog and its
    libraries (built-in and library predicates, operators, module
    names), which the caller keeps when it renames a file's own names.
*/

:- module(similarity_reader, [main/0, vocabulary/0, read_text/5]).

:- use_module(library(clpfd), []).
:- use_module(library(http/json), [json_write_dict/3]).
:- use_module(library(time), [call_with_time_limit/2]).
:- use_module(library(lists), [append/3, member/2]).
:- use_module(library(apply), [maplist/2, maplist/3]).

:- dynamic file_module_count/1.
file_module_count(0).

%!  main is det.
%
%   Read the files on standard input, one JSON line each on standard
%   output, until standard input ends.

main :-
    current_prolog_flag(argv, Argv),
    (   append(_, ['--', DialectText, SecondsText, MaxText], Argv)
    ->  true
    ;   append(_, [DialectText, SecondsText, MaxText], Argv)
    ),
    atom_string(Dialect, DialectText),
    atom_number(SecondsText, Seconds),
    atom_number(MaxText, MaxTokens),
    set_prolog_flag(quasi_quotations, false),
    load_dialect_library,
    set_stream(user_input, encoding(utf8)),
    set_stream(user_output, encoding(utf8)),
    set_stream(user_output, buffer(full)),
    reply(_{ready:true}),
    serve(Dialect, Seconds, MaxTokens).

serve(Dialect, Seconds, MaxTokens) :-
    read_term(user_input, Request, []),
    (   file_request(Request, MaxTokens, Id, Chars, Max, Options)
    ->  get_char(user_input, _),            % the newline after the header
        read_string(user_input, Chars, Text),
        read_text(Text, Dialect-Options, Seconds, Max, Reply0),
        Reply = Reply0.put(id, Id),
        reply(Reply),
        serve(Dialect, Seconds, MaxTokens)
    ;   true
    ).

%   A request for one file: its id, its length, the tokens to read and
%   the options.
file_request(file(Id, Chars), MaxTokens, Id, Chars, MaxTokens, []).
file_request(file(Id, Chars, Own), MaxTokens, Id, Chars, Max, []) :-
    integer(Own),
    Max is max(0, min(Own, MaxTokens)).
file_request(file(Id, Chars, Own, Options), MaxTokens, Id, Chars, Max,
             Options) :-
    integer(Own),
    is_list(Options),
    Max is max(0, min(Own, MaxTokens)).

reply(Dict) :-
    json_write_dict(user_output, Dict, [width(0)]),
    nl(user_output),
    flush_output(user_output).

%   SWI-Prolog's library(dialect/sicstus4), for the operators it exports.
%   Loading it also declares them (and `#`) in the module user, where every
%   module would see them: those are taken back, so that a file read in
%   the `swi` dialect sees none of them.
load_dialect_library :-
    findall(op(P, T, N), current_op(P, T, user:N), Before),
    use_module(library(dialect/sicstus4), []),
    forall(( current_op(P, T, user:N),
             \+ memberchk(op(P, T, N), Before)
           ),
           restore_op(T, N, Before)).

restore_op(Type, Name, Before) :-
    (   member(op(P0, T0, Name), Before),
        op_kind(T0, Kind),
        op_kind(Type, Kind)
    ->  op(P0, T0, user:Name)
    ;   op(0, Type, user:Name)
    ).

op_kind(xfx, infix).
op_kind(xfy, infix).
op_kind(yfx, infix).
op_kind(fy, prefix).
op_kind(fx, prefix).
op_kind(xf, postfix).
op_kind(yf, postfix).

%!  read_text(+Text, +Dialect, +Seconds, +MaxTokens, -Reply) is det.
%
%   Reply is the dict described above (without its id) for the source
%   Text, read in Dialect within Seconds of wall-clock time and
%   MaxTokens tokens.  Dialect may be Dialect-Options (see the
%   request).  Never fails and never raises: a limit or an error is a
%   Reply with `failed` set.

read_text(Text, Dialect0, Seconds, MaxTokens, Reply) :-
    (   Dialect0 = Dialect-Options
    ->  true
    ;   Dialect = Dialect0, Options = []
    ),
    fresh_module(Dialect, Options, Module),
    catch(call_with_time_limit(
              Seconds,
              read_all(Text, Module, Dialect, MaxTokens, Clauses, Errors,
                       Truncated)),
          E,
          true),
    (   var(E)
    ->  Reply = _{clauses:Clauses, errors:Errors, truncated:Truncated,
                  failed:null}
    ;   failure_text(E, Why),
        Reply = _{clauses:[], errors:[], truncated:false, failed:Why}
    ).

failure_text(time_limit_exceeded, "the reader's time limit") :- !.
failure_text(error(resource_error(What), _), Text) :- !,
    format(string(Text), "the reader's ~w limit", [What]).
failure_text(E, Text) :-
    catch(message_to_codes(E, Text), _, Text = "an error of the reader").

message_to_codes(E, Text) :-
    message_to_codes(E, [], Codes),
    string_codes(Text, Codes).

message_to_codes(E, _, Codes) :-
    '$messages':translate_message(E, Lines, []),
    with_output_to(codes(Codes),
                   print_message_lines(current_output, '', Lines)).

%   A module of its own for each file: its operators, and only those of
%   the dialect besides the standard ones (and clpfd's when Options says
%   another file of the hand-in loads it).
fresh_module(Dialect, Options, Module) :-
    retract(file_module_count(N0)),
    N is N0 + 1,
    assertz(file_module_count(N)),
    format(atom(Module), 'similarity_file_~d', [N]),
    set_module(Module:class(temporary)),
    (   memberchk(clpfd, Options)
    ->  module_operators(clpfd, Module)
    ;   true
    ),
    (   Dialect == sicstus4
    ->  module_operators(sicstus4, Module)
    ;   true
    ).

module_operators(Library, Module) :-
    (   module_property(Library, exported_operators(Ops))
    ->  forall(member(op(P, T, N), Ops), op(P, T, Module:N))
    ;   true
    ).

double_quotes(sicstus4, codes).
double_quotes(swi, string).


                 /*******************************
                 *            READING           *
                 *******************************/

read_all(Text, Module, Dialect, MaxTokens, Clauses, Errors, Truncated) :-
    double_quotes(Dialect, DQ),
    setup_call_cleanup(
        open_string(Text, In),
        read_terms(In, Module, DQ, MaxTokens, Clauses, Errors, Truncated),
        close(In)).

read_terms(In, Module, DQ, Left, Clauses, Errors, Truncated) :-
    char_offset(In, Before),
    catch(read_term(In, Term,
                    [ module(Module),
                      subterm_positions(Pos),
                      syntax_errors(error),
                      double_quotes(DQ),
                      back_quotes(codes)
                    ]),
          E,
          true),
    char_offset(In, After),
    (   nonvar(E)
    ->  syntax_error_text(E, Message),
        syntax_error_at(E, Before, At),
        Errors = [[Before, After, Message, At]|Errors1],
        read_terms(In, Module, DQ, Left, Clauses, Errors1, Truncated)
    ;   Term == end_of_file
    ->  Clauses = [], Errors = [], Truncated = false
    ;   directive(Term, Module),
        clause_tokens(Term, Pos, Module, Tokens0, Count),
        span(Pos, From, To),
        head(Term, Head),
        Left1 is Left - Count,
        (   Left1 < 0
        ->  length(Tokens, Left),
            append(Tokens, _, Tokens0),
            Clauses = [_{from:From, to:To, head:Head, tokens:Tokens}],
            Errors = [], Truncated = true
        ;   Clauses = [ _{from:From, to:To, head:Head, tokens:Tokens0}
                      | Clauses1
                      ],
            read_terms(In, Module, DQ, Left1, Clauses1, Errors, Truncated)
        )
    ).

char_offset(In, Offset) :-
    stream_property(In, position(P)),
    stream_position_data(char_count, P, Offset).

%   Only a syntax error is the file's: the clause is left to the
%   caller's tokens.  Anything else (a resource error) ends the file.
syntax_error_text(error(syntax_error(Message), _), Text) :-
    !,
    (   atom(Message)
    ->  atom_string(Message, Text)
    ;   format(string(Text), "~q", [Message])
    ).
syntax_error_text(E, _) :-
    throw(E).

%   Where the error was found (the loader's place for it), else where
%   the clause's text begins.
syntax_error_at(error(_, stream(_, _, _, CharNo)), _, CharNo) :-
    integer(CharNo),
    !.
syntax_error_at(_, Before, Before).

%   The operators a directive declares take effect in the file's module.
directive((:- Goal), Module) :-
    !,
    ignore(catch(declare(Goal, Module), _, true)).
directive(_, _).

declare(Goal, _) :-
    var(Goal),
    !.
declare((A, B), Module) :-
    !,
    declare(A, Module),
    declare(B, Module).
declare(op(P, T, Names), Module) :-
    !,
    qualified(Names, Module, Qualified),
    op(P, T, Qualified).
declare(Load, Module) :-
    loads_clpfd(Load, Imports),
    !,
    (   Imports == all
    ->  module_operators(clpfd, Module)
    ;   forall(member(Import, Imports),
               ( nonvar(Import), Import = op(P, T, N)
               ->  ignore(catch(declare(op(P, T, N), Module), _, true))
               ;   true
               ))
    ).
declare(module(_, Exports), Module) :-
    is_list(Exports),
    !,
    forall(member(Export, Exports),
           ( nonvar(Export), Export = op(P, T, N)
           ->  ignore(catch(declare(op(P, T, N), Module), _, true))
           ;   true
           )).
declare(_, _).

%   A directive that loads library(clpfd), and the operators it imports:
%   all, or (an import list) those it names.
loads_clpfd(Load, all) :-
    Load =.. [Name, Library],
    memberchk(Name, [use_module, ensure_loaded, reexport, consult]),
    clpfd_library(Library),
    !.
loads_clpfd(Load, Imports) :-
    Load =.. [Name, Library, Imports0],
    memberchk(Name, [use_module, reexport]),
    clpfd_library(Library),
    !,
    (   is_list(Imports0)
    ->  Imports = Imports0
    ;   Imports = all                       % all, or except(...)
    ).
loads_clpfd(load_files(Library, _), all) :-
    clpfd_library(Library),
    !.
loads_clpfd(Files, all) :-
    is_list(Files),
    member(Library, Files),
    clpfd_library(Library),
    !.

clpfd_library(Library) :-
    nonvar(Library),
    (   Library = library(clpfd)
    ;   is_list(Library),
        member(L, Library),
        L == library(clpfd)
    ),
    !.

qualified(Names, Module, Qualified) :-
    is_list(Names),
    !,
    maplist(qualified_name(Module), Names, Qualified).
qualified(Name, Module, Qualified) :-
    qualified_name(Module, Name, Qualified).

qualified_name(Module, Name, Module:Name) :-
    atom(Name).

%   The predicate a clause defines, as [Name, Arity], or null.
head((:- _), null) :- !.
head((?- _), null) :- !.
head((H :- _), Head) :- !, head_of(H, 0, Head).
head((H --> _), Head) :- !, head_of(H, 2, Head).
head(H, Head) :- head_of(H, 0, Head).

head_of(H, _, null) :- var(H), !.
head_of(_:H, Extra, Head) :- !, head_of(H, Extra, Head).
head_of((H, _), Extra, Head) :- !, head_of(H, Extra, Head).  % pushback
head_of(H, Extra, [Name, Arity]) :-
    compound(H),                            % ler() too: arity 0
    !,
    compound_name_arity(H, Name, Arity0),
    Arity is Arity0 + Extra.
head_of(H, Extra, [H, Extra]) :-
    atom(H),
    !.
head_of(_, _, null).


                 /*******************************
                 *            TOKENS            *
                 *******************************/

%!  clause_tokens(+Term, +Pos, +Module, -Tokens, -Count) is det.
%
%   Tokens are Term's tokens in canonical operator notation, with the
%   source positions of Pos; variables are numbered by first occurrence
%   (an attribute on each variable holds its number).

clause_tokens(Term, Pos, Module, Tokens, Count) :-
    tokens(Term, Pos, Module, Tokens, [], 0, _),
    length(Tokens, Count).

attr_unify_hook(_, _).

tokens(Var, Pos, _, [[v, N, F, T]|Ts], Ts, V0, V) :-
    var(Var),
    !,
    span(Pos, F, T),
    (   get_attr(Var, similarity_reader, N)
    ->  V = V0
    ;   N is V0 + 1,
        put_attr(Var, similarity_reader, N),
        V = N
    ).
tokens(Term, parentheses_term_position(_, _, Inner), M, Ts0, Ts, V0, V) :-
    !,
    tokens(Term, Inner, M, Ts0, Ts, V0, V).
tokens(Term, string_position(F, T), _, [[q, "", F, T]|Ts], Ts, V, V) :-
    !,
    ignore(Term = _).
tokens(Term, brace_term_position(_, _, ArgPos), M,
       [[p, "{", -1, -1]|Ts0], Ts, V0, V) :-
    Term = {Arg},
    !,
    tokens(Arg, ArgPos, M, Ts0, [[p, "}", -1, -1]|Ts], V0, V).
tokens(Term, list_position(_, _, ElemsPos, TailPos), M,
       [[p, "[", -1, -1]|Ts0], Ts, V0, V) :-
    !,
    list_tokens(Term, ElemsPos, TailPos, M, Ts0, Ts, V0, V).
tokens(Term, F-T, _, [[Kind, Value, F, T]|Ts], Ts, V, V) :-
    atomic(Term),
    !,
    atomic_token(Term, Kind, Value).
tokens(Term, term_position(_, _, FF, FT, ArgsPos), M, Ts0, Ts, V0, V) :-
    compound(Term),
    !,
    compound_name_arguments(Term, Name, Args),
    name_text(Name, NameText),
    Functor = [a, NameText, FF, FT],
    compound_tokens(Name, Args, ArgsPos, Functor, M, Ts0, Ts, V0, V).
tokens(_, Pos, _, [[o, "?", F, T]|Ts], Ts, V, V) :-
    span(Pos, F, T).

span(Pos, F, T) :-
    (   nonvar(Pos), Pos =.. [_, F0, T0|_], integer(F0), integer(T0)
    ->  F = F0, T = T0
    ;   F = -1, T = -1
    ).

atomic_token(Term, a, Text) :-
    atom(Term),
    !,
    name_text(Term, Text).
atomic_token([], a, "[]") :- !.
atomic_token(Term, n, Text) :-
    number(Term),
    !,
    format(string(Text), "~w", [Term]).
atomic_token(Term, q, "") :-
    string(Term),
    !.
atomic_token(_, o, "?").

name_text(Name, Text) :-
    (   atom(Name)
    ->  atom_string(Name, Text)
    ;   Name == []
    ->  Text = "[]"
    ;   format(string(Text), "~q", [Name])
    ).

%   A compound: as an operator where the file's module has one of its
%   kind, else in functional notation.
compound_tokens(Name, [A, B], [PA, PB], Functor, M, Ts0, Ts, V0, V) :-
    current_op(_, Type, M:Name),
    infix(Type),
    !,
    tokens(A, PA, M, Ts0, [Functor|Ts1], V0, V1),
    tokens(B, PB, M, Ts1, Ts, V1, V).
compound_tokens(Name, [A], [PA], Functor, M, [Functor|Ts0], Ts, V0, V) :-
    current_op(_, Type, M:Name),
    prefix(Type),
    !,
    tokens(A, PA, M, Ts0, Ts, V0, V).
compound_tokens(Name, [A], [PA], Functor, M, Ts0, Ts, V0, V) :-
    current_op(_, Type, M:Name),
    postfix(Type),
    !,
    tokens(A, PA, M, Ts0, [Functor|Ts], V0, V).
compound_tokens(_, Args, ArgsPos, Functor, M,
                [Functor, [p, "(", -1, -1]|Ts0], Ts, V0, V) :-
    arguments(Args, ArgsPos, M, Ts0, [[p, ")", -1, -1]|Ts], V0, V).

infix(xfx).
infix(xfy).
infix(yfx).
prefix(fy).
prefix(fx).
postfix(xf).
postfix(yf).

arguments([], _, _, Ts, Ts, V, V).
arguments([A|As], Ps, M, Ts0, Ts, V0, V) :-
    first_position(Ps, P, Ps1),
    tokens(A, P, M, Ts0, Ts1, V0, V1),
    (   As == []
    ->  Ts1 = Ts, V = V1
    ;   Ts1 = [[p, ",", -1, -1]|Ts2],
        arguments(As, Ps1, M, Ts2, Ts, V1, V)
    ).

first_position([P|Ps], P, Ps) :- !.
first_position(_, none, []).

%   A list: [ elements , ... | tail ].
list_tokens(List, ElemsPos, TailPos, M, Ts0, Ts, V0, V) :-
    list_elements(List, ElemsPos, Tail, M, Ts0, Ts1, V0, V1),
    (   TailPos == none
    ->  Ts1 = [[p, "]", -1, -1]|Ts], V = V1
    ;   Ts1 = [[p, "|", -1, -1]|Ts2],
        tokens(Tail, TailPos, M, Ts2, [[p, "]", -1, -1]|Ts], V1, V)
    ).

list_elements(List, [P|Ps], Tail, M, Ts0, Ts, V0, V) :-
    nonvar(List),
    List = [E|Es],
    !,
    tokens(E, P, M, Ts0, Ts1, V0, V1),
    (   Ps == []
    ->  Tail = Es, Ts1 = Ts, V = V1
    ;   Ts1 = [[p, ",", -1, -1]|Ts2],
        list_elements(Es, Ps, Tail, M, Ts2, Ts, V1, V)
    ).
list_elements(Tail, _, Tail, _, Ts, Ts, V, V).


                 /*******************************
                 *          VOCABULARY          *
                 *******************************/

:- prolog_load_context(directory, Dir),
   asserta(reader_directory(Dir)).

%!  vocabulary is det.
%
%   Print the names of Prolog's built-in and library predicates, its
%   operators and its library modules (the SICStus libraries of
%   sicstus_compat.pl included), as one JSON list.

vocabulary :-
    load_dialect_library,
    reader_directory(Dir),
    directory_file_path(Dir, sicstus_compat, Compat),
    use_module(Compat),
    forall(member(L, [lists, apply, aggregate, pairs, ordsets, assoc,
                      ugraphs, solution_sequences, yall]),
           use_module(library(L), [])),
    findall(N, vocabulary_name(N), Names0),
    sort(Names0, Names1),
    include_strings(Names1, Names),
    json_write_dict(user_output, Names, [width(0)]),
    nl(user_output).

vocabulary_name(N) :-
    predicate_property(system:H, defined),
    functor(H, N, _),
    \+ sub_atom(N, 0, _, _, '$').
vocabulary_name(N) :-
    '$in_library'(N, _, _).
vocabulary_name(N) :-
    current_module(M),
    module_property(M, class(Class)),
    memberchk(Class, [library, system]),
    (   N = M
    ;   module_property(M, exports(Exports)),
        member(N/_, Exports)
    ).
vocabulary_name(N) :-
    current_module(M),
    sub_atom(M, 0, _, _, sicstus_lib_),
    (   sub_atom(M, 12, _, 0, N)
    ;   module_property(M, exports(Exports)),
        member(N/_, Exports)
    ).
vocabulary_name(N) :-
    current_op(_, _, N).
vocabulary_name(N) :-
    member(M, [clpfd, sicstus4]),
    module_property(M, exported_operators(Ops)),
    member(op(_, _, N), Ops).

include_strings([], []).
include_strings([N|Ns], Out) :-
    (   atom(N)
    ->  atom_string(N, S), Out = [S|Out1]
    ;   Out = Out1
    ),
    include_strings(Ns, Out1).
