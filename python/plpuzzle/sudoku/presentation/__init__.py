"""How results reach people: the command line, terminal and file reports,
the class HTML page and the pytest plugin."""
