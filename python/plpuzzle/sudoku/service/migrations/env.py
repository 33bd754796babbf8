"""Alembic's entry: the service passes its open connection in (store.migrate)."""

from alembic import context

from plpuzzle.sudoku.service.store import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
