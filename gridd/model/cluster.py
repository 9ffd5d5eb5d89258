"""Execution hosts and cluster queues as the master keeps them."""


import msgspec


class ExecHost(msgspec.Struct):
    name: str
    load: dict[str, str] = msgspec.field(default_factory=dict)  # load_avg, np_load_avg, arch, ...
    last_report: float = 0.0  # 0 means never heard from (qhost prints "-")
    load_report_time: float = 40.0


class Queue(msgspec.Struct):
    """A cluster queue: one instance per host in its host list."""

    name: str
    hostlist: list[str] = msgspec.field(default_factory=list)
    slots: int = 1
    slots_per_host: dict[str, int] = msgspec.field(default_factory=dict)  # [host=n] overrides
    qtype: str = "BATCH INTERACTIVE"
    seq_no: int = 0
    tmpdir: str = "/tmp"
    shell: str = "/bin/sh"
    h_rt: str = "INFINITY"
    s_rt: str = "INFINITY"

    def instance_slots(self, host: str) -> int:
        return self.slots_per_host.get(host, self.slots)

    def instances(self) -> list[str]:
        return [f"{self.name}@{h}" for h in self.hostlist]


def split_instance(qi: str) -> tuple[str, str]:
    """'all.q@node1' -> ('all.q', 'node1')."""
    queue, _, host = qi.partition("@")
    return queue, host
