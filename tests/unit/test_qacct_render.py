"""qacct's text against what GE 8.1.9 printed for the same accounting lines and rows.

The summary layouts were taken from real qacct (Debian's 8.1.9) run on files made to
probe them: long numbers, values asked for, no rows.
"""

from __future__ import annotations

import pytest

from gridd.accounting.qacct_query import Key
from gridd.accounting.record import parse_line
from gridd.accounting.render import render_job, render_summary, render_total

pytestmark = pytest.mark.usefixtures("utc")

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


def test_failure_codes_and_signals_as_ge_names_them() -> None:
    def lines(**changes: str) -> list[str]:
        fields = JOB_47.split(":")
        for index, value in changes.items():
            fields[int(index[1:])] = value
        return render_job(_rec(":".join(fields))).splitlines()

    assert "failed       28  : changing into working directory" in lines(f11="28")
    assert "failed       39  : invalid execution state" in lines(f11="39")
    assert "failed       100 : assumedly after job" in lines(f11="100")
    assert "exit_status  128                  (Unknown signal 0)" in lines(f12="128")
    assert "exit_status  139                  (Segmentation fault)" in lines(f12="139")
    assert "exit_status  160                  (Unknown signal 32)" in lines(f12="160")
    assert "exit_status  162                  (Real-time signal 0)" in lines(f12="162")
    assert "exit_status  300                  (Unknown signal 172)" in lines(f12="300")
    # maxrss counts whole kilobytes; memory stops at TB
    assert "ru_maxrss    186.397KB" in lines(f16="190871.254916")
    assert "mem          1059.586TBs" in lines(f37="1085016.064")  # GiB s


USAGE = (
    "    WALLCLOCK         UTIME         STIME           CPU             MEMORY"
    "                 IO                IOW"
)
FIGURES = (3, 0.005, 0.006, 0.011, 0.0, 0.0, 0.0)
ROW = "            3         0.005         0.006         0.011              0.000" \
      "              0.000              0.000"


def test_total() -> None:
    assert render_total((2, *FIGURES)) == (
        f"Total System Usage\n{USAGE}\n{'=' * 112}\n{ROW}\n"
    )
    assert render_total((0, None, None, None, None, None, None, None)) == (
        f"Total System Usage\n{USAGE}\n{'=' * 112}\n"
    )


def _table(keys: list[Key], rows: list[tuple]) -> list[str]:
    """Header and rows up to the WALLCLOCK column."""
    text = render_summary(keys, [(*row, 1, *FIGURES) for row in rows])
    lines = text.splitlines()
    assert lines[1] == "=" * len(lines[0])
    return [lines[0][: lines[0].index("WALLCLOCK") + 9]] + [
        line[: line.index("            3") + 13] for line in lines[2:]
    ]


def test_text_columns_are_as_wide_as_their_longest_value_plus_one() -> None:
    owner, host = Key("OWNER", "text", None), Key("HOST", "text", "n3")
    assert _table([owner], [("roland",), ("root",)]) == [
        "OWNER      WALLCLOCK", "roland             3", "root               3"]
    assert _table([owner], []) == ["OWNER     WALLCLOCK"]
    assert _table([Key("OWNER", "text", "nobody")], []) == ["OWNER      WALLCLOCK"]
    assert _table([host, owner], [("n3", "bob")]) == [
        "HOST OWNER     WALLCLOCK", "n3   bob               3"]


def test_number_columns_as_ge_lays_them_out() -> None:
    ar, slots = Key("AR", "ar", None), Key("SLOTS", "slots", None)
    # five places and a blank; a longer AR widens its cells but not its title
    assert _table([ar], [(0,), (1234567,)]) == [
        "AR        WALLCLOCK", "    0               3", "1234567             3"]
    # a longer SLOTS widens its title, and that of an AR beside it
    assert _table([slots, ar], [(1, 0), (123456, 0)]) == [
        "SLOTS  AR         WALLCLOCK",
        "    1      0             3",
        "123456     0             3"]
    # no blank when every column was chosen by value, or when there is no row
    asked_ar, asked_account = Key("AR", "ar", "7"), Key("ACCOUNT", "text", "sge")
    assert _table([asked_ar, asked_account], [(7, "sge")]) == [
        "AR   ACCOUNT     WALLCLOCK", "    7sge                 3"]
    assert _table([asked_ar, Key("ACCOUNT", "text", None)], [(7, "sge")]) == [
        "AR    ACCOUNT     WALLCLOCK", "    7 sge                 3"]
    assert _table([slots, Key("AR", "ar", "99")], []) == ["SLOTSAR       WALLCLOCK"]
    assert _table([Key("SLOTS", "slots", "123456")], [(123456,)]) == [
        "SLOTS    WALLCLOCK", "123456            3"]
