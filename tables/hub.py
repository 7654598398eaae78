"""The tables of one server: in memory, with their locks, their sockets and their store.

A :class:`Hub` keeps the tables waiting for players or under way, and finished
ones a socket still watches; the :class:`~tablezoo.tables.store.Store` keeps
them all (a new hub resumes the stored tables that were not finished). It runs
a client's command under the table's lock in a worker thread, so a slow bot
does not hold up the other tables, and sends each socket of the table its own
client's view. :meth:`Hub.sweep` expires the tables abandoned for
``expire_after`` seconds and lets finished ones nobody watches leave memory.

Nothing is sent under a table's lock: the views are made under it and handed to
each socket's :class:`Outbox`, a bounded queue with a sender task of its own, so a
socket that reads slowly or never holds up neither its table nor any other; one
that lets :data:`OUTBOX_SIZE` messages pile up is closed (code :data:`TOO_SLOW`).

The sockets are anything with an ``async send_text(str)`` (Starlette's
``WebSocket`` on the site); nothing here needs the web extra.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import secrets
import time
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from tablezoo.games import game_class
from tablezoo.tables.store import Store
from tablezoo.tables.table import FINISHED, WAITING, Reply, Table
from tablezoo.tables.wire import dumps

if TYPE_CHECKING:
    from starlette.websockets import WebSocket

TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
SEND_TIMEOUT = 10.0
"""Seconds a socket may take to accept a message before it is dropped."""
OUTBOX_SIZE = 32
"""Messages waiting to be sent to one socket; a socket that lets more pile up is closed."""
TOO_SLOW = 4408
"""The code a socket is closed with when it does not read its messages (:data:`OUTBOX_SIZE`)."""
CLOSE_TIMEOUT = 2.0
"""Seconds the closing of a socket too slow to read may take (it happens in the background)."""
PAGE_SIZE = 50
"""Tables in one page of ``/api/tables`` unless ``limit`` says otherwise (at most 200)."""
EXPIRE_AFTER = 6 * 3600.0
"""Seconds without a socket or a command after which a waiting or playing table is expired."""


class Outbox:
    """The messages waiting for one socket, and the task that sends them one at a time."""

    def __init__(self, websocket: WebSocket, failed: Callable[[], None]) -> None:
        self.websocket = websocket
        self.queue: asyncio.Queue[str] = asyncio.Queue(OUTBOX_SIZE)
        self._failed = failed
        self.task = asyncio.create_task(self._send_all())

    def put(self, text: str) -> bool:
        """Queue ``text``; False when the queue is full (the socket does not keep up)."""
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            return False
        return True

    async def _send_all(self) -> None:
        while True:
            text = await self.queue.get()
            try:
                await asyncio.wait_for(self.websocket.send_text(text), SEND_TIMEOUT)
            except Exception:  # a socket that closed or stalls is dropped; its own loop ends it
                self._failed()
                return
            finally:
                self.queue.task_done()


class Hub:
    """The tables of one server: in memory, with their locks, their sockets and their store.

    Only tables waiting or under way, and finished ones that a socket still
    watches, are kept in memory; the store keeps them all.
    """

    def __init__(
        self, store: Store | None, expire_after: float = EXPIRE_AFTER, agent_think: float = 0.0
    ) -> None:
        self.store = cast("Store", store)  # None only in a subclass with a store of its own
        self.tables: dict[str, Table] = {}
        self.sockets: dict[str, dict[WebSocket, str]] = {}
        self.outboxes: dict[WebSocket, Outbox] = {}
        """What waits to be sent to each socket (see :meth:`send`)."""
        self._closing: set[asyncio.Task[None]] = set()
        self.active: dict[str, float] = {}
        """When each table in memory last had a command or a socket (monotonic seconds)."""
        self.expire_after = expire_after
        self.agent_think = agent_think
        """The seconds a move a bare ``agent`` thinks at the tables made here (:attr:`Table.agent_think`)."""
        # a table's lock lives as long as someone holds or awaits it (then a new one is made)
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        for table in store.load_all() if store is not None else ():
            self._adopt(table)

    # ------------------------------------------------------------ what the endpoints await
    # (the cluster's hub reads and writes its database there: tablezoo.tables.cluster)

    async def start(self) -> None:
        """Called when the site starts."""

    async def stop(self) -> None:
        """Called when the site stops: the store is closed."""
        self.store.close()

    async def fetch(self, table_id: str) -> Table | None:
        """The table ``table_id`` as it stands now, or None."""
        return self.get(table_id)

    async def create(self, game: str, options: dict[str, bool]) -> Table:
        """A new table of ``game`` with ``options`` (raises ``TablezooError`` for a wrong option)."""
        table = Table.new(game, table_id=self.new_id(), options=options, agent_think=self.agent_think)
        return self.add(table)

    async def open_count(self) -> int:
        """How many tables wait for players."""
        return self.open_tables()

    async def page(
        self, phase: str | None = None, offset: int = 0, limit: int = PAGE_SIZE
    ) -> list[dict[str, Any]]:
        """A page of the lobby's list (:meth:`summaries`)."""
        return self.summaries(phase, offset, limit)

    async def tick(self) -> list[str]:
        """The periodic upkeep (:meth:`sweep`); returns the ids of the tables expired."""
        return self.sweep()

    def _adopt(self, table: Table) -> Table:
        if self.store.save not in table.listeners:
            table.listeners.append(self.store.save)
        self.tables[table.table_id] = table
        self.active[table.table_id] = time.monotonic()
        return table

    def _drop(self, table_id: str) -> None:
        """Forget a table in memory (it stays in the store)."""
        self.tables.pop(table_id, None)
        self.active.pop(table_id, None)
        self._locks.pop(table_id, None)
        self.sockets.pop(table_id, None)
        if self.store is not None:  # None in the cluster's hub, whose store keeps no marks
            self.store.forget(table_id)

    def add(self, table: Table) -> Table:
        """A new table: kept, and saved at once."""
        self.store.save(table)
        return self._adopt(table)

    def get(self, table_id: str) -> Table | None:
        """A table in memory, or a finished one read back from the store (kept while watched)."""
        table = self.tables.get(table_id)
        if table is None and TABLE_ID.fullmatch(table_id):
            stored = self.store.get(table_id)
            if stored is not None and stored.phase == FINISHED:
                table = stored  # kept in memory only once a socket connects (Hub.connect)
        return table

    def new_id(self) -> str:
        """A table id no table in memory or in the store has."""
        while True:
            table_id = secrets.token_hex(4)
            if table_id not in self.tables and self.store.get(table_id) is None:
                return table_id

    def open_tables(self) -> int:
        """How many tables wait for players."""
        return sum(1 for t in self.tables.values() if t.phase == WAITING)

    def lock(self, table_id: str) -> asyncio.Lock:
        """The lock a table's commands and reads run under, one at a time."""
        lock = self._locks.get(table_id)
        if lock is None:
            lock = self._locks[table_id] = asyncio.Lock()
        return lock

    async def connect(self, table: Table, websocket: WebSocket, client: str) -> None:
        """Watch ``table`` from ``websocket`` as ``client``; the socket gets its first view."""
        async with self.lock(table.table_id):
            if table.table_id not in self.tables:  # archived meanwhile: watch it again
                self._adopt(table)
            self.sockets.setdefault(table.table_id, {})[websocket] = client
            self.active[table.table_id] = time.monotonic()
            # the whole log at first; later views carry the latest lines, which the page merges
            await self.send(table.table_id, websocket, {"view": table.view(client, log_from=0)})

    def disconnect(self, table_id: str, websocket: WebSocket) -> None:
        """The socket is gone; a finished table nobody watches any more leaves memory."""
        self.sockets.get(table_id, {}).pop(websocket, None)
        self._forget(websocket)
        table = self.tables.get(table_id)
        if table is not None:
            self.active[table_id] = time.monotonic()
            self._release(table)

    def _release(self, table: Table) -> None:
        """A finished table no socket watches leaves memory (the store has it)."""
        if table.phase == FINISHED and not self.sockets.get(table.table_id):
            self._drop(table.table_id)

    async def command(self, table: Table, websocket: WebSocket, client: str, text: str) -> Reply:
        """Carry out ``text`` for ``client``; when it changed the table every socket gets its own view."""
        async with self.lock(table.table_id):
            reply = await asyncio.to_thread(table.handle, client, text)
            self.active[table.table_id] = time.monotonic()
            answer = {"reply": {"ok": reply.ok, "text": reply.text}}
            if reply.ok and reply.changed:
                await self._broadcast(table, websocket, answer)
            else:  # refused, or only read: the asker alone hears
                await self.send(table.table_id, websocket, answer)
            return reply

    async def _broadcast(self, table: Table, sender: WebSocket | None, answer: dict[str, Any]) -> None:
        """Every socket of ``table`` gets its own client's view; the sender's comes with ``answer``."""
        # a view depends on the client only through its seat: made and encoded once per seat
        views: dict[int | None, dict[str, Any]] = {}
        texts: dict[int | None, str] = {}
        for socket, socket_client in list(self.sockets.get(table.table_id, {}).items()):
            seat = table.seat_of(socket_client)
            if seat not in views:
                views[seat] = table.view(socket_client)
                texts[seat] = dumps({"view": views[seat]})
            if socket is sender:
                await self.send(table.table_id, socket, {"view": views[seat], **answer})
            else:
                await self.send(table.table_id, socket, texts[seat])

    async def send(self, table_id: str, websocket: WebSocket, message: dict[str, Any] | str) -> None:
        """Queue ``message`` (a dict, or its JSON text) for one socket; this never waits for the
        socket. A socket whose queue is full is dropped and closed (code :data:`TOO_SLOW`)."""
        text = message if isinstance(message, str) else dumps(message)
        outbox = self.outboxes.get(websocket)
        if outbox is None:
            outbox = self.outboxes[websocket] = Outbox(websocket, lambda: self._dropped(table_id, websocket))
        if not outbox.put(text):
            self._dropped(table_id, websocket)
            task = asyncio.create_task(self._close(websocket))
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)

    def _dropped(self, table_id: str, websocket: WebSocket) -> None:
        """A socket that failed or fell behind gets nothing more."""
        self.sockets.get(table_id, {}).pop(websocket, None)
        self._forget(websocket)

    def _forget(self, websocket: WebSocket) -> None:
        outbox = self.outboxes.pop(websocket, None)
        if outbox is not None and outbox.task is not asyncio.current_task():
            outbox.task.cancel()

    async def _close(self, websocket: WebSocket) -> None:
        """Close a socket too slow to read, in the background (its own loop then ends)."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(websocket.close(code=TOO_SLOW), CLOSE_TIMEOUT)

    async def delivered(self) -> None:
        """Wait until every message queued so far was sent (or its socket dropped)."""
        for outbox in list(self.outboxes.values()):
            joined = asyncio.create_task(outbox.queue.join())
            await asyncio.wait((joined, outbox.task), return_when=asyncio.FIRST_COMPLETED)
            joined.cancel()

    def sweep(self, now: float | None = None) -> list[str]:
        """Expire the tables nobody watches or plays at for ``expire_after`` seconds; archive
        finished ones nobody watches. Returns the ids expired."""
        now = time.monotonic() if now is None else now
        expired = []
        for table_id, table in list(self.tables.items()):
            if self.sockets.get(table_id):
                continue
            if table.phase == FINISHED:
                self._drop(table_id)
            elif now - self.active.get(table_id, now) >= self.expire_after:
                self.store.expire(table_id)
                self._drop(table_id)
                expired.append(table_id)
        return expired

    def summaries(
        self, phase: str | None = None, offset: int = 0, limit: int = PAGE_SIZE
    ) -> list[dict[str, Any]]:
        """A page of the lobby's list: tables waiting, then under way (in memory), then finished
        ones (from the store, latest first); ``phase`` keeps one of them only."""
        live = [
            summary(t)
            for t in sorted(self.tables.values(), key=lambda t: t.phase != WAITING)
            if t.phase != FINISHED and (phase is None or t.phase == phase)
        ]
        page = live[offset : offset + limit]
        if phase in (None, FINISHED) and len(page) < limit:
            skip = max(0, offset - len(live))
            for row in self.store.finished(limit - len(page), skip):
                page.append(_summary(row["id"], row["game"], FINISHED, row["seats"]))
        return page


def summary(table: Table) -> dict[str, Any]:
    """A table as the lobby lists it."""
    return _summary(table.table_id, table.game_name, table.phase, [o.name for o in list(table.seats)])


def summary_row(table_id: str, game: str, phase: str, seats: list[str]) -> dict[str, Any]:
    """A table as the lobby lists it, from its id, game, phase and seat names."""
    return _summary(table_id, game, phase, seats)


def _summary(table_id: str, game: str, phase: str, seats: list[str]) -> dict[str, Any]:
    info = game_class(game).info
    return {
        "id": table_id,
        "game": game,
        "title": info.title,
        "phase": phase,
        "seats": seats,
        "players": len(seats),
        "min_seats": info.min_seats,
        "max_seats": info.max_seats,
    }
