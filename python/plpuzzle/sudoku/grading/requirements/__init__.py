"""The course's requirements beyond correct answers, read without running.

The assignment asks for clpfd, a head comment on every procedure, lines
of at most 72 characters, and a documentation file. One module per
check, each plain Python over the clauses the similarity reader returns
(SWI-Prolog's read_term in a confined process; nothing is loaded):

- terms: the reader's tokens rebuilt into calls and their arguments;
- clpfd: the call graph from sudoku/2 and the constraints it reaches;
- comments: a comment right above each predicate's first clause;
- layout: long lines, tabs, very long clauses;
- documentation: a documentation file in the hand-in;
- check: the checks together, per hand-in and per class, as JSON;
- words: the findings in words, for feedback, reports and the CLI.
"""

from plpuzzle.sudoku.grading.requirements.check import (
    ClassRequirements,
    Requirements,
    check_class,
    check_handin,
    check_submissions,
)
from plpuzzle.sudoku.grading.requirements.words import lines, short

__all__ = [
    "ClassRequirements",
    "Requirements",
    "check_class",
    "check_handin",
    "check_submissions",
    "lines",
    "short",
]
