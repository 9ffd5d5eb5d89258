"""qstat renderers against the Grid Engine 8.1.9 transcripts (jobs.txt, queues_pe.txt).

The jobs are rebuilt by hand from the transcript; where the reference shows scheduler
priorities, the reply carries them (as the master's would) so the comparison stays byte for
byte.
"""

from __future__ import annotations

import re

import pytest

from gridd.cli import render_qstat as rq
from gridd.model import job_rows
from gridd.model.cluster import ExecHost, Queue
from gridd.model.job import Job, JobSpec, Task, Usage
from gridd.model.task_lifecycle import DELETING, ERROR, HELD, PENDING, RUNNING, TRANSFERRING
from gridd.protocol import JobsReply

T_RUN = 1795327038  # 2026-11-22 05:57:18 UTC
T_SUB = 1795327047  # 2026-11-22 05:57:27 UTC
T_ARR = 1795327704  # 2026-11-22 06:08:24 UTC
T_PE = 1795327725  # 2026-11-22 06:08:45 UTC


pytestmark = pytest.mark.usefixtures("utc")  # dates as the transcripts show them


PRIORITIES: dict[int, float] = {}  # what reply() puts in the replies it makes


def patch_priorities(monkeypatch, prios: dict[int, float]) -> None:
    monkeypatch.setitem(globals(), "PRIORITIES", prios)


def spec(name: str = "sleep", args: tuple[str, ...] = ("60",), **kw) -> JobSpec:
    base = dict(
        name=name, owner="root", uid=0, group="root", gid=0, submit_host="vm",
        o_home="/root", o_path="/usr/bin:/usr/sbin:/bin:/sbin", o_shell="/bin/bash",
        o_workdir="/tmp", binary=True, command=["sleep", *args], env={"TERM": ""},
    )
    base.update(kw)
    return JobSpec(**base)


def running_job(job_id: int, sp: JobSpec, start: float = T_RUN,
                queue: str = "all.q@vm", task_id: int = 0) -> Job:
    slots = sp.slots()
    task = Task(task_id=task_id, state=RUNNING, start_time=start, queue=queue, host="vm",
                granted=[(queue, slots)])
    return Job(job_id=job_id, spec=sp, submit_time=start, tasks={task_id: task})


def pending_job(job_id: int, sp: JobSpec, submit: float = T_SUB, state: str = PENDING) -> Job:
    job = Job(job_id=job_id, spec=sp, submit_time=submit)
    for tid in job.task_ids():
        job.tasks[tid] = Task(task_id=tid, state=state)
    return job


def vm_host(load_avg: str = "3.46") -> ExecHost:
    return ExecHost(name="vm", last_report=T_RUN,
                    load={"arch": "lx-amd64", "load_avg": load_avg, "num_proc": "2"})


def queues() -> list[Queue]:
    # listed out of order on purpose: qstat -f orders instances by seq_no
    return [
        Queue(name="long.q", hostlist=["vm"], slots=2, qtype="BATCH", seq_no=2,
              pe_list=["mpi", "smp"]),
        Queue(name="all.q", hostlist=["vm"], slots=4, seq_no=0,
              pe_list=["mpi", "smp"]),
        Queue(name="short.q", hostlist=["vm"], slots=2, seq_no=1,
              pe_list=["mpi", "smp"]),
    ]


def reply(jobs: list[Job], load_avg: str = "3.46", **kw) -> JobsReply:
    return JobsReply(jobs=jobs, queues=queues(), hosts=[vm_host(load_avg)], now=T_SUB,
                     priorities=PRIORITIES, **kw)


def four_running() -> list[Job]:
    return [
        running_job(2, spec()),
        running_job(3, spec()),
        running_job(4, spec(name="myname")),
        running_job(5, spec(hard_resources={"h_rt": "0:1:0", "license": "2"})),
    ]


def eight_jobs() -> list[Job]:
    return four_running() + [
        pending_job(6, spec(args=("30",), pe_name="mpi", pe_min=3, pe_max=3)),
        pending_job(7, spec(args=("30",), pe_name="smp", pe_min=2, pe_max=2, reserve=True)),
        pending_job(8, spec(name="lowprio", args=("5",), priority=-100)),
        pending_job(9, spec(name="highprio", args=("5",), priority=100)),
    ]


EIGHT_PRIOS = {2: 0.25063, 3: 0.25063, 4: 0.25063, 5: 0.25063,
               6: 0.75, 7: 0.5, 8: 0.25, 9: 0.25}

HEADER = (
    "job-ID  prior   name       user         state submit/start at     queue"
    "                          slots ja-task-ID \n"
    + "-" * 113 + "\n"
)

QSTAT_FOUR = HEADER + """\
      2 0.50000 sleep      root         r     11/22/2026 05:57:18 all.q@vm                           1        
      3 0.50000 sleep      root         r     11/22/2026 05:57:18 all.q@vm                           1        
      4 0.50000 myname     root         r     11/22/2026 05:57:18 all.q@vm                           1        
      5 0.50000 sleep      root         r     11/22/2026 05:57:18 all.q@vm                           1        
"""  # noqa: W291, E501 - the trailing blanks are part of GE's layout


def test_plain_qstat_matches_reference_for_four_running_jobs():
    assert rq.qstat_default(reply(four_running())) == QSTAT_FOUR


def test_running_jobs_come_first_and_pending_follow_by_priority(monkeypatch):
    patch_priorities(monkeypatch, EIGHT_PRIOS)
    jobs = eight_jobs()
    jobs.reverse()  # the order the master sends must not matter
    expected = HEADER + """\
      2 0.25063 sleep      root         r     11/22/2026 05:57:18 all.q@vm                           1        
      3 0.25063 sleep      root         r     11/22/2026 05:57:18 all.q@vm                           1        
      4 0.25063 myname     root         r     11/22/2026 05:57:18 all.q@vm                           1        
      5 0.25063 sleep      root         r     11/22/2026 05:57:18 all.q@vm                           1        
      6 0.75000 sleep      root         qw    11/22/2026 05:57:27                                    3        
      7 0.50000 sleep      root         qw    11/22/2026 05:57:27                                    2        
      8 0.25000 lowprio    root         qw    11/22/2026 05:57:27                                    1        
      9 0.25000 highprio   root         qw    11/22/2026 05:57:27                                    1        
"""  # noqa: W291, E501
    assert rq.qstat_default(reply(jobs)) == expected


def test_state_filter_p_keeps_pending_and_held_jobs(monkeypatch):
    patch_priorities(monkeypatch, EIGHT_PRIOS)
    jobs = eight_jobs()
    jobs[-1].tasks[0].state = HELD
    expected = HEADER + """\
      6 0.75000 sleep      root         qw    11/22/2026 05:57:27                                    3        
      7 0.50000 sleep      root         qw    11/22/2026 05:57:27                                    2        
      8 0.25000 lowprio    root         qw    11/22/2026 05:57:27                                    1        
      9 0.25000 highprio   root         hqw   11/22/2026 05:57:27                                    1        
"""  # noqa: W291, E501
    assert rq.qstat_default(reply(jobs), states="p") == expected
    held = rq.qstat_default(reply(jobs), states="h").splitlines()
    assert [line.split()[0] for line in held[2:]] == ["9"]
    running = rq.qstat_default(reply(jobs), states="r").splitlines()
    assert [line.split()[4] for line in running[2:]] == ["r"] * 4


def test_hold_kinds_pick_the_jobs_held_so():
    """8.1.9's -s hu, ho, hs (the holds), hj (-hold_jid), hd (-hold_jid_ad), ha (-a); h
    all of them. The master spells out the holds of the tasks it shows."""
    user = pending_job(1, spec(), state=HELD)
    user.tasks[0].holds = "u"
    operator = pending_job(2, spec(), state=HELD)
    operator.tasks[0].holds = "os"
    after = pending_job(3, spec(hold_jid=["1"]), state=HELD)
    tasks = pending_job(4, spec(hold_jid_ad=["9"]), state=HELD)
    later = pending_job(5, spec(start_time=T_SUB + 3600))
    plain = pending_job(6, spec())
    jobs = [user, operator, after, tasks, later, plain]

    def shown(states: str) -> list[int]:
        return [int(line.split()[0])
                for line in rq.qstat_default(reply(jobs), states=states).splitlines()[2:]]

    assert shown("hu") == [1]
    assert shown("ho") == shown("hs") == [2]
    assert shown("hj") == [3]
    assert shown("hd") == [4]
    assert shown("ha") == [5]
    assert shown("huha") == [1, 5]
    assert sorted(shown("h")) == [1, 2, 3, 4, 5]


def test_unknown_state_letter_is_refused():
    with pytest.raises(ValueError, match='"x"'):
        job_rows.state_filter("x")


def test_no_jobs_prints_nothing_not_even_headers():
    assert rq.qstat_default(reply([])) == ""
    assert rq.qstat_default(reply(four_running()), states="p") == ""


def test_user_filter():
    jobs = four_running()
    jobs[0].spec.owner = "roland"
    assert rq.qstat_default(reply(jobs), users=["alice"]) == ""
    only = rq.qstat_default(reply(jobs), users=["roland"]).splitlines()[2:]
    assert [line.split()[0] for line in only] == ["2"]
    assert len(rq.qstat_default(reply(jobs), users=["*"]).splitlines()) == 6


def array_scene() -> list[Job]:
    """jobs.txt: array 552 (tasks 1, 3, 5 running), PE jobs 553/554, held 555."""
    arr = Job(job_id=552, spec=spec(name="arr", args=("20",), array=(1, 6, 2)),
              submit_time=T_ARR)
    for tid in (1, 3, 5):
        arr.tasks[tid] = Task(task_id=tid, state=RUNNING, start_time=T_ARR,
                              queue="all.q@vm", host="vm", granted=[("all.q@vm", 1)])
    return [
        arr,
        pending_job(553, spec(name="pejob", args=("20",), pe_name="mpi", pe_min=2,
                              pe_max=2), submit=T_ARR),
        pending_job(554, spec(name="smpjob", args=("20",), pe_name="smp", pe_min=3,
                              pe_max=3), submit=T_ARR),
        pending_job(555, spec(name="after_arr", args=(), command=["true"],
                              hold_jid=["arr"]), submit=T_ARR, state=HELD),
    ]


ARRAY_PRIOS = {552: 0.25, 553: 0.5, 554: 0.75, 555: 0.0}


def test_array_tasks_running_one_line_each(monkeypatch):
    patch_priorities(monkeypatch, ARRAY_PRIOS)
    expected = HEADER + """\
    552 0.25000 arr        root         r     11/22/2026 06:08:24 all.q@vm                           1 1
    552 0.25000 arr        root         r     11/22/2026 06:08:24 all.q@vm                           1 3
    552 0.25000 arr        root         r     11/22/2026 06:08:24 all.q@vm                           1 5
    554 0.75000 smpjob     root         qw    11/22/2026 06:08:24                                    3        
    553 0.50000 pejob      root         qw    11/22/2026 06:08:24                                    2        
    555 0.00000 after_arr  root         hqw   11/22/2026 06:08:24                                    1        
"""  # noqa: W291, E501
    assert rq.qstat_default(reply(array_scene())) == expected


def test_pending_array_tasks_fold_into_ranges():
    """A pending array's tasks fold as any task list: 8.1.9 (run here) shows -t 1-6:2 as
    1-5:2, -t 1-2 as 1,2 and -t 4-4 as 4 (qstat -j keeps the range as submitted)."""
    job = pending_job(20, spec(name="arr", array=(1, 6, 2)))
    lines = rq.qstat_default(reply([job])).splitlines()
    assert lines[2].endswith("    1 1-5:2")
    for array, shown in (((1, 2, 1), "1,2"), ((4, 4, 1), "4")):
        line = rq.qstat_default(reply([pending_job(21, spec(array=array))])).splitlines()[2]
        assert line.endswith(f"    1 {shown}")
    job.tasks[1].state = RUNNING
    job.tasks[1].queue = "all.q@vm"
    job.tasks[1].granted = [("all.q@vm", 1)]
    job.tasks[5].state = HELD
    lines = rq.qstat_default(reply([job])).splitlines()
    assert [line.split()[4] for line in lines[2:]] == ["r", "qw", "hqw"]
    assert [line.split()[-1] for line in lines[2:]] == ["1", "3", "5"]


def test_task_range_text():
    assert job_rows.task_range([1, 3, 5]) == "1-5:2"
    assert job_rows.task_range([1, 2, 3, 7]) == "1-3:1,7"
    assert job_rows.task_range([4]) == "4"
    # As 8.1.9 printed them here: a run takes three ids or more, ids left over go one
    # by one.
    assert job_rows.task_range([2, 4, 6, 7, 8]) == "2-6:2,7,8"
    assert job_rows.task_range([1, 3, 4, 5, 8]) == "1,3,4,5,8"
    assert job_rows.task_range([4, 5, 6, 8, 9]) == "4-6:1,8,9"
    assert job_rows.task_range([2, 6, 10]) == "2-10:4"


def test_state_column_shows_transfer_delete_and_error_states():
    jobs = four_running()
    jobs[0].tasks[0].state = TRANSFERRING
    jobs[1].tasks[0].state = DELETING
    jobs.append(pending_job(6, spec(name="badout"), state=ERROR))
    states = [line.split()[4] for line in rq.qstat_default(reply(jobs)).splitlines()[2:]]
    assert states == ["t", "dr", "r", "r", "Eqw"]


def test_names_are_cut_to_their_columns():
    job = running_job(7, spec(name="a_rather_long_job_name", owner="someone_with_long_name"))
    line = rq.qstat_default(reply([job])).splitlines()[2]
    assert line.split()[2:4] == ["a_rather_l", "someone_with"]


QUEUE_HEADER = (
    "queuename                      qtype resv/used/tot. load_avg arch          states\n"
)
RULE = "-" * 81 + "\n"


def test_full_listing_matches_reference_with_four_running_jobs():
    expected = QUEUE_HEADER + RULE + """\
all.q@vm                       BIP   0/4/4          3.46     lx-amd64      
      2 0.50000 sleep      root         r     11/22/2026 05:57:18     1        
      3 0.50000 sleep      root         r     11/22/2026 05:57:18     1        
      4 0.50000 myname     root         r     11/22/2026 05:57:18     1        
      5 0.50000 sleep      root         r     11/22/2026 05:57:18     1        
""" + RULE + """\
short.q@vm                     BIP   0/0/2          3.46     lx-amd64      
""" + RULE + """\
long.q@vm                      BP    0/0/2          3.46     lx-amd64      
"""  # noqa: W291, E501
    assert rq.qstat_full(reply(four_running())) == expected


def test_full_listing_has_the_pending_jobs_block(monkeypatch):
    patch_priorities(monkeypatch, {553: 0.25, 554: 0.75})
    pe = running_job(553, spec(name="pejob", args=("20",), pe_name="mpi", pe_min=2,
                               pe_max=2), start=T_PE)
    smp = pending_job(554, spec(name="smpjob", args=("20",), pe_name="smp", pe_min=3,
                                pe_max=3), submit=T_ARR)
    expected = QUEUE_HEADER + RULE + """\
all.q@vm                       BIP   0/2/4          5.05     lx-amd64      
    553 0.25000 pejob      root         r     11/22/2026 06:08:45     2        
""" + RULE + """\
short.q@vm                     BIP   0/0/2          5.05     lx-amd64      
""" + RULE + """\
long.q@vm                      BP    0/0/2          5.05     lx-amd64      

############################################################################
 - PENDING JOBS - PENDING JOBS - PENDING JOBS - PENDING JOBS - PENDING JOBS
############################################################################
    554 0.75000 smpjob     root         qw    11/22/2026 06:08:24     3        
"""  # noqa: W291, E501
    assert rq.qstat_full(reply([smp, pe], load_avg="5.05")) == expected


def test_full_listing_marks_silent_hosts_and_lists_jobs_under_each_instance():
    job = running_job(9, spec(pe_name="mpi", pe_min=3, pe_max=3))
    job.tasks[0].granted = [("all.q@vm", 2), ("all.q@n2", 1)]
    rep = reply([job])
    rep.queues[1].hostlist = ["vm", "n2"]
    rep.hosts.append(ExecHost(name="n2", load={"arch": "lx-amd64", "load_avg": "0.1"}))
    rep.states = {"all.q@n2": "au"}  # the master's view: n2 is silent
    lines = rq.qstat_full(rep).splitlines()
    assert lines[2] == ("all.q@n2                       BIP   0/1/4          -NA-     "
                        "lx-amd64      au")
    assert lines[3].split()[0] == "9" and lines[3].split()[-1] == "1"
    assert lines[5].startswith("all.q@vm                       BIP   0/2/4          3.46 ")
    assert lines[6].split()[-1] == "2"


def test_full_listing_without_empty_instances():
    """qstat -f -ne (8.1.9): only the instances where jobs run; none, no queue header."""
    job = running_job(9, spec(pe_name="mpi", pe_min=3, pe_max=3))
    job.tasks[0].granted = [("all.q@vm", 3)]
    rep = reply([job])
    shown = rq.qstat_full(rep, extra=rq.Extra(no_empty=True)).splitlines()
    assert [line.split()[0] for line in shown if "@" in line] == ["all.q@vm"]
    assert "<name>" not in rq.qstat_xml(reply([]), full=True, extra=rq.Extra(no_empty=True))
    assert rq.qstat_full(reply([]), extra=rq.Extra(no_empty=True)) == ""


XML_HEAD = (
    "<?xml version='1.0'?>\n"
    '<job_info  xmlns:xsd="http://arc.liv.ac.uk/repos/darcs/sge/source/dist/util/'
    'resources/schemas/qstat/qstat.xsd">\n'
)


def test_xml_puts_running_jobs_in_queue_info_and_pending_in_job_info(monkeypatch):
    patch_priorities(monkeypatch, EIGHT_PRIOS)
    jobs = [j for j in eight_jobs() if j.job_id in (5, 6)]
    expected = XML_HEAD + """\
  <queue_info>
    <job_list state="running">
      <JB_job_number>5</JB_job_number>
      <JAT_prio>0.25063</JAT_prio>
      <JB_name>sleep</JB_name>
      <JB_owner>root</JB_owner>
      <state>r</state>
      <JAT_start_time>2026-11-22T05:57:18</JAT_start_time>
      <queue_name>all.q@vm</queue_name>
      <slots>1</slots>
    </job_list>
  </queue_info>
  <job_info>
    <job_list state="pending">
      <JB_job_number>6</JB_job_number>
      <JAT_prio>0.75000</JAT_prio>
      <JB_name>sleep</JB_name>
      <JB_owner>root</JB_owner>
      <state>qw</state>
      <JB_submission_time>2026-11-22T05:57:27</JB_submission_time>
      <queue_name></queue_name>
      <slots>3</slots>
    </job_list>
  </job_info>
</job_info>
"""
    assert rq.qstat_xml(reply(jobs)) == expected


def test_full_xml_matches_reference_for_array_and_pending_jobs(monkeypatch):
    patch_priorities(monkeypatch, ARRAY_PRIOS)
    jobs = [j for j in array_scene() if j.job_id != 553]
    task = """\
      <job_list state="running">
        <JB_job_number>552</JB_job_number>
        <JAT_prio>0.25000</JAT_prio>
        <JB_name>arr</JB_name>
        <JB_owner>root</JB_owner>
        <state>r</state>
        <JAT_start_time>2026-11-22T06:08:24</JAT_start_time>
        <slots>1</slots>
        <tasks>{}</tasks>
      </job_list>
"""
    expected = XML_HEAD + """\
  <queue_info>
    <Queue-List>
      <name>all.q@vm</name>
      <qtype>BIP</qtype>
      <slots_used>3</slots_used>
      <slots_resv>0</slots_resv>
      <slots_total>4</slots_total>
      <load_avg>5.43311</load_avg>
      <arch>lx-amd64</arch>
""" + "".join(task.format(t) for t in (1, 3, 5)) + """\
    </Queue-List>
    <Queue-List>
      <name>short.q@vm</name>
      <qtype>BIP</qtype>
      <slots_used>0</slots_used>
      <slots_resv>0</slots_resv>
      <slots_total>2</slots_total>
      <load_avg>5.43311</load_avg>
      <arch>lx-amd64</arch>
    </Queue-List>
    <Queue-List>
      <name>long.q@vm</name>
      <qtype>BP</qtype>
      <slots_used>0</slots_used>
      <slots_resv>0</slots_resv>
      <slots_total>2</slots_total>
      <load_avg>5.43311</load_avg>
      <arch>lx-amd64</arch>
    </Queue-List>
  </queue_info>
  <job_info>
    <job_list state="pending">
      <JB_job_number>554</JB_job_number>
      <JAT_prio>0.75000</JAT_prio>
      <JB_name>smpjob</JB_name>
      <JB_owner>root</JB_owner>
      <state>qw</state>
      <JB_submission_time>2026-11-22T06:08:24</JB_submission_time>
      <slots>3</slots>
    </job_list>
    <job_list state="pending">
      <JB_job_number>555</JB_job_number>
      <JAT_prio>0.00000</JAT_prio>
      <JB_name>after_arr</JB_name>
      <JB_owner>root</JB_owner>
      <state>hqw</state>
      <JB_submission_time>2026-11-22T06:08:24</JB_submission_time>
      <slots>1</slots>
    </job_list>
  </job_info>
</job_info>
"""
    assert rq.qstat_xml(reply(jobs, load_avg="5.433105"), full=True) == expected


def test_xml_of_no_jobs_and_escaping():
    assert rq.qstat_xml(reply([])) == (
        XML_HEAD + "  <queue_info>\n  </queue_info>\n  <job_info>\n  </job_info>\n</job_info>\n"
    )
    job = pending_job(3, spec(name="a<b>&c"))
    assert "<JB_name>a&lt;b&gt;&amp;c</JB_name>" in rq.qstat_xml(reply([job]))


JOB_HEAD = """\
==============================================================
job_number:                 {id}
exec_file:                  job_scripts/{id}
submission_time:            {when}
owner:                      root
uid:                        0
group:                      root
gid:                        0
sge_o_home:                 /root
sge_o_path:                 /usr/bin:/usr/sbin:/bin:/sbin
sge_o_shell:                /bin/bash
sge_o_workdir:              /tmp
sge_o_host:                 vm
account:                    sge
"""


def test_job_detail_of_a_pending_pe_job_with_scheduling_info():
    rep = reply(eight_jobs(), reasons={6: [
        'queue instance "all.q@vm" dropped because it is full',
        '(-l slots=1) cannot run in queue "vm" because it offers only hc:slots=0.000000',
        'cannot run in PE "mpi" because it only offers 0 slots',
    ]})
    expected = JOB_HEAD.format(id=6, when="Sun Nov 22 05:57:27 2026") + """\
mail_list:                  root@vm
notify:                     FALSE
job_name:                   sleep
jobshare:                   0
env_list:                   TERM=NONE
job_args:                   30
script_file:                sleep
parallel environment:  mpi range: 3
binding:                    NONE
job_type:                   binary
scheduling info:            queue instance "all.q@vm" dropped because it is full
                            (-l slots=1) cannot run in queue "vm" because it offers only hc:slots=0.000000
                            cannot run in PE "mpi" because it only offers 0 slots
"""  # noqa: E501
    assert rq.qstat_job(rep, ["6"]) == rq.Rendered(expected)


def test_job_detail_of_a_running_job_with_usage():
    jobs = four_running()
    jobs[3].tasks[0].usage = Usage(maxvmem=3661627, vmem=3661627, io=42950)
    rep = reply(jobs, reasons={5: ['queue instance "all.q@vm" dropped because it is full']})
    expected = JOB_HEAD.format(id=5, when="Sun Nov 22 05:57:18 2026") + """\
hard resource_list:         h_rt=60,license=2
mail_list:                  root@vm
notify:                     FALSE
job_name:                   sleep
jobshare:                   0
env_list:                   TERM=NONE
job_args:                   60
script_file:                sleep
binding:                    NONE
job_type:                   binary
usage         1:            cpu=00:00:00, mem=0.00000 GB s, io=0.00004 GB, vmem=3.492M, maxvmem=3.492M
binding       1:            NONE
scheduling info:            queue instance "all.q@vm" dropped because it is full
"""  # noqa: E501
    assert rq.qstat_job(rep, ["5"]).stdout == expected


def test_job_detail_shows_the_rsmap_ids_a_task_holds():
    """Open Cluster Scheduler's resource_map line: complex=host=(ids), per host."""
    jobs = four_running()
    jobs[3].tasks[0].resource_map = [("gpu", "vm", ["0", "1"]), ("port", "global", ["9"])]
    shown = rq.qstat_job(reply(jobs), ["5"]).stdout
    assert "binding       1:            NONE\n" \
        "resource_map  1:            gpu=vm=(0 1),port=global=(9)\n" in shown
    jobs[3].tasks[0].resource_map = []
    assert "resource_map" not in rq.qstat_job(reply(jobs), ["5"]).stdout


def test_job_detail_of_an_array_by_name_with_its_successor():
    expected = JOB_HEAD.format(id=552, when="Sun Nov 22 06:08:24 2026") + """\
mail_list:                  root@vm
notify:                     FALSE
job_name:                   arr
jobshare:                   0
env_list:                   TERM=NONE
job_args:                   20
script_file:                sleep
jid_successor_list:         555
job-array tasks:            1-6:2
binding:                    NONE
job_type:                   binary
usage         1:            cpu=00:00:00, mem=0.00000 GB s, io=0.00000 GB, vmem=N/A, maxvmem=N/A
usage         3:            cpu=00:00:00, mem=0.00000 GB s, io=0.00000 GB, vmem=N/A, maxvmem=N/A
usage         5:            cpu=00:00:00, mem=0.00000 GB s, io=0.00000 GB, vmem=N/A, maxvmem=N/A
binding       1:            NONE
binding       3:            NONE
binding       5:            NONE
"""
    assert rq.qstat_job(reply(array_scene()), ["arr"]).stdout == expected


def test_job_detail_of_a_dependent_job():
    rep = reply(array_scene(), reasons={555: ["job dropped because of job dependencies"]})
    out = rq.qstat_job(rep, ["after_arr"]).stdout
    assert ("jid_predecessor_list (req): arr\n"
            "jid_predecessor_list:       552\n") in out
    assert out.endswith("scheduling info:            job dropped because of job dependencies\n")


def test_job_detail_of_optional_requests():
    sp = spec(cwd="/tmp", merge=True, stdout_path=["/tmp/out"], stderr_path=["h:/tmp/err"],
              priority=50, hard_queues=["all.q"], shell="/bin/bash", project="p1",
              mail_options="be", mail_list=["a@b"])
    job = pending_job(8, sp)
    job.tasks[0].state = ERROR
    job.tasks[0].failed_reason = "can't open output file"
    lines = rq.qstat_job(reply([job]), ["8"]).stdout.splitlines()
    start = lines.index("account:                    sge")
    assert lines[start + 1:start + 18] == [
        "cwd:                        /tmp",
        "stderr_path_list:           h:NONE:/tmp/err",
        "merge:                      y",
        "mail_options:               be",
        "mail_list:                  a@b",
        "notify:                     FALSE",
        "job_name:                   sleep",
        "stdout_path_list:           NONE:NONE:/tmp/out",
        "priority:                   50",
        "jobshare:                   0",
        "hard_queue_list:            all.q",
        "shell_list:                 NONE:/bin/bash",
        "env_list:                   TERM=NONE",
        "job_args:                   60",
        "script_file:                sleep",
        "project:                    p1",
        "binding:                    NONE",
    ]
    assert "error reason          1:      can't open output file" in lines


def test_unknown_job_goes_to_stderr_with_exit_code_1():
    assert rq.qstat_job(reply(four_running()), ["9999"]) == rq.Rendered(
        "", "Following jobs do not exist: \n9999\n", 1
    )
    mixed = rq.qstat_job(reply(four_running()), ["2", "9999"])
    assert mixed.stdout.startswith("=" * 62 + "\njob_number:                 2\n")
    assert mixed.code == 1


def test_s_z_lists_the_jobs_that_ended_lately_after_the_waiting_ones():
    """8.1.9 (run here) with -s pz: the waiting jobs, then the finished ones in the order
    they ended, state z, with the slots they asked for; -xml calls them zombies."""
    ended = [running_job(58, spec(pe_name="mpi", pe_min=6, pe_max=6)),
             running_job(52, spec(name="true", args=()), start=T_RUN)]
    waiting = pending_job(76, spec(array=(1, 3, 1)), state=HELD)
    shown = reply([waiting], finished=ended)
    lines = rq.qstat_default(shown, states="pz").splitlines()
    assert [line.split()[:5] for line in lines[2:]] == [
        ["76", "0.50000", "sleep", "root", "hqw"], ["58", "0.00000", "sleep", "root", "z"],
        ["52", "0.00000", "true", "root", "z"]]
    assert lines[3].endswith("    6        ")
    assert rq.qstat_default(shown) == rq.qstat_default(reply([waiting]))  # not without z
    assert rq.qstat_xml(shown, states="z").count('<job_list state="zombie">') == 2


def test_the_reserved_start_line_names_the_rsmap_ids_booked():
    jobs = four_running()
    waiting = jobs[0]
    rep = reply(jobs, reserved={waiting.job_id: (T_SUB + 120, [("all.q@vm", 1)],
                                                 [("gpu", "vm", ["1"])])})
    shown = rq.qstat_job(rep, [str(waiting.job_id)]).stdout
    assert re.search(r"reserved start:\s+.* all\.q@vm=1 gpu=vm=\(1\)\n", shown), shown
