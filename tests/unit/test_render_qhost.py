"""qhost renderers against the Grid Engine 8.1.9 transcript (queues_pe.txt)."""

from __future__ import annotations

import pytest

from gridd.cli import render_qhost as rh
from gridd.cli import render_qstat as rq
from gridd.model.cluster import ExecHost, Queue
from gridd.model.job import Job, JobSpec, Task
from gridd.model.task_lifecycle import RUNNING

T_A = 1795327903  # 2026-11-22 06:11:43 UTC
T_B = T_A + 2


pytestmark = pytest.mark.usefixtures("utc")  # dates as the transcripts show them


def vm(**overrides: str) -> ExecHost:
    load = {
        "arch": "lx-amd64", "num_proc": "2", "m_socket": "1", "m_core": "2", "m_thread": "2",
        "load_avg": "1.369141", "np_load_avg": "0.684570",
        "mem_total": str(int(24105.558594 * 2**20)), "mem_free": str(int(23862.1 * 2**20)),
        "mem_used": str(int(243.453 * 2**20)), "swap_total": "0", "swap_free": "0",
        "swap_used": "0",
    }
    load.update(overrides)
    return ExecHost(name="vm", load=load, last_report=T_A)


def queues() -> list[Queue]:
    return [
        Queue(name="long.q", hostlist=["vm"], slots=3, qtype="BATCH", seq_no=2,
              pe_list=["mpi", "smp"]),
        Queue(name="all.q", hostlist=["vm"], slots=4, seq_no=0,
              pe_list=["mpi", "smp"]),
        Queue(name="short.q", hostlist=["vm"], slots=2, seq_no=1,
              pe_list=["mpi", "smp"]),
    ]


TABLE = """\
HOSTNAME                ARCH         NCPU NSOC NCOR NTHR  LOAD  MEMTOT  MEMUSE  SWAPTO  SWAPUS
----------------------------------------------------------------------------------------------
global                  -               -    -    -    -     -       -       -       -       -
vm                      lx-amd64        2    1    2    2  1.37   23.5G  243.5M     0.0     0.0
"""


def test_qhost_matches_reference():
    assert rh.qhost_default([vm()]) == TABLE


def test_qhost_q_lists_queue_instances_by_seq_no():
    expected = TABLE + """\
   all.q                BIP   0/0/4         
   short.q              BIP   0/0/2         
   long.q               BP    0/0/3         
"""  # noqa: W291 - trailing blanks are GE's
    assert rh.qhost_default([vm()], queues(), show_queues=True) == expected


def running(job_id: int, name: str, start: float) -> Job:
    task = Task(task_id=0, state=RUNNING, start_time=start, queue="all.q@vm", host="vm",
                granted=[("all.q@vm", 1)])
    return Job(job_id=job_id, spec=JobSpec(name=name, owner="root"), submit_time=start,
               tasks={0: task})


def test_qhost_j_lists_jobs_under_their_host():
    jobs = [running(561, "t02b", T_B), running(560, "t02a", T_A)]
    host = vm(mem_used=str(int(1.1 * 2**30)), load_avg="3.807617")
    expected = TABLE.replace("1.37   23.5G  243.5M", "3.81   23.5G    1.1G") + """\
   job-ID  prior   name       user         state submit/start at     queue      master ja-task-ID 
   ----------------------------------------------------------------------------------------------
       560 0.75000 t02a       root         r     11/22/2026 06:11:43 all.q@vm   MASTER        
       561 0.25000 t02b       root         r     11/22/2026 06:11:45 all.q@vm   MASTER        
"""  # noqa: W291, E501
    assert rh.qhost_default([host], queues(), jobs, show_jobs=True,
                            priorities={560: 0.75, 561: 0.25}) == expected


HOST_XML = """\
<?xml version='1.0'?>
<qhost xmlns:xsd="http://arc.liv.ac.uk/repos/darcs/sge/source/dist/util/resources/schemas/qhost/qhost.xsd">
 <host name='global'>
   <hostvalue name='arch_string'>-</hostvalue>
   <hostvalue name='num_proc'>-</hostvalue>
   <hostvalue name='m_socket'>-</hostvalue>
   <hostvalue name='m_core'>-</hostvalue>
   <hostvalue name='m_thread'>-</hostvalue>
   <hostvalue name='load_avg'>-</hostvalue>
   <hostvalue name='mem_total'>-</hostvalue>
   <hostvalue name='mem_used'>-</hostvalue>
   <hostvalue name='swap_total'>-</hostvalue>
   <hostvalue name='swap_used'>-</hostvalue>
 </host>
 <host name='vm'>
   <hostvalue name='arch_string'>lx-amd64</hostvalue>
   <hostvalue name='num_proc'>2</hostvalue>
   <hostvalue name='m_socket'>1</hostvalue>
   <hostvalue name='m_core'>2</hostvalue>
   <hostvalue name='m_thread'>2</hostvalue>
   <hostvalue name='load_avg'>1.37</hostvalue>
   <hostvalue name='mem_total'>23.5G</hostvalue>
   <hostvalue name='mem_used'>243.5M</hostvalue>
   <hostvalue name='swap_total'>0.0</hostvalue>
   <hostvalue name='swap_used'>0.0</hostvalue>
"""  # noqa: E501


def test_qhost_xml_matches_reference():
    assert rh.qhost_xml([vm()]) == HOST_XML + " </host>\n</qhost>\n"


def test_qhost_q_xml_matches_reference():
    queue = """\
 <queue name='{q}'>
   <queuevalue qname='{q}' name='qtype_string'>{t}</queuevalue>
   <queuevalue qname='{q}' name='slots_used'>0</queuevalue>
   <queuevalue qname='{q}' name='slots'>{n}</queuevalue>
   <queuevalue qname='{q}' name='slots_resv'>0</queuevalue>
   <queuevalue qname='{q}' name='state_string'></queuevalue>
 </queue>
"""
    expected = (
        HOST_XML
        + queue.format(q="all.q", t="BIP", n=4)
        + queue.format(q="short.q", t="BIP", n=2)
        + queue.format(q="long.q", t="BP", n=3)
        + " </host>\n</qhost>\n"
    )
    assert rh.qhost_xml([vm()], queues(), show_queues=True) == expected


def test_silent_host_keeps_static_values_only():
    host = vm()
    host.last_report = 0.0
    line = rh.qhost_default([host], queues(), show_queues=True,
                            states={"all.q@vm": "au"}).splitlines()[3:]
    assert line[0] == ("vm                      lx-amd64        2    1    2    2     -   23.5G"
                       "       -     0.0       -")
    assert line[1].endswith("0/0/4         au")


def test_unknown_and_unreported_values_print_dashes():
    host = ExecHost(name="n1", last_report=T_A, load={"num_proc": "x"})
    assert rh.qhost_default([host]).splitlines()[3] == "n1" + " " * 22 + (
        "-               -    -    -    -     -       -       -       -       -"
    )


def test_memory_values_read_bytes_and_ge_suffixes():
    assert rh.parse_bytes("25769803776") == 24 * 2**30
    assert rh.parse_bytes("24105.5M") == 24105.5 * 2**20
    assert rh.parse_bytes("2g") == 2e9
    assert rh.parse_bytes("lots") is None
    assert rq.format_memory(500, 1) == "500.0"
    assert rq.format_memory(1536, 1) == "1.5K"
    assert rq.format_memory(3 * 2**40, 1) == "3.0T"
