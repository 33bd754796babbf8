"""what courses expect: students' own deadlines, where mail reaches a
user, their identity elsewhere, the mail outbox, the documentation, and
which service process works on an upload

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

from plpuzzle.sudoku.service.store import UtcDateTime

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("uploads", schema=None) as batch_op:
        batch_op.add_column(sa.Column("claimed_by", sa.String(length=100), nullable=True))
        batch_op.add_column(sa.Column("heartbeat", UtcDateTime(), nullable=True))
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("email", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("subject", sa.String(length=200), nullable=True))
        batch_op.add_column(
            sa.Column("mail_results", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    op.create_table(
        "extensions",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("until", UtcDateTime(), nullable=False),
        sa.Column("granted_by", sa.String(length=64), nullable=False),
        sa.Column("granted_at", UtcDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("user_id"),
    )

    op.create_table(
        "mails",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("to_addr", sa.String(length=200), nullable=False),
        sa.Column("subject", sa.String(length=200), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("state", sa.String(length=10), nullable=False),
        sa.Column("tries", sa.Integer(), nullable=False),
        sa.Column("next_try", UtcDateTime(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=False),
        sa.Column("created", UtcDateTime(), nullable=False),
        sa.Column("sent", UtcDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("mails", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_mails_state"), ["state"], unique=False)

    op.create_table(
        "documents",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created", UtcDateTime(), nullable=False),
        sa.Column("name", sa.String(length=300), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("blob", sa.String(length=64), nullable=False),
        sa.Column("late", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("documents", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_documents_user_id"), ["user_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("uploads", schema=None) as batch_op:
        batch_op.drop_column("heartbeat")
        batch_op.drop_column("claimed_by")
    op.drop_table("documents")
    op.drop_table("mails")
    op.drop_table("extensions")
    with op.batch_alter_table("users", schema=None) as batch_op:
        for column in ("mail_results", "subject", "email"):
            batch_op.drop_column(column)
