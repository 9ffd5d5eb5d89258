"""The planner's access rule: a job never goes where its owner (or its project) may not.

Queue and execution host (global included) user_lists/xuser_lists and projects/xprojects,
PE user_lists/xuser_lists, with the
scheduling-info lines 8.1.9 prints for them (read off a running 8.1.9 with qstat -j and
qsub -w v): `has no permission for cluster queue "all.q"`, `(no project) does not have
the correct project to run in cluster queue "all.q"` (8.1.9 says "(no project)" whatever
the project), `cannot run because no access to PE "smp"` followed by `cannot run in PE
"smp" because it only offers 0 slots`. Jobs whose owners are allowed alike share a
category; without any access list the category key is what it always was.
"""

from __future__ import annotations

import msgspec
from hypothesis import event, given, settings
from hypothesis import strategies as st

from gridd.model.cluster import HostAccess, Instance, PlanConf
from gridd.model.pe import FILL_UP, PE_SLOTS, ParallelEnv
from gridd.model.planning import SchedJob
from gridd.sched.access import allowed, project_allowed
from gridd.sched.cycle import Cycle
from gridd.sched.plan import Planner, verify
from gridd.sched.view import SchedView
from tests.unit.test_plan import cell, qi

USERSETS = {"okusers": ["bob", "@wheel"], "banned": ["carol"], "empty": []}


def usersets() -> dict[str, list[str]]:
    return {name: list(entries) for name, entries in USERSETS.items()}


def job(job_id: int, owner: str, group: str = "staff", project: str = "", pe: str = "",
        slots: int = 0, tasks: int = 1, queues: tuple[str, ...] = ()) -> SchedJob:
    return SchedJob(job_id=job_id, pending=list(range(1, tasks + 1)), priority=0,
                      submit_time=float(job_id), owner=owner, group=group, project=project,
                      pe=pe, pe_min=slots, pe_max=slots, queues=list(queues))


def limited(view: SchedView, **lists: dict[str, list[str]]) -> SchedView:
    """The view with access lists set on instances (by name) and the usersets above."""
    instances = [msgspec.structs.replace(i, **lists.get(i.name, {}))
                 for i in view.conf.instances]
    view.conf = msgspec.structs.replace(view.conf, instances=instances, usersets=usersets())
    return view


def where(plan, job_id: int) -> list[str]:
    return [name for o in plan.orders if o.job_id == job_id for name, _ in o.granted]


def test_user_lists_keep_others_out_and_say_so():
    view = limited(cell(qi("all.q@h0", slots=4), qi("all.q@h1", slots=4),
                        qi("b.q@h0", slots=1, seq_no=1)),
                   **{"all.q@h0": {"user_lists": ["okusers"]},
                      "all.q@h1": {"user_lists": ["okusers"]}})
    for number, owner, group in ((1, "alice", "staff"), (2, "bob", "staff"),
                                 (3, "dave", "wheel"), (4, "erin", "staff")):
        view.jobs[number] = job(number, owner, group)
    plan = Planner().plan(view, 0.0)
    assert where(plan, 1) == ["b.q@h0"]
    assert where(plan, 2) == ["all.q@h0"]
    assert where(plan, 3) == ["all.q@h0"]  # by his group
    assert where(plan, 4) == []
    assert plan.info[4][0] == 'has no permission for cluster queue "all.q"'


def test_xuser_lists_win_over_user_lists_and_a_missing_list_names_nobody():
    view = limited(cell(qi("all.q@h0"), qi("x.q@h1", seq_no=1)),
                   **{"all.q@h0": {"user_lists": ["nosuch"]},
                      "x.q@h1": {"user_lists": ["okusers"], "xuser_lists": ["banned"]}})
    view.conf.usersets["okusers"].append("carol")
    view.jobs[1] = job(1, "carol")
    view.jobs[2] = job(2, "bob")
    plan = Planner().plan(view, 0.0)
    assert where(plan, 1) == [] and where(plan, 2) == ["x.q@h1"]
    assert plan.info[1] == ['has no permission for cluster queue "all.q"',
                            'has no permission for cluster queue "x.q"']


def test_projects_and_xprojects():
    view = limited(cell(qi("p.q@h0", slots=1), qi("x.q@h1", slots=1, seq_no=1)),
                   **{"p.q@h0": {"projects": ["p1"]}, "x.q@h1": {"xprojects": ["p1"]}})
    view.jobs[1] = job(1, "alice", project="p1")
    view.jobs[2] = job(2, "alice", project="p1")
    view.jobs[3] = job(3, "alice")
    plan = Planner().plan(view, 0.0)
    assert where(plan, 1) == ["p.q@h0"]
    assert where(plan, 2) == [] and where(plan, 3) == ["x.q@h1"]
    assert plan.info[2][0] == ('(no project) does not have the correct project to run in '
                               'cluster queue "x.q"')
    no_project = verify(view.conf, {}, (), job(4, "alice", queues=("p.q",)))
    assert no_project == ['(no project) does not have the correct project to run in '
                          'cluster queue "p.q"',
                          'cannot run in queue "x.q" because it is not contained in its '
                          "hard queue list (-q)"]


def test_host_access_lists_and_projects():
    """An execution host's lists and projects, and the global host's for every host, with
    8.1.9's lines (unlike a queue's, they name the project)."""
    view = cell(qi("all.q@h0", slots=2), qi("all.q@h1", slots=2))
    view.conf = msgspec.structs.replace(view.conf, usersets=usersets(), host_access={
        "h0": HostAccess(xuser_lists=["banned"], projects=["p1"]),
        "global": HostAccess(xprojects=["p2"])})
    view.jobs[1] = job(1, "carol", project="p1")
    view.jobs[2] = job(2, "alice", project="p1")
    view.jobs[3] = job(3, "alice")
    view.jobs[4] = job(4, "alice", project="p2")
    plan = Planner().plan(view, 0.0)
    assert [where(plan, n) for n in (1, 2, 3, 4)] == [["all.q@h1"], ["all.q@h0"],
                                                      ["all.q@h1"], []]
    assert plan.info[4] == ['(project p2) is not allowed to run in host "global" based on '
                            "the excluded project list"]
    assert verify(view.conf, {}, (), job(5, "carol", project="p1", queues=("all.q@h0",))) \
        == ['has no permission for host "h0"',
            'cannot run in queue instance "all.q@h1" because it is not contained in its '
            "hard queue list (-q)"]
    assert verify(view.conf, {}, (), job(6, "alice", queues=("all.q@h0",)))[0] == (
        '(no project) does not have the correct project to run in host "h0"')


def test_pe_user_lists():
    view = cell(qi("all.q@h0", slots=4, pe_list=["smp", "mpi"]),
                pes=[ParallelEnv("smp", 99, PE_SLOTS, user_lists=["okusers"]),
                     ParallelEnv("mpi", 99, FILL_UP, xuser_lists=["banned"])])
    view.conf = msgspec.structs.replace(view.conf, usersets=usersets())
    view.jobs[1] = job(1, "alice", pe="smp", slots=2)
    view.jobs[2] = job(2, "bob", pe="smp", slots=2)
    view.jobs[3] = job(3, "carol", pe="*", slots=1)
    plan = Planner().plan(view, 0.0)
    assert where(plan, 1) == [] and where(plan, 2) == ["all.q@h0"]
    assert plan.info[1] == ['cannot run because no access to PE "smp"',
                            'cannot run in PE "smp" because it only offers 0 slots']
    assert where(plan, 3) == []  # neither PE lets carol in
    assert [o.pe for o in plan.orders] == ["smp"]


def test_the_category_key_is_unchanged_without_access_lists():
    view = cell(qi("all.q@h0"))
    cycle = Cycle(view.conf, Planner().carried.empty_levels(
        view.conf, {}, Planner().matcher(view.conf)), {}, [], {})
    assert cycle.access is None
    assert cycle.category(job(1, "alice")) is cycle.category(job(2, "bob", "other", "p1"))


def test_owners_allowed_alike_share_a_category():
    view = limited(cell(qi("all.q@h0"), qi("b.q@h0")),
                   **{"all.q@h0": {"user_lists": ["okusers"], "projects": ["p1"]}})
    planner = Planner()
    planner.carried.follow_cell(view.conf, {})
    cycle = Cycle(view.conf, planner.carried.empty_levels(view.conf, {},
                                                           planner.matcher(view.conf)),
                  {}, [], {}, carried=planner.carried)
    alice, erin = cycle.category(job(1, "alice")), cycle.category(job(2, "erin", "x", "p9"))
    assert alice is erin  # neither is on a list, and p9 is named by no queue
    assert cycle.category(job(3, "bob")) is not alice
    assert cycle.category(job(4, "bob")) is cycle.category(job(5, "dave", "wheel"))
    assert cycle.category(job(6, "bob", project="p1")) is not cycle.category(job(7, "bob"))


# ---- the property -----------------------------------------------------------------------------

OWNERS = (("alice", "staff"), ("bob", "staff"), ("carol", "wheel"), ("dave", "other"))
LISTS = {"A": ["alice", "@wheel"], "B": ["bob"], "C": ["carol", "dave"]}


@st.composite
def cells(draw: st.DrawFn) -> SchedView:
    lists = st.lists(st.sampled_from((*LISTS, "nosuch")), max_size=2, unique=True)
    projects = st.lists(st.sampled_from(("p1", "p2")), max_size=1)
    instances = []
    for queue in ("q0", "q1", "q2")[:draw(st.integers(1, 3))]:
        for host in ("h0", "h1")[:draw(st.integers(1, 2))]:
            slots = draw(st.integers(1, 3))
            instances.append(Instance(
                name=f"{queue}@{host}", queue=queue, host=host, slots=slots,
                pe_list=["pe"], values={"qname": queue, "hostname": host,
                                        "slots": str(slots)},
                user_lists=draw(lists), xuser_lists=draw(lists),
                projects=draw(projects), xprojects=draw(projects)))
    pe = ParallelEnv("pe", 99, FILL_UP, user_lists=draw(lists), xuser_lists=draw(lists))
    hosts = {name: HostAccess(user_lists=draw(lists), xuser_lists=draw(lists),
                              projects=draw(projects), xprojects=draw(projects))
             for name in ("global", "h0", "h1") if draw(st.booleans())}
    conf = PlanConf(instances=instances, pes={"pe": pe}, usersets=LISTS,
                    queue_sort_method="seqno", host_access=hosts)
    view = SchedView(conf=conf, hosts_up={"h0", "h1"})
    for job_id in range(1, draw(st.integers(1, 10)) + 1):
        owner, group = draw(st.sampled_from(OWNERS))
        parallel = draw(st.booleans())
        view.jobs[job_id] = job(job_id, owner, group, draw(st.sampled_from(("", "p1", "p2"))),
                                pe="pe" if parallel else "",
                                slots=draw(st.integers(1, 3)) if parallel else 0,
                                tasks=draw(st.integers(1, 2)))
    return view


@settings(max_examples=200, deadline=None)
@given(cells())
def test_no_job_is_placed_where_its_owner_may_not_go(view: SchedView) -> None:
    plan = Planner().plan(view, 0.0)
    instances = {qi.name: qi for qi in view.conf.instances}
    for order in plan.orders:
        job_ = view.jobs[order.job_id]
        for name, _ in order.granted:
            qi_ = instances[name]
            assert allowed(qi_.user_lists, qi_.xuser_lists, job_.owner, job_.group, LISTS)
            assert project_allowed(qi_.projects, qi_.xprojects, job_.project)
            for host in ("global", qi_.host):
                limits = view.conf.host_access.get(host, HostAccess())
                assert allowed(limits.user_lists, limits.xuser_lists, job_.owner, job_.group,
                               LISTS)
                assert project_allowed(limits.projects, limits.xprojects, job_.project)
        if order.pe:
            pe = view.conf.pes[order.pe]
            assert allowed(pe.user_lists, pe.xuser_lists, job_.owner, job_.group, LISTS)
    event(f"orders: {min(len(plan.orders), 3)}")
    # The category key holds what access depends on: caches change nothing.
    reference = Planner().plan(view, 0.0, categories=False)
    assert plan.orders == reference.orders
    assert set(plan.info) == set(reference.info)
