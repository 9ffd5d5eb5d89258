"""The command lines: every q* command and `gridd`, fed random argv built from real options.

Where a command's parsing is a function of its own (parse_qsub, parse_qrsub, qacct's
parse_args, qconf's run_qconf in the master) that function is called directly, with the
files it reads (sge_request, option files, scripts, -A*/-M* files) fuzzed as well. The
other commands parse inside `main`, which is run with GRIDD_ROOT and HOME pointing at an
empty directory: a command line it refuses must come out as its usage message and exit
code, and one it takes must end in the normal "no gridd cell" message when the client
starts, never in a traceback. `gridd` itself is argparse: its subcommands are replaced by
stubs, so only the parsing runs, and a bad line exits with argparse's code 2.
"""

from __future__ import annotations

import io
import os
import re
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any
from unittest import mock

import msgspec

from gridd import protocol as p
from gridd.cli import (
    gridd_cmd,
    qacct,
    qalter,
    qconf,
    qdel,
    qhost,
    qmod,
    qquota,
    qrdel,
    qrstat,
    qrsub,
    qrsub_args,
    qstat,
    qsub_args,
)
from gridd.cli.qrsub_args import QrsubError, parse_qrsub
from gridd.cli.qsub_args import QsubError, QsubRequest, parse_qsub
from gridd.client import Client, GriddError
from gridd.master.admin import VERBS, Caller, run_qconf
from gridd.master.bootstrap import CellConfig, initial_config
from gridd.model.config import Configuration
from tests.fuzz.canned import canned_master
from tests.fuzz.mutate import Chooser, mutate_text, mutate_words
from tests.fuzz.targets import Target, Unexpected
from tests.fuzz.texts import COMPLEX_SEEDS, OBJECT_SEEDS, OBJECT_TOKENS, RQS_SEEDS

# Values any command might take: ids, ranges, lists, patterns, y/n, and awkward words.
COMMON_WORDS = (
    "1", "2", "0", "-1", "17.3", "1-10:2", "5-", "-8", "y", "n", "yes", "no", "all.q",
    "all.q@node1", "*@@linux", "@allhosts", "node1", "*", "ann", "ann,bob", "$user", "job1",
    "h_vmem=1G", "h_rt=0:1:0,arch=lx", "slots", "mpi", "smp", "2-4", "a=", "=", ",", "",
    "-", "--", "-help", "--help", "²", "\udcff", "a b", "#", "'", '"', "\\",
    "202401011230", "01011230.59", "1:0:0", "p", "r", "s", "z", "h", "a", "e", "bea",
)


# Surrogates other than U+DC80..U+DCFF (how surrogateescape carries a byte that is not
# UTF-8) cannot come from a command line or a file; no surrogate comes off the wire.
_FOREIGN_SURROGATES = re.compile("[\ud800-\udc7f\udd00-\udfff]")
_SURROGATES = re.compile("[\ud800-\udfff]")


def as_argv(word: str) -> str:
    """A word as sys.argv could hold it: no NUL, only surrogateescape's surrogates."""
    return _FOREIGN_SURROGATES.sub("\ufffd", word.replace("\0", ""))


def as_file(text: str) -> str:
    """A file's text as read with errors="surrogateescape"."""
    return _FOREIGN_SURROGATES.sub("\ufffd", text)


def as_wire(text: str) -> str:
    """Text as the protocol's decoder can give it: no surrogate at all."""
    return _SURROGATES.sub("\ufffd", text)


def _options(*names: str) -> tuple[str, ...]:
    return (*names, *COMMON_WORDS)


@dataclass
class CommandInput:
    """A command line and the files the command may read (path -> text)."""

    argv: list[str]
    files: dict[str, str] = field(default_factory=dict)


def _mutate_input(pool: Sequence[str], file_tokens: Sequence[str],
                  file_seeds: Sequence[str]) -> Callable[[CommandInput, Chooser], CommandInput]:
    """Edit the command line two times in three, else one of the files."""

    def mutate(value: CommandInput, c: Chooser) -> CommandInput:
        files = dict(value.files)
        if not files or c.integer(0, 2):
            return CommandInput(mutate_words(value.argv, pool, c), files)
        path = c.choice(sorted(files))
        files[path] = mutate_text(files[path], file_seeds or [""], file_tokens, c)
        return CommandInput(list(value.argv), files)

    return mutate


def _fresh_input(pool: Sequence[str]) -> Callable[[Chooser], CommandInput]:
    def fresh(c: Chooser) -> CommandInput:
        return CommandInput([c.choice(pool) for _ in range(c.integer(0, 8))])

    return fresh


# ---- commands that parse in main -----------------------------------------------------------


@contextmanager
def empty_cell() -> Iterator[str]:
    """GRIDD_ROOT and HOME in an empty temporary directory, which is also the cwd: no
    master to reach, no default request files, and any file a command line names is
    looked for in there."""
    saved = {name: os.environ.get(name) for name in ("GRIDD_ROOT", "HOME")}
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="gridd-fuzz-") as tmp:
        os.environ["GRIDD_ROOT"] = os.path.join(tmp, "cell")
        os.environ["HOME"] = tmp
        os.chdir(tmp)
        try:
            yield tmp
        finally:
            os.chdir(cwd)
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


NO_CELL = "error: no gridd cell at"


def run_main(main: Callable[[list[str]], int], argv: list[str]) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of `main(argv)`; a traceback or a code that is not a
    number is a finding, and so is a master reached when there is none."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    if not isinstance(code, int) or isinstance(code, bool):
        raise Unexpected(f"main returned {code!r}")
    if "Traceback" in err.getvalue():
        raise Unexpected(f"traceback on stderr:\n{err.getvalue()}")
    if NO_CELL in err.getvalue() and code != 1:
        raise Unexpected(f"exit code {code} after failing to reach the master")
    return code, out.getvalue(), err.getvalue()


def main_target(name: str, module: ModuleType, options: Sequence[str],
                seeds: Sequence[list[str]], examples: int = 150) -> Target:
    """A command whose `main` parses: run with no master, then with a canned one."""
    pool = _options(*options)

    def check(value: CommandInput) -> None:
        argv = [as_argv(word) for word in value.argv]
        run_main(module.main, argv)
        with canned_master(module):
            run_main(module.main, argv)

    return Target(
        name,
        check,
        tuple(CommandInput(list(argv)) for argv in seeds),
        _mutate_input(pool, (), ()),
        _fresh_input(pool),
        sandbox=empty_cell,
        examples=examples,
    )


# ---- qsub and qrsub: argv, default request files, option files, scripts ------------------

_QSUB_OPTIONS = tuple(sorted(qsub_args._FLAGS | qsub_args._ONE_ARG | qsub_args._TWO_ARGS))
_QSUB_POOL = _options(*_QSUB_OPTIONS, "job.sh", "opts", "#$", "#%", "sh", "/bin/sh")
_QSUB_FILES = {
    "/gridd/common/sge_request": "-l h_rt=1:0:0 -q all.q\n# the cell's defaults\n",
    "/home/ann/.sge_request": "-cwd -j y -hold_jid 1,job2",
    "/work/.sge_request": "-soft -l arch=lx -hard -q b.q -@ opts",
    "/work/job.sh": "#!/bin/sh\n#$ -N scripted\n#$ -l h_vmem=1G -pe mpi 2-4\n#$ -t 1-10:2\n"
                    "echo hello\n#$ -p 5 # trailing comment\n",
    "/work/opts": "-p 5 -m bea -M ann@node1 -v A=1,B",
    "STDIN": "#!/bin/sh\n#$ -l a=1\nhostname\n",
}
_QSUB_SEEDS = (
    CommandInput(["job.sh"], dict(_QSUB_FILES)),
    CommandInput(["-b", "y", "-N", "x", "sleep", "1"], dict(_QSUB_FILES)),
    CommandInput(["-l", "h_vmem=1G", "-pe", "mpi", "2-4", "-t", "1-4", "--", "a"],
                 dict(_QSUB_FILES)),
    CommandInput(["-@", "opts", "-C", "#%", "-sync", "y", "job.sh", "arg"], dict(_QSUB_FILES)),
)
_QSUB_TOKENS = (*_QSUB_OPTIONS, "#$", "\n#$ ", " ", "'", '"', "#", "\\\n", "y", "1-2", "a=1")
_ENVIRON = {"HOME": "/home/ann", "PATH": "/bin", "SHELL": "/bin/sh", "LOGNAME": "ann", "B": "b"}


def _sendable(msg: p.Msg) -> None:
    """The request goes out through the client's framing, which must refuse what it cannot
    carry (text that is not UTF-8) as a GriddError, as every command reports it."""
    client = Client.__new__(Client)
    client._rid = 0
    try:
        client._frame(msg)
    except GriddError:
        pass


def _check_qsub(value: CommandInput) -> None:
    files = {path: as_file(text) for path, text in value.files.items()}
    try:
        request = parse_qsub(
            [as_argv(word) for word in value.argv], environ=dict(_ENVIRON), cwd="/work",
            read_file=files.get, home="/home/ann", root="/gridd", user="ann", uid=1001,
            group="staff", gid=50, host="node1", stdin_text=lambda: files.get("STDIN", ""),
            now=1_795_000_000.0,
        )
    except QsubError as exc:
        if not isinstance(exc.exit_code, int) or not exc.message:
            raise Unexpected(f"refusal without text or code: {exc!r}") from None
        return
    if not isinstance(request, QsubRequest):
        raise Unexpected(f"parse_qsub gave {request!r}")
    _sendable(p.Submit(spec=request.spec))


_QRSUB_OPTIONS = tuple(sorted(qrsub_args._ARITY))
_QRSUB_FILES = {
    "/gridd/common/sge_ar_request": "-l h_vmem=1G -q all.q # cell defaults\n",
    "/home/ann/.sge_ar_request": "-m b -M ann@node1 -he y",
}
_QRSUB_SEEDS = (
    CommandInput(["-a", "202611220600", "-d", "1:0:0", "-pe", "mpi", "2"], dict(_QRSUB_FILES)),
    CommandInput(["-e", "11220700.30", "-N", "ar", "-u", "ann,@staff", "-w", "e"],
                 dict(_QRSUB_FILES)),
)


def _check_qrsub(value: CommandInput) -> None:
    try:
        files = {path: as_file(text) for path, text in value.files.items()}
        request = parse_qrsub([as_argv(word) for word in value.argv], now=1_795_327_142.0,
                              root="/gridd", home="/home/ann", read_file=files.get,
                              owner="ann", group="staff")
    except QrsubError:
        return
    _sendable(p.ArSubmit(spec=request.spec))


def _check_qacct(value: CommandInput) -> None:
    try:
        qacct.parse_args([as_argv(word) for word in value.argv], now=1_795_327_142.0)
    except qacct.UsageError:
        pass


def _check_qquota(value: CommandInput) -> None:
    try:
        request, _ = qquota.parse([as_argv(word) for word in value.argv], "ann")
    except qquota.UsageError:
        return
    _sendable(request)


# ---- qconf: the client's part, and the master's run_qconf ------------------------------


def _fresh_config() -> Configuration:
    """What `gridd up --hosts 2` configures, built once and copied for every input."""
    from gridd.master.state import MasterState

    state = MasterState()
    initial_config(state, CellConfig(hosts=["node1", "node2"], slots=2))
    return state.config


_CONFIG = msgspec.msgpack.encode(_fresh_config())
_QCONF_OPTIONS = tuple(sorted(VERBS))
_QCONF_WORDS = (
    "/f1", "/f2", "all.q", "node1", "node2", "@allhosts", "smp", "mpi", "global", "slots",
    "queue", "exechost", "hostgroup", "pe", "project", "resource_quota", "hostlist",
    "complex_values", "load_thresholds", "user_lists", "h_vmem=1G", "slots=2", "[node1=3]",
    "all.q@node1", "root", "staff", "arusers", "template", "rqs1", "rqs1/1", "rqs1/r1",
    "limit", "enabled", "seq_no", "10", "NONE", "TRUE", "$fill_up",
)
_QCONF_POOL = _options(*_QCONF_OPTIONS, *_QCONF_WORDS)
_QCONF_FILE_SEEDS = [*OBJECT_SEEDS, *COMPLEX_SEEDS, *RQS_SEEDS, "slots 4\nhostlist node9\n"]
_QCONF_SEEDS = tuple(
    CommandInput(argv, {"/f1": one, "/f2": two})
    for argv, one, two in (
        (["-Aq", "/f1", "-sq", "q"], OBJECT_SEEDS[8], ""),
        (["-Mc", "/f1"], COMPLEX_SEEDS[0], ""),
        (["-Arqs", "/f1", "-srqs"], RQS_SEEDS[0], ""),
        (["-Mrqs", "/f1", "max_per_host"], RQS_SEEDS[2], ""),
        (["-mattr", "queue", "slots", "4", "all.q"], "", ""),
        (["-aattr", "hostgroup", "hostlist", "node3", "@allhosts"], "", ""),
        (["-Mattr", "queue", "/f1", "all.q"], "slots 4\nhostlist node9\n", ""),
        (["-Ap", "/f1", "-Au", "/f2", "-sul"], OBJECT_SEEDS[3], OBJECT_SEEDS[7]),
        (["-Aconf", "/f1", "-Msconf", "/f2"], OBJECT_SEEDS[6], OBJECT_SEEDS[5]),
        (["-mattr", "resource_quota", "limit", "slots=2", "rqs1/1"], "", ""),
        (["-purge", "queue", "slots", "all.q@node1"], "", ""),
        (["-ahgrp", "@x", "-Ae", "/f1", "-de", "node1"], OBJECT_SEEDS[1], ""),
    )
)


def _check_run_qconf(value: CommandInput) -> None:
    """The master's qconf: any command line and files give an Answer, never an exception."""
    config = msgspec.msgpack.decode(_CONFIG, type=Configuration)
    files = {as_wire(path): as_wire(text) for path, text in value.files.items()}
    answer = run_qconf(config, [as_wire(word) for word in value.argv],
                       Caller("root", "vm", files))
    if not isinstance(answer.code, int) or not all(
            isinstance(line, str) for line in [*answer.out, *answer.err]):
        raise Unexpected(f"a malformed answer: {answer!r}")
    msgspec.msgpack.encode(config)  # what was changed must still spool


def _check_qconf_client(value: CommandInput) -> None:
    """qconf's own part: reading the files the options name, then the client, with no
    master and with a canned one. The files are written into the empty cell's directory
    (the cwd), under the names the command line uses."""
    names = {path: path.lstrip("/") or "f" for path in value.files}
    for path, text in value.files.items():
        with open(names[path], "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(as_file(text))
    argv = [names.get(word, as_argv(word)) for word in value.argv]
    run_main(qconf.main, argv)
    with canned_master(qconf):
        run_main(qconf.main, argv)


# ---- gridd: argparse, with the subcommands stubbed out -----------------------------------


@contextmanager
def _gridd_stubbed() -> Iterator[str]:
    """The empty cell, with `gridd`'s subcommands replaced by stubs: only parsing runs."""

    def stub(*args: Any) -> int:
        return 0

    commands = {name: stub for name in gridd_cmd.COMMANDS}
    with empty_cell() as tmp, mock.patch.dict(gridd_cmd.COMMANDS, commands), \
            mock.patch.object(gridd_cmd.report, "cmd_report", stub), \
            mock.patch.object(gridd_cmd.dbwriter, "cmd_dbwriter", stub), \
            mock.patch.object(gridd_cmd.spool_cmd, "cmd_spool", stub), \
            mock.patch("gridd.cli.sim.cmd_sim", stub):
        yield tmp


def _check_gridd(value: CommandInput) -> None:
    try:
        run_main(gridd_cmd.main, [as_argv(word) for word in value.argv])
    except SystemExit as exc:  # argparse: 0 after --help, 2 for a bad command line
        if exc.code not in (0, 2):
            raise Unexpected(f"argparse exited with {exc.code!r}") from None


_GRIDD_WORDS = (
    "up", "down", "status", "master", "execd", "sim", "report", "dbwriter", "spool", "--hosts",
    "--slots", "--load-report-time", "--spooling-method", "sqlite", "classic", "--listen",
    "--schedule-interval", "--name", "--master", "--max-reservation", "--duration-offset",
    "--out", "--param", "--format", "--sql", "--export", "--html", "--db", "--to", "check",
    "backup", "restore", "convert", "-h", "nan", "inf", "1e9", "trace.swf", "k=v", "--size",
    "allocated", "requested", "--join", "--bundle", "keys", "host", "0.0.0.0:1",
)


TARGETS = [
    Target("qsub (parse_qsub, request files, scripts)", _check_qsub, _QSUB_SEEDS,
           _mutate_input(_QSUB_POOL, _QSUB_TOKENS, list(_QSUB_FILES.values())),
           _fresh_input(_QSUB_POOL), examples=300),
    main_target("qalter", qalter, ("-N", "-p", "-R", "-l", "-ar", "-help", "-soft", "-q",
                                   "-pe", "-hold_jid", "-a", "-dl", "-ac", "-binding", "-js"),
                [["-N", "x", "1"], ["-l", "h_vmem=1G", "-p", "5", "2,3"],
                 ["-soft", "-q", "all.q", "-binding", "env", "linear:1", "-pe", "mpi", "2-4",
                  "1"]]),
    main_target("qdel", qdel, ("-f", "-u"), [["1", "2.1-3"], ["-f", "-u", "ann"]]),
    main_target("qrdel", qrdel, ("-f", "-u"), [["1", "ar1"], ["-u", "ann,bob"]]),
    main_target("qstat", qstat, ("-f", "-F", "-q", "-xml", "-json", "-fmt", "-r", "-ext",
                                 "-pri", "-urg", "-ne", "-ncb", "-t", "-g", "-j", "-u", "-s"),
                [["-f", "-u", "*"], ["-j", "1"], ["-j", "1,x", "-json"],
                 ["-s", "pr", "-F", "h_vmem"]]),
    main_target("qhost", qhost, ("-q", "-j", "-xml", "-json", "-fmt", "-ncb", "-F", "-h", "-l",
                                 "-u"),
                [["-q", "-j"], ["-F", "mem_total", "-h", "node1"], ["-l", "arch=lx"]]),
    main_target("qmod", qmod, tuple(f"-{a}" for a in sorted(qmod.ACTIONS)) + ("-f",),
                [["-d", "all.q@node1"], ["-sj", "1", "2", "-usq", "*@@linux"]]),
    main_target("qrstat", qrstat, ("-ar", "-u", "-explain", "-xml", "-json", "-fmt"),
                [["-ar", "1,ar2"], ["-u", "*", "-xml"]]),
    main_target("qquota (main)", qquota, ("-h", "-l", "-u", "-pe", "-P", "-q", "-xml",
                                         "-json", "-fmt"),
                [["-u", "*", "-l", "slots"], ["-xml", "-q", "all.q"]]),
    Target("qquota (parse)", _check_qquota,
           (CommandInput(["-u", "*", "-l", "slots=1,h_vmem"]),),
           _mutate_input(_options("-h", "-l", "-u", "-pe", "-P", "-q", "-xml", "-json", "-fmt"),
                         (), ()),
           _fresh_input(_options("-h", "-l", "-u", "-pe", "-P", "-q", "-xml"))),
    Target("qrsub (parse_qrsub, request files)", _check_qrsub, _QRSUB_SEEDS,
           _mutate_input(_options(*_QRSUB_OPTIONS), (*_QRSUB_OPTIONS, " ", "#", "'"),
                         list(_QRSUB_FILES.values())),
           _fresh_input(_options(*_QRSUB_OPTIONS)), examples=100),
    main_target("qrsub (main)", qrsub, _QRSUB_OPTIONS,
                [["-a", "202611220600", "-d", "60"], ["-help"]]),
    Target("qacct (parse_args)", _check_qacct,
           (CommandInput(["-j", "1", "-t", "1-3:1,5"]), CommandInput(["-o", "-b", "2401011230"]),
            CommandInput(["-ar", "0", "-slots", "2", "-d", "7", "-l", "h_vmem=1G"])),
           _mutate_input(_options("-ar", "-A", "-b", "-d", "-D", "-e", "-E", "-f", "-g", "-h",
                                  "-help", "-j", "-json", "-l", "-m", "-o", "-u", "-pe", "-P",
                                  "-q", "-slots", "-t"), (), ()),
           _fresh_input(_options("-ar", "-b", "-d", "-e", "-j", "-t", "-slots", "-g", "-l"))),
    Target("qconf (client: files, then the master unreachable)", _check_qconf_client,
           _QCONF_SEEDS, _mutate_input(_QCONF_POOL, OBJECT_TOKENS, _QCONF_FILE_SEEDS),
           _fresh_input(_QCONF_POOL), sandbox=empty_cell, examples=100),
    Target("qconf (master: run_qconf with files)", _check_run_qconf, _QCONF_SEEDS,
           _mutate_input(_QCONF_POOL, OBJECT_TOKENS, _QCONF_FILE_SEEDS),
           _fresh_input(_QCONF_POOL), examples=300),
    Target("gridd (argparse)", _check_gridd,
           (CommandInput(["up", "--hosts", "2"]), CommandInput(["report", "--sql", "select 1"]),
            CommandInput(["sim", "t.swf", "--slots", "4", "--out", "o.csv"])),
           _mutate_input(_options(*_GRIDD_WORDS), (), ()), _fresh_input(_options(*_GRIDD_WORDS)),
           sandbox=_gridd_stubbed, examples=100),
]
