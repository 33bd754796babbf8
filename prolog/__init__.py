"""The Prolog sources, shipped inside plpuzzle as the data package
plpuzzle.prolog_src (found with importlib.resources)."""
