"""The signals that stop an execd, and what each does to its jobs.

Light (signal only): `gridd down` sends them without loading the daemon's code.
"""

from __future__ import annotations

import signal

# End at once and leave the jobs running under their shepherds, for the next execd to take
# over (as qconf -ke): `gridd down`, or ^C on `gridd execd`.
LEAVE_JOBS = (signal.SIGTERM, signal.SIGINT)
# Kill the jobs, wait (a few seconds at most) until their ends are recorded, then end (as
# qconf -kej): `gridd down --kill-jobs`.
KILL_JOBS = signal.SIGUSR1
