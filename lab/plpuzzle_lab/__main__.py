"""`python -m plpuzzle_lab`: the lab's command line."""

from plpuzzle_lab.cli import lab

lab()
