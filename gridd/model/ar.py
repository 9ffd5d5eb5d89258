"""Advance reservations: what a user asks for with qrsub, and what was granted.

An AR holds slots (and the consumables it asked for) on queue instances from its start to
its end; only jobs submitted into it (qsub -ar) may use them, and no other job may.
"""

import msgspec

from gridd.model.ar_lifecycle import WAITING, after
from gridd.model.rsmap import ResourceMap

MAX_AR_ID = 9_999_999


class ArSpec(msgspec.Struct, kw_only=True):
    """qrsub's request: any two of start, end and duration (None where not given)."""

    name: str = ""
    account: str = "sge"
    owner: str = ""
    group: str = ""
    start: float | None = None  # -a
    end: float | None = None  # -e
    duration: float | None = None  # -d
    checkpoint: str = ""  # -ckpt
    hard_error: bool = False  # -he y
    resources: dict[str, str] = msgspec.field(default_factory=dict)  # -l
    queues: list[str] = msgspec.field(default_factory=list)  # -q
    master_queues: list[str] = msgspec.field(default_factory=list)  # -masterq
    mail_options: str = ""  # -m
    mail_list: list[str] = msgspec.field(default_factory=list)  # -M
    pe_name: str = ""
    pe_min: int = 0
    pe_max: int = 0
    users: list[str] = msgspec.field(default_factory=list)  # -u: names and @usersets
    immediate: bool = False  # -now y
    verify: str = "e"  # -w e|v

    def slots(self) -> int:
        return max(self.pe_min, 1) if self.pe_name else 1


class ArPlace(msgspec.Struct, kw_only=True):
    """What narrows where an AR may go besides its requests: its access list, -now
    (interactive queues only), -ckpt (queues offering that checkpointing) and -masterq
    (queues the master task may take)."""

    users: list[str]
    interactive: bool = False
    checkpoint: str = ""
    master_queues: list[str] = msgspec.field(default_factory=list)


class AdvanceReservation(msgspec.Struct, kw_only=True):
    ar_id: int
    spec: ArSpec
    submission_time: float
    start: float
    end: float
    state: str = WAITING
    granted: list[tuple[str, int]] = msgspec.field(default_factory=list)  # instance, slots
    granted_pe: str = ""
    resource_map: ResourceMap = msgspec.field(default_factory=list)  # the RSMAP ids it holds
    message: str = ""  # why it is in state E or W

    @property
    def duration(self) -> float:
        return self.end - self.start

    def acl(self) -> list[str]:
        """Who may submit into it: the -u list, else its owner."""
        return self.spec.users or [self.spec.owner]

    def move(self, event: str) -> bool:
        """Take the state the AR lifecycle's table gives for `event` (True), or keep this
        one when the table refuses the event (False)."""
        state = after(self.state, event)
        if state is None:
            return False
        self.state = state
        return True


class ArBooking(msgspec.Struct, array_like=True):
    """What the scheduler knows of an AR: where it holds what, when, and whether its jobs
    may run now (started, and not blocked by a hard error)."""

    ar_id: int
    start: float
    end: float
    granted: list[tuple[str, int]]
    hard: dict[str, str]  # its -l requests, full names, per slot as for a job
    pe: str = ""
    usable: bool = False
    resource_map: ResourceMap = []  # the RSMAP ids it holds for its jobs


class ArRecord(msgspec.Struct, kw_only=True, tag="ar"):
    """One AR event for the reporting file (reporting(5): new_ar, ar_attr, ar_log,
    ar_acct), as the master records it and the accounting actor writes it."""

    kind: str  # "new_ar", "ar_attr", "ar_log" or "ar_acct"
    time: float
    ar: AdvanceReservation  # as it was at the event
    state: str = ""  # ar_log: the state it went to,
    event: str = ""  # the event (START TIME REACHED, TERMINATED, DELETED, ...)
    message: str = ""  # and what happened
    queue: str = ""  # ar_acct: one cluster queue,
    host: str = ""  # host
    slots: int = 0  # and the slots the AR held there
