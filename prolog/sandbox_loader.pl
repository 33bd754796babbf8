/*  The only project code inside a grading sandbox.

    The grader starts it as

        swipl -q -f none -g sandbox_loader:main -t halt sandbox_loader.pl
              -- SOLVER DIALECT STACK_MB NAME/ARITY

    with the grader's requests on standard input and its replies on
    standard output.  It loads the submission SOLVER once, in Dialect
    (`swi` or `sicstus4`), says whether the predicate NAME/ARITY is there,
    and then, for every request `run(N, Goal, Template).`, forks a child
    from the loaded state that streams every answer of Goal (called in
    the submission's module) back as Template, and ends.  A
    fresh child per test keeps the tests independent while the file is
    loaded only once.

    Nothing here is trusted.  Once the submission is loaded it can
    redefine any of this, print anything to any file descriptor, or end
    the process; the grader therefore measures CPU time, memory and the
    end of every run itself, and checks every byte of these replies:

        up            started: the first reply, before the submission is
                      read (what follows may be the submission's)
        msg TEXT      a message printed while loading, its lines joined
        ready         loaded, and NAME/ARITY is defined
        noload TEXT   the file could not be loaded, or lacks NAME/ARITY
        a TERM        a ground answer, written canonically
        n TERM        an answer that holds variables
        x TEXT        one line of the exception that ended the run
        end           every answer has been given
        done N        the child that ran request N has ended

    What a solver prints goes to standard error, never into the replies.
*/

:- module(sandbox_loader, [main/0]).

:- use_module(library(unix), [fork/1, wait/2]).
:- use_module(library(lists), [member/2, append/3]).
:- use_module(library(apply), [exclude/3]).
:- use_module(sicstus_compat, [prepare_module/1, source_encoding/2]).

%!  main is det.
%
%   Load the submission named on the command line, then answer requests
%   until standard input ends.

main :-
    set_prolog_flag(gc_thread, false),      % fork/1 needs a single thread
    current_prolog_flag(argv, Argv),
    append_args(Argv, [File, DialectText, StackText, PredicateText]),
    term_string(Predicate, PredicateText),
    atom_number(StackText, StackMB),
    StackBytes is StackMB*1024*1024,
    set_prolog_flag(stack_limit, StackBytes),
    atom_string(Dialect, DialectText),
    stream_property(Reply, alias(user_output)),
    set_stream(Reply, buffer(full)),
    format(Reply, "up~n", []),
    flush_output(Reply),
    set_stream(user_error, alias(user_output)),
    set_output(user_error),
    load_submission(File, Dialect, Predicate, Reply, Loaded),
    (   Loaded == true
    ->  serve(Reply)
    ;   true
    ).

append_args(Argv, Args) :-
    (   append(_, ['--'|Args], Argv)
    ->  true
    ;   append(_, Args, Argv)
    ).

%   The submission goes into the module `submission`; its errors and
%   warnings are relayed as `msg` lines and printed as usual.
load_submission(File, Dialect, Predicate, Reply, Loaded) :-
    nb_setval(sandbox_reply, Reply),
    setup_call_cleanup(
        asserta((user:message_hook(Msg, Kind, Lines) :-
                    sandbox_loader:relay_message(Msg, Kind, Lines)), Ref),
        catch(( load_options(Dialect, File, Options),
                load_files(submission:File, [if(true)|Options]),
                Outcome = loaded
              ),
              E,
              Outcome = raised(E)),
        erase(Ref)),
    verdict(Outcome, Predicate, Reply, Loaded),
    flush_output(Reply).

load_options(swi, _, []).
load_options(sicstus4, File, [dialect(sicstus4), encoding(Encoding)]) :-
    prepare_module(submission),
    source_encoding(File, Encoding).

verdict(raised(E), _, Reply, false) :-
    !,
    message_text(E, Text),
    split_lines(Text, Lines),
    atomic_list_concat(Lines, ' ', Joined),
    format(Reply, "noload ~w~n", [Joined]).
verdict(loaded, Predicate, Reply, true) :-
    current_predicate(submission:Predicate),
    !,
    format(Reply, "ready~n", []).
verdict(loaded, Predicate, Reply, false) :-
    format(Reply, "noload the file does not define ~w~n", [Predicate]).

%   One `msg` line per message: its lines joined, so that a warning
%   over two lines stays one, and led by the place being loaded when
%   the message does not name one (a singleton warning does not).
relay_message(Msg, Kind, _) :-
    memberchk(Kind, [error, warning]),
    nb_getval(sandbox_reply, Reply),
    message_text(Msg, Text),
    split_lines(Text, Lines),
    atomic_list_concat(Lines, ' ', Joined),
    normalize_space(atom(One), Joined),
    (   source_location(File, Line),
        \+ sub_atom(One, _, _, _, File)
    ->  format(Reply, "msg ~w: ~w:~w: ~w~n", [Kind, File, Line, One])
    ;   format(Reply, "msg ~w: ~w~n", [Kind, One])
    ),
    fail.

%   The text of a message or an exception, as an atom.  Atoms live
%   outside Prolog's stacks, so a message of many megabytes (which the
%   grader cuts to its budget anyway) cannot overflow them here.
message_text(Msg, Text) :-
    (   catch(translated(Msg, Text), _, fail)
    ->  true
    ;   catch(with_output_to(atom(Text), print(Msg)), _, fail)
    ->  true
    ;   Text = '(a message that could not be printed)'
    ).

translated(Msg, Text) :-
    '$messages':translate_message(Msg, Lines, []),
    with_output_to(atom(Text),
                   print_message_lines(current_output, '', Lines)).

%   The non-empty lines of Text, as atoms.
split_lines(Text, Lines) :-
    atomic_list_concat(Parts, '\n', Text),
    exclude(==(''), Parts, Lines).

%   One request after another until standard input ends.
serve(Reply) :-
    read_term(user_input, Request, []),
    (   Request = run(N, Goal, Template)
    ->  run_test(N, Goal, Template, Reply),
        serve(Reply)
    ;   true
    ).

run_test(N, Goal, Template, Reply) :-
    flush_output(Reply),
    flush_output(user_error),
    fork(Pid),
    (   Pid == child
    ->  child(Goal, Template, Reply)
    ;   wait(Pid, Status),
        format(Reply, "done ~w ~q~n", [N, Status]),
        flush_output(Reply)
    ).

child(Goal, Template, Reply) :-
    open_null_stream(Null),
    set_stream(Null, alias(user_input)),
    catch(( forall(submission:Goal, answer(Reply, Template)),
            format(Reply, "end~n", [])
          ),
          E,
          ( message_text(E, Text),
            split_lines(Text, Lines),
            forall(member(Line, Lines), format(Reply, "x ~w~n", [Line]))
          )),
    flush_output(Reply),
    halt(0).

answer(Reply, Sol) :-
    (   ground(Sol)
    ->  Tag = a
    ;   Tag = n
    ),
    format(Reply, "~w ~k~n", [Tag, Sol]).
