"""The site's limits counted in Redis: one count for every worker of a site."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tablezoo.tables.limits import SharedLimits

from .site import HOST, Site, free_port

pytest.importorskip("limits")
pytest.importorskip("websockets")

REFUSED = "too many new tables: at most 20 a minute from one address; join an open one"


def test_60_creations_from_one_address_across_two_workers_create_at_most_the_limit(
    database: str, broker: str, tmp_path: Path
) -> None:
    options = ("--create-rate", "20")
    with Site(database, broker, workers=2, log=tmp_path / "workers.log", options=options) as site:
        answers = [site.post(k % 2, "/api/tables", {"game": "court"}) for k in range(60)]
        status, listed = site.get(1, "/api/tables?limit=200")
    created = [body for status, body in answers if status == 201]
    refused = [body for status, body in answers if status == 429]
    assert len(created) == 20 and len(refused) == 40, [s for s, _ in answers]
    assert all(body == {"error": REFUSED} for body in refused)
    assert status == 200 and len(listed) == 20


def test_sockets_from_one_address_are_limited_across_two_workers(
    database: str, broker: str, tmp_path: Path
) -> None:
    import websockets

    options = ("--connect-rate", "4")
    with Site(database, broker, workers=2, log=tmp_path / "workers.log", options=options) as site:
        table = site.new_table("court")

        async def run() -> list[int | None]:
            codes = []
            for k in range(8):
                url = f"ws://{HOST}:{site.ports[k % 2]}/ws/{table}"
                async with websockets.connect(url) as socket:
                    try:  # a refused socket may be closed before its hello is sent
                        await socket.send(json.dumps({"client": f"watcher-token-{k}"}))
                        message = await asyncio.wait_for(socket.recv(), 10)
                    except websockets.ConnectionClosed:
                        message = ""
                    if '"view"' in message:
                        codes.append(None)
                        continue
                    await asyncio.wait_for(socket.wait_closed(), 10)
                    codes.append(socket.close_code)
                    assert socket.close_reason == "" and (not message or "at most 4 a minute" in message)
            return codes

        codes = asyncio.run(run())
    assert codes == [None] * 4 + [4429] * 4


def test_commands_are_counted_in_a_window_the_refusal_states(broker: str) -> None:
    async def run() -> tuple[list[str | None], list[str | None]]:
        limits = SharedLimits(broker, rate=10, burst=30)
        other = SharedLimits(broker, rate=10, burst=30)  # a second worker's
        try:
            first = [await limits.command("alice-token") for _ in range(20)]
            second = [await other.command("alice-token") for _ in range(20)]
        finally:
            await limits.close()
            await other.close()
        return first, second

    first, second = asyncio.run(run())
    assert first == [None] * 20
    assert second == [None] * 10 + ["too many commands: at most 30 in 3 seconds; wait a moment"] * 10


def test_without_redis_each_worker_counts_on_its_own() -> None:
    async def run() -> list[str | None]:
        limits = SharedLimits(f"redis://{HOST}:{free_port()}/0", create_rate=3)  # nothing listens there
        try:
            return [await limits.create("10.0.0.7") for _ in range(5)]
        finally:
            await limits.close()

    answers = asyncio.run(run())
    assert answers[:3] == [None] * 3
    assert answers[3:] == ["too many new tables: at most 3 a minute; join an open one"] * 2
