"""The site on several workers over real PostgreSQL and Redis servers: play, races and faults.

Each test starts its own worker processes (:class:`~site.Site`) over a fresh database
of the session's PostgreSQL server and the session's Redis server (``conftest.py``;
skipped with a message saying how to run them when the servers are not installed).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tablezoo.tables.cluster import ACQUIRE_TIMEOUT, CHANNEL, DATABASE_DOWN, PgStore, migrate
from tablezoo.tables.table import Table

from .site import Client, Site

pytest.importorskip("websockets")


@pytest.fixture
def store(database: str) -> Iterator[PgStore]:
    migrate(database)
    pg = PgStore(database)
    yield pg
    pg.close()


@pytest.fixture
def site(database: str, broker: str, tmp_path: Path) -> Iterator[Site]:
    with Site(database, broker, workers=2, log=tmp_path / "workers.log") as running:
        yield running


def same_view(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two views of one seat at the same point (the log lines they carry may be cut differently)."""
    keys = ("version", "phase", "seats", "you", "to_move", "legal", "state", "render", "log_end")
    return all(a[k] == b[k] for k in keys)


async def play_out(clients: list[Client], watchers: list[Client], moves: int = 10_000) -> int:
    """The seated clients play their first legal move whenever it is theirs, each command's new
    version awaited by every other socket, until the game ends or ``moves`` were made."""
    made = 0
    while made < moves and clients[0].view["phase"] == "playing":
        mover = next((c for c in clients if c.view["legal"]), None)
        assert mover is not None, "no one may move, yet the game is under way"
        reply = await mover.command(mover.view["legal"][0])
        assert reply["ok"], reply
        made += 1
        for other in clients + watchers:
            if other is not mover:
                await other.wait_version(mover.view["version"])
    return made


def check_seats(clients: list[Client], watchers: list[Client]) -> None:
    """Every view a socket was sent was its own seat's (a watcher's: no seat's)."""
    for seat, client in enumerate(clients):
        assert all(v["you"] == seat for v in client.views[1:] if v["phase"] != "waiting")
    for watcher in watchers:
        assert all(v["you"] is None for v in watcher.views)


def test_a_game_across_workers_replays_from_its_command_log(site: Site, store: PgStore) -> None:
    """Three people on two workers and a watcher play 6 nimmt! out; everything matches the log."""
    table = site.new_table("sechs_nimmt", k=1)

    async def run() -> tuple[list[Client], list[Client]]:
        clients = [await Client(site, k % 2, table, f"player-token-{k}").connect() for k in range(3)]
        watchers = [await Client(site, 1, table, "watcher-token-0").connect()]
        for k, client in enumerate(clients):
            assert (await client.command(f"/join p{k}"))["ok"]
            for other in clients + watchers:
                await other.wait_version(client.view["version"])
        assert (await clients[2].command("/start"))["ok"]
        for other in clients[:2] + watchers:
            await other.wait_version(clients[2].view["version"])
        await play_out(clients, watchers)
        for c in clients + watchers:
            await c.close()
        return clients, watchers

    clients, watchers = asyncio.run(run())
    assert clients[0].view["phase"] == "finished"
    assert len({c.view["version"] for c in clients + watchers}) == 1
    check_seats(clients, watchers)
    record = store.record(table)
    assert record is not None and record["version"] == clients[0].view["version"]
    assert store.replay(table).to_record() == record
    assert [v for v, _, _ in store.commands(table)] == list(range(1, record["version"] + 1))


def test_two_workers_racing_on_one_table_lose_and_double_nothing(database: str, store: PgStore) -> None:
    """Two stores (two workers' pools), two threads each, 2,000 commands on one table at once."""
    table = Table.new("sechs_nimmt", table_id="race")
    store.create(table)
    stores = [store, PgStore(database)]
    per_thread, replies = 500, []
    lock = threading.Lock()

    def hammer(pg: PgStore) -> None:
        cached = None
        for _ in range(per_thread):
            reply, cached = pg.command("race", "racer-token-1", "/option tactic", cached)
            with lock:
                replies.append(reply.ok)

    threads = [threading.Thread(target=hammer, args=(stores[k % 2],)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stores[1].close()
    total = 4 * per_thread
    assert replies == [True] * total
    record = store.record("race")
    assert record is not None and record["version"] == total
    assert record["options"]["tactic"] is False  # switched an even number of times
    assert [v for v, _, _ in store.commands("race")] == list(range(1, total + 1))
    assert store.replay("race").to_record() == record


def test_sockets_racing_through_two_workers(site: Site, store: PgStore) -> None:
    """Two sockets on two workers send 150 commands each without waiting: every one is applied once."""
    table = site.new_table("heckmeck")

    async def run() -> list[Client]:
        clients = [await Client(site, k, table, f"racer-token-{k}").connect() for k in range(2)]

        async def fire(client: Client) -> list[dict[str, Any]]:
            for _ in range(150):
                await client.socket.send('{"command": "/option quick"}')
            replies = []
            while len(replies) < 150:
                message = await client.receive()
                if "reply" in message:
                    replies.append(message["reply"])
            return replies

        for replies in await asyncio.gather(*(fire(c) for c in clients)):
            assert all(r["ok"] for r in replies)
        for c in clients:
            await c.wait_version(300)
            await c.close()
        return clients

    clients = asyncio.run(run())
    assert [c.view["version"] for c in clients] == [300, 300]
    record = store.record(table)
    assert record is not None and record["version"] == 300 and record["options"]["quick"] is False
    assert store.replay(table).to_record() == record


def test_a_worker_killed_mid_game(site: Site, store: PgStore) -> None:
    """kill -9 of a worker: its sockets reconnect to the other, see what they saw, and play on."""
    table = site.new_table("diamant")

    async def run() -> list[Client]:
        clients = [await Client(site, k % 2, table, f"diver-token-{k}").connect() for k in range(3)]
        for k, client in enumerate(clients):
            assert (await client.command(f"/join d{k}"))["ok"]
            for other in clients:
                await other.wait_version(client.view["version"])
        assert (await clients[0].command("/start"))["ok"]
        for other in clients[1:]:
            await other.wait_version(clients[0].view["version"])
        await play_out(clients, [], moves=6)
        before = {id(c): c.view for c in clients}
        site.kill(1)
        for c in clients:
            if c.worker == 1:
                await c.connect(worker=0)
                assert same_view(c.view, before[id(c)])
        await play_out(clients, [])
        for c in clients:
            await c.close()
        return clients

    clients = asyncio.run(run())
    assert clients[0].view["phase"] == "finished"
    check_seats(clients, [])
    record = store.record(table)
    assert record is not None and store.replay(table).to_record() == record


def test_the_broker_restarted(site: Site, store: PgStore, redis: Any) -> None:
    """Redis down: commands are stored, other workers' sockets wait; back up: they get the views."""
    table = site.new_table("diamant")

    async def run() -> None:
        a = await Client(site, 0, table, "alice-token-9").connect()
        b = await Client(site, 1, table, "bob-token-9999").connect()
        assert (await a.command("/join alice"))["ok"]
        await b.wait_version(1)
        redis.stop()
        try:
            assert (await a.command("/bot heuristic"))["ok"]
            assert (await a.command("/bot heuristic"))["ok"]
            assert a.view["version"] == 3
            with pytest.raises(TimeoutError):
                await b.receive(timeout=1.5)
        finally:
            redis.start()
        await b.wait_version(3, timeout=20)
        assert b.view["version"] == 3 and b.view["seats"] == [{**s, "you": False} for s in a.view["seats"]]
        assert (await b.command("/join bob"))["ok"]  # and views flow both ways again
        await a.wait_version(4)
        assert [s["name"] for s in a.view["seats"]] == ["alice", "heuristic bot", "heuristic bot 2", "bob"]
        await a.close()
        await b.close()

    asyncio.run(run())
    record = store.record(table)
    assert record is not None and record["version"] == 4
    assert store.replay(table).to_record() == record


LIBRARY_WORDS = ("Error", "Timeout", "psycopg", "Pool", "Exception", "Traceback")
"""Words of a library's exception that no answer of the site may carry."""


def test_the_database_restarted(site: Site, store: PgStore, postgres: Any) -> None:
    """PostgreSQL down: commands are refused within about a second with a clear error, without a
    library's exception name, and change nothing; back up: play on."""
    table = site.new_table("heckmeck")

    async def run() -> None:
        a = await Client(site, 0, table, "alice-token-7").connect()
        b = await Client(site, 1, table, "bob-token-7777").connect()
        assert (await a.command("/join alice"))["ok"]
        await b.wait_version(1)
        postgres.stop()
        try:
            waits = []
            for client in (a, b, a, b, a):
                start = time.monotonic()
                reply = await client.command("/join bob")
                waits.append(time.monotonic() - start)
                assert not reply["ok"] and reply["text"] == DATABASE_DOWN
            # the first refusal on each worker waits for a connection (at most ACQUIRE_TIMEOUT);
            # the breaker then refuses at once
            assert max(waits) < ACQUIRE_TIMEOUT + 0.75, waits
            assert max(waits[2:]) < 0.25, waits
            start = time.monotonic()
            status, body = await asyncio.to_thread(site.get, 1, "/api/tables")
            assert time.monotonic() - start < ACQUIRE_TIMEOUT + 0.75
            assert status == 503 and body == {"error": DATABASE_DOWN}
            status, body = await asyncio.to_thread(site.post, 0, "/api/tables", {"game": "court"})
            assert status == 503 and not any(word in body["error"] for word in LIBRARY_WORDS), body
        finally:
            postgres.start()
        deadline = time.monotonic() + 10
        while (reply := await b.command("/join bob"))["text"] == DATABASE_DOWN:
            assert time.monotonic() < deadline, "the breaker did not close after the database came back"
            await asyncio.sleep(0.1)
        assert reply["ok"], reply
        assert b.view["version"] == 2
        await a.wait_version(2)
        await a.close()
        await b.close()

    asyncio.run(run())
    record = store.record(table)
    assert record is not None and record["version"] == 2
    assert [s["name"] for s in record["seats"]] == ["alice", "bob"]
    assert store.replay(table).to_record() == record


def test_views_not_read_in_an_outage_are_sent_when_the_database_is_back(
    site: Site, store: PgStore, postgres: Any, redis: Any
) -> None:
    """A table's new version announced while PostgreSQL is down cannot be read by the workers:
    their sockets get its views once the database is back, with no further change of the table
    and no reconnection to the broker."""
    table = site.new_table("heckmeck")

    async def run() -> None:
        a = await Client(site, 0, table, "alice-token-8").connect()
        b = await Client(site, 1, table, "bob-token-8888").connect()
        assert (await a.command("/join alice"))["ok"]
        await b.wait_version(1)
        reply, _ = store.command(table, "carol-token-8", "/join carol", None)  # stored, not announced
        assert reply.ok
        postgres.stop()
        try:
            with redis.client() as broker:
                broker.publish(CHANNEL + table, 2)  # the announcement arrives in the outage
            await asyncio.sleep(1.0)
            assert a.view["version"] == 1 and b.view["version"] == 1
        finally:
            postgres.start()
        for client in (a, b):
            view = await client.wait_version(2, timeout=10)
            assert [s["name"] for s in view["seats"]] == ["alice", "carol"]
        await a.close()
        await b.close()

    asyncio.run(run())


def test_a_slow_bot_holds_up_only_its_table(database: str, broker: str, monkeypatch: Any) -> None:
    """The same as in one process: a bot thinking at one table (holding its row's lock) holds up
    no command at another table of the same worker."""
    from tablezoo.tables.cluster import ClusterHub

    from ..test_hub import a_slow_bot_holds_up_only_its_table, think_until_released

    migrate(database)
    think_until_released(monkeypatch)

    async def run() -> None:
        hub = ClusterHub(PgStore(database), broker, expire_after=3600)
        await hub.start()
        try:
            await a_slow_bot_holds_up_only_its_table(hub)
        finally:
            await hub.stop()

    asyncio.run(run())


def test_a_socket_that_never_reads_holds_up_no_one(site: Site) -> None:
    """A watcher on the other worker that sends its token and never reads: the player's commands
    are answered as fast as without it, and its worker's views go out to everyone else."""
    from ..never_reading import moves_beside
    from ..test_slow_sockets import MOVES, check_moves

    table = site.new_table("heckmeck")
    for reader in (0, 1):  # the watcher on the player's worker, then on the other one
        check_moves(asyncio.run(moves_beside(site.ports[0], table, site.ports[reader], moves=MOVES)))
