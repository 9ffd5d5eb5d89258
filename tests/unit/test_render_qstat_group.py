"""qstat -g t, -g d and -g c against 8.1.9: the -g t listings of transcripts/jobs.txt,
-g c of transcripts/queues_pe.txt, and what 8.1.9 run here printed for the rest
(reference/sge-8.1.9/start.sh)."""

from __future__ import annotations

import pytest

from gridd.cli import render_qstat as rq
from gridd.cli.render_qstat_summary import cluster_summary, cluster_summary_xml
from gridd.formats.qstat_rows import Extra
from gridd.model.cluster import ExecHost, Queue
from gridd.model.job import Job
from gridd.model.task_lifecycle import HELD
from gridd.protocol import JobsReply
from tests.unit.test_render_qstat import (
    ARRAY_PRIOS,
    T_ARR,
    T_PE,
    array_scene,
    patch_priorities,
    pending_job,
    queues,
    reply,
    running_job,
    spec,
)

pytestmark = pytest.mark.usefixtures("utc")  # dates as the transcripts show them

SLOTS_APART = Extra(slots_apart=True)
T_HEADER = ("job-ID  prior   name       user         state submit/start at     queue"
            "                          master ja-task-ID \n" + "-" * 114 + "\n")


def test_g_t_shows_array_tasks_as_masters(monkeypatch) -> None:
    patch_priorities(monkeypatch, ARRAY_PRIOS)
    assert rq.qstat_default(reply(array_scene()), extra=SLOTS_APART) == T_HEADER + """\
    552 0.25000 arr        root         r     11/22/2026 06:08:24 all.q@vm                       MASTER 1
    552 0.25000 arr        root         r     11/22/2026 06:08:24 all.q@vm                       MASTER 3
    552 0.25000 arr        root         r     11/22/2026 06:08:24 all.q@vm                       MASTER 5
    554 0.75000 smpjob     root         qw    11/22/2026 06:08:24                                              
    553 0.50000 pejob      root         qw    11/22/2026 06:08:24                                              
    555 0.00000 after_arr  root         hqw   11/22/2026 06:08:24                                              
"""  # noqa: W291, E501


def test_g_t_shows_a_line_per_slot_of_a_parallel_job(monkeypatch) -> None:
    patch_priorities(monkeypatch, {553: 0.25, 554: 0.75})
    pe = running_job(553, spec(name="pejob", args=("20",), pe_name="mpi", pe_min=2,
                               pe_max=2), start=T_PE)
    smp = pending_job(554, spec(name="smpjob", args=("20",), pe_name="smp", pe_min=3,
                                pe_max=3), submit=T_ARR)
    assert rq.qstat_default(reply([pe, smp]), extra=SLOTS_APART) == T_HEADER + """\
    553 0.25000 pejob      root         r     11/22/2026 06:08:45 all.q@vm                       MASTER        
                                                                  all.q@vm                       SLAVE         
    554 0.75000 smpjob     root         qw    11/22/2026 06:08:24                                              
"""  # noqa: W291, E501


def two_queues() -> list[Job]:
    """As 8.1.9 ran them here: job 57 (-pe mpi 2 -masterq big.q) with its master task in
    big.q and its slave in all.q; job 56 two slots in all.q; held array 76."""
    big = [*queues(), Queue(name="big.q", hostlist=["vm"], slots=4, seq_no=0,
                            pe_list=["mpi"])]
    master = running_job(56, spec(pe_name="mpi", pe_min=2, pe_max=2), start=T_PE)
    led = running_job(57, spec(pe_name="mpi", pe_min=2, pe_max=2), start=T_PE,
                      queue="big.q@vm")
    led.tasks[0].granted = [("big.q@vm", 1), ("all.q@vm", 1)]
    held = pending_job(76, spec(array=(1, 3, 1)), submit=T_ARR, state=HELD)
    return [master, led, held], big


def test_g_t_lists_every_instance_in_turn_and_g_d_each_waiting_task() -> None:
    jobs, big = two_queues()
    shown = JobsReply(jobs=jobs, queues=big, hosts=[], now=T_PE,
                      priorities={56: 0.25, 57: 0.25, 76: 0.0})
    assert rq.qstat_default(shown, extra=SLOTS_APART) == T_HEADER + """\
     56 0.25000 sleep      root         r     11/22/2026 06:08:45 all.q@vm                       MASTER        
                                                                  all.q@vm                       SLAVE         
     57 0.25000 sleep      root         r     11/22/2026 06:08:45 all.q@vm                       SLAVE         
     57 0.25000 sleep      root         r     11/22/2026 06:08:45 big.q@vm                       MASTER        
     76 0.00000 sleep      root         hqw   11/22/2026 06:08:24                                       1-3:1
"""  # noqa: W291, E501
    lines = rq.qstat_default(shown, extra=Extra(tasks_apart=True)).splitlines()
    assert lines[-3:] == [
        f"     76 0.00000 sleep      root         hqw   11/22/2026 06:08:24{' ' * 36}1 {n}"
        for n in (1, 2, 3)]
    full = rq.qstat_full(shown, extra=SLOTS_APART).splitlines()
    big_line = "big.q@vm                       BIP   0/1/4          -NA-     -NA-          "
    start = full.index(big_line)
    assert full[start - 4:start + 2] == [
        "     56 0.25000 sleep      root         r     11/22/2026 06:08:45 MASTER        ",
        " " * 66 + "SLAVE         ",
        "     57 0.25000 sleep      root         r     11/22/2026 06:08:45 SLAVE         ",
        "-" * 81,
        big_line,
        "     57 0.25000 sleep      root         r     11/22/2026 06:08:45 MASTER        "]
    assert full[-1] == "     76 0.00000 sleep      root         hqw   11/22/2026 06:08:24" \
        "        1-3:1"
    xml = rq.qstat_xml(shown, extra=SLOTS_APART)
    assert xml.count("<master>SLAVE</master>") == 2
    assert xml.count("<master>MASTER</master>") == 2
    assert "      <queue_name></queue_name>\n      <master></master>\n      <slots>1</slots>\n" \
        "      <tasks>1-3:1</tasks>\n" in xml


SUMMARY_HEAD = ("CLUSTER QUEUE                   CQLOAD   USED    RES  AVAIL  TOTAL aoACDS  "
                "cdsuE  \n" + "-" * 80 + "\n")


def test_g_c_matches_the_transcript() -> None:
    # The load 8.1.9's -f -xml showed in the same state: 1.36914 on 2 processors; long.q
    # had 3 slots by then.
    shown = reply([], load_avg="1.36914")
    shown.queues[0].slots = 3
    assert cluster_summary(shown) == SUMMARY_HEAD + """\
all.q                             0.68      0      0      4      4      0      0 
long.q                            0.68      0      0      3      3      0      0 
short.q                           0.68      0      0      2      2      0      0 
"""  # noqa: W291


def test_g_c_counts_the_slots_of_instances_that_take_no_jobs() -> None:
    """8.1.9 here: all.q in load alarm (3 used, 1 held by an AR) counts its 4 slots under
    aoACDS, big.q suspended its 4 under cdsuE; a -q list picks the cluster queues."""
    jobs, big = two_queues()
    for task in jobs[0].tasks.values():
        task.granted = [("all.q@vm", 3)]
    jobs[1].tasks[0].granted = [("big.q@vm", 4)]
    host = ExecHost(name="vm", last_report=T_PE, load={"np_load_avg": "0.540283"})
    shown = JobsReply(jobs=jobs[:2], queues=big, hosts=[host], now=T_PE,
                      states={"all.q@vm": "a", "big.q@vm": "s", "short.q@vm": "d"},
                      ar_slots={"all.q@vm": 1})
    shown.selected = ["all.q@vm", "big.q@vm"]  # as the master chose them for -q all.q,big.q
    assert cluster_summary(shown) == SUMMARY_HEAD + """\
all.q                             0.54      3      1      0      4      4      0 
big.q                             0.54      4      0      0      4      0      4 
"""  # noqa: W291
    shown.selected = ["all.q@vm"]
    assert cluster_summary_xml(shown).split("\n", 2)[2] == """\
  <cluster_queue_summary>
    <name>all.q</name>
    <load>0.54028</load>
    <used>3</used>
    <resv>1</resv>
    <available>0</available>
    <total>4</total>
    <temp_disabled>4</temp_disabled>
    <manual_intervention>0</manual_intervention>
  </cluster_queue_summary>
</job_info>
"""
    quiet = cluster_summary(JobsReply(jobs=[], queues=big, hosts=[], now=T_PE))
    assert quiet.splitlines()[2] == "all.q                             -NA-      0      0      " \
        "4      4      0      0 "

