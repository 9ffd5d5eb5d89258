"""The pure parts of the web's job pages: the qsub command line a submit form makes, the
request files it may read, and qstat -j's lines as (label, value)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gridd.web.accounts import reader
from gridd.web.pages.jobs import detail_fields
from gridd.web.pages.submit import FormError, parse, qsub_argv


def test_the_fields_become_qsub_s_options_and_a_command_a_binary_job():
    argv, script = qsub_argv({"command": "sleep 'a b'", "name": "n", "resources": "h_rt=60",
                              "pe": "mpi  4", "queue": "all.q", "priority": "-3",
                              "array": "1-4", "ar": "7", "hold": "y", "cwd": "y"})
    assert argv == ["-N", "n", "-l", "h_rt=60", "-pe", "mpi", "4", "-q", "all.q", "-p", "-3",
                    "-t", "1-4", "-ar", "7", "-h", "-cwd", "-b", "y", "sleep", "a b"]
    assert script == ""


def test_a_script_is_read_as_qsub_reads_its_standard_input():
    argv, script = qsub_argv({"script": "#$ -N x\r\nsleep 1\r\n", "hold": ""})
    assert (argv, script) == ([], "#$ -N x\nsleep 1\n")


@pytest.mark.parametrize("form", [{}, {"command": "a", "script": "b"}, {"script": "  \r\n"}])
def test_a_command_or_a_script_not_both(form: dict[str, str]):
    with pytest.raises(FormError, match="either a command or a script"):
        qsub_argv(form)


def test_an_unreadable_command_line_is_said():
    with pytest.raises(FormError, match="cannot be read: No closing quotation"):
        qsub_argv({"command": "echo 'a"})


def test_the_spec_is_qsub_s_for_the_user_in_their_home(tmp_path: Path):
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "sge_request").write_text("-j y\n")
    req = parse({"script": "#$ -N from_script\nsleep 1\n", "resources": "h_rt=60"}, "root",
                str(tmp_path), 0.0)
    spec = req.spec
    assert (spec.owner, spec.name, spec.merge, spec.hard_resources, spec.binary) == (
        "root", "from_script", True, {"h_rt": "60"}, False)
    assert spec.o_workdir == os.path.expanduser("~root")


def test_only_the_cell_s_and_the_user_s_own_files_are_read(tmp_path: Path):
    shared, own = tmp_path / "sge_request", tmp_path / "own"
    shared.write_text("-j y\n")
    own.write_text("-N mine\n")
    read = reader(os.getuid() + 1, str(shared))  # the file's owner is another
    assert read(str(shared)) == "-j y\n"
    assert read(str(own)) is None
    assert reader(os.getuid(), str(shared))(str(own)) == "-N mine\n"
    assert read(str(tmp_path / "none")) is None


def test_qstat_j_lines_become_labels_and_values():
    text = ("job_number:                 7\n"
            "hard resource_list:         h_rt=60\n"
            "parallel environment:  mpi range: 4\n"
            "error reason          1:      no such file\n"
            "                            and more\n")
    assert detail_fields(text) == [
        ("job_number", "7"), ("hard resource_list", "h_rt=60"),
        ("parallel environment", "mpi range: 4"), ("error reason          1", "no such file"),
        ("", "and more")]
