/*  The Python side's entry points into Prolog.

    Python (through pyswip) loads each solver into a module of its own with
    load_solver/4 and then runs a goal with collect_answers/9, which gathers
    every answer on backtracking under a limit of CPU time (with a
    wall-clock backstop, as grading counts) and hands them back as one
    string: converting one string is far cheaper than converting
    thousands of nested lists term by term.
*/

:- module(plpuzzle_bridge,
          [load_solver/4, collect_answers/9]).

:- use_module(library(time)).
:- use_module(library(apply)).
:- use_module(library(lists)).
:- use_module(sicstus_compat, [prepare_module/1, source_encoding/2]).

:- dynamic load_message/2.

%   A solver that calls halt/0,1 would end the whole worker process, and
%   SWI-Prolog's halt can hang while it tears down its threads.  In the
%   modules solvers are loaded into, halt is therefore compiled into an
%   exception that collect_answers/9 reports as `halted`.  A halt this
%   cannot see (through call/1) ends the worker at once: the worker adds
%   an at_halt/1 hook that exits without SWI-Prolog's clean-up.

:- multifile user:goal_expansion/2.
:- dynamic user:goal_expansion/2.

user:goal_expansion(halt, plpuzzle_bridge:solver_halted(0)) :-
    in_solver_module.
user:goal_expansion(halt(Status), plpuzzle_bridge:solver_halted(Status)) :-
    in_solver_module.

in_solver_module :-
    prolog_load_context(module, Module),
    sub_atom(Module, 0, _, _, plpuzzle_solver_).

solver_halted(Status) :-
    throw(plpuzzle_halted(Status)).

%!  load_solver(+File, +Module, +Dialect, -Problems) is det.
%
%   Load File into Module, emulating Dialect (`swi` or `sicstus4`).
%   Problems is a string with the errors and warnings raised while
%   loading ("" when there were none), one record per message, records
%   apart by the character 0x1e: kind, place (File:Line:Col, File:Line
%   or File) and text, apart by 0x1f.  They are not printed: the caller
%   reports each once, at its place.  An exception while loading is
%   reported there too instead of being raised.

load_solver(File, Module, Dialect, Problems) :-
    retractall(load_message(_, _)),
    setup_call_cleanup(
        asserta((user:message_hook(Msg, Kind, Lines) :-
                    plpuzzle_bridge:note_message(File, Msg, Kind, Lines)),
                Ref),
        catch(( dialect_options(Dialect, File, Module, Options),
                load_files(Module:File, [if(true)|Options])
              ), E,
              ignore(note_message(File, E, error, []))),
        erase(Ref)),
    findall(Text, load_message(_, Text), Texts),
    atomic_list_concat(Texts, '\x1e\', Atom),
    atom_string(Atom, Problems).

%   The load options for Dialect.  SICStus code also gets what SWI's
%   emulation lacks (sicstus_compat.pl) and is read as Latin-1 unless
%   it is valid UTF-8.
dialect_options(swi, _, _, []).
dialect_options(sicstus4, File, Module,
                [dialect(sicstus4), encoding(Encoding)]) :-
    prepare_module(Module),
    source_encoding(File, Encoding).

%   Record an error or warning with its place, instead of printing it.
note_message(File, Msg, Kind, Lines) :-
    memberchk(Kind, [error, warning]),
    (   Lines == []
    ->  message_text(Msg, Kind, Codes)
    ;   lines_codes(Lines, Codes)
    ),
    message_place(File, Msg, Place),
    format(string(Text), "~w\x1f\~w\x1f\~s", [Kind, Place, Codes]),
    assertz(load_message(Kind, Text)).

%   Where a message is about: a syntax error knows its line and column;
%   other messages while loading know the line of the clause being read.
message_place(_, error(_, file(F, Line, Col, _)), Place) :-
    integer(Line), !,
    format(atom(Place), "~w:~d:~d", [F, Line, Col]).
message_place(_, _, Place) :-
    source_location(F, Line), !,
    format(atom(Place), "~w:~d", [F, Line]).
message_place(File, _, File).

message_text(Msg, Kind, Codes) :-
    '$messages':translate_message(Msg, Lines, []),
    lines_codes(Lines, Codes0),
    (   Codes0 == []
    ->  format(codes(Codes), "~q (~w)", [Msg, Kind])
    ;   Codes = Codes0
    ).

lines_codes(Lines, Codes) :-
    with_output_to(codes(Codes),
                   print_message_lines(current_output, '', Lines)).

%!  collect_answers(:Goal, +Template, +CpuLimit, +WallLimit, +Progress,
%!                  -Answers, -Status, -Cpu, -Message) is det.
%
%   Find every answer of Goal within CpuLimit seconds of CPU time, and
%   WallLimit seconds of wall-clock time (a backstop for a goal that
%   waits).  Answers is a string with one line per answer: `g ` or `n `
%   (ground or not) and the Template written with write_canonical/1.
%   Status is `ok`, `time_limit`, `halted` (the solver called halt) or
%   `error`, Cpu the CPU seconds used, and Message the reason ("" with
%   `ok`; `cpu` or `wall` with `time_limit`: which limit stopped it).
%   Only `ok` has answers.  Progress is '' or a file into which the
%   number of answers found so far is written, at most four times a
%   second, for a display to read while the search runs.

collect_answers(Goal, Template, CpuLimit, WallLimit, Progress, Answers,
                Status, Cpu, Message) :-
    statistics(cputime, T0),
    progress_start(Progress),
    catch(( call_with_cpu_limit(CpuLimit, WallLimit,
                findall(Template, (Goal, progress_step(Progress)), Found)),
            Outcome = ok
          ),
          E,
          Outcome = caught(E)),
    statistics(cputime, T1),
    Cpu is T1 - T0,
    outcome(Outcome, Found, Answers, Status, Message).

%   Goal within Cpu seconds of this thread's CPU time, looked at by an
%   alarm every twentieth of a second, and within Wall seconds of wall
%   clock; past either it throws time_limit_exceeded(cpu or wall).
call_with_cpu_limit(Cpu, Wall, Goal) :-
    statistics(cputime, T0),
    Deadline is T0 + Cpu,
    setup_call_cleanup(
        ( alarm(0.05, plpuzzle_bridge:cpu_watch(Deadline), Id,
                [remove(false)]),
          nb_setval(plpuzzle_cpu_alarm, Id) ),
        catch(call_with_time_limit(Wall, Goal), time_limit_exceeded,
              throw(time_limit_exceeded(wall))),
        remove_alarm(Id)).

cpu_watch(Deadline) :-
    statistics(cputime, T),
    (   T >= Deadline
    ->  throw(time_limit_exceeded(cpu))
    ;   nb_getval(plpuzzle_cpu_alarm, Id),
        uninstall_alarm(Id),
        install_alarm(Id, 0.05)
    ).

%   The answer count, kept in a global variable (backtracking does not
%   undo it) and written out when a quarter second has passed.
progress_start('') :- !.
progress_start(File) :-
    get_time(Now),
    nb_setval(plpuzzle_progress, progress(0, Now)),
    progress_write(File, 0).

progress_step('') :- !.
progress_step(File) :-
    nb_getval(plpuzzle_progress, progress(N0, Last)),
    N is N0 + 1,
    get_time(Now),
    (   Now - Last >= 0.25
    ->  progress_write(File, N),
        nb_setval(plpuzzle_progress, progress(N, Now))
    ;   nb_setval(plpuzzle_progress, progress(N, Last))
    ).

%   Written to a side file and renamed, so that a reader never sees the
%   file empty or half written.
progress_write(File, N) :-
    atom_concat(File, '.new', Side),
    catch(( setup_call_cleanup(open(Side, write, S),
                               format(S, "~d~n", [N]),
                               close(S)),
            rename_file(Side, File)
          ),
          _, true).

outcome(ok, Found, Answers, ok, "") :-
    maplist(answer_line, Found, Lines),
    atomic_list_concat(Lines, '\n', Atom),
    atom_string(Atom, Answers).
outcome(caught(time_limit_exceeded(Clock)), _, "", time_limit, Clock) :- !.
outcome(caught(plpuzzle_halted(S)), _, "", halted, Message) :- !,
    format(string(Message), "the solver called halt(~w)", [S]).
outcome(caught(E), _, "", error, Message) :-
    message_text(E, error, Codes),
    string_codes(Message, Codes).

answer_line(Answer, Line) :-
    (   ground(Answer) -> Tag = g ; Tag = n ),
    format(atom(Line), "~w ~k", [Tag, Answer]).
