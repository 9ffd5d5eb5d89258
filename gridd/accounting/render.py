"""qacct's text: the per-job blocks of `qacct -j` and the usage summary tables.

Pure functions over AccountingRecord so the byte-for-byte layout GE 8.1.9 prints can be
tested without files; times are shown in the local time zone, as GE does.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Iterable, Sequence

from gridd.accounting.record import AccountingRecord

RULE = "=" * 62
_GIB = 1024.0**3
_MEMORY_UNITS = ("B", "KB", "MB", "GB", "TB", "PB")


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


def _failed(rec: AccountingRecord) -> str:
    if not rec.failed:
        return f"{rec.failed:<3d}  "
    return f"{rec.failed:<3d} : {FAILED_REASONS.get(rec.failed, 'unknown failure')}"


def _exit_status(status: int) -> str:
    """A status above 128 from a signal death gets the signal's description appended."""
    text = f"{status:<20d}"
    try:
        description = signal.strsignal(signal.Signals(status - 128)) if status > 128 else None
    except ValueError:
        description = None
    return f"{text} ({description})" if description else text


# The texts qacct shows for the failure codes gridd's master and execd produce.
FAILED_REASONS: dict[int, str] = {
    1: "assumedly before job",
    21: "in recognizing job",
    26: "opening input/output file",
    27: "searching requested shell",
    28: "changing to working directory",
    37: "qmaster enforced h_rt, h_cpu, or h_vmem limit",
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
        ("failed", _failed(rec)),
        ("exit_status", _exit_status(rec.exit_status)),
        ("ru_wallclock", f"{rec.ru_wallclock}s"),
        ("ru_utime", f"{rec.ru_utime:.3f}s"),
        ("ru_stime", f"{rec.ru_stime:.3f}s"),
        # GE prints the kilobyte count of maxrss as if it were bytes; tools expect that.
        ("ru_maxrss", _memory(rec.ru_maxrss)),
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


# Summary grouping keys in the column order GE uses when several are combined.
SUMMARY_KEYS: dict[str, tuple[str, Callable[[AccountingRecord], str]]] = {
    "h": ("HOST", lambda r: r.hostname),
    "q": ("CLUSTER QUEUE", lambda r: r.qname),
    "g": ("GROUP", lambda r: r.group),
    "o": ("OWNER", lambda r: r.owner),
    "P": ("PROJECT", lambda r: r.project),
    "D": ("DEPARTMENT", lambda r: r.department),
    "A": ("ACCOUNT", lambda r: r.account),
    "pe": ("PE", lambda r: r.granted_pe),
}

_USAGE_HEADER = (
    f"{'WALLCLOCK':>13}{'UTIME':>14}{'STIME':>14}{'CPU':>14}{'MEMORY':>19}{'IO':>19}{'IOW':>19}"
)


class _Totals:
    """Running sums of the columns qacct's summaries show."""

    def __init__(self) -> None:
        self.wallclock = 0
        self.utime = self.stime = self.cpu = self.mem = self.io = self.iow = 0.0

    def add(self, rec: AccountingRecord) -> None:
        self.wallclock += rec.ru_wallclock
        self.utime += rec.ru_utime
        self.stime += rec.ru_stime
        self.cpu += rec.cpu
        self.mem += rec.mem
        self.io += rec.io
        self.iow += rec.iow

    def row(self) -> str:
        return (
            f"{self.wallclock:>13d}{self.utime:>14.3f}{self.stime:>14.3f}{self.cpu:>14.3f}"
            f"{self.mem:>19.3f}{self.io:>19.3f}{self.iow:>19.3f}"
        )


def render_summary(records: Iterable[AccountingRecord], keys: Sequence[str] = ()) -> str:
    """Plain `qacct` (no keys) or the table grouped by the SUMMARY_KEYS named in `keys`."""
    if not keys:
        totals = _Totals()
        for rec in records:
            totals.add(rec)
        header = f"Total System Usage\n{_USAGE_HEADER}\n"
        return f"{header}{'=' * len(_USAGE_HEADER)}\n{totals.row()}\n"
    chosen = [SUMMARY_KEYS[k] for k in SUMMARY_KEYS if k in keys]
    groups: dict[tuple[str, ...], _Totals] = {}
    for rec in records:
        groups.setdefault(tuple(get(rec) for _, get in chosen), _Totals()).add(rec)
    widths = [
        max([len(title), *(len(key[i]) for key in groups)]) + 1
        for i, (title, _) in enumerate(chosen)
    ]
    header = "".join(f"{title:<{w}}" for (title, _), w in zip(chosen, widths, strict=True))
    lines = [header + _USAGE_HEADER, "=" * (sum(widths) + len(_USAGE_HEADER))]
    for key in sorted(groups):
        cells = "".join(f"{v:<{w}}" for v, w in zip(key, widths, strict=True))
        lines.append(cells + groups[key].row())
    return "".join(f"{line}\n" for line in lines)
