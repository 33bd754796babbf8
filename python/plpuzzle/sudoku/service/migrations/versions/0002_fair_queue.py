"""the fair queue: an upload's stage, its early (public) reports, what
replaced it, whether a teacher queued it, and when its checks ended

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

from plpuzzle.sudoku.service.store import UtcDateTime

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("uploads", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("stage", sa.String(length=8), nullable=False, server_default="public")
        )
        batch_op.add_column(sa.Column("early", sa.String(length=300), nullable=True))
        batch_op.add_column(sa.Column("replaced_by", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column("regrade", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch_op.add_column(sa.Column("checked", UtcDateTime(), nullable=True))
        batch_op.add_column(sa.Column("public_graded", UtcDateTime(), nullable=True))
    # Uploads graded before the fair queue were graded in full, in one stage.
    op.execute("UPDATE uploads SET stage = 'rest' WHERE state IN ('done', 'failed')")


def downgrade() -> None:
    with op.batch_alter_table("uploads", schema=None) as batch_op:
        for column in ("public_graded", "checked", "regrade", "replaced_by", "early", "stage"):
            batch_op.drop_column(column)
