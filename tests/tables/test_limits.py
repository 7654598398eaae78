"""The rate limits on their own, with a clock of the test's choosing (no server)."""

from __future__ import annotations

from tablezoo.tables.limits import Bucket, RateLimit


def test_a_bucket_allows_a_burst_then_its_rate() -> None:
    bucket = Bucket(rate=2.0, burst=3, now=0.0)
    assert [bucket.take(now=0.0) for _ in range(4)] == [True, True, True, False]
    assert not bucket.take(now=0.25)  # half a token back: not yet
    assert bucket.take(now=0.5)  # one token back
    assert not bucket.take(now=0.5)
    assert [bucket.take(now=100.0) for _ in range(4)] == [True, True, True, False]  # at most the burst


def test_each_key_has_its_own_bucket() -> None:
    limit = RateLimit(rate=1.0, burst=2)
    assert [limit.allow("alice", now=0.0) for _ in range(3)] == [True, True, False]
    assert limit.allow("bob", now=0.0)
    assert limit.allow("alice", now=1.0) and not limit.allow("alice", now=1.0)
