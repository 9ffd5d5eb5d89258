"""qrsh's and qlogin's command lines: qsub's options handed on, their own read here, and
the refusals in 8.1.9's words (each measured with 8.1.9's qrsh: `error: ...`, exit 1)."""

from __future__ import annotations

import pytest

from gridd.cli.qrsh_args import QrshError, QrshRequest, parse_qrsh

KEY = bytes(range(32))
ENV = {"HOME": "/home/ann", "PATH": "/usr/bin:/bin", "SHELL": "/bin/bash"}


def parse(*argv: str, program: str = "qrsh", env: dict[str, str] | None = None,
          files: dict[str, str] | None = None) -> QrshRequest:
    return parse_qrsh(
        list(argv), program=program, environ=dict(ENV if env is None else env),
        cwd="/work", read_file=(files or {}).get, home="/home/ann", root="/cell",
        user="ann", uid=1000, group="ann", gid=1000, host="sub", now=1_795_000_000.0,
        session_key=KEY)


def refused(*argv: str, **kw) -> str:
    with pytest.raises(QrshError) as caught:
        parse(*argv, **kw)
    assert caught.value.exit_code == 1
    return caught.value.message


def test_a_command_is_a_binary_job_named_after_its_first_word_and_immediate() -> None:
    req = parse("-l", "h_rt=60", "-q", "a.q", "/bin/echo a b", "c")
    spec = req.spec
    assert (spec.binary, spec.command, spec.name) == (True, ["/bin/echo a b", "c"], "echo")
    assert (spec.interactive, spec.pty, spec.session_key) == ("qrsh", False, KEY)
    assert spec.immediate and spec.hard_queues == ["a.q"]
    assert "h_rt" in spec.hard_resources
    assert not req.verbose and not req.pty
    assert parse("echo out; exit 3").spec.name == "echo"


def test_without_a_command_a_login_shell_on_a_pty_named_qrlogin() -> None:
    req = parse()
    assert (req.spec.command, req.spec.name, req.spec.pty, req.pty) == ([], "QRLOGIN", True,
                                                                        True)
    login = parse("-l", "a=1", program="qlogin")
    assert (login.spec.name, login.spec.interactive, login.pty, login.verbose) == (
        "QLOGIN", "qlogin", True, True)


def test_the_terminals_type_goes_with_the_job() -> None:
    """8.1.9's qrsh passes TERM (TERM=vt100 here gave TERM=vt100 in the job)."""
    assert parse("true", env={**ENV, "TERM": "vt100"}).spec.env == {"TERM": "vt100"}
    assert parse(program="qlogin", env={**ENV, "TERM": "xterm"}).spec.env == {"TERM": "xterm"}
    assert parse("-v", "TERM=dumb", "true", env={**ENV, "TERM": "vt100"}).spec.env == {
        "TERM": "dumb"}
    assert parse("true").spec.env == {}


def test_own_options_mix_with_qsubs() -> None:
    req = parse("-verbose", "-now", "n", "-pty", "y", "-N", "mine", "-noshell", "-nostdin",
                "ls", "-l")
    assert req.verbose and req.pty and req.nostdin
    assert (req.spec.name, req.spec.immediate, req.spec.noshell, req.spec.pty) == (
        "mine", False, True, True)
    assert req.spec.command == ["ls", "-l"]
    assert not parse("-pty", "no").pty


def test_option_files_may_hold_own_options() -> None:
    req = parse("-@", "opts", "true", files={"/work/opts": "-verbose -p -5\n"})
    assert req.verbose and req.spec.priority == -5


def test_sge_request_files_are_read_as_qsub_reads_them() -> None:
    req = parse("true", files={"/cell/common/sge_request": "-P proj\n"})
    assert req.spec.project == "proj"


@pytest.mark.parametrize("argv, message", [
    (["-x", "true"], 'error: invalid option argument "-x"'),
    (["-pty", "x", "true"], 'error: invalid option argument "-pty x"'),
    (["-now", "x", "true"], 'error: invalid option argument "-now x"'),
    (["-t", "1-2", "true"], "error: Unknown option -t"),
    (["-sync", "y", "true"], "error: Unknown option -sync"),
    (["-ot", "1", "true"], "error: Unknown option -ot"),
    (["-N"], "error: -N option must have argument"),
    (["-pty"], "error: -pty option must have argument"),
    (["-N", "a/b", "true"], "error: argument to -N option must not contain /"),
])
def test_refusals_in_8_1_9s_words(argv: list[str], message: str) -> None:
    assert refused(*argv) == message


def test_qlogin_takes_no_command_and_fewer_options() -> None:
    assert refused("bash", program="qlogin") == 'error: invalid option argument "bash"'
    assert refused("-cwd", program="qlogin") == "error: Unknown option -cwd"
    assert refused("-inherit", program="qlogin") == 'error: invalid option argument "-inherit"'


def test_help() -> None:
    assert parse("-l", "a=1", "-help").help


def test_inherit_needs_the_jobs_environment() -> None:
    assert refused("-inherit", "h", "true", env={}) == (
        'error: "qrsh" called with option "-inherit", but "JOB_ID" not set in environment')
    assert refused("-inherit", "h", "true", env={"JOB_ID": "99999"}) == (
        'error: executing task of job 99999 failed: missing "SGE_TASK_ID" in environment')
    assert "is not a job id" in refused("-inherit", "h", "true",
                                        env={"JOB_ID": "x", "SGE_TASK_ID": "1"})
    assert "needs a host and a command" in refused(
        "-inherit", "h", env={"JOB_ID": "7", "SGE_TASK_ID": "undefined"})


def test_inherit_names_host_command_and_task() -> None:
    env = {"JOB_ID": "7", "SGE_TASK_ID": "undefined"}
    req = parse("-inherit", "-nostdin", "-V", "node2", "orted", "-mca", "x", env=env)
    assert (req.inherit, req.host, req.command) == (True, "node2", ["orted", "-mca", "x"])
    assert (req.job_id, req.task_id, req.nostdin, req.env_all, req.pty) == (7, 0, True, True,
                                                                            False)
    array = parse("-inherit", "node2", "true", env={"JOB_ID": "7", "SGE_TASK_ID": "3"})
    assert (array.task_id, array.env_all, array.nostdin) == (3, False, False)
