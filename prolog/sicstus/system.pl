/*  library(system) of SICStus Prolog 4, for solvers run in SWI-Prolog.

    The module exports the predicates SICStus documents for
    library(system), all defined here over SWI-Prolog's built-ins:
    SWI's SICStus 4 emulation rounds times (now/1 may give the next
    second) and gives a float for datime(-When, +Datime), and its
    environ/2 cannot enumerate the environment.  Enumeration reads
    /proc/self/environ, so it sees the environment the process started
    with, where the operating system offers it.  SWI has no system
    properties, so environ/3 finds none with Source `properties`.
*/

:- module(sicstus_lib_system,
          [ environ/2, environ/3, now/1, datime/1, datime/2, sleep/1
          ]).

:- set_module(base(system)).

:- use_module(library(error), [must_be/2, domain_error/2]).
:- use_module(library(readutil), [read_file_to_codes/3]).
:- use_module(library(lists), [member/2, append/3]).

%!  now(-When) is det.
%
%   When is the current time as a UNIX timestamp (whole seconds).

now(When) :-
    get_time(Time),
    When is truncate(Time).

%!  datime(-Datime) is det.
%!  datime(+When, -Datime) is det.
%!  datime(-When, +Datime) is det.
%
%   Datime is datime(Year, Month, Day, Hour, Min, Sec), integers, for
%   the local time now or at the UNIX timestamp When.

datime(Datime) :-
    now(When),
    datime(When, Datime).

datime(When, Datime) :-
    (   nonvar(When)
    ->  stamp_date_time(When, date(Y, M, D, H, Mn, S, _, _, _), local),
        Sec is truncate(S),
        Datime = datime(Y, M, D, H, Mn, Sec)
    ;   Datime = datime(Y, M, D, H, Mn, S),
        date_time_stamp(date(Y, M, D, H, Mn, S, _, _, _), Stamp),
        When is truncate(Stamp)
    ).

%!  sleep(+Seconds) is det.
%
%   Waits Seconds, a non-negative number.

sleep(Seconds) :-
    must_be(number, Seconds),
    (   Seconds >= 0
    ->  system:sleep(Seconds)
    ;   domain_error(not_less_than_zero, Seconds)
    ).

%!  environ(?Name, ?Value) is nondet.
%!  environ(?Name, ?Value, +Source) is nondet.
%
%   Value is the value of the environment variable Name, both atoms.
%   With Name unbound, enumerates the environment.  Source is
%   environment, properties or merged (the default).

environ(Name, Value) :-
    environ(Name, Value, merged).

environ(Name, Value, Source) :-
    must_be(atom, Source),
    (   memberchk(Source, [environment, merged])
    ->  environment(Name, Value)
    ;   Source == properties
    ->  fail
    ;   domain_error(environ_source, Source)
    ).

environment(Name, Value) :-
    (   atom(Name)
    ->  getenv(Name, Value)
    ;   must_be(var, Name),
        environment_variables(Pairs),
        member(Name=Value, Pairs)
    ).

environment_variables(Pairs) :-
    catch(read_file_to_codes('/proc/self/environ', Codes, []), _, fail),
    !,
    entries(Codes, Pairs).
environment_variables([]).

%   The NUL-terminated Name=Value entries of Codes, as atoms.
entries([], []) :-
    !.
entries(Codes, Pairs) :-
    (   append(Entry, [0|Rest], Codes)
    ->  true
    ;   Entry = Codes,
        Rest = []
    ),
    (   append(NameCodes, [0'=|ValueCodes], Entry)
    ->  atom_codes(Name, NameCodes),
        atom_codes(Value, ValueCodes),
        Pairs = [Name=Value|Pairs1]
    ;   Pairs = Pairs1
    ),
    entries(Rest, Pairs1).
