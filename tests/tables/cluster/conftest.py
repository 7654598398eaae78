"""Fixtures of the cluster tests: private PostgreSQL and Redis servers, one of each per test
process (each pytest-xdist worker starts its own, on free ports, in its own directory), a fresh
database and an emptied Redis per test.

Without the servers' programs these tests are skipped, unless ``TABLEZOO_REQUIRE_SERVERS=1``
(as in CI) makes that a failure: ``make servers`` installs them.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from tablezoo.tables.local_servers import PostgresServer, RedisServer, missing


def need_servers() -> None:
    """Skip the test (fail it under ``TABLEZOO_REQUIRE_SERVERS=1``) when a server cannot run here."""
    message = missing()
    if message:
        if os.environ.get("TABLEZOO_REQUIRE_SERVERS") == "1":
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """The session's PostgreSQL, started; its ``url`` names the database ``tablezoo``. A test may
    stop, kill or restart it: the next test that asks for ``database`` finds it started again."""
    need_servers()
    server = PostgresServer()
    try:
        server.start()
        yield server
    finally:
        server.close()


@pytest.fixture(scope="session")
def redis() -> Iterator[RedisServer]:
    """The session's Redis, started (nothing it holds survives a restart)."""
    need_servers()
    server = RedisServer()
    try:
        server.start()
        yield server
    finally:
        server.close()


@pytest.fixture
def database(postgres: PostgresServer) -> Iterator[str]:
    """The URL of a new, empty database on the session's PostgreSQL, dropped after the test."""
    postgres.start()
    name = f"test_{uuid.uuid4().hex[:16]}"
    url = postgres.create_database(name)
    try:
        yield url
    finally:
        postgres.start()  # the test may have stopped or killed it
        postgres.drop_database(name)


@pytest.fixture
def broker(redis: RedisServer) -> str:
    """The URL of the session's Redis, emptied (FLUSHALL) for this test."""
    redis.start()
    with redis.client() as client:
        client.flushall()
    return redis.url
