"""Resource quota sets in the planner, example by example from the specification
(../shared/spec/resource-quota.txt), without daemons: rule sets built as objects, jobs
planned by one cycle, usage read back as qquota shows it."""

from __future__ import annotations

import pytest

from gridd.formats.rqs import check_limits, parse_limit_list
from gridd.model.cluster import Instance, PlanConf, Running
from gridd.model.complexes import DEFAULT_COMPLEXES, ComplexAttr, ComplexTable
from gridd.model.pe import FILL_UP, ParallelEnv
from gridd.model.planning import SchedJob
from gridd.model.rqs import Filter, Rule, RuleSet
from gridd.sched.cycle import Cycle
from gridd.sched.levels import build_levels
from gridd.sched.plan import verify
from gridd.sched.quota import Quotas, key_text

EXTRA = (ComplexAttr("compiler_lic", "cl", "INT", "<=", "YES", "YES", "0", "0"),)
TABLE = ComplexTable([*DEFAULT_COMPLEXES, *EXTRA])


def flt(*items: str, expand: bool = False) -> Filter:
    return Filter(expand, [i for i in items if not i.startswith("!")],
                  [i[1:] for i in items if i.startswith("!")])


def rule(limits: str, **filters: Filter) -> Rule:
    """A rule whose limits are read as the master reads them (dynamic ones parsed)."""
    rule = Rule(**filters)
    rule.limits = check_limits(TABLE, rule, parse_limit_list(limits))
    return rule


def cell(rqs: list[RuleSet], hosts: dict[str, int] | None = None, slots: int = 10,
         usersets: dict[str, list[str]] | None = None, host_values=None) -> tuple[PlanConf, dict]:
    hosts = hosts or {"durin": 2, "carc": 2}
    instances = [Instance(name=f"all.q@{h}", queue="all.q", host=h, slots=slots,
                          pe_list=["mpi"],
                          values={"qname": "all.q", "hostname": h, "slots": str(slots)})
                 for h in hosts]
    conf = PlanConf(complexes=[*DEFAULT_COMPLEXES, *EXTRA], instances=instances,
                    host_values=host_values or {}, hostgroups={"@linux": list(hosts)},
                    pes={"mpi": ParallelEnv("mpi", 999, FILL_UP)}, queue_sort_method="seqno",
                    rqs=rqs, usersets=usersets or {})
    loads = {h: {"num_proc": str(n), "arch": "lx-amd64"} for h, n in hosts.items()}
    return conf, loads


def job(job_id: int, user: str, tasks: int = 1, **kw) -> SchedJob:
    return SchedJob(job_id=job_id, pending=list(range(1, tasks + 1)), priority=0,
                      submit_time=float(job_id), owner=user, **kw)


def plan(conf: PlanConf, loads: dict, jobs: list[SchedJob], running=()):
    running = list(running)
    cycle = Cycle(conf, build_levels(conf, loads, running), loads, running, {})
    return cycle.run(jobs), cycle


def placed(result) -> list[tuple[int, str]]:
    return [(o.job_id, o.granted[0][0].split("@")[1]) for o in result.orders]


def qquota(cycle: Cycle) -> list[str]:
    return [f"{u.rule} {u.resource}={u.used:g}/{u.limit} {key_text(u.key)}"
            for u in cycle.quotas.usage_lines()]


SPEC_SETS = [
    RuleSet(name="maxujobs", rules=[rule("slots=20", users=flt("*"))]),
    RuleSet(name="max_linux", rules=[rule("slots=5", users=flt("*"), hosts=flt("@linux"))]),
    RuleSet(name="max_per_host", rules=[
        rule("slots=2", users=flt("roland"), hosts=flt("@linux", expand=True)),
        rule("slots=1", users=flt("*", expand=True), hosts=flt("@linux", expand=True)),
        rule("slots=0", users=flt("*"), hosts=flt("*")),
    ]),
]


def running(job_id: int, user: str, host: str) -> Running:
    return Running(job_id, 0, {}, [(f"all.q@{host}", 1)], owner=user)


def test_the_qquota_example_of_the_spec():
    conf, loads = cell(SPEC_SETS)
    busy = [running(27, "roland", "carc"), running(29, "roland", "carc"),
            running(30, "roland", "durin"), running(26, "roland", "durin"),
            running(28, "user1", "durin")]
    result, cycle = plan(conf, loads, [job(31, "roland"), job(32, "user1")], busy)
    assert qquota(cycle) == [
        "maxujobs/1 slots=5/20 /////",
        "max_linux/1 slots=5/5 /////",
        "max_per_host/1 slots=2/2 ////carc/",
        "max_per_host/1 slots=2/2 ////durin/",
        "max_per_host/2 slots=1/1 user1////durin/",
    ]
    # max_linux is used up: nobody gets more, whatever the per host rules would allow.
    assert result.orders == []
    assert result.info[31] == ['cannot run because it exceeds limit "/////" in rule '
                               '"max_linux/1"']


def test_per_host_rules_and_the_catch_all_rule():
    conf, loads = cell([SPEC_SETS[2]])
    result, cycle = plan(conf, loads, [job(1, "roland", tasks=5), job(2, "user1", tasks=3)])
    # roland two per host (four of five), user1 one per host (two of three).
    assert sorted(placed(result)) == [(1, "carc"), (1, "carc"), (1, "durin"), (1, "durin"),
                                      (2, "carc"), (2, "durin")]
    assert result.info[2] == ['cannot run because it exceeds limit "user1////durin/" in rule '
                              '"max_per_host/2"',
                              'cannot run because it exceeds limit "user1////carc/" in rule '
                              '"max_per_host/2"']
    # A host outside @linux falls through to the last rule: slots=0.
    conf2, loads2 = cell([SPEC_SETS[2]], hosts={"sol": 4})
    conf2.hostgroups = {"@linux": []}
    result2, _ = plan(conf2, loads2, [job(3, "roland")])
    assert result2.orders == [] and result2.info[3] == [
        'cannot run because it exceeds limit "/////" in rule "max_per_host/3"']


def test_first_matching_rule_of_a_set_and_the_most_restrictive_set():
    ruleset1 = RuleSet(name="ruleset1", rules=[
        rule("compiler_lic=3", users=flt("roland")),
        rule("compiler_lic=2", projects=flt("*")),
        rule("compiler_lic=1", users=flt("*")),
    ])
    ruleset2 = RuleSet(name="ruleset2", rules=[rule("compiler_lic=20", users=flt("*"))])
    conf, loads = cell([ruleset1, ruleset2])
    conf.global_values = {"compiler_lic": "100"}  # the licenses exist; the quotas ration them
    lic = {"compiler_lic": "1"}
    jobs = [job(1, "roland", tasks=4, hard=lic, project="p"),
            job(2, "andre", tasks=4, hard=lic, project="p"),
            job(3, "bob", tasks=4, hard=lic)]
    result, cycle = plan(conf, loads, jobs)
    started = [o.job_id for o in result.orders]
    # roland gets 3 even in a project; projects share 2; the rest share 1 (rule 3's
    # scope is not expanded).
    assert started.count(1) == 3 and started.count(2) == 2 and started.count(3) == 1
    # ruleset2 caps everyone together at 20.
    busy = [Running(100 + i, 0, lic, [("all.q@durin", 1)], owner=f"u{i}") for i in range(20)]
    result, _ = plan(conf, loads, [job(4, "roland", hard=lic)], busy)
    assert result.orders == [] and 'in rule "ruleset2/1"' in result.info[4][0]


def test_excluded_users_are_not_limited_even_when_listed():
    staff = {"staff": ["roland", "andre"]}
    for users in (flt("@staff", "!roland"), flt("@staff", "!roland", "roland")):
        conf, loads = cell([RuleSet(name="s", rules=[rule("slots=1", users=users)])],
                           usersets=staff)
        result, _ = plan(conf, loads, [job(1, "roland", tasks=3), job(2, "andre", tasks=3)])
        started = [o.job_id for o in result.orders]
        assert started.count(1) == 3 and started.count(2) == 1


def test_a_scope_list_shares_a_limit_and_an_expanded_list_does_not():
    vf = {"virtual_free": "2G"}

    def started(users: Filter) -> list[int]:
        conf, loads = cell([RuleSet(name="vf", rules=[rule("virtual_free=5G", users=users)])])
        conf.complexes = [a if a.name != "virtual_free" else ComplexAttr(
            "virtual_free", "vf", "MEMORY", "<=", "YES", "YES", "1g", "0")
            for a in conf.complexes]
        conf.host_values = {h: {"virtual_free": "100G"} for h in ("durin", "carc")}
        result, _ = plan(conf, loads, [job(1, "roland", tasks=3, hard=vf),
                                       job(2, "andre", tasks=3, hard=vf)])
        return [o.job_id for o in result.orders]

    assert started(flt("roland", "andre")) == [1, 1]  # 4G of the shared 5G
    assert started(flt("roland", "andre", expand=True)) == [1, 1, 2, 2]  # 4G each


def test_dynamic_limits_follow_each_hosts_processor_count():
    rs = RuleSet(name="per_cpu", rules=[
        rule("slots=$num_proc*5", hosts=flt("@linux", expand=True))])
    conf, loads = cell([rs], hosts={"one": 1, "two": 2}, slots=100)
    result, cycle = plan(conf, loads, [job(1, "u", tasks=30)])
    hosts = [h for _, h in placed(result)]
    assert hosts.count("one") == 5 and hosts.count("two") == 10
    assert qquota(cycle) == ["per_cpu/1 slots=5/5 ////one/", "per_cpu/1 slots=10/10 ////two/"]


@pytest.mark.parametrize(("formula", "limits"), [
    ("$num_proc-1", (1, 2)), ("$num_proc*2-3", (1, 3)), ("1+$num_proc", (3, 4)),
    ("-$p+4", (2, 1)), ("$num_proc*0.75", (1, 2)),  # an INT limit is whole, as 8.1.9 shows
])
def test_dynamic_limits_are_worked_out_per_host(formula: str, limits: tuple[int, int]):
    rs = RuleSet(name="dyn", rules=[rule(f"slots={formula}", hosts=flt("*", expand=True))])
    conf, loads = cell([rs], hosts={"two": 2, "three": 3}, slots=100)
    result, cycle = plan(conf, loads, [job(1, "u", tasks=30)])
    hosts = [h for _, h in placed(result)]
    assert (hosts.count("two"), hosts.count("three")) == limits
    two, three = limits
    assert qquota(cycle) == [f"dyn/1 slots={three}/{three} ////three/",
                             f"dyn/1 slots={two}/{two} ////two/"]  # in the order of hosts


def test_a_dynamic_limit_allows_nothing_where_a_value_it_references_is_unknown():
    rs = RuleSet(name="dyn", rules=[rule("slots=1+$num_proc", hosts=flt("*", expand=True))])
    conf, loads = cell([rs], hosts={"known": 1, "silent": 1}, slots=100)
    del loads["silent"]["num_proc"]  # not reported (yet)
    result, cycle = plan(conf, loads, [job(1, "u", tasks=4)])
    assert [h for _, h in placed(result)] == ["known", "known"]
    assert 'cannot run because it exceeds limit "////silent/" in rule "dyn/1"' in result.info[1]
    # a task that runs there all the same is counted against the formula as written
    _, cycle = plan(conf, loads, [], running=[running(7, "u", "silent")])
    assert qquota(cycle) == ["dyn/1 slots=1/1+$num_proc ////silent/"]
    # a value from the host's complex_values counts as a reported one does
    conf.host_values = {"silent": {"num_proc": "3"}}
    result, _ = plan(conf, loads, [job(1, "u", tasks=9)])
    assert sorted(h for _, h in placed(result)) == ["known"] * 2 + ["silent"] * 4


def test_projects_and_pes_with_star_and_not_star():
    rs = RuleSet(name="pp", rules=[
        rule("slots=1", projects=flt("*")),  # jobs with a project share one slot
        rule("slots=2", pes=flt("!*")),  # jobs without a PE share two
    ])
    conf, loads = cell([rs])
    jobs = [job(1, "a", tasks=3, project="p1"), job(2, "b", tasks=3),
            job(3, "c", pe="mpi", pe_min=2, pe_max=2)]
    result, _ = plan(conf, loads, jobs)
    started = [o.job_id for o in result.orders]
    assert started == [1, 2, 2, 3]  # the PE job matches no rule: unlimited


def test_fixed_attribute_limits_are_requirements():
    # A job asking for arch must ask for the rule's; one that does not ask is not limited.
    rs = RuleSet(name="arch", rules=[rule("arch=lx-amd64", users=flt("*"))])
    conf, loads = cell([rs])
    loads["carc"]["arch"] = "sol-sparc64"
    result, _ = plan(conf, loads, [job(1, "u", hard={"arch": "lx-amd64"}),
                                   job(2, "u", hard={"arch": "sol-sparc64"}), job(3, "u")])
    assert [o.job_id for o in result.orders] == [1, 3]
    assert 'cannot run because it exceeds limit "/////" in rule "arch/1"' in result.info[2]


def test_parallel_jobs_keep_the_limits_their_hosts_share():
    rs = RuleSet(name="u", rules=[rule("slots=5", users=flt("*", expand=True))])
    conf, loads = cell([rs], slots=4)
    result, _ = plan(conf, loads, [job(1, "u", pe="mpi", pe_min=6, pe_max=6),
                                   job(2, "u", pe="mpi", pe_min=2, pe_max=8)])
    assert [(o.job_id, sum(n for _, n in o.granted)) for o in result.orders] == [(2, 5)]
    assert result.info[1] == ['cannot run because it exceeds limit "u/////" in rule "u/1"']


def test_verification_with_quotas_as_grid_engine_prints_it():
    conf, loads = cell([SPEC_SETS[2]], hosts={"vm": 2})
    conf.hostgroups = {"@linux": []}
    assert verify(conf, loads, [], job(1, "root")) == [
        'cannot run because it exceeds limit "/////" in rule "max_per_host/3"']


def test_quotas_leave_other_users_of_a_category_free_to_run():
    rs = RuleSet(name="u", rules=[rule("slots=1", users=flt("*", expand=True))])
    conf, loads = cell([rs])
    result, _ = plan(conf, loads, [job(1, "a", tasks=2), job(2, "b", tasks=2),
                                   job(3, "a"), job(4, "c")])
    assert [o.job_id for o in result.orders] == [1, 2, 4]
    assert sorted(result.info) == [1, 2, 3]


def test_a_limit_every_instance_shares_ends_the_search_when_used_up():
    """Refused on its first instance by a rule of that host, the job is refused by its
    user's used-up total everywhere: the search ends there, so the levels' refusal of an
    instance further on (carc has no compiler_lic) is not among its reasons."""
    durin = RuleSet(name="durin_only", rules=[
        rule("slots=1", users=flt("*", expand=True), hosts=flt("durin"))])
    total = RuleSet(name="total", rules=[rule("slots=1", users=flt("*", expand=True))])
    conf, loads = cell([durin, total], hosts={"durin": 2, "carc": 2, "balin": 2},
                       host_values={"durin": {"compiler_lic": "1"},
                                    "carc": {"compiler_lic": "0"},
                                    "balin": {"compiler_lic": "1"}})
    conf.job_info = True
    result, _ = plan(conf, loads, [job(2, "a", hard={"compiler_lic": "1"})],
                     [running(1, "a", "durin")])
    assert result.orders == []
    assert result.info == {2: [
        'cannot run because it exceeds limit "a/////" in rule "durin_only/1"',
        'cannot run because it exceeds limit "a/////" in rule "total/1"']}


def test_usage_counts_running_tasks_whatever_their_instance_became():
    conf, loads = cell([SPEC_SETS[0]])
    matcher = build_levels(conf, loads, []).matcher
    quotas = Quotas.fresh(conf, matcher.table, loads)
    quotas.book_running([Running(1, 0, {}, [("gone.q@nowhere", 3)], owner="x")],
                        {qi.name: qi for qi in conf.instances}, matcher)
    assert [(u.rule, u.used) for u in quotas.usage_lines()] == [("maxujobs/1", 3.0)]


def test_compiled_rules_are_kept_across_cycles_within_bounds(monkeypatch):
    from gridd.sched import quota
    from gridd.sched.plan import Planner
    from gridd.sched.view import SchedView

    conf, loads = cell(SPEC_SETS)
    view = SchedView(jobs={1: job(1, "a"), 2: job(2, "b")}, conf=conf, loads=loads,
                     hosts_up={"durin", "carc"})
    planner = Planner()
    first = planner.plan(view, 0.0)
    rules = planner._quota_rules
    assert planner.plan(view, 0.0) == first and planner._quota_rules is rules
    monkeypatch.setattr(quota, "_MAX_ENTRIES", 1)  # a long-lived scheduler's tables grew
    assert planner.plan(view, 0.0) == first and planner._quota_rules is not rules
