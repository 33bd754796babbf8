"""The bundled puzzles, shipped inside plpuzzle as the data package
plpuzzle.puzzles_data (found with importlib.resources)."""
