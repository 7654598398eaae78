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

**The load generator apart.** The clients are this script's own process; on a small machine
they take a large share of the cores the site would have to itself when deployed. Two ways
to keep them apart, both reported:

* ``--client-cpus 1 --server-cpus 0`` pins this process to CPU 1 and the site (its workers,
  and the throwaway PostgreSQL and Redis) to CPU 0 (Linux's CPU affinity, as ``taskset``
  sets it): the site is measured on the cores it is given, the generator never competes.
* The CPU each side spent is measured in any case: ``cpu_ms_per_move`` has the site's parts,
  ``generator`` (this process) and ``others`` (everything else the machine ran meanwhile,
  from ``/proc/stat``), and ``capacity_moves_per_s`` the moves a second the site's parts
  would carry on ``--cores`` cores of their own at the CPU a move cost them here (a bound:
  it assumes the work spreads over the cores, which one worker's process cannot do beyond
  one core; ``worker_bound_moves_per_s`` is that bound for the workers alone).
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


def pinned(cpus: set[int] | None) -> Any:
    """A ``preexec_fn`` that keeps a child (and all it starts) on ``cpus``; None: anywhere."""
    if not cpus:
        return None
    return lambda: os.sched_setaffinity(0, cpus)


def pin_tree(pid: int, cpus: set[int] | None) -> None:
    """Keep process ``pid`` and its children (those running now; later ones inherit) on ``cpus``."""
    if not cpus:
        return
    with contextlib.suppress(OSError):
        os.sched_setaffinity(pid, cpus)
        for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
            pin_tree(int(child), cpus)


def start_server(port: int, db: Path, legacy: bool, cpus: set[int] | None = None) -> subprocess.Popen[bytes]:
    """The site in a child process, logging warnings only.

    All the load comes from one address, so the limits on new tables and sockets per address
    are lifted; so is the per-client command rate (counted all the same: its cost is measured,
    and no refused command is mistaken for a move the site could not make).
    """
    settings = "" if legacy else ", create_rate=1_000_000, connect_rate=1_000_000, rate=1000, burst=1000"
    code = (
        "import uvicorn; from tablezoo.tables.server import create_app; "
        f"uvicorn.run(create_app({str(db)!r}{settings}), host={HOST!r}, port={port}, log_level='warning')"
    )
    process = subprocess.Popen([sys.executable, "-c", code], preexec_fn=pinned(cpus))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}/api/games", timeout=2):
                return process
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("the server did not start within 30 s")


def start_workers(
    port: int, workers: int, database: str, broker: str, cpus: set[int] | None = None
) -> subprocess.Popen[bytes]:
    """``tablezoo serve --workers N`` over PostgreSQL and Redis (:func:`tablezoo.tables.server.serve`,
    what the command runs), with the limits on new tables and sockets lifted as above."""
    code = (
        "from tablezoo.tables.server import serve; "
        f"serve(port={port}, workers={workers}, database={database!r}, broker={broker!r}, "
        "log_level='warning', limits={'create_rate': 1_000_000, 'connect_rate': 1_000_000, "
        "'rate': 1000, 'burst': 1000})"
    )
    process = subprocess.Popen([sys.executable, "-c", code], preexec_fn=pinned(cpus))
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
    """PostgreSQL and Redis on loopback for one run (:mod:`tablezoo.tables.local_servers`, which the
    cluster tests start too): their URLs, and the process ids to measure (``postgres``, ``redis``)."""
    from tablezoo.tables.local_servers import PostgresServer, RedisServer, missing

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


def machine_busy() -> float | None:
    """CPU seconds every core of the machine has spent busy so far (``/proc/stat``), or None."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except OSError:
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(f) for f in fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def own_cpu() -> float:
    """User + system CPU seconds of this process (the load generator) so far."""
    times = os.times()
    return times.user + times.system


async def run(args: argparse.Namespace, port: int, pids: dict[str, int]) -> dict[str, Any]:
    """Play for ``--seconds``; ``pids`` are the server's processes to measure (``workers`` first)."""
    stats = Stats()
    cpu_start = cpu_of(pids)
    generator_start, busy_start, load_start = own_cpu(), machine_busy(), os.getloadavg()
    start = time.monotonic()
    until = start + args.seconds
    await asyncio.gather(*(play_table(port, k, args, stats, until) for k in range(args.tables)))
    elapsed = time.monotonic() - start
    cpu_end = cpu_of(pids)
    generator, busy_end = own_cpu() - generator_start, machine_busy()
    spent: dict[str, float | None] = {}
    for name in pids:
        begun, ended = cpu_start[name], cpu_end[name]
        spent[name] = None if begun is None or ended is None else ended - begun
    site = sum(v for v in spent.values() if v is not None)
    spent["generator"] = generator
    if busy_start is not None and busy_end is not None:
        spent["others"] = max(0.0, busy_end - busy_start - site - generator)
    cpu = spent["workers"]
    per_move = site / stats.moves if stats.moves else None
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
        "cores_used": {name: round(value / elapsed, 2) for name, value in spent.items() if value is not None},
        "capacity_moves_per_s": round(args.cores / per_move, 1) if per_move else None,
        "worker_bound_moves_per_s": (
            round(min(args.cores, max(1, args.workers)) * stats.moves / cpu, 1)
            if cpu and stats.moves
            else None
        ),
        "pinned": {"site": sorted(args.server_cpus or []), "generator": sorted(args.client_cpus or [])},
        "loadavg_at_start": [round(x, 2) for x in load_start],
        "errors": len(stats.errors),
        "first_errors": stats.errors[:5],
        "legacy_protocol": args.legacy,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
    }


def cpu_list(text: str) -> set[int]:
    """``0``, ``0,1`` or ``0-1`` as a set of CPU numbers (of those this machine has)."""
    cpus: set[int] = set()
    for part in text.split(","):
        low, _, high = part.partition("-")
        if not low.isdigit() or (high and not high.isdigit()):
            raise argparse.ArgumentTypeError(f"a CPU list is like 0, 0,1 or 0-1, not {text!r}")
        cpus.update(range(int(low), int(high or low) + 1))
    if not cpus <= set(range(os.cpu_count() or 1)):
        raise argparse.ArgumentTypeError(f"this machine has CPUs 0-{(os.cpu_count() or 1) - 1}, not {text!r}")
    return cpus


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
    parser.add_argument("--server-cpus", type=cpu_list, help="CPUs the site runs on (e.g. 0 or 0-1)")
    parser.add_argument("--client-cpus", type=cpu_list, help="CPUs this load generator runs on (e.g. 1)")
    parser.add_argument(
        "--cores",
        type=int,
        default=2,
        help="cores the site would have to itself, for capacity_moves_per_s (default 2)",
    )
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
    if args.client_cpus:
        os.sched_setaffinity(0, args.client_cpus)
    port = _free_port()
    if args.workers == 0:
        with tempfile.TemporaryDirectory() as tmp:
            server = start_server(port, Path(tmp) / "load.sqlite3", args.legacy, args.server_cpus)
            try:
                result = asyncio.run(run(args, port, {"workers": server.pid}))
            finally:
                server.terminate()
                server.wait(10)
    else:
        with contextlib.ExitStack() as stack:
            if args.database:
                database, broker = args.database, args.broker
                pids: dict[str, int] = {}
            else:
                database, broker, pids = stack.enter_context(throwaway_servers())
            for pid in pids.values():
                pin_tree(pid, args.server_cpus)
            server = start_workers(port, args.workers, database, broker, args.server_cpus)
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
