"""The token bucket behind the master's request rate limit, on a clock the test moves."""

from __future__ import annotations

import logging

from gridd.master.ratelimit import Limiter, QuietLog, TokenBucket


def test_a_burst_then_the_rate():
    bucket = TokenBucket(rate=2.0, burst=3.0, now=100.0)
    assert [bucket.take(100.0) for _ in range(4)] == [True, True, True, False]
    assert not bucket.take(100.4)  # 0.8 of a token
    assert bucket.take(100.5)
    assert not bucket.take(100.5)
    assert [bucket.take(1000.0) for _ in range(4)] == [True, True, True, False]  # capped


def test_the_clock_going_back_gives_nothing():
    bucket = TokenBucket(rate=1.0, burst=1.0, now=10.0)
    assert bucket.take(10.0)
    assert not bucket.take(5.0)
    assert not bucket.take(10.5)
    assert bucket.take(11.0)


def test_each_peer_has_its_own_bucket_and_the_idle_are_forgotten():
    limiter = Limiter(rate=1.0, burst=2.0, peers=2)
    assert [limiter.allow(b"a", 0.0) for _ in range(3)] == [True, True, False]
    assert limiter.allow(b"b", 0.0)  # a's flood costs b nothing
    assert not limiter.allow(b"a", 0.0)
    assert limiter.allow(b"c", 0.0)  # three peers: the least recently heard (b) goes
    assert set(limiter.buckets) == {b"a", b"c"}
    assert not limiter.allow(b"a", 0.5)


def test_warnings_past_the_rate_are_counted_not_logged(caplog):
    logger = logging.getLogger("test.quiet")
    quiet = QuietLog(logger, rate=1.0, burst=2.0)
    with caplog.at_level(logging.WARNING, logger="test.quiet"):
        for i in range(10):
            quiet.warning(0.0, "bad message %d", i)
        quiet.warning(1.0, "bad message %d", 10)
    assert [r.getMessage() for r in caplog.records] == [
        "bad message 0", "bad message 1", "(8 similar warnings not logged)", "bad message 10"]
