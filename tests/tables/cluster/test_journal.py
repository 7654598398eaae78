"""Appended moves and snapshots on PostgreSQL: WAL per move flat over a long game, and the
migration of a database made by the schema before them (whole records rewritten at every move)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tablezoo.tables.cluster import PgStore, migrate
from tablezoo.tables.store import SNAPSHOT_EVERY
from tablezoo.tables.table import Table

from ..test_store import finished_table, playing_table


@pytest.fixture
def store(database: str) -> Iterator[PgStore]:
    migrate(database)
    pg = PgStore(database)
    yield pg
    pg.close()


def wal_position(conn: Any) -> int:
    """The WAL's insert position now, in bytes from its start."""
    return int(conn.execute("SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn").fetchone()[0])


def test_wal_per_move_stays_flat_over_a_2000_move_game(store: PgStore, postgres: Any, database: str) -> None:
    """WAL per move over moves 1,980-2,000 of a long To Court the King game within 2x that of
    moves 1-20 (the game's snapshots, one every SNAPSHOT_EVERY versions, included)."""
    table = Table.new("court", table_id="long", seed=5)
    store.create(table)
    cached: Table | None = None
    for client, command in (("a-token", "/join Ann"), ("b-token", "/join Bea"), ("a-token", "/start")):
        reply, cached = store.command("long", client, command, cached)
        assert reply.ok
    wal: dict[int, int] = {}  # the WAL position before move k
    dbname = database.rsplit("/", 1)[1]
    with postgres.connect(dbname, autocommit=True) as probe:
        for k in range(1, 2001):
            assert cached is not None and cached.phase == "playing"
            wal[k] = wal_position(probe)
            client = cached.seats[cached.to_move()].client
            reply, cached = store.command("long", client, cached.legal_commands()[-1], cached)
            assert reply.ok, reply
        wal[2001] = wal_position(probe)
    early = (wal[21] - wal[1]) / 20
    late = (wal[2001] - wal[1980]) / 21
    snapshots = [v for v in range(1984, 2004) if v % SNAPSHOT_EVERY == 0]
    assert snapshots, "the late window holds a snapshot (at version 2000)"
    assert late < 2 * early, f"WAL per move: {early:.0f} B at moves 1-20, {late:.0f} B at 1,980-2,000"
    record = store.record("long")
    assert record is not None and record == json.loads(json.dumps(cached.to_record()))
    assert len(json.dumps(record)) > 50 * early  # what rewriting the whole record would have cost
    assert store.replay("long").to_record() == record


def test_the_migration_moves_tables_of_the_older_schema_with_nothing_lost(database: str) -> None:
    """A database made by the schema of revision 0001 (each table's whole record and origin in
    its row), with tables waiting, under way, finished and long, upgraded: every table reads
    back the same, replays from its command log, and plays on."""
    migrate(database, "0001")
    made: dict[str, tuple[Table, dict[str, Any], list[tuple[int, str, str]]]] = {}
    for table in (Table.new("sechs_nimmt", table_id="t-wait", seed=1), playing_table(), finished_table()):
        origin = Table.new(table.game_name, table_id=table.table_id, seed=table.seed).to_record()
        made[table.table_id] = (table, origin, [])
    # a long game, its commands logged as revision 0001 logged them
    long = Table.new("court", table_id="t-long", seed=5)
    origin = long.to_record()
    log: list[tuple[int, str, str]] = []
    long.listeners.append(lambda t: log.append((t.version, *t.last_command)))  # type: ignore[misc]
    long_court_commands(long, 250)
    made["t-long"] = (long, origin, log)
    import psycopg

    with psycopg.connect(database, autocommit=True) as conn:
        for k, (table, origin, commands) in enumerate(made.values()):
            conn.execute(
                "INSERT INTO tables (id, game, phase, version, seats, record, origin, created, updated, "
                "seen) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (
                    table.table_id,
                    table.game_name,
                    table.phase,
                    table.version,
                    json.dumps([o.name for o in table.seats]),
                    json.dumps(table.to_record()),
                    json.dumps(origin),
                    k,
                    k,
                    k,
                ),
            )
            for version, client, text in commands:
                conn.execute(
                    "INSERT INTO commands VALUES (%s, %s, %s, %s, 0)", (table.table_id, version, client, text)
                )
    migrate(database)
    migrate(database)  # idempotent
    store = PgStore(database)
    try:
        for table, origin, _ in made.values():
            assert store.record(table.table_id) == json.loads(json.dumps(table.to_record()))
            assert store.origin(table.table_id) == json.loads(json.dumps(origin))
            again = store.load(table.table_id)
            assert again is not None and again.to_record() == table.to_record()
        assert store.replay("t-long").to_record() == long.to_record()
        client = long.seats[long.to_move()].client
        reply, after = store.command("t-long", client, long.legal_commands()[-1], None)
        assert reply.ok and after is not None and after.version == long.version + 1
        assert store.replay("t-long").to_record() == store.record("t-long")
        expected = json.loads(json.dumps(after.to_record()))
    finally:
        store.close()
    migrate(database, "0001")  # and back: whole records again, the new move in them
    with psycopg.connect(database) as conn:
        record, origin_text = conn.execute("SELECT record, origin FROM tables WHERE id = 't-long'").fetchone()
    assert json.loads(record) == expected and json.loads(origin_text) == json.loads(json.dumps(origin))


def long_court_commands(table: Table, moves: int) -> None:
    """Seat two people, start, and play ``moves`` last-legal moves (as ``long_court`` does)."""
    assert table.handle("a-token", "/join Ann").ok and table.handle("b-token", "/join Bea").ok
    assert table.handle("a-token", "/start").ok
    for _ in range(moves):
        client = table.seats[table.to_move()].client
        assert table.handle(client, table.legal_commands()[-1]).ok
