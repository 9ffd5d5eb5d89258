"""The real clients of a DRMAA library, installed from the package index as a user would:
drmaa-python (ctypes over DRMAA_LIBRARY_PATH) and gridmap's grid_map on top of it, each
run as a program of its own on the module's cell."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

CLIENTS = ("drmaa==0.7.9", "gridmap==0.15.0", "cloudpickle", "psutil")


@pytest.fixture(scope="module")
def clients(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """drmaa-python and gridmap installed into a directory of this module (pyzmq is the
    venv's own)."""
    target = tmp_path_factory.mktemp("clients")
    res = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                          "--disable-pip-version-check", "--target", str(target), *CLIENTS],
                         capture_output=True, text=True, timeout=300)
    if res.returncode != 0:
        pytest.skip(f"cannot install {', '.join(CLIENTS)} from the package index: "
                    f"{res.stderr.strip().splitlines()[-1:]}")
    return target


@pytest.fixture
def run_client(clients: Path, drmaa_env: dict[str, str], tmp_path: Path):
    """Runs a script with the clients importable on the cell; returns what it printed as
    JSON on its last line."""
    def run(script: str, timeout: float = 120) -> object:
        env = dict(drmaa_env, PYTHONPATH=str(clients),
                   PATH=f"{Path(sys.executable).parent}:{drmaa_env.get('PATH', '/usr/bin:/bin')}")
        res = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], env=env,
                             cwd=tmp_path, capture_output=True, text=True, timeout=timeout)
        assert res.returncode == 0, res.stdout + res.stderr
        return json.loads(res.stdout.strip().splitlines()[-1])
    return run


PRELUDE = """
import json, time
import drmaa
from drmaa.errors import *
FOREVER = drmaa.Session.TIMEOUT_WAIT_FOREVER

def template(s, *args):
    jt = s.createJobTemplate()
    jt.remoteCommand = "/bin/sh"
    jt.args = ["-c", *args]
    jt.outputPath = ":/dev/null"
    jt.joinFiles = True
    return jt

def until(s, jid, state):
    deadline = time.monotonic() + 30
    while s.jobStatus(jid) != state:
        assert time.monotonic() < deadline, (jid, s.jobStatus(jid), state)
        time.sleep(0.05)
"""


def test_a_job_waited_for_has_its_exit_status_and_usage(run_client, tmp_path):
    out = run_client(PRELUDE + f"""
with drmaa.Session() as s:
    jt = template(s, "echo hi; exit 3")
    jt.outputPath = ":{tmp_path}/job.out"
    jid = s.runJob(jt)
    r = s.wait(jid, FOREVER)
    try:
        s.wait(jid, FOREVER)
        again = "waited"
    except InvalidJobException:  # reaped: no longer the session's
        again = "InvalidJobException"
    print(json.dumps(dict(again=again, drms=str(s.drmsInfo), version=list(s.version),
                          jid=jid, same=r.jobId == jid, exited=r.hasExited,
                          status=r.exitStatus, signaled=r.hasSignal, aborted=r.wasAborted,
                          usage=sorted(r.resourceUsage))))
""")
    assert out["drms"].startswith("SGE") and out["version"] == [1, 0]
    assert out["jid"].isdigit() and out["same"]
    assert out["again"] == "InvalidJobException"
    assert (out["exited"], out["status"], out["signaled"], out["aborted"]) == (
        True, 3, False, False)
    assert {"ru_wallclock", "cpu", "mem", "exit_status", "start_time", "end_time",
            "submission_time"} <= set(out["usage"])
    assert (tmp_path / "job.out").read_text() == "hi\n"


def test_a_bulk_job_synchronized_with_and_without_dispose(run_client):
    out = run_client(PRELUDE + """
with drmaa.Session() as s:
    jt = template(s, "exit 0")
    kept = s.runBulkJobs(jt, 1, 4, 1)
    s.synchronize(kept, FOREVER, False)  # kept: each can still be waited for
    statuses = [s.wait(j, FOREVER).exitStatus for j in kept]
    gone = s.runBulkJobs(jt, 2, 6, 2)
    s.synchronize(gone, FOREVER, True)   # disposed: waiting for one is an error
    try:
        s.wait(gone[0], drmaa.Session.TIMEOUT_NO_WAIT)
        reaped = "waited"
    except InvalidJobException:
        reaped = "InvalidJobException"
    anyone = []
    many = s.runBulkJobs(jt, 1, 3, 1)
    for _ in many:
        anyone.append(s.wait(drmaa.Session.JOB_IDS_SESSION_ANY, FOREVER).jobId)
    s.synchronize([drmaa.Session.JOB_IDS_SESSION_ALL], FOREVER, True)
    print(json.dumps(dict(kept=kept, statuses=statuses, gone=gone, reaped=reaped,
                          many=many, anyone=anyone)))
""")
    job = out["kept"][0].split(".")[0]
    assert out["kept"] == [f"{job}.{t}" for t in (1, 2, 3, 4)]
    assert out["statuses"] == [0, 0, 0, 0]
    gone = out["gone"][0].split(".")[0]
    assert out["gone"] == [f"{gone}.{t}" for t in (2, 4, 6)]
    assert out["reaped"] == "InvalidJobException"
    assert sorted(out["anyone"]) == sorted(out["many"])


def test_job_status_through_hold_release_suspend_resume_and_terminate(run_client):
    out = run_client(PRELUDE + """
with drmaa.Session() as s:
    jt = template(s, "sleep 100")
    jt.jobSubmissionState = drmaa.JobSubmissionState.HOLD_STATE
    jid = s.runJob(jt)
    seen = [s.jobStatus(jid)]
    s.control(jid, drmaa.JobControlAction.RELEASE)
    until(s, jid, drmaa.JobState.RUNNING)
    seen.append(s.jobStatus(jid))
    s.control(jid, drmaa.JobControlAction.SUSPEND)
    until(s, jid, drmaa.JobState.USER_SUSPENDED)
    seen.append(s.jobStatus(jid))
    s.control(jid, drmaa.JobControlAction.RESUME)
    until(s, jid, drmaa.JobState.RUNNING)
    seen.append(s.jobStatus(jid))
    try:
        s.wait(jid, drmaa.Session.TIMEOUT_NO_WAIT)
        early = "returned"
    except ExitTimeoutException:
        early = "ExitTimeoutException"
    s.control(jid, drmaa.JobControlAction.TERMINATE)
    r = s.wait(jid, 60)
    print(json.dumps(dict(seen=seen, early=early, aborted=r.wasAborted,
                          exited=r.hasExited)))
""")
    assert out["seen"] == ["user_on_hold", "running", "user_suspended", "running"]
    assert out["early"] == "ExitTimeoutException"
    assert out["aborted"] is True and out["exited"] is False


def test_errors_are_drmaa_pythons_exceptions(run_client):
    out = run_client(PRELUDE + """
def raised(f, *args):
    try:
        f(*args)
    except DrmaaException as e:
        return [type(e).__name__, str(e)]
    return None

with drmaa.Session() as s:
    jt = template(s, "exit 0")
    def set_attribute(name, value):
        setattr(jt, name, value)
    out = dict(
        unknown=raised(s.jobStatus, "999999"),
        malformed=raised(s.jobStatus, "abc"),
        wait_unknown=raised(s.wait, "999999", 0),
        control_unknown=raised(s.control, "999999", drmaa.JobControlAction.TERMINATE),
        state=raised(set_attribute, "jobSubmissionState", "sleeping"),
        transfer=raised(set_attribute, "transferFiles", "x"),
        start=raised(set_attribute, "startTime", "tomorrow"),
        no_colon=raised(lambda: (set_attribute("outputPath", "/tmp/x"), s.runJob(jt))),
    )
    jt.outputPath = ":/dev/null"
    out["wait_empty"] = raised(s.wait, drmaa.Session.JOB_IDS_SESSION_ANY, 0)
    out["init_again"] = raised(s.initialize)
print(json.dumps(out))
""")
    assert out["unknown"][0] == "InvalidJobException"
    assert out["malformed"][0] == "InvalidArgumentException"
    assert '"abc"' in out["malformed"][1]
    assert out["wait_unknown"][0] == "InvalidJobException"
    assert out["control_unknown"][0] == "InvalidJobException"
    assert out["state"][0] == "InvalidAttributeValueException"
    assert "drmaa_js_state" in out["state"][1]
    assert out["transfer"][0] == "InvalidAttributeValueException"
    assert out["start"][0] in ("InvalidAttributeValueException",
                               "InvalidAttributeFormatException")
    assert out["no_colon"][0] == "InvalidArgumentException"
    assert "colon" in out["no_colon"][1]
    assert out["wait_empty"][0] == "InvalidJobException"
    assert out["init_again"][0] == "AlreadyActiveSessionException"


def test_grid_map_runs_a_function_over_a_list_on_the_cell(run_client, tmp_path):
    """gridmap pickles the function, submits one job per item through drmaa-python (the
    job's interpreter is this venv's python, its environment this one's) and gathers the
    results over ZeroMQ."""
    shared = tmp_path / "gridmap"
    shared.mkdir()
    out = run_client(f"""
import json, os
os.environ.update(SEND_ERROR_MAIL="False", CREATE_PLOTS="False", USE_MEM_FREE="False")
from gridmap import grid_map

def square(x):
    return x * x

print(json.dumps(grid_map(square, [1, 2, 3, 4, 5], quiet=True, temp_dir="{shared}/",
                          queue="all.q", require_cluster=True)))
""", timeout=240)
    assert out == [1, 4, 9, 16, 25]
