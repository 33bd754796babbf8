"""The sudoku itself: the puzzle and its rules, the course's text formats,
and the validator that judges any grid. Nothing here runs a solver."""
