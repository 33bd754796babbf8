/*  library(file_systems) of SICStus Prolog 4, for solvers run in
    SWI-Prolog.

    The module exports the predicates SICStus documents for
    library(file_systems): all of SWI's SICStus 4 emulation
    (library(dialect/sicstus4/file_systems)), re-exported, and
    close_all_streams/0, which it lacks.  In the grader's sandbox the
    file system is read-only and holds little beyond the submission,
    so predicates that create, rename or delete files or directories
    raise permission errors there.
*/

:- module(sicstus_lib_file_systems,
          [ rename_file/2, rename_directory/2, delete_file/1,
            delete_directory/1, delete_directory/2, directory_exists/1,
            directory_exists/2, make_directory/1, file_exists/1,
            file_exists/2, file_must_exist/1, file_must_exist/2,
            directory_must_exist/1, directory_must_exist/2,
            directory_member_of_directory/2,
            directory_member_of_directory/3,
            directory_member_of_directory/4,
            file_member_of_directory/2, file_member_of_directory/3,
            file_member_of_directory/4,
            directory_members_of_directory/1,
            directory_members_of_directory/2,
            directory_members_of_directory/3,
            file_members_of_directory/1, file_members_of_directory/2,
            file_members_of_directory/3, directory_property/2,
            directory_property/3, file_property/2, file_property/3,
            current_directory/1, current_directory/2,
            close_all_streams/0
          ]).

:- set_module(base(system)).

:- use_module(library(dialect/sicstus4/file_systems),
              [ rename_file/2, rename_directory/2, delete_file/1,
                delete_directory/1, delete_directory/2,
                directory_exists/1, directory_exists/2,
                make_directory/1, file_exists/1, file_exists/2,
                file_must_exist/1, file_must_exist/2,
                directory_must_exist/1, directory_must_exist/2,
                directory_member_of_directory/2,
                directory_member_of_directory/3,
                directory_member_of_directory/4,
                file_member_of_directory/2, file_member_of_directory/3,
                file_member_of_directory/4,
                directory_members_of_directory/1,
                directory_members_of_directory/2,
                directory_members_of_directory/3,
                file_members_of_directory/1,
                file_members_of_directory/2,
                file_members_of_directory/3, directory_property/2,
                directory_property/3, file_property/2, file_property/3,
                current_directory/1, current_directory/2
              ]).

%!  rename_file(+OldName, +NewName) is det.
%!  rename_directory(+OldName, +NewName) is det.
%!  delete_file(+File) is det.
%!  delete_directory(+Directory) is det.
%!  delete_directory(+Directory, +Options) is det.
%!  directory_exists(+Directory) is semidet.
%!  directory_exists(+Directory, +Mode) is semidet.
%!  make_directory(+Directory) is det.
%!  file_exists(+File) is semidet.
%!  file_exists(+File, +Mode) is semidet.
%!  file_must_exist(+File) is det.
%!  file_must_exist(+File, +Mode) is det.
%!  directory_must_exist(+Directory) is det.
%!  directory_must_exist(+Directory, +Mode) is det.
%!  directory_member_of_directory(?BaseName, ?FullName) is nondet.
%!  directory_member_of_directory(+Directory, ?BaseName, ?FullName)
%!      is nondet.
%!  directory_member_of_directory(+Directory, +Pattern, ?BaseName,
%!      ?FullName) is nondet.
%!  file_member_of_directory(?BaseName, ?FullName) is nondet.
%!  file_member_of_directory(+Directory, ?BaseName, ?FullName)
%!      is nondet.
%!  file_member_of_directory(+Directory, +Pattern, ?BaseName,
%!      ?FullName) is nondet.
%!  directory_members_of_directory(-Set) is det.
%!  directory_members_of_directory(+Directory, -Set) is det.
%!  directory_members_of_directory(+Directory, +Pattern, -Set) is det.
%!  file_members_of_directory(-Set) is det.
%!  file_members_of_directory(+Directory, -Set) is det.
%!  file_members_of_directory(+Directory, +Pattern, -Set) is det.
%!  directory_property(+Directory, ?Property) is nondet.
%!  directory_property(+Directory, ?Property, ?Value) is nondet.
%!  file_property(+File, ?Property) is nondet.
%!  file_property(+File, ?Property, ?Value) is nondet.
%!  current_directory(-Directory) is det.
%!  current_directory(-Old, +New) is det.
%
%   Re-exported from SWI-Prolog's emulation; see there for the options
%   it does not support.

%!  close_all_streams is det.
%
%   Closes every open stream except the standard ones: user_input,
%   user_output, user_error and the process' file descriptors 0-2.

close_all_streams :-
    forall(( stream_property(Stream, type(_)),
             \+ standard_stream(Stream)
           ),
           catch(close(Stream, [force(true)]), _, true)).

standard_stream(Stream) :-
    (   stream_property(Stream, alias(Alias)),
        memberchk(Alias, [user_input, user_output, user_error])
    ->  true
    ;   stream_property(Stream, file_no(FileNo)),
        FileNo =< 2
    ).
