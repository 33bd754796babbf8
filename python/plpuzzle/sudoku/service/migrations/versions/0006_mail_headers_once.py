"""a mail's Message-ID kept from its queuing (the same on every try), and
what a mail that goes out once is about (the release of one counting
upload), unique: a release withdrawn and made again mails nobody twice;
the address a student reached the service at when they asked for their
results by mail (their mails' links)

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("mails", schema=None) as batch_op:
        batch_op.add_column(sa.Column("message_id", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("once", sa.String(length=120), nullable=True))
        batch_op.create_unique_constraint("uq_mails_once", ["once"])
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("mail_base", sa.String(length=200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("mail_base")
    with op.batch_alter_table("mails", schema=None) as batch_op:
        batch_op.drop_constraint("uq_mails_once", type_="unique")
        batch_op.drop_column("once")
        batch_op.drop_column("message_id")
