"""qacct output against what GE 8.1.9 printed for the same accounting lines."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from gridd.accounting.accounting_file import append_records
from gridd.accounting.record import parse_line
from gridd.accounting.render import render_job, render_summary
from gridd.cli.qacct import main

JOB_47 = (
    "all.q:vm:root:root:acctdemo:47:sge:0:1795327375:1795327375:1795327378:0:0:3:0.004999:"
    "0.005734:4528.000000:0:0:0:0:636:2:0:24.000000:56:0:0:0:15:5:NONE:defaultdepartment:mpi:2:"
    "0:0.010733:0.000000:0.000043:-u root -l license=2 -pe mpi 2:0.000000:NONE:3559424.000000:0:0"
)
JOB_26 = (
    "all.q:vm:root:root:sleep:26:sge:0:1795327080:1795327080:1795327083:37:137:3:0.003473:"
    "0.006512:4564.000000:0:0:0:0:643:0:0:0.000000:8:0:0:0:14:1:NONE:defaultdepartment:NONE:1:0:"
    "0.009985:0.000000:0.000043:-l h_rt=2:0.000000:NONE:3612672.000000:0:0"
)
JOB_40 = (
    "all.q:vm:roland:roland:sleep:40:sge:0:1795327215:1795327215:1795327220:0:0:5:0.002935:"
    "0.006069:4464.000000:0:0:0:0:639:0:0:8.000000:48:0:0:0:17:16:NONE:defaultdepartment:NONE:1:"
    "0:0.009004:0.000000:0.000043:-u root -ar 12:0.000000:NONE:3719168.000000:12:1795327215"
)

# `qacct -j 47` as GE 8.1.9 printed it; "|" marks line ends, the blanks before it matter.
_BLOCK_47_MARKED = """\
==============================================================|
qname        all.q               |
hostname     vm                  |
group        root                |
owner        root                |
project      NONE                |
department   defaultdepartment   |
jobname      acctdemo            |
jobnumber    47                  |
taskid       undefined|
account      sge                 |
priority     0                   |
qsub_time    Sun Nov 22 06:02:55 2026|
start_time   Sun Nov 22 06:02:55 2026|
end_time     Sun Nov 22 06:02:58 2026|
granted_pe   mpi                 |
slots        2                   |
failed       0    |
exit_status  0                   |
ru_wallclock 3s|
ru_utime     0.005s|
ru_stime     0.006s|
ru_maxrss    4.422KB|
ru_ixrss     0.000B|
ru_ismrss    0.000B|
ru_idrss     0.000B|
ru_isrss     0.000B|
ru_minflt    636                 |
ru_majflt    2                   |
ru_nswap     0                   |
ru_inblock   24                  |
ru_oublock   56                  |
ru_msgsnd    0                   |
ru_msgrcv    0                   |
ru_nsignals  0                   |
ru_nvcsw     15                  |
ru_nivcsw    5                   |
cpu          0.011s|
mem          0.000Bs|
io           45.089KB|
iow          0.000s|
maxvmem      3.395MB|
arid         undefined|
ar_sub_time  undefined|
category     -u root -l license=2 -pe mpi 2|
"""
BLOCK_47 = _BLOCK_47_MARKED.replace("|\n", "\n")


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def _rec(line: str):
    rec = parse_line(line)
    assert rec is not None
    return rec


def test_job_block_is_byte_identical() -> None:
    assert render_job(_rec(JOB_47)) == BLOCK_47


def test_limit_kill_shows_reason_and_signal() -> None:
    lines = render_job(_rec(JOB_26)).splitlines()
    assert "failed       37  : qmaster enforced h_rt, h_cpu, or h_vmem limit" in lines
    assert "exit_status  137                  (Killed)" in lines


def test_ar_job_and_unstarted_job() -> None:
    lines = render_job(_rec(JOB_40)).splitlines()
    assert "arid         12                  " in lines
    assert "ar_sub_time  Sun Nov 22 06:00:15 2026" in lines
    never = render_job(
        _rec(JOB_26.replace(":1795327080:1795327083:37:", ":0:1795327083:26:"))
    ).splitlines()
    assert "start_time   -/-" in never
    assert "failed       26  : opening input/output file" in never


def test_array_task_shows_task_id() -> None:
    rec = _rec(JOB_47.replace(":mpi:2:0:", ":mpi:2:3:"))
    assert "taskid       3                   \n" in render_job(rec)


def test_total_summary() -> None:
    assert render_summary([_rec(JOB_47), _rec(JOB_40)]) == (
        "Total System Usage\n"
        "    WALLCLOCK         UTIME         STIME           CPU"
        "             MEMORY                 IO                IOW\n" + "=" * 112 + "\n"
        "            8         0.008         0.012         0.020"
        "              0.000              0.000              0.000\n"
    )


def test_owner_summary_column_width() -> None:
    out = render_summary([_rec(JOB_47), _rec(JOB_40)], ["o"]).splitlines()
    assert out[0].startswith("OWNER      WALLCLOCK")
    assert out[2].startswith("roland             5 ")
    assert out[3].startswith("root               3 ")


@pytest.fixture
def acct_file(tmp_path: Path) -> Path:
    path = tmp_path / "common" / "accounting"
    path.parent.mkdir()
    append_records(path, [_rec(JOB_26), _rec(JOB_40), _rec(JOB_47)])
    return path


def test_qacct_main_job_by_id_and_pattern(acct_file, monkeypatch, capsys) -> None:
    monkeypatch.setenv("GRIDD_ROOT", str(acct_file.parent.parent))
    assert main(["-j", "47"]) == 0
    assert capsys.readouterr().out == BLOCK_47
    assert main(["-j", "s*", "-o", "root"]) == 0
    assert capsys.readouterr().out.count("jobnumber") == 1


def test_qacct_main_errors(acct_file, capsys) -> None:
    assert main(["-f", str(acct_file), "-j", "99999"]) == 1
    assert capsys.readouterr().err == "error: job id 99999 not found\n"
    assert main(["-f", str(acct_file), "-t", "1"]) == 1
    assert "not supported" in capsys.readouterr().err
    assert main(["-f", str(acct_file.parent / "nothing")]) == 1
    assert "cannot read accounting file" in capsys.readouterr().err


def test_qacct_does_not_import_duckdb() -> None:
    code = "import sys, gridd.cli.qacct; print('duckdb' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "False", result.stderr
