"""The flag's command line: `plpuzzle flag`."""
