"""What a task of an interactive job or of qrsh -inherit sees beside a batch job's
variables (runner._environment, planned without running anything): 8.1.9's, as measured
with `qrsh -now y env` and `qrsh -inherit [-V] HOST env` in a PE job (ge_qrsh_facts)."""

from __future__ import annotations

from pathlib import Path

from gridd.execd.runner import DEFAULT_PATH, Owner, environment_file, plan_task
from gridd.model.job import Job, JobSpec, Task
from gridd.protocol import StartTask
from gridd.sge_root import arch_name

ROOT = "/cells/c1"
OWNER = Owner(name="ann", uid=1000, gid=1000, groups=(1000,), home="/home/ann")
GRANTED = [("all.q@node1", 2), ("all.q@node2", 2)]


def start(pe_task: str = "", pe_command: tuple[str, ...] = (),
          pe_env: dict[str, str] | None = None, **spec: object) -> StartTask:
    """A StartTask on node2 of job 8 (-b y mpirun a.out in PE mpi over two hosts), or of
    its PE task with qrsh -inherit's command and variables."""
    fields: dict[str, object] = {"name": "mpi", "owner": "ann", "binary": True,
                                 "command": ["mpirun", "a.out"], "pe_name": "mpi",
                                 "env": {"FROM_V": "job", "PATH": "/job/bin"}}
    fields.update(spec)
    job = Job(job_id=8, spec=JobSpec(**fields), submit_time=0.0,  # type: ignore[arg-type]
              tasks={0: Task(0, pe="mpi")})
    return StartTask(job=job, task_id=0, queue="all.q@node2", granted=GRANTED,
                     tmpdir="/tmp", pe_task=pe_task, command=list(pe_command),
                     env=pe_env or {})


def environment(message: StartTask) -> dict[str, str]:
    return plan_task(message, host="node2", spool_dir=Path("/var/spool/gridd/node2"),
                     root=ROOT, owner=OWNER).env


def test_every_job_names_the_cells_grid_engine_root_and_its_arch() -> None:
    """ARC and SGE_ARCH (Open MPI asks ARC), SGE_ROOT inside the root whose SGE_CELL
    leads back to it, and the cell's commands on PATH after TMPDIR."""
    env = environment(start())
    arc = arch_name()
    assert {name: env[name] for name in ("ARC", "SGE_ARCH", "SGE_ROOT", "SGE_CELL",
                                         "GRIDD_ROOT", "PE", "NSLOTS", "NHOSTS", "JOB_ID")} == {
        "ARC": arc, "SGE_ARCH": arc, "SGE_ROOT": f"{ROOT}/sge", "SGE_CELL": "default",
        "GRIDD_ROOT": ROOT, "PE": "mpi", "NSLOTS": "4", "NHOSTS": "2", "JOB_ID": "8"}
    assert env["PATH"] == f"/tmp/8.1.all.q:{ROOT}/sge/bin/{arc}:/job/bin"
    assert env["ENVIRONMENT"] == "BATCH"
    assert "QRSH_COMMAND" not in env
    assert env["JOB_SCRIPT"] == "mpirun"  # a -b y job's: its command


def test_a_qrsh_job_is_told_its_command_and_has_no_stream_files() -> None:
    """QRSH_COMMAND has its words apart, the byte 0xff between them (8.1.9's
    `qrsh printenv QRSH_COMMAND` prints printenv, 0xff, QRSH_COMMAND)."""
    env = environment(start(name="env", command=["env", "a b", "$HOME"], interactive="qrsh",
                            pe_name=""))
    assert {name: env[name] for name in ("JOB_SCRIPT", "QRSH_COMMAND", "ENVIRONMENT",
                                         "JOB_NAME", "REQUEST", "SGE_STDIN_PATH",
                                         "SGE_STDOUT_PATH", "SGE_STDERR_PATH")} == {
        "JOB_SCRIPT": "QRSH", "QRSH_COMMAND": "env\udcffa b\udcff$HOME", "ENVIRONMENT": "BATCH",
        "JOB_NAME": "env", "REQUEST": "env", "SGE_STDIN_PATH": "/dev/null",
        "SGE_STDOUT_PATH": "/dev/null", "SGE_STDERR_PATH": "/dev/null"}
    assert "PE" not in env and "PE_HOSTFILE" not in env
    assert b"\0QRSH_COMMAND=env\xffa b\xff$HOME\0" in environment_file(env)


def test_a_login_session_has_no_command() -> None:
    for kind, name in (("qlogin", "QLOGIN"), ("qrsh", "QRLOGIN")):
        env = environment(start(name=name, command=[], binary=False, interactive=kind,
                                pty=True, pe_name=""))
        assert env["JOB_SCRIPT"] == kind.upper()
        assert env["JOB_NAME"] == name
        assert "QRSH_COMMAND" not in env


def test_a_pe_task_is_a_petask_running_its_command_with_qrshs_variables_under_the_jobs() -> None:
    """qrsh -inherit -V: its variables over the job's -v ones, the job's own (TMPDIR,
    HOSTNAME, QUEUE...) over both; PATH is qrsh's after TMPDIR and the cell's commands."""
    env = environment(start(pe_task="1.node2", pe_command=(" orted", "-mca", "ess", '"env"'),
                            pe_env={"FROM_V": "qrsh", "TMPDIR": "/bogus", "HOSTNAME": "bogus",
                                 "QUEUE": "bogus", "OMPI_X": "1", "PATH": "/usr/bin"}))
    assert {name: env[name] for name in ("JOB_NAME", "REQUEST", "JOB_SCRIPT", "QRSH_COMMAND",
                                         "FROM_V", "OMPI_X", "TMPDIR", "HOSTNAME", "QUEUE",
                                         "PE", "JOB_ID", "SGE_STDOUT_PATH")} == {
        "JOB_NAME": "petask", "REQUEST": "petask", "JOB_SCRIPT": "QRSH",
        "QRSH_COMMAND": '\udcff'.join([" orted", "-mca", "ess", '"env"']),
        "FROM_V": "qrsh", "OMPI_X": "1",
        "TMPDIR": "/tmp/8.1.all.q", "HOSTNAME": "node2", "QUEUE": "all.q", "PE": "mpi",
        "JOB_ID": "8", "SGE_STDOUT_PATH": "/dev/null"}
    assert env["PATH"] == f"/tmp/8.1.all.q:{ROOT}/sge/bin/{arch_name()}:/usr/bin"


def test_a_pe_task_without_v_has_the_jobs_variables_only() -> None:
    env = environment(start(pe_task="2.node2", pe_command=("hostname",), env={}))
    assert env["PATH"] == f"/tmp/8.1.all.q:{ROOT}/sge/bin/{arch_name()}:{DEFAULT_PATH}"
    assert "FROM_V" not in env
    assert env["QRSH_COMMAND"] == "hostname"


def test_a_task_sees_the_rsmap_ids_it_holds_where_it_runs() -> None:
    """SGE_HGR_<name> (Open Cluster Scheduler's) with the ids on this host, then the
    global host's; a complex named gpu also as CUDA_VISIBLE_DEVICES, comma-separated."""
    message = start(env={"CUDA_VISIBLE_DEVICES": "all"})
    message.job.tasks[0].resource_map = [
        ("gpu", "node1", ["0", "1"]), ("gpu", "node2", ["2", "GPU3"]),
        ("port", "global", ["65000"]), ("fpga", "node2", ["a", "a"])]
    env = environment(message)
    assert {name: value for name, value in env.items()
            if name.startswith("SGE_HGR_") or name == "CUDA_VISIBLE_DEVICES"} == {
        "SGE_HGR_gpu": "2 GPU3", "SGE_HGR_port": "65000", "SGE_HGR_fpga": "a a",
        "CUDA_VISIBLE_DEVICES": "2,GPU3"}
    assert "SGE_HGR_gpu" not in environment(start())
