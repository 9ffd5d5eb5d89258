"""qstat -g c: a line per cluster queue with its load and what becomes of its slots, as
8.1.9 lays it out (reference transcripts/queues_pe.txt; the state columns as 8.1.9 run
here counted them).

An instance's slots count as available (less those used and reserved) only while it
takes jobs. Otherwise all of them count in one of two columns: aoACDS for states the
cell lifts by itself (load alarm, orphaned, suspend threshold, calendar, subordination),
cdsuE for those somebody must see to (configuration ambiguous, disabled, suspended,
unknown, error), cdsuE first when both apply."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gridd.cli.render_qstat import XML_HEAD, shown_instances, used_slots
from gridd.formats.shown import xml_escape
from gridd.model.cluster import ExecHost, split_instance
from gridd.model.host_lifecycle import shown_up

if TYPE_CHECKING:
    from gridd.protocol import JobsReply

HEADER = ("CLUSTER QUEUE                   CQLOAD   USED    RES  AVAIL  TOTAL aoACDS  "
          "cdsuE  ")
RULE = "-" * 80
_BY_ITSELF = frozenset("aoACDS")
_BY_HAND = frozenset("cdsuE")


@dataclass
class Summary:
    name: str
    load: float | None  # the mean np_load_avg of its instances' hosts that report one
    used: int = 0
    resv: int = 0
    available: int = 0
    total: int = 0
    temp_disabled: int = 0  # aoACDS
    manual_intervention: int = 0  # cdsuE


def summaries(reply: JobsReply) -> list[Summary]:
    """Every cluster queue with an instance qstat's selection options chose (all without
    them), by name."""
    hosts = {h.name: h for h in reply.hosts}
    used = used_slots(reply.jobs)
    out: dict[str, Summary] = {}
    loads: dict[str, list[float]] = {}
    for queue, qi in shown_instances(reply):
        host_name = split_instance(qi)[1]
        found = out.setdefault(queue.name, Summary(queue.name, None))
        total = queue.instance_slots(host_name)
        taken, held = used.get(qi, 0), reply.ar_slots.get(qi, 0)
        found.total += total
        found.used += taken
        found.resv += held
        states = set(reply.states.get(qi, ""))
        if states & _BY_HAND:
            found.manual_intervention += total
        elif states & _BY_ITSELF:
            found.temp_disabled += total
        else:
            found.available += max(total - taken - held, 0)
        load = _np_load(hosts.get(host_name))
        if load is not None:
            loads.setdefault(queue.name, []).append(load)
    for name, values in loads.items():
        out[name].load = sum(values) / len(values)
    return sorted(out.values(), key=lambda s: s.name)


def _np_load(host: ExecHost | None) -> float | None:
    if not shown_up(host):
        return None
    load = host.load
    try:
        if "np_load_avg" in load:
            return float(load["np_load_avg"])
        return float(load["load_avg"]) / max(int(load.get("num_proc", "1")), 1)
    except (KeyError, ValueError):
        return None


def cluster_summary(reply: JobsReply) -> str:
    lines = [HEADER, RULE]
    for s in summaries(reply):
        load = "-NA-" if s.load is None else f"{s.load:.2f}"
        lines.append(f"{s.name[:30]:<30} {load:>7} {s.used:6d} {s.resv:6d} {s.available:6d} "
                     f"{s.total:6d} {s.temp_disabled:6d} {s.manual_intervention:6d} ")
    return "".join(line + "\n" for line in lines)


def cluster_summary_xml(reply: JobsReply) -> str:
    out = [XML_HEAD]
    for s in summaries(reply):
        fields = [("name", s.name)]
        if s.load is not None:
            fields.append(("load", f"{s.load:.5f}"))
        fields += [("used", str(s.used)), ("resv", str(s.resv)),
                   ("available", str(s.available)), ("total", str(s.total)),
                   ("temp_disabled", str(s.temp_disabled)),
                   ("manual_intervention", str(s.manual_intervention))]
        body = "".join(f"    <{tag}>{xml_escape(value)}</{tag}>\n" for tag, value in fields)
        out.append(f"  <cluster_queue_summary>\n{body}  </cluster_queue_summary>\n")
    out.append("</job_info>\n")
    return "".join(out)
