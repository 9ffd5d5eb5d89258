"""Every spooling method keeps what the master hands it, exactly, and all or nothing.

The same tests run over each method of gridd.spool.methods, so that `gridd spool convert`
may move a spool from one to the other without losing anything; the tests at the end are
the classic method's own (its journal, its file layout, its text forms).
"""

from __future__ import annotations

import errno
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from gridd import durable
from gridd.formats.objects import SPOOL_KEY_WIDTHS, print_object
from gridd.formats.qconf_objects import to_pairs
from gridd.master.bootstrap import CellConfig, initial_config
from gridd.master.state import MasterState
from gridd.model.ar import AdvanceReservation, ArRecord, ArSpec
from gridd.model.cluster import ExecHost
from gridd.model.config import Userset
from gridd.model.job import JobSpec, PeTask, Task, Usage, new_job
from gridd.model.objects import HostGroup, Project, User
from gridd.model.report import ConfigRecord, HostRecord, JobRecord, QueueRecord
from gridd.model.rqs import Filter, Limit, Rule, RuleSet, Term
from gridd.spool import classic_spool
from gridd.spool.base import Spool, SpoolError
from gridd.spool.classic_spool import ClassicSpool, escape, job_dir, unescape
from gridd.spool.methods import METHODS, open_spool
from gridd.spool.records import TYPES, records, restore, task_key

NOW = 1_700_000_000.25

_msgpack = msgspec.msgpack.Encoder()


@pytest.fixture(params=METHODS)
def method(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def spool_dir(tmp_path: Path) -> Path:
    return tmp_path / "qmaster"


@pytest.fixture
def spool(spool_dir: Path, method: str) -> Iterator[Spool]:
    opened = open_spool(spool_dir, method)
    yield opened
    opened.close()


def _reopen(spool: Spool, spool_dir: Path) -> Spool:
    spool.close()
    return open_spool(spool_dir, spool.method)


def _state() -> MasterState:
    """A cell with at least one object of every kind, and values that test the forms:
    overrides, optional attributes, an array job, floats, an infinite total."""
    state = MasterState()
    initial_config(state, CellConfig(hosts=["node1", "node2"], slots=4, manager="alice",
                                      machine="head"))
    cfg = state.config
    cfg.queues["all.q"].slots = "4,[node1=2]"
    cfg.queues["short.q"] = msgspec.structs.replace(cfg.queues["all.q"], qname="short.q",
                                                    h_rt="0:10:0", hostlist="@linux")
    cfg.usersets["staff"] = Userset("staff", type="ACL DEPT", fshare=10, entries=["alice", "bob"])
    cfg.usersets["odd"] = Userset("odd", entries=["NONE"])  # qconf would read no entries
    cfg.hostgroups["@linux"] = HostGroup(group_name="@linux", hostlist="node1 node2")
    cfg.projects["proj1"] = Project(name="proj1", oticket="100", acl="staff")
    cfg.users["alice"] = User(name="alice", fshare="5", delete_time="1795572439")
    cfg.rqs["max_slots"] = RuleSet(name="max_slots", description='"per user"', rules=[
        Rule(users=Filter(True, ["*"]), limits=[Limit("slots", "10")]),
        Rule(name="big", hosts=Filter(False, ["@linux"], ["node2"]),
             limits=[Limit("h_vmem", "4G")]),
        Rule(hosts=Filter(True, ["*"]),  # a dynamic limit: as written, and parsed
             limits=[Limit("slots", "$p*2-1", [Term(2.0, "num_proc"), Term(-1.0)])]),
    ])
    cfg.host_confs["node1"] = {"xterm": "/usr/bin/xterm", "mailer": "/bin/mail"}
    cfg.host_confs["node2"] = {"mailer": " leading blank"}  # qconf strips it
    cfg.sched.max_reservation = "10"
    cfg.conf.max_advance_reservations = "5"
    cfg.operators.append("bob")

    single = new_job(1, JobSpec(name="sleep", owner="alice", command=["/bin/sleep", "1"],
                                env={"PATH": "/bin", "Z": "1", "A": "2"}), NOW)
    array = new_job(2, JobSpec(name="arr", owner="bob", array=(1, 10, 3),
                               hard_resources={"h_rt": "60"}, script="#!/bin/sh\necho hi\n"),
                    NOW + 1)
    array.tasks[4] = Task(task_id=4, state="r", start_time=NOW + 2, queue="all.q@node1",
                          host="node1", granted=[("all.q@node1", 1)],
                          usage=Usage(wallclock=1.5, maxvmem=1e9), rerun=True,
                          given_up=NOW + 1.5,  # its first run given up on an unknown host
                          pe_tasks={"1.node2": PeTask(  # a task of qrsh -inherit, ended
                              pe_task_id="1.node2", host="node2", command=["orted"],
                              queue="all.q@node2", requested=NOW + 3, start_time=NOW + 3,
                              end_time=NOW + 4, exit_status=2, usage=Usage(utime=0.5),
                              done=True, seq=2)})
    state.jobs = {1: single, 2: array}
    state.hosts["node1"].load = {"load_avg": "0.50", "arch": "lx-amd64"}
    state.hosts["node1"].last_report = NOW
    ar = AdvanceReservation(ar_id=1, spec=ArSpec(name="r1", owner="alice", start=NOW,
                                                 duration=3600.0),
                            submission_time=NOW, start=NOW, end=NOW + 3600,
                            granted=[("all.q@node1", 2)])
    state.ars = {1: ar}
    state.outbox = {1: (1, 0), 2: (2, 4)}
    state.reports = {
        1: JobRecord(kind="new_job", time=NOW, job_id=1, task_id=-1, name="sleep",
                     owner="alice", group="users", project="", department="defaultdepartment",
                     account="sge", priority=1024, submission_time=NOW),
        2: ConfigRecord(time=NOW, kind="queue", key="gone.q", body=None),
        3: ArRecord(kind="new_ar", time=NOW, ar=ar),
        4: QueueRecord(kind="queue_consumable", time=NOW, queue="all.q", host="node1",
                       values=[("slots", 1.0, float("inf"))]),
        5: HostRecord(kind="host", time=NOW, host="node1", load=[("load_avg", "0.5")]),
    }
    state.next_job_id, state.next_seq, state.next_ar_id = 3, 6, 2
    state.flags = {"all.q@node1": "d"}
    return state


def _write(spool: Spool, objects: list[tuple[str, str, Any]]) -> None:
    tx = spool.prepare()
    for kind, key, obj in objects:
        if obj is None:
            tx.delete_object(kind, key)
        else:
            tx.spool_object(kind, key, obj)
    tx.commit()


def _contents(spool: Spool) -> dict[tuple[str, str], bytes]:
    """What the spool holds, each object as msgpack: equal only if exactly equal (types,
    float values, dict order)."""
    found: dict[tuple[str, str], bytes] = {}
    for kind, key, obj in spool.read_all():
        assert (kind, key) not in found
        found[(kind, key)] = _msgpack.encode(obj)
    return found


def _expected(objects: list[tuple[str, str, Any]]) -> dict[tuple[str, str], bytes]:
    return {(kind, key): _msgpack.encode(obj) for kind, key, obj in objects}


def _hosts(*names: str) -> list[tuple[str, str, Any]]:
    return [("host", name, ExecHost(name=name)) for name in names]


# ---- every method ------------------------------------------------------------------------


def test_every_kind_comes_back_exactly(spool: Spool, spool_dir: Path) -> None:
    state = _state()
    objects = list(records(state))
    assert {kind for kind, _, _ in objects} == set(TYPES)
    _write(spool, objects)
    assert _contents(spool) == _expected(objects)  # before a restart, too
    spool = _reopen(spool, spool_dir)
    try:
        assert _contents(spool) == _expected(objects)
        restored = restore(spool.read_all())
        for kind, key, obj in spool.read_all():
            assert type(obj) is type(dict(((k, y), o) for k, y, o in objects)[(kind, key)])
    finally:
        spool.close()
    assert restored == state
    for name in ("usersets", "queues", "host_confs", "rqs"):
        assert list(getattr(restored.config, name)) == list(getattr(state.config, name))
    assert restored.config.host_confs["node1"] == state.config.host_confs["node1"]
    assert list(restored.config.host_confs["node1"]) == ["xterm", "mailer"]


def test_a_dynamic_limit_spooled_as_text_alone_comes_back_parsed(spool: Spool) -> None:
    """Spools written before dynamic limits were kept parsed hold their text alone, which
    the scheduler would take for no limit at all."""
    state = _state()
    state.config.rqs["max_slots"].rules[2].limits = [Limit("slots", "$p*2-1")]
    _write(spool, list(records(state)))
    restored = restore(spool.read_all())
    assert restored.config.rqs["max_slots"].rules[2].limits == [
        Limit("slots", "$p*2-1", [Term(2.0, "num_proc"), Term(-1.0)])]


def test_deleted_objects_are_gone(spool: Spool, spool_dir: Path) -> None:
    state = _state()
    _write(spool, list(records(state)))
    gone = [("job", "2", None)] + [("task", task_key(2, t), None) for t in state.jobs[2].tasks]
    gone += [("host", "node1", None), ("report", "3", None), ("outbox", "1", None),
             ("queue", "short.q", None)]
    _write(spool, gone)
    spool = _reopen(spool, spool_dir)
    try:
        found = _contents(spool)
    finally:
        spool.close()
    expected = _expected(list(records(state)))
    for kind, key, _ in gone:
        del expected[(kind, key)]
    assert found == expected


def test_a_later_change_replaces_an_earlier_one(spool: Spool, spool_dir: Path) -> None:
    _write(spool, [("counter", "next_job_id", 5), ("host", "n", ExecHost(name="n"))])
    tx = spool.prepare()
    tx.spool_object("counter", "next_job_id", 6)
    tx.spool_object("counter", "next_job_id", 7)
    tx.spool_object("host", "n", ExecHost(name="n", last_report=1.5))
    tx.commit()
    _write(spool, [("flags", "cell", {"q@n": "d"}), ("flags", "cell", None)])
    _write(spool, [("flags", "cell", {"q@n": "s"})])
    expected = _expected([("counter", "next_job_id", 7),
                          ("host", "n", ExecHost(name="n", last_report=1.5)),
                          ("flags", "cell", {"q@n": "s"})])
    assert _contents(spool) == expected
    spool = _reopen(spool, spool_dir)
    try:
        assert _contents(spool) == expected
    finally:
        spool.close()


def test_many_transactions_survive_a_restart(spool: Spool, spool_dir: Path) -> None:
    """More transactions than a classic checkpoint interval, the last ones unchecked."""
    for n in range(1, 151):
        _write(spool, [("counter", "next_job_id", n), *_hosts(f"h{n}")])
    spool = _reopen(spool, spool_dir)
    try:
        found = _contents(spool)
    finally:
        spool.close()
    expected = _expected([("counter", "next_job_id", 150),
                          *_hosts(*(f"h{n}" for n in range(1, 151)))])
    assert found == expected


def test_keys_any_characters(spool: Spool, spool_dir: Path) -> None:
    keys = ["a/b", "@group", ".hidden", "..", "%41", "", "x y", "ünïcode", "a\nb", "%"]
    objects = [("host", key, ExecHost(name=key)) for key in keys]
    _write(spool, objects)
    spool = _reopen(spool, spool_dir)
    try:
        assert _contents(spool) == _expected(objects)
    finally:
        spool.close()


def test_backup_opens_as_the_same_spool(spool: Spool, tmp_path: Path, method: str) -> None:
    objects = list(records(_state()))
    _write(spool, objects)
    spool.backup(tmp_path / "backup" / method)
    _write(spool, _hosts("later"))  # the copy is independent of the original
    copy = open_spool(tmp_path / "backup", method)
    try:
        assert _contents(copy) == _expected(objects)
    finally:
        copy.close()
    assert ("host", "later") in _contents(spool)


def _break_writes(spool: Spool, monkeypatch: pytest.MonkeyPatch) -> str:
    """Make the spool's next write fail as a full disk does; the words it will give."""
    if isinstance(spool, ClassicSpool):
        def full(fd: int, data: bytes) -> None:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(durable, "write_all", full)  # the journal's write: the commit
        return "No space left on device"

    class FullDisk:
        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def executemany(self, *args: object) -> None:
            raise sqlite3.OperationalError("database or disk is full")

        def __getattr__(self, name: str) -> Any:
            return getattr(self.db, name)

    monkeypatch.setattr(spool, "db", FullDisk(spool.db))  # type: ignore[attr-defined]
    return "database or disk is full"


def test_a_failed_write_leaves_nothing(spool: Spool, spool_dir: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    before = [("counter", "next_job_id", 1), *_hosts("a", "b")]
    _write(spool, before)
    words = _break_writes(spool, monkeypatch)
    with pytest.raises(SpoolError, match=f"cannot write the spool: .*{words}"):
        _write(spool, [("counter", "next_job_id", 2), ("host", "a", None), *_hosts("c")])
    assert _contents(spool) == _expected(before)
    monkeypatch.undo()
    spool = _reopen(spool, spool_dir)
    try:
        assert _contents(spool) == _expected(before)
        _write(spool, _hosts("d"))  # and the spool still works
        assert _contents(spool) == _expected([*before, *_hosts("d")])
    finally:
        spool.close()


def _empty(spool: Spool) -> bool:
    return next(spool.read_all(), None) is None


def test_empty(spool: Spool, spool_dir: Path) -> None:
    assert _empty(spool)
    _write(spool, _hosts("a"))
    assert not _empty(spool)
    _write(spool, [("host", "a", None)])
    assert _empty(spool)
    _write(spool, [("task", "7.1", Task(task_id=1))])
    spool = _reopen(spool, spool_dir)
    try:
        assert not _empty(spool)
    finally:
        spool.close()


def test_an_undecodable_object_is_named(spool: Spool, spool_dir: Path) -> None:
    _write(spool, _hosts("good"))
    if isinstance(spool, ClassicSpool):
        (spool.path / "hosts" / "broken").write_bytes(b"\x00garbage\n")
    else:
        spool.db.execute(  # type: ignore[attr-defined]
            "INSERT INTO objects (kind, key, body) VALUES ('host', 'broken', x'c1')")
    with pytest.raises(SpoolError, match="broken"):
        list(spool.read_all())


# ---- the classic method ------------------------------------------------------------------


@pytest.fixture
def classic(tmp_path: Path) -> Iterator[ClassicSpool]:
    spool = ClassicSpool(tmp_path / "classic")
    yield spool
    spool.close()


class _Crash(BaseException):
    """The process dies here."""


def _journals(spool: ClassicSpool) -> list[str]:
    return sorted(name for name in os.listdir(spool.path / "journal") if name.isdigit())


def test_a_crash_after_the_commit_point_loses_nothing(
        classic: ClassicSpool, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(classic, _hosts("a"))

    def crash(self: ClassicSpool, entries: object) -> None:
        raise _Crash

    monkeypatch.setattr(ClassicSpool, "_apply", crash)
    with pytest.raises(_Crash):
        _write(classic, [("host", "a", None), *_hosts("b")])
    monkeypatch.undo()
    assert not (classic.path / "hosts" / "b").exists()  # never applied
    assert len(_journals(classic)) == 2
    again = ClassicSpool(classic.path)  # the restart after the crash
    try:
        assert _contents(again) == _expected(_hosts("b"))
        assert _journals(again) == []  # replayed, checkpointed
        assert (classic.path / "hosts" / "b").exists()
    finally:
        again.close()


def test_a_change_that_cannot_be_applied_yet_is_still_committed(
        classic: ClassicSpool, monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(self: ClassicSpool, directory: str, name: str, content: bytes) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(ClassicSpool, "_put_file", failing)
    _write(classic, _hosts("a"))  # durable in the journal: no error
    _write(classic, [("host", "a", None), *_hosts("b")])
    assert _contents(classic) == _expected(_hosts("b"))
    assert not _empty(classic)
    assert len(_journals(classic)) == 2
    monkeypatch.undo()
    _write(classic, _hosts("c"))  # applies all three, in order
    assert not (classic.path / "hosts" / "a").exists()
    assert (classic.path / "hosts" / "b").exists()
    classic.close()
    again = ClassicSpool(classic.path)
    try:
        assert _contents(again) == _expected(_hosts("b", "c"))
        assert _journals(again) == []
    finally:
        again.close()


def test_an_uncommitted_journal_is_ignored(tmp_path: Path) -> None:
    spool = ClassicSpool(tmp_path / "classic")
    _write(spool, _hosts("a"))
    spool.close()
    half = tmp_path / "classic" / "journal" / ".2.tmp"
    half.write_bytes(b"\x93half a transac")
    spool = ClassicSpool(tmp_path / "classic")
    try:
        assert _contents(spool) == _expected(_hosts("a"))
        assert not half.exists()
    finally:
        spool.close()


def test_a_journal_older_than_the_checkpoint_is_not_replayed(tmp_path: Path) -> None:
    """A deleted journal that a crash brings back must not undo later changes."""
    spool = ClassicSpool(tmp_path / "classic")
    _write(spool, [("counter", "next_job_id", 1)])
    first = (tmp_path / "classic" / "journal" / _journals(spool)[0]).read_bytes()
    _write(spool, [("counter", "next_job_id", 2)])
    spool.close()  # checkpoint: both journals applied and deleted
    (tmp_path / "classic" / "journal" / f"{1:012d}").write_bytes(first)
    spool = ClassicSpool(tmp_path / "classic")
    try:
        assert _journals(spool) == []  # below the mark: deleted, not replayed
        assert _contents(spool) == _expected([("counter", "next_job_id", 2)])
        _write(spool, [("counter", "next_job_id", 3)])  # numbered after the mark
        assert int(_journals(spool)[-1]) > 2
    finally:
        spool.close()
    spool = ClassicSpool(tmp_path / "classic")
    try:
        assert _contents(spool) == _expected([("counter", "next_job_id", 3)])
    finally:
        spool.close()


def test_another_reader_sees_committed_journals(classic: ClassicSpool) -> None:
    _write(classic, _hosts("a"))
    reader = ClassicSpool(classic.path)
    try:
        _write(classic, [("host", "a", None), *_hosts("b")])
        assert _contents(reader) == _expected(_hosts("b"))
    finally:
        reader.close()


def test_job_directories_stay_small(classic: ClassicSpool) -> None:
    """A 20,000-task array spreads over directories of 1,000 tasks; 100,000 jobs over
    directories of at most 10,000."""
    assert job_dir(12345) == "jobs/0000/0001/2345"
    per_directory = Counter(os.path.dirname(job_dir(job_id)) for job_id in range(1, 100_001))
    assert max(per_directory.values()) <= 10_000
    job = new_job(12345, JobSpec(name="big", array=(1, 20_000, 1)), NOW)
    objects = [("job", "12345", msgspec.structs.replace(job, tasks={}))]
    objects += [("task", task_key(12345, t), task) for t, task in job.tasks.items()]
    _write(classic, objects)
    root = classic.path / "jobs" / "0000" / "0001" / "2345"
    assert (root / "job").is_file()
    assert (root / "7").is_file()
    assert (root / "20000-20999" / "20000").is_file()
    largest = max(len(files) + len(dirs) for _, dirs, files in os.walk(classic.path))
    assert largest <= 1000 + 1 + 20  # the job's directory: tasks 0-999, header, 20 more
    assert len(_contents(classic)) == 20_001
    _write(classic, [(kind, key, None) for kind, key, _ in objects])
    assert not (classic.path / "jobs" / "0000" / "0001" / "2345").exists()


def test_configuration_files_are_what_qconf_prints(classic: ClassicSpool) -> None:
    state = _state()
    _write(classic, list(records(state)))
    queue = (classic.path / "config" / "queue" / "all.q").read_text()
    pairs = to_pairs(state.config.queues["all.q"])
    assert queue == print_object(pairs, width=SPOOL_KEY_WIDTHS["queue"], spool=True)
    assert "slots                 4,[node1=2]\n" in queue
    staff = (classic.path / "config" / "userset" / "staff").read_text()
    assert "entries alice,bob\n" in staff and "type    ACL DEPT\n" in staff
    # what qconf would read differently is kept in the generic form
    assert (classic.path / "config" / "userset" / "odd").read_text().startswith(
        "# gridd fields")
    assert (classic.path / "config" / "host_conf" / "node2").read_text().endswith(
        '\nvalue\t{"mailer":" leading blank"}\n')
    assert (classic.path / "config" / "host_conf" / "node1").read_text().endswith(
        "xterm                        /usr/bin/xterm\nmailer                       /bin/mail\n")
    assert (classic.path / "config" / "rqs" / "max_slots").read_bytes().startswith(
        b"# gridd fields")


def test_other_objects_are_one_line_per_field(classic: ClassicSpool) -> None:
    state = _state()
    _write(classic, list(records(state)))
    task = (classic.path / "jobs/0000/0000/0002/4").read_text().splitlines()
    assert task[0].startswith("# gridd fields")
    assert 'state\t"r"' in task and 'granted\t[["all.q@node1",1]]' in task
    header = (classic.path / "jobs/0000/0000/0002/job").read_text()
    assert "\njob_id\t2\n" in header and "\ntasks\t{}\n" in header
    counter = (classic.path / "counters" / "next_job_id").read_text()
    assert counter.splitlines()[1:] == ["value\t3"]
    report = (classic.path / "reports" / "0-999" / "1").read_text().splitlines()
    assert report[1] == 'type\t"job"'
    # JSON has no infinity: that record goes as msgpack, and still comes back exactly
    assert (classic.path / "reports" / "0-999" / "4").read_text().startswith("# gridd msgpack")


def test_file_names_escape_reversibly() -> None:
    for key in ["a/b", ".x", "", "%", "%2E", "all.q", "@linux", "node-1_a+b", "ü", "a b"]:
        name = escape(key)
        assert unescape(name) == key
        assert "/" not in name and not name.startswith(".") and name
    assert escape("all.q") == "all.q" and escape("@linux") == "@linux"
    assert unescape("a%zz") is None and unescape("%41") is None


def test_an_unexpected_file_is_named(classic: ClassicSpool) -> None:
    _write(classic, [("task", "3.1", Task(task_id=1))])
    (classic.path / "jobs/0000/0000/0003/stray").write_text("x")
    with pytest.raises(SpoolError, match="stray"):
        list(classic.read_all())


def test_a_garbage_config_file_is_named(classic: ClassicSpool) -> None:
    (classic.path / "config" / "queue").mkdir(parents=True)
    (classic.path / "config" / "queue" / "bad.q").write_text("qname bad.q\nslots lots\n")
    with pytest.raises(SpoolError, match="bad.q"):
        list(classic.read_all())


_WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from gridd.model.cluster import ExecHost
    from gridd.spool import classic_spool
    from gridd.spool.base import Change

    classic_spool.CHECKPOINT_EVERY = 7
    spool = classic_spool.ClassicSpool(Path(sys.argv[1]))
    n = 0
    while True:
        n += 1
        changes = [Change("counter", "n", n), Change("flags", "cell", {"n": str(n)})]
        changes += [Change("host", f"h{n}.{i}", ExecHost(name=f"h{n}.{i}", last_report=n))
                    for i in range(50)]
        changes += [Change("host", f"h{n - 1}.{i}", None) for i in range(50)]
        spool.write(changes)
        print(n, flush=True)
""")


@pytest.mark.parametrize("delay", [0.0, 0.05, 0.2])
def test_sigkill_at_any_moment_keeps_transactions_whole(tmp_path: Path, delay: float) -> None:
    """A writer killed mid-stream: on reopening, the spool holds exactly one transaction's
    state, and at least the last one acknowledged."""
    path = tmp_path / "classic"
    writer = subprocess.Popen([sys.executable, "-c", _WRITER, str(path)],
                              stdout=subprocess.PIPE, text=True)
    assert writer.stdout is not None
    acknowledged = 0
    while acknowledged < 10:
        acknowledged = int(writer.stdout.readline())
    time.sleep(delay)
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    acknowledged = max([acknowledged, *(int(line) for line in writer.stdout)])
    spool = ClassicSpool(path)
    try:
        state = {(kind, key): obj for kind, key, obj in spool.read_all()}
    finally:
        spool.close()
    n = state.pop(("counter", "n"))
    assert isinstance(n, int) and n >= acknowledged
    assert state.pop(("flags", "cell")) == {"n": str(n)}
    assert state == {("host", f"h{n}.{i}"): ExecHost(name=f"h{n}.{i}", last_report=n)
                     for i in range(50)}


def test_a_half_written_object_file_gives_way_to_its_journal(
        classic: ClassicSpool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk fills while applying: the journal is whole, the file is not."""
    _write(classic, _hosts("a"))
    def half(fd: int, data: bytes) -> None:
        durable.write_all(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    # The object files' writes, not the journal's (durable.write_synced).
    monkeypatch.setattr(classic_spool, "write_all", half)
    changed = [("host", "a", ExecHost(name="a", last_report=2.0))]
    _write(classic, changed)
    assert _contents(classic) == _expected(changed)
    monkeypatch.undo()
    again = ClassicSpool(classic.path)
    try:
        assert _contents(again) == _expected(changed)
    finally:
        again.close()


def test_a_generic_file_edited_by_hand_still_reads(classic: ClassicSpool) -> None:
    _write(classic, [("host", "n1", ExecHost(name="n1", last_report=1.0))])
    path = classic.path / "hosts" / "n1"
    header, *lines = path.read_text().splitlines()
    edited = [line.replace("\t", "   ") for line in lines if not line.startswith("load")]
    path.write_text("\n".join([header, "", *edited, ""]).replace("1.0", "2.5"))
    assert _contents(classic) == _expected([("host", "n1", ExecHost(name="n1",
                                                                    last_report=2.5))])
