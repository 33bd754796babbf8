"""accounts, sessions, tokens, uploads

Revision ID: 0001
Revises:
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

from plpuzzle.sudoku.service.store import UtcDateTime

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:

    op.create_table(
        "course_state",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("login", sa.String(length=64), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("password_hash", sa.String(length=200), nullable=True),
        sa.Column("welcome_digest", sa.String(length=64), nullable=True),
        sa.Column("welcome_expires", UtcDateTime(), nullable=True),
        sa.Column("created", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("login"),
        sa.UniqueConstraint("welcome_digest"),
    )
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("label", sa.String(length=100), nullable=False),
        sa.Column("created", UtcDateTime(), nullable=False),
        sa.Column("last_used", UtcDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("digest"),
    )
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_api_tokens_user_id"), ["user_id"], unique=False)

    op.create_table(
        "sessions",
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("csrf", sa.String(length=64), nullable=False),
        sa.Column("created", UtcDateTime(), nullable=False),
        sa.Column("expires", UtcDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("digest"),
    )
    with op.batch_alter_table("sessions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_sessions_user_id"), ["user_id"], unique=False)

    op.create_table(
        "uploads",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created", UtcDateTime(), nullable=False),
        sa.Column("name", sa.String(length=300), nullable=False),
        sa.Column("suffix", sa.String(length=10), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("blob", sa.String(length=64), nullable=False),
        sa.Column("late", sa.Boolean(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("loaded", sa.Boolean(), nullable=True),
        sa.Column("load_messages", sa.Text(), nullable=False),
        sa.Column("fresh", sa.Boolean(), nullable=False),
        sa.Column("error", sa.Text(), nullable=False),
        sa.Column("notes", sa.Text(), nullable=False),
        sa.Column("score", sa.Double(), nullable=True),
        sa.Column("max_score", sa.Double(), nullable=True),
        sa.Column("public_score", sa.Double(), nullable=True),
        sa.Column("public_max", sa.Double(), nullable=True),
        sa.Column("reports", sa.String(length=300), nullable=True),
        sa.Column("graded", UtcDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("uploads", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_uploads_created"), ["created"], unique=False)
        batch_op.create_index(batch_op.f("ix_uploads_state"), ["state"], unique=False)
        batch_op.create_index(batch_op.f("ix_uploads_user_id"), ["user_id"], unique=False)


def downgrade() -> None:

    with op.batch_alter_table("uploads", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_uploads_user_id"))
        batch_op.drop_index(batch_op.f("ix_uploads_state"))
        batch_op.drop_index(batch_op.f("ix_uploads_created"))

    op.drop_table("uploads")
    with op.batch_alter_table("sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sessions_user_id"))

    op.drop_table("sessions")
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_api_tokens_user_id"))

    op.drop_table("api_tokens")
    op.drop_table("users")
    op.drop_table("course_state")
