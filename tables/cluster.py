"""The site past one process: tables in PostgreSQL, view changes through Redis, any number of workers.

``tablezoo serve --database postgresql://... --broker redis://... --workers N`` runs
:class:`ClusterHub` in every worker process instead of the one-process
:class:`~tablezoo.tables.hub.Hub` (whose tables live in memory over SQLite). Any
worker accepts any socket of any table:

* **PostgreSQL holds the truth** (:class:`PgStore`), kept as the SQLite store
  keeps it (:mod:`tablezoo.tables.store`): a small row per table with its
  version, the log of its accepted commands with what each changed (``commands``,
  keyed by table and version, so no version can be written twice), and snapshots
  of its record (its origin, then one every
  :data:`~tablezoo.tables.store.SNAPSHOT_EVERY` versions and at the end of the
  game). A move appends a row: the bytes written for it do not grow with the
  game. A worker keeps a copy of the tables its sockets watch, and brings it up
  to date with the deltas it misses when the stored version is newer
  (:meth:`Table.from_record <tablezoo.tables.table.Table.from_record>` with the
  copy as its base: only the new moves are played).
* **Commands on one table are serialised across workers** by the row's lock: a
  command reads the row ``FOR UPDATE``, runs on the up-to-date copy (bots move
  there too, in a worker thread, holding up no other table), and appends its
  command-log line with its delta (and a snapshot when one is due) in the same
  transaction. A failure anywhere
  (the database gone mid-command, say) rolls it back and throws the copy away:
  nothing is half-applied, and the sender is told its command was not carried out.
* **Redis pub/sub rings the bell**: after a commit the worker sends its own sockets
  their views and publishes the table's new version on ``tablezoo:table:<id>``.
  The workers holding sockets of that table (each subscribes to the tables its
  sockets watch) read the deltas their copies miss and send each socket its own seat's view. A
  message carries only the version; the views are made by the worker that holds
  the socket, so nothing hidden crosses the broker. When the broker is down,
  commands still work and are stored; once it is back every worker resends the
  views that changed meanwhile.

Migrations are Alembic's (:func:`migrate`, run by ``tablezoo serve`` before its
workers start, under an advisory lock so that several sites starting together
run them once). The limits are counted in Redis for the whole site
(:class:`~tablezoo.tables.limits.SharedLimits`).

**An outage of PostgreSQL** is answered within about a second: a command waits at
most :data:`ACQUIRE_TIMEOUT` for a connection; the first failure opens the
worker's :class:`Breaker`, and from then on every command is refused at once,
before it takes its table's lock, while a probe tries the database in the
background every :data:`PROBE_EVERY` seconds. When the probe reaches it the
breaker closes and the worker resends its sockets the views that changed (a
version announced during the outage could not be read then). Refusals say
:data:`DATABASE_DOWN`, never a library's error (that goes to the log).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from tablezoo.games.core import TablezooError
from tablezoo.tables.hub import PAGE_SIZE, TABLE_ID, Hub, summary_row
from tablezoo.tables.store import (
    Mark,
    TableRows,
    advance,
    delta,
    dumps,
    forward,
    pack,
    replay_commands,
    snapshot_due,
    unpack,
)
from tablezoo.tables.table import FINISHED, PLAYING, WAITING, Reply, Table
from tablezoo.tables.wire import UnavailableError

if TYPE_CHECKING:
    from starlette.websockets import WebSocket

log = logging.getLogger(__name__)

CHANNEL = "tablezoo:table:"
"""Prefix of a table's pub/sub channel; the table id follows."""
EXPIRED = "expired"
DATABASE_DOWN = "the site's database cannot be reached: nothing was changed; try again in a moment"
ACQUIRE_TIMEOUT = 1.0
"""Seconds a command waits for a database connection before it is refused (the database is down)."""
PROBE_EVERY = 0.25
"""Seconds between two probes of a database that failed (:class:`Breaker`)."""
MIGRATION_LOCK = 0x7461626C657A6F6F
"""The advisory lock :func:`migrate` holds (``tablezoo`` in ASCII)."""

T = TypeVar("T")


def require_extra() -> None:
    """Raise ModuleNotFoundError unless the cluster extra's libraries are installed."""
    import alembic  # noqa: F401
    import limits  # noqa: F401
    import psycopg  # noqa: F401
    import psycopg_pool  # noqa: F401
    import redis  # noqa: F401


# --------------------------------------------------------------------------- the schema


def sqlalchemy_url(url: str) -> str:
    """``postgresql://...`` as SQLAlchemy names the psycopg 3 driver (for Alembic)."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme not in ("postgresql", "postgres", "postgresql+psycopg"):
        raise TablezooError(f"the database must be a postgresql://USER@HOST:PORT/NAME URL, not {url!r}")
    return f"postgresql+psycopg://{rest}"


def migrate(url: str, revision: str = "head") -> None:
    """Bring the database at ``url`` to the newest schema (Alembic's ``upgrade head``), or to
    ``revision`` (an older one: Alembic's ``downgrade`` when the database is past it).

    Several processes may call this at once: an advisory lock lets one migrate while
    the others wait, then find nothing left to do.
    """
    import sqlalchemy
    from alembic import command
    from alembic.config import Config
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    engine = sqlalchemy.create_engine(sqlalchemy_url(url), poolclass=sqlalchemy.pool.NullPool)
    try:
        with engine.begin() as connection:
            connection.execute(sqlalchemy.text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
            config = Config()
            config.set_main_option("script_location", "tablezoo.tables:migrations")
            config.attributes["connection"] = connection
            current = MigrationContext.configure(connection).get_current_revision()
            script = ScriptDirectory.from_config(config)
            below = {r.revision for r in script.walk_revisions("base", current)} if current else set()
            if revision != current and revision in below:  # the database is past it
                command.downgrade(config, revision)
            else:
                command.upgrade(config, revision)
    except sqlalchemy.exc.OperationalError as err:
        raise UnavailableError(f"cannot reach the database to migrate it: {err.orig or err}") from None
    finally:
        engine.dispose()


# --------------------------------------------------------------------------- the store


class Breaker:
    """A circuit breaker: closed while the database answers; open from its first failure until a
    probe in the background (every ``every`` seconds) reaches it again.

    While it is open :meth:`check` refuses at once, so that a command during an outage is
    answered without waiting for a connection. ``on_close`` callbacks run (in the probe's
    thread) when the database answers again.
    """

    def __init__(self, probe: Callable[[], None], every: float = PROBE_EVERY) -> None:
        self.probe = probe
        self.every = every
        self.on_close: list[Callable[[], None]] = []
        self._open = threading.Event()
        self._stopped = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def is_open(self) -> bool:
        return self._open.is_set()

    def check(self) -> None:
        """Raise :class:`UnavailableError` while the breaker is open."""
        if self._open.is_set():
            raise UnavailableError(DATABASE_DOWN)

    def trip(self) -> None:
        """Open the breaker (the database just failed); a probe runs until it answers."""
        with self._lock:
            self._open.set()
            if self._thread is None and not self._stopped.is_set():
                self._thread = threading.Thread(target=self._probe, name="tablezoo-db-probe", daemon=True)
                self._thread.start()

    def _probe(self) -> None:
        while not self._stopped.wait(self.every):
            try:
                self.probe()
            except Exception as err:  # still down: probe again
                log.debug("the database is still unreachable: %s", err)
                continue
            with self._lock:
                self._open.clear()
                self._thread = None
            log.warning("the database answers again: commands are carried out")
            for callback in list(self.on_close):
                try:
                    callback()
                except Exception:
                    log.exception("a callback of the database's return failed")
            return

    def stop(self) -> None:
        self._stopped.set()


class PgStore:
    """The tables of one PostgreSQL database, through a pool of psycopg connections.

    Every method is blocking (the hub calls them in worker threads) and raises
    :class:`UnavailableError` when the database cannot be reached: after waiting at
    most ``timeout`` seconds for a connection the first time, at once while the
    :class:`Breaker` is open (until its probe reaches the database again).
    """

    def __init__(self, url: str, *, pool_size: int = 10, timeout: float = ACQUIRE_TIMEOUT) -> None:
        from psycopg_pool import ConnectionPool

        self.url = url
        self.pool = ConnectionPool(
            url,
            min_size=1,
            max_size=pool_size,
            timeout=timeout,
            open=False,
            check=ConnectionPool.check_connection,  # a connection broken by a restart is replaced
            # give up reconnecting soon: the next command tries again at once, rather than after
            # the pool's growing back-off (which would keep a restarted database unused for a while)
            reconnect_timeout=2.0,
            kwargs={"autocommit": True},
            name="tablezoo",
        )
        self.breaker = Breaker(self._probe)
        self.pool.open(wait=False)

    def _probe(self) -> None:
        """Reach the database on a connection of its own (the pool's may all be broken)."""
        import psycopg

        with psycopg.connect(self.url, connect_timeout=max(1, round(ACQUIRE_TIMEOUT))) as conn:
            conn.execute("SELECT 1")

    def _run(self, work: Callable[[Any], T]) -> T:
        """``work(connection)`` in one transaction; a failure to reach the database raises
        :class:`UnavailableError` (its cause is logged, never shown to a client)."""
        import psycopg
        import psycopg_pool

        self.breaker.check()
        try:
            with self.pool.connection() as conn, conn.transaction():
                return work(conn)
        except (psycopg.OperationalError, psycopg_pool.PoolTimeout) as err:
            if not _unreachable(err):
                raise
            if not self.breaker.is_open:
                log.warning("the database %s is unreachable: %s", _redacted(self.url), err)
            self.breaker.trip()
            raise UnavailableError(DATABASE_DOWN) from None

    # ------------------------------------------------------------ tables

    def create(self, table: Table) -> None:
        """Store a new table: its row, and its record as its first snapshot (at version 0 this is
        its origin, where a replay of its commands starts)."""
        now = time.time()

        def work(conn: Any) -> None:
            conn.execute(
                "INSERT INTO tables (id, game, phase, version, seats, snapshot, created, updated, seen) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (*_row(table), table.version, now, now, now),
            )
            _snapshot(conn, table)

        self._run(work)

    def exists(self, table_id: str) -> bool:
        return self._run(
            lambda conn: (
                conn.execute("SELECT 1 FROM tables WHERE id = %s", (table_id,)).fetchone() is not None
            )
        )

    def load(self, table_id: str, cached: Table | None = None) -> Table | None:
        """The table as stored (None: none, or expired); ``cached`` itself when it is current."""

        def work(conn: Any) -> Table | None:
            row = conn.execute(
                "SELECT version, phase, snapshot FROM tables WHERE id = %s", (table_id,)
            ).fetchone()
            if row is None or row[1] == EXPIRED:
                return None
            return _current(conn, table_id, row[0], row[2], cached)

        return self._run(work)

    def command(
        self, table_id: str, client: str, text: str, cached: Table | None
    ) -> tuple[Reply, Table | None]:
        """Carry out ``text`` for ``client`` at the table, serialised with every other worker.

        The row is locked for the whole command; the table it runs on is ``cached``
        when that is current, else the stored one (its latest snapshot and the deltas
        after it, or only the deltas ``cached`` misses). An accepted command that changed
        the table is appended (its log line with its delta, and a snapshot when one is
        due) in the same transaction. Returns the reply and the table after it (None: no
        such table). ``cached`` must not be used afterwards: the table returned replaces it.
        """

        def work(conn: Any) -> tuple[Reply, Table | None]:
            row = conn.execute(
                "SELECT version, phase, snapshot FROM tables WHERE id = %s FOR UPDATE", (table_id,)
            ).fetchone()
            if row is None or row[1] == EXPIRED:
                return Reply(False, "no such table: it was closed after nobody played or watched it"), None
            table = _current(conn, table_id, row[0], row[2], cached)
            before = Mark.of(table)
            reply = table.handle(client, text)
            if reply.ok and reply.changed:
                now = time.time()
                snapshot = table.version if snapshot_due(table, before, row[2]) else row[2]
                conn.execute(
                    "UPDATE tables SET phase = %s, version = %s, seats = %s, snapshot = %s, updated = %s "
                    "WHERE id = %s",
                    (table.phase, table.version, _seats(table), snapshot, now, table_id),
                )
                conn.execute(
                    "INSERT INTO commands (table_id, version, client, command, at, delta) "
                    "VALUES (%s, %s, %s, %s, %s, %s)",
                    (table_id, table.version, client, text, now, dumps(delta(table, before))),
                )
                if snapshot != row[2]:
                    _snapshot(conn, table)
            return reply, table

        return self._run(work)

    def count(self, phase: str) -> int:
        return int(
            self._run(
                lambda conn: conn.execute(
                    "SELECT count(*) FROM tables WHERE phase = %s", (phase,)
                ).fetchone()[0]
            )
        )

    def page(self, phase: str | None, offset: int, limit: int) -> list[dict[str, Any]]:
        """A page of the lobby: waiting tables, then those under way (oldest first), then finished
        ones (latest first); ``phase`` keeps one of them."""
        phases = [phase] if phase else [WAITING, PLAYING, FINISHED]
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT id, game, phase, seats FROM tables WHERE phase = ANY(%s) "
                "ORDER BY CASE phase WHEN 'waiting' THEN 0 WHEN 'playing' THEN 1 ELSE 2 END, "
                "CASE WHEN phase = 'finished' THEN -updated ELSE created END, id "
                "OFFSET %s LIMIT %s",
                (phases, offset, limit),
            ).fetchall()
        )
        return [summary_row(i, g, p, list(s)) for i, g, p, s in rows]

    def touch(self, table_ids: list[str]) -> None:
        """The tables are watched by a socket now (they do not expire)."""
        if table_ids:
            now = time.time()
            self._run(
                lambda conn: conn.execute("UPDATE tables SET seen = %s WHERE id = ANY(%s)", (now, table_ids))
            )

    def expire(self, idle: float) -> list[str]:
        """Expire the waiting and playing tables without a command or a socket for ``idle`` seconds."""
        cutoff = time.time() - idle
        rows = self._run(
            lambda conn: conn.execute(
                "UPDATE tables SET phase = %s "
                "WHERE phase IN (%s, %s) AND updated < %s AND seen < %s RETURNING id",
                (EXPIRED, WAITING, PLAYING, cutoff, cutoff),
            ).fetchall()
        )
        return [r[0] for r in rows]

    # ------------------------------------------------------------ the command log

    def commands(self, table_id: str) -> list[tuple[int, str, str]]:
        """The accepted commands of a table, in order: ``(version, client, command)``."""
        return self._run(
            lambda conn: conn.execute(
                "SELECT version, client, command FROM commands WHERE table_id = %s ORDER BY version",
                (table_id,),
            ).fetchall()
        )

    def origin(self, table_id: str) -> dict[str, Any] | None:
        """The record the table was created with (its snapshot at version 0), or None."""
        row = self._run(
            lambda conn: conn.execute(
                "SELECT record FROM snapshots WHERE table_id = %s AND version = 0", (table_id,)
            ).fetchone()
        )
        return None if row is None else unpack(row[0])

    def replay(self, table_id: str) -> Table:
        """The table rebuilt from its origin by carrying out its logged commands again, in order."""
        origin = self.origin(table_id)
        if origin is None:
            raise TablezooError(f"no table {table_id!r}")
        return replay_commands(table_id, Table.from_record(origin), self.commands(table_id))

    def record(self, table_id: str) -> dict[str, Any] | None:
        """The stored record of a table: its latest snapshot and the deltas after it."""

        def work(conn: Any) -> dict[str, Any] | None:
            row = conn.execute("SELECT snapshot FROM tables WHERE id = %s", (table_id,)).fetchone()
            return None if row is None else _stored_record(conn, table_id, row[0], None)

        return self._run(work)

    def put(self, rows: TableRows) -> str:
        """Store a table moved from another store (:meth:`Store.dump
        <tablezoo.tables.store.Store.dump>`), in one transaction. Returns ``"moved"``,
        ``"present"`` (stored already at that version: nothing written), ``"updated"`` (stored at
        an older version: brought forward) or ``"newer"`` (the database's copy has moved past the
        one given: left alone)."""

        def work(conn: Any) -> str:
            row = conn.execute("SELECT version FROM tables WHERE id = %s FOR UPDATE", (rows.id,)).fetchone()
            if row is not None and row[0] > rows.version:
                return "newer"
            if row is not None and row[0] == rows.version:
                return "present"
            fields = (rows.phase, rows.version, json.dumps(rows.seats), rows.snapshot, rows.updated)
            if row is None:
                conn.execute(
                    "INSERT INTO tables (id, game, created, seen, phase, version, seats, snapshot, updated) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    (rows.id, rows.game, rows.created, rows.updated, *fields),
                )
            else:
                conn.execute(
                    "UPDATE tables SET phase = %s, version = %s, seats = %s, snapshot = %s, updated = %s "
                    "WHERE id = %s",
                    (*fields, rows.id),
                )
            with conn.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO snapshots (table_id, version, record) VALUES (%s, %s, %s) "
                    "ON CONFLICT (table_id, version) DO NOTHING",
                    [(rows.id, version, record) for version, record in rows.snapshots],
                )
                cursor.executemany(
                    "INSERT INTO commands (table_id, version, client, command, at, delta) "
                    "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (table_id, version) DO NOTHING",
                    [(rows.id, *command) for command in rows.commands],
                )
            conn.execute(
                "DELETE FROM snapshots WHERE table_id = %s AND version > 0 AND version < %s",
                (rows.id, rows.snapshot),
            )
            return "moved" if row is None else "updated"

        return self._run(work)

    def ids(self) -> list[str]:
        """Every table id in the database, expired ones too, oldest first."""
        return [
            r[0] for r in self._run(lambda conn: conn.execute("SELECT id FROM tables ORDER BY created, id"))
        ]

    def close(self) -> None:
        self.breaker.stop()
        self.pool.close()


def _unreachable(err: Exception) -> bool:
    """Whether ``err`` says the database cannot be reached (no connection, or a server shutting
    down or starting), rather than that one statement failed."""
    state = getattr(err, "sqlstate", None)
    return state is None or state.startswith(("08", "57P"))


def _redacted(url: str) -> str:
    """``url`` without its password (for the log)."""
    scheme, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    return f"{scheme}{sep}{credentials.partition(':')[0]}{at}{host}" if at else url


def _stored_record(conn: Any, table_id: str, snapshot: int, since: Table | None) -> dict[str, Any]:
    """The table's record: its snapshot at version ``snapshot`` and the deltas after it, or
    ``since`` (an older copy, at or past that snapshot) and the deltas it misses."""
    if since is not None and since.version >= snapshot:
        record, at = since.to_record(), since.version
    else:
        found = conn.execute(
            "SELECT record FROM snapshots WHERE table_id = %s AND version = %s", (table_id, snapshot)
        ).fetchone()
        if found is None:
            raise TablezooError(f"the snapshot of table {table_id} at version {snapshot} is missing")
        record, at = unpack(found[0]), snapshot
    deltas = conn.execute(
        "SELECT version, delta FROM commands WHERE table_id = %s AND version > %s ORDER BY version",
        (table_id, at),
    ).fetchall()
    return forward(table_id, record, at, deltas)


def _current(conn: Any, table_id: str, version: int, snapshot: int, cached: Table | None) -> Table:
    """The table at its stored ``version``: ``cached`` itself when current or when the deltas it
    misses play on it (:meth:`Table.advance <tablezoo.tables.table.Table.advance>`: the cost of
    the new moves, not of the game), else rebuilt from the latest snapshot and the deltas after
    it (on ``cached``'s game when it is an older copy, so that only the new moves are played)."""
    if cached is not None and cached.version == version:
        return cached
    if cached is not None and snapshot <= cached.version < version:
        deltas = conn.execute(
            "SELECT version, delta FROM commands WHERE table_id = %s AND version > %s ORDER BY version",
            (table_id, cached.version),
        ).fetchall()
        if advance(table_id, cached, deltas):
            return cached
    return Table.from_record(_stored_record(conn, table_id, snapshot, None), base=cached)


def _snapshot(conn: Any, table: Table) -> None:
    """Store the table's record at its version; the older snapshots but the origin go."""
    conn.execute(
        "INSERT INTO snapshots (table_id, version, record) VALUES (%s, %s, %s) "
        "ON CONFLICT (table_id, version) DO UPDATE SET record = excluded.record",
        (table.table_id, table.version, pack(table.to_record())),
    )
    conn.execute(
        "DELETE FROM snapshots WHERE table_id = %s AND version > 0 AND version < %s",
        (table.table_id, table.version),
    )


def _row(table: Table) -> tuple[str, str, str, int, str]:
    """The table's id, game, phase, version and seat names (JSON), as its row holds them."""
    return table.table_id, table.game_name, table.phase, table.version, _seats(table)


def _seats(table: Table) -> str:
    return json.dumps([o.name for o in table.seats])


# --------------------------------------------------------------------------- the hub of one worker


class ClusterHub(Hub):
    """The hub of one worker of several: tables in PostgreSQL, view changes through Redis.

    ``tables`` holds this worker's up-to-date copies of the tables its sockets
    watch; ``sent`` the version whose views its sockets were last sent.
    """

    def __init__(self, store: PgStore, broker: str, expire_after: float, agent_think: float = 0.0) -> None:
        super().__init__(None, expire_after=expire_after, agent_think=agent_think)
        self.pg = store
        self.broker_url = broker
        self.sent: dict[str, int] = {}
        self._redis: Any = None
        self._pubsub: Any = None
        self._listener: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.broker_up = asyncio.Event()

    # ------------------------------------------------------------ running

    async def start(self) -> None:
        import redis.asyncio as aioredis

        loop = asyncio.get_running_loop()
        # the database is back: the views that could not be read meanwhile are sent now
        self.pg.breaker.on_close.append(lambda: self._call_soon(loop, self._database_back))

        self._redis = aioredis.from_url(
            self.broker_url, socket_connect_timeout=2, socket_timeout=2, retry_on_timeout=False
        )
        self._listener = asyncio.create_task(self._listen())

    async def stop(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
        for task in list(self._tasks):
            task.cancel()
        if self._redis is not None:
            await self._redis.aclose()
        await asyncio.to_thread(self.pg.close)

    async def _listen(self) -> None:
        """Follow the channels of the tables this worker's sockets watch; reconnect when the broker goes."""
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        delay = 0.1
        while True:
            client = aioredis.from_url(
                self.broker_url,
                socket_connect_timeout=2,
                retry=Retry(NoBackoff(), 0),
                health_check_interval=5,
            )
            pubsub = client.pubsub(ignore_subscribe_messages=True)
            try:
                # the bare prefix is never published to: it keeps the connection subscribed (and
                # listening) while this worker watches no table
                await pubsub.subscribe(CHANNEL, *(CHANNEL + t for t, s in self.sockets.items() if s))
                self._pubsub = pubsub
                self.broker_up.set()
                delay = 0.1
                self._spawn(self._resync())  # what was published while this worker listened to nothing
                async for message in pubsub.listen():
                    if message["type"] == "message":
                        channel = message["channel"].decode()
                        self._spawn(self._deliver(channel[len(CHANNEL) :], int(message["data"])))
            except asyncio.CancelledError:
                raise
            except Exception as err:  # the broker is gone: views wait until it is back
                if self.broker_up.is_set():
                    log.warning("the broker %s is unreachable (%s); reconnecting", self.broker_url, err)
            finally:
                self.broker_up.clear()
                self._pubsub = None
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                with contextlib.suppress(Exception):
                    await client.aclose()
            await asyncio.sleep(delay)
            delay = min(2 * delay, 2.0)

    def _spawn(self, work: Any) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @staticmethod
    def _call_soon(loop: asyncio.AbstractEventLoop, callback: Callable[[], None]) -> None:
        with contextlib.suppress(RuntimeError):  # the loop was closed: the site stopped
            loop.call_soon_threadsafe(callback)

    def _database_back(self) -> None:
        self._spawn(self._resync())

    async def _resync(self) -> None:
        for table_id, sockets in list(self.sockets.items()):
            if sockets:
                await self._deliver(table_id, None)

    async def _deliver(self, table_id: str, version: int | None) -> None:
        """Send this worker's sockets of the table their views, if the table moved past what they saw."""
        if not self.sockets.get(table_id):
            return
        async with self.lock(table_id):
            if version is not None and self.sent.get(table_id, -1) >= version:
                return
            try:
                table = await asyncio.to_thread(self.pg.load, table_id, self.tables.pop(table_id, None))
            except UnavailableError:  # sent when the database is back (_database_back)
                return
            except Exception:
                log.exception("table %s could not be read to send its views", table_id)
                return
            if table is None:
                return
            self.tables[table_id] = table
            if table.version > self.sent.get(table_id, -1):
                self.sent[table_id] = table.version
                await self._broadcast(table, None, {})

    async def _publish(self, table: Table) -> None:
        try:
            await self._redis.publish(CHANNEL + table.table_id, table.version)
        except Exception as err:  # stored all the same; the other workers resync when it is back
            log.warning("could not publish table %s's version %d: %s", table.table_id, table.version, err)

    # ------------------------------------------------------------ tables

    def get(self, table_id: str) -> Table | None:
        """This worker's copy of a table, if it holds one (:meth:`fetch` reads the database)."""
        return self.tables.get(table_id)

    async def fetch(self, table_id: str) -> Table | None:
        if not TABLE_ID.fullmatch(table_id):
            return None
        async with self.lock(table_id):
            table = await asyncio.to_thread(self.pg.load, table_id, self.tables.pop(table_id, None))
            if table is not None and self.sockets.get(table_id):
                self.tables[table_id] = table
            return table

    async def create(self, game: str, options: dict[str, bool]) -> Table:
        table = Table.new(game, table_id=secrets.token_hex(8), options=options, agent_think=self.agent_think)
        await asyncio.to_thread(self.pg.create, table)
        return table

    async def open_count(self) -> int:
        return await asyncio.to_thread(self.pg.count, WAITING)

    async def page(
        self, phase: str | None = None, offset: int = 0, limit: int = PAGE_SIZE
    ) -> list[dict[str, Any]]:
        return await asyncio.to_thread(self.pg.page, phase, offset, limit)

    # ------------------------------------------------------------ sockets and commands

    async def connect(self, table: Table, websocket: WebSocket, client: str) -> None:
        table_id = table.table_id
        first = not self.sockets.get(table_id)
        self.sockets.setdefault(table_id, {})[websocket] = client
        if first and self._pubsub is not None:
            with contextlib.suppress(Exception):  # the listener resubscribes when it reconnects
                await self._pubsub.subscribe(CHANNEL + table_id)
        async with self.lock(table_id):
            current = await asyncio.to_thread(self.pg.load, table_id, self.tables.pop(table_id, None))
            if current is None:
                return
            self.tables[table_id] = current
            await self.send(table_id, websocket, {"view": current.view(client, log_from=0)})

    def disconnect(self, table_id: str, websocket: WebSocket) -> None:
        sockets = self.sockets.get(table_id, {})
        sockets.pop(websocket, None)
        self._forget(websocket)
        if not sockets:
            self.sockets.pop(table_id, None)
            self.tables.pop(table_id, None)
            self.sent.pop(table_id, None)
            if self._pubsub is not None:
                self._spawn(self._unsubscribe(table_id))

    async def _unsubscribe(self, table_id: str) -> None:
        if self._pubsub is not None and not self.sockets.get(table_id):
            with contextlib.suppress(Exception):
                await self._pubsub.unsubscribe(CHANNEL + table_id)

    async def command(self, table: Table, websocket: WebSocket, client: str, text: str) -> Reply:
        table_id = table.table_id
        if self.pg.breaker.is_open:  # refused at once: nobody waits for the table's lock
            await self.send(table_id, websocket, {"reply": {"ok": False, "text": DATABASE_DOWN}})
            return Reply(False, DATABASE_DOWN)
        async with self.lock(table_id):
            cached = self.tables.pop(table_id, None)
            try:
                reply, current = await asyncio.to_thread(self.pg.command, table_id, client, text, cached)
            except UnavailableError:
                reply, current = Reply(False, DATABASE_DOWN), None
            except Exception:  # the copy may be half-changed: it is dropped, the database has the truth
                log.exception("command %r at table %s failed", text, table_id)
                reply, current = Reply(False, "the command failed on the server: nothing was changed"), None
            if current is not None and self.sockets.get(table_id):
                self.tables[table_id] = current
            answer = {"reply": {"ok": reply.ok, "text": reply.text}}
            if current is not None and reply.ok and reply.changed:
                self.sent[table_id] = current.version
                await self._broadcast(current, websocket, answer)
                await self._publish(current)
            else:
                await self.send(table_id, websocket, answer)
            return reply

    # ------------------------------------------------------------ upkeep

    async def tick(self) -> list[str]:
        """Mark the tables this worker's sockets watch as seen; expire the abandoned ones."""
        watched = [t for t, s in self.sockets.items() if s]
        await asyncio.to_thread(self.pg.touch, watched)
        return await asyncio.to_thread(self.pg.expire, self.expire_after)


__all__ = [
    "CHANNEL",
    "DATABASE_DOWN",
    "ClusterHub",
    "PgStore",
    "UnavailableError",
    "migrate",
    "sqlalchemy_url",
]
