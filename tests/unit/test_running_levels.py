"""The levels a cycle starts from (Carried.running_levels) are what debiting every running
task afresh gives, to the last bit, however tasks come and go between cycles: kept levels
are debited and given back only while every amount is whole."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gridd.model.cluster import Instance, PlanConf, Running
from gridd.model.complexes import DEFAULT_COMPLEXES, ComplexAttr
from gridd.sched.carried import Carried
from gridd.sched.levels import Levels, build_levels, matcher_for

COMPLEXES = [
    *(a for a in DEFAULT_COMPLEXES if a.name in ("hostname", "qname", "slots")),
    ComplexAttr("lic", "lic", "INT", "<=", "YES", "YES", "0", "0"),
    ComplexAttr("frac", "frac", "DOUBLE", "<=", "YES", "YES", "0", "0"),
    ComplexAttr("jlic", "jlic", "INT", "<=", "YES", "JOB", "0", "0"),
]
INSTANCES = [Instance(name=f"q@h{i}", queue="q", host=f"h{i}", slots=8,
                      values={"qname": "q", "hostname": f"h{i}", "slots": "8"})
             for i in range(3)]


def _free(levels: Levels) -> dict[tuple[str, str], float]:
    return {(level.name, name): amount
            for level in (levels.global_level, *levels.hosts.values(), *levels.queues.values())
            for name, amount in level.free.items()}


tasks = st.builds(
    lambda job, hard, hosts, slots: Running(
        job, 1, hard, [(f"q@h{h}", slots) for h in sorted(set(hosts))]),
    st.integers(1, 10**6),
    st.fixed_dictionaries({}, optional={"lic": st.sampled_from(("1", "2")),
                                        "frac": st.sampled_from(("1", "0.1", "0.3")),
                                        "jlic": st.sampled_from(("1", "2"))}),
    st.lists(st.integers(0, 2), min_size=1, max_size=3),
    st.integers(1, 3),
)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(("12", "7.5")), st.lists(st.tuples(st.booleans(), tasks, st.integers(0, 9)),
                                                max_size=30))
def test_kept_levels_are_the_fresh_ones(frac: str, steps: list[tuple[bool, Running, int]]) -> None:
    conf = PlanConf(complexes=COMPLEXES, instances=INSTANCES,
                    global_values={"lic": "40", "frac": frac, "jlic": "20"})
    matcher = matcher_for(conf)
    carried = Carried()
    carried.follow_cell(conf, {})
    running: list[Running] = []
    for starts, task, which in steps:
        if starts or not running:
            running.append(task)
        else:
            del running[which % len(running)]
        kept = carried.running_levels(conf, {}, matcher, running)
        assert _free(kept) == _free(build_levels(conf, {}, running, matcher))
