"""The values qstat -F and qhost -F show: order, the level that wins, and formats."""

from __future__ import annotations

from gridd.cli.render_qstat import resource_value
from gridd.model.cluster import Instance, PlanConf, Resource, Running
from gridd.model.complexes import DEFAULT_COMPLEXES, ComplexAttr
from gridd.sched.levels import build_levels
from gridd.sched.resources import host_resources, instance_resources, selected

TABLE = [*DEFAULT_COMPLEXES,
         ComplexAttr("license", "lic", "INT", "<=", "YES", "YES", "0", "0"),
         ComplexAttr("t02", "t02", "INT", "<=", "YES", "YES", "0", "0")]
LOAD = {"arch": "lx-amd64", "num_proc": "2", "mem_free": str(20 * 2**30),
        "np_load_avg": "0.5"}


def conf(host_slots: str | None = None) -> PlanConf:
    qi = Instance(name="all.q@vm", queue="all.q", host="vm", slots=4,
                  values={"qname": "all.q", "hostname": "vm", "slots": "4",
                          "h_rt": "INFINITY", "t02": "2", "mem_free": "1G"})
    hosts = {"vm": {"slots": host_slots}} if host_slots else {}
    return PlanConf(complexes=TABLE, global_values={"license": "5"}, host_values=hosts,
                    instances=[qi])


def shown(c: PlanConf, running=()) -> list[str]:
    levels = build_levels(c, {"vm": LOAD}, running)
    return [f"{r.prefix}:{r.name}={r.text}"
            for r in instance_resources(c, levels, {"vm": LOAD}, c.instances[0])]


def test_levels_in_order_and_the_most_restrictive_value_in_first_place():
    running = [Running(1, 0, {"t02": "1", "license": "2"}, [("all.q@vm", 1)])]
    assert shown(conf(), running) == [
        "gc:license=3.0", "hl:arch=lx-amd64", "hl:num_proc=2", "qf:mem_free=1G",
        "hl:np_load_avg=0.5", "qf:qname=all.q", "qf:hostname=vm", "qc:slots=3.0",
        "qf:h_rt=INFINITY", "qc:t02=1.0"]


def test_a_tie_keeps_the_higher_level():
    assert "hc:slots=4.0" in shown(conf(host_slots="4"))
    assert "qc:slots=3.0" in shown(conf(host_slots="5"),
                                   [Running(1, 0, {}, [("all.q@vm", 1)])])


def test_host_view_has_global_values_and_selection_takes_shortcuts():
    c = conf(host_slots="4")
    levels = build_levels(c, {"vm": LOAD}, [])
    values = host_resources(c, levels, {"vm": LOAD}, "vm")
    assert [r.prefix + ":" + r.name for r in values] == [
        "gc:license", "hl:arch", "hl:num_proc", "hl:mem_free", "hl:np_load_avg", "hc:slots"]
    assert [r.name for r in selected(values, ["lic", "s"], levels.matcher.table)] == [
        "license", "slots"]
    assert [r.name for r in host_resources(c, levels, {}, "global")] == ["license"]


def test_value_formats_of_qstat_and_qhost():
    def fmt(type_: str, text: str, qhost: bool = False) -> str:
        return resource_value(Resource("hl", "x", type_, text), qhost=qhost)

    assert fmt("INT", "2") == "2" and fmt("INT", "2", qhost=True) == "2.000000"
    assert fmt("INT", "3.0") == "3"
    assert fmt("DOUBLE", "0.5") == "0.500000" and fmt("BOOL", "FALSE") == "0.000000"
    assert fmt("MEMORY", str(23.54 * 2**30)) == "23.540G" and fmt("MEMORY", "0") == "0.000"
    assert fmt("MEMORY", "1G") == "1.000G" and fmt("MEMORY", "INFINITY") == "infinity"
    assert fmt("TIME", "INFINITY") == "infinity" and fmt("TIME", "0:5:0") == "00:05:00"
    assert fmt("STRING", "lx-amd64") == "lx-amd64"
