"""Jobs, array tasks and what they used.

msgspec Structs rather than dataclasses: creating the classes costs microseconds instead
of the dataclass code generation, which matters to every short-lived q* command, and the
protocol encodes and validates them as they are.
"""


import msgspec

from gridd.model.rsmap import ResourceMap
from gridd.model.task_lifecycle import HELD, NEW, PENDING, SUBMIT, SUBMIT_HELD, TABLE, after

HOLDS = "uos"  # the holds: user, operator, system (qhold -h), in qstat's order


class JobSpec(msgspec.Struct):
    """Everything a submitter asks for; fixed at submission except what qalter changes."""

    name: str = ""
    owner: str = ""
    uid: int = 0
    group: str = ""
    gid: int = 0
    submit_host: str = ""
    o_home: str = ""
    o_path: str = ""
    o_shell: str = ""
    o_workdir: str = ""
    o_mail: str = ""
    o_logname: str = ""
    o_tz: str = ""
    account: str = "sge"
    project: str = ""
    department: str = "defaultdepartment"
    binary: bool = False
    command: list[str] = msgspec.field(default_factory=list)  # binary: argv; script: [path] + args
    script: str = ""  # script text for non-binary jobs, copied at submission
    script_name: str = ""  # what qstat shows as script_file
    args: list[str] = msgspec.field(default_factory=list)
    cwd: str = ""  # working directory chosen with -cwd or -wd; "" means $HOME
    stdout_path: list[str] = msgspec.field(default_factory=list)  # -o entries ([host:]path)
    stderr_path: list[str] = msgspec.field(default_factory=list)
    stdin_path: str = ""  # -i ("": /dev/null)
    merge: bool = False
    shell: str = ""  # -S
    env: dict[str, str] = msgspec.field(default_factory=dict)  # -v/-V
    # -l name=value, values as given
    hard_resources: dict[str, str] = msgspec.field(default_factory=dict)
    soft_resources: dict[str, str] = msgspec.field(default_factory=dict)
    hard_queues: list[str] = msgspec.field(default_factory=list)  # -q
    soft_queues: list[str] = msgspec.field(default_factory=list)  # -q after -soft
    pe_name: str = ""
    pe_min: int = 0
    pe_max: int = 0
    priority: int = 0  # -p, -1023..1024
    hold: bool = False  # -h
    hold_jid: list[str] = msgspec.field(default_factory=list)  # names or ids as given
    # -hold_jid_ad: arrays whose task N this array's task N waits for (names or ids)
    hold_jid_ad: list[str] = msgspec.field(default_factory=list)
    array: tuple[int, int, int] | None = None  # (first, last, step) of -t
    immediate: bool = False  # -now y
    reserve: bool = False  # -R y
    notify: bool = False
    mail_options: str = ""
    mail_list: list[str] = msgspec.field(default_factory=list)
    sync: bool = False
    verify: str = ""  # -w e|v|w|n|p
    ar: int = 0
    ar_submission_time: float = 0.0  # of the AR, kept for the accounting record
    start_time: float = 0.0  # -a: not to start before (epoch seconds; 0: at once)
    deadline: float = 0.0  # -dl (epoch seconds; 0: none)
    restart: str = ""  # -r y|n ("": as the queue's rerun says)
    noshell: bool = False  # -shell n: a binary job's command is not run by a shell
    context: dict[str, str] = msgspec.field(default_factory=dict)  # -ac/-sc/-dc
    binding: str = ""  # -binding, its type spelled out ("set linear:1"); "": none
    jobshare: int = 0  # -js
    checkpoint: str = ""  # -ckpt: a checkpointing environment (gridd has none to offer)
    checkpoint_when: str = ""  # -c: when to checkpoint (letters of nsmxr, or an interval)
    master_queues: list[str] = msgspec.field(default_factory=list)  # -masterq
    task_concurrency: int = 0  # -tc: an array's tasks running at once at most (0: any)
    # An interactive job (qrsh, qlogin; "" a batch job): its standard streams travel to
    # the qrsh that submitted it, over a session with execd that session_key (qrsh's
    # one-time CURVE public key) opens; pty: on a pseudo-terminal (qlogin, qrsh without
    # a command, -pty y).
    interactive: str = ""
    pty: bool = False
    session_key: bytes = b""
    # A DRMAA job: a failure that would put a task in error state ends it instead (its
    # program waits for its end, and nobody is there to clear the error).
    no_error_state: bool = False

    def slots(self) -> int:
        """Slots one task needs: the lower end of the PE range, else 1."""
        return self.pe_min if self.pe_name else 1


class Usage(msgspec.Struct):
    """What one task used, as execd measured it (seconds, bytes)."""

    wallclock: float = 0.0
    utime: float = 0.0
    stime: float = 0.0
    maxrss: float = 0.0  # kilobytes, like getrusage
    minflt: int = 0
    majflt: int = 0
    inblock: int = 0
    oublock: int = 0
    nvcsw: int = 0
    nivcsw: int = 0
    maxvmem: float = 0.0  # bytes
    io: float = 0.0  # bytes read and written
    mem: float = 0.0  # GiB seconds: virtual memory integrated over the run
    vmem: float = 0.0  # bytes, at the last sample (online usage of a running task)


def changed_context(context: dict[str, str], changes: list[tuple[str, dict[str, str]]]
                    ) -> dict[str, str]:
    """A job's context after qsub's or qalter's -sc (replace), -ac (add) and -dc (delete)
    in the order given."""
    result = dict(context)
    for op, items in changes:
        if op == "-sc":
            result = dict(items)
        elif op == "-ac":
            result.update(items)
        else:
            for name in items:
                result.pop(name, None)
    return result


# The characters 8.1.9 refuses in a job's or an AR's name, in the order it looks for them,
# with its words.
_NAME_CHARACTERS = (("\n", "Return"), ("\t", "Tab"), ("\r", "Carriage return"),
                    (":", "Colon (':')"), ("@", "At ('@')"), ("\\", "Backslash ('\\')"),
                    ("*", "Asterisk ('*')"), ("?", "Questionmark ('?')"))


def object_name_refusal(name: str) -> str | None:
    """Why 8.1.9 refuses ``name`` for a job or an advance reservation, in its words, or
    None: a leading digit, then the characters above."""
    if name[:1].isdigit():
        return f'denied: "{name}" is not a valid object name (cannot start with a digit)'
    for character, said in _NAME_CHARACTERS:
        if character in name:
            return f"{said} not allowed in objectname"
    return None


def name_refusal(name: str) -> str | None:
    """Why a job may not be called ``name``, in 8.1.9's words, or None. A name with
    blanks is refused too (8.1.9 then fails to say why: "Error reading answer list"):
    qstat's columns could not be read back."""
    if not name:
        return "job rejected cause there is no job_name in the request"
    refusal = object_name_refusal(name)
    if refusal:
        return refusal
    if any(c.isspace() for c in name):
        return (f'denied: job name "{name}" contains whitespace (a job is named after its '
                "command or script unless -N names it)")
    return None


INTERACTIVE = ("qrsh", "qlogin")  # JobSpec.interactive of an interactive job
SESSION_KEY_BYTES = 32  # a CURVE public key


def interactive_refusal(spec: JobSpec) -> str | None:
    """Why a job's interactive part cannot be: an unknown kind, no session key to open
    its streams with (or one that is not a key), a pty for a batch job."""
    if spec.interactive and spec.interactive not in INTERACTIVE:
        return f'unknown interactive job type "{spec.interactive}"'
    if spec.interactive and len(spec.session_key) != SESSION_KEY_BYTES:
        return (f"an interactive job needs its session's public key of {SESSION_KEY_BYTES} "
                f"bytes, not {len(spec.session_key)}")
    if not spec.interactive and (spec.session_key or spec.pty):
        return "a batch job has no session and no pseudo-terminal"
    return None


class PeTask(msgspec.Struct):
    """A task of a parallel job started by ``qrsh -inherit`` on one of its hosts: counted
    against the job's slots there, killed with the job, accounted as a task of it."""

    pe_task_id: str  # as Grid Engine names them: a number and the host ("1.node2")
    host: str
    command: list[str] = msgspec.field(default_factory=list)
    queue: str = ""  # the job's queue instance on its host
    requested: float = 0.0  # when qrsh -inherit asked for it (its record's submission)
    seq: int = 0  # the outbox entry of its own accounting record; 0 while it has none
    start_time: float = 0.0  # 0 until its execd says it runs
    end_time: float = 0.0
    exit_status: int = 0
    failed: int = 0
    usage: Usage = msgspec.field(default_factory=Usage)
    done: bool = False  # ended; kept until accounted


class Task(msgspec.Struct):
    """One array task (task 0 stands for the only task of a non-array job)."""

    task_id: int
    state: str = PENDING
    start_time: float = 0.0
    end_time: float = 0.0
    queue: str = ""  # queue instance of the master task, e.g. all.q@node1
    host: str = ""
    granted: list[tuple[str, int]] = msgspec.field(default_factory=list)  # (queue instance, slots)
    pe: str = ""  # the parallel environment granted (the request may be a wildcard)
    exit_status: int = 0
    failed: int = 0
    failed_reason: str = ""
    signal: str = ""
    usage: Usage = msgspec.field(default_factory=Usage)
    delete_requested: bool = False
    suspended: bool = False  # by qmod -sj (shown "s"); queue suspension is the queue's state
    stopped: bool = False  # what execd was last told: its processes are stopped
    rescheduling: bool = False  # qmod -r asked: its run ends, and it waits again
    rerun: bool = False  # rescheduled before (qstat shows Rq, Rr)
    holds: str = ""  # letters of HOLDS set on it ("" with state HELD: the user hold)
    # When the master last ended a run of it on an unknown host (reschedule_unknown): a
    # report of a run started before then is of that run, its execd cut off meanwhile.
    given_up: float = 0.0
    # The tasks qrsh -inherit started of this (parallel) task, by PE task id ("1.node2").
    pe_tasks: dict[str, PeTask] = msgspec.field(default_factory=dict)
    resource_map: ResourceMap = msgspec.field(default_factory=list)  # the RSMAP ids it holds

    def hold_letters(self) -> str:
        return self.holds or ("u" if self.state == HELD else "")

    def move(self, event: str) -> bool:
        """Take the state the task lifecycle's table gives for `event` (True), or keep
        this one when the table refuses the event (False)."""
        state = after(self.state, event)
        if state is None:
            return False
        self.state = state
        return True


class Job(msgspec.Struct):
    job_id: int
    spec: JobSpec
    submit_time: float
    tasks: dict[int, Task] = msgspec.field(default_factory=dict)

    @property
    def is_array(self) -> bool:
        return self.spec.array is not None

    def task_ids(self) -> list[int]:
        if self.spec.array is None:
            return [0]
        first, last, step = self.spec.array
        return list(range(first, last + 1, step))


def new_job(job_id: int, spec: JobSpec, now: float) -> Job:
    state = TABLE[NEW][SUBMIT_HELD if spec.hold else SUBMIT]
    job = Job(job_id=job_id, spec=spec, submit_time=now)
    for tid in job.task_ids():
        job.tasks[tid] = Task(task_id=tid, state=state)
    return job
