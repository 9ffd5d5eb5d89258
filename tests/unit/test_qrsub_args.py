"""qrsub option handling: every switch, the default request files, and refusals.

Times are read in UTC (the reference transcripts were taken on a UTC machine); `NOW` is
the moment AR 1 of the advance_reservation transcript was granted.
"""

from __future__ import annotations

import pytest

from gridd import protocol as p
from gridd.cli import common, qrdel, qrsub
from gridd.cli.qrsub_args import QrsubError, parse_qrsub, request_files
from gridd.client import GriddError, Refused
from gridd.formats.requests import PE_SLOTS_UNBOUNDED
from gridd.manual.help_text import help_text
from gridd.model.ar import ArSpec

NOW = 1795327142  # 2026-11-22 05:59:02 UTC
ROOT = "/gridd"
HOME = "/home/ann"


pytestmark = pytest.mark.usefixtures("utc")  # dates as the transcripts show them


def parse(*argv: str, files: dict[str, str] | None = None) -> ArSpec:
    request = parse_qrsub(list(argv), now=NOW, root=ROOT, home=HOME,
                          read_file=(files or {}).get, owner="ann", group="staff")
    assert not request.help
    return request.spec


def refused(*argv: str, files: dict[str, str] | None = None) -> QrsubError:
    with pytest.raises(QrsubError) as info:
        parse(*argv, files=files)
    assert info.value.exit_code == 1
    return info.value


# ---- switches ----------------------------------------------------------------------

def test_duration_only_leaves_start_and_end_to_the_master():
    spec = parse("-d", "0:10:0")
    assert (spec.start, spec.end, spec.duration) == (None, None, 600.0)
    assert (spec.owner, spec.group) == ("ann", "staff")
    assert spec == ArSpec(owner="ann", group="staff", duration=600.0)


def test_duration_in_seconds():
    assert parse("-d", "90").duration == 90.0
    assert parse("-d", "1:30").duration == 90.0


def test_start_and_end_dates():
    spec = parse("-N", "futr2", "-a", "202611220859.17", "-e", "11220959")
    assert spec.start == 1795337957.0  # 2026-11-22 08:59:17
    assert spec.end == 1795341540.0  # 2026-11-22 09:59:00, year of now
    assert spec.duration is None
    assert spec.name == "futr2"


def test_start_with_duration_and_pe():
    spec = parse("-N", "futr", "-a", "11220759", "-d", "1:00:00", "-pe", "mpi", "3")
    assert spec.start == 1795334340.0
    assert spec.duration == 3600.0
    assert (spec.pe_name, spec.pe_min, spec.pe_max) == ("mpi", 3, 3)


@pytest.mark.parametrize(("text", "low", "high"), [
    ("4", 4, 4), ("2-8", 2, 8), ("-6", 1, 6), ("3-", 3, PE_SLOTS_UNBOUNDED), ("8-2", 2, 8),
])
def test_pe_slot_ranges(text, low, high):
    spec = parse("-d", "60", "-pe", "smp", text)
    assert (spec.pe_name, spec.pe_min, spec.pe_max) == ("smp", low, high)


def test_account_checkpoint_and_name():
    spec = parse("-d", "60", "-A", "proj", "-ckpt", "blcr", "-N", "night")
    assert (spec.account, spec.checkpoint, spec.name) == ("proj", "blcr", "night")


def test_defaults_when_not_given():
    spec = parse("-d", "60")
    assert spec.account == "sge"
    assert spec.hard_error is False
    assert spec.immediate is False
    assert spec.verify == "e"
    assert spec.resources == {} and spec.queues == [] and spec.users == []


@pytest.mark.parametrize(("word", "value"), [
    ("y", True), ("yes", True), ("YES", True), ("n", False), ("no", False),
])
def test_yes_no_switches(word, value):
    assert parse("-d", "60", "-he", word).hard_error is value
    assert parse("-d", "60", "-now", word).immediate is value


def test_resources_merge_in_order_and_keep_values_as_given():
    spec = parse("-d", "60", "-l", "license=2,arch=lx-amd64", "-l", "h=node1", "-l",
                 "license=3", "-l", "gpu")
    assert spec.resources == {"arch": "lx-amd64", "h": "node1", "license": "3",
                              "gpu": "TRUE"}
    assert list(spec.resources) == ["arch", "h", "license", "gpu"]


@pytest.mark.parametrize(("text", "options"), [
    ("b", "b"), ("e", "e"), ("a", "a"), ("eb", "be"), ("bea", "abe"), ("n", ""),
])
def test_mail_options(text, options):
    assert parse("-d", "60", "-m", text).mail_options == options


def test_mail_list_adds_up():
    spec = parse("-d", "60", "-M", "ann@node1,bob", "-M", "carl@x")
    assert spec.mail_list == ["ann@node1", "bob", "carl@x"]


def test_queue_lists_and_users():
    spec = parse("-d", "60", "-q", "all.q,short.q@node*", "-q", "*@@linux",
                 "-masterq", "all.q@node1", "-u", "ann,@arusers")
    assert spec.queues == ["all.q", "short.q@node*", "*@@linux"]
    assert spec.master_queues == ["all.q@node1"]
    assert spec.users == ["ann", "@arusers"]


@pytest.mark.parametrize("mode", ["e", "v"])
def test_verify_modes(mode):
    assert parse("-d", "60", "-w", mode).verify == mode


def test_later_option_wins():
    spec = parse("-d", "60", "-d", "120", "-N", "a", "-N", "b", "-A", "x", "-A", "y")
    assert (spec.duration, spec.name, spec.account) == (120.0, "b", "y")


def test_help():
    request = parse_qrsub(["-d", "60", "-help"], now=NOW, root=ROOT, home=HOME,
                          read_file={}.get)
    assert request.help


# ---- default request files ---------------------------------------------------------

def test_request_file_locations():
    assert request_files(ROOT, HOME) == ["/gridd/common/sge_ar_request",
                                         "/home/ann/.sge_ar_request"]


def test_request_files_then_command_line():
    files = {
        "/gridd/common/sge_ar_request": "-A cluster -l license=1 -q all.q -M ops\n"
                                        "# a comment\n-he yes -N global\n",
        "/home/ann/.sge_ar_request": "-A mine -l arch=lx-amd64 -q short.q -q long.q -M ann",
    }
    spec = parse("-d", "60", "-N", "cli", files=files)
    assert spec.account == "mine"  # the user's file wins over the cluster's
    assert spec.name == "cli"  # the command line wins over both
    assert spec.hard_error is True  # only the cluster file says it
    assert spec.resources == {"license": "1", "arch": "lx-amd64"}  # -l merges
    assert spec.queues == ["short.q", "long.q"]  # -q of a later source replaces
    assert spec.mail_list == ["ops", "ann"]  # -M adds up


def test_command_line_resources_override_file_values():
    files = {"/gridd/common/sge_ar_request": "-l license=1,h_rt=1:0:0"}
    spec = parse("-d", "60", "-l", "license=4", files=files)
    assert spec.resources == {"h_rt": "1:0:0", "license": "4"}


def test_times_from_a_request_file():
    spec = parse("-N", "x", files={"/home/ann/.sge_ar_request": "-d 0:30:0"})
    assert spec.duration == 1800.0


def test_bad_option_in_a_request_file_names_the_file():
    error = refused("-d", "60", files={"/home/ann/.sge_ar_request": "-bogus"})
    assert error.message == '/home/ann/.sge_ar_request: invalid option argument "-bogus"'
    assert not error.usage
    error = refused("-d", "60", files={"/gridd/common/sge_ar_request": "-a 99999999"})
    assert error.message == ('/gridd/common/sge_ar_request: Wrong date/time format '
                             '"99999999" specified to -a option')
    assert error.preamble == "\nInvalid month specification.\n"


def test_unparsable_request_file():
    error = refused("-d", "60", files={"/home/ann/.sge_ar_request": '-N "open'})
    assert error.message.startswith("/home/ann/.sge_ar_request: cannot parse")


def test_cli_reads_files_under_gridd_root_and_home(tmp_path, monkeypatch):
    root, home = tmp_path / "root", tmp_path / "home"
    (root / "common").mkdir(parents=True)
    home.mkdir()
    (root / "common" / "sge_ar_request").write_text("-A fromroot -pe smp 2\n")
    (home / ".sge_ar_request").write_text("-A fromhome\n")
    monkeypatch.setenv("GRIDD_ROOT", str(root))
    monkeypatch.setenv("HOME", str(home))
    spec = qrsub._parse(["-d", "0:10:0"]).spec
    assert spec.account == "fromhome"
    assert (spec.pe_name, spec.pe_min, spec.pe_max) == ("smp", 2, 2)
    assert spec.duration == 600.0
    assert spec.owner and spec.group


# ---- refusals ----------------------------------------------------------------------

def test_no_options_at_all_shows_the_usage():
    error = refused()
    assert error.usage and error.message == "no option argument"


def test_unknown_option_is_said_without_the_usage():
    error = refused("-d", "60", "-x")  # as 8.1.9 says it
    assert not error.usage and error.message == 'invalid option argument "-x"'


def test_positional_argument_is_an_unknown_option():
    # (8.1.9 ignores the word and grants the AR: gridd says it takes none.)
    error = refused("-d", "60", "script.sh")
    assert not error.usage and error.message == 'invalid option argument "script.sh"'


@pytest.mark.parametrize(("option", "wanted"), [
    ("-a", "argument"), ("-d", "argument"), ("-e", "argument"), ("-l", "argument"),
    ("-N", "argument"), ("-w", "argument"), ("-u", "a list usernames"),
    ("-q", "queue list argument"), ("-masterq", "queue list argument"),
    ("-pe", "pe_name argument")])
def test_missing_argument_says_what_is_wanted(option, wanted):
    error = refused(option)  # as 8.1.9 says it, without the usage
    assert not error.usage and error.message == f"{option} option must have {wanted}"


def test_pe_needs_two_arguments():
    error = refused("-d", "60", "-pe", "mpi")
    assert not error.usage and error.message == "-pe option must have range as 2nd argument"


@pytest.mark.parametrize(("argv", "message"), [  # 8.1.9's words (checked there)
    (["-a", "13xx"], 'Wrong date/time format "13xx" specified to -a option'),
    (["-a", "11311200"], 'Wrong date/time format "11311200" specified to -a option'),
    (["-e", "tomorrow"], 'Wrong date/time format "tomorrow" specified to -e option'),
    (["-d", "1:x"], 'Wrong time format "1:x" specified to -d option'),
    (["-d", "INFINITY"], 'Wrong time format "INFINITY" specified to -d option'),
    (["-d", "60", "-he", "maybe"], 'invalid option argument "-he maybe"'),
    (["-d", "60", "-now", "x"], 'invalid option argument "-now x"'),
    (["-d", "60", "-m", "s"], 'Wrong mail options list format "s" specified to -m option'),
    (["-d", "60", "-m", "bn"], 'Wrong mail options list format "bn" specified to -m option'),
    (["-d", "60", "-w", "w"], 'invalid option argument "-w w"'),
    (["-d", "60", "-pe", "mpi", "x"],
     'Numerical value invalid!\nThe initial portion of string "x" contains no decimal number'),
    (["-d", "60", "-l", "=5"], 'Wrong resource list format "=5" specified to -l option'),
    (["-d", "60", "-N", "a/b"], "argument to -N option must not contain / "),
])
def test_bad_values(argv, message):
    error = refused(*argv)
    assert error.message == message
    assert not error.usage


# ---- the command's output and exit codes (no master needed) ------------------------

def test_main_without_options(capsys):
    assert qrsub.main([]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == help_text("qrsub") + "ERROR! no option argument\n"


def test_main_unknown_option(capsys):
    assert qrsub.main(["-x"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == 'qrsub: invalid option argument "-x"\n'


def test_main_missing_argument(capsys):
    assert qrsub.main(["-d"]) == 1
    assert capsys.readouterr().err == "qrsub: -d option must have argument\n"


def test_main_help(capsys):
    assert qrsub.main(["-help"]) == 0
    out, err = capsys.readouterr()
    assert out == help_text("qrsub") and err == ""
    assert out.startswith("SGE 8.1.9\nusage: qrsub [options]\n")


def test_main_bad_date(capsys):
    assert qrsub.main(["-a", "0101xx00", "-d", "60"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == ('\nInvalid format of date/hour-minute field.\n'
                   'qrsub: Wrong date/time format "0101xx00" specified to -a option\n')


# ---- qrsub and qrdel with a stand-in master ----------------------------------------

class FakeClient:
    """Records requests; answers with `answer` (an Ok) or raises it (a GriddError)."""

    answer: object = None
    sent: list[tuple] = []

    def __enter__(self) -> FakeClient:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def _reply(self, *request: object) -> p.Ok:
        FakeClient.sent.append(request)
        if isinstance(self.answer, GriddError):
            raise self.answer
        return self.answer

    def ar_submit(self, spec, host=""):
        return self._reply("ar_submit", spec, host)

    def ar_delete(self, targets, user, users=None, force=False):
        return self._reply("ar_delete", targets, user, users, force)


@pytest.fixture
def master(monkeypatch, tmp_path):
    monkeypatch.setenv("GRIDD_ROOT", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(common, "Client", FakeClient)
    monkeypatch.setattr(qrdel, "current_user", lambda: "root")
    monkeypatch.setattr(FakeClient, "sent", [])
    return FakeClient


def test_qrsub_prints_the_grant(master, monkeypatch, capsys):
    monkeypatch.setattr(master, "answer",
                        p.Ok(lines=["Your advance reservation 2 has been granted"]))
    assert qrsub.main(["-d", "0:10:0"]) == 0
    assert capsys.readouterr() == ("Your advance reservation 2 has been granted\n", "")
    (kind, spec, host), = master.sent
    assert kind == "ar_submit" and spec.duration == 600.0 and host


def test_qrsub_prints_a_refusal_on_stdout_with_its_code(master, monkeypatch, capsys):
    monkeypatch.setattr(master, "answer", Refused(
        "rejected: only 1 advance reservations are allowed per cluster", 25))
    assert qrsub.main(["-d", "0:01:00"]) == 25
    assert capsys.readouterr() == (
        "rejected: only 1 advance reservations are allowed per cluster\n", "")


def test_qrdel_sends_targets_and_prints_the_answer(master, monkeypatch, capsys):
    monkeypatch.setattr(master, "answer", p.Ok(lines=[
        "root has deleted advance_reservation 4",
        'denied: advance_reservation "99" does not exist'], code=1))
    assert qrdel.main(["4,night", "99", "-f", "-u", "ann"]) == 1
    assert master.sent == [("ar_delete", ["4", "night", "99"], "root", ["ann"], True)]
    assert capsys.readouterr().out == (
        'root has deleted advance_reservation 4\n'
        'denied: advance_reservation "99" does not exist\n')


def test_qrdel_refusal_on_stdout(master, monkeypatch, capsys):
    monkeypatch.setattr(master, "answer", Refused(
        'roland - you do not have the necessary privileges to delete the '
        'advance_reservation "2"', 1))
    assert qrdel.main(["2"]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("roland - you do not have") and err == ""


def test_an_unreachable_master_is_reported_on_stderr(master, monkeypatch, capsys):
    monkeypatch.setattr(master, "answer", GriddError("error: no answer from qmaster", 1))
    assert qrsub.main(["-d", "0:01:00"]) == 1
    assert capsys.readouterr() == ("", "error: no answer from qmaster\n")


def test_qrdel_without_a_list(capsys):  # each after the usage, in 8.1.9's words
    for argv in ([], ["-f"], ["-u"]):
        assert qrdel.main(argv) == 1
        assert capsys.readouterr() == ("", help_text("qrdel") + "ERROR! no option argument\n")
    assert qrdel.main(["-x"]) == 1
    assert capsys.readouterr() == ("", help_text("qrdel") + 'error: invalid option argument "-x"\n')
    assert qrdel.main(["-help"]) == 0
    assert capsys.readouterr() == (help_text("qrdel"), "")
