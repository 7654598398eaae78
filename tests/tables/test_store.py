"""The SQLite store of tables: round trips, what is resumed, what is only listed, appended moves and
snapshots, and a file of the older schema moved to the new one."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest

from tablezoo.tables.store import SNAPSHOT_EVERY, Store, advance, pack
from tablezoo.tables.table import FINISHED, PLAYING, WAITING, Table


def playing_table(table_id: str = "t-play") -> Table:
    """Diamant with two people and a bot, a few moves in."""
    table = Table.new("diamant", table_id=table_id, seed=7)
    assert table.handle("alice", "/join Alice").ok
    assert table.handle("bob", "/join Bob").ok
    assert table.handle("alice", "/bot random").ok
    assert table.handle("alice", "/start").ok
    assert table.handle("alice", "go").ok
    return table


def finished_table(table_id: str = "t-done") -> Table:
    table = Table.new("heckmeck", table_id=table_id, seed=3)
    assert table.handle("x", "/bot random").ok
    assert table.handle("x", "/bot heuristic").ok
    assert table.handle("x", "/start").ok
    assert table.phase == FINISHED
    return table


def test_round_trip_rebuilds_the_same_table() -> None:
    with Store(":memory:") as store:
        table = playing_table()
        store.save(table)
        again = store.get(table.table_id)
        assert again is not None
        assert again.to_record() == table.to_record()
        for client in ("alice", "bob", None):
            assert again.view(client) == table.view(client)
        assert store.get("nowhere") is None


def test_load_all_resumes_waiting_and_playing_tables_and_lists_finished_ones() -> None:
    with Store(":memory:") as store:
        waiting = Table.new("sechs_nimmt", table_id="t-wait", seed=1)
        waiting.handle("carol", "/join Carol")
        for table in (waiting, playing_table(), finished_table()):
            store.save(table)
        resumed = {t.table_id: t for t in store.load_all()}
        assert set(resumed) == {"t-wait", "t-play"}
        assert resumed["t-wait"].phase == WAITING and resumed["t-wait"].seat_of("carol") == 0
        assert resumed["t-play"].phase == PLAYING
        (done,) = store.finished()
        assert done["id"] == "t-done" and done["game"] == "heckmeck"
        assert done["seats"] == ["random bot", "heuristic bot"]
        restored = store.get("t-done")
        assert restored is not None and restored.phase == FINISHED


def test_save_is_an_upsert_and_listeners_keep_the_row_current() -> None:
    with Store(":memory:") as store:
        table = playing_table()
        table.listeners.append(store.save)
        store.save(table)
        mover = table.to_move()
        client = table.seats[mover].client
        assert table.handle(client, "camp").ok
        row = store._db.execute("SELECT count(*), max(phase) FROM tables").fetchone()
        assert row == (1, table.phase)
        again = store.get(table.table_id)
        assert again is not None and again.history == table.history


def test_file_store_uses_wal_and_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "tables.sqlite3"
    with Store(path) as store:
        assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        store.save(playing_table())
    with Store(path) as store:
        (table,) = store.load_all()
        assert table.table_id == "t-play" and table.phase == PLAYING


def test_a_broken_record_is_skipped_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "tables.sqlite3"
    with Store(path) as store:
        store.save(playing_table())
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO tables VALUES ('broken', 'diamant', 'playing', 3, '[]', 3, 0, 0)")
        db.execute("INSERT INTO snapshots VALUES ('broken', 3, ?)", (pack({"not": "a record"}),))
        db.execute("INSERT INTO tables VALUES ('lost', 'diamant', 'playing', 3, '[]', 3, 0, 0)")
    with Store(path) as store:
        assert [t.table_id for t in store.load_all()] == ["t-play"]
        assert store.get("broken") is None and store.get("lost") is None


def test_saves_from_many_threads() -> None:
    with Store(":memory:") as store:
        tables = [Table.new("court", table_id=f"t{i}", seed=i) for i in range(8)]

        def work(table: Table) -> None:
            for k in range(5):
                table.handle(f"c{k}", f"/join p{k}")
                store.save(table)

        threads = [threading.Thread(target=work, args=(t,)) for t in tables]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        resumed = {t.table_id: t for t in store.load_all()}
        assert set(resumed) == {f"t{i}" for i in range(8)}
        assert all(len(t.seats) == 5 for t in resumed.values())


def long_court(moves: int, store: Store | None = None, table_id: str = "long") -> Table:
    """Two people at To Court the King, ``moves`` moves in (the last legal move each time: the
    game goes on), saved by ``store`` after every command when given."""
    table = Table.new("court", table_id=table_id, seed=5)
    if store is not None:
        table.listeners.append(store.save)
        store.save(table)
    assert table.handle("a-token", "/join Ann").ok and table.handle("b-token", "/join Bea").ok
    assert table.handle("a-token", "/start").ok
    for _ in range(moves):
        assert table.phase == PLAYING
        client = table.seats[table.to_move()].client
        assert table.handle(client, table.legal_commands()[-1]).ok
    return table


def test_moves_are_appended_and_a_table_is_its_last_snapshot_plus_the_moves_after_it() -> None:
    with Store(":memory:") as store:
        table = long_court(2 * SNAPSHOT_EVERY + 17, store)
        (snapshot,) = store._db.execute("SELECT snapshot FROM tables").fetchone()
        assert snapshot == 2 * SNAPSHOT_EVERY  # every SNAPSHOT_EVERY versions
        versions = [v for (v,) in store._db.execute("SELECT version FROM snapshots ORDER BY version")]
        assert versions == [0, snapshot]  # the origin and the latest
        after = store._db.execute("SELECT count(*) FROM commands WHERE version > ?", (snapshot,)).fetchone()
        assert after[0] == table.version - snapshot
        assert store.record("long") == json.loads(json.dumps(table.to_record()))
        again = store.get("long")
        assert again is not None and again.to_record() == table.to_record()
        assert again.view("a-token") == table.view("a-token")
        assert store.replay("long").to_record() == table.to_record()


def test_a_finished_game_is_snapshot_at_its_end() -> None:
    with Store(":memory:") as store:
        table = finished_table()
        table.listeners.append(store.save)
        fresh = Table.new("heckmeck", table_id="fresh", seed=3)
        fresh.listeners.append(store.save)
        store.save(fresh)
        for command in ("/bot random", "/bot heuristic", "/start"):
            assert fresh.handle("x", command).ok
        assert fresh.phase == FINISHED
        row = store._db.execute("SELECT version, snapshot FROM tables WHERE id = 'fresh'").fetchone()
        assert row == (fresh.version, fresh.version)
        assert store.replay("fresh").to_record() == fresh.to_record()


def test_bytes_written_per_move_stay_flat_over_a_long_game() -> None:
    """The rows a move appends weigh the same at move 2,000 as at move 20 (the snapshots, one
    every SNAPSHOT_EVERY versions, are counted in: spread over their versions)."""
    with Store(":memory:") as store:
        table = long_court(2000, store)
        sizes = dict(store._db.execute("SELECT version, length(delta) FROM commands").fetchall())
        early = sum(sizes[v] for v in range(4, 24)) / 20
        late = sum(sizes[v] for v in range(table.version - 20, table.version)) / 20
        assert late < 2 * early, (early, late)
        (last,) = store._db.execute("SELECT length(record) FROM snapshots WHERE version > 0").fetchone()
        assert late + last / SNAPSHOT_EVERY < 2 * early, (early, late, last)
        assert len(json.dumps(table.to_record())) > 100 * early  # a whole record would not be flat


def test_a_file_of_the_older_schema_is_moved_with_nothing_lost(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    tables = [playing_table(), finished_table(), long_court(150, table_id="t-long")]
    with sqlite3.connect(path) as db:  # the schema before snapshots: one whole record a table
        db.execute(
            "CREATE TABLE tables (id TEXT PRIMARY KEY, game TEXT NOT NULL, phase TEXT NOT NULL, "
            "record TEXT NOT NULL, created REAL NOT NULL, updated REAL NOT NULL)"
        )
        for k, table in enumerate(tables):
            db.execute(
                "INSERT INTO tables VALUES (?, ?, ?, ?, ?, ?)",
                (table.table_id, table.game_name, table.phase, json.dumps(table.to_record()), k, k),
            )
    with Store(path) as store:
        assert store._db.execute("PRAGMA user_version").fetchone()[0] == 2
        assert {t.table_id for t in store.load_all()} == {"t-play", "t-long"}
        for table in tables:
            again = store.get(table.table_id)
            assert again is not None and again.to_record() == table.to_record()
        assert [row["id"] for row in store.finished()] == ["t-done"]
        long = store.get("t-long")
        assert long is not None
        long.listeners.append(store.save)
        client = long.seats[long.to_move()].client
        assert long.handle(client, long.legal_commands()[0]).ok  # plays on, appended
    with Store(path) as store:
        again = store.get("t-long")
        assert again is not None and again.to_record() == long.to_record()


@pytest.mark.parametrize("game", ["heckmeck", "sechs_nimmt", "diamant", "court"])
def test_a_copy_advanced_by_the_deltas_equals_the_table(game: str) -> None:
    """A worker's copy brought forward delta by delta (Table.advance: only the new moves played)
    is the table itself: record, views of every seat and of a watcher, and it plays on alike."""
    with Store(":memory:") as store:
        table = Table.new(game, table_id="t", seed=11)
        table.listeners.append(store.save)
        store.save(table)
        copy = Table.from_record(json.loads(json.dumps(table.to_record())))
        commands = ["/join Ann", "/join Bea", "/bot heuristic", "/start"]
        clients = ["a-token", "b-token", "a-token", "a-token"]
        advanced = rebuilt = 0
        step = 0
        while table.phase != FINISHED and step < 400:
            if step < len(commands):
                client, command = clients[step], commands[step]
            elif step == 40:  # Bea leaves mid-game: a bot takes her seat
                client, command = "b-token", "/leave"
            else:
                mover = table.to_move()
                client = table.seats[mover].client if mover is not None else None
                if client is None:
                    break
                command = table.legal_commands()[step % len(table.legal_commands())]
            assert table.handle(client, command).ok, (step, command)
            step += 1
            deltas = store._db.execute(
                "SELECT version, delta FROM commands WHERE version > ? ORDER BY version", (copy.version,)
            ).fetchall()
            if advance("t", copy, deltas):
                advanced += 1
            else:  # the game started in this change: rebuilt from the record, as a worker does
                copy = Table.from_record(store.record("t") or {}, base=copy)
                rebuilt += 1
            assert copy.to_record() == json.loads(json.dumps(table.to_record())), step
            for client in ("a-token", "b-token", None):
                assert copy.view(client) == table.view(client), (step, client)
        assert rebuilt == 1 and advanced == step - 1
