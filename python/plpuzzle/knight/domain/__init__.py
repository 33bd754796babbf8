"""What a knight's tour is, apart from any engine: the board, results,
the tour file formats and the validator."""
