"""Tables kept in SQLite, so that a restarted server resumes every table where it was.

One row per table: its :meth:`~tablezoo.tables.table.Table.to_record` as JSON,
with the game name, the phase and the times it was created and last saved.
:meth:`Store.load_all` rebuilds the tables still waiting or under way (their
games replayed from their histories); finished tables stay on disk and are read
back one at a time with :meth:`Store.get`, or listed with :meth:`Store.finished`.
A table the server gave up on (:meth:`Store.expire`: nobody came back to it) is
marked ``expired``: kept for the record, never resumed or listed.

The store holds one connection guarded by a lock, so the server may call it
from its event loop and from worker threads alike. ``":memory:"`` gives a
store that lives as long as the object (for tests).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from tablezoo.tables.table import FINISHED, Table

DEFAULT_PATH = "tablezoo.sqlite3"
EXPIRED = "expired"
log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    phase TEXT NOT NULL,
    record TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL
)
"""


class Store:
    """The tables of one SQLite file (``":memory:"`` for a throwaway store)."""

    def __init__(self, path: str | Path = DEFAULT_PATH) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(SCHEMA)

    def save(self, table: Table) -> None:
        """Insert or update the table's record (a listener of the table calls this)."""
        record = json.dumps(table.to_record(), separators=(",", ":"))
        now = time.time()
        with self._lock:
            self._db.execute(
                "INSERT INTO tables (id, game, phase, record, created, updated) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET "
                "game = excluded.game, phase = excluded.phase, record = excluded.record, "
                "updated = excluded.updated",
                (table.table_id, table.game_name, table.phase, record, now, now),
            )

    def load_all(self) -> list[Table]:
        """The tables to resume (waiting or under way), oldest first.

        A record that no longer rebuilds (say, written by an older version of a
        game) is logged and skipped rather than stopping the server.
        """
        with self._lock:
            rows = self._db.execute(
                "SELECT id, record FROM tables WHERE phase NOT IN (?, ?) ORDER BY created, id",
                (FINISHED, EXPIRED),
            ).fetchall()
        tables = []
        for table_id, record in rows:
            table = _rebuild(table_id, record)
            if table is not None:
                tables.append(table)
        return tables

    def get(self, table_id: str) -> Table | None:
        """The stored table ``table_id`` rebuilt, or None."""
        with self._lock:
            row = self._db.execute("SELECT record FROM tables WHERE id = ?", (table_id,)).fetchone()
        return None if row is None else _rebuild(table_id, row[0])

    def expire(self, table_id: str) -> None:
        """Mark a table expired: it is no longer resumed at a restart nor listed."""
        with self._lock:
            self._db.execute(
                "UPDATE tables SET phase = ?, updated = ? WHERE id = ?", (EXPIRED, time.time(), table_id)
            )

    def finished(self, limit: int = 100, offset: int = 0) -> list[dict[str, Any]]:
        """The finished tables, latest first, from the ``offset``-th on: id, game, seat names,
        created and updated times."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, game, record, created, updated FROM tables WHERE phase = ? "
                "ORDER BY updated DESC, id LIMIT ? OFFSET ?",
                (FINISHED, limit, offset),
            ).fetchall()
        return [
            {
                "id": i,
                "game": g,
                "seats": [o["name"] for o in json.loads(r)["seats"]],
                "created": c,
                "updated": u,
            }
            for i, g, r, c, u in rows
        ]

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _rebuild(table_id: str, record: str) -> Table | None:
    try:
        return Table.from_record(json.loads(record))
    except Exception:  # a broken row must not keep the other tables from resuming
        log.exception("table %s could not be rebuilt from its record; skipped", table_id)
        return None


__all__ = ["DEFAULT_PATH", "EXPIRED", "Store"]
