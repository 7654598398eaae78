"""Private, throwaway PostgreSQL and Redis servers for the site's multi-process mode: what its tests
(``tests/tables/cluster/``) and its load benchmark (``benchmarks/load.py``) run it against.

Each server listens on 127.0.0.1 only, on a free port, with its files in a temporary directory
of its own, so that several processes (pytest-xdist workers) each start their own without
colliding. PostgreSQL refuses to run as root: as root its programs run as the ``postgres``
system user (Debian's package creates it), in a directory given to that user. Nothing here is
for a real site, whose servers are its own (``tablezoo serve --database URL --broker URL``).

``missing()`` says what is not installed (None when everything is)::

    server = PostgresServer()
    server.start()  # initdb on first start, then waits until it answers
    server.url  # postgresql://tablezoo@127.0.0.1:PORT/tablezoo
    server.restart()  # fast shutdown, then start again on the same port and data
    server.kill()  # SIGKILL of the postmaster: a crash
    server.close()  # stop and remove its directory
"""

from __future__ import annotations

import atexit
import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Self

START_TIMEOUT = 30.0
"""Seconds a server is given to answer after it is started."""
STOP_TIMEOUT = 20.0
"""Seconds a server is given to shut down before it is killed."""
POSTGRES_USER = "postgres"
"""The system user PostgreSQL's programs run as when they are started as root."""
INSTALL = "run `make servers`, or `apt-get install postgresql redis-server`"
LOG_TAIL = 30
"""Lines of a server's log quoted when it does not start."""
START_MARK = "--- tablezoo: starting"


class ServerError(RuntimeError):
    """A test server did not start or stop; the message quotes the end of its log."""


# --------------------------------------------------------------------------- finding the programs


def postgres_bindir() -> Path | None:
    """The folder of PostgreSQL's server programs (``initdb``, ``postgres``): ``pg_config
    --bindir`` when that has them (Debian's ``pg_config`` may belong to libpq-dev alone), else
    the newest ``/usr/lib/postgresql/*/bin``; None when neither has them."""
    candidates: list[Path] = []
    pg_config = shutil.which("pg_config")
    if pg_config:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            out = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, timeout=10)
            if out.returncode == 0 and out.stdout.strip():
                candidates.append(Path(out.stdout.strip()))

    def version(path: str) -> tuple[int, ...]:
        name = Path(path).parent.name
        return tuple(int(p) for p in name.split(".") if p.isdigit())

    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=version, reverse=True)]
    for folder in candidates:
        if all(os.access(folder / program, os.X_OK) for program in ("initdb", "postgres")):
            return folder
    return None


def redis_binary() -> Path | None:
    """``redis-server`` on the PATH or in Debian's place, or None."""
    found = shutil.which("redis-server") or next(
        (p for p in ("/usr/bin/redis-server", "/usr/sbin/redis-server") if os.access(p, os.X_OK)), None
    )
    return Path(found) if found else None


def missing() -> str | None:
    """None when both servers can be started here; otherwise what is missing and how to install it."""
    lacking = []
    if postgres_bindir() is None:
        lacking.append("PostgreSQL's server programs (initdb, postgres)")
    elif os.geteuid() == 0 and not _user_exists(POSTGRES_USER):
        lacking.append(f"the '{POSTGRES_USER}' system user PostgreSQL runs as under root")
    if redis_binary() is None:
        lacking.append("redis-server")
    if lacking:
        return f"throwaway servers need {' and '.join(lacking)}: {INSTALL}"
    modules = [m for m in ("psycopg", "redis") if not _importable(m)]
    if modules:
        return (
            f"throwaway servers need the Python packages {', '.join(modules)}: "
            "pip install -e '.[cluster]' (the Makefile's EXTRAS include it)"
        )
    return None


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def _importable(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (the kernel's pick: two processes asking at once get
    different ones; a server that still finds its port taken is started again on another)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --------------------------------------------------------------------------- the common part


class _Server:
    """A server process started by this process, its files in ``self.dir``."""

    name = "server"

    def __init__(self, base: str | os.PathLike[str] | None = None) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix=f"tablezoo-{self.name}-", dir=base))
        self.log_path = self.dir / f"{self.name}.log"
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self._closed = False
        atexit.register(self.close)

    # to be given by each kind of server
    def _command(self) -> list[str]:
        raise NotImplementedError

    def _ping(self, timeout: float) -> None:
        raise NotImplementedError

    def _popen_user(self) -> dict[str, Any]:
        return {}

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.running and self.process else None

    def log_tail(self, lines: int = LOG_TAIL) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:]) or "(the log is empty)"

    def _last_start_log(self) -> str:
        """What the log says since the last start."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return text[text.rfind(START_MARK) :]

    def start(self) -> None:
        """Start the server (on a free port the first time, on the same one after) and wait
        until it answers; a no-op when it runs."""
        if self._closed:
            raise ServerError(f"the {self.name} server in {self.dir} was closed")
        if self.running:
            return
        self._prepare()
        first = self.port == 0
        for attempt in range(5):
            if first:
                self.port = free_port()
            try:
                self._launch()
                return
            except ServerError:
                # another process took the port between our pick and the server's bind
                if first and attempt < 4 and "Address already in use" in self._last_start_log():
                    continue
                raise

    def _prepare(self) -> None:
        """What the first start needs before the server runs (PostgreSQL's initdb)."""

    def _launch(self) -> None:
        with self.log_path.open("ab") as log:
            log.write(f"{START_MARK} {time.strftime('%H:%M:%S')} on port {self.port}\n".encode())
            log.flush()
            self.process = subprocess.Popen(
                self._command(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.dir,
                **self._popen_user(),
            )
        deadline = time.monotonic() + START_TIMEOUT
        error: Exception | None = None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                code = self.process.returncode
                self.process = None
                raise ServerError(
                    f"the {self.name} server on 127.0.0.1:{self.port} exited with {code} on start; "
                    f"the end of its log ({self.log_path}):\n{self.log_tail()}"
                )
            try:
                self._ping(timeout=2)
                return
            except Exception as exc:  # not up yet
                error = exc
                time.sleep(0.05)
        self._signal(signal.SIGKILL)
        raise ServerError(
            f"the {self.name} server on 127.0.0.1:{self.port} did not answer within {START_TIMEOUT:g} s "
            f"(last error: {error}); the end of its log ({self.log_path}):\n{self.log_tail()}"
        )

    def _signal(self, sig: int, timeout: float = STOP_TIMEOUT) -> bool:
        """Send ``sig`` and reap the process; False when it outlived ``timeout``."""
        if self.process is None:
            return True
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(sig)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        self.process = None
        return True

    def _stop_signal(self) -> int:
        return signal.SIGTERM

    def stop(self) -> None:
        """Shut the server down cleanly (killed if it takes longer than ``STOP_TIMEOUT``)."""
        if not self._signal(self._stop_signal()):
            self.kill()

    def kill(self) -> None:
        """SIGKILL the server: a crash, nothing written on the way out."""
        self._signal(signal.SIGKILL)

    def restart(self) -> None:
        """Stop, then start again on the same port with the same files."""
        self.stop()
        self.start()

    def close(self) -> None:
        """Stop the server and remove its directory (idempotent)."""
        if self._closed:
            return
        self._closed = True
        try:
            self.stop()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
            atexit.unregister(self.close)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"<{type(self).__name__} 127.0.0.1:{self.port} {state} in {self.dir}>"


# --------------------------------------------------------------------------- PostgreSQL


class PostgresServer(_Server):
    """A PostgreSQL cluster of its own: ``initdb`` with trust authentication for local and
    loopback connections, a superuser ``user`` and a database ``dbname`` for the site, the
    server on 127.0.0.1 and its socket in its own directory.

    ``options`` are extra server settings (``{"max_connections": "200"}``). fsync is off:
    committed data survives a killed server, not a crashed machine.
    """

    name = "postgres"

    def __init__(
        self,
        user: str = "tablezoo",
        dbname: str = "tablezoo",
        options: Mapping[str, str] | None = None,
        base: str | os.PathLike[str] | None = None,
    ) -> None:
        bindir = postgres_bindir()
        if bindir is None:
            raise ServerError(missing() or "no PostgreSQL server programs")
        self.bindir = bindir
        self.user = user
        self.dbname = dbname
        self.options = {"fsync": "off", **(options or {})}
        self._needs_database = False
        self._as: pwd.struct_passwd | None = pwd.getpwnam(POSTGRES_USER) if os.geteuid() == 0 else None
        super().__init__(base)
        self.data = self.dir / "data"
        if self._as is not None:
            self._give_directory()

    def _give_directory(self) -> None:
        """As root: the directory belongs to the ``postgres`` user, who must also reach it."""
        assert self._as is not None
        os.chown(self.dir, self._as.pw_uid, self._as.pw_gid)
        probe = subprocess.run(["test", "-w", str(self.dir)], **self._popen_user(), check=False)
        if probe.returncode != 0:
            shutil.rmtree(self.dir, ignore_errors=True)
            raise ServerError(
                f"the '{POSTGRES_USER}' user cannot reach {self.dir}: a folder above it is closed to "
                "other users; set TMPDIR to a folder it can reach (e.g. /tmp)"
            )

    def _popen_user(self) -> dict[str, Any]:
        if self._as is None:
            return {}
        return {"user": self._as.pw_uid, "group": self._as.pw_gid, "extra_groups": []}

    @property
    def url(self) -> str:
        """``postgresql://USER@127.0.0.1:PORT/DBNAME``."""
        return self.url_of(self.dbname)

    def url_of(self, dbname: str) -> str:
        """The URL of another database of this server."""
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{dbname}"

    def _prepare(self) -> None:
        if (self.data / "PG_VERSION").exists():
            return
        done = subprocess.run(
            [
                str(self.bindir / "initdb"),
                "--pgdata",
                str(self.data),
                "--username",
                self.user,
                "--auth",
                "trust",
                "--encoding",
                "UTF8",
                "--no-locale",
                "--no-sync",
            ],
            capture_output=True,
            text=True,
            cwd=self.dir,
            timeout=120,
            check=False,
            **self._popen_user(),
        )
        if done.returncode != 0:
            raise ServerError(f"initdb failed in {self.data}:\n{done.stdout}{done.stderr}")
        self._needs_database = True

    def _command(self) -> list[str]:
        settings = {
            "listen_addresses": "127.0.0.1",
            "unix_socket_directories": str(self.dir),
            **self.options,
        }
        command = [str(self.bindir / "postgres"), "-D", str(self.data), "-p", str(self.port)]
        for key, value in settings.items():
            command += ["-c", f"{key}={value}"]
        return command

    def _ping(self, timeout: float) -> None:
        import psycopg

        with psycopg.connect(self.url_of("postgres"), connect_timeout=max(1, int(timeout))) as conn:
            conn.execute("SELECT 1")

    def _launch(self) -> None:
        super()._launch()
        if self._needs_database:
            self.create_database(self.dbname)
            self._needs_database = False

    def _stop_signal(self) -> int:
        return signal.SIGINT  # fast shutdown: sessions are ended, a checkpoint written

    def kill(self) -> None:
        """SIGKILL the postmaster (a crash), then wait until the processes it had started
        notice and exit, so the next start finds their shared memory released."""
        if self.process is None:
            return
        children = _children(self.process.pid)
        self._signal(signal.SIGKILL)
        deadline = time.monotonic() + STOP_TIMEOUT
        while (alive := [pid for pid in children if _alive(pid)]) and time.monotonic() < deadline:
            time.sleep(0.02)
        for pid in alive:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def connect(self, dbname: str | None = None, **kwargs: Any) -> Any:
        """A psycopg connection to ``dbname`` (the site's, ``dbname``, by default)."""
        import psycopg

        return psycopg.connect(self.url_of(dbname or self.dbname), **kwargs)

    def create_database(self, dbname: str) -> str:
        """Create an empty database and return its URL."""
        from psycopg import sql

        with self.connect("postgres", autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(dbname)))
        return self.url_of(dbname)

    def drop_database(self, dbname: str) -> None:
        """Drop a database, ending the sessions still connected to it."""
        from psycopg import sql

        with self.connect("postgres", autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(dbname)))


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 1 and int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie has exited: it holds no memory any more)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2 :].split()[0] != "Z"


# --------------------------------------------------------------------------- Redis


class RedisServer(_Server):
    """A Redis of its own on 127.0.0.1, nothing saved to disk (``--save '' --appendonly no``):
    a restarted one is empty. ``args`` are extra ``redis-server`` arguments."""

    name = "redis"

    def __init__(self, args: Sequence[str] = (), base: str | os.PathLike[str] | None = None) -> None:
        binary = redis_binary()
        if binary is None:
            raise ServerError(missing() or "no redis-server")
        self.binary = binary
        self.args = list(args)
        super().__init__(base)

    @property
    def url(self) -> str:
        """``redis://127.0.0.1:PORT/0``."""
        return f"redis://127.0.0.1:{self.port}/0"

    def _command(self) -> list[str]:
        return [
            str(self.binary),
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(self.dir),
            "--daemonize",
            "no",
            *self.args,
        ]

    def client(self, **kwargs: Any) -> Any:
        """A redis-py client of database 0."""
        import redis

        return redis.Redis.from_url(self.url, **kwargs)

    def _ping(self, timeout: float) -> None:
        with self.client(socket_timeout=timeout, socket_connect_timeout=timeout) as client:
            client.ping()


__all__ = [
    "PostgresServer",
    "RedisServer",
    "ServerError",
    "free_port",
    "missing",
    "postgres_bindir",
    "redis_binary",
]
