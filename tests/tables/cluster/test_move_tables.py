"""``tablezoo tables migrate``: a SQLite site moved to PostgreSQL, with every table's history."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

import pytest

from tablezoo.games.core import ConfigError
from tablezoo.tables.cluster import PgStore
from tablezoo.tables.server import move_tables, sqlite_path
from tablezoo.tables.store import Store
from tablezoo.tables.table import FINISHED, Table

from ..test_store import finished_table, long_court
from .site import TABLEZOO


def sqlite_site(path: Path) -> list[str]:
    """A SQLite site as `tablezoo serve` leaves it: one table of the older layout (its record
    only), then tables waiting, under way, finished (all four games) and expired, each saved after
    every command. Returns the ids."""
    old = long_court(30, table_id="t-old")
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE tables (id TEXT PRIMARY KEY, game TEXT NOT NULL, phase TEXT NOT NULL, "
            "record TEXT NOT NULL, created REAL NOT NULL, updated REAL NOT NULL)"
        )
        db.execute(
            "INSERT INTO tables VALUES ('t-old', 'court', 'playing', ?, 0, 0)", (json.dumps(old.to_record()),)
        )
    with Store(path) as store:
        long_court(250, store, table_id="t-long")
        for k, game in enumerate(("heckmeck", "sechs_nimmt", "diamant", "court")):
            table = Table.new(game, table_id=f"t-{game}", seed=k)
            table.listeners.append(store.save)
            store.save(table)
            for command in ("/bot heuristic", "/bot random", "/bot heuristic", "/start"):
                assert table.handle("host-token", command).ok
            assert table.phase == FINISHED
        waiting = Table.new("diamant", table_id="t-wait", seed=9)
        waiting.listeners.append(store.save)
        store.save(waiting)
        assert waiting.handle("carol-token", "/join Carol").ok
        store.save(finished_table("t-done"))
        store.expire("t-wait")
        return store.ids()


def run_migrate(path: Path, database: str) -> str:
    done = subprocess.run(
        [TABLEZOO, "tables", "migrate", "--from", f"sqlite:///{path}", "--to", database],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_sqlite_site_moved_to_postgresql_replays_identically(tmp_path: Path, database: str) -> None:
    path = tmp_path / "site.db"
    ids = sqlite_site(path)
    assert len(ids) == 8
    out = run_migrate(path, database)
    assert out.startswith("8 tables moved, 0 brought forward, 0 there already, 0 left alone"), out
    assert "6 checked by replaying their command log, 2 by their record" in out, out
    pg = PgStore(database)
    try:
        with Store(path) as store:
            for table_id in ids:
                record = store.record(table_id)
                assert record is not None and pg.record(table_id) == record
                assert pg.commands(table_id) == store.commands(table_id)
                if store.origin(table_id) is not None:
                    assert pg.replay(table_id).to_record() == store.replay(table_id).to_record()
                    assert json.loads(json.dumps(pg.replay(table_id).to_record())) == record
            assert pg.load("t-wait") is None  # expired stays expired
            assert pg.page("finished", 0, 50) and pg.count("playing") == 2
            # idempotent: nothing written again
            assert run_migrate(path, database).startswith(
                "0 tables moved, 0 brought forward, 8 there already"
            )
            # the SQLite site plays on: the next run brings that table forward
            long = store.get("t-long")
            assert long is not None
            long.listeners.append(store.save)
            assert long.handle(long.seats[long.to_move() or 0].client or "", long.legal_commands()[-1]).ok
            assert "1 brought forward, 7 there already" in run_migrate(path, database)
            assert pg.record("t-long") == store.record("t-long")
            # the PostgreSQL site plays on: that table is left alone
            after = pg.load("t-long")
            assert after is not None
            reply, _ = pg.command(
                "t-long", after.seats[after.to_move() or 0].client or "", after.legal_commands()[0], after
            )
            assert reply.ok
            assert "1 left alone" in run_migrate(path, database)
            assert pg.replay("t-long").to_record() == pg.record("t-long")
    finally:
        pg.close()


def test_the_source_must_be_a_sqlite_file(tmp_path: Path, database: str) -> None:
    with pytest.raises(ConfigError, match="sqlite:///PATH"):
        sqlite_path("postgresql://x@y/z")
    with pytest.raises(ConfigError, match="no SQLite file"):
        move_tables(f"sqlite:///{tmp_path / 'none.db'}", database)
    with pytest.raises(ConfigError, match="--to must be a postgresql://"):
        move_tables(f"sqlite:///{tmp_path / 'none.db'}", "mysql://x@y/z")
