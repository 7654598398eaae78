"""Load test of ``tablezoo serve``: many browsers-worth of clients playing at once, on loopback only.

    python benchmarks/load.py [--tables 40] [--people 2] [--watchers 1] [--seconds 60] [--out load.json]

Starts the site in a child process (a fresh SQLite file in a temporary folder,
127.0.0.1 and a free port: nothing leaves the machine), then opens
``tables x (people + watchers)`` WebSocket clients. At each table of Diamant the
people join, one heuristic bot is seated, the game starts, and each person plays
the first legal move of its view whenever it is its turn, until the game ends;
then the table is replaced by a new one, until ``--seconds`` have passed (or
``--games`` games have finished). Watchers only read the views they are sent.

Reports JSON: moves per second (accepted moves made by the people; the bot's and
the chance outcomes are not counted), the latency of a move (from sending it to
the reply, milliseconds: p50, p90, p99, max), games finished, clients, errors
(refused moves, dropped sockets, protocol errors), and the server's CPU time per
move (its process's user + system time over the run, divided by the moves; Linux
only). Moves/s and latencies depend on the machine and on what else runs on it:
compare runs made together; the CPU time per move depends much less on the load.

``--legacy`` speaks the older protocol (the client token in the URL) so that
the same script measures a server from before that change.

**Several workers.** ``--workers N`` measures the site on PostgreSQL and Redis:
``tablezoo serve --workers N --database ... --broker ...`` on one port (the kernel
hands each new socket to one of the workers, so the sockets of one table land on
different workers, as behind a load balancer). ``--database`` and ``--broker`` name
the servers; without them the script starts throwaway ones on loopback (Debian's
PostgreSQL and Redis: ``make servers``) and removes them afterwards. The server's CPU
time per move is then split by where it goes: ``workers`` (the uvicorn processes),
``postgres`` (the postmaster and its backends) and ``redis``::

    python benchmarks/load.py --workers 2 --tables 40 --seconds 60 --out load-2.json
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HOST = "127.0.0.1"
"""Loopback only: the script never connects anywhere else."""


class Stats:
    """What all clients measured."""

    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.moves = 0
        self.games = 0
        self.errors: list[str] = []


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def start_server(port: int, db: Path, legacy: bool) -> subprocess.Popen[bytes]:
    """The site in a child process, logging warnings only.

    All the load comes from one address, so the limit on new tables per address is
    lifted; the per-client command rate keeps its default.
    """
    settings = "" if legacy else ", create_rate=1_000_000"
    code = (
        "import uvicorn; from tablezoo.tables.server import create_app; "
        f"uvicorn.run(create_app({str(db)!r}{settings}), host={HOST!r}, port={port}, log_level='warning')"
    )
    process = subprocess.Popen([sys.executable, "-c", code])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}/api/games", timeout=2):
                return process
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("the server did not start within 30 s")


def start_workers(port: int, workers: int, database: str, broker: str) -> subprocess.Popen[bytes]:
    """``tablezoo serve --workers N`` over PostgreSQL and Redis, with the limits lifted as above."""
    command = [str(Path(sys.executable).parent / "tablezoo"), "serve", "--port", str(port)]
    command += ["--workers", str(workers), "--database", database, "--broker", broker]
    command += ["--create-rate", "1000000", "--log-level", "warning"]
    process = subprocess.Popen(command)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}/api/games", timeout=2):
                time.sleep(2.0 if workers > 1 else 0)  # every worker up, not only the first
                return process
        except OSError:
            if process.poll() is not None:
                raise RuntimeError(f"tablezoo serve exited with {process.returncode}") from None
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("the workers did not start within 60 s")


@contextlib.contextmanager
def throwaway_servers() -> Iterator[tuple[str, str, dict[str, int]]]:
    """PostgreSQL and Redis on loopback for one run (the test suite's own helpers start them):
    their URLs, and the process ids to measure (``postgres``, ``redis``)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.tables.cluster.servers import PostgresServer, RedisServer, missing

    if (why := missing()) is not None:
        raise SystemExit(why)
    with PostgresServer() as pg, RedisServer() as redis:
        pg.start()
        redis.start()
        assert pg.pid is not None and redis.pid is not None
        yield pg.url, redis.url, {"postgres": pg.pid, "redis": redis.pid}


def new_table(port: int, game: str) -> str:
    request = urllib.request.Request(
        f"http://{HOST}:{port}/api/tables",
        data=json.dumps({"game": game}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return str(json.loads(response.read())["id"])


class Client:
    """One WebSocket client at one table."""

    def __init__(self, port: int, table_id: str, token: str, legacy: bool) -> None:
        self.url = f"ws://{HOST}:{port}/ws/{table_id}" + (f"?client={token}" if legacy else "")
        self.token, self.legacy = token, legacy
        self.view: dict[str, Any] = {}
        self.ws: Any = None
        self.replies: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.changed = asyncio.Event()
        self.reader: asyncio.Task[None] | None = None

    async def open(self) -> None:
        import websockets

        self.ws = await websockets.connect(self.url, max_size=2**22)
        if not self.legacy:
            await self.ws.send(json.dumps({"client": self.token}))
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            async for text in self.ws:
                message = json.loads(text)
                if "view" in message:
                    self.view = message["view"]
                    self.changed.set()
                if "reply" in message:
                    await self.replies.put(message["reply"])
                if "error" in message:
                    await self.replies.put({"ok": False, "text": message["error"]})
        except Exception:  # the socket closed: the waiting side notices
            self.changed.set()

    async def command(self, text: str) -> dict[str, Any]:
        await self.ws.send(json.dumps({"command": text}))
        return await asyncio.wait_for(self.replies.get(), 30)

    async def close(self) -> None:
        await self.ws.close()
        if self.reader is not None:
            await self.reader


async def play_table(port: int, k: int, args: argparse.Namespace, stats: Stats, until: float) -> None:
    """Play games at one table after another until time is up."""
    round_no = 0
    while time.monotonic() < until and (args.games <= 0 or stats.games < args.games):
        round_no += 1
        try:
            table_id = await asyncio.to_thread(new_table, port, "diamant")
        except OSError as err:  # refused or failed: counted, and tried again a little later
            stats.errors.append(f"new table: {err}")
            await asyncio.sleep(1)
            continue
        people = [
            Client(port, table_id, f"load-{k:04d}-{round_no:04d}-p{i}", args.legacy)
            for i in range(args.people)
        ]
        watchers = [
            Client(port, table_id, f"load-{k:04d}-{round_no:04d}-w{i}", args.legacy)
            for i in range(args.watchers)
        ]
        for client in people + watchers:
            await client.open()
        try:
            for i, person in enumerate(people):
                reply = await person.command(f"/join p{i}")
                if not reply["ok"]:
                    stats.errors.append(reply["text"])
            await people[0].command("/bot heuristic")
            await people[0].command("/start")
            while time.monotonic() < until + 60:
                view = people[0].view
                if view.get("phase") == "finished":
                    stats.games += 1
                    break
                movers = [
                    p for p in people if p.view.get("legal") and p.view.get("to_move") == p.view.get("you")
                ]
                if not movers:
                    for p in people:
                        p.changed.clear()
                    waits = [asyncio.create_task(p.changed.wait()) for p in people]
                    await asyncio.wait(waits, timeout=5, return_when=asyncio.FIRST_COMPLETED)
                    for wait in waits:
                        wait.cancel()
                    continue
                mover = movers[0]
                start = time.perf_counter()
                reply = await mover.command(mover.view["legal"][0])
                stats.latencies.append((time.perf_counter() - start) * 1000)
                if reply["ok"]:
                    stats.moves += 1
                else:
                    stats.errors.append(reply["text"])
                    await asyncio.sleep(0.01)
        except Exception as err:  # one broken table is an error to count, not a crash
            stats.errors.append(f"{type(err).__name__}: {err}")
        finally:
            for client in people + watchers:
                try:
                    await client.close()
                except Exception as err:
                    stats.errors.append(f"close: {err}")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid`` and all its descendants so far (those that
    ended included, once waited for); None where /proc is missing."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return None
    own = sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")  # utime stime cutime cstime
    return own + sum(cpu_seconds(int(c)) or 0.0 for c in children)


def cpu_of(pids: dict[str, int]) -> dict[str, float | None]:
    return {name: cpu_seconds(pid) for name, pid in pids.items()}


async def run(args: argparse.Namespace, port: int, pids: dict[str, int]) -> dict[str, Any]:
    """Play for ``--seconds``; ``pids`` are the server's processes to measure (``workers`` first)."""
    stats = Stats()
    cpu_start = cpu_of(pids)
    start = time.monotonic()
    until = start + args.seconds
    await asyncio.gather(*(play_table(port, k, args, stats, until) for k in range(args.tables)))
    elapsed = time.monotonic() - start
    cpu_end = cpu_of(pids)
    spent = {
        name: None if cpu_start[name] is None or cpu_end[name] is None else cpu_end[name] - cpu_start[name]
        for name in pids
    }
    cpu = spent["workers"]
    lat = stats.latencies
    return {
        "backend": "sqlite" if args.workers == 0 else "postgresql+redis",
        "workers": max(1, args.workers),
        "tables": args.tables,
        "clients": args.tables * (args.people + args.watchers),
        "seconds": round(elapsed, 2),
        "moves": stats.moves,
        "moves_per_s": round(stats.moves / elapsed, 1),
        "games": stats.games,
        "latency_ms": {
            "p50": round(percentile(lat, 50), 2),
            "p90": round(percentile(lat, 90), 2),
            "p99": round(percentile(lat, 99), 2),
            "max": round(max(lat, default=float("nan")), 2),
            "mean": round(statistics.fmean(lat), 2) if lat else None,
        },
        "server_cpu_ms_per_move": round(1000 * cpu / stats.moves, 3) if cpu and stats.moves else None,
        "cpu_ms_per_move": {
            name: round(1000 * value / stats.moves, 3) if value is not None and stats.moves else None
            for name, value in spent.items()
        },
        "errors": len(stats.errors),
        "first_errors": stats.errors[:5],
        "legacy_protocol": args.legacy,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=40, help="tables played at once (1..200)")
    parser.add_argument("--people", type=int, default=2, help="people per table (1..7)")
    parser.add_argument("--watchers", type=int, default=1, help="watching clients per table (0..5)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to play (1..600)")
    parser.add_argument("--games", type=int, default=0, help="stop after this many games (0: no limit)")
    parser.add_argument("--legacy", action="store_true", help="the client token in the URL (older servers)")
    parser.add_argument("--out", type=Path, help="also write the JSON here")
    parser.add_argument(
        "--workers",
        type=int,
        default=0,
        help="0: one process on SQLite (the default); N: N workers on PostgreSQL and Redis",
    )
    parser.add_argument("--database", help="with --workers: a postgresql:// URL (default: throwaway)")
    parser.add_argument("--broker", help="with --workers: a redis:// URL (default: a throwaway server)")
    args = parser.parse_args(argv)
    if not 0 <= args.workers <= 16:
        parser.error(f"--workers must be from 0 to 16, not {args.workers}")
    if args.workers == 0 and (args.database or args.broker):
        parser.error("--database and --broker go with --workers N (N >= 1)")
    if bool(args.database) != bool(args.broker):
        parser.error("give both --database and --broker, or neither (throwaway servers)")
    for name, low, high in (("tables", 1, 200), ("people", 1, 7), ("watchers", 0, 5), ("seconds", 1, 600)):
        if not low <= getattr(args, name) <= high:
            parser.error(f"--{name} must be from {low} to {high}, not {getattr(args, name)}")
    port = _free_port()
    if args.workers == 0:
        with tempfile.TemporaryDirectory() as tmp:
            server = start_server(port, Path(tmp) / "load.sqlite3", args.legacy)
            try:
                result = asyncio.run(run(args, port, {"workers": server.pid}))
            finally:
                server.terminate()
                server.wait(10)
    else:
        with contextlib.ExitStack() as stack:
            if args.database:
                database, broker, pids = args.database, args.broker, {}
            else:
                database, broker, pids = stack.enter_context(throwaway_servers())
            server = start_workers(port, args.workers, database, broker)
            try:
                result = asyncio.run(run(args, port, {"workers": server.pid, **pids}))
            finally:
                server.terminate()
                server.wait(20)
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return result


if __name__ == "__main__":
    main()
