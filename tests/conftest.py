"""Suite-wide settings.

Hypothesis runs without per-example deadlines and without the too-slow health check:
CI shares two cores with the cells the end-to-end tests start, so generation speed is
not something these tests can promise; what they check is unchanged.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "gridd", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("gridd")


@pytest.fixture
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Local time is UTC, as on the machine the reference transcripts were taken on
    (tests that render dates use it with `pytestmark = pytest.mark.usefixtures("utc")`)."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()
