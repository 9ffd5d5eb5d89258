"""qacct's text: the per-job blocks of `qacct -j` and the usage summary tables.

Pure functions over records and the rows of qacct's queries, so that the byte-for-byte
layout GE 8.1.9 prints can be tested without files or databases; times are shown in the
local time zone, as GE does.

It loads nothing at import but `time`: `qacct -j N` renders with it in a command that
starts light (gridd.cli.qacct_quick), where typing, dataclasses or enum (which signal
loads) would cost more than the rest of the command.
"""

from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from gridd.accounting.qacct_query import Key
    from gridd.accounting.record import AccountingRecord

RULE = "=" * 62
_GIB = 1024.0**3
_MEMORY_UNITS = ("B", "KB", "MB", "GB", "TB")


def _date(epoch: int) -> str:
    """ctime-style local time; 0 means the event never happened (e.g. a job that never ran)."""
    return time.asctime(time.localtime(epoch)) if epoch else "-/-"


def _memory(amount: float) -> str:
    """Scale by 1024 to the largest unit that keeps the number at least 1."""
    unit = 0
    while abs(amount) >= 1024 and unit < len(_MEMORY_UNITS) - 1:
        amount /= 1024
        unit += 1
    return f"{amount:.3f}{_MEMORY_UNITS[unit]}"


def _failed(code: int) -> str:
    if not code:
        return f"{code:<3d}  "
    return f"{code:<3d} : {failed_reason(code)}"


def failed_reason(code: int) -> str:
    """accounting(5)'s words for a failed code (8.1.9's for one it does not know)."""
    return FAILED_REASONS.get(code, "invalid execution state")


def _exit_status(status: int) -> str:
    """From 128 on, the status is read as a death by signal status - 128, and named."""
    text = f"{status:<20d}"
    if status < 128:
        return text
    import signal

    number = status - 128
    name = signal.strsignal(number) if 0 < number < signal.NSIG else None
    return f"{text} ({name or f'Unknown signal {number}'})"


# What each failure code of accounting(5) means, as qacct prints it.
FAILED_REASONS: dict[int, str] = {
    1: "assumedly before job",
    2: "on executing shepherd",
    3: "before writing config",
    4: "before writing pid",
    5: "on reading config file",
    6: "setting processor set",
    7: "before prolog",
    8: "in prolog",
    9: "before pestart",
    10: "in pestart",
    11: "before job",
    12: "before pestop",
    13: "in pestop",
    14: "before epilog",
    15: "in epilog",
    16: "releasing processor set",
    17: "through signal",
    18: "shepherd returned error",
    19: "before writing exit_status",
    20: "found unexpected error file",
    21: "in recognizing job",
    22: "removed manually",
    23: "invalid execution state",
    24: "migrating",
    25: "rescheduling",
    26: "opening input/output file",
    27: "searching requested shell",
    28: "changing into working directory",
    29: "AFS setup",
    30: "application error returned",
    31: "accessing sgepasswd file",
    32: "entry is missing in sgepasswd file",
    33: "wrong password",
    34: "communicating with Grid Engine Helper Service",
    35: "before job in Grid Engine Helper Service",
    36: "checking configured daemons",
    37: "qmaster enforced h_rt, h_cpu, or h_vmem limit",
    38: "adding supplementary group",
    100: "assumedly after job",
}


def render_job(rec: AccountingRecord) -> str:
    """One `qacct -j` block, rule line first, ending in a newline."""
    pad = "{:<20}".format
    rows: list[tuple[str, str]] = [
        ("qname", pad(rec.qname)),
        ("hostname", pad(rec.hostname)),
        ("group", pad(rec.group)),
        ("owner", pad(rec.owner)),
        ("project", pad(rec.project)),
        ("department", pad(rec.department)),
        ("jobname", pad(rec.job_name)),
        ("jobnumber", pad(rec.job_number)),
        ("taskid", pad(rec.task_number) if rec.task_number else "undefined"),
        ("account", pad(rec.account)),
        ("priority", pad(rec.priority)),
        ("qsub_time", _date(rec.submission_time)),
        ("start_time", _date(rec.start_time)),
        ("end_time", _date(rec.end_time)),
        ("granted_pe", pad(rec.granted_pe)),
        ("slots", pad(rec.slots)),
        ("failed", _failed(rec.failed)),
        ("exit_status", _exit_status(rec.exit_status)),
        ("ru_wallclock", f"{rec.ru_wallclock}s"),
        ("ru_utime", f"{rec.ru_utime:.3f}s"),
        ("ru_stime", f"{rec.ru_stime:.3f}s"),
        # GE reads maxrss as a whole number of kilobytes and prints it as if it were
        # bytes; tools expect that.
        ("ru_maxrss", _memory(int(rec.ru_maxrss))),
        ("ru_ixrss", _memory(rec.ru_ixrss)),
        ("ru_ismrss", _memory(rec.ru_ismrss)),
        ("ru_idrss", _memory(rec.ru_idrss)),
        ("ru_isrss", _memory(rec.ru_isrss)),
        ("ru_minflt", pad(rec.ru_minflt)),
        ("ru_majflt", pad(rec.ru_majflt)),
        ("ru_nswap", pad(rec.ru_nswap)),
        ("ru_inblock", pad(int(rec.ru_inblock))),
        ("ru_oublock", pad(rec.ru_oublock)),
        ("ru_msgsnd", pad(rec.ru_msgsnd)),
        ("ru_msgrcv", pad(rec.ru_msgrcv)),
        ("ru_nsignals", pad(rec.ru_nsignals)),
        ("ru_nvcsw", pad(rec.ru_nvcsw)),
        ("ru_nivcsw", pad(rec.ru_nivcsw)),
        ("cpu", f"{rec.cpu:.3f}s"),
        ("mem", f"{_memory(rec.mem * _GIB)}s"),  # GiB seconds in the file
        ("io", _memory(rec.io * _GIB)),  # GiB in the file
        ("iow", f"{rec.iow:.3f}s"),
        ("maxvmem", _memory(rec.maxvmem)),
        ("arid", pad(rec.arid) if rec.arid else "undefined"),
        ("ar_sub_time", _date(rec.ar_submission_time) if rec.arid else "undefined"),
        ("category", rec.category),
    ]
    return RULE + "\n" + "".join(f"{label:<13}{value}\n" for label, value in rows)


_USAGE_HEADER = (
    f"{'WALLCLOCK':>13}{'UTIME':>14}{'STIME':>14}{'CPU':>14}{'MEMORY':>19}{'IO':>19}{'IOW':>19}"
)


def _usage(wallclock: int, utime: float, stime: float, cpu: float, mem: float, io: float,
           iow: float) -> str:
    """The figures, each after a blank even when it is too wide for its column."""
    return (
        f"{wallclock:>13d} {utime:>13.3f} {stime:>13.3f} {cpu:>13.3f}"
        f" {mem:>18.3f} {io:>18.3f} {iow:>18.3f}"
    )


def render_total(row: Sequence[Any]) -> str:
    """Plain `qacct`: `row` is (records, wallclock, utime, stime, cpu, mem, io, iow);
    with no record there is no line of figures."""
    text = f"Total System Usage\n{_USAGE_HEADER}\n{'=' * len(_USAGE_HEADER)}\n"
    return text + (f"{_usage(*row[1:])}\n" if row[0] else "")


def render_summary(keys: Sequence[Key], rows: Sequence[Sequence[Any]]) -> str:
    """The table grouped by `keys`; each row is (*key values, records, wallclock, utime,
    stime, cpu, mem, io, iow), in the order to print.

    Text columns are as wide as their longest value (or the value asked for) plus a
    blank. The number columns SLOTS and AR follow GE's layout, which does not always
    line up: numbers right-aligned in five places, and a blank after them only when
    there are rows and some column was not chosen by value (then a longer number gets
    its blank too). The title is five places plus that blank, wider only after a SLOTS
    not chosen by value with longer numbers: its title and any AR's title then grow.
    """
    blank = 1 if rows and any(key.asked is None for key in keys) else 0
    number_title = 5 + blank  # a SLOTS title that a long number widened: AR's title too
    titles, cells = [], []
    for i, key in enumerate(keys):
        if key.kind == "text":
            width = max([len(key.title), len(key.asked or ""), *(len(r[i]) for r in rows)]) + 1
            titles.append(width)
            cells.append(width)
            continue
        longest = max((len(f"{r[i]:5d}") for r in rows), default=0)
        unasked = key.asked is None
        if key.kind == "slots" and unasked:
            number_title = max(5, longest) + blank
        titles.append(number_title)
        cells.append(max(5 + blank, longest + unasked))
    header = "".join(key.title.ljust(width) for key, width in zip(keys, titles, strict=True))
    lines = [header + _USAGE_HEADER, "=" * (len(header) + len(_USAGE_HEADER))]
    for row in rows:
        line = "".join(
            (value if key.kind == "text" else f"{value:5d}").ljust(width)
            for key, width, value in zip(keys, cells, row[: len(keys)], strict=True)
        )
        lines.append(line + _usage(*row[len(keys) + 1 :]))
    return "".join(f"{line}\n" for line in lines)
