"""Write every bench puzzle as a Prolog fact for measure.pl.

Inferences do not depend on the load of the machine, so they compare two
versions of the search where CPU seconds on a shared machine cannot.
Usage: python lab/inferences/puzzles.py OUT.pl (from the checkout, with
PLPUZZLE_SHARED set), then swipl lab/inferences/measure.pl -- OUT.pl
prolog/ RESULT.tsv NAME...
"""

import os
import sys
from pathlib import Path

from plpuzzle.sudoku.domain.textformat import load_puzzle

SUITES = [
    ("official", Path(os.environ["PLPUZZLE_SHARED"]) / "bme-2013-oddsum/tests", "oddsum"),
    ("consecutive", Path("bench/consecutive"), "consecutive"),
    ("stress-consecutive", Path("bench/stress/consecutive"), "consecutive"),
    ("stress-oddsum", Path("bench/stress/oddsum"), "oddsum"),
]


def main(out: str) -> None:
    """One fact puzzle(Name, Rules, SSpec) per puzzle, suite by suite."""
    with open(out, "w") as facts:
        for suite, folder, rules in SUITES:
            for path in sorted(folder.glob("test*d.txt")):
                name = f"{suite}/{path.name[:-5]}"
                term = load_puzzle(path).to_term()
                facts.write(f"puzzle('{name}', {rules}, {term}).\n")


if __name__ == "__main__":
    main(sys.argv[1])
