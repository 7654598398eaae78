"""The SQLite store of tables: round trips, what is resumed, and what is only listed."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from tablezoo.tables.store import Store
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
        db.execute(
            "INSERT INTO tables VALUES ('broken', 'diamant', 'playing', '{\"not\": \"a record\"}', 0, 0)"
        )
    with Store(path) as store:
        assert [t.table_id for t in store.load_all()] == ["t-play"]
        assert store.get("broken") is None


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
