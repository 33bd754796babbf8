"""plpuzzle: the declarative-programming puzzle assignments, solved in
SWI-Prolog through pyswip and cross-checked against pure-Python engines."""

__version__ = "0.2.0"
