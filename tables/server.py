"""The web site: tables in the browser over WebSockets, a small JSON API, and an HTTP bot endpoint.

``tablezoo serve`` (or :func:`serve`) runs :func:`create_app` with uvicorn.
Every table lives in memory as a :class:`~tablezoo.tables.table.Table` and is
saved to a :class:`~tablezoo.tables.store.Store` after every accepted command;
a restarted server loads the stored tables and resumes them where they were.

| route | what it does |
|---|---|
| ``GET /`` , ``GET /table/{id}`` | the lobby and table pages (static HTML and JS) |
| ``GET /static/...`` | the pages' script and style sheet |
| ``GET /api/games`` | the games: titles, seat ranges, options with help, bots |
| ``GET /api/tables?phase=&offset=&limit=`` | a page of the tables (``open``, ``playing`` or ``finished``) |
| ``POST /api/tables`` | ``{"game": ..., "options": {...}}`` -> a new table (201) |
| ``GET /api/tables/{id}`` | the table as a spectator sees it |
| ``GET /api/tables/{id}/replay?seat=N`` | the game frame by frame (a seat's own: after the end) |
| ``GET /api/tables/{id}/replay/{step}?seat=N`` | the board after that step, as SVG (same rule) |
| ``POST /api/bot/move`` | a bot's move, from an observation or for a seat of a live table |
| ``WS /ws/{id}`` | play: send ``{"client": TOKEN}``, then ``{"command": ...}``; get views, replies |

A browser is known by the token its page draws once and keeps in
``localStorage``; it is the socket's first message, never part of a URL (URLs
end up in logs). The seat it joins is bound to that token, and each socket is
sent only its own client's :meth:`~tablezoo.tables.table.Table.view`, so no
other browser sees that seat's hidden cards or can move for it. After every
accepted command that changed the table each socket of the table gets
``{"view": ...}``; the sender's message also has ``"reply": {"ok": ..., "text":
...}``. A refused command, and ``/status`` or ``/help`` (they change nothing),
get the reply alone. Commands on one table run one at a time under its lock, in
a worker thread, so a slow bot does not hold up the other tables.

Hardening (each configurable in :func:`create_app`):

* Host and Origin: requests must name an allowed host (``allowed_hosts``: by
  default this machine's loopback names, against DNS rebinding); a WebSocket or
  a POST that carries an ``Origin`` must come from the site itself or from
  ``allowed_origins`` (against other sites' pages), and POST bodies must be
  ``application/json``.
* Limits (:mod:`~tablezoo.tables.limits`): each client may send ``rate``
  commands a second (bursts of ``burst``); each address may create
  ``create_rate`` tables and open ``connect_rate`` sockets a minute; at most
  ``max_open_tables`` tables wait for players at once. A site of several
  workers counts them in Redis, so the limits hold for the site, not per
  worker. JSON nested too deeply or too large is refused with a clear error.
* Clean-up: a finished table leaves memory once no socket watches it (it stays
  in the store, read back on demand); a waiting or playing table without a
  socket and without a command for ``expire_after`` seconds is expired (kept in
  the store as ``expired``, never resumed or listed).
* Every response carries the security headers
  (:data:`~tablezoo.tables.security.PAGE_HEADERS`).

Errors of the HTTP API are ``{"error": "..."}`` with status 400 (bad input),
403, 404, 409 (the table is not in a state to do that), 415 (not JSON), 429
(too many requests: the message states the limit) or 503 (the database of a
site on several workers cannot be reached; nothing was changed).

``tablezoo tables migrate --from sqlite:///FILE --to postgresql://...``
(:func:`move_tables`) moves a SQLite site's tables, with their history, to
PostgreSQL.

This module builds the site (:func:`create_app`: the app's state, its routes
and middleware) and runs it (:func:`serve`, ``tablezoo serve``). The parts:

| module | what it holds |
|---|---|
| :mod:`~tablezoo.tables.endpoints` | the HTTP endpoints: pages, the JSON API, the bot endpoint |
| :mod:`~tablezoo.tables.sockets` | the WebSocket endpoint: greeting a socket, its commands |
| :mod:`~tablezoo.tables.hub` | the tables in memory, their locks and sockets, sweeping |
| :mod:`~tablezoo.tables.limits` | the rate limits (token buckets per client or address) |
| :mod:`~tablezoo.tables.security` | allowed origins, the POST check, the security headers |
| :mod:`~tablezoo.tables.bot_moves` | a bot's move from an observation or for a seat, checked |
| :mod:`~tablezoo.tables.wire` | JSON in and out, and :class:`~tablezoo.tables.wire.ApiError` |
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import math
import os
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tablezoo.games.core import ConfigError, TablezooError
from tablezoo.games.settings import add_arguments, setting
from tablezoo.tables.hub import EXPIRE_AFTER, Hub
from tablezoo.tables.limits import BURST, CONNECT_RATE, CREATE_RATE, MAX_OPEN_TABLES, RATE, Limits
from tablezoo.tables.security import LOOPBACK_HOSTS, PAGE_HEADERS, Origins, SecurityHeaders
from tablezoo.tables.sockets import play
from tablezoo.tables.store import DEFAULT_PATH, Store
from tablezoo.tables.wire import ApiError, UnavailableError

try:  # the web extra; without it only the command-line wiring below is usable
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.routing import Mount, Route, WebSocketRoute
    from starlette.staticfiles import StaticFiles

    from tablezoo.tables import endpoints
    from tablezoo.tables.endpoints import STATIC
except ModuleNotFoundError as err:  # pragma: no cover - exercised only without the extra
    WEB_MISSING: ModuleNotFoundError | None = err
else:
    WEB_MISSING = None

log = logging.getLogger(__name__)

MAX_BODY = 1 << 20
SWEEP_EVERY = 60.0
"""Seconds between two sweeps of the abandoned tables."""

AGENT_THINK = 1.0
"""The seconds a move a bot seated as bare ``agent`` thinks at the site ``tablezoo serve`` runs
(``agent:think=1``, :func:`tablezoo.bots.search.think`): about a second, which a person at a table
does not mind, for a searching agent's strength (``--agent-think 0``: the network alone)."""


# --------------------------------------------------------------------------- the app


def create_app(
    db_path: str = DEFAULT_PATH,
    *,
    database: str | None = None,
    broker: str | None = None,
    allowed_hosts: Iterable[str] = LOOPBACK_HOSTS,
    allowed_origins: Iterable[str] = (),
    rate: float = RATE,
    burst: int = BURST,
    create_rate: int = CREATE_RATE,
    connect_rate: int = CONNECT_RATE,
    max_open_tables: int = MAX_OPEN_TABLES,
    expire_after: float = EXPIRE_AFTER,
    agent_think: float = 0.0,
) -> Starlette:
    """The site over the tables stored at ``db_path`` (``":memory:"`` for a throwaway one).

    With ``database`` (a ``postgresql://`` URL) and ``broker`` (a ``redis://`` URL)
    instead, the site is one worker of several
    (:class:`~tablezoo.tables.cluster.ClusterHub`): its database must be migrated
    (:func:`~tablezoo.tables.cluster.migrate`; ``tablezoo serve`` does it).
    ``allowed_hosts`` are the host names requests may address (``"*"``: any);
    ``allowed_origins`` the other sites (``https://example.org``) whose pages
    may open sockets and post; the limits are described in the module docstring.
    ``agent_think``: the seconds a move a bot seated as bare ``agent`` thinks
    (:attr:`~tablezoo.tables.table.Table.agent_think`; ``tablezoo serve``: :data:`AGENT_THINK`).
    """
    if WEB_MISSING is not None:
        raise ConfigError(f"the web site needs the web extra: pip install 'tablezoo[web]' ({WEB_MISSING})")
    app = Starlette(
        routes=[
            Route("/", endpoints.lobby),
            Route("/table/{id}", endpoints.table_page),
            Route("/api/games", endpoints.list_games),
            Route("/api/tables", endpoints.list_tables, methods=["GET"]),
            Route("/api/tables", endpoints.create_table, methods=["POST"]),
            Route("/api/tables/{id}", endpoints.show_table),
            Route("/api/tables/{id}/replay", endpoints.replay),
            Route("/api/tables/{id}/replay/{step}", endpoints.replay_board),
            Route("/api/bot/move", endpoints.bot_move, methods=["POST"]),
            WebSocketRoute("/ws/{id}", play),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        exception_handlers={ApiError: endpoints.api_error, UnavailableError: endpoints.unavailable},
        lifespan=lifespan,
        max_body_size=MAX_BODY,
        middleware=[
            Middleware(SecurityHeaders, headers=PAGE_HEADERS),
            Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts) or ["*"]),
        ],
    )
    # what the endpoints share (tables.endpoints and tables.sockets say what each reads)
    app.state.hub = make_hub(db_path, database, broker, expire_after, agent_think)
    app.state.origins = Origins(allowed_origins)
    app.state.limits = make_limits(broker, rate, burst, create_rate, connect_rate)
    app.state.max_open_tables = max_open_tables
    return app


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    """While the site runs, abandoned tables are swept; at the end the store is closed."""
    hub: Hub = app.state.hub
    await hub.start()
    task = asyncio.create_task(sweep_forever(hub))
    yield
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    await hub.stop()
    await app.state.limits.close()


async def sweep_forever(hub: Hub, every: float = SWEEP_EVERY) -> None:
    """:meth:`Hub.tick` every ``every`` seconds."""
    while True:
        await asyncio.sleep(every)
        try:
            expired = await hub.tick()
        except UnavailableError as err:
            log.warning("tables not swept: %s", err)
            continue
        if expired:
            log.info("expired %d abandoned tables", len(expired))


def make_hub(
    db_path: str, database: str | None, broker: str | None, expire_after: float, agent_think: float = 0.0
) -> Hub:
    """The hub of one process over SQLite, or of one worker of several over PostgreSQL and Redis."""
    if database is None and broker is None:
        return Hub(Store(db_path), expire_after=expire_after, agent_think=agent_think)
    check_cluster(database, broker)
    from tablezoo.tables.cluster import ClusterHub, PgStore

    assert database is not None and broker is not None
    return ClusterHub(PgStore(database), broker, expire_after=expire_after, agent_think=agent_think)


def make_limits(broker: str | None, rate: float, burst: int, create_rate: int, connect_rate: int) -> Limits:
    """The limits counted in this process, or in Redis (``broker``) across the site's workers."""
    if broker is None:
        return Limits(rate, burst, create_rate, connect_rate)
    from tablezoo.tables.limits import SharedLimits

    return SharedLimits(broker, rate, burst, create_rate, connect_rate)


def check_cluster(database: str | None, broker: str | None) -> None:
    """Raise :class:`ConfigError` unless both servers are given and the cluster extra is installed."""
    if database is None or broker is None:
        raise ConfigError(
            "a site on several workers needs both --database postgresql://... and --broker redis://...; "
            "without either it keeps its tables in one SQLite file (--db)"
        )
    if not database.startswith(("postgresql://", "postgres://")):
        raise ConfigError(f"--database must be a postgresql://USER@HOST:PORT/NAME URL, not {database!r}")
    if not broker.startswith(("redis://", "rediss://", "unix://")):
        raise ConfigError(f"--broker must be a redis://HOST:PORT/N URL, not {broker!r}")
    try:
        from tablezoo.tables.cluster import require_extra

        require_extra()
    except ModuleNotFoundError as err:
        raise ConfigError(
            f"a site on several workers needs the cluster extra: pip install 'tablezoo[cluster]' ({err})"
        ) from None


ENVIRONMENT = {
    "database": "TABLEZOO_DATABASE",
    "broker": "TABLEZOO_BROKER",
    "allowed_hosts": "TABLEZOO_ALLOWED_HOSTS",
    "allowed_origins": "TABLEZOO_ALLOWED_ORIGINS",
    "expire_after": "TABLEZOO_EXPIRE_AFTER",
    "agent_think": "TABLEZOO_AGENT_THINK",
    "rate": "TABLEZOO_RATE",
    "burst": "TABLEZOO_BURST",
    "create_rate": "TABLEZOO_CREATE_RATE",
    "connect_rate": "TABLEZOO_CONNECT_RATE",
    "max_open_tables": "TABLEZOO_MAX_OPEN_TABLES",
}
"""The environment variables :func:`app_from_environment` reads (hosts and origins: comma-separated)."""


def app_from_environment() -> Starlette:
    """The site of one worker process, configured by :data:`ENVIRONMENT` (``tablezoo serve --workers N``
    starts its workers with ``uvicorn --factory`` on this)."""
    env = {key: os.environ.get(name, "") for key, name in ENVIRONMENT.items()}
    return create_app(
        database=env["database"] or None,
        broker=env["broker"] or None,
        allowed_hosts=[h for h in env["allowed_hosts"].split(",") if h],
        allowed_origins=[o for o in env["allowed_origins"].split(",") if o],
        expire_after=float(env["expire_after"] or EXPIRE_AFTER),
        agent_think=float(env["agent_think"] or 0.0),
        rate=float(env["rate"] or RATE),
        burst=int(env["burst"] or BURST),
        create_rate=int(env["create_rate"] or CREATE_RATE),
        connect_rate=int(env["connect_rate"] or CONNECT_RATE),
        max_open_tables=int(env["max_open_tables"] or MAX_OPEN_TABLES),
    )


# --------------------------------------------------------------------------- running it


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    db: str = DEFAULT_PATH,
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
    expire_after: float = EXPIRE_AFTER,
    *,
    database: str | None = None,
    broker: str | None = None,
    workers: int = 1,
    log_level: str = "info",
    limits: dict[str, Any] | None = None,
    agent_think: float = AGENT_THINK,
) -> None:
    """Run the site with uvicorn until interrupted.

    Requests may name the loopback names, the address listened on (unless a
    wildcard) and ``allowed_hosts``. With ``database`` and ``broker`` the database
    is migrated first, then ``workers`` processes share the port (uvicorn's own
    supervisor starts them, and starts a new one when one dies). ``limits`` sets
    :func:`create_app`'s ``rate``, ``burst``, ``create_rate`` and ``max_open_tables``
    (a site of several workers counts them in Redis, across its workers). A bot seated as bare
    ``agent`` thinks ``agent_think`` seconds a move.
    """
    limits = dict(limits or {})
    import uvicorn

    hosts = [*LOOPBACK_HOSTS, *allowed_hosts]
    if host not in ("0.0.0.0", "::", ""):
        hosts.append(host)
    if workers < 1:
        raise ConfigError(f"--workers must be at least 1, not {workers}")
    if database is None and broker is None:
        if workers != 1:
            raise ConfigError(
                "several workers share their tables through --database postgresql://... and "
                "--broker redis://...; a site on one SQLite file runs one process (--workers 1)"
            )
        app = create_app(
            db,
            allowed_hosts=hosts,
            allowed_origins=allowed_origins,
            expire_after=expire_after,
            agent_think=agent_think,
            **limits,
        )
        uvicorn.run(app, host=host, port=port, log_level=log_level)
        return
    check_cluster(database, broker)
    from tablezoo.tables.cluster import migrate

    assert database is not None and broker is not None
    migrate(database)
    settings = {
        "database": database,
        "broker": broker,
        "allowed_hosts": ",".join(hosts),
        "allowed_origins": ",".join(allowed_origins),
        "expire_after": repr(float(expire_after)),
        "agent_think": repr(float(agent_think)),
        **{key: repr(value) for key, value in limits.items()},
    }
    os.environ.update({ENVIRONMENT[key]: value for key, value in settings.items()})
    uvicorn.run(
        "tablezoo.tables.server:app_from_environment",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level=log_level,
    )


def cmd_serve(args: argparse.Namespace) -> None:
    if WEB_MISSING is not None:
        raise ConfigError(f"tablezoo serve needs the web extra: pip install 'tablezoo[web]' ({WEB_MISSING})")
    if args.expire_after <= 0:
        raise ConfigError(f"--expire-after must be a positive number of seconds, not {args.expire_after}")
    if not (args.agent_think >= 0 and math.isfinite(args.agent_think)):
        raise ConfigError(f"--agent-think must be 0 seconds or more, not {args.agent_think}")
    serve(
        args.host,
        args.port,
        args.db,
        args.allow_host,
        args.allow_origin,
        args.expire_after,
        database=args.database,
        broker=args.broker,
        workers=args.workers,
        log_level=args.log_level,
        agent_think=args.agent_think,
        limits={
            "rate": args.rate,
            "burst": args.burst,
            "create_rate": args.create_rate,
            "connect_rate": args.connect_rate,
            "max_open_tables": args.max_open_tables,
        },
    )


# --------------------------------------------------------------------------- moving a site's tables


@dataclass
class Moved:
    """What :func:`move_tables` did: the tables of each outcome (see :meth:`PgStore.put
    <tablezoo.tables.cluster.PgStore.put>`), and how each moved one was checked."""

    moved: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    present: list[str] = field(default_factory=list)
    newer: list[str] = field(default_factory=list)
    replayed: list[str] = field(default_factory=list)
    """Checked by replaying its command log from its origin in the database."""
    compared: list[str] = field(default_factory=list)
    """Checked by its record alone (a table written before the command log was kept has no origin)."""

    def summary(self) -> str:
        return (
            f"{len(self.moved)} tables moved, {len(self.updated)} brought forward, "
            f"{len(self.present)} there already, {len(self.newer)} left alone (newer in the database); "
            f"{len(self.replayed)} checked by replaying their command log, "
            f"{len(self.compared)} by their record (no command log from their start)"
        )


def sqlite_path(url: str) -> str:
    """The file of a ``sqlite:///PATH`` URL (``sqlite:////abs/path`` for an absolute one)."""
    if not url.startswith("sqlite:///") or len(url) == len("sqlite:///"):
        raise ConfigError(
            f"--from must be a sqlite:///PATH URL (the file of `tablezoo serve --db`), not {url!r}"
        )
    path = url[len("sqlite:///") :]
    if not os.path.isfile(path):
        raise ConfigError(f"no SQLite file {path!r} (from {url!r})")
    return path


def move_tables(source: str, target: str, progress: Callable[[str], None] | None = None) -> Moved:
    """Move every table of the SQLite site ``source`` (``sqlite:///PATH``) to the PostgreSQL database
    ``target`` (migrated first), with its snapshots and its command log, and check each one there.

    Idempotent: a table already there at its version is not written again, one there at an older
    version is brought forward, one that moved on in the database is left alone. Each table moved
    is read back from the database and must equal the source's record, and, when its command log
    goes back to its start, replaying that log from its origin in the database must give the same
    record; otherwise :class:`TablezooError` names the table and nothing more is moved.
    """
    if not target.startswith(("postgresql://", "postgres://")):
        raise ConfigError(f"--to must be a postgresql://USER@HOST:PORT/NAME URL, not {target!r}")
    check_cluster(target, "redis://unused")  # the cluster extra is installed
    from tablezoo.tables.cluster import PgStore, migrate
    from tablezoo.tables.store import Store

    path = sqlite_path(source)
    migrate(target)
    done = Moved()
    with Store(path) as store:
        pg = PgStore(target)
        try:
            for table_id in store.ids():
                rows = store.dump(table_id)
                assert rows is not None
                outcome = pg.put(rows)
                getattr(done, outcome).append(table_id)
                if outcome != "newer":
                    check_moved(store, pg, table_id, done)
                if progress is not None:
                    progress(f"{table_id}: {outcome}")
        finally:
            pg.close()
    return done


def check_moved(store: Store, pg: Any, table_id: str, done: Moved) -> None:
    """The table in the database equals the source's, and replays from its origin when it can."""
    record = store.record(table_id)
    if pg.record(table_id) != record:
        raise TablezooError(f"table {table_id} reads back differently from the database: nothing more moved")
    if store.origin(table_id) is None:
        done.compared.append(table_id)
        return
    replayed = pg.replay(table_id).to_record()
    if json.loads(json.dumps(replayed)) != record:
        raise TablezooError(
            f"table {table_id} does not replay to its record in the database: nothing more moved"
        )
    done.replayed.append(table_id)


def cmd_tables_migrate(args: argparse.Namespace) -> None:
    done = move_tables(args.source, args.target, progress=print if args.verbose else None)
    print(done.summary())


@dataclass
class MigrateSettings:
    """The flags of ``tablezoo tables migrate``."""

    source: str = setting(flag="from", required=True, metavar="URL")
    """sqlite:///PATH of the site's file"""
    target: str = setting(flag="to", required=True, metavar="URL")
    """postgresql://USER@HOST:PORT/NAME"""
    verbose: bool = setting(False, action="store_true")
    """print each table's outcome"""


def add_tables_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``tablezoo tables migrate --from sqlite:///FILE --to postgresql://...``."""
    p = subparsers.add_parser("tables", help="the site's stored tables: move them to PostgreSQL")
    commands = p.add_subparsers(dest="tables_command", required=True)
    m = commands.add_parser(
        "migrate",
        help="move every table of a SQLite site, with its history, to PostgreSQL "
        "(idempotent, checked by replay)",
    )
    add_arguments(m, MigrateSettings, defaults=True, show_defaults=False)
    m.set_defaults(func=cmd_tables_migrate)
    return p


@dataclass
class ServeSettings:
    """The flags of ``tablezoo serve`` (:func:`serve`'s arguments)."""

    host: str = setting("127.0.0.1")
    """address to listen on (default 127.0.0.1)"""
    port: int = setting(8000)
    """port to listen on (default 8000)"""
    db: str = setting(DEFAULT_PATH, help=f"SQLite file of the tables (default {DEFAULT_PATH})")
    database: str | None = setting(None, metavar="URL")
    """PostgreSQL database of the tables (postgresql://USER@HOST:PORT/NAME), instead of --db; with
    --broker, for several workers (the cluster extra)"""
    broker: str | None = setting(None, metavar="URL")
    """Redis (or Valkey) server through which workers pass view changes (redis://HOST:PORT/0)"""
    workers: int = setting(1)
    """worker processes sharing the port (default 1; more need --database and --broker)"""
    rate: float = setting(RATE, help=f"commands a second per client (default {RATE:g})")
    burst: int = setting(BURST, help=f"commands a client may send at once (default {BURST})")
    create_rate: int = setting(
        CREATE_RATE, help=f"tables an address may create a minute (default {CREATE_RATE})"
    )
    connect_rate: int = setting(
        CONNECT_RATE, help=f"sockets an address may open a minute (default {CONNECT_RATE})"
    )
    max_open_tables: int = setting(
        MAX_OPEN_TABLES, help=f"tables that may wait for players at once (default {MAX_OPEN_TABLES})"
    )
    log_level: str = setting("info", choices=("critical", "error", "warning", "info", "debug"))
    """what uvicorn logs (default info)"""
    allow_host: list[str] = setting(factory=list, action="append", metavar="NAME")
    """a host name the site is reached by, besides loopback and --host (repeatable)"""
    allow_origin: list[str] = setting(factory=list, action="append", metavar="URL")
    """another site (https://example.org) whose pages may use this one (repeatable)"""
    expire_after: float = setting(
        EXPIRE_AFTER,
        metavar="SECONDS",
        help=f"expire tables nobody plays or watches for this long (default {EXPIRE_AFTER:g})",
    )
    agent_think: float = setting(
        AGENT_THINK,
        metavar="SECONDS",
        help=f"seconds a move that /bot agent thinks; 0: the network alone (default {AGENT_THINK:g})",
    )


def add_serve_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``tablezoo serve`` to the sub-commands of the command line (and ``tablezoo tables``,
    the upkeep of its stored tables: :func:`add_tables_parser`)."""
    add_tables_parser(subparsers)
    p = subparsers.add_parser("serve", help="the web site: tables in the browser, and the HTTP bot endpoint")
    add_arguments(p, ServeSettings, defaults=True, show_defaults=False)
    p.set_defaults(func=cmd_serve)
    return p


__all__ = [
    "AGENT_THINK",
    "Hub",
    "Moved",
    "add_serve_parser",
    "add_tables_parser",
    "app_from_environment",
    "cmd_serve",
    "create_app",
    "make_hub",
    "move_tables",
    "serve",
]
