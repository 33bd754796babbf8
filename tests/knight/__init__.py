"""Knight's tour tests (a package, so that their file names may repeat sudoku's)."""
