"""How fast one peer may make the master work: a token bucket per connection.

A connection may send ``burst`` requests at once and then ``rate`` a second on average;
a request over that is answered with an error instead of being applied, so that one
client looping on requests cannot take the master's time from everyone else. The same
bucket keeps the warnings bad peers cause from filling the log (QuietLog). The clock is
an argument: all of it is pure and tested without sleeping.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Hashable


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up; full to begin with."""

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.when = now

    def take(self, now: float, cost: float = 1.0) -> bool:
        """Spend ``cost`` tokens if there are that many at ``now``."""
        if now > self.when:
            self.tokens = min(self.burst, self.tokens + (now - self.when) * self.rate)
            self.when = now
        if self.tokens < cost:
            return False
        self.tokens -= cost
        return True


class Limiter:
    """One bucket per peer. Only the ``peers`` most recently heard of are remembered (a
    connection's routing id is never reused, so the buckets of closed connections must
    go); one forgotten starts again with a full bucket."""

    def __init__(self, rate: float, burst: float, peers: int = 4096) -> None:
        self.rate = rate
        self.burst = burst
        self.peers = peers
        self.buckets: OrderedDict[Hashable, TokenBucket] = OrderedDict()

    def allow(self, peer: Hashable, now: float) -> bool:
        bucket = self.buckets.get(peer)
        if bucket is None:
            bucket = self.buckets[peer] = TokenBucket(self.rate, self.burst, now)
            if len(self.buckets) > self.peers:
                self.buckets.popitem(last=False)
        else:
            self.buckets.move_to_end(peer)
        return bucket.take(now)


class QuietLog:
    """Warnings a peer can cause, at most ``rate`` a second after a ``burst``: one bad
    client must not fill the log. What is held back is counted and said with the next
    warning that gets through."""

    def __init__(self, logger: logging.Logger, rate: float, burst: float) -> None:
        self.logger = logger
        self.bucket = TokenBucket(rate, burst, float("-inf"))
        self.held = 0

    def warning(self, now: float, text: str, *args: object) -> None:
        if not self.bucket.take(now):
            self.held += 1
            return
        if self.held:
            self.logger.warning("(%d similar warnings not logged)", self.held)
            self.held = 0
        self.logger.warning(text, *args)
