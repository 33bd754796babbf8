"""The knight's tour: a Prolog solver, a Python reference, a validator."""
