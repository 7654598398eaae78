"""Where a site keeps its tables: appended moves, snapshots, and the SQLite store of one process.

Both stores (this SQLite one, and :class:`~tablezoo.tables.cluster.PgStore` on
PostgreSQL) keep a table the same way, so that the bytes written for a move stay
the same from the first move of a game to its two-thousandth:

* ``tables``: one small row per table: its game, phase, version, seat names, the
  version of its latest snapshot, and times. A move updates this row, never a
  record that grows with the game.
* ``commands``: every accepted command that changed a table, one row appended per
  version: who sent it, its text, and its **delta** (:func:`delta`): the history
  entries and log lines the command added, and the small fields it set (seats,
  options, phase, version, the dice's position). The key ``(table_id, version)``
  makes a second write of one version impossible.
* ``snapshots``: the whole record (:meth:`~tablezoo.tables.table.Table.to_record`,
  its history and log as columns, compressed with LZMA: :func:`pack`) at
  version 0 (the **origin**, where a replay of the command log starts), every
  :data:`SNAPSHOT_EVERY` versions, and when a game ends. A newer snapshot
  replaces the older ones but the origin.

Reading a table is its latest snapshot plus the deltas after it
(:func:`rebuild_record`); a worker that holds an older copy reads only the
deltas it misses. A replay (:meth:`Store.replay`) starts from the origin and
carries out the logged commands again, and must give the same record.

The SQLite store: :meth:`Store.load_all` rebuilds the tables still waiting or
under way; finished tables stay on disk and are read back one at a time with
:meth:`Store.get`, or listed with :meth:`Store.finished`. A table the server
gave up on (:meth:`Store.expire`: nobody came back to it) is marked
``expired``: kept for the record, never resumed or listed. A file written by an
older version (one row per table holding its whole record) is moved to this
schema when it is opened, its records kept as snapshots.

The store holds one connection guarded by a lock, so the server may call it
from its event loop and from worker threads alike. ``":memory:"`` gives a
store that lives as long as the object (for tests).
"""

from __future__ import annotations

import json
import logging
import lzma
import sqlite3
import threading
import time
import zlib
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tablezoo.games.core import TablezooError
from tablezoo.tables.table import FINISHED, Table

DEFAULT_PATH = "tablezoo.sqlite3"
EXPIRED = "expired"
SNAPSHOT_EVERY = 100
"""Versions between two snapshots of a table: reading one replays at most this many deltas."""
SNAPSHOT_PRESET = 6
"""LZMA's preset for snapshots (about 25 ms for the record of a 2,000-move game)."""
LZMA_MAGIC = b"\xfd7zXZ"
"""How an LZMA-compressed snapshot begins (an older one, zlib-compressed, does not)."""
SCHEMA_VERSION = 2
"""The SQLite file's ``PRAGMA user_version`` (1: one row per table with its whole record)."""
GROWING = ("history", "log")
"""The fields of a record that only grow: a delta carries their new entries."""
FIXED = ("table_id", "game", "seed")
"""The fields of a record no command changes: a delta leaves them out."""
log = logging.getLogger(__name__)


# --------------------------------------------------------------------------- deltas and snapshots


@dataclass(frozen=True)
class Mark:
    """How far a table had come when it was last written: its version, history and log lengths, phase."""

    version: int
    history: int
    log: int
    phase: str

    @classmethod
    def of(cls, table: Table) -> Mark:
        return cls(table.version, len(table.history), len(table.log), table.phase)


def delta(table: Table, since: Mark) -> dict[str, Any]:
    """What changed in ``table`` since ``since``: the new history entries and log lines, and the
    fields of its record that are replaced whole (seats, options, phase, version, the dice)."""
    return {
        "history": table.history[since.history :],
        "log": [asdict(line) for line in table.log[since.log :]],
        "seats": [asdict(o) for o in table.seats],
        "options": dict(table.options),
        "phase": table.phase,
        "version": table.version,
        "rng": table.rng.bit_generator.state,
        "policy_files": table.policy_files,
    }


def apply_delta(record: dict[str, Any], change: dict[str, Any]) -> None:
    """Bring ``record`` (a :meth:`Table.to_record`) forward by one :func:`delta`, in place."""
    for key, value in change.items():
        if key in GROWING:
            record[key].extend(value)
        else:
            record[key] = value


def snapshot_due(table: Table, before: Mark, last_snapshot: int) -> bool:
    """Whether the write of ``table`` (last written at ``before``) should carry a snapshot: every
    :data:`SNAPSHOT_EVERY` versions, and when its game has just ended."""
    ended = table.phase == FINISHED and before.phase != FINISHED
    return ended or table.version - last_snapshot >= SNAPSHOT_EVERY


def dumps(data: Any) -> str:
    """Compact JSON text (a delta, a record)."""
    return json.dumps(data, separators=(",", ":"))


def pack(record: dict[str, Any]) -> bytes:
    """A record as a snapshot is stored: its growing lists of dicts (:data:`GROWING`) laid out as
    columns (:func:`columns`), the whole as JSON compressed with LZMA (about 30 times smaller
    than the record's JSON text for a long game)."""
    body = {key: columns(value) if key in GROWING else value for key, value in record.items()}
    return lzma.compress(dumps(body).encode(), preset=SNAPSHOT_PRESET)


def unpack(data: bytes) -> dict[str, Any]:
    """The record of a stored snapshot (:func:`pack`'s, or plain JSON compressed with zlib, as
    the migration of a PostgreSQL database from revision 0001 writes them)."""
    data = bytes(data)
    if data.startswith(LZMA_MAGIC):
        body = json.loads(lzma.decompress(data))
        return {key: rows(value) if key in GROWING else value for key, value in body.items()}
    return dict(json.loads(zlib.decompress(data)))


def columns(items: list[dict[str, Any]]) -> dict[str, Any]:
    """A list of dicts as columns: ``shapes`` (the key lists met), ``shape`` (each item's), and
    for each key the values of the items that have it, in order (they compress far better)."""
    shapes: list[list[str]] = []
    index: dict[tuple[str, ...], int] = {}
    shape: list[int] = []
    values: dict[str, list[Any]] = {}
    for item in items:
        keys = tuple(item)
        if keys not in index:
            index[keys] = len(shapes)
            shapes.append(list(keys))
        shape.append(index[keys])
        for key, value in item.items():
            values.setdefault(key, []).append(value)
    return {"shapes": shapes, "shape": shape, "values": values}


def rows(table: dict[str, Any]) -> list[dict[str, Any]]:
    """The list of dicts laid out by :func:`columns`."""
    taken = dict.fromkeys(table["values"], 0)
    items = []
    for k in table["shape"]:
        item = {}
        for key in table["shapes"][k]:
            item[key] = table["values"][key][taken[key]]
            taken[key] += 1
        items.append(item)
    return items


def rebuild_record(
    table_id: str, snapshot: bytes, snapshot_version: int, deltas: Iterable[tuple[int, str | None]]
) -> dict[str, Any]:
    """The record of a table: its snapshot at ``snapshot_version`` brought forward by the deltas
    after it (``(version, delta JSON)`` in order). Raises :class:`TablezooError` when one is
    missing (the table's journal is broken)."""
    record = unpack(snapshot)
    return forward(table_id, record, snapshot_version, deltas)


def forward(
    table_id: str, record: dict[str, Any], at: int, deltas: Iterable[tuple[int, str | None]]
) -> dict[str, Any]:
    """``record`` (at version ``at``) brought forward by ``deltas`` (``(version, delta JSON)``)."""
    for version, change in deltas:
        if change is None or version != at + 1:
            raise TablezooError(
                f"the journal of table {table_id} misses version {at + 1} (next stored: {version})"
            )
        apply_delta(record, json.loads(change))
        at = version
    return record


def advance(table_id: str, table: Table, deltas: Iterable[tuple[int, str | None]]) -> bool:
    """Bring ``table`` forward in place by ``deltas`` (``(version, delta JSON)`` after its version),
    one :meth:`Table.advance` each; False as soon as one cannot be played on it (the table is then
    at the version before that one: rebuild it from the record)."""
    at = table.version
    for version, change in deltas:
        if change is None or version != at + 1:
            raise TablezooError(
                f"the journal of table {table_id} misses version {at + 1} (next stored: {version})"
            )
        if not table.advance(json.loads(change)):
            return False
        at = version
    return True


def replay_commands(table_id: str, origin: Table, commands: Iterable[tuple[int, str, str]]) -> Table:
    """``origin`` brought forward by carrying out the logged commands (``(version, client, text)``)
    again, in order; :class:`TablezooError` when one does not replay as it was logged."""
    table = origin
    for version, client, text in commands:
        reply = table.handle(client, text)
        if not (reply.ok and reply.changed and table.version == version):
            raise TablezooError(
                f"the command log of {table_id} does not replay at version {version}: {text!r}"
            )
    return table


@dataclass
class TableRows:
    """Everything a store holds of one table: its row, its snapshots ``(version, packed record)``
    and its logged commands ``(version, client, command, at, delta)`` (to move it between stores)."""

    id: str
    game: str
    phase: str
    version: int
    seats: list[str]
    snapshot: int
    created: float
    updated: float
    snapshots: list[tuple[int, bytes]]
    commands: list[tuple[Any, ...]]


# --------------------------------------------------------------------------- the SQLite store

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    phase TEXT NOT NULL,
    version INTEGER NOT NULL,
    seats TEXT NOT NULL,
    snapshot INTEGER NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS tables_phase ON tables (phase, created);
CREATE TABLE IF NOT EXISTS snapshots (
    table_id TEXT NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    record BLOB NOT NULL,
    PRIMARY KEY (table_id, version)
);
CREATE TABLE IF NOT EXISTS commands (
    table_id TEXT NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    client TEXT NOT NULL,
    command TEXT NOT NULL,
    at REAL NOT NULL,
    delta TEXT,
    PRIMARY KEY (table_id, version)
);
"""


class Store:
    """The tables of one SQLite file (``":memory:"`` for a throwaway store).

    :meth:`save` is a listener of the tables it keeps: it appends the delta of the
    table's last command (and a snapshot when one is due), or writes a table it does
    not know yet whole.
    """

    def __init__(self, path: str | Path = DEFAULT_PATH) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        self._marks: dict[str, tuple[Mark, int]] = {}
        """Where each table was last written here, and the version of its latest snapshot."""
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._upgrade()

    def _upgrade(self) -> None:
        """Create the schema, or move a file of the older one (whole records in ``tables``) to it."""
        db = self._db
        (version,) = db.execute("PRAGMA user_version").fetchone()
        if version >= SCHEMA_VERSION:
            return
        columns = {row[1] for row in db.execute("PRAGMA table_info(tables)")}
        db.execute("BEGIN IMMEDIATE")
        try:
            if "record" in columns:
                db.execute("ALTER TABLE tables RENAME TO tables_v1")
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            if "record" in columns:
                _move_v1(db)
                db.execute("DROP TABLE tables_v1")
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    # ------------------------------------------------------------ writing

    def save(self, table: Table) -> None:
        """Write what is new in ``table`` (a listener of the table calls this after every change).

        After one accepted command since the table was last written (here, or as the file
        holds it), the command and its delta are appended (with a snapshot when one is due);
        a new table, or one changed by more than one command since, is written whole.
        """
        now = time.time()
        with self._lock:
            known = self._marks.get(table.table_id) or self._stored_mark(table.table_id)
            if known is not None and known[0].version == table.version:
                return  # nothing new
            command = table.last_command
            if known is None or table.version != known[0].version + 1 or command is None:
                self._write_whole(table, now)
                return
            before, last_snapshot = known
            self._db.execute("BEGIN")
            try:
                snapshot = self._append(table, before, last_snapshot, command, now)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._marks[table.table_id] = (Mark.of(table), snapshot)

    def _append(
        self, table: Table, before: Mark, last_snapshot: int, command: tuple[str, str], now: float
    ) -> int:
        snapshot = table.version if snapshot_due(table, before, last_snapshot) else last_snapshot
        self._db.execute(
            "UPDATE tables SET phase = ?, version = ?, seats = ?, snapshot = ?, updated = ? WHERE id = ?",
            (table.phase, table.version, _seats(table), snapshot, now, table.table_id),
        )
        self._db.execute(
            "INSERT INTO commands (table_id, version, client, command, at, delta) VALUES (?, ?, ?, ?, ?, ?)",
            (table.table_id, table.version, *command, now, dumps(delta(table, before))),
        )
        if snapshot != last_snapshot:
            self._snapshot(table)
        return snapshot

    def _snapshot(self, table: Table) -> None:
        """Store the table's record at its version; older snapshots but the origin go."""
        self._db.execute(
            "INSERT OR REPLACE INTO snapshots (table_id, version, record) VALUES (?, ?, ?)",
            (table.table_id, table.version, pack(table.to_record())),
        )
        self._db.execute(
            "DELETE FROM snapshots WHERE table_id = ? AND version > 0 AND version < ?",
            (table.table_id, table.version),
        )

    def _write_whole(self, table: Table, now: float) -> None:
        self._db.execute("BEGIN")
        try:
            self._db.execute(
                "INSERT INTO tables (id, game, phase, version, seats, snapshot, created, updated) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET phase = excluded.phase, "
                "version = excluded.version, seats = excluded.seats, snapshot = excluded.snapshot, "
                "updated = excluded.updated",
                (
                    table.table_id,
                    table.game_name,
                    table.phase,
                    table.version,
                    _seats(table),
                    table.version,
                    now,
                    now,
                ),
            )
            self._snapshot(table)
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._marks[table.table_id] = (Mark.of(table), table.version)

    def _stored_mark(self, table_id: str) -> tuple[Mark, int] | None:
        """Where a table this store holds no mark of stands in the file (a table read back with
        :meth:`get`, say), or None when the file has no such table (lock held)."""
        try:
            found = self._record(table_id)
        except TablezooError:
            return None
        if found is None:
            return None
        record, snapshot, _ = found
        mark = Mark(int(record["version"]), len(record["history"]), len(record["log"]), record["phase"])
        return mark, snapshot

    def forget(self, table_id: str) -> None:
        """The server let the table leave memory: its next write reads where it stands first."""
        with self._lock:
            self._marks.pop(table_id, None)

    # ------------------------------------------------------------ reading

    def _record(self, table_id: str) -> tuple[dict[str, Any], int, str] | None:
        """The table's record, the version of its snapshot and its phase (lock held)."""
        row = self._db.execute("SELECT snapshot, phase FROM tables WHERE id = ?", (table_id,)).fetchone()
        if row is None:
            return None
        snapshot_version, phase = row
        found = self._db.execute(
            "SELECT record FROM snapshots WHERE table_id = ? AND version = ?", (table_id, snapshot_version)
        ).fetchone()
        if found is None:
            raise TablezooError(f"the snapshot of table {table_id} at version {snapshot_version} is missing")
        deltas = self._db.execute(
            "SELECT version, delta FROM commands WHERE table_id = ? AND version > ? ORDER BY version",
            (table_id, snapshot_version),
        ).fetchall()
        return rebuild_record(table_id, found[0], snapshot_version, deltas), snapshot_version, phase

    def _rebuild(self, table_id: str, remember: bool) -> Table | None:
        try:
            found = self._record(table_id)
            if found is None:
                return None
            record, snapshot_version, _ = found
            table = Table.from_record(record)
        except Exception:  # a broken row must not keep the other tables from resuming
            log.exception("table %s could not be rebuilt from its record; skipped", table_id)
            return None
        if remember:
            self._marks[table_id] = (Mark.of(table), snapshot_version)
        return table

    def load_all(self) -> list[Table]:
        """The tables to resume (waiting or under way), oldest first.

        A record that no longer rebuilds (say, written by an older version of a
        game) is logged and skipped rather than stopping the server.
        """
        with self._lock:
            ids = self._db.execute(
                "SELECT id FROM tables WHERE phase NOT IN (?, ?) ORDER BY created, id", (FINISHED, EXPIRED)
            ).fetchall()
            tables = [self._rebuild(table_id, remember=True) for (table_id,) in ids]
        return [t for t in tables if t is not None]

    def get(self, table_id: str) -> Table | None:
        """The stored table ``table_id`` rebuilt, or None."""
        with self._lock:
            return self._rebuild(table_id, remember=False)

    def record(self, table_id: str) -> dict[str, Any] | None:
        """The stored record of a table (its snapshot and the deltas after it), or None."""
        with self._lock:
            found = self._record(table_id)
        return None if found is None else found[0]

    def ids(self) -> list[str]:
        """Every table id in the store, expired ones too, oldest first."""
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT id FROM tables ORDER BY created, id")]

    def commands(self, table_id: str) -> list[tuple[int, str, str]]:
        """The accepted commands of a table, in order: ``(version, client, command)``."""
        with self._lock:
            return self._db.execute(
                "SELECT version, client, command FROM commands WHERE table_id = ? ORDER BY version",
                (table_id,),
            ).fetchall()

    def origin(self, table_id: str) -> dict[str, Any] | None:
        """The record the table was created with (its snapshot at version 0), or None: a table
        written before the command log was kept has none."""
        with self._lock:
            row = self._db.execute(
                "SELECT record FROM snapshots WHERE table_id = ? AND version = 0", (table_id,)
            ).fetchone()
        return None if row is None else unpack(row[0])

    def replay(self, table_id: str) -> Table:
        """The table rebuilt from its origin by carrying out its logged commands again, in order."""
        origin = self.origin(table_id)
        if origin is None:
            raise TablezooError(f"table {table_id!r} has no origin to replay its command log from")
        return replay_commands(table_id, Table.from_record(origin), self.commands(table_id))

    def dump(self, table_id: str) -> TableRows | None:
        """Everything stored of a table, as rows (to move it to another store), or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT id, game, phase, version, seats, snapshot, created, updated FROM tables WHERE id = ?",
                (table_id,),
            ).fetchone()
            if row is None:
                return None
            snapshots = self._db.execute(
                "SELECT version, record FROM snapshots WHERE table_id = ? ORDER BY version", (table_id,)
            ).fetchall()
            commands = self._db.execute(
                "SELECT version, client, command, at, delta FROM commands WHERE table_id = ? "
                "ORDER BY version",
                (table_id,),
            ).fetchall()
        return TableRows(
            id=row[0],
            game=row[1],
            phase=row[2],
            version=row[3],
            seats=json.loads(row[4]),
            snapshot=row[5],
            created=row[6],
            updated=row[7],
            snapshots=[(v, bytes(r)) for v, r in snapshots],
            commands=[tuple(c) for c in commands],
        )

    def expire(self, table_id: str) -> None:
        """Mark a table expired: it is no longer resumed at a restart nor listed."""
        with self._lock:
            self._db.execute(
                "UPDATE tables SET phase = ?, updated = ? WHERE id = ?", (EXPIRED, time.time(), table_id)
            )
            self._marks.pop(table_id, None)

    def finished(self, limit: int = 100, offset: int = 0) -> list[dict[str, Any]]:
        """The finished tables, latest first, from the ``offset``-th on: id, game, seat names,
        created and updated times."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, game, seats, created, updated FROM tables WHERE phase = ? "
                "ORDER BY updated DESC, id LIMIT ? OFFSET ?",
                (FINISHED, limit, offset),
            ).fetchall()
        return [
            {"id": i, "game": g, "seats": json.loads(s), "created": c, "updated": u} for i, g, s, c, u in rows
        ]

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _seats(table: Table) -> str:
    return json.dumps([o.name for o in table.seats])


def _move_v1(db: sqlite3.Connection) -> None:
    """Rows of the older schema (``tables_v1``: one whole record each) into this one: each
    record becomes its table's snapshot; a record that does not read is kept as it was."""
    rows = db.execute("SELECT id, game, phase, record, created, updated FROM tables_v1").fetchall()
    for table_id, game, phase, text, created, updated in rows:
        try:
            record = json.loads(text)
            version = int(record["version"])
            seats = json.dumps([o["name"] for o in record["seats"]])
        except (ValueError, KeyError, TypeError):
            log.warning("table %s's record does not read; kept as it was, not resumed", table_id)
            record, version, seats = None, 0, "[]"
        db.execute(
            "INSERT INTO tables (id, game, phase, version, seats, snapshot, created, updated) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (table_id, game, phase, version, seats, version, created, updated),
        )
        data = pack(record) if record is not None else zlib.compress(text.encode())
        db.execute(
            "INSERT INTO snapshots (table_id, version, record) VALUES (?, ?, ?)", (table_id, version, data)
        )


__all__ = [
    "DEFAULT_PATH",
    "EXPIRED",
    "SNAPSHOT_EVERY",
    "Mark",
    "Store",
    "TableRows",
    "advance",
    "apply_delta",
    "columns",
    "delta",
    "forward",
    "pack",
    "rebuild_record",
    "replay_commands",
    "rows",
    "snapshot_due",
    "unpack",
]
