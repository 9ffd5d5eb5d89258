"""The accounting actor writes AR records to the reporting file exactly once, and vouches
for the accounting file while it holds the database's whole accounting history.

The test plays the master: it binds a PAIR socket, the actor's channel the other end, sends
ReportRecords with outbox sequence numbers and waits for Accounted. A restart of the
master process is a new context, a new socket and a new actor on the same cell directory,
to which the master resends what it may not have seen confirmed.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import duckdb
import trio
import zmq

from gridd import paths
from gridd import protocol as p
from gridd.accounting import query, whole_history
from gridd.accounting.ar_report import line
from gridd.accounting.record import FILE_HEADER
from gridd.actors import accounting
from gridd.cli import qacct, qacct_quick
from gridd.model.ar import AdvanceReservation, ArRecord, ArSpec
from gridd.model.job import JobSpec, new_job
from gridd.transport import TrioSocket

_endpoints = itertools.count()

AR = AdvanceReservation(
    ar_id=12, submission_time=1795327215, start=1795327215, end=1795327255,
    spec=ArSpec(name="small", owner="root", group="root", pe_name="smp", pe_min=2, pe_max=2),
    granted=[("all.q@vm", 2)], granted_pe="smp",
)
NEW = ArRecord(kind="new_ar", time=1795327215, ar=AR)
ATTR = ArRecord(kind="ar_attr", time=1795327215, ar=AR)
START = ArRecord(kind="ar_log", time=1795327215, ar=AR, state="r", event="START TIME REACHED",
                 message="start time of AR reached")
END = ArRecord(kind="ar_log", time=1795327255, ar=AR, state="x", event="TERMINATED",
               message="end time of AR reached")
ACCT = ArRecord(kind="ar_acct", time=1795327255, ar=AR, queue="all.q", host="vm", slots=2)


class Master:
    def __init__(self, sock: TrioSocket) -> None:
        self.sock = sock

    async def report(self, *records: tuple[int, ArRecord]) -> set[int]:
        """Send records, and return the seqs confirmed once all of them are."""
        for seq, record in records:
            await self.sock.send([p.encode(p.ReportRecord(seq=seq, record=record))])
        wanted = {seq for seq, _ in records}
        confirmed: set[int] = set()
        with trio.fail_after(10):
            while not wanted <= confirmed:
                (frame,) = await self.sock.recv()
                msg = p.decode(frame)
                assert isinstance(msg, p.Accounted)
                confirmed.update(msg.seqs)
        return confirmed


@asynccontextmanager
async def accounting_on_pair(base: Path, **params: object) -> AsyncIterator[TrioSocket]:
    """The accounting actor on the PAIR socket the test binds in the master's place, told
    `params` (ReportingParams) first, as the master does."""
    ctx = zmq.Context()
    endpoint = f"inproc://acct-{next(_endpoints)}"
    sock = TrioSocket.create(ctx, zmq.PAIR, SNDHWM=0, RCVHWM=0)
    sock.bind(endpoint)
    actor = TrioSocket.create(ctx, zmq.PAIR, SNDHWM=0, RCVHWM=0)
    actor.connect(endpoint)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(accounting.run, actor, base)
            await sock.send([p.encode(p.ReportingParams(**params))])
            yield sock
            nursery.cancel_scope.cancel()
    finally:
        sock.close()
        actor.close()
        ctx.term()


@asynccontextmanager
async def cell(base: Path) -> AsyncIterator[Master]:
    """One life of the master process with its accounting actor."""
    async with accounting_on_pair(base, flush_time=0.05) as sock:
        yield Master(sock)


def accounted_jobs(base: Path) -> list[str]:
    """The job numbers of the accounting file's lines."""
    lines = paths.accounting_file(base).read_text().splitlines()[len(FILE_HEADER):]
    return [line.split(":")[5] for line in lines]


def body(base: Path) -> list[str]:
    text = paths.reporting_file(base).read_text()
    assert text.endswith("\n")
    lines = text.splitlines()
    assert tuple(lines[: len(FILE_HEADER)]) == FILE_HEADER
    return lines[len(FILE_HEADER):]


def make_cell(tmp_path: Path) -> Path:
    paths.common(tmp_path).mkdir(parents=True)
    return tmp_path


async def test_records_written_once_confirmed_and_not_rewritten_after_restart(tmp_path):
    base = make_cell(tmp_path)
    async with cell(base) as master:
        assert await master.report((1, NEW), (2, ATTR), (3, START)) == {1, 2, 3}
        assert body(base) == [line(NEW), line(ATTR), line(START)]
        # the same seq twice in one life (and in one batch) is written once, confirmed twice
        assert await master.report((5, END), (5, END)) == {5}
        assert body(base) == [line(NEW), line(ATTR), line(START), line(END)]

    # restarted, the master resends what it had not seen confirmed, and something new
    async with cell(base) as master:
        assert await master.report((2, ATTR), (3, START), (5, END), (6, ACCT)) == {2, 3, 5, 6}
    assert body(base) == [line(NEW), line(ATTR), line(START), line(END), line(ACCT)]
    assert body(base) == [
        "1795327215:new_ar:1795327215:12:root",
        "1795327215:ar_attr:1795327215:1795327215:12:small:sge:1795327215:1795327255:smp:NONE",
        "1795327215:ar_log:1795327215:1795327215:12:r:START TIME REACHED:start time of AR reached",
        "1795327255:ar_log:1795327255:1795327215:12:x:TERMINATED:end time of AR reached",
        "1795327255:ar_acct:1795327255:1795327215:12:all.q:vm:2",
    ]


async def test_torn_last_line_is_cut_and_the_resent_record_written_whole(tmp_path):
    base = make_cell(tmp_path)
    full = line(START)
    paths.reporting_file(base).write_text(
        "".join(f"{h}\n" for h in FILE_HEADER) + f"{line(NEW)}\n{line(ATTR)}\n{full[:30]}")
    async with cell(base) as master:
        assert await master.report((2, ATTR), (3, START)) == {2, 3}
    assert body(base) == [line(NEW), line(ATTR), full]


async def test_a_record_that_cannot_be_formatted_is_not_confirmed(tmp_path):
    base = make_cell(tmp_path)
    bad = ArRecord(kind="ar_attribute", time=1, ar=AR)
    async with cell(base) as master:
        await master.sock.send([p.encode(p.ReportRecord(seq=1, record=bad))])
        assert await master.report((2, NEW)) == {2}
    assert body(base) == [line(NEW)]


def finished(job_id: int, submitted: float = 100.0, seq: int | None = None) -> p.AccountTask:
    job = new_job(job_id, JobSpec(name="j", owner="u", group="g"), now=submitted)
    task = job.tasks[0]
    task.state, task.queue, task.host = "done", "all.q@vm", "vm"
    task.start_time, task.end_time = submitted + 10, submitted + 20 + job_id
    return p.AccountTask(seq=job_id if seq is None else seq, job=job, task=task)


async def account(master: Master, *tasks: p.AccountTask) -> set[int]:
    for msg in tasks:
        await master.sock.send([p.encode(msg)])
    confirmed: set[int] = set()
    with trio.fail_after(10):
        while not {t.seq for t in tasks} <= confirmed:
            confirmed.update(p.decode((await master.sock.recv())[0]).seqs)
    return confirmed


async def test_reporting_params_choose_the_files_and_the_database_follows_them(tmp_path):
    base = make_cell(tmp_path)
    async with cell(base) as master:
        await master.sock.send([p.encode(p.ReportingParams(accounting=False, reporting=True,
                                                 flush_time=0.05))])
        assert await account(master, finished(1)) == {1}
        await master.sock.send([p.encode(p.ReportingParams(accounting=False, reporting=False,
                                                 flush_time=0.05))])
        assert await account(master, finished(2)) == {2}  # confirmed, written nowhere
        await master.sock.send([p.encode(p.ReportingParams(accounting=True, reporting=False,
                                                 flush_time=0.05))])
        assert await account(master, finished(3)) == {3}
    assert [ln.split(":")[1] for ln in body(base)] == ["acct"]
    assert body(base)[0].split(":")[7] == "1"  # the job number after time:acct:
    assert accounted_jobs(base) == ["3"]
    con = duckdb.connect(str(paths.reporting_db(base)), read_only=True)
    jobs = [job for (job,) in con.execute("SELECT job_number FROM accounting ORDER BY 1")
            .fetchall()]
    con.close()
    assert jobs == [1, 3]


async def test_after_a_spool_restore_reused_seqs_and_job_ids_lose_no_record(tmp_path):
    base = make_cell(tmp_path)
    async with cell(base) as master:
        assert await account(master, finished(1), finished(2)) == {1, 2}
    # the spool restored from a backup taken while seq 1 waited in the outbox, before job
    # 2 was submitted: the master resends seq 1, and gives seq and job id 2 out again
    async with cell(base) as master:
        assert await account(master, finished(1), finished(2, submitted=500.0)) == {1, 2}
    assert accounted_jobs(base) == ["1", "2", "2"]
    con = duckdb.connect(str(paths.reporting_db(base)), read_only=True)
    rows = con.execute("SELECT job_number, epoch(submission_time)::BIGINT FROM accounting "
                       "ORDER BY 1, 2").fetchall()
    con.close()
    assert rows == [(1, 100), (2, 100), (2, 500)]


def jsonl_jobs(base: Path) -> list[int]:
    """The job numbers of accounting.jsonl's lines."""
    lines = paths.accounting_json_file(base).read_text().splitlines()
    return [json.loads(line)["job_number"] for line in lines]


async def test_the_accounting_form_switches_and_a_resent_record_is_not_written_again(tmp_path):
    """accounting_format=json writes accounting.jsonl, colon the accounting file; after a
    restart the tails of both tell what is written, whichever form is on now."""
    base = make_cell(tmp_path)
    async with accounting_on_pair(base, accounting_format="json", flush_time=0.05) as sock:
        master = Master(sock)
        assert await account(master, finished(1)) == {1}
        await sock.send([p.encode(p.ReportingParams(flush_time=0.05))])
        assert await account(master, finished(2)) == {2}
    async with accounting_on_pair(base, accounting_format="json", flush_time=0.05) as sock:
        assert await account(Master(sock), finished(1), finished(2), finished(3)) == {1, 2, 3}
    assert jsonl_jobs(base) == [1, 3]
    assert accounted_jobs(base) == ["2"]
    con = duckdb.connect(str(paths.reporting_db(base)), read_only=True)
    jobs = con.execute("SELECT job_number FROM accounting ORDER BY 1").fetchall()
    con.close()
    assert jobs == [(1,), (2,), (3,)]


def vouched(base: Path) -> bool:
    """Whether the marker vouches for the accounting file as it is (whole_history)."""
    file_state = whole_history.state(paths.accounting_file(base))
    marked = whole_history.marked(paths.accounting_whole(base))
    return marked is not None and marked == file_state


async def test_the_file_is_vouched_for_while_it_holds_every_record_of_the_database(tmp_path):
    base = make_cell(tmp_path)
    async with cell(base) as master:
        assert await account(master, finished(1), finished(2)) == {1, 2}
        assert vouched(base)
    async with cell(base) as master:  # a new life judges the file at its start
        with trio.fail_after(10):
            while not vouched(base):
                await trio.sleep(0.01)
        await master.sock.send([p.encode(p.ReportingParams(accounting=False, reporting=True,
                                                           flush_time=0.05))])
        assert await account(master, finished(3)) == {3}  # in the database alone
        assert not paths.accounting_whole(base).exists()
    async with cell(base) as master:
        assert await account(master, finished(4)) == {4}
        assert not paths.accounting_whole(base).exists()
    assert accounted_jobs(base) == ["1", "2", "4"]


async def test_a_rotated_file_is_not_vouched_for(tmp_path):
    base = make_cell(tmp_path)
    async with cell(base) as master:
        assert await account(master, finished(1)) == {1}
        assert vouched(base)
        paths.accounting_file(base).rename(tmp_path / "accounting.0")
        assert await account(master, finished(2)) == {2}
        assert accounted_jobs(base) == ["2"] and not paths.accounting_whole(base).exists()


async def test_qacct_reads_from_a_vouched_file_what_the_database_answers(tmp_path, utc):
    base = make_cell(tmp_path)
    async with cell(base) as master:
        assert await account(master, finished(5), finished(6), finished(7)) == {5, 6, 7}
    con = duckdb.connect(str(paths.reporting_db(base)), read_only=True)

    def run(sql: str, params: object) -> query.Result:
        return query.execute(con, sql, params)

    for job in (5, 6, 7):
        text = qacct_quick.printed(paths.common_dir(base), job)
        assert text is not None and (text, "", 0) == qacct.printed(["-j", str(job)], run, 0)
    assert qacct_quick.printed(paths.common_dir(base), 9) is None  # the database says
    con.close()
