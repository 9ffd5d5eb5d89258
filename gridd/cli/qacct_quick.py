"""`qacct -j N` from the cell's accounting file, with no connection and no database.

Where the accounting file holds the reporting database's whole accounting history
(gridd.accounting.whole_history says so), the job's records are the file's lines of it,
and reading them costs less than the interpreter's start, as it does Grid Engine's
qacct, which reads the file too. The block of each record is the whole command's
(accounting.render), in the database's order of records (qacct_query.DATABASE_ORDER).
Anything else (no marker, a file changed since it was vouched for, a job the file does
not have, a line that does not read) is left to the whole command, which asks the
database: `answer` then returns None.
"""

from __future__ import annotations

import os
import sys

from gridd import paths
from gridd.accounting import record_fields, whole_history

_CHUNK = 1 << 20
_DIGITS = 19  # a job number longer is none the file can hold: the whole command says so
_JOB = record_fields.FIELDS.index("job_number")
# qacct_query.DATABASE_ORDER: end_time (never ended last), job_number, task_number,
# pe_taskid, hostname
_ORDER = tuple(record_fields.FIELDS.index(name) for name in (
    "end_time", "job_number", "task_number", "pe_taskid", "hostname"))


def answer(argv: list[str]) -> int | None:
    """qacct's exit code once it printed the job's records; None when the whole command
    is to answer."""
    job = job_asked(argv)
    text = None if job is None else printed(paths.common_dir(), job)
    if text is None:
        return None
    sys.stdout.write(text)
    return 0


def job_asked(argv: list[str]) -> int | None:
    """The job of a `qacct -j N` command line (N a job number); None for any other."""
    if len(argv) != 2 or argv[0] != "-j" or not (
            argv[1].isascii() and argv[1].isdigit() and len(argv[1]) <= _DIGITS):
        return None
    return int(argv[1])


def printed(common: str, job: int) -> str | None:
    """What `qacct -j job` prints, read from the accounting file in `common`; None when
    the file cannot tell (see the module's docstring)."""
    records = job_records(common, job)
    if not records:
        return None
    from types import SimpleNamespace

    from gridd.accounting.render import render_job

    return "".join(render_job(SimpleNamespace(**dict(zip(record_fields.FIELDS, values,
                                                         strict=True))))
                   for values in records)


def job_records(common: str, job: int) -> list[list[str | int | float]] | None:
    """The values of the job's records in the database's order, if the file is whole
    and every line of the job reads; else None."""
    file = os.path.join(common, paths.ACCOUNTING)
    vouched = whole_history.marked(os.path.join(common, paths.ACCOUNTING_WHOLE))
    try:
        fd = os.open(file, os.O_RDONLY)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if vouched != (st.st_ino, st.st_size):
            return None
        lines = _job_lines(fd, st.st_size, job)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        records = []
        for line in lines:
            texts, count = record_fields.split(line)
            values = record_fields.values(texts[:count])
            if values[_JOB] == job:
                records.append(values)
    except ValueError:
        return None
    records.sort(key=_order)
    return records


def _job_lines(fd: int, size: int, job: int) -> list[str]:
    """The lines of the file's first `size` bytes that may be the job's: those with
    `:job:` in them (the caller reads each to be sure)."""
    needle = b":%d:" % job
    found, offset, rest = [], 0, b""
    while offset < size:
        chunk = rest + os.pread(fd, min(_CHUNK, size - offset), offset)
        if len(chunk) == len(rest):  # the file was cut meanwhile
            break
        offset += len(chunk) - len(rest)
        cut = chunk.rfind(b"\n") + 1
        whole, rest = chunk[:cut], chunk[cut:]
        if needle in whole:
            found += [line.decode("utf-8", "surrogateescape")
                      for line in whole.split(b"\n") if needle in line
                      and not line.startswith(b"#")]
    return found


def _order(values: list[str | int | float]) -> tuple[object, ...]:
    end = values[_ORDER[0]]
    return (end == 0, end, *(values[i] for i in _ORDER[1:]))
