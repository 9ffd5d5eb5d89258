"""A choice of queue instances by what they are: qselect's options, which qstat shares
(gridd.sched.select makes it)."""

import msgspec


class QueueSelect(msgspec.Struct, kw_only=True):
    """Queue instances chosen by name (-q), by what they offer (-l), by the PEs they list
    (-pe) and by who may use them (-U)."""

    queues: list[str] = []
    resources: dict[str, str] = {}
    pes: list[str] = []
    users: list[str] = []
    states: str = ""  # -qs: instances showing one of these state letters (as qstat -f)
    # The users' primary groups, as the master's user database has them: its actor puts
    # them in (what a client sends is replaced).
    groups: dict[str, str] = {}
