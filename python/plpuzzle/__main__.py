"""`python -m plpuzzle` is the `plpuzzle` command."""

from plpuzzle.cli import main

main()
