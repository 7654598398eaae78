"""Tables and the log of their accepted commands.

``tables``: one row per table, its record (:meth:`~tablezoo.tables.table.Table.to_record`,
JSON text), the record it was created with (``origin``: a replay of the command log starts
there), its version (the commands accepted so far), game, phase, seat names, and times:
created, last changed (``updated``) and last watched by a socket (``seen``).

``commands``: every accepted command that changed a table, numbered by the version it made;
the key ``(table_id, version)`` makes a second application of one version impossible.

Revision ID: 0001
"""

from __future__ import annotations

from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE tables (
            id text PRIMARY KEY,
            game text NOT NULL,
            phase text NOT NULL,
            version integer NOT NULL,
            seats jsonb NOT NULL,
            record text NOT NULL,
            origin text NOT NULL,
            created double precision NOT NULL,
            updated double precision NOT NULL,
            seen double precision NOT NULL
        )
        """
    )
    op.execute("CREATE INDEX tables_phase ON tables (phase, created)")
    op.execute("CREATE INDEX tables_finished ON tables (updated DESC) WHERE phase = 'finished'")
    op.execute(
        """
        CREATE TABLE commands (
            table_id text NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
            version integer NOT NULL,
            client text NOT NULL,
            command text NOT NULL,
            at double precision NOT NULL,
            PRIMARY KEY (table_id, version)
        )
        """
    )


def downgrade() -> None:
    op.execute("DROP TABLE commands")
    op.execute("DROP TABLE tables")
