"""Similar hand-ins: a class compared offline, Prolog-aware, by winnowing.

One module per step:

- source: a hand-in's Prolog files as text (decoded as the grader loads
  them);
- reading: SWI-Prolog's own reader, in a confined process with limits,
  batched, restarted without a file that brings it down
  (prolog/similarity_reader.pl is its Prolog side);
- tokens: the tokenizer for what Prolog cannot read;
- normalise: the normal form (variables and the file's own predicate
  names numbered per clause, atoms kept as data, clauses sorted, imports
  dropped);
- fingerprints: winnowing of k-grams (Schleimer, Wilkerson, Aiken 2003);
- index: the inverted index of fingerprints, the pairs' scores with
  fingerprints weighed by rarity, groups that all match each other;
- compare: the steps together, base code left out;
- report and html: the CSV, the JSON summary, the HTML section with the
  pairs side by side; class_report: a class folder in, report files out.
"""

from plpuzzle.sudoku.grading.similarity.class_report import (
    NO_SOLVER_NOTE,
    compare_class,
    compare_submissions,
    read_base,
    write_reports,
)
from plpuzzle.sudoku.grading.similarity.compare import (
    MIN_SHARED,
    THRESHOLD,
    Settings,
    Similarity,
    compare,
)
from plpuzzle.sudoku.grading.similarity.reading import ReaderUnavailable
from plpuzzle.sudoku.grading.similarity.reading import vocabulary as _vocabulary


def check_reader() -> None:
    """Raise ReaderUnavailable now if SWI-Prolog cannot read here."""
    _vocabulary()


__all__ = [
    "MIN_SHARED",
    "NO_SOLVER_NOTE",
    "THRESHOLD",
    "ReaderUnavailable",
    "Settings",
    "Similarity",
    "check_reader",
    "compare",
    "compare_class",
    "compare_submissions",
    "read_base",
    "write_reports",
]
