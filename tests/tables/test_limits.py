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


def test_a_full_limit_forgets_the_keys_whose_buckets_have_refilled() -> None:
    limit = RateLimit(rate=1.0, burst=2, max_keys=3)
    for key in ("a", "b", "c", "d"):
        assert limit.allow(key, now=0.0)
    assert limit.allow("b", now=1.0) and limit.allow("b", now=1.0)  # b used its burst again
    assert limit.allow("e", now=1.5)  # more than max_keys: a, c and d have refilled, b has not
    assert set(limit.buckets) == {"b", "e"}
    assert not limit.allow("b", now=1.5)  # a key still in use keeps its state
    assert limit.allow("a", now=1.5) and limit.allow("a", now=1.5)  # a forgotten key starts full
