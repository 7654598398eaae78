"""A watcher that sends its token and never reads, and the time each move takes beside it.

:func:`never_reading_socket` opens a WebSocket by hand on a TCP socket with a
tiny receive buffer, says hello and then reads nothing, so the server's send
buffer for it fills. :func:`moves_beside` times the commands of a reading
client at the same table meanwhile.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

HOST = "127.0.0.1"
TABLEZOO = str(Path(sys.executable).parent / "tablezoo")
STALL = 3.0
"""Seconds after which a command counts as stalled (and the run stops)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


@contextmanager
def one_process_site(db: Path) -> Iterator[int]:
    """``tablezoo serve`` on SQLite on a free port of 127.0.0.1; yields the port."""
    port = free_port()
    command = [TABLEZOO, "serve", "--port", str(port), "--db", str(db), "--log-level", "warning"]
    command += ["--rate", "1000", "--burst", "1000", "--create-rate", "100000"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://{HOST}:{port}/api/games", timeout=2):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("tablezoo serve did not start") from None
                time.sleep(0.2)
        yield port
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()


def new_table(port: int, game: str) -> str:
    request = urllib.request.Request(
        f"http://{HOST}:{port}/api/tables",
        data=json.dumps({"game": game, "options": {}}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return str(json.load(response)["id"])


def never_reading_socket(port: int, table_id: str, token: str) -> socket.socket:
    """A WebSocket to ``/ws/{table_id}`` that says hello as ``token`` and then never reads."""
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)  # before connecting: a small window
    raw.settimeout(10)
    raw.connect((HOST, port))
    key = base64.b64encode(os.urandom(16)).decode()
    raw.sendall(
        (
            f"GET /ws/{table_id} HTTP/1.1\r\nHost: {HOST}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = raw.recv(1)
        assert chunk, "the server closed the socket during the handshake"
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    payload = json.dumps({"client": token}).encode()
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    raw.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + masked)  # one masked text frame
    return raw


async def moves_beside(
    port: int, table_id: str, reader_port: int | None = None, moves: int = 300
) -> list[float]:
    """Seconds each of ``moves`` commands of a reading client took (command to reply) while a
    never-reading watcher (on ``reader_port``, or ``port``) is connected to the same table.
    Stops at the first command that takes over :data:`STALL` seconds."""
    import websockets

    player = await websockets.connect(f"ws://{HOST}:{port}/ws/{table_id}", max_size=2**24)
    await player.send(json.dumps({"client": "reading-player-1"}))
    assert "view" in json.loads(await asyncio.wait_for(player.recv(), 20))
    raw = await asyncio.to_thread(never_reading_socket, reader_port or port, table_id, "never-reads-1")
    took: list[float] = []
    try:
        await asyncio.sleep(0.5)  # the watcher is connected and was sent its first view
        for _ in range(moves):
            start = time.monotonic()
            await player.send('{"command": "/option quick"}')
            try:
                async with asyncio.timeout(STALL):
                    while "reply" not in json.loads(await player.recv()):
                        pass
            except TimeoutError:
                took.append(time.monotonic() - start)
                break
            took.append(time.monotonic() - start)
    finally:
        raw.close()
        await player.close()
    return took
