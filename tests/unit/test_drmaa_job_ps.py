"""drmaa_job_ps's state from the letters qstat shows, its holds and qmod -sj's mark."""

from __future__ import annotations

import pytest

from gridd.drmaa import codes as c
from gridd.drmaa.session import _state


@pytest.mark.parametrize(("letters", "holds", "suspended", "want"), [
    ("qw", "", False, c.PS_QUEUED_ACTIVE),
    ("hqw", "u", False, c.PS_USER_ON_HOLD),
    ("t", "", False, c.PS_RUNNING),
    ("r", "", False, c.PS_RUNNING),
    ("s", "", True, c.PS_USER_SUSPENDED),
    ("S", "", False, c.PS_SYSTEM_SUSPENDED),
    ("Ss", "", True, c.PS_USER_SYSTEM_SUSPENDED),
    # Suspended while still being sent: qstat shows "t" until its execd answers, but
    # the suspension that drmaa_control said was done shows at once, as in Grid Engine.
    ("t", "", True, c.PS_USER_SUSPENDED),
])
def test_job_ps_state(letters: str, holds: str, suspended: bool, want: int) -> None:
    assert _state(letters, holds, suspended) == want
