"""an API token's expiry, and each student's own upload numbers

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

from plpuzzle.sudoku.service.store import UtcDateTime

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.add_column(sa.Column("expires", UtcDateTime(), nullable=True))
    with op.batch_alter_table("uploads", schema=None) as batch_op:
        batch_op.add_column(sa.Column("number", sa.Integer(), nullable=True))
    # Each student's uploads numbered 1, 2, ... in the order they came.
    op.execute(
        "UPDATE uploads SET number = (SELECT COUNT(*) FROM uploads AS older "
        "WHERE older.user_id = uploads.user_id AND older.id <= uploads.id)"
    )


def downgrade() -> None:
    with op.batch_alter_table("uploads", schema=None) as batch_op:
        batch_op.drop_column("number")
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.drop_column("expires")
