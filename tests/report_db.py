"""A reporting database for the report tests: the accounting and reporting files real
Grid Engine 8.1.9 wrote (tests/data/sge-8.1.9, November 2026), plus synthetic records in
spring 2025 for what the real run lacks: several users, projects, departments, queues and
hosts, a parallel job with a slave task, an array job, a job that failed before it
started, long waits, and ARs that ended, were deleted, or held no job.

The synthetic records are written as files in 8.1.9's formats and go through the same
ingest as real ones, so the reports are tested on what the writer really stores.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from gridd.accounting.record import AccountingRecord, parse_line, to_line

DATA = Path(__file__).resolve().parent / "data" / "sge-8.1.9"

T0 = 1741564800  # 2025-03-10 00:00:00 UTC
A = 1745107200  # 2025-04-20 00:00:00 UTC: AR 101 (carol, 2 h, ended)
B = 1745236800  # 2025-04-21 12:00:00 UTC: AR 102 (carol, 1 h, deleted after 1000 s)
C = 1746172800  # 2025-05-02 08:00:00 UTC: AR 103 (dave, 30 min, no job)


def real_records() -> list[AccountingRecord]:
    """The records of the real accounting file: the oracle for the real half."""
    lines = (DATA / "accounting").read_text().splitlines()
    return [rec for rec in map(parse_line, lines) if rec is not None]


def _job(template: AccountingRecord, **fields: object) -> AccountingRecord:
    blank = dict(failed=0, exit_status=0, granted_pe="NONE", slots=1, task_number=0,
                 pe_taskid="NONE", arid=0, ar_submission_time=0, account="sge",
                 category="NONE", iow=0.0, maxvmem=0.0, priority=0)
    return replace(template, **{**blank, **fields})


def synthetic_accounting(template: AccountingRecord) -> list[AccountingRecord]:
    """owner, project, department, queue@host, slots, times, failure, usage."""
    def who(owner: str) -> dict[str, str]:
        project, department = {"alice": ("projA", "dept1"), "bob": ("projB", "dept2"),
                               "carol": ("projA", "dept1"), "dave": ("projB", "dept2")}[owner]
        return dict(owner=owner, group=owner, project=project, department=department)

    return [
        # 2025-03-10: alice's serial job, 5 s wait
        _job(template, **who("alice"), qname="short.q", hostname="h1", job_name="s1",
             job_number=1001, submission_time=T0, start_time=T0 + 5, end_time=T0 + 65,
             ru_wallclock=60, cpu=50.0, mem=2.0, io=0.5),
        # alice's 4-slot MPI job (600 s wait) and its slave task's usage
        _job(template, **who("alice"), qname="long.q", hostname="h2", job_name="mpi",
             job_number=1002, submission_time=T0 + 100, start_time=T0 + 700,
             end_time=T0 + 3700, granted_pe="mpi", slots=4, ru_wallclock=3000,
             cpu=11000.0, mem=40.0, io=3.0),
        _job(template, **who("alice"), qname="long.q", hostname="h2", job_name="mpi",
             job_number=1002, submission_time=T0 + 100, start_time=T0 + 710,
             end_time=T0 + 3690, granted_pe="mpi", slots=1, pe_taskid="1.h2",
             ru_wallclock=2980, cpu=1000.0, mem=1.0, io=0.25),
        # bob: 2 h wait, exit status 3; then a job that failed before it started
        _job(template, **who("bob"), qname="short.q", hostname="h1", job_name="s3",
             job_number=1003, submission_time=T0 + 200, start_time=T0 + 7400,
             end_time=T0 + 7500, exit_status=3, slots=2, ru_wallclock=100, cpu=10.0,
             mem=0.5, io=0.0),
        _job(template, **who("bob"), qname="short.q", hostname="h2", job_name="s4",
             job_number=1004, submission_time=T0 + 300, start_time=0, end_time=0,
             failed=1, ru_wallclock=0, cpu=0.0, mem=0.0, io=0.0),
        # carol's array job, both tasks in AR 101 (30 s waits)
        _job(template, **who("carol"), qname="long.q", hostname="h1", job_name="arr",
             job_number=1005, task_number=1, submission_time=A - 30, start_time=A,
             end_time=A + 1800, ru_wallclock=1800, cpu=1700.0, mem=10.0, io=1.0,
             arid=101, ar_submission_time=A - 3600),
        _job(template, **who("carol"), qname="long.q", hostname="h1", job_name="arr",
             job_number=1005, task_number=2, submission_time=A - 30, start_time=A + 1800,
             end_time=A + 2400, ru_wallclock=600, cpu=590.0, mem=3.0, io=0.5,
             arid=101, ar_submission_time=A - 3600),
        # dave's job in AR 102 (10 s wait)
        _job(template, **who("dave"), qname="short.q", hostname="h1", job_name="in102",
             job_number=1006, submission_time=B - 10, start_time=B, end_time=B + 900,
             ru_wallclock=900, cpu=800.0, mem=4.0, io=0.2, arid=102,
             ar_submission_time=B - 7200),
    ]


SYNTHETIC_REPORTING = [
    f"{A - 3600}:new_ar:{A - 3600}:101:carol",
    f"{A - 3600}:ar_attr:{A - 3600}:{A - 3600}:101:nightly:sge:{A}:{A + 7200}:NONE:NONE",
    f"{A}:ar_log:{A}:{A - 3600}:101:r:START TIME REACHED:start time of AR reached",
    f"{A + 7200}:ar_log:{A + 7200}:{A - 3600}:101:x:TERMINATED:end time of AR reached",
    f"{A + 7200}:ar_acct:{A + 7200}:{A - 3600}:101:long.q:h1:1",
    f"{B - 7200}:new_ar:{B - 7200}:102:carol",
    f"{B - 7200}:ar_attr:{B - 7200}:{B - 7200}:102:adhoc:sge:{B}:{B + 3600}:NONE:NONE",
    f"{B}:ar_log:{B}:{B - 7200}:102:r:START TIME REACHED:start time of AR reached",
    f"{B + 1000}:ar_log:{B + 1000}:{B - 7200}:102:d:DELETED:AR deleted",
    f"{B + 1000}:ar_acct:{B + 1000}:{B - 7200}:102:short.q:h1:1",
    f"{C - 100}:new_ar:{C - 100}:103:dave",
    f"{C - 100}:ar_attr:{C - 100}:{C - 100}:103:idle:sge:{C}:{C + 1800}:smp:NONE",
    f"{C}:ar_log:{C}:{C - 100}:103:r:START TIME REACHED:start time of AR reached",
    f"{C + 1800}:ar_log:{C + 1800}:{C - 100}:103:x:TERMINATED:end time of AR reached",
    f"{C + 1800}:ar_acct:{C + 1800}:{C - 100}:103:short.q:h2:2",
]


def build(base: Path) -> Path:
    """Write the cell's database under BASE (as $GRIDD_ROOT) and return its path."""
    from gridd import paths
    from gridd.accounting.db import ingest_file, open_db

    real = real_records()
    accounting = base / "synthetic-accounting"
    accounting.write_text("".join(to_line(rec) + "\n"
                                  for rec in synthetic_accounting(real[0])))
    reporting = base / "synthetic-reporting"
    reporting.write_text("".join(line + "\n" for line in SYNTHETIC_REPORTING))
    path = paths.reporting_db(base)
    path.parent.mkdir(parents=True, exist_ok=True)
    con = open_db(path)
    try:
        for source in (DATA / "accounting", DATA / "reporting", accounting, reporting):
            ingest_file(con, source)
    finally:
        con.close()
    return path
