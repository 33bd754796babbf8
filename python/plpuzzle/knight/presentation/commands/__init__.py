"""`plpuzzle knight`: the group, and one module per command.

Each command module only parses its options, calls the engines and
prints; what they share is in common.py.
"""

from __future__ import annotations

import click

from plpuzzle.knight.presentation.commands import count, survey, tour


@click.group(short_help="Knight's tours: find, count and survey them.")
def knight() -> None:
    """The knight's tour: move a knight over a board so that it visits every
    square exactly once.

    Boards are N x N (--size) or W x H (--board). Squares are named in
    algebraic notation as white sees the board (a1 is the bottom-left
    square), or as 0-based x,y with 0,0 the top-left square as printed.
    Every tour an engine gives is checked by an independent validator
    before it is shown.
    """


for command in (tour.tour, count.count, survey.survey_command):
    knight.add_command(command)
