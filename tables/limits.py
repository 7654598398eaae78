"""How fast the site's clients may act: token buckets, one per client or per address.

The web server (:mod:`tablezoo.tables.server`) keeps two :class:`RateLimit` s:
the commands each client sends over its sockets (:data:`RATE` a second, bursts
of :data:`BURST`) and the tables each address creates (:data:`CREATE_RATE` a
minute). Neither needs the web extra; both are plain objects a test can drive
with its own clock (every ``now`` below is :func:`time.monotonic` seconds).
"""

from __future__ import annotations

import time

RATE = 10.0
"""Commands a client may send a second."""
BURST = 30
"""Commands a client may send in one burst."""
CREATE_RATE = 20
"""Tables an address may create a minute."""
MAX_OPEN_TABLES = 500
"""Tables that may wait for players at once."""
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
