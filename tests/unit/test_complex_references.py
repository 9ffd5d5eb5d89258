"""qconf -Mc refuses to remove a complex attribute something still names (issue 29,
item 5): a host's or queue's complex_values (per-host overrides too), a queue's load or
suspend thresholds, an exec host's report variables or load scaling, a resource quota
set (its limits and dynamic limits), the scheduler configuration, a job's requests and
an advance reservation's. The refusal changes nothing, and names the first object as
8.1.9 does: 'denied: Complex attribute "license" is still referenced in host "global".'
(complexes.txt). 8.1.9's words for a queue, a quota set and the scheduler configuration
come from its qconf on a live cell; jobs and ARs, which 8.1.9 does not protect, are
named in the same shape.
"""

from __future__ import annotations

import msgspec
import pytest

from gridd import protocol as p
from gridd.formats.complex_table import ComplexRow, print_complex_table
from gridd.master import ars
from gridd.master.admin import Answer, Caller, run_qconf
from gridd.master.admin_refs import complex_references
from gridd.master.core import Master
from gridd.master.state import Effects
from gridd.model.ar import ArSpec
from gridd.model.complexes import ComplexAttr
from gridd.model.config import Configuration
from gridd.model.objects import ClusterQueue, ExecHostConf
from tests.unit.test_master_core import make_master, spec

LICENSE = ComplexAttr("license", "lic", "INT", "<=", "YES", "YES", "0", "0")
TOKEN = ComplexAttr("token", "tok", "DOUBLE", "<=", "YES", "YES", "0", "0")


def _table(rows: list[ComplexAttr]) -> str:
    return print_complex_table([ComplexRow(*msgspec.structs.astuple(a)) for a in rows])


def _without(cfg: Configuration, *names: str) -> dict[str, str]:
    """A -Mc file: the cell's table less `names`."""
    return {"sc": _table([a for a in cfg.complexes if a.name not in names])}


def _master() -> Master:
    master = make_master()
    master.s.config.complexes += [LICENSE, TOKEN]
    master.refresh_views()
    return master


def _qconf(master: Master, *argv: str, files: dict[str, str] | None = None) -> p.QconfReply:
    return master.qconf(p.Qconf(argv=list(argv), user="root", host="", files=files or {}),
                        Effects())


def _refused_removal(master: Master, *names: str) -> list[str]:
    """What -Mc says to a table without `names`, which must change nothing."""
    before = msgspec.msgpack.encode(master.s.config)
    reply = _qconf(master, "-Mc", "sc", files=_without(master.s.config, *names))
    assert reply.code == 1, reply
    assert msgspec.msgpack.encode(master.s.config) == before
    return reply.err


def _removed(master: Master, *names: str) -> None:
    reply = _qconf(master, "-Mc", "sc", files=_without(master.s.config, *names))
    assert reply.code == 0, reply
    assert not {a.name for a in master.s.config.complexes} & set(names)


def _sched_with(master: Master, attr: str, value: str) -> None:
    shown = _qconf(master, "-ssconf").out
    text = "\n".join(f"{attr} {value}" if line.split()[0] == attr else line for line in shown)
    assert _qconf(master, "-Msconf", "s", files={"s": text + "\n"}).code == 0


@pytest.mark.parametrize(("argv", "where"), [
    (("-aattr", "exechost", "complex_values", "license=5", "global"), 'host "global"'),
    (("-aattr", "exechost", "complex_values", "lic=5", "node2"), 'host "node2"'),
    (("-aattr", "exechost", "report_variables", "license", "node1"), 'host "node1"'),
    (("-rattr", "exechost", "load_scaling", "license=2", "node1"), 'host "node1"'),
    (("-aattr", "queue", "complex_values", "license=5", "all.q"), 'queue "all.q"'),
    (("-aattr", "queue", "complex_values", "[node2=license=5]", "all.q"), 'queue "all.q"'),
    (("-rattr", "queue", "load_thresholds", "license=3", "all.q"), 'queue "all.q"'),
    (("-rattr", "queue", "suspend_thresholds", "license=3", "all.q@node1"), 'queue "all.q"'),
])
def test_an_attribute_a_host_or_queue_names_stays(argv: tuple[str, ...], where: str) -> None:
    master = _master()
    assert _qconf(master, *argv).code == 0
    assert _refused_removal(master, "license") == [
        f'denied: Complex attribute "license" is still referenced in {where}.']
    _removed(master, "token")  # what nothing names goes


@pytest.mark.parametrize("limits", ["slots=4,license=3", "slots=$license*2"])
def test_an_attribute_a_quota_set_names_stays(limits: str) -> None:
    master = _master()
    rqs = f"{{\n   name lic\n   enabled FALSE\n   limit hosts {{*}} to {limits}\n}}\n"
    assert _qconf(master, "-Arqs", "lic", files={"lic": rqs}).code == 0
    assert _refused_removal(master, "license") == [
        'denied: Complex attribute "license" is still referenced in resource quota set "lic".']
    assert _qconf(master, "-drqs", "lic").code == 0
    _removed(master, "license")


@pytest.mark.parametrize(("attr", "value"), [
    ("job_load_adjustments", "np_load_avg=0.50,license=1"),
    ("load_formula", "np_load_avg+token*2"),
])
def test_an_attribute_the_scheduler_configuration_names_stays(attr: str, value: str) -> None:
    master = _master()
    _sched_with(master, attr, value)
    name = "license" if "license" in value else "token"
    assert _refused_removal(master, name) == [
        f'denied: Complex attribute "{name}" is still referenced in scheduler configuration.']


def test_an_attribute_a_job_asks_for_stays_until_the_job_is_gone() -> None:
    master = _master()
    fx = Effects()
    waiting = master.submit(spec(hard_resources={"lic": "1"}, hold=True), 1.0, fx).job_id
    soft = master.submit(spec(soft_resources={"token": "1"}, hold=True), 1.0, fx).job_id
    assert _refused_removal(master, "license", "token") == [
        f'denied: Complex attribute "license" is still referenced in job "{waiting}".',
        f'denied: Complex attribute "token" is still referenced in job "{soft}".']
    master.delete(p.Delete(targets=[str(waiting), str(soft)], user="root"), 2.0, Effects())
    _removed(master, "license", "token")


def test_an_attribute_an_advance_reservation_asks_for_stays() -> None:
    master = _master()
    master.s.config.exechosts["global"].complex_values = "token=4"
    master.refresh_views()
    now = 1_795_327_142.0
    reply = ars.submit(master, p.ArSubmit(spec=ArSpec(
        owner="root", start=now + 3600, duration=3600, resources={"tok": "1"})), now, Effects())
    assert isinstance(reply, p.Ok), reply
    master.s.config.exechosts["global"].complex_values = "NONE"
    assert _refused_removal(master, "token") == [
        'denied: Complex attribute "token" is still referenced in advance reservation "1".']


def test_the_global_host_is_named_before_other_hosts_and_queues() -> None:
    cfg = Configuration()
    cfg.complexes += [LICENSE]
    cfg.queues["a.q"] = ClusterQueue(qname="a.q", complex_values="license=1")
    assert complex_references(cfg)["license"] == 'queue "a.q"'
    cfg.exechosts["alpha"] = ExecHostConf(hostname="alpha", complex_values="license=1")
    assert complex_references(cfg)["license"] == 'host "alpha"'
    cfg.exechosts["global"] = ExecHostConf(hostname="global", complex_values="lic=1")
    assert complex_references(cfg, [('job "9"', ["license"])])["license"] == 'host "global"'
    requested = complex_references(Configuration(), [('job "9"', ["h_vmem", "nosuch"])])
    assert requested == {"h_vmem": 'job "9"', "np_load_avg": "scheduler configuration"}


def test_what_jobs_ask_for_is_looked_through_only_when_an_attribute_goes() -> None:
    """Every job's requests are walked (0.3 s at 50,000 jobs) for a table that removes
    an attribute, not for one that adds or changes some."""
    cfg = Configuration()
    walked: list[int] = []

    def requested() -> list[tuple[str, list[str]]]:
        walked.append(1)
        return [('job "7"', ["license"])]

    def mc(rows: list[ComplexAttr]) -> Answer:
        who = Caller("root", "vm", {"sc": _table(rows)}, requested=requested)
        return run_qconf(cfg, ["-Mc", "sc"], who)

    assert mc([*cfg.complexes, LICENSE]).code == 0
    assert mc([*cfg.complexes, TOKEN]).code == 0
    assert walked == []
    assert mc([a for a in cfg.complexes if a.name != "license"]).err == [
        'denied: Complex attribute "license" is still referenced in job "7".']
    assert walked == [1]
