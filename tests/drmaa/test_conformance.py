"""Grid Engine's test_drmaa cases (drmaa_reference.md section 8) against a real cell through
the C API: each runs in a process of its own (tests/drmaa/cases.py over ctypes), since a
DRMAA session belongs to a process, and passes when that process says so."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import BIN, Cell, make_cell
from tests.e2e.test_ar_users import readable_cell
from tests.e2e.test_reservation import set_sched
from tests.users import interpreter, people, python_path

__all__ = ["people"]  # the module fixture that makes the users

REPO = Path(__file__).resolve().parents[2]


def run_case(env: dict[str, str], *argv: str, user: str | None = None,
             timeout: float = 120) -> str:
    """Run one case; assert that it passed; its output (what it checked)."""
    python = sys.executable
    kwargs: dict[str, object] = {}
    env = dict(env, PYTHONPATH=python_path() if user else str(REPO))
    if user:
        import pwd
        entry = pwd.getpwnam(user)
        python = interpreter(user) or sys.executable
        env.update(HOME=entry.pw_dir, USER=user, LOGNAME=user)
        kwargs = dict(user=entry.pw_uid, group=entry.pw_gid, extra_groups=[], cwd=entry.pw_dir)
    done = subprocess.run([python, "-m", "tests.drmaa.cases", *argv], env=env,
                          capture_output=True, text=True, timeout=timeout,
                          **kwargs)  # type: ignore[call-overload]
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert f"{argv[0]}: passed" in out, out
    return out


# The automated cases in GE's table order, with the arguments they take here.
AUTOMATED = [
    ("ST_ERROR_CODES",), ("ST_MULT_INIT",), ("ST_MULT_EXIT",), ("ST_SUPPORTED_ATTR",),
    ("ST_SUPPORTED_VATTR",), ("ST_VERSION",), ("ST_DRM_SYSTEM",), ("ST_DRMAA_IMPL",),
    ("ST_CONTACT",), ("ST_EMPTY_SESSION_WAIT",), ("ST_EMPTY_SESSION_SYNCHRONIZE_DISPOSE",),
    ("ST_EMPTY_SESSION_SYNCHRONIZE_NODISPOSE",),
    *(("ST_EMPTY_SESSION_CONTROL", f"DRMAA_CONTROL_{a}")
      for a in ("SUSPEND", "RESUME", "HOLD", "RELEASE", "TERMINATE")),
    ("ST_SUBMIT_WAIT",), ("ST_SUBMIT_NO_RUN_WAIT",), ("ST_BULK_SUBMIT_WAIT",),
    ("ST_BULK_SINGLESUBMIT_WAIT_INDIVIDUAL",), ("ST_SUBMITMIXTURE_SYNC_ALL_DISPOSE",),
    ("ST_SUBMITMIXTURE_SYNC_ALL_NODISPOSE",), ("ST_SUBMITMIXTURE_SYNC_ALLIDS_DISPOSE",),
    ("ST_SUBMITMIXTURE_SYNC_ALLIDS_NODISPOSE",),
    # GE runs 255 exit jobs (0..254); 0..20 and 254 (255 is GE's too) keep the time small.
    ("ST_EXIT_STATUS", *map(str, range(21)), "254", "255"),
    ("ST_INPUT_FILE_FAILURE",),
    ("ST_SUBMIT_IN_HOLD_RELEASE",), ("ST_SUBMIT_IN_HOLD_DELETE",),
    ("ST_BULK_SUBMIT_IN_HOLD_SESSION_RELEASE",), ("ST_BULK_SUBMIT_IN_HOLD_SINGLE_RELEASE",),
    ("ST_BULK_SUBMIT_IN_HOLD_SESSION_DELETE",), ("ST_BULK_SUBMIT_IN_HOLD_SINGLE_DELETE",),
    ("ST_SUBMIT_POLLING_WAIT_TIMEOUT",), ("ST_SUBMIT_POLLING_WAIT_ZEROTIMEOUT",),
    ("ST_SUBMIT_POLLING_SYNCHRONIZE_TIMEOUT",), ("ST_SUBMIT_POLLING_SYNCHRONIZE_ZEROTIMEOUT",),
    ("ST_UNSUPPORTED_ATTR",), ("ST_UNSUPPORTED_VATTR",), ("ST_SYNCHRONIZE_NONEXISTANT",),
    ("ST_SUBMIT_SUSPEND_RESUME_WAIT",), ("ST_USAGE_CHECK",), ("ST_DRMAA_JOB_PS",),
    ("ST_DRMAA_CONTROL",), ("ST_REAPED_JOB",),
    # Three threads of one session submitting (and waiting) at once.
    ("MT_SUBMIT_WAIT",), ("MT_SUBMIT_MT_WAIT",),
    ("MT_EXIT_DURING_SUBMIT_OR_WAIT",),  # waits of other threads end with the session
]


@pytest.mark.parametrize("argv", AUTOMATED, ids=lambda a: "-".join(a[:2]))
def test_case(drmaa_env: dict[str, str], argv: tuple[str, ...]) -> None:
    run_case(drmaa_env, *argv)


@pytest.mark.parametrize("case", ["ST_ATTRIBUTE_CHECK", "ST_INPUT_BECOMES_OUTPUT"])
def test_case_with_files(drmaa_env: dict[str, str], tmp_path: Path, case: str) -> None:
    run_case(drmaa_env, case, str(tmp_path))


def test_supported_attributes_are_ges(drmaa_env: dict[str, str]) -> None:
    out = run_case(drmaa_env, "ST_SUPPORTED_ATTR")
    for name in ("drmaa_remote_command", "drmaa_js_state", "drmaa_wd", "drmaa_job_category",
                 "drmaa_native_specification", "drmaa_output_path", "drmaa_join_files"):
        assert f"     {name}\n" in out, out


@pytest.fixture(scope="module")
def user_cell(people: tuple[str, ...]) -> Iterator[Cell]:
    """A cell the test users can reach, with a key for the first of them."""
    for cell in readable_cell(hosts=1, slots=2):
        cell.ok("gridd", "keys", "user", people[0])
        yield cell


@pytest.mark.parametrize("case", ["ST_OUTPUT_FILE_FAILURE", "ST_ERROR_FILE_FAILURE"])
def test_unwritable_file_fails_the_job(user_cell: Cell, libdrmaa: Path,
                                       people: tuple[str, ...], case: str) -> None:
    """/etc/passwd is unwritable only for a user other than root: GE's test runs as one."""
    env = dict(user_cell.env, DRMAA_LIBRARY_PATH=str(libdrmaa))
    run_case(env, case, user=people[0])


@pytest.fixture(scope="module")
def order_cell(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cell]:
    """One host with 2 slots and reservations on, for the finish-order cases."""
    tmp = tmp_path_factory.mktemp("order")
    for cell in make_cell(tmp, hosts=1, slots=2):
        # Priority by -p alone: 8.1.9's default weights put a job of more slots first.
        set_sched(cell, tmp, max_reservation="10", weight_priority="1", weight_urgency="0",
                  weight_waiting_time="0")
        yield cell


# job0 holds 1 of 2 slots for 4 s (h_rt 6 s; its -p puts it first); job1 needs both
# (-R y): reserved from job0's planned end, h_rt + the scheduler's duration_offset (60 s)
# after its start; job2 needs 1. With an h_rt past that reserved start (2 min) it would
# delay job1: it waits (0-1-2); with a short one (2 s) it ends before job1 could start
# anyway and is backfilled (0,2-1).
JOB0 = ("4", "-p 1000 -l h_rt=0:0:6")
JOB1 = ("1", "-R y -pe smp 2 -l h_rt=0:0:5")


def test_reservation_finish_order(order_cell: Cell, libdrmaa: Path) -> None:
    env = dict(order_cell.env, DRMAA_LIBRARY_PATH=str(libdrmaa))
    run_case(env, "ST_RESERVATION_FINISH_ORDER", *JOB0, *JOB1, "1", "-l h_rt=0:2:0")


def test_backfill_finish_order(order_cell: Cell, libdrmaa: Path) -> None:
    env = dict(order_cell.env, DRMAA_LIBRARY_PATH=str(libdrmaa))
    run_case(env, "ST_BACKFILL_FINISH_ORDER", *JOB0, *JOB1, "1", "-l h_rt=0:0:2")


def test_c_program_in_a_bare_environment(drmaa_env: dict[str, str], libdrmaa: Path,
                                         tmp_path: Path) -> None:
    """conformance.c compiled against `gridd drmaa-library --header` runs with nothing of
    the venv on its PATH: the library finds its Python itself."""
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("needs gcc to compile tests/drmaa/conformance.c")
    header = subprocess.run([str(BIN / "gridd"), "drmaa-library", "--header"],
                            capture_output=True, text=True, check=True).stdout.strip()
    program = tmp_path / "conformance"
    subprocess.run([gcc, "-Wall", "-Werror", "-o", str(program),
                    str(Path(__file__).with_name("conformance.c")),
                    f"-I{Path(header).parent}", str(libdrmaa),
                    f"-Wl,-rpath,{libdrmaa.parent}"], check=True)
    done = subprocess.run(["env", "-i", f"GRIDD_ROOT={drmaa_env['GRIDD_ROOT']}",
                           f"HOME={os.environ.get('HOME', '/root')}", "PATH=/usr/bin:/bin",
                           str(program)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.endswith("passed\n"), \
        done.stdout + done.stderr
