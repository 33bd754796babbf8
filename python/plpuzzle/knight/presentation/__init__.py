"""The knight's commands: one module per `plpuzzle knight` command."""
