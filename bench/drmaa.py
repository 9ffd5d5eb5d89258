"""Jobs per second through DRMAA, one at a time (drmaa_run_job then drmaa_wait, a job of
/bin/true), beside `qsub -sync y -b y true` in the same run on the same cell; and a bulk
job's tasks through drmaa_run_bulk_jobs + drmaa_synchronize.

The DRMAA loop runs in a child process that loads the library with ctypes, as a DRMAA
program would. Real Grid Engine's libdrmaa and qsub -sync y are measured beside gridd's
when it runs a job (a probe job must end within PROBE_S); otherwise they are left out,
saying why.
"""

from __future__ import annotations

import ctypes
import json
import subprocess
import sys
import time
from pathlib import Path

from _cell import BIN, SMOKE, cell
from _sge import sge_env

DRMAA_JOBS = 5 if SMOKE else 200
QSUB_JOBS = 3 if SMOKE else 50
BULK_TASKS = 5 if SMOKE else 200
GE_JOBS = 20  # real GE is slower per job: fewer of them keep the run short
PROBE_S = 30.0
GE_LIBDRMAA = "/usr/lib/gridengine-drmaa/lib/libdrmaa.so.1.0"
GE_PRELOAD = "/lib/x86_64-linux-gnu/libjemalloc.so.2"  # GE's library fails to load without


def _child(library: str, jobs: int, tasks: int) -> None:
    """In the child: jobs/s one at a time, then tasks/s of one bulk job; JSON on stdout."""
    lib = ctypes.CDLL(library)
    err = ctypes.create_string_buffer(1024)

    def ok(rc: int) -> None:
        if rc != 0:
            raise SystemExit(f"DRMAA error {rc}: {err.value.decode()}")

    ok(lib.drmaa_init(None, err, 1024))
    jt = ctypes.c_void_p()
    ok(lib.drmaa_allocate_job_template(ctypes.byref(jt), err, 1024))
    for name, value in ((b"drmaa_remote_command", b"/bin/true"),
                        (b"drmaa_output_path", b":/dev/null"), (b"drmaa_join_files", b"y")):
        ok(lib.drmaa_set_attribute(jt, name, value, err, 1024))
    job_id, out_id = ctypes.create_string_buffer(128), ctypes.create_string_buffer(128)
    stat, rusage = ctypes.c_int(), ctypes.c_void_p()
    t0 = time.perf_counter()
    for _ in range(jobs):
        ok(lib.drmaa_run_job(job_id, 128, jt, err, 1024))
        ok(lib.drmaa_wait(job_id, out_id, 128, ctypes.byref(stat), ctypes.c_long(-1),
                          ctypes.byref(rusage), err, 1024))
        lib.drmaa_release_attr_values(rusage)
    one_at_a_time = jobs / (time.perf_counter() - t0)
    ids = ctypes.c_void_p()
    everyone = (ctypes.c_char_p * 2)(b"DRMAA_JOB_IDS_SESSION_ALL", None)
    t0 = time.perf_counter()
    ok(lib.drmaa_run_bulk_jobs(ctypes.byref(ids), jt, 1, tasks, 1, err, 1024))
    ok(lib.drmaa_synchronize(everyone, ctypes.c_long(-1), 1, err, 1024))
    bulk = tasks / (time.perf_counter() - t0)
    lib.drmaa_release_job_ids(ids)
    lib.drmaa_delete_job_template(jt, err, 1024)
    ok(lib.drmaa_exit(err, 1024))
    print(json.dumps({"run_wait_per_s": one_at_a_time, "bulk_per_s": bulk}))


def drmaa_rates(library: str, env: dict[str, str], jobs: int, tasks: int,
                cwd: Path) -> dict[str, float]:
    res = subprocess.run([sys.executable, __file__, "--child", library, str(jobs),
                          str(tasks)], env=env, cwd=cwd, capture_output=True, text=True,
                         timeout=600)
    if res.returncode != 0:
        raise RuntimeError(f"DRMAA run failed: {res.stdout}{res.stderr}")
    return json.loads(res.stdout.splitlines()[-1])


def qsub_sync_rate(qsub: str, env: dict[str, str], jobs: int, cwd: Path) -> float:
    t0 = time.perf_counter()
    for _ in range(jobs):
        subprocess.run([qsub, "-sync", "y", "-b", "y", "-o", "/dev/null", "-j", "y", "true"],
                       env=env, cwd=cwd, check=True, capture_output=True, timeout=120)
    return jobs / (time.perf_counter() - t0)


def real_grid_engine() -> tuple[dict[str, str] | None, str]:
    """Real GE's environment when it runs a job within PROBE_S; or None and why not."""
    env = sge_env()
    if env is None:
        return None, "qstat does not answer"
    if not Path(GE_LIBDRMAA).exists():
        return None, f"no {GE_LIBDRMAA}"
    probe = subprocess.run(["/usr/bin/qsub", "-terse", "-b", "y", "-o", "/dev/null", "-j", "y",
                            "true"], env=env, capture_output=True, text=True, timeout=30)
    if probe.returncode != 0:
        return None, f"qsub refused: {probe.stderr.strip()}"
    job = probe.stdout.strip()
    deadline = time.monotonic() + PROBE_S
    while time.monotonic() < deadline:
        listed = subprocess.run(["/usr/bin/qstat"], env=env, capture_output=True, text=True)
        if not any(line.split()[:1] == [job] for line in listed.stdout.splitlines()):
            return dict(env, LD_PRELOAD=GE_PRELOAD), "running"
        time.sleep(0.2)
    subprocess.run(["/usr/bin/qdel", job], env=env, capture_output=True)
    return None, f"a probe job did not end within {PROBE_S:.0f} s (no execd up?)"


def main() -> dict[str, float | None]:
    lib = subprocess.run([str(BIN / "gridd"), "drmaa-library"], capture_output=True,
                         text=True, check=True).stdout.strip()
    sge, how = (None, "--smoke") if SMOKE else real_grid_engine()
    with cell(hosts=1, slots=4) as c:
        ours = drmaa_rates(lib, c.env, DRMAA_JOBS, BULK_TASKS, c.root)
        qsub = qsub_sync_rate(str(BIN / "qsub"), c.env, QSUB_JOBS, c.root)
    figures: dict[str, float | None] = {
        "drmaa_per_s": ours["run_wait_per_s"], "qsub_sync_per_s": qsub,
        "ratio": ours["run_wait_per_s"] / qsub, "bulk_per_s": ours["bulk_per_s"],
        "ge_drmaa_per_s": None, "ge_qsub_sync_per_s": None}
    print(f"gridd drmaa_run_job + drmaa_wait: {ours['run_wait_per_s']:7.1f} jobs/s "
          f"({DRMAA_JOBS} jobs of /bin/true, one at a time)")
    print(f"gridd qsub -sync y -b y true:     {qsub:7.1f} jobs/s ({QSUB_JOBS} jobs)")
    print(f"ratio DRMAA / qsub -sync y:       {figures['ratio']:7.2f}")
    print(f"gridd run_bulk_jobs + synchronize:{ours['bulk_per_s']:7.1f} tasks/s "
          f"({BULK_TASKS} tasks)")
    if sge is None:
        print(f"real Grid Engine left out: {how}")
        return figures
    home = Path.home()
    theirs = drmaa_rates(GE_LIBDRMAA, sge, GE_JOBS, GE_JOBS, home)
    ge_qsub = qsub_sync_rate("/usr/bin/qsub", dict(sge, LD_PRELOAD=""), GE_JOBS, home)
    figures.update(ge_drmaa_per_s=theirs["run_wait_per_s"], ge_qsub_sync_per_s=ge_qsub)
    print(f"real GE libdrmaa run_job + wait:  {theirs['run_wait_per_s']:7.1f} jobs/s "
          f"({GE_JOBS} jobs)")
    print(f"real GE qsub -sync y -b y true:   {ge_qsub:7.1f} jobs/s ({GE_JOBS} jobs)")
    print(f"real GE run_bulk_jobs + synchronize: {theirs['bulk_per_s']:7.1f} tasks/s "
          f"({GE_JOBS} tasks)")
    return figures


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        _child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        main()
