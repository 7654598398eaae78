"""The hub on its own: tables, sockets and what each socket is sent, with stand-in sockets (no server)."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from tablezoo.tables.hub import OUTBOX_SIZE, TOO_SLOW, Hub, summary
from tablezoo.tables.store import Store
from tablezoo.tables.table import Table


class Socket:
    """Keeps what it is sent; a closed one fails to send, as a socket that went away does."""

    def __init__(self, closed: bool = False) -> None:
        self.sent: list[dict[str, Any]] = []
        self.closed = closed

    async def send_text(self, text: str) -> None:
        if self.closed:
            raise RuntimeError("the socket is closed")
        self.sent.append(json.loads(text))


def test_a_change_reaches_every_socket_a_refusal_only_the_sender() -> None:
    async def play() -> None:
        hub = Hub(Store(":memory:"))
        table = hub.add(Table.new("sechs_nimmt", table_id="t1", seed=1))
        alice, bob, gone = Socket(), Socket(), Socket(closed=True)
        for socket, client in ((alice, "alice"), (bob, "bob"), (gone, "gone")):
            await hub.connect(table, socket, client)  # type: ignore[arg-type]
        await hub.delivered()  # sent after the table's lock, by each socket's own sender
        assert [len(s.sent) for s in (alice, bob, gone)] == [1, 1, 0]
        assert set(hub.sockets["t1"]) == {alice, bob}  # the one that failed is dropped

        reply = await hub.command(table, alice, "alice", "/join Alice")  # type: ignore[arg-type]
        assert reply.ok
        await hub.delivered()
        assert alice.sent[-1]["reply"] == {"ok": True, "text": "you sit at seat 0 as Alice"}
        assert alice.sent[-1]["view"]["you"] == 0 and set(bob.sent[-1]) == {"view"}
        assert bob.sent[-1]["view"]["you"] is None

        for text in ("/start", "/status"):  # refused, then read only: the asker alone hears
            await hub.command(table, bob, "bob", text)  # type: ignore[arg-type]
            await hub.delivered()
            assert set(bob.sent[-1]) == {"reply"} and len(alice.sent) == 2

    asyncio.run(play())


def test_finished_tables_leave_memory_and_abandoned_ones_expire() -> None:
    hub = Hub(Store(":memory:"), expire_after=100.0)
    done = hub.add(Table.new("heckmeck", table_id="done", seed=3))
    for command in ("/bot random", "/bot random", "/start"):
        assert done.handle("x", command).ok
    waiting = hub.add(Table.new("diamant", table_id="waiting"))
    now = hub.active["waiting"]
    assert hub.sweep(now + 50) == [] and set(hub.tables) == {"waiting"}  # the finished one is archived
    again = hub.get("done")  # read back from the store, and not kept
    assert (
        again is not None
        and again is not done
        and again.phase == "finished"
        and hub.tables.keys() == {"waiting"}
    )
    assert hub.sweep(now + 100) == ["waiting"] and hub.tables == {}
    assert hub.get("waiting") is None  # expired: never resumed or read back
    assert [row["id"] for row in hub.summaries()] == ["done"]
    assert summary(waiting)["phase"] == "waiting"


def test_the_lobby_lists_waiting_then_playing_then_finished() -> None:
    hub = Hub(Store(":memory:"))
    playing = hub.add(Table.new("diamant", table_id="b-playing"))
    for command in ("/join Alice", "/bot random", "/bot random", "/start"):
        assert playing.handle("alice", command).ok
    assert playing.phase == "playing"
    hub.add(Table.new("court", table_id="a-waiting"))
    assert [row["id"] for row in hub.summaries()] == ["a-waiting", "b-playing"]
    assert [row["id"] for row in hub.summaries(offset=1)] == ["b-playing"]
    assert [row["id"] for row in hub.summaries("playing")] == ["b-playing"]
    assert hub.summaries("finished") == [] and hub.open_tables() == 1
    assert hub.summaries()[0] == {
        "id": "a-waiting",
        "game": "court",
        "title": "To Court the King",
        "phase": "waiting",
        "seats": [],
        "players": 0,
        "min_seats": 2,
        "max_seats": 5,
    }


async def a_slow_bot_holds_up_only_its_table(hub: Hub) -> None:
    """While a bot thinks at one table (its move in a worker thread), a command at another table
    is carried out and answered: the first is still thinking when the second is done."""
    made = [await hub.create("heckmeck", {}) for _ in range(2)]
    a, b = Socket(), Socket()
    slow, quick = [await hub.fetch(t.table_id) for t in made]
    assert slow is not None and quick is not None
    await hub.connect(slow, a, "client-slow-1")  # type: ignore[arg-type]
    await hub.connect(quick, b, "client-quick-1")  # type: ignore[arg-type]
    assert (await hub.command(slow, a, "client-slow-1", "/bot heuristic")).ok  # type: ignore[arg-type]
    assert (await hub.command(slow, a, "client-slow-1", "/join Ann")).ok  # type: ignore[arg-type]
    thinking = asyncio.create_task(hub.command(slow, a, "client-slow-1", "/start"))  # type: ignore[arg-type]
    while not THINKING.is_set():  # the bot has begun its first move
        await asyncio.sleep(0.01)
    reply = await hub.command(quick, b, "client-quick-1", "/join Bob")  # type: ignore[arg-type]
    assert reply.ok and not thinking.done()
    RELEASE.set()
    assert (await thinking).ok
    await hub.delivered()
    assert b.sent[-1]["view"]["seats"][0]["name"] == "Bob"


THINKING, RELEASE = threading.Event(), threading.Event()


def think_until_released(monkeypatch: Any) -> None:
    """The heuristic bot's moves wait, in their worker thread, until RELEASE is set."""
    from tablezoo.bots.registry import make_bot
    from tablezoo.games import make

    bot_class = type(make_bot("heuristic", make("heckmeck", 2)))
    act = bot_class.act
    THINKING.clear()
    RELEASE.clear()

    def slow_act(self: Any, seat: Any) -> Any:
        THINKING.set()
        assert RELEASE.wait(30), "the test never released the bot"
        return act(self, seat)

    monkeypatch.setattr(bot_class, "act", slow_act)


def test_a_slow_bot_holds_up_only_its_table(monkeypatch: Any) -> None:
    think_until_released(monkeypatch)
    asyncio.run(a_slow_bot_holds_up_only_its_table(Hub(Store(":memory:"))))


class Stuck(Socket):
    """Never takes a message: the send waits for ever (as on a socket that never reads)."""

    def __init__(self) -> None:
        super().__init__()
        self.close_codes: list[int] = []

    async def send_text(self, text: str) -> None:
        await asyncio.Event().wait()

    async def close(self, code: int = 1000) -> None:
        self.close_codes.append(code)


def test_a_socket_that_never_reads_is_closed_and_holds_up_no_one() -> None:
    async def play() -> None:
        hub = Hub(Store(":memory:"))
        table = hub.add(Table.new("heckmeck", table_id="t1", seed=1))
        alice, stuck = Socket(), Stuck()
        await hub.connect(table, alice, "alice")  # type: ignore[arg-type]
        await hub.connect(table, stuck, "stuck")  # type: ignore[arg-type]
        for _ in range(OUTBOX_SIZE + 5):  # each returns at once: nothing waits for the stuck socket
            reply = await asyncio.wait_for(hub.command(table, alice, "alice", "/option quick"), 1.0)  # type: ignore[arg-type]
            assert reply.ok
        await hub.delivered()
        assert len(alice.sent) == OUTBOX_SIZE + 6 and set(hub.sockets["t1"]) == {alice}
        await asyncio.sleep(0.05)
        assert stuck.close_codes == [TOO_SLOW] and stuck not in hub.outboxes

    asyncio.run(play())
