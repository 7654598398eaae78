"""Moves appended, records snapshot: a move no longer rewrites its table's whole record.

``tables`` loses ``record`` and ``origin`` (texts that grew with every move) and gains
``snapshot``, the version of the table's latest snapshot. ``snapshots`` holds records
(JSON compressed with zlib): version 0 is the origin a replay of the command log starts
from, the latest one is where reading the table starts. ``commands`` gains ``delta``,
what each command changed (:func:`tablezoo.tables.store.delta`): the table is its latest
snapshot plus the deltas after it.

Every existing table keeps its origin (snapshot 0) and its record (the snapshot at its
version); its logged commands stay as they were (without deltas: the snapshot at the
table's version covers them). The downgrade writes each table's record and origin back.

The few functions used here are written out, not imported, so that this migration
reads and writes the same bytes whatever the package's code becomes.

Revision ID: 0002
"""

from __future__ import annotations

import json
import zlib
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

BATCH = 200
"""Tables moved per round trip."""


def _pack(text: str) -> bytes:
    return zlib.compress(json.dumps(json.loads(text), separators=(",", ":")).encode(), 6)


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE snapshots (
            table_id text NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
            version integer NOT NULL,
            record bytea NOT NULL,
            PRIMARY KEY (table_id, version)
        )
        """
    )
    # compressed already: stored out of line as it is, not compressed again
    op.execute("ALTER TABLE snapshots ALTER COLUMN record SET STORAGE EXTERNAL")
    op.execute("ALTER TABLE tables ADD COLUMN snapshot integer NOT NULL DEFAULT 0")
    op.execute("ALTER TABLE commands ADD COLUMN delta text")
    bind = op.get_bind()
    last = ""
    while True:
        rows = bind.execute(
            sa.text("SELECT id, version, record, origin FROM tables WHERE id > :last ORDER BY id LIMIT :n"),
            {"last": last, "n": BATCH},
        ).fetchall()
        if not rows:
            break
        snapshots: list[dict[str, Any]] = []
        for table_id, version, record, origin in rows:
            snapshots.append({"id": table_id, "version": 0, "record": _pack(origin)})
            if version != 0:
                snapshots.append({"id": table_id, "version": version, "record": _pack(record)})
        bind.execute(
            sa.text("INSERT INTO snapshots (table_id, version, record) VALUES (:id, :version, :record)"),
            snapshots,
        )
        last = rows[-1][0]
    op.execute("UPDATE tables SET snapshot = version")
    op.execute("ALTER TABLE tables ALTER COLUMN snapshot DROP DEFAULT")
    op.execute("ALTER TABLE tables DROP COLUMN record, DROP COLUMN origin")


def downgrade() -> None:
    op.execute("ALTER TABLE tables ADD COLUMN record text, ADD COLUMN origin text")
    bind = op.get_bind()
    ids = [r[0] for r in bind.execute(sa.text("SELECT id FROM tables ORDER BY id"))]
    for table_id in ids:
        (at,) = bind.execute(sa.text("SELECT snapshot FROM tables WHERE id = :id"), {"id": table_id}).one()
        snaps: dict[int, bytes] = dict(
            bind.execute(
                sa.text("SELECT version, record FROM snapshots WHERE table_id = :id AND version IN (0, :at)"),
                {"id": table_id, "at": at},
            ).fetchall()
        )
        record = json.loads(zlib.decompress(snaps[at]))
        deltas = bind.execute(
            sa.text(
                "SELECT version, delta FROM commands WHERE table_id = :id AND version > :at ORDER BY version"
            ),
            {"id": table_id, "at": at},
        ).fetchall()
        for _, change in deltas:
            for key, value in json.loads(change).items():
                if key in ("history", "log"):
                    record[key].extend(value)
                else:
                    record[key] = value
        origin = json.loads(zlib.decompress(snaps[0])) if 0 in snaps else record
        bind.execute(
            sa.text("UPDATE tables SET record = :record, origin = :origin WHERE id = :id"),
            {
                "id": table_id,
                "record": json.dumps(record, separators=(",", ":")),
                "origin": json.dumps(origin, separators=(",", ":")),
            },
        )
    op.execute("ALTER TABLE tables ALTER COLUMN record SET NOT NULL, ALTER COLUMN origin SET NOT NULL")
    op.execute("ALTER TABLE tables DROP COLUMN snapshot")
    op.execute("ALTER TABLE commands DROP COLUMN delta")
    op.execute("DROP TABLE snapshots")
