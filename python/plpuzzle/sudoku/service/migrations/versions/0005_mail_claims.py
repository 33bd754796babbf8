"""a mail claimed by the process sending it, with a lease: `accounts
--send` and the service's postman never send one mail twice

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

from plpuzzle.sudoku.service.store import UtcDateTime

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("mails", schema=None) as batch_op:
        batch_op.add_column(sa.Column("claimed_by", sa.String(length=100), nullable=True))
        batch_op.add_column(sa.Column("claimed_until", UtcDateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("mails", schema=None) as batch_op:
        batch_op.drop_column("claimed_until")
        batch_op.drop_column("claimed_by")
