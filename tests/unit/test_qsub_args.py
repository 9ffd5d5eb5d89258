"""qsub option handling: sources and their precedence, job bodies, and refusals.

The expected messages and exit codes are the ones Grid Engine 8.1.9's qsub gives
(reference transcripts and `qsub -verify` runs against the reference install).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gridd.cli.qsub_args import QsubError, QsubRequest, parse_qsub
from gridd.formats.requests import PE_SLOTS_UNBOUNDED
from gridd.formats.submitted import unable_to_run

NOW = 1_795_000_000.0  # when a date without a year falls in 2026
ENV = {
    "HOME": "/home/ann",
    "PATH": "/usr/bin:/bin",
    "SHELL": "/bin/bash",
    "LOGNAME": "ann",
    "MAIL": "/var/mail/ann",
    "TZ": "UTC",
    "B": "bee",
}

SCRIPT = """#!/bin/sh
#$ -N scripted
#$ -l h_rt=0:2:0 -q a.q
echo hello
#$ -l mem=1G
#$ -p 5 # trailing comment
  #$ -A indented_is_ignored
#% -P from_percent
"""


def submit(
    *argv: str,
    files: dict[str, str] | None = None,
    stdin: str = "",
    environ: dict[str, str] | None = None,
) -> QsubRequest:
    """parse_qsub with a fake file system rooted at /work (cwd) and /home/ann."""
    known = {"/work/job.sh": SCRIPT, **(files or {})}
    return parse_qsub(
        list(argv),
        environ=ENV if environ is None else environ,
        cwd="/work",
        read_file=known.get,
        home="/home/ann",
        root="/gridd",
        user="ann",
        uid=1001,
        group="staff",
        gid=50,
        host="node1",
        stdin_text=lambda: stdin,
        now=NOW,
    )


def refusal(*argv: str, **kwargs: object) -> tuple[str, int]:
    with pytest.raises(QsubError) as info:
        submit(*argv, **kwargs)  # type: ignore[arg-type]
    return info.value.message, info.value.exit_code


# --- job bodies ---------------------------------------------------------------------


def test_binary_job_takes_command_verbatim() -> None:
    spec = submit("-b", "y", "/bin/sleep", "60", "a b").spec
    assert spec.binary
    assert spec.name == "sleep"
    assert spec.command == ["/bin/sleep", "60", "a b"]
    assert spec.args == ["60", "a b"]
    assert spec.script_name == "/bin/sleep"
    assert spec.script == ""


def test_binary_job_name_keeps_blanks_for_the_master_to_judge() -> None:
    assert submit("-b", "y", "exit 7").spec.name == "exit 7"


def test_identity_and_submission_environment() -> None:
    spec = submit("-b", "y", "true").spec
    assert (spec.owner, spec.uid, spec.group, spec.gid) == ("ann", 1001, "staff", 50)
    assert spec.submit_host == "node1"
    assert spec.o_home == "/home/ann"
    assert spec.o_path == "/usr/bin:/bin"
    assert spec.o_shell == "/bin/bash"
    assert spec.o_workdir == "/work"
    assert spec.o_logname == "ann"
    assert spec.o_mail == "/var/mail/ann"
    assert spec.o_tz == "UTC"
    assert spec.mail_list == ["ann@node1"]
    assert spec.env == {}
    assert spec.cwd == ""


def test_missing_environment_falls_back_to_account_data() -> None:
    spec = submit("-b", "y", "true", environ={}).spec
    assert spec.o_home == "/home/ann"
    assert spec.o_logname == "ann"
    assert spec.o_path == ""


def test_script_job_reads_directives_anywhere_in_the_script() -> None:
    spec = submit("job.sh", "arg1", "arg2").spec
    assert not spec.binary
    assert spec.name == "scripted"
    assert spec.script == SCRIPT
    assert spec.script_name == "job.sh"
    assert spec.command == ["job.sh", "arg1", "arg2"]
    assert spec.args == ["arg1", "arg2"]
    assert spec.hard_resources == {"h_rt": "0:2:0", "mem": "1G"}
    assert spec.hard_queues == ["a.q"]
    assert spec.priority == 5
    assert spec.account == "sge"
    assert spec.project == ""


def test_script_name_defaults_to_basename() -> None:
    spec = submit("sub/plain.sh", files={"/work/sub/plain.sh": "echo hi\n"}).spec
    assert spec.name == "plain.sh"
    assert spec.script_name == "sub/plain.sh"


def test_absolute_script_path_is_read_as_is() -> None:
    spec = submit("/abs/run.sh", files={"/abs/run.sh": "#$ -N abs\n"}).spec
    assert spec.name == "abs"


def test_command_line_beats_directives_and_resources_merge() -> None:
    spec = submit("-N", "cmdline", "-l", "h_rt=20", "job.sh").spec
    assert spec.name == "cmdline"
    assert list(spec.hard_resources.items()) == [("mem", "1G"), ("h_rt", "20")]


def test_options_after_the_script_are_script_arguments() -> None:
    spec = submit("job.sh", "-N", "x").spec
    assert spec.name == "scripted"
    assert spec.args == ["-N", "x"]


def test_directive_prefix_can_be_changed_or_disabled() -> None:
    spec = submit("-C", "#%", "job.sh").spec
    assert spec.project == "from_percent"
    assert spec.name == "job.sh"
    assert submit("-C", "", "job.sh").spec.hard_resources == {}


def test_binary_jobs_ignore_directives() -> None:
    spec = submit("-b", "y", "job.sh").spec
    assert spec.name == "job.sh"
    assert spec.hard_resources == {}


def test_b_n_is_a_script_job() -> None:
    assert submit("-b", "n", "job.sh").spec.name == "scripted"


def test_script_from_stdin() -> None:
    spec = submit(stdin="#$ -l h_rt=5\necho hi\n").spec
    assert spec.name == "STDIN"
    assert spec.script_name == "STDIN"
    assert spec.script == "#$ -l h_rt=5\necho hi\n"
    assert spec.hard_resources == {"h_rt": "5"}


def test_double_dash_passes_arguments_to_a_stdin_script() -> None:
    spec = submit("-N", "s", "--", "a", "b", stdin="echo $1\n").spec
    assert spec.script_name == "STDIN"
    assert spec.args == ["a", "b"]


def test_dask_jobqueue_style_script() -> None:
    script = "#!/bin/bash\n#$ -N dask-worker\n#$ -cwd\n#$ -j y\n#$ -l h_rt=00:30:00\npython -m x\n"
    spec = submit("dask.sh", files={"/work/dask.sh": script}).spec
    assert (spec.name, spec.cwd, spec.merge) == ("dask-worker", "/work", True)
    assert spec.hard_resources == {"h_rt": "00:30:00"}


# --- default request files and option files ---------------------------------------


def test_request_files_are_read_in_order_and_overridden() -> None:
    files = {
        "/gridd/common/sge_request": "-N cluster -A acct1\n# a comment\n-P p1\n",
        "/home/ann/.sge_request": "-N user -A acct2\n",
        "/work/.sge_request": "-N here # comment\n",
    }
    spec = submit("-b", "y", "true", files=files).spec
    assert (spec.name, spec.account, spec.project) == ("here", "acct2", "p1")
    assert submit("-N", "cli", "-b", "y", "true", files=files).spec.name == "cli"


def test_request_files_come_before_directives() -> None:
    files = {"/work/.sge_request": "-N fromreq -l aa=1,h_rt=5\n"}
    spec = submit("job.sh", files=files).spec
    assert spec.name == "scripted"
    assert spec.hard_resources == {"aa": "1", "h_rt": "0:2:0", "mem": "1G"}


def test_what_accumulates_across_sources() -> None:
    files = {"/work/.sge_request": "-l aa=1 -q r.q -hold_jid 5 -v X=1 -M m@a\n"}
    spec = submit(
        "-l", "bb=2", "-q", "c.q", "-hold_jid", "6", "-v", "Y=2", "-M", "n@b",
        "-b", "y", "true", files=files,
    ).spec
    assert spec.hard_resources == {"aa": "1", "bb": "2"}
    assert spec.hard_queues == ["c.q"]
    assert spec.hold_jid == ["5", "6"]
    assert spec.env == {"X": "1", "Y": "2"}
    assert spec.mail_list == ["m@a", "n@b"]


def test_queue_lists_add_up_within_one_source() -> None:
    spec = submit("-q", "all.q,short.q", "-q", "long.q", "-b", "y", "true").spec
    assert spec.hard_queues == ["all.q", "short.q", "long.q"]


def test_option_file() -> None:
    files = {"/work/opts": "-N fromat\n-l h_rt=7 # c\n"}
    for argv in (("-@", "opts", "-b", "y", "true"), ("-b", "y", "-@", "opts", "true")):
        spec = submit(*argv, files=files).spec
        assert (spec.name, spec.hard_resources) == ("fromat", {"h_rt": "7"})


def test_option_file_missing() -> None:
    message, code = refusal("-@", "nope", "-b", "y", "true")
    assert "nope" in message and code == 4


def test_option_files_cannot_recurse_forever() -> None:
    message, code = refusal("-@", "loop", "-b", "y", "true", files={"/work/loop": "-@ loop"})
    assert "nested" in message and code == 2


# --- individual options --------------------------------------------------------------


def test_cwd_and_wd_last_one_wins() -> None:
    assert submit("-wd", "/var", "-cwd", "-b", "y", "true").spec.cwd == "/work"
    assert submit("-cwd", "-wd", "/var", "-b", "y", "true").spec.cwd == "/var"
    assert submit("-wd", "rel", "-b", "y", "true").spec.cwd == "rel"


def test_environment_export() -> None:
    assert submit("-v", "A=1,B", "-v", "C", "-b", "y", "true").spec.env == {
        "A": "1",
        "B": "bee",
        "C": "",
    }
    full = submit("-V", "-v", "B=override", "-b", "y", "true").spec.env
    assert full == {**ENV, "B": "override"}


def test_output_options() -> None:
    spec = submit(
        "-o", "/x/$JOB_ID.out,host:/y", "-e", "err", "-j", "y", "-S", "/bin/sh",
        "-b", "y", "true",
    ).spec
    assert spec.stdout_path == ["/x/$JOB_ID.out", "host:/y"]
    assert spec.stderr_path == ["err"]
    assert spec.merge
    assert spec.shell == "/bin/sh"


def test_scheduling_options() -> None:
    spec = submit(
        "-pe", "mpi", "2-4", "-R", "y", "-p", "-100", "-h", "-ar", "5", "-A", "acct",
        "-P", "proj", "-t", "1-6:2", "-hold_jid", "1,foo", "-b", "y", "true",
    ).spec
    assert (spec.pe_name, spec.pe_min, spec.pe_max) == ("mpi", 2, 4)
    assert spec.reserve and spec.hold
    assert spec.priority == -100
    assert spec.ar == 5
    assert (spec.account, spec.project) == ("acct", "proj")
    assert spec.array == (1, 6, 2)
    assert spec.hold_jid == ["1", "foo"]


@pytest.mark.parametrize(
    ("slots", "low", "high"), [("3", 3, 3), ("-3", 1, 3), ("3-", 3, PE_SLOTS_UNBOUNDED)]
)
def test_pe_ranges(slots: str, low: int, high: int) -> None:
    spec = submit("-pe", "smp", slots, "-b", "y", "true").spec
    assert (spec.pe_min, spec.pe_max) == (low, high)


def test_mail_and_notify() -> None:
    spec = submit("-m", "bea", "-M", "a@b,c", "-notify", "-b", "y", "true").spec
    assert spec.mail_options == "abe"
    assert spec.mail_list == ["a@b", "c"]
    assert spec.notify


def test_soft_and_hard_requests() -> None:
    spec = submit(
        "-soft", "-l", "a=1", "-q", "x.q", "-hard", "-l", "b=2", "-b", "y", "true"
    ).spec
    assert spec.hard_resources == {"b": "2"}
    assert spec.soft_resources == {"a": "1"}
    assert spec.soft_queues == ["x.q"]
    assert spec.hard_queues == []


def test_soft_mode_does_not_leak_into_the_next_source() -> None:
    files = {"/work/.sge_request": "-soft -l a=1\n"}
    spec = submit("-l", "b=2", "-b", "y", "true", files=files).spec
    assert spec.soft_resources == {"a": "1"}
    assert spec.hard_resources == {"b": "2"}


def test_client_flags() -> None:
    request = submit("-terse", "-sync", "y", "-now", "yes", "-w", "v", "-b", "y", "true")
    assert request.terse and request.sync and request.now
    assert request.verify == "v"
    assert request.spec.sync and request.spec.immediate and request.spec.verify == "v"
    assert not request.verify_only and not request.help
    plain = submit("-b", "y", "true")
    assert not (plain.terse or plain.sync or plain.now) and plain.verify == ""


def test_later_flag_overrides_earlier() -> None:
    assert not submit("-sync", "y", "-sync", "n", "-b", "y", "true").sync
    assert submit("-w", "e", "-w", "p", "-b", "y", "true").verify == "p"
    assert submit("-t", "1-2", "-t", "4", "-b", "y", "true").spec.array == (4, 4, 1)


def test_help_and_verify_only() -> None:
    assert submit("-help").help
    assert submit("-N", "x", "-help", "no_such_script").help
    assert submit("-verify", "-b", "y", "true").verify_only


def test_bare_resource_name_means_true() -> None:
    assert submit("-l", "arch", "-b", "y", "true").spec.hard_resources == {"arch": "TRUE"}


@given(
    st.dictionaries(
        st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True),
        st.from_regex(r"[A-Za-z0-9:.*]{1,8}", fullmatch=True),
        min_size=1,
        max_size=6,
    )
)
def test_resource_requests_round_trip(resources: dict[str, str]) -> None:
    text = ",".join(f"{name}={value}" for name, value in resources.items())
    assert submit("-l", text, "-b", "y", "true").spec.hard_resources == resources


@given(st.lists(st.from_regex(r"[a-z]{1,5}=[0-9]{1,3}", fullmatch=True), max_size=6))
def test_repeated_l_equals_one_combined_l(items: list[str]) -> None:
    separate = [arg for item in items for arg in ("-l", item)]
    combined = ["-l", ",".join(items)] if items else []
    assert (
        submit(*separate, "-b", "y", "true").spec.hard_resources
        == submit(*combined, "-b", "y", "true").spec.hard_resources
    )


# --- refusals ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message", "code"),
    [
        (["-p", "2000", "-b", "y", "true"],
         'qsub: invalid priority "2000".  Must be an integer from -1023 to 1024', 7),
        (["-p", "abc", "-b", "y", "true"],
         'qsub: invalid priority "abc".  Must be an integer from -1023 to 1024', 7),
        (["-b", "y"], "qsub: command required for a binary job", 2),
        (["-b", "y", "--", "echo"], "qsub: command required for a binary job", 2),
        (["-N", "a/b", "-b", "y", "true"], "qsub: argument to -N option must not contain / ", 2),
        (["-x"], 'qsub: invalid option argument "-x"', 2),
        (["-"], 'qsub: invalid option argument "-"', 2),
        (["-N"], "qsub: -N option must have argument", 2),
        # 8.1.9 names what some options want.
        (["-pe", "mpi"], "qsub: -pe option must have range as 2nd argument", 2),
        (["-pe"], "qsub: -pe option must have pe_name argument", 2),
        (["-q"], "qsub: -q option must have queue list argument", 2),
        (["-t"], "qsub: -t option must have a list of task id ranges", 2),
        (["-dc"], "qsub: -dc option must have a simple_context_list list argument", 2),
        (["-he", "x"], 'qsub: invalid option argument "-he x"', 7),
        (["-ot", "x"], "qsub: invalid override tickets, must be an unsigned integer", 2),
        (["-j", "maybe", "-b", "y", "true"], 'qsub: invalid option argument "-j maybe"', 7),
        (["-b", "maybe", "true"], 'qsub: invalid option argument "-b maybe"', 7),
        (["-w", "x", "-b", "y", "true"], 'qsub: invalid option argument "-w x"', 7),
        (["-l", "=5", "-b", "y", "true"],
         'qsub: Wrong resource list format "=5" specified to -l option', 7),
        (["-l", "h_rt=", "-b", "y", "true"],
         'Unable to run job: denied: missing value for resource "h_rt"\nExiting.', 1),
        (["-t", "0", "-b", "y", "true"],
         "Unable to run job: job rejected: 0 is an invalid task id\nExiting.", 1),
        (["-t", "1-5:0", "-b", "y", "true"],
         "qsub: Negative or zero step in range is not allowed", 7),
        (["-pe", "mpi", "x", "-b", "y", "true"],
         'qsub: Numerical value invalid!\nThe initial portion of string "x" contains no '
         "decimal number", 7),
        (["-m", "xyz", "-b", "y", "true"],
         'qsub: Wrong mail options list format "xyz" specified to -m option', 7),
        (["-v", "=3", "-b", "y", "true"],
         'qsub: Wrong variable list format -v "=3" or environment variable not set', 7),
        (["-ar", "abc", "-b", "y", "true"],
         "qsub: invalid advance reservation id, must be an unsigned integer", 2),
        (["/nonexistent/script.sh"],
         "Unable to read script file because of error: error opening "
         "/nonexistent/script.sh: No such file or directory", 14),
        ([], "Unable to read script file because of error: no input read from stdin", 4),
    ],
)
def test_refusals(argv: list[str], message: str, code: int) -> None:
    assert refusal(*argv) == (message, code)


def test_directive_errors_name_the_script() -> None:
    files = {"/work/bad.sh": "#$ -N a/b\necho\n"}
    assert refusal("bad.sh", files=files) == (
        "Unable to read script file because of error: argument to -N option must not contain / ",
        2,
    )


def test_directive_master_errors_read_the_same() -> None:
    files = {"/work/bad.sh": "#$ -t 0\n"}
    assert refusal("bad.sh", files=files)[1] == 1


def test_request_file_errors_are_unprefixed() -> None:
    files = {"/work/.sge_request": "-p abc\n"}
    assert refusal("-b", "y", "true", files=files) == (
        'invalid priority "abc".  Must be an integer from -1023 to 1024',
        7,
    )
    files = {"/work/.sge_request": "-bogus\n"}
    assert refusal("-b", "y", "true", files=files) == ('invalid option argument "-bogus"', 2)
    files = {"/work/.sge_request": "stray\n"}
    assert refusal("-b", "y", "true", files=files)[1] == 2


def test_unbalanced_quote_in_directive() -> None:
    message, code = refusal("q.sh", files={"/work/q.sh": '#$ -N "open\n'})
    assert message.startswith("Unable to read script file because of error: ")
    assert code == 7


def test_hash_ends_a_directive_even_inside_a_word() -> None:
    spec = submit("h.sh", files={"/work/h.sh": "#$ -o /tmp/a#b -A x\n"}).spec
    assert spec.stdout_path == ["/tmp/a"]
    assert spec.account == "sge"


@pytest.mark.usefixtures("utc")
def test_the_options_8_1_9_scripts_use_beyond_requests() -> None:
    """-a, -dl, -r, -shell, -ac/-sc/-dc, -binding, -js and -i, as 8.1.9 takes them; the
    context changes apply in order over every source (here a directive and the command
    line)."""
    script = "#!/bin/sh\n#$ -ac a=b,c\n#$ -r y\necho hi\n"
    spec = submit("-a", "202612312359", "-dl", "12312359.30", "-shell", "n", "-ac", "x=1",
                  "-dc", "a", "-binding", "linear:1", "-js", "10", "-i", "/dev/null",
                  "job.sh", files={"/work/job.sh": script}).spec
    assert spec.start_time == 1_798_761_540.0  # 2026-12-31 23:59 UTC
    assert spec.deadline == 1_798_761_570.0  # the year of NOW
    assert (spec.restart, spec.noshell, spec.jobshare, spec.stdin_path) == ("y", True, 10,
                                                                            "/dev/null")
    assert spec.context == {"c": "NONE", "x": "1"}
    assert spec.binding == "set linear:1"
    other = submit("-sc", "z=2", "-binding", "env", "striding:2:1", "-b", "y", "true").spec
    assert other.context == {"z": "2"} and other.binding == "env striding:2:1"
    assert submit("-hold_jid_ad", "5,x", "-t", "1-2", "-b", "y", "true").spec.hold_jid_ad == [
        "5", "x"]
    asked = submit("-ckpt", "blcr", "-c", "sx", "-masterq", "a.q,b.q", "-b", "y", "true").spec
    assert (asked.checkpoint, asked.checkpoint_when, asked.master_queues) == (
        "blcr", "sx", ["a.q", "b.q"])
    assert submit("-c", "0:10:0", "-b", "y", "true").spec.checkpoint_when == "0:10:0"
    plain = submit("-b", "y", "true").spec
    assert (plain.context, plain.stdin_path, plain.start_time, plain.deadline) == ({}, "", 0, 0)


@pytest.mark.parametrize("argv, text, code", [
    (("-a", "foo"), '\nInvalid format of date/hour-minute field.\n'
                    'qsub: Wrong date/time format "foo" specified to -a option', 7),
    (("-dl", "13991231"), '\nInvalid month specification.\n'
                          'qsub: Wrong date/time format "13991231" specified to -dl option',
     7),
    (("-r", "x"), 'qsub: invalid option argument "-r x"', 7),
    (("-shell", "x"), 'qsub: invalid option argument "-shell x"', 7),
    (("-js", "-5"), "qsub: invalid jobshare, must be an unsigned integer", 2),
    (("-binding", "foo"), "qsub: -binding option contains errors: couldn't parse binding "
     "parameter (no strategy found)", 2),
    (("-ac", ""), 'qsub: Wrong context list format -ac ""', 7),
    (("-c", "q"), "qsub: -c specifier invalid", 2),
    (("-ot", "5"), "qsub: Unknown option -ot 5\n", 5),
    (("-he", "y"), "qsub: Unknown option -he y\n", 5),
])
def test_those_options_refused_in_8_1_9s_words(argv: tuple[str, ...], text: str,
                                               code: int) -> None:
    """Checked on a real 8.1.9 (a bad date's detail line comes first)."""
    assert refusal(*argv, "-b", "y", "true") == (text, code)


def test_task_concurrency() -> None:
    """8.1.9: -tc takes an unsigned number (0: no limit); the master refuses one without
    -t (see test_master_core)."""
    assert submit("-t", "1-4", "-tc", "2", "-b", "y", "true").spec.task_concurrency == 2
    assert submit("-b", "y", "true").spec.task_concurrency == 0
    for bad in ("abc", "-1"):
        assert refusal("-t", "1-2", "-tc", bad, "-b", "y", "true") == (
            f'qsub: invalid task concurrency number "{bad}". Must be an integer greater or '
            "equal to 0.", 7)


def test_verify_shows_the_job_and_submits_nothing(tmp_path) -> None:
    """qsub -verify prints the job as qstat -j would, numbered "unassigned", without a
    master to ask (this root has none)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = dict(os.environ, GRIDD_ROOT=str(tmp_path))
    qsub = Path(sys.executable).parent / "qsub"
    out = subprocess.run([str(qsub), "-verify", "-b", "y", "-N", "vv", "-l", "h_rt=60",
                          "-t", "1-3", "true"], capture_output=True, text=True, env=env,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "job_number:                 unassigned"
    assert "hard resource_list:         h_rt=60" in lines
    assert "job_name:                   vv" in lines
    assert "job-array tasks:            1-3:1" in lines
    assert not any(line.startswith(("exec_file", "submission_time", "account"))
                   for line in lines)


def test_clear_forgets_what_was_read_before_it() -> None:
    """8.1.9 (qsub -verify there): on the command line -clear drops the request files, the
    script's directives and the options before it; in a script it drops the request files
    and the directives before it, and the command line still counts."""
    files = {"/work/.sge_request": "-p -5 -A fromfile\n",
             "/work/s2.sh": "#!/bin/sh\n#$ -N fromscript\n#$ -p -7\necho hi\n",
             "/work/s3.sh": "#!/bin/sh\n#$ -N fromscript\n#$ -clear\n#$ -q all.q\necho hi\n"}
    kept = submit("s2.sh", files=files).spec
    assert (kept.name, kept.priority, kept.account) == ("fromscript", -7, "fromfile")
    cleared = submit("-l", "h_rt=10", "-clear", "-q", "all.q", "s2.sh", files=files).spec
    assert (cleared.name, cleared.priority, cleared.account, cleared.hard_resources,
            cleared.hard_queues) == ("s2.sh", 0, "sge", {}, ["all.q"])
    in_script = submit("-l", "h_rt=10", "s3.sh", files=files).spec
    assert (in_script.name, in_script.priority, in_script.account, in_script.hard_resources,
            in_script.hard_queues) == ("s3.sh", 0, "sge", {"h_rt": "10"}, ["all.q"])
    assert not submit("-verify", "-clear", "-b", "y", "true").verify_only


def test_a_refusal_is_said_with_unable_to_run_job_once():
    """qsub and the web's submit page say a refused submission so: the master's refusals
    carry the words already, the others (a lost connection) get them."""
    said = "Unable to run job: job rejected: no project assigned to job"
    assert unable_to_run(said) == said
    assert unable_to_run("no answer from the master") == \
        "Unable to run job: no answer from the master"
