"""A site of several worker processes on real servers, and clients that play at it, for the cluster tests.

:class:`Site` starts ``tablezoo serve --database ... --broker ...`` once per worker,
each on its own port of 127.0.0.1 (as a load balancer in front of them would reach
them), so a test chooses which worker each socket talks to and can kill one.
:class:`Client` is one browser's socket: it says hello, sends commands, and keeps
the latest view it was sent.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

HOST = "127.0.0.1"
TABLEZOO = str(Path(sys.executable).parent / "tablezoo")


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


class Site:
    """``workers`` worker processes over one database and one broker."""

    def __init__(
        self,
        database: str,
        broker: str,
        workers: int = 2,
        log: Path | None = None,
        options: tuple[str, ...] = (),
    ) -> None:
        """``options`` are more arguments of ``tablezoo serve`` (they override the tests' limits)."""
        self.database, self.broker = database, broker
        self.options = list(options)
        self.ports = [free_port() for _ in range(workers)]
        self.processes: list[subprocess.Popen[bytes] | None] = [None] * workers
        self.log = log

    def start(self, worker: int | None = None) -> Site:
        """Start every worker (or one), and wait until each answers."""
        for k in range(len(self.ports)) if worker is None else [worker]:
            command = [TABLEZOO, "serve", "--port", str(self.ports[k]), "--database", self.database]
            command += ["--broker", self.broker, "--log-level", "warning", "--rate", "1000"]
            command += ["--burst", "1000", "--create-rate", "100000", "--connect-rate", "100000"]
            command += ["--expire-after", "3600", *self.options]
            out = open(self.log, "ab") if self.log else subprocess.DEVNULL  # noqa: SIM115
            self.processes[k] = subprocess.Popen(command, stdout=out, stderr=out, env=dict(os.environ))
        for k in range(len(self.ports)) if worker is None else [worker]:
            self._wait(k)
        return self

    def _wait(self, k: int, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            process = self.processes[k]
            if process is not None and process.poll() is not None:
                raise RuntimeError(f"worker {k} exited with {process.returncode}: see {self.log}")
            try:
                with urllib.request.urlopen(f"http://{HOST}:{self.ports[k]}/api/games", timeout=2):
                    return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"worker {k} did not answer within {timeout:g} s")

    def kill(self, k: int) -> None:
        """kill -9 of worker ``k``."""
        process = self.processes[k]
        if process is not None:
            process.send_signal(signal.SIGKILL)
            process.wait()
            self.processes[k] = None

    def close(self) -> None:
        for process in self.processes:
            if process is not None:
                process.terminate()
        for process in self.processes:
            if process is not None:
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    process.kill()

    def __enter__(self) -> Site:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def url(self, k: int, path: str) -> str:
        return f"http://{HOST}:{self.ports[k]}{path}"

    def post(self, k: int, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        request = urllib.request.Request(
            self.url(k, path), data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.load(response)
        except urllib.error.HTTPError as err:
            return err.code, json.load(err)

    def get(self, k: int, path: str) -> tuple[int, Any]:
        try:
            with urllib.request.urlopen(self.url(k, path), timeout=30) as response:
                return response.status, json.load(response)
        except urllib.error.HTTPError as err:
            return err.code, json.load(err)

    def new_table(self, game: str, k: int = 0, **options: bool) -> str:
        status, body = self.post(k, "/api/tables", {"game": game, "options": options})
        assert status == 201, body
        return str(body["id"])


class Client:
    """One socket of one client at one table, on one worker."""

    def __init__(self, site: Site, worker: int, table: str, token: str) -> None:
        self.site, self.worker, self.table, self.token = site, worker, table, token
        self.view: dict[str, Any] = {}
        self.views: list[dict[str, Any]] = []
        self.socket: Any = None

    async def connect(self, worker: int | None = None) -> Client:
        import websockets

        if worker is not None:
            self.worker = worker
        port = self.site.ports[self.worker]
        self.socket = await websockets.connect(f"ws://{HOST}:{port}/ws/{self.table}", max_size=2**24)
        await self.socket.send(json.dumps({"client": self.token}))
        first = await self.receive()
        assert "view" in first, first
        return self

    async def receive(self, timeout: float = 20.0) -> dict[str, Any]:
        message = dict(json.loads(await asyncio.wait_for(self.socket.recv(), timeout)))
        if "view" in message:
            self.view = message["view"]
            self.views.append(self.view)
        return message

    async def command(self, text: str, timeout: float = 30.0) -> dict[str, Any]:
        """Send a command; the reply (the views that come before it are kept)."""
        await self.socket.send(json.dumps({"command": text}))
        while True:
            message = await self.receive(timeout)
            if "reply" in message:
                return dict(message["reply"])

    async def wait_version(self, version: int, timeout: float = 20.0) -> dict[str, Any]:
        """Read views until one of ``version`` or later comes."""
        deadline = time.monotonic() + timeout
        while self.view.get("version", -1) < version:
            await self.receive(max(0.01, deadline - time.monotonic()))
        return self.view

    async def close(self) -> None:
        if self.socket is not None:
            await self.socket.close()
