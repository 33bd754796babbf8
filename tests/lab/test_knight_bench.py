"""The knight benchmark on small boards: both engines, validated rows."""

from __future__ import annotations

from plpuzzle_lab.knight_bench import markdown, run_bench


def test_small_bench_runs_both_engines_and_every_row_passes() -> None:
    seen: list[int] = []
    rows = run_bench(
        big=(8,),
        open_sizes=range(5, 8),
        closed_sizes=(6, 8),
        prolog_big=(8,),
        prolog_open_sizes=range(5, 7),
        on_board=seen.append,
    )
    assert [r.engine for r in rows] == ["python"] * 5 + ["prolog"] * 5
    assert all(r.ok for r in rows), [r for r in rows if not r.ok]
    assert rows[1].result == "3 of 3 boards"
    assert rows[3].result == rows[8].result == "304 (known: 304)"
    assert seen == [5, 6, 7, 6, 8, 5, 6, 6, 8]
    table = markdown(rows)
    assert "| prolog | open tour, 8x8, from a corner | valid tour |" in table
    assert "**NO**" not in table
