"""How fast the site's clients may act: the commands of a client, the tables and sockets of an address.

The web server (:mod:`tablezoo.tables.server`) keeps one :class:`Limits`: the
commands each client sends over its sockets (:data:`RATE` a second, bursts of
:data:`BURST`), the tables each address creates (:data:`CREATE_RATE` a minute)
and the sockets each address opens (:data:`CONNECT_RATE` a minute). Each answer
is None (allowed) or the refusal, which states the limit.

* The one-process site counts in its process: a :class:`RateLimit` (token buckets,
  plain objects a test can drive with its own clock; every ``now`` below is
  :func:`time.monotonic` seconds) per kind.
* A site of several workers counts in Redis (:class:`SharedLimits`, the ``limits``
  library's moving windows over its Redis storage), so that N workers do not
  allow N times the limit; a worker that cannot reach Redis counts on its own
  until it can again.
"""

from __future__ import annotations

import contextlib
import logging
import time

RATE = 10.0
"""Commands a client may send a second."""
BURST = 30
"""Commands a client may send in one burst."""
CREATE_RATE = 20
"""Tables an address may create a minute."""
MAX_OPEN_TABLES = 500
"""Tables that may wait for players at once."""
log = logging.getLogger(__name__)
MAX_KEYS = 100_000
"""Buckets a limit keeps before it forgets the idle ones (rather than grow without end)."""


class Bucket:
    """A token bucket: ``rate`` actions a second on average, ``burst`` at once."""

    def __init__(self, rate: float, burst: float, now: float | None = None) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.stamp = float(burst), time.monotonic() if now is None else now

    def take(self, now: float | None = None) -> bool:
        """Whether one more action is allowed now (it then uses a token)."""
        now = time.monotonic() if now is None else now
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def full(self, now: float) -> bool:
        """Whether the bucket has refilled by ``now``: then it is as good as a new one."""
        return self.tokens + (now - self.stamp) * self.rate >= self.burst


class RateLimit:
    """A :class:`Bucket` per key (a client token, an address), each ``rate`` a second, ``burst`` at once."""

    def __init__(self, rate: float, burst: float, max_keys: int = MAX_KEYS) -> None:
        self.rate, self.burst, self.max_keys = rate, burst, max_keys
        self.buckets: dict[str, Bucket] = {}

    def allow(self, key: str, now: float | None = None) -> bool:
        """Whether ``key`` may act once more now (its rate limit)."""
        now = time.monotonic() if now is None else now
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) > self.max_keys:
                # a refilled bucket is as good as the new one its key would get: forgetting it changes
                # no answer, and keeps the limit from growing without end
                self.buckets = {k: b for k, b in self.buckets.items() if not b.full(now)}
            bucket = self.buckets[key] = Bucket(self.rate, self.burst, now)
        return bucket.take(now)


CONNECT_RATE = 120
"""Sockets an address may open a minute."""
LIMIT_PREFIX = "tablezoo:limits"
"""The prefix of the keys the site-wide limits count in Redis."""


def _per(amount: int, seconds: int) -> str:
    """``at most 20 a minute``, ``at most 30 in 3 seconds``."""
    span = {1: "a second", 60: "a minute"}.get(seconds, f"in {seconds} seconds")
    return f"at most {amount:g} {span}"


class Limits:
    """The site's limits counted in this process: each answer is None (allowed) or the refusal,
    which states the limit. Used by the one-process site (and by a worker whose Redis is down)."""

    def __init__(
        self,
        rate: float = RATE,
        burst: int = BURST,
        create_rate: int = CREATE_RATE,
        connect_rate: int = CONNECT_RATE,
    ) -> None:
        self.rate, self.burst, self.create_rate, self.connect_rate = rate, burst, create_rate, connect_rate
        self.commands = RateLimit(rate, burst)
        self.creations = RateLimit(create_rate / 60, create_rate)
        self.connections = RateLimit(connect_rate / 60, connect_rate)

    async def command(self, client: str) -> str | None:
        """Whether ``client`` may send one more command now."""
        if self.commands.allow(client):
            return None
        return f"too many commands: at most {self.rate:g} a second; wait a moment"

    async def create(self, address: str) -> str | None:
        """Whether ``address`` may create one more table now."""
        if self.creations.allow(address):  # its burst is a minute's worth
            return None
        return f"too many new tables: at most {self.create_rate} a minute; join an open one"

    async def connect(self, address: str) -> str | None:
        """Whether ``address`` may open one more socket now."""
        if self.connections.allow(address):
            return None
        return f"too many new connections: {_per(self.connect_rate, 60)} from one address; wait a moment"

    async def close(self) -> None:
        """Release what the limits hold (nothing here)."""


class SharedLimits(Limits):
    """The same limits counted in Redis, so that every worker of a site shares one count (a
    moving window of the ``limits`` library over its Redis storage; the cluster extra).

    Commands: ``burst`` in a window of ``burst / rate`` seconds (rounded, at least 1);
    tables and sockets: so many a minute. When Redis cannot be reached the worker counts
    on its own (:class:`Limits`) until it can again.
    """

    def __init__(
        self,
        broker: str,
        rate: float = RATE,
        burst: int = BURST,
        create_rate: int = CREATE_RATE,
        connect_rate: int = CONNECT_RATE,
    ) -> None:
        from limits import RateLimitItemPerMinute, RateLimitItemPerSecond
        from limits.aio.storage import RedisStorage
        from limits.aio.strategies import MovingWindowRateLimiter
        from redis.asyncio import ConnectionPool

        super().__init__(rate, burst, create_rate, connect_rate)
        self.pool = ConnectionPool.from_url(broker, socket_timeout=1, socket_connect_timeout=1)
        self.storage = RedisStorage(
            "async+" + ("redis+" if broker.startswith("unix:") else "") + broker,
            implementation="redispy",
            wrap_exceptions=True,
            key_prefix=LIMIT_PREFIX,
            connection_pool=self.pool,  # type: ignore[arg-type]
        )
        self.limiter = MovingWindowRateLimiter(self.storage)
        window = max(1, round(burst / rate))
        self.items = {
            "command": RateLimitItemPerSecond(burst, window),
            "create": RateLimitItemPerMinute(create_rate),
            "connect": RateLimitItemPerMinute(connect_rate),
        }
        self.messages = {
            "command": f"too many commands: {_per(burst, window)}; wait a moment",
            "create": f"too many new tables: {_per(create_rate, 60)} from one address; join an open one",
            "connect": f"too many new connections: {_per(connect_rate, 60)} from one address; wait a moment",
        }
        self.shared = True
        """False while Redis cannot be reached (this worker then counts on its own)."""

    async def _hit(self, kind: str, key: str) -> str | None:
        try:
            allowed = await self.limiter.hit(self.items[kind], kind, key)
        except Exception as err:  # Redis is down: count here until it is back
            if self.shared:
                log.warning("the site-wide limits cannot be counted in Redis (%s): counting per worker", err)
            self.shared = False
            local: str | None = await getattr(super(), kind)(key)
            return local
        if not self.shared:
            log.warning("the site-wide limits are counted in Redis again")
            self.shared = True
        return None if allowed else self.messages[kind]

    async def command(self, client: str) -> str | None:
        return await self._hit("command", client)

    async def create(self, address: str) -> str | None:
        return await self._hit("create", address)

    async def connect(self, address: str) -> str | None:
        return await self._hit("connect", address)

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.pool.aclose()
