"""The test servers themselves: PostgreSQL answers, keeps its data over a restart and a crash;
Redis answers and restarts empty; a server that cannot start says why; without the programs the
tests are skipped, or fail under TABLEZOO_REQUIRE_SERVERS=1."""

from __future__ import annotations

import os

import pytest

from tablezoo.tables import local_servers as servers
from tablezoo.tables.local_servers import PostgresServer, RedisServer, ServerError
from tests.tables.cluster import conftest


def test_postgres_answers_a_query(postgres: PostgresServer, database: str) -> None:
    import psycopg

    assert postgres.url == f"postgresql://tablezoo@127.0.0.1:{postgres.port}/tablezoo"
    assert database.startswith(f"postgresql://tablezoo@127.0.0.1:{postgres.port}/test_")
    with psycopg.connect(database) as conn:
        assert conn.execute("SELECT current_database(), 6 * 7").fetchone() == (database.rsplit("/", 1)[1], 42)
        assert conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone() == (0,)
    with psycopg.connect(postgres.url) as conn:
        assert conn.execute("SELECT inet_server_addr()::text").fetchone() == ("127.0.0.1/32",)


def test_each_test_gets_its_own_database(postgres: PostgresServer, database: str) -> None:
    other = postgres.create_database("test_other")
    try:
        assert other != database
        with postgres.connect("postgres") as conn:
            names = {row[0] for row in conn.execute("SELECT datname FROM pg_database")}
        assert {database.rsplit("/", 1)[1], "test_other", "tablezoo"} <= names
    finally:
        postgres.drop_database("test_other")


def _write(url: str) -> None:
    import psycopg

    with psycopg.connect(url) as conn:
        conn.execute("CREATE TABLE kept (id int PRIMARY KEY, note text)")
        conn.execute("INSERT INTO kept VALUES (1, 'committed')")


def _read(url: str) -> list[tuple[int, str]]:
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute("SELECT id, note FROM kept").fetchall()


def test_postgres_restart_keeps_the_data_and_the_port(postgres: PostgresServer, database: str) -> None:
    _write(database)
    port, pid = postgres.port, postgres.pid
    postgres.restart()
    assert postgres.running and postgres.port == port and postgres.pid != pid
    assert _read(database) == [(1, "committed")]


def test_postgres_killed_starts_again_with_its_committed_data(
    postgres: PostgresServer, database: str
) -> None:
    import psycopg

    _write(database)
    with psycopg.connect(database) as idle:  # a session open when the server dies
        postgres.kill()
        assert not postgres.running
        with pytest.raises(psycopg.OperationalError):
            idle.execute("SELECT 1")
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(database, connect_timeout=2)
    postgres.start()
    assert _read(database) == [(1, "committed")]


def test_redis_answers_and_restarts_empty(redis: RedisServer, broker: str) -> None:
    import redis as redis_py

    assert broker == f"redis://127.0.0.1:{redis.port}/0" == redis.url
    client = redis_py.Redis.from_url(broker)
    assert client.ping() and client.dbsize() == 0
    client.set("key", "value")
    redis.restart()
    assert client.ping() and client.get("key") is None  # nothing is saved to disk
    redis.kill()
    with pytest.raises(redis_py.ConnectionError):
        client.ping()
    redis.start()
    assert client.ping()
    client.close()


def test_the_broker_is_emptied_for_each_test(redis: RedisServer, broker: str) -> None:
    with redis.client() as client:
        assert client.dbsize() == 0
        client.set("left", "behind")  # the next test's broker will not see it


def test_two_servers_side_by_side_do_not_collide(redis: RedisServer) -> None:
    with RedisServer() as second:
        assert second.port != redis.port and second.dir != redis.dir
        with second.client() as client:
            assert client.ping()
        folder = second.dir
    assert not folder.exists() and not second.running


def test_a_server_that_cannot_start_says_why(redis: RedisServer) -> None:
    broken = RedisServer(args=["--no-such-directive", "1"])
    try:
        with pytest.raises(ServerError, match=r"(?s)exited with .*no-such-directive"):
            broken.start()
    finally:
        broken.close()


def test_missing_programs_are_named_with_how_to_install_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(servers, "postgres_bindir", lambda: None)
    monkeypatch.setattr(servers, "redis_binary", lambda: None)
    message = servers.missing()
    assert message is not None
    assert "initdb" in message and "redis-server" in message
    assert "make servers" in message and "apt-get install postgresql redis-server" in message


def test_missing_servers_skip_or_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conftest, "missing", lambda: "no servers here")
    monkeypatch.delenv("TABLEZOO_REQUIRE_SERVERS", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no servers here"):
        conftest.need_servers()
    monkeypatch.setenv("TABLEZOO_REQUIRE_SERVERS", "1")
    with pytest.raises(pytest.fail.Exception, match="no servers here"):
        conftest.need_servers()


def test_postgres_runs_as_the_postgres_user_under_root(postgres: PostgresServer) -> None:
    with postgres.connect("postgres") as conn:
        (data,) = conn.execute("SHOW data_directory").fetchone() or ("",)
    assert data == str(postgres.data)
    owner = os.stat(postgres.data).st_uid
    assert owner == (servers.pwd.getpwnam("postgres").pw_uid if os.geteuid() == 0 else os.geteuid())
