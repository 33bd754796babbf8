"""The similarity report's reader: real SWI-Prolog processes on real text.

Reading must understand Prolog (operators, the dialect, quoting), run
nothing of a file (its directives included), keep each file's operators to
itself, and survive hostile files: a file that breaks a limit is read as
tokens, and the files after it in the same process are still read by
Prolog.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from plpuzzle.sudoku.grading.similarity import reading
from plpuzzle.sudoku.grading.similarity.normalise import normalise
from plpuzzle.sudoku.grading.similarity.reading import PARTLY, PROLOG, TOKENS, read_texts
from plpuzzle.sudoku.grading.similarity.source import compared_names
from plpuzzle.sudoku.grading.similarity.tokens import (
    RawClause,
    clause_start_line,
    code_prefix,
    tokenize,
    with_clause_start,
)

REPO = Path(__file__).resolve().parents[2]


def texts_of(clauses: list[RawClause]) -> list[list[str]]:
    return [[str(t.value) for t in c.tokens] for c in clauses]


def normal(text: str, dialect: str = "sicstus4") -> list[str]:
    (read,) = read_texts([text], dialect)  # type: ignore[arg-type]
    return [t.text for t in normalise(read.clauses, [text], reading.vocabulary())]


def test_operators_and_functional_notation_read_the_same() -> None:
    a = "p(X, Y) :- X is Y + 1, \\+ q(X), ( X > 0 -> true ; fail ).\nq(_).\n"
    b = ("p(A,B):-','(is(A,+(B,1)),','(\\+(q(A)),;(->(>(A,0),true),fail))).\n"
         "q( _ ) .\n")  # fmt: skip
    (ra, rb) = read_texts([a, b], "sicstus4")
    assert ra.how == rb.how == PROLOG
    assert texts_of(ra.clauses) == texts_of(rb.clauses)
    assert normal(a) == normal(b)


def test_positions_point_into_the_text() -> None:
    text = "% a comment\nfoo(Xyz, 'quoted atom') :-\n    bar(Xyz).\n"
    (read,) = read_texts([text], "swi")
    spans = {text[t.start : t.end] for c in read.clauses for t in c.tokens if t.start >= 0}
    assert spans == {"foo", "Xyz", "'quoted atom'", ":-", "bar"}


def test_the_dialect_decides_what_reads() -> None:
    loop = "sum(L, S) :- ( foreach(X, L), fromto(0, S0, S1, S) do S1 is S0 + X ).\n"
    (sicstus,) = read_texts([loop], "sicstus4")
    (swi,) = read_texts([loop], "swi")
    assert sicstus.how == PROLOG and "do" in texts_of(sicstus.clauses)[0]
    assert swi.how == PARTLY  # `do` is no operator of plain SWI-Prolog
    assert "syntax error" in swi.notes[0]


def test_a_files_operators_stay_in_that_file() -> None:
    declares = ":- op(700, xfx, ===>).\nrule(a ===> b).\n"
    uses = "rule(a ===> b).\n"
    first, second = read_texts([declares, uses], "sicstus4")
    assert first.how == PROLOG
    assert second.how == PARTLY  # the other file in the same process never saw the op


def test_clpfd_operators_exist_only_once_a_directive_loads_the_library() -> None:
    """As when the file loads: `ins` before `:- use_module(library(clpfd))`
    (or with the directive written as a fact) is a syntax error."""
    use = "sudoku(_, L) :- L ins 1..9, L #= L.\n"
    fact = "use_module(library(clpfd)).\n" + use
    directive = ":- use_module(library(clpfd)).\n" + use
    late = use + ":- use_module(library(clpfd)).\n" + use
    listed = ":- use_module(library(clpfd), [all_distinct/1]).\n" + use
    by_fact, by_directive, too_late, only_listed = read_texts(
        [fact, directive, late, listed], "swi"
    )
    assert by_fact.how == PARTLY and by_directive.how == PROLOG
    assert too_late.how == PARTLY and len(too_late.clauses) == 3  # the second clause reads
    assert only_listed.how == PARTLY  # an import list without the operators
    (other_file,) = read_texts([use], "swi", clpfd=[True])  # another file loaded it
    assert other_file.how == PROLOG


def test_which_files_get_clpfd_from_another_file_of_the_hand_in() -> None:
    loads = "% :- use_module(library(clpfd)).\n:- use_module(library(clpfd)).\n"
    commented = "% :- use_module(library(clpfd)).\np.\n"
    assert reading.loads_clpfd(loads) and not reading.loads_clpfd(commented)
    assert reading.clpfd_elsewhere([[loads, commented], [commented], [loads]]) == [
        False, True, False, False,
    ]  # fmt: skip


def test_zero_arity_compounds_are_read_by_prolog() -> None:
    text = "ler() :- read(X), write(X).\nstart() :- ler().\n"
    (read,) = read_texts([text], "swi")
    assert read.how == PROLOG, read.notes
    assert texts_of(read.clauses)[1] == ["start", "(", ")", ":-", "ler", "(", ")"]


def test_a_syntax_error_is_placed_where_swi_prolog_places_it() -> None:
    text = "ok.\n% one\n% two\n\np(X) :-\n    X = f(a,\n    b c).\nq.\n"
    (read,) = read_texts([text], "swi")
    assert read.how == PARTLY
    assert "the first at line 7:" in read.notes[0], read.notes


def test_directives_are_read_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    text = (
        f":- open('{marker}', write, S), write(S, x), close(S).\n"
        f":- initialization(open('{marker}', write, _)).\n"
        ':- format(user_output, \'{"id": 0, "clauses": []}~n\', []).\n'
        ":- halt.\n"
        "after_halt(ok).\n"
    )
    first, second = read_texts([text, "next(file).\n"], "sicstus4")
    assert not marker.exists()
    assert first.how == PROLOG and len(first.clauses) == 5
    assert texts_of(second.clauses) == [["next", "(", "file", ")"]]


def test_quasi_quotations_are_not_parsed() -> None:
    (read,) = read_texts(["x({|string(X)||abc|}).\nok.\n"], "swi")
    assert read.how in (PROLOG, PARTLY)  # read as plain tokens, no parser called
    assert ["ok"] in texts_of(read.clauses)


def test_a_syntax_error_costs_only_its_clause() -> None:
    text = "good(1).\nbad( :- .\ngood(2).\n"
    (read,) = read_texts([text], "sicstus4")
    assert read.how == PARTLY
    assert "line 2" in read.notes[0]
    by_prolog = [c for c in read.clauses if not c.as_tokens]
    by_tokens = [c for c in read.clauses if c.as_tokens]
    assert len(by_prolog) == 2 and len(by_tokens) == 1
    assert texts_of(by_tokens) == [["bad", "(", ":-"]]


def test_a_deep_term_is_read_as_tokens_and_the_next_file_by_prolog() -> None:
    deep = "x(" + "[" * 300_000 + "]" * 300_000 + ").\n"
    after = "fine(X) :- X = 1.\n"
    first, second = read_texts([deep, after], "sicstus4")
    assert first.how == TOKENS and first.notes[0].startswith("read as tokens: the reader's")
    assert second.how == PROLOG


def test_a_file_that_kills_its_process_is_left_out_of_the_rerun(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The reader's output is a file capped by RLIMIT_FSIZE: a file with
    more tokens than that cap allows kills the process (SIGXFSZ); the batch
    restarts after it, and the files before and after it keep Prolog's
    reading."""
    monkeypatch.setattr(reading, "OUTPUT_MB", 1)
    big = "f(" + ",".join(["aaaa"] * 60_000) + ").\n"
    files = ["one(1).\n", big, "two(2).\n", "three(3).\n"]
    out = read_texts(files, "sicstus4")
    assert [r.how for r in out] == [PROLOG, TOKENS, PROLOG, PROLOG]
    assert out[1].notes == ["read as tokens: the reader's output size limit"]
    assert texts_of(out[3].clauses) == [["three", "(", "3", ")"]]


def test_tokens_are_capped() -> None:
    text = "f(" + ",".join(["a"] * (reading.MAX_TOKENS + 10)) + ").\ng.\n"
    (read,) = read_texts([text], "sicstus4")
    assert any("tokens" in n for n in read.notes)
    assert sum(len(c.tokens) for c in read.clauses) == reading.MAX_TOKENS


def test_the_tokenizer_reads_what_prolog_reads_for_plain_code() -> None:
    """A stretch read as tokens compares with Prolog's reading of it."""
    source = (REPO / "tests/fixtures/similarity/independent/rozsa.pl").read_text()
    (read,) = read_texts([source], "sicstus4")
    words = reading.vocabulary()
    by_prolog = [t.text for t in normalise(read.clauses, [source], words)]
    by_tokens = [t.text for t in normalise(tokenize(source), [source], words)]
    assert by_prolog == by_tokens


def test_the_fixture_classes_read_by_prolog() -> None:
    files = sorted((REPO / "tests/fixtures/sicstus_class").glob("*.pl"))
    from plpuzzle.sudoku.grading.similarity.source import decode

    out = read_texts([decode(f.read_bytes()) for f in files], "sicstus4", jobs=2)
    how = {f.stem: r.how for f, r in zip(files, out, strict=True)}
    # ferenc.pl has a syntax error on purpose (a missing comma); the rest read.
    assert how.pop("ferenc") == PARTLY
    assert set(how.values()) == {PROLOG}


def test_the_reader_is_confined_where_bubblewrap_works() -> None:
    from plpuzzle.sandbox import jail

    expected = jail.bubblewrap(jail.sandbox_uid(0)) is not None
    assert reading.Reader("sicstus4").sandboxed is expected


def test_a_file_of_broken_clauses_gets_one_budget_of_tokens() -> None:
    """Each clause that does not read is read as tokens: all of them
    together within the file's budget, not a fresh budget each."""
    text = ("x :- " + "," * 1000 + ".\n") * 30
    (read,) = read_texts([text], "sicstus4", budgets=[5000])
    assert read.how == PARTLY
    assert sum(len(c.tokens) for c in read.clauses) <= 5000
    assert any("read up to 5,000 tokens" in n for n in read.notes), read.notes


def test_what_is_compared_is_what_grading_loads() -> None:
    """Hidden folders too, and files a compared file includes or loads by
    name, whatever they are called; never the archivers' litter."""
    files = {
        "sudoku.pl": b":- include('.lib/core').\n:- ['notes', \"x\"].\n",
        ".lib/core.pl": b":- ensure_loaded(helper).\n",
        ".lib/helper": b"h.\n",
        "notes.txt": b"n.\n",
        "doc.pdf": b"%PDF\0",
        "__MACOSX/._sudoku.pl": b"junk",
    }
    assert compared_names(files, "sudoku.pl") == ["sudoku.pl", ".lib/core.pl", ".lib/helper"]
    files[".lib/core.pl"] += b":- include('../notes.txt').\n"
    assert "notes.txt" in compared_names(files, "sudoku.pl")


def test_comments_do_not_count_against_a_files_budget() -> None:
    padding = "% " + "filler " * 20 + "\n"
    code = "p(X) :- q(X).\n"
    text = padding * 1000 + code
    assert code_prefix(text, 20) == len(text)
    assert code_prefix(text, 5) == len(padding) * 1000 + len("p(X) ")  # `:-` would pass it


def test_a_syntax_error_is_told_with_the_line_its_clause_starts_on() -> None:
    """SWI-Prolog puts a missing `)` at the clause's end; the clause's first
    line is where to look."""
    text = "p(X) :-\n    foo(X,\n    bar(X).\nq.\n"
    assert clause_start_line(text, 3, 9) == 1
    assert clause_start_line("q(.\n", 1, 2) is None  # the same line: nothing to add
    said = with_clause_start("./sudoku.pl:3:9: Syntax error: Operator expected", lambda f: text)
    assert said.endswith("Operator expected (in the clause starting at line 1)")
    assert with_clause_start("./sudoku.pl:3:9: Syntax error", lambda f: None).endswith("error")
