"""What plpuzzle does with sudokus: run a suite, cross-check engines, grade
a class, generate puzzles, benchmark. Commands and the pytest plugin call
these; they print nothing themselves."""
