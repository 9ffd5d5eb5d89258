"""Grid Engine's test_drmaa cases through gridd's libdrmaa (ctypes): `python -m
tests.drmaa.cases CASE [args...]` runs one case in a process of its own (a DRMAA session is
per process), prints what it checked and exits 0 when it passed, 1 when not, as test_drmaa
does. The library is $DRMAA_LIBRARY_PATH; the cell, $GRIDD_ROOT. Sleeps are GE's shortened
(5-10 s sleepers -> 1-2 s): no case's logic needs longer."""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from collections.abc import Callable

from gridd.drmaa import codes
from tests.drmaa.capi import Lib

FOREVER = codes.TIMEOUT_WAIT_FOREVER
NO_WAIT = codes.TIMEOUT_NO_WAIT
ALL = codes.JOB_IDS_SESSION_ALL
ANY = codes.JOB_IDS_SESSION_ANY
JOB_CHUNK, NBULKS, NTHREADS = 8, 3, 3
SLEEP = "1"
HOLDS = (codes.PS_USER_ON_HOLD, codes.PS_USER_SYSTEM_ON_HOLD)


class Failed(Exception):
    """A check of the case did not hold."""


def check(ok: object, what: str) -> None:
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        raise Failed(what)


lib = Lib(os.environ["DRMAA_LIBRARY_PATH"])


def ok(result: tuple, what: str) -> tuple:
    check(result[0] == 0, f"{what}: rc {result[0]} {result[1]!r}")
    return result


def template(command: str, args: list[str], hold: bool = False, native: str = "",
             **attrs: str) -> object:
    """GE's sleeper/exit template: wd $drmaa_hd_ph$, joined output to /dev/null."""
    jt = ok(lib.allocate(), "allocate_job_template")[2]
    values = {"drmaa_wd": codes.PLACEHOLDER_HD, "drmaa_remote_command": command,
              "drmaa_join_files": "y", "drmaa_output_path": ":/dev/null", **attrs}
    if hold:
        values["drmaa_js_state"] = codes.HOLD
    if native:
        values["drmaa_native_specification"] = native
    for name, value in values.items():
        ok(lib.set(jt, name, value), f"set {name}={value}")
    if args:
        ok(lib.set_vector(jt, "drmaa_v_argv", args), f"set drmaa_v_argv={args}")
    return jt


def sleeper(seconds: str = SLEEP, **kw: object) -> object:
    return template("/bin/sleep", [seconds], **kw)  # type: ignore[arg-type]


def exiter(status: int) -> object:
    return template("/bin/sh", ["-c", f"exit {status}"])


def submit(jt: object) -> str:
    while True:
        rc, diag, job = lib.run_job(jt)
        if rc not in (codes.TRY_LATER, codes.DRM_COMMUNICATION_FAILURE):
            check(rc == 0, f"run_job: rc {rc} {diag!r}")
            return job
        time.sleep(1)


def bulk(jt: object, start: int = 1, end: int = 8, incr: int = 1) -> list[str]:
    rc, diag, ids, count, end_rc = lib.run_bulk(jt, start, end, incr)
    check(rc == 0, f"run_bulk_jobs {start}-{end}:{incr}: rc {rc} {diag!r}")
    n = len(range(start, end + 1, incr))
    check(count == n == len(ids), f"bulk ids: count {count}, read {len(ids)}, want {n}")
    check(end_rc == codes.NO_MORE_ELEMENTS, f"ids end with NO_MORE_ELEMENTS, got {end_rc}")
    return ids


def wait_all_jobs(n: int, no_rusage_ok: bool = False) -> None:
    """GE's wait_all_jobs: wait(ANY) with rusage until n reaped or INVALID_JOB."""
    reaped = 0
    while reaped < n:
        rc, diag, job, _stat, _usage = lib.wait(ANY, FOREVER)
        if rc == codes.INVALID_JOB:
            break
        check(rc == 0 or (no_rusage_ok and rc == codes.NO_RUSAGE),
              f"wait(ANY) reaps {job}: rc {rc} {diag!r}")
        reaped += 1
    print(f"ok   reaped {reaped} of {n}")


def wait_n_jobs(n: int) -> None:
    for _ in range(n):
        while (rc := lib.wait(ANY, FOREVER, rusage=False, outputs=False))[0] == codes.TRY_LATER:
            time.sleep(1)
        check(rc[0] == 0, f"wait(ANY, rusage NULL): rc {rc[0]} {rc[1]!r}")


def session(body: Callable[[], None]) -> None:
    ok(lib.init(None), "init")
    try:
        body()
    finally:
        ok(lib.exit(), "exit")


# -- the cases ---------------------------------------------------------------------------

def st_error_codes() -> None:
    names = ["SUCCESS", "INTERNAL_ERROR", "DRM_COMMUNICATION_FAILURE", "AUTH_FAILURE",
             "INVALID_ARGUMENT", "NO_ACTIVE_SESSION", "NO_MEMORY", "INVALID_CONTACT_STRING",
             "DEFAULT_CONTACT_STRING_ERROR", "NO_DEFAULT_CONTACT_STRING_SELECTED",
             "DRMS_INIT_FAILED", "ALREADY_ACTIVE_SESSION", "DRMS_EXIT_ERROR",
             "INVALID_ATTRIBUTE_FORMAT", "INVALID_ATTRIBUTE_VALUE",
             "CONFLICTING_ATTRIBUTE_VALUES", "TRY_LATER", "DENIED_BY_DRM", "INVALID_JOB",
             "RESUME_INCONSISTENT_STATE", "SUSPEND_INCONSISTENT_STATE",
             "HOLD_INCONSISTENT_STATE", "RELEASE_INCONSISTENT_STATE", "EXIT_TIMEOUT",
             "NO_RUSAGE", "NO_MORE_ELEMENTS"]
    for value, name in enumerate(names):
        check(getattr(codes, name) == value and lib.strerror(value),
              f"DRMAA_ERRNO_{name} = {value}: {lib.strerror(value)!r}")


def st_mult_init() -> None:
    ok(lib.init(None), "first init")
    rc = lib.init(None)
    check(rc[0] == codes.ALREADY_ACTIVE_SESSION, f"second init: rc {rc[0]} {rc[1]!r}")
    ok(lib.exit(), "exit")


def st_mult_exit() -> None:
    ok(lib.init(None), "init")
    ok(lib.exit(), "first exit")
    rc = lib.exit()
    check(rc[0] == codes.NO_ACTIVE_SESSION, f"second exit: rc {rc[0]} {rc[1]!r}")


def _supported(vector: bool) -> None:
    def body() -> None:
        rc, diag, names, count, end = lib.attribute_names(vector)
        check(rc == 0, f"get_{'vector_' if vector else ''}attribute_names: {rc} {diag!r}")
        check(count == len(names) > 0, f"count {count} = {len(names)} names iterated")
        check(end == codes.NO_MORE_ELEMENTS, f"iteration ends with NO_MORE_ELEMENTS ({end})")
        for name in names:
            print(f"     {name}")
    session(body)


def st_supported_attr() -> None:
    _supported(False)


def st_supported_vattr() -> None:
    _supported(True)


def st_version() -> None:
    rc, diag, version = lib.version()
    check(rc == 0 and version == (1, 0), f"version {version}: rc {rc} {diag!r}")


def _getter(fn: Callable[[], tuple[int, str, str]], what: str) -> None:
    rc, diag, before = fn()
    check(rc == 0, f"{what} before init: {before!r} rc {rc} {diag!r}")
    session(lambda: check(fn()[0] == 0, f"{what} in a session: {fn()[2]!r}"))


def st_drm_system() -> None:
    _getter(lib.drm_system, "DRM system")
    check(lib.drm_system()[2].startswith("SGE"), "DRM system starts with SGE")


def st_drmaa_impl() -> None:
    _getter(lib.drmaa_impl, "DRMAA implementation")


def st_contact() -> None:
    _getter(lib.get_contact, "contact")


def st_empty_session_wait() -> None:
    def body() -> None:
        rc = lib.wait(ANY, FOREVER)
        check(rc[0] == codes.INVALID_JOB, f"wait(ANY) on an empty session: rc {rc[0]}")
    session(body)


def _empty_sync(dispose: bool) -> None:
    session(lambda: ok(lib.synchronize([ALL], FOREVER, dispose), "synchronize(ALL)"))


def st_empty_session_synchronize_dispose() -> None:
    _empty_sync(True)


def st_empty_session_synchronize_nodispose() -> None:
    _empty_sync(False)


def st_empty_session_control(action: str) -> None:
    session(lambda: ok(lib.control(ALL, getattr(codes, action.removeprefix("DRMAA_"))),
                       f"control(ALL, {action})"))


def st_submit_wait() -> None:
    def body() -> None:
        jt = sleeper()
        for _ in range(JOB_CHUNK):
            submit(jt)
        wait_all_jobs(JOB_CHUNK)
    session(body)


def st_submit_no_run_wait() -> None:
    def body() -> None:
        submit(sleeper(native="-l a=fantasy_os -now yes -w n"))
        wait_all_jobs(1, no_rusage_ok=True)
    session(body)


def st_bulk_submit_wait() -> None:
    def body() -> None:
        jt = sleeper()
        for _ in range(NBULKS):
            bulk(jt)
        wait_n_jobs(NBULKS * 8)
    session(body)


def _mixture() -> list[str]:
    jt = sleeper()
    ids = []
    for _ in range(NBULKS):
        ids += bulk(jt)
    ids += [submit(jt) for _ in range(JOB_CHUNK)]
    return ids


def st_bulk_singlesubmit_wait_individual() -> None:
    def body() -> None:
        for job in _mixture():
            ok(lib.wait(job, FOREVER), f"wait({job})")
    session(body)


def _sync_mixture(explicit: bool, dispose: bool) -> None:
    def body() -> None:
        ids = _mixture()
        ok(lib.synchronize(ids if explicit else [ALL], FOREVER, dispose),
           f"synchronize({'all ids' if explicit else 'SESSION_ALL'}, dispose {dispose})")
        if not dispose:
            for job in ids:
                ok(lib.wait(job, FOREVER), f"wait({job}) after synchronize without dispose")
    session(body)


def st_submitmixture_sync_all_dispose() -> None:
    _sync_mixture(False, True)


def st_submitmixture_sync_all_nodispose() -> None:
    _sync_mixture(False, False)


def st_submitmixture_sync_allids_dispose() -> None:
    _sync_mixture(True, True)


def st_submitmixture_sync_allids_nodispose() -> None:
    _sync_mixture(True, False)


def st_exit_status(*statuses: str) -> None:
    """GE submits 255 jobs (0..254); the test passes the statuses it wants, for time."""
    def body() -> None:
        jobs = [(submit(exiter(int(s))), int(s)) for s in statuses]
        for job, status in jobs:
            rc, diag, _out, stat, _usage = lib.wait(job, FOREVER)
            check(rc == 0 and lib.wifexited(stat) and lib.wexitstatus(stat) == status,
                  f"job {job} exits {status}: rc {rc}, exited {lib.wifexited(stat)}, "
                  f"status {lib.wexitstatus(stat)}")
    session(body)


def _file_failure(**attrs: str) -> None:
    def body() -> None:
        job = submit(sleeper(**attrs))
        ok(lib.synchronize([ALL], FOREVER, False), "synchronize(ALL, no dispose)")
        rc, diag, state = lib.job_ps(job)
        check(rc == 0 and state == codes.PS_FAILED, f"job_ps {job}: {state:#x} rc {rc}")
        rc, diag, _out, stat, _usage = lib.wait(job, NO_WAIT, rusage=False)
        check(rc == 0 and lib.wifaborted(stat), f"wait {job}: rc {rc}, aborted "
              f"{lib.wifaborted(stat)} (stat {stat})")
    session(body)


def st_input_file_failure() -> None:
    _file_failure(drmaa_input_path=":<not existing file>")


def st_output_file_failure() -> None:
    _file_failure(drmaa_output_path=":/etc/passwd")


def st_error_file_failure() -> None:
    _file_failure(drmaa_join_files="n", drmaa_error_path=":/etc/passwd")


def _hold_single(action: int, final: int) -> None:
    def body() -> None:
        job = submit(sleeper(hold=True))
        state = lib.job_ps(job)[2]
        check(state in HOLDS, f"job_ps {job} held: {state:#x}")
        ok(lib.control(job, action), f"control({job}, {action})")
        ok(lib.synchronize([ALL], FOREVER, False), "synchronize(ALL)")
        state = lib.job_ps(job)[2]
        check(state == final, f"job_ps {job}: {state:#x}, want {final:#x}")
        wait_n_jobs(1)
    session(body)


def st_submit_in_hold_release() -> None:
    _hold_single(codes.CONTROL_RELEASE, codes.PS_DONE)


def st_submit_in_hold_delete() -> None:
    _hold_single(codes.CONTROL_TERMINATE, codes.PS_FAILED)


def _hold_bulk(per_task: bool, action: int, final: int) -> None:
    def body() -> None:
        ids = bulk(sleeper(hold=True))
        for job in ids:
            state = lib.job_ps(job)[2]
            check(state in HOLDS, f"job_ps {job} held: {state:#x}")
        for job in ids if per_task else [ALL]:
            ok(lib.control(job, action), f"control({job}, {action})")
        ok(lib.synchronize([ALL], FOREVER, False), "synchronize(ALL)")
        for job in ids:
            state = lib.job_ps(job)[2]
            check(state == final, f"job_ps {job}: {state:#x}, want {final:#x}")
        wait_n_jobs(len(ids))
    session(body)


def st_bulk_submit_in_hold_session_release() -> None:
    _hold_bulk(False, codes.CONTROL_RELEASE, codes.PS_DONE)


def st_bulk_submit_in_hold_single_release() -> None:
    _hold_bulk(True, codes.CONTROL_RELEASE, codes.PS_DONE)


def st_bulk_submit_in_hold_session_delete() -> None:
    _hold_bulk(False, codes.CONTROL_TERMINATE, codes.PS_FAILED)


def st_bulk_submit_in_hold_single_delete() -> None:
    _hold_bulk(True, codes.CONTROL_TERMINATE, codes.PS_FAILED)


def _polling(step: Callable[[str], tuple], timeout: int) -> None:
    def body() -> None:
        job = submit(sleeper("2"))
        while (rc := step(job))[0] == codes.EXIT_TIMEOUT:
            if timeout == 0:
                time.sleep(0.5)
        check(rc[0] == 0, f"polled {job} to its end: rc {rc[0]} {rc[1]!r}")
    session(body)


def st_submit_polling_wait_timeout() -> None:
    _polling(lambda job: lib.wait(job, 1), 1)


def st_submit_polling_wait_zerotimeout() -> None:
    _polling(lambda job: lib.wait(job, NO_WAIT), 0)


def st_submit_polling_synchronize_timeout() -> None:
    _polling(lambda job: lib.synchronize([ALL], 1, True), 1)


def st_submit_polling_synchronize_zerotimeout() -> None:
    _polling(lambda job: lib.synchronize([ALL], 0, True), 0)


def st_unsupported_attr() -> None:
    def body() -> None:
        jt = ok(lib.allocate(), "allocate")[2]
        rc = lib.set(jt, "blah", "blah")
        check(rc[0] == codes.INVALID_ARGUMENT, f"set blah: rc {rc[0]} {rc[1]!r}")
    session(body)


def st_unsupported_vattr() -> None:
    def body() -> None:
        jt = ok(lib.allocate(), "allocate")[2]
        rc = lib.set_vector(jt, "blah", ["blah"])
        check(rc[0] == codes.INVALID_ARGUMENT, f"set_vector blah: rc {rc[0]} {rc[1]!r}")
    session(body)


def st_synchronize_nonexistant() -> None:
    def body() -> None:
        job = submit(sleeper())
        ok(lib.synchronize([str(int(job) + 1)], FOREVER, False), "synchronize(unknown id)")
        wait_all_jobs(1)
    session(body)


def st_submit_suspend_resume_wait() -> None:
    def body() -> None:
        job = submit(sleeper("4"))
        deadline = time.monotonic() + 30
        while lib.job_ps(job)[2] != codes.PS_RUNNING:
            check(time.monotonic() < deadline, f"job {job} runs within 30 s")
            time.sleep(0.1)
        ok(lib.control(job, codes.CONTROL_SUSPEND), "suspend")
        state = lib.job_ps(job)[2]
        check(state == codes.PS_USER_SUSPENDED, f"job_ps after suspend {state:#x}")
        ok(lib.control(job, codes.CONTROL_RESUME), "resume")
        state = lib.job_ps(job)[2]
        check(state == codes.PS_RUNNING, f"job_ps right after resume {state:#x}")
        rc, diag, _out, stat, _usage = lib.wait(job, FOREVER)
        check(rc == 0 and lib.wifexited(stat) and lib.wexitstatus(stat) == 0,
              f"wait: rc {rc}, exited {lib.wifexited(stat)}, status {lib.wexitstatus(stat)}")
    session(body)


def st_usage_check() -> None:
    def body() -> None:
        job = submit(exiter(0))
        rc, diag, _out, _stat, usage = lib.wait(job, FOREVER)
        check(rc == 0 and usage, f"wait {job} with rusage: rc {rc} {diag!r}")
        assert usage is not None
        check(all(re.fullmatch(r"\w+=\S+", u) for u in usage), f"{len(usage)} name=value")
        for line in usage:
            print(f"     {line}")
    session(body)


def st_drmaa_job_ps(*jobs: str) -> None:
    """GE's manual case made a check: a held job, a running one and a finished one."""
    def body() -> None:
        held = submit(sleeper(hold=True))
        running = submit(sleeper("5"))
        done = submit(exiter(0))
        ok(lib.synchronize([done], FOREVER, False), f"synchronize({done}), not reaped")
        deadline = time.monotonic() + 30
        while lib.job_ps(running)[2] != codes.PS_RUNNING:
            check(time.monotonic() < deadline, f"job {running} runs within 30 s")
            time.sleep(0.1)
        for job, want in ((held, HOLDS), (running, (codes.PS_RUNNING,)),
                          (done, (codes.PS_DONE,))):
            rc, diag, state = lib.job_ps(job)
            check(rc == 0 and state in want, f"job_ps {job}: {state:#x}")
        rc = lib.job_ps("abc")
        check(rc[0] == codes.INVALID_ARGUMENT, f"job_ps abc: rc {rc[0]} {rc[1]!r}")
        ok(lib.wait(done, NO_WAIT), f"wait({done})")
        ok(lib.control(ALL, codes.CONTROL_TERMINATE), "terminate all")
        wait_n_jobs(2)
    session(body)


def st_drmaa_control() -> None:
    """GE's manual case made a check: each action on a held and a running job, codes."""
    def body() -> None:
        held = submit(sleeper("30", hold=True))
        running = submit(sleeper("30"))
        deadline = time.monotonic() + 30
        while lib.job_ps(running)[2] != codes.PS_RUNNING:
            check(time.monotonic() < deadline, f"job {running} runs within 30 s")
            time.sleep(0.1)
        for job, action, want in ((held, codes.CONTROL_RELEASE, 0),
                                  (held, codes.CONTROL_HOLD, 0),
                                  (running, codes.CONTROL_SUSPEND, 0),
                                  (running, codes.CONTROL_RESUME, 0),
                                  ("abc", codes.CONTROL_TERMINATE, codes.INVALID_ARGUMENT),
                                  (str(int(running) + 100), codes.CONTROL_TERMINATE,
                                   codes.INVALID_JOB)):
            rc = lib.control(job, action)
            check(rc[0] == want, f"control({job}, {action}): rc {rc[0]} {rc[1]!r}")
        ok(lib.control(ALL, codes.CONTROL_TERMINATE), "terminate all")
        for job in (held, running):
            rc, diag, _out, stat, _u = lib.wait(job, FOREVER, rusage=False)
            check(rc == 0 and lib.wifaborted(stat) or lib.wifsignaled(stat),
                  f"wait {job} after terminate: rc {rc} stat {stat}")
    session(body)


def _submitted_name(diag: str) -> str:
    """The job name in the master's words ("Your job N ("name") has been submitted")."""
    match = re.search(r'\("(.*)"\) has been submitted', diag)
    return match.group(1) if match else ""


def _run_and_wait(jt: object, what: str) -> tuple[str, int]:
    """Submit, wait: (the master's words, stat)."""
    rc, diag, job = lib.run_job(jt)
    check(rc == 0, f"{what}: run_job rc {rc} {diag!r}")
    rc, wdiag, _out, stat, _usage = lib.wait(job, FOREVER, rusage=False)
    check(rc == 0, f"{what}: wait {job} rc {rc} {wdiag!r}")
    return diag, stat


def _held_named(jt: object, name: str, what: str) -> None:
    """The job is held and named `name`; released, it ends."""
    rc, diag, job = lib.run_job(jt)
    check(rc == 0 and _submitted_name(diag) == name, f"{what}: named {name}: {diag!r}")
    check(lib.job_ps(job)[2] in HOLDS, f"{what}: job {job} held")
    ok(lib.control(job, codes.CONTROL_RELEASE), f"{what}: release")
    ok(lib.wait(job, FOREVER, rusage=False), f"{what}: wait")


def st_attribute_check(workdir: str) -> None:
    """GE's ST_ATTRIBUTE_CHECK sub-cases (a)-(i) (mail ones left out: no mail check).
    Files go in `workdir` (GE's /tmp); the start time is now + 5 s, not + 1 min; (d) and
    (e) check what GNU tar and sh say, not GE's tar's own texts."""
    def body() -> None:
        # (a) remote command and argv: the exit status
        _diag, stat = _run_and_wait(exiter(5), "(a)")
        check(lib.wexitstatus(stat) == 5, f"(a) exit status {lib.wexitstatus(stat)}")
        # (b) hold and job name
        _held_named(template("/bin/true", [], hold=True, drmaa_job_name="ExitTest"),
                    "ExitTest", "(b)")
        # (c) wd, input and output paths relative to it
        with open(os.path.join(workdir, "in.txt"), "w") as f:
            f.write("a text to mirror\n")
        _run_and_wait(template("/bin/cat", [], drmaa_wd=workdir, drmaa_join_files="n",
                               drmaa_input_path=":in.txt", drmaa_output_path=":out.txt"),
                      "(c)")
        with open(os.path.join(workdir, "out.txt")) as f:
            check(f.read() == "a text to mirror\n", "(c) output = input")
        # (d) a command found on PATH; its stderr in the error path
        _run_and_wait(template("tar", [], drmaa_wd=workdir, drmaa_join_files="n",
                               drmaa_output_path=":/dev/null", drmaa_error_path=":err.txt"),
                      "(d)")
        with open(os.path.join(workdir, "err.txt")) as f:
            said = f.read()
        check(said.startswith("tar:"), f"(d) tar's complaint in the error file: {said!r}")
        # (e) join: stderr into the output file, beside stdout
        _run_and_wait(template("/bin/sh", ["-c", "echo to-out; echo to-err >&2"],
                               drmaa_wd=workdir, drmaa_output_path=":joined.txt"), "(e)")
        with open(os.path.join(workdir, "joined.txt")) as f:
            lines = sorted(f.read().split())
        check(lines == ["to-err", "to-out"], f"(e) both streams in the output: {lines}")
        # (f) job category from the cell's qtask file; the DRMAA job name wins over it
        qtask = os.path.join(os.environ["GRIDD_ROOT"], "common", "qtask")
        with open(qtask, "w") as f:
            f.write("test.cat -N ExitTest -h\n")
        try:
            _held_named(template("/bin/true", [], drmaa_job_category="test.cat"),
                        "ExitTest", "(f)")
            _held_named(template("/bin/true", [], drmaa_job_category="test.cat",
                                 drmaa_job_name="DRMAAExitTest"), "DRMAAExitTest", "(f)")
        finally:
            os.unlink(qtask)
        # (g) the native specification; the DRMAA job name wins over its -N
        _held_named(template("/bin/true", [], native="-h -N ExitTest"), "ExitTest", "(g)")
        _held_named(template("/bin/true", [], native="-h -N ExitTest",
                             drmaa_job_name="DRMAAExitTest"), "DRMAAExitTest", "(g)")
        # (h) start time: the job does not end before it
        start = time.time() + 5
        when = time.strftime("%Y/%m/%d %H:%M:%S", time.localtime(start))
        _run_and_wait(template("/bin/true", [], drmaa_start_time=when), "(h)")
        check(time.time() >= int(start), f"(h) ended after its start time {when}")
        # (i) the job's environment, expanded by a shell (native -shell y)
        jt = template("/bin/echo", ["$YOU_ARE_MY_SUNSHINE"], native="-shell y",
                      drmaa_wd=workdir, drmaa_output_path=":env.txt")
        ok(lib.set_vector(jt, "drmaa_v_env", ["YOU_ARE_MY_SUNSHINE=MyOnlySunshine"]), "v_env")
        _run_and_wait(jt, "(i)")
        with open(os.path.join(workdir, "env.txt")) as f:
            said = f.read()
        check(said == "MyOnlySunshine\n", f"(i) the variable expanded: {said!r}")
    session(body)


def st_input_becomes_output(workdir: str) -> None:
    """/bin/cat with input and output paths: the output is the input."""
    def body() -> None:
        source, target = os.path.join(workdir, "mirror.in"), os.path.join(workdir, "mirror.out")
        with open(source, "w") as f:
            f.write("line one\nline two\n")
        _run_and_wait(template("/bin/cat", [], drmaa_input_path=f":{source}",
                               drmaa_output_path=f":{target}"), "cat")
        with open(target) as f:
            check(f.read() == "line one\nline two\n", "output = input")
    session(body)


def _threads(work: Callable[[], None]) -> None:
    """NTHREADS threads running `work`; a check failed in one fails the case."""
    failed: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except Failed as exc:
            failed.append(exc)

    threads = [threading.Thread(target=run) for _ in range(NTHREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    check(not failed, f"{NTHREADS} threads' checks held")


def mt_submit_wait() -> None:
    def body() -> None:
        jt = sleeper()
        _threads(lambda: [submit(jt) for _ in range(JOB_CHUNK)] and None)
        wait_all_jobs(NTHREADS * JOB_CHUNK)
    session(body)


def mt_submit_mt_wait() -> None:
    def body() -> None:
        jt = sleeper()

        def work() -> None:
            for job in [submit(jt) for _ in range(JOB_CHUNK)]:
                ok(lib.wait(job, FOREVER), f"wait({job}) in its thread")
        _threads(work)
    session(body)


def mt_exit_during_submit_or_wait() -> None:
    """drmaa_exit while other threads wait: their waits end with NO_ACTIVE_SESSION
    instead of blocking until their jobs end (a held job here: they never would)."""
    ok(lib.init(None), "init")
    jt = sleeper(hold=True)
    job = submit(jt)
    ended: list[tuple] = []
    waiters = [threading.Thread(target=lambda: ended.append(lib.wait(job, FOREVER)))
               for _ in range(NTHREADS)]
    for thread in waiters:
        thread.start()
    time.sleep(0.5)  # the waits are under way, or come after exit: either way they end
    ok(lib.exit(), "exit while threads wait")
    for thread in waiters:
        thread.join(timeout=10)
    check(not any(t.is_alive() for t in waiters), "every wait returned after exit")
    check([r[0] for r in ended] == [codes.NO_ACTIVE_SESSION] * NTHREADS,
          f"the waits ended with NO_ACTIVE_SESSION: {[r[:2] for r in ended]}")
    ok(lib.init(None), "init again")
    ok(lib.control(job, codes.CONTROL_TERMINATE), f"terminate {job}")
    ok(lib.exit(), "exit")


def st_reaped_job() -> None:
    """Not one of test_drmaa's: what Grid Engine's library answers (measured, reference
    section 3) once wait has reaped a job: wait and job_ps say INVALID_JOB, synchronize 0."""
    def body() -> None:
        job = submit(exiter(0))
        ok(lib.wait(job, FOREVER), f"wait({job})")
        for timeout in (NO_WAIT, FOREVER):
            rc = lib.wait(job, timeout)
            check(rc[0] == codes.INVALID_JOB, f"wait({job}, {timeout}) again: rc {rc[0]}")
        rc = lib.job_ps(job)
        check(rc[0] == codes.INVALID_JOB, f"job_ps({job}) reaped: rc {rc[0]} {rc[1]!r}")
        ok(lib.synchronize([job], NO_WAIT, False), f"synchronize({job})")
    session(body)


def _finish_order(pattern: str, seconds: list[str], natives: list[str]) -> None:
    """Three sleepers in hold, each with its native spec; one RELEASE of SESSION_ALL; the
    finish order read from wait(ANY) must match the pattern ("0,2-1": groups by '-')."""
    def body() -> None:
        jobs = {submit(sleeper(s, hold=True, native=n)): i
                for i, (s, n) in enumerate(zip(seconds, natives, strict=True))}
        ok(lib.control(ALL, codes.CONTROL_RELEASE), "release all")
        order = []
        for _ in jobs:
            rc, diag, job, stat, _u = lib.wait(ANY, FOREVER, rusage=False)
            check(rc == 0 and lib.wifexited(stat), f"wait(ANY) -> {job}: rc {rc} {diag!r}")
            order.append(jobs[job])
        groups = [{int(m) for m in g.split(",")} for g in pattern.split("-")]
        want = iter(groups)
        current: set[int] = set()
        for index in order:
            if not current:
                current = set(next(want))
            check(index in current, f"job{index} ends in its turn ({order} vs {pattern})")
            current.discard(index)
        print(f"ok   finish order {order} matches {pattern}")
    session(body)


def st_reservation_finish_order(*args: str) -> None:
    _finish_order("0-1-2", list(args[0::2]), list(args[1::2]))


def st_backfill_finish_order(*args: str) -> None:
    _finish_order("0,2-1", list(args[0::2]), list(args[1::2]))


def main(argv: list[str]) -> int:
    case = (globals().get(argv[0].lower())
            if argv and argv[0][:3].lower() in ("st_", "mt_") else None)
    if case is None:
        print(f"usage: cases.py ST_CASE [args...]; no case {argv[:1]}", file=sys.stderr)
        return 2
    try:
        case(*argv[1:])
    except Failed:
        print(f"{argv[0]}: failed")
        return 1
    print(f"{argv[0]}: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
