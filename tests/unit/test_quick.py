"""The quick forms of qstat, qdel and qsub (gridd.cli.quick) send the master the message
the whole command sends, and print its answer as the whole command prints it.

Both run in this process against a ROUTER socket standing in for the master (a cell
without security): it keeps each request's frame and answers with a canned reply. Each
form is run quick and whole, and the frames (decoded), standard output, standard error
and exit codes must be equal; the command lines no quick form takes must be left to the
whole command.
"""

from __future__ import annotations

import importlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import zmq
from hypothesis import given
from hypothesis import strategies as st

from gridd import connection, wire
from gridd import protocol as p
from gridd.actors.master import zone_named
from gridd.cli import qsub as whole_qsub
from gridd.cli import quick
from gridd.formats.qstat_rows import qstat_rows, qstat_rows_xml
from gridd.model.job_rows import JobRows, ShownRow


class FakeMaster:
    """A ROUTER on a free port answering every request with `reply` (its rid set to the
    request's); the requests' frames in `frames`."""

    def __init__(self) -> None:
        self.ctx = zmq.Context()
        self.router = self.ctx.socket(zmq.ROUTER)
        self.router.bind("tcp://127.0.0.1:*")
        self.endpoint = self.router.getsockopt_string(zmq.LAST_ENDPOINT)
        self.frames: list[bytes] = []
        self.reply: p.Msg = p.Ok()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            if self.router.poll(50):
                ident, frame = self.router.recv_multipart()
                self.frames.append(frame)
                self.reply.rid = p.decode(frame).rid
                self.router.send_multipart([ident, p.encode(self.reply)])

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        self.router.close(linger=0)
        self.ctx.term()


@pytest.fixture
def master(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMaster]:
    fake = FakeMaster()
    common = tmp_path / "root" / "common"
    common.mkdir(parents=True)
    (common / "security").write_text("none\n")
    (common / "master_endpoint").write_text(fake.endpoint + "\n")
    (tmp_path / "home").mkdir()
    (tmp_path / "work").mkdir()
    monkeypatch.setenv("GRIDD_ROOT", str(tmp_path / "root"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    # the home a submission names is the password database's (its .sge_request too)
    home = lambda: str(tmp_path / "home")  # noqa: E731
    monkeypatch.setattr(connection, "home_dir", home)
    monkeypatch.setattr(whole_qsub, "home_dir", home)
    monkeypatch.chdir(tmp_path / "work")
    yield fake
    fake.close()


def _both(master: FakeMaster, capsys: pytest.CaptureFixture[str], command: str,
          argv: list[str], reply: p.Msg) -> tuple[tuple, tuple]:
    """(request, exit code, stdout, stderr) of the quick form, then of the whole command."""
    runs = []
    for whole in (False, True):
        master.reply, master.frames = reply, []
        if whole:
            code = importlib.import_module(f"gridd.cli.{command}").main(list(argv))
        else:
            code = quick.run(command, list(argv))
            assert code is not None, f"{command} {argv} is a quick form"
        out, err = capsys.readouterr()
        requests = [p.decode(frame) for frame in master.frames]
        runs.append((requests, code, out, err))
    return runs[0], runs[1]


def _sent(run: tuple, kind: type) -> bool:
    """Whether the run sent one request of `kind`, or (its words not UTF-8) none and said
    why."""
    requests, code, out, err = run
    if not requests:
        return code == 1 and "cannot send text that is not UTF-8" in err
    return len(requests) == 1 and isinstance(requests[0], kind)


LISTING = p.Printed(text="job-ID  prior\n-------\n      7 0.5 ...\n")
REFUSED = p.Error(text="error: refused for a reason", code=2)


@pytest.mark.parametrize("argv", [[], ["-xml"], ["-u", "ann,bob"], ["-u", "*"],
                                  ["-xml", "-u", "x,,y"], ["-u", "-xml"], ["-u", "b\udcffd"]])
@pytest.mark.parametrize("reply", [LISTING, p.Printed(text=""), REFUSED])
def test_qstat(master: FakeMaster, capsys: pytest.CaptureFixture[str], argv: list[str],
               reply: p.Msg) -> None:
    fast, whole = _both(master, capsys, "qstat", argv, reply)
    assert fast == whole
    assert _sent(fast, p.QueryRows)


def test_qstat_names_the_time_zone(master: FakeMaster, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    for zone, sent in (("Asia/Tokyo", "Asia/Tokyo"), ("", "UTC")):
        monkeypatch.setenv("TZ", zone)
        fast, whole = _both(master, capsys, "qstat", [], LISTING)
        assert fast == whole and fast[0][0].zone == sent


@pytest.mark.parametrize("argv", [["7"], ["7,8", "9"], ["12345678901234"]])
@pytest.mark.parametrize("reply", [p.Ok(lines=["root has deleted job 7"]),
                                   p.Ok(lines=['denied: job "8" does not exist'], code=1),
                                   p.Ok(), REFUSED])
def test_qdel(master: FakeMaster, capsys: pytest.CaptureFixture[str], argv: list[str],
              reply: p.Msg) -> None:
    fast, whole = _both(master, capsys, "qdel", argv, reply)
    assert fast == whole
    assert isinstance(fast[0][0], p.Delete)


@pytest.mark.parametrize("argv", [["-b", "y", "true"], ["-h", "-b", "y", "sleep", "10"],
                                  ["-b", "y", "-h", "/bin/echo", "-n", "a b", "-h"],
                                  ["-b", "y", "ünïcode", "x"], ["-b", "y", "echo", "\udcff"]])
@pytest.mark.parametrize("reply", [
    p.Submitted(job_id=5, name="true"),
    p.Submitted(job_id=6, name="sleep", warnings=["warning: it may never run"]),
    p.Error(text="Unable to run job: denied: host \"vm\" is no submit host", code=1),
    p.Error(text="no such queue", code=2)])
def test_qsub(master: FakeMaster, capsys: pytest.CaptureFixture[str], argv: list[str],
              reply: p.Msg) -> None:
    fast, whole = _both(master, capsys, "qsub", argv, reply)
    assert fast == whole
    assert _sent(fast, p.Submit) and all(r.spec.binary for r in fast[0])


def test_qsub_with_its_environment(master: FakeMaster, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The SGE_O_* values come from the environment, and its absence."""
    for name in ("PATH", "SHELL", "MAIL", "LOGNAME", "TZ"):
        monkeypatch.delenv(name, raising=False)
    fast, whole = _both(master, capsys, "qsub", ["-b", "y", "true"], p.Submitted(job_id=1,
                                                                                 name="true"))
    assert fast == whole
    for name in ("PATH", "SHELL", "MAIL", "LOGNAME", "TZ"):
        monkeypatch.setenv(name, f"the {name}")
    monkeypatch.delenv("HOME")
    fast, whole = _both(master, capsys, "qsub", ["-b", "y", "true"], p.Submitted(job_id=1,
                                                                                 name="true"))
    assert fast == whole and fast[0][0].spec.o_shell == "the SHELL"


def test_an_unreachable_master_is_reported_alike(master: FakeMaster,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    endpoint = Path(os.environ["GRIDD_ROOT"], "common", "master_endpoint")
    master.close()
    endpoint.write_text(master.endpoint)  # nobody listens there any more
    for command, argv in (("qstat", []), ("qdel", ["3"]), ("qsub", ["-b", "y", "true"])):
        fast = (quick.run(command, argv), *capsys.readouterr())
        whole = importlib.import_module(f"gridd.cli.{command}").main(argv)
        outcomes = [fast, (whole, *capsys.readouterr())]
        assert outcomes[0] == outcomes[1] and outcomes[0][0] == 1
        assert "unable to contact qmaster" in outcomes[0][2]


@pytest.mark.parametrize(("command", "argv"), [
    ("qstat", ["-f"]), ("qstat", ["-u"]), ("qstat", ["-u", ","]), ("qstat", ["-j", "1"]),
    ("qstat", ["-s", "p"]), ("qdel", []), ("qdel", ["-f", "1"]), ("qdel", ["name"]),
    ("qdel", ["1.2"]), ("qdel", ["-u", "ann"]), ("qdel", ["١"]), ("qsub", ["true"]),
    ("qsub", ["-b", "y"]), ("qsub", ["-b", "n", "x"]), ("qsub", ["-b", "yes", "x"]),
    ("qsub", ["-N", "n", "-b", "y", "x"]), ("qsub", ["-b", "y", "--", "x"]),
    ("qhost", []), ("qacct", ["-j", "1"]),
])
def test_other_command_lines_are_left_to_the_whole_command(
        command: str, argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRIDD_ROOT", str(tmp_path))  # a cell without a database: qacct too
    assert quick.run(command, argv) is None


def test_qacct_without_a_master_is_left_to_the_whole_command(
        master: FakeMaster, tmp_path: Path) -> None:
    """Where no master answers, the whole qacct reads the database file itself."""
    (tmp_path / "root" / "common" / "reporting.duckdb").write_bytes(b"")
    master.close()
    assert quick.run("qacct", ["-j", "1"]) is None


@pytest.mark.parametrize("reply", [
    p.DbAnswer(text="==\njobnumber 1\n"), p.DbAnswer(error="error: job id 1 not found\n",
                                                      code=1)])
def test_qacct_prints_what_the_accounting_process_answers(
        master: FakeMaster, capsys: pytest.CaptureFixture[str], tmp_path: Path,
        reply: p.DbAnswer) -> None:
    (tmp_path / "root" / "common" / "reporting.duckdb").write_bytes(b"")
    master.reply = reply
    assert quick.run("qacct", ["-j", "1"]) == reply.code
    assert capsys.readouterr() == (reply.text, reply.error)
    (request,) = (p.decode(frame) for frame in master.frames)
    assert request == p.DbQuery(sql="", qacct=["-j", "1"], rid=1)


@pytest.mark.parametrize("where", ["root/common/sge_request", "home/.sge_request",
                                   "work/.sge_request"])
def test_qsub_with_a_default_request_file_is_left_to_the_whole_command(
        master: FakeMaster, tmp_path: Path, where: str) -> None:
    (tmp_path / where).write_text("-N fromfile\n")
    assert quick.run("qsub", ["-b", "y", "true"]) is None
    assert master.frames == []


def test_the_master_prints_times_in_the_zone_the_client_names(monkeypatch) -> None:
    """actors.master.zone_named and formats.shown.zoned: a zone the master does not know,
    or none, is its own."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        row = ShownRow(7, 0.5, "job", "ann", "qw", 1_800_000_000.0, "", 1, "", False)
        rows = JobRows(pending=[row])
        shown = {name: qstat_rows(rows, zone_named(name)).splitlines()[2].split()[5:7]
                 for name in ("", "UTC", ":Asia/Tokyo", "Asia/Tokyo", "Nowhere/Bogus",
                              "../../etc/passwd")}
    finally:
        monkeypatch.undo()
        time.tzset()
    assert shown["Asia/Tokyo"] == shown[":Asia/Tokyo"] == ["01/15/2027", "17:00:00"]
    assert shown[""] == shown["UTC"] == shown["Nowhere/Bogus"] == shown["../../etc/passwd"] \
        == ["01/15/2027", "08:00:00"]
    assert "2027-01-15T17:00:00" in qstat_rows_xml(rows, zone_named("Asia/Tokyo"))


WORDS = st.sampled_from(["-b", "y", "n", "-h", "-u", "-xml", "-j", "-f", "*", ",", "1", "12",
                         "1,2", "1.2", "true", "--", "-", "", "ann,bob", "١", "x y", "\udcff"])


@given(st.sampled_from(["qstat", "qdel", "qsub", "qacct"]), st.lists(WORDS, max_size=6))
def test_any_command_line_is_a_quick_request_or_left_alone(command: str,
                                                           argv: list[str]) -> None:
    """A form takes a command line or leaves it, never fails on it; what it takes is a
    message the master reads as one of its own."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(quick.os.path, "exists", lambda path: path.endswith(".duckdb"))
        request = quick._FORMS[command](list(argv))
    if request is None:
        return
    fields = request[1]
    try:
        frame = wire.pack({**fields, "v": wire.VERSION, "rid": 1})
    except UnicodeEncodeError:
        return  # said as the whole command says it (test_qsub, test_qstat)
    kinds = {"qstat": p.QueryRows, "qdel": p.Delete, "qsub": p.Submit, "qacct": p.DbQuery}
    assert isinstance(p.decode(frame), kinds[command])
