"""qstat -pri, -urg, -ext and -r against the Grid Engine 8.1.9 transcripts (jobs.txt,
queues_pe.txt), byte for byte, and the layout of the options combined (checked against
a real 8.1.9 started with ../shared/reference/sge-8.1.9/start.sh).

The jobs are those of test_render_qstat; the priority parts are what the transcripts show,
as the master would put them in the reply.
"""

from __future__ import annotations

import pytest

from gridd.cli import render_qstat as rq
from gridd.formats.qstat_rows import Extra, header, rule
from gridd.model.job import Task, Usage
from gridd.model.task_lifecycle import HELD
from gridd.protocol import JobsReply, PriorityParts
from tests.unit.test_render_qstat import (
    EIGHT_PRIOS,
    T_RUN,
    eight_jobs,
    four_running,
    pending_job,
    queues,
    running_job,
    spec,
    vm_host,
)

pytestmark = pytest.mark.usefixtures("utc")  # dates as the transcripts show them

QSTAT_PRI = """\
job-ID  prior   nurg    npprior ntckts   ppri name       user         state submit/start at     queue                          slots ja-task-ID 
----------------------------------------------------------------------------------------------------------------------------------------------------
      2 0.25063 0.00125 0.50000 0.50000     0 sleep      root         r     11/22/2026 05:57:18 all.q@vm                           1        
      3 0.25063 0.00125 0.50000 0.50000     0 sleep      root         r     11/22/2026 05:57:18 all.q@vm                           1        
      4 0.25063 0.00125 0.50000 0.50000     0 myname     root         r     11/22/2026 05:57:18 all.q@vm                           1        
      5 0.25063 0.00125 0.50000 0.50000     0 sleep      root         r     11/22/2026 05:57:18 all.q@vm                           1        
      6 0.75000 1.00000 0.50000 0.50000     0 sleep      root         qw    11/22/2026 05:57:27                                    3        
      7 0.50000 0.50000 0.50000 0.50000     0 sleep      root         qw    11/22/2026 05:57:27                                    2        
      8 0.25000 0.00000 0.45117 0.50000  -100 lowprio    root         qw    11/22/2026 05:57:27                                    1        
      9 0.25000 0.00000 0.54883 0.50000   100 highprio   root         qw    11/22/2026 05:57:27                                    1        
"""  # noqa: W291, E501 - the trailing blanks are part of GE's layout

QSTAT_URG = """\
job-ID  prior   nurg    urg      rrcontr  wtcontr  dlcontr  name       user         state submit/start at      deadline           queue                          slots ja-task-ID 
---------------------------------------------------------------------------------------------------------------------------------------------------------------------------------
      2 0.25063 0.00125     1004     1000        4        0 sleep      root         r     11/22/2026 05:57:18                     all.q@vm                           1        
      3 0.25063 0.00125     1004     1000        4        0 sleep      root         r     11/22/2026 05:57:18                     all.q@vm                           1        
      4 0.25063 0.00125     1004     1000        4        0 myname     root         r     11/22/2026 05:57:18                     all.q@vm                           1        
      5 0.25063 0.00125     1004     1000        4        0 sleep      root         r     11/22/2026 05:57:18                     all.q@vm                           1        
      6 0.75000 1.00000     3002     3000        2        0 sleep      root         qw    11/22/2026 05:57:27                                                        3        
      7 0.50000 0.50000     2002     2000        2        0 sleep      root         qw    11/22/2026 05:57:27                                                        2        
      8 0.25000 0.00000     1002     1000        2        0 lowprio    root         qw    11/22/2026 05:57:27                                                        1        
      9 0.25000 0.00000     1002     1000        2        0 highprio   root         qw    11/22/2026 05:57:27                                                        1        
"""  # noqa: W291, E501

QSTAT_R = """\
job-ID  prior   name       user         state submit/start at     queue                          slots ja-task-ID 
-----------------------------------------------------------------------------------------------------------------
      2 0.50000 sleep      root         r     11/22/2026 05:57:18 all.q@vm                           1        
       Full jobname:     sleep
       Master Queue:     all.q@vm
       Hard Resources:   
       Soft Resources:   
       Binding:          NONE
      3 0.50000 sleep      root         r     11/22/2026 05:57:18 all.q@vm                           1        
       Full jobname:     sleep
       Master Queue:     all.q@vm
       Hard Resources:   
       Soft Resources:   
       Binding:          NONE
      4 0.50000 myname     root         r     11/22/2026 05:57:18 all.q@vm                           1        
       Full jobname:     myname
       Master Queue:     all.q@vm
       Hard Resources:   
       Soft Resources:   
       Binding:          NONE
      5 0.50000 sleep      root         r     11/22/2026 05:57:18 all.q@vm                           1        
       Full jobname:     sleep
       Master Queue:     all.q@vm
       Hard Resources:   h_rt=60 (0.000000)
                         license=2 (0.000000)
       Soft Resources:   
       Binding:          NONE
"""  # noqa: W291, E501

QSTAT_EXT = """\
job-ID  prior   ntckts  name       user         project          department state cpu        mem     io      tckts ovrts otckt ftckt stckt share queue                          slots ja-task-ID 
------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------
    560 0.75000 0.50000 t02a       root         NA               defaultdep r     NA         NA      NA          0     0     0     0     0 0.00  all.q@vm                           1        
    561 0.25000 0.50000 t02b       root         NA               defaultdep r     NA         NA      NA          0     0     0     0     0 0.00  all.q@vm                           1        
    562 0.25000 0.50000 t02c       root         NA               defaultdep qw                                   0     0     0     0     0 0.00                                     1        
"""  # noqa: W291, E501


def parts(nurg: float, npprior: float, urg: float, rr: float, wt: float, ppri: int = 0,
          requests: dict[str, float] | None = None) -> PriorityParts:
    return PriorityParts(nurg, npprior, 0.5, urg, rr, wt, 0.0, ppri, requests or {})


EIGHT_PARTS = {
    **{n: parts(0.00125, 0.5, 1004.5, 1000, 4.5) for n in (2, 3, 4, 5)},
    6: parts(1.0, 0.5, 3002, 3000, 2),
    7: parts(0.5, 0.5, 2002, 2000, 2),
    8: parts(0.0, 0.45117, 1002, 1000, 2, -100),
    9: parts(0.0, 0.54883, 1002, 1000, 2, 100),
}


def eight(**kw) -> JobsReply:
    prios = {n: 0.25063 for n in (2, 3, 4, 5)} | {n: EIGHT_PRIOS[n] for n in (6, 7, 8, 9)}
    return JobsReply(jobs=eight_jobs(), queues=queues(), hosts=[vm_host()], now=T_RUN,
                     priorities=prios, parts=EIGHT_PARTS, **kw)


def test_pri_shows_the_parts_of_each_priority():
    assert rq.qstat_default(eight(), extra=Extra(pri=True)) == QSTAT_PRI


def test_urg_shows_the_urgency_and_its_contributions():
    assert rq.qstat_default(eight(), extra=Extra(urg=True)) == QSTAT_URG


def test_r_shows_each_jobs_requests_under_its_line():
    reply = JobsReply(jobs=four_running(), queues=queues(), hosts=[vm_host()], now=T_RUN,
                      priorities=dict.fromkeys((2, 3, 4, 5), 0.5),
                      parts={5: parts(0, 0.5, 1000, 1000, 0,
                                      requests={"h_rt": 0.0, "license": 0.0})})
    assert rq.qstat_default(reply, extra=Extra(requests=True)) == QSTAT_R


def test_ext_alone_leaves_the_time_out_and_shows_na_before_any_usage():
    jobs = [running_job(560, spec(name="t02a")), running_job(561, spec(name="t02b")),
            pending_job(562, spec(name="t02c"))]
    reply = JobsReply(jobs=jobs, queues=queues(), hosts=[vm_host()], now=T_RUN,
                      priorities={560: 0.75, 561: 0.25, 562: 0.25},
                      parts={n: parts(0.5, 0.5, 1000, 1000, 0) for n in (560, 561, 562)})
    assert rq.qstat_default(reply, extra=Extra(ext=True)) == QSTAT_EXT


def test_combined_titles_and_rules_as_8_1_9_lays_them_out():
    # Each title is 8.1.9's, and each rule its length, for these options together.
    all_three = Extra(pri=True, urg=True, ext=True)
    assert header(all_three) == (
        "job-ID  prior   nurg    npprior ntckts  urg      rrcontr  wtcontr  dlcontr   ppri "
        "name       user         project          department state submit/start at      "
        "deadline           cpu        mem     io      tckts ovrts otckt ftckt stckt share "
        "queue                          slots ja-task-ID ")
    assert header(Extra(pri=True, ext=True)) == (
        "job-ID  prior   nurg    npprior ntckts   ppri name       user         project     "
        "     department state submit/start at     cpu        mem     io      tckts ovrts "
        "otckt ftckt stckt share queue                          slots ja-task-ID ")
    lengths = {(False, False, False): 113, (True, False, False): 148,
               (False, True, False): 177, (False, False, True): 192,
               (True, True, False): 212, (True, False, True): 227,
               (False, True, True): 256, (True, True, True): 291}
    for (pri, urg, ext), n in lengths.items():
        assert rule(Extra(pri=pri, urg=urg, ext=ext)) == "-" * n


def test_full_listing_with_ext_widens_its_rules_and_shows_usage():
    job = running_job(5, spec(), task_id=0)
    job.tasks[0] = Task(task_id=0, state=job.tasks[0].state, start_time=T_RUN,
                        queue="all.q@vm", host="vm", granted=[("all.q@vm", 1)],
                        usage=Usage(utime=3725.0, io=float(1 << 30)))
    reply = JobsReply(jobs=[job, pending_job(6, spec(name="wait"))], queues=queues()[1:2],
                      hosts=[vm_host()], now=T_RUN, priorities={5: 0.5, 6: 0.5},
                      parts={5: parts(0.5, 0.5, 1000, 1000, 0),
                             6: parts(0.5, 0.5, 1000, 1000, 0)})
    lines = rq.qstat_full(reply, extra=Extra(ext=True, pri=True)).splitlines()
    assert lines[1] == "-" * 189
    assert lines[3] == (
        "      5 0.50000 0.50000 0.50000 0.50000     0 sleep      root         NA          "
        "     defaultdep r     11/22/2026 05:57:18 0:01:02:05 0.00000 1.00000     0     0  "
        "   0     0     0 0.00      1        ")
    assert lines[5] == "#" * 186
    assert lines[8].startswith("      6 0.50000 0.50000 0.50000 0.50000     0 wait       root"
                               "         NA               defaultdep qw    11/22/2026 05:57:27"
                               + " " * 32 + "0")


def test_r_lists_pe_queues_soft_requests_and_predecessors():
    sp = spec(name="q2", pe_name="mpi", pe_min=2, pe_max=4, hard_queues=["all.q", "all.q@vm"],
              soft_queues=["all.q"], hard_resources={"license": "1", "h_rt": "0:1:40"},
              soft_resources={"arch": "lx*", "mem_free": "1G"}, hold_jid=["2", "9", "sleep"])
    job = pending_job(12, sp)
    reply = JobsReply(jobs=[running_job(2, spec()), job], queues=queues(), hosts=[vm_host()],
                      now=T_RUN, priorities={2: 0.5, 12: 0.0},
                      parts={12: PriorityParts(0, 0, 0, 0, 0, 0, 0, 0,
                                               {"license": 200.0, "h_rt": 0.0})})
    shown = rq.qstat_default(reply, users=["root"], states="p", extra=Extra(requests=True))
    assert shown.splitlines()[3:] == [
        "       Full jobname:     q2",
        "       Requested PE:     mpi 2-4",
        "       Hard Resources:   license=1 (200.000000)",
        "                         h_rt=100 (0.000000)",
        "       Soft Resources:   arch=lx*",
        "                         mem_free=1G",
        "       Hard requested queues: all.q, all.q@vm",
        "       Soft requested queues: all.q",
        "       Predecessor Jobs (request): 2, 9, sleep",
        "       Predecessor Jobs: 2, 2",
        "       Binding:          NONE",
    ]


T_XR = 1795466712  # 2026-11-23 20:45:12 UTC
T_XA = 1795466730  # 2026-11-23 20:45:30 UTC


def test_xml_with_every_option_names_the_elements_in_8_1_9s_order():
    """Taken from 8.1.9 (qstat -xml -urg -pri -ext -r) but for mem_usage, which had a
    value there: the usage reported here is io alone."""
    sp = spec(name="xr", args=("300",), pe_name="mpi", pe_min=2, pe_max=2,
              hard_resources={"h_rt": "100", "license": "1"}, hard_queues=["all.q"])
    job = running_job(16, sp, start=T_XR)
    task = job.tasks[0]
    job.tasks[0] = Task(task_id=0, state=task.state, start_time=T_XR, queue="all.q@vm",
                        host="vm", granted=task.granted, pe="mpi",
                        usage=Usage(io=0.00004 * (1 << 30)))
    reply = JobsReply(jobs=[job], queues=queues(), hosts=[vm_host()], now=T_XR,
                      priorities={16: 0.5},
                      parts={16: PriorityParts(0.5, 0.5, 0.5, 2203, 2200, 3.2, 0, 0,
                                               {"h_rt": 0.0, "license": 200.0})})
    shown = rq.qstat_xml(reply, extra=Extra(pri=True, urg=True, ext=True, requests=True))
    assert shown.split("<queue_info>\n")[1].split("  </queue_info>")[0] == """\
    <job_list state="running">
      <JB_job_number>16</JB_job_number>
      <JAT_prio>0.50000</JAT_prio>
      <JAT_ntix>0.50000</JAT_ntix>
      <JB_nppri>0.50000</JB_nppri>
      <JB_nurg>0.50000</JB_nurg>
      <JB_rrcontr>2200</JB_rrcontr>
      <JB_wtcontr>3</JB_wtcontr>
      <JB_dlcontr>0</JB_dlcontr>
      <JB_priority>0</JB_priority>
      <JB_name>xr</JB_name>
      <JB_owner>root</JB_owner>
      <JB_project></JB_project>
      <JB_department>defaultdepartment</JB_department>
      <state>r</state>
      <JAT_start_time>2026-11-23T20:45:12</JAT_start_time>
      <cpu_usage>0.00000</cpu_usage>
      <mem_usage>0.00000</mem_usage>
      <io_usage>0.00004</io_usage>
      <tickets>0</tickets>
      <JB_override_tickets>0</JB_override_tickets>
      <JB_jobshare>0</JB_jobshare>
      <otickets>0</otickets>
      <ftickets>0</ftickets>
      <stickets>0</stickets>
      <JAT_share>0.00000</JAT_share>
      <queue_name>all.q@vm</queue_name>
      <slots>2</slots>
      <full_job_name>xr</full_job_name>
      <requested_pe name="mpi">2</requested_pe>
      <granted_pe name="mpi">2</granted_pe>
      <hard_request name="h_rt" resource_contribution="0.000000">100</hard_request>
      <hard_request name="license" resource_contribution="200.000000">1</hard_request>
      <hard_req_queue>all.q</hard_req_queue>
      <binding>NONE</binding>
    </job_list>
"""


def test_xml_r_of_a_held_array_lists_its_queues_and_predecessors_one_by_one():
    """8.1.9's elements for `qsub -h -t 1-2 -pe mpi 2-3 -q all.q,all.q@vm -soft -q all.q
    -l arch=lx* -hard -l lic=1 -hold_jid xr,16` (the PE range of two is "2,3")."""
    sp = spec(name="xa", args=("1",), array=(1, 2, 1), pe_name="mpi", pe_min=2, pe_max=3,
              hard_queues=["all.q", "all.q@vm"], soft_queues=["all.q"],
              hard_resources={"license": "1"}, soft_resources={"arch": "lx*"},
              hold_jid=["xr", "16"])
    xr = running_job(16, spec(name="xr"), start=T_XR)
    reply = JobsReply(jobs=[xr, pending_job(17, sp, submit=T_XA, state=HELD)],
                      queues=queues(), hosts=[vm_host()], now=T_XA, priorities={16: 0.5},
                      parts={17: PriorityParts(0, 0, 0, 0, 0, 0, 0, 0, {"license": 200.0})})
    assert "parallel environment:  mpi range: 2,3\n" in rq.qstat_job(reply, ["17"]).stdout
    shown = rq.qstat_xml(reply, extra=Extra(requests=True))
    assert shown.split("<JB_name>xa</JB_name>\n")[1].split("    </job_list>")[0] == """\
      <JB_owner>root</JB_owner>
      <state>hqw</state>
      <JB_submission_time>2026-11-23T20:45:30</JB_submission_time>
      <queue_name></queue_name>
      <slots>2</slots>
      <tasks>1,2</tasks>
      <full_job_name>xa</full_job_name>
      <requested_pe name="mpi">2,3</requested_pe>
      <hard_request name="license" resource_contribution="200.000000">1</hard_request>
      <soft_request name="arch">lx*</soft_request>
      <hard_req_queue>all.q</hard_req_queue>
      <hard_req_queue>all.q@vm</hard_req_queue>
      <soft_req_queue>all.q</soft_req_queue>
      <predecessor_jobs_req>xr</predecessor_jobs_req>
      <predecessor_jobs_req>16</predecessor_jobs_req>
      <predecessor_jobs>16</predecessor_jobs>
      <predecessor_jobs>16</predecessor_jobs>
      <binding>NONE</binding>
"""


T_DL = 1798761540  # 2026-12-31 23:59:00 UTC


def test_qstat_j_shows_the_options_8_1_9_scripts_use_in_its_places():
    """8.1.9's qstat -j of `qsub -b y -h -a 202612312359 -dl 202612312359 -r n -binding
    linear:1 -ac a=b,c -js 10 -i /dev/null -N many true` (job 41, run here), but for
    the sge_o_* lines this job leaves out."""
    sp = spec(name="many", command=["true"], args=(), hold=True, start_time=T_DL,
              deadline=T_DL, restart="n", binding="set linear:1", context={"a": "b", "c": "NONE"},
              jobshare=10, stdin_path="/dev/null", o_home="", o_path="", o_shell="",
              o_workdir="", env={"TERM": "NONE"}, mail_list=["root@vm"])
    job = pending_job(41, sp, submit=T_XA, state=HELD)
    reply = JobsReply(jobs=[job], queues=queues(), hosts=[vm_host()], now=T_XA,
                      reasons={41: ["Job is in hold state"]})
    assert rq.qstat_job(reply, ["41"]).stdout == """\
==============================================================
job_number:                 41
exec_file:                  job_scripts/41
submission_time:            Mon Nov 23 20:45:30 2026
deadline:                   Thu Dec 31 23:59:00 2026
owner:                      root
uid:                        0
group:                      root
gid:                        0
sge_o_host:                 vm
execution_time:             Thu Dec 31 23:59:00 2026
account:                    sge
mail_list:                  root@vm
notify:                     FALSE
job_name:                   many
stdin_path_list:            NONE:NONE:/dev/null
jobshare:                   10
restart:                    n
env_list:                   TERM=NONE
script_file:                true
context:                    a=b,c=NONE
binding:                    set linear:1
job_type:                   binary
scheduling info:            Job is in hold state
"""


def test_urg_shows_a_deadline_in_its_column_and_element():
    sp = spec(name="dl3", args=("1",), deadline=T_DL)
    reply = JobsReply(jobs=[pending_job(37, sp, submit=T_XA)], queues=queues(),
                      hosts=[vm_host()], now=T_XA, priorities={37: 0.25},
                      parts={37: parts(0.0, 0.5, 1002, 1000, 1)})
    line = rq.qstat_default(reply, extra=Extra(urg=True)).splitlines()[2]
    assert line == (
        "     37 0.25000 0.00000     1002     1000        1        0 dl3        root         "
        "qw    11/23/2026 20:45:30 12/31/2026 23:59:00" + " " * 36 + "1        ")
    xml = rq.qstat_xml(reply, extra=Extra(urg=True))
    assert ("<JB_submission_time>2026-11-23T20:45:30</JB_submission_time>\n"
            "      <JB_deadline>2026-12-31T23:59:00</JB_deadline>\n") in xml


def test_r_shows_the_binding_asked_for():
    """As 8.1.9 shows a job altered with -binding linear:1 (run here)."""
    job = pending_job(42, spec(name="new", binding="set linear:1"))
    reply = JobsReply(jobs=[job], queues=queues(), hosts=[vm_host()], now=T_XA,
                      priorities={42: 0.5})
    assert "       Binding:          set linear:1\n" in rq.qstat_default(
        reply, users=None, extra=Extra(requests=True))
    assert "<binding>set linear:1</binding>" in rq.qstat_xml(reply, extra=Extra(requests=True))


def test_a_master_queue_list_is_shown_as_8_1_9_shows_it():
    """8.1.9's lines for `qsub -pe mpi 2 -q all.q -soft -q big.q -hard -masterq all.q`:
    qstat -j after the job's arguments, -r after the queue lists, -xml likewise."""
    sp = spec(name="m", args=("100",), pe_name="mpi", pe_min=2, pe_max=2,
              hard_queues=["all.q"], soft_queues=["big.q"], master_queues=["all.q"])
    reply = JobsReply(jobs=[pending_job(67, sp)], queues=queues(), hosts=[vm_host()],
                      now=T_RUN, priorities={67: 0.0})
    lines = rq.qstat_job(reply, ["67"]).stdout.splitlines()
    start = lines.index("job_args:                   100")
    assert lines[start + 1] == "master hard queue_list:     all.q"
    shown = rq.qstat_default(reply, users=["root"], states="p", extra=Extra(requests=True))
    assert shown.splitlines()[3:] == [
        "       Full jobname:     m",
        "       Requested PE:     mpi 2",
        "       Hard Resources:   ",
        "       Soft Resources:   ",
        "       Hard requested queues: all.q",
        "       Soft requested queues: big.q",
        "       Master task hard requested queues: all.q",
        "       Binding:          NONE",
    ]
    assert ("      <soft_req_queue>big.q</soft_req_queue>\n"
            "      <master_hard_req_queue>all.q</master_hard_req_queue>\n"
            "      <binding>NONE</binding>\n") in rq.qstat_xml(reply, extra=Extra(requests=True))
