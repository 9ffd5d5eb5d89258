"""Every message that crosses a socket, with its version.

A message is one msgpack frame holding a tagged struct; ``decode`` turns anything that
is not a known message of this version into ``ProtocolError`` so that no actor ever
sees a malformed value.
"""

from typing import Any, ClassVar

import msgspec

from gridd.model.ar import AdvanceReservation, ArSpec
from gridd.model.cluster import ExecHost, Queue, Resource
from gridd.model.job import Job, JobSpec, Task, Usage
from gridd.model.message import VERSION, Msg
from gridd.model.planning import Dispatch, Reserved, SchedEvent, SchedState
from gridd.model.report import Report
from gridd.model.rqs import QuotaRow
from gridd.model.selection import QueueSelect

MAX_MESSAGE = 16 * 1024 * 1024  # bytes; larger frames are refused before decoding
# What a client takes from the master, whose key it knows: a qstat of a cell with
# hundreds of thousands of pending tasks is larger than any request may be.
MAX_REPLY = 1024 * 1024 * 1024


class ProtocolError(Exception):
    """A frame that is not a well-formed message of this version."""


# ---- generic replies -------------------------------------------------------------

class Error(Msg, tag="error"):
    """A refused request: text as the client prints it, exit code as Grid Engine's.
    `later`: refused unapplied for the connection's request rate, so the same request
    may be sent again after a pause (Client.submit_many does)."""

    text: str
    code: int = 1
    later: bool = False


class Ok(Msg, tag="ok"):
    lines: list[str] = []
    code: int = 0


# ---- client -> master --------------------------------------------------------------

class Ping(Msg, tag="ping"):
    pass


class Submit(Msg, tag="submit"):
    spec: JobSpec


class Submitted(Msg, tag="submitted"):
    job_id: int
    name: str
    array: tuple[int, int, int] | None = None
    warnings: list[str] = []  # qsub -w w: submitted, but it may never run


class WaitJob(Msg, tag="wait_job"):
    """Answered when every task of the job has finished (qsub -sync y)."""

    job_id: int


class JobExited(Msg, tag="job_exited"):
    job_id: int
    exit_status: int
    signal: str = ""
    failed: int = 0
    deleted: bool = False


class WaitTasks(Msg, tag="wait_tasks"):
    """DRMAA's wait: answered with how the first of `tasks` (job, task; task 0 of a job
    that is no array) to end ended, at once if one has; `block` False answers NotEnded
    instead of waiting. A task neither known nor remembered is an Error."""

    tasks: list[tuple[int, int]]
    block: bool = True


class TaskEnded(Msg, tag="task_ended"):
    """How one task ended (the master remembers the last tasks to end for a while)."""

    job_id: int
    task_id: int
    exit_status: int = 0
    signal: str = ""  # the signal's name ("SIGKILL") when one ended it
    failed: int = 0
    ran: bool = False  # it started: one that never did (deleted, unschedulable) aborted
    deleted: bool = False
    submit_time: float = 0.0
    start_time: float = 0.0
    end_time: float = 0.0
    priority: int = 0
    usage: Usage = msgspec.field(default_factory=Usage)


class NotEnded(Msg, tag="not_ended"):
    """None of the tasks a non-blocking WaitTasks named has ended yet."""


class WaitScheduled(Msg, tag="wait_scheduled"):
    """Answered once an immediate job (qsub -now y) has started or was found unschedulable."""

    job_id: int


class Scheduled(Msg, tag="scheduled"):
    job_id: int
    started: bool


class WaitStarted(Msg, tag="wait_started"):
    """qrsh, qlogin: answered with Started once the job's task runs (its execd holds the
    session open for the key in the job's spec), with an Error when it ended first or was
    found unschedulable with -now y (Grid Engine's message and exit code)."""

    job_id: int
    task_id: int = 0


class StartPeTask(Msg, tag="start_pe_task"):
    """qrsh -inherit: start a task of a running parallel job on one of its hosts;
    answered like WaitStarted, once it runs there."""

    NOT_STAMPED: ClassVar[tuple[str, ...]] = ("host",)  # the user's choice, not the sender

    job_id: int
    task_id: int  # of an array job; 0 otherwise
    host: str  # as the user named it: one of the job's granted hosts
    command: list[str]  # its argument vector
    env: dict[str, str] = {}  # qrsh's own environment with -V, else none
    cwd: str = ""  # where qrsh runs; "" the job's working directory
    session_key: bytes = b""  # qrsh's one-time CURVE public key
    nostdin: bool = False  # -nostdin: the task's stdin is /dev/null
    user: str = ""  # stamped by the master


class Started(Msg, tag="started"):
    """Where to open the session of a started task: the endpoint of its execd's session
    socket and the CURVE public key of that host (empty without security)."""

    job_id: int
    task_id: int
    host: str
    endpoint: str
    server_key: bytes = b""
    pe_task: str = ""  # the PE task id of a qrsh -inherit task


class Delete(Msg, tag="delete"):
    targets: list[str]  # ids, id.task, names
    user: str
    users: list[str] = []  # qdel -u
    force: bool = False
    host: str = ""  # where it was sent from: a submit host (set by the master)


class Alter(Msg, tag="alter"):
    """qalter: new values for some attributes of jobs; None leaves one as it is."""

    targets: list[str]  # ids or names
    user: str
    host: str = ""
    name: str | None = None
    hard: dict[str, str] | None = None  # -l: the whole hard resource list
    priority: int | None = None
    reserve: bool | None = None
    ar: int | None = None  # -ar: the advance reservation to run in (0: none)
    # The others as qsub sets them (gridd.model.job.JobSpec), each list or map whole.
    soft_resources: dict[str, str] | None = None
    hard_queues: list[str] | None = None
    soft_queues: list[str] | None = None
    master_queues: list[str] | None = None
    pe_name: str | None = None  # with pe_min and pe_max
    pe_min: int | None = None
    pe_max: int | None = None
    hold_jid: list[str] | None = None
    start_time: float | None = None
    deadline: float | None = None
    jobshare: int | None = None
    restart: str | None = None
    context_changes: list[tuple[str, dict[str, str]]] | None = None  # -ac/-sc/-dc in order
    account: str | None = None
    binding: str | None = None
    task_concurrency: int | None = None
    stdout_path: list[str] | None = None
    stderr_path: list[str] | None = None
    stdin_path: str | None = None
    merge: bool | None = None
    shell: str | None = None
    env: dict[str, str] | None = None
    mail_list: list[str] | None = None
    mail_options: str | None = None
    cwd: str | None = None
    notify: bool | None = None
    project: str | None = None
    checkpoint: str | None = None
    hold_jid_ad: list[str] | None = None
    verify: str | None = None  # -w: check the job against the cell, change nothing


class Resubmit(Msg, tag="resubmit"):
    """qresub: new jobs like these ones, with the holds named (none without -h)."""

    targets: list[str]  # job ids
    user: str
    host: str = ""
    holds: str = ""  # -h letters: u, o and s set a hold; n, U, O and S set none


class Hold(Msg, tag="hold"):
    """qhold and qrls: put on or release holds of the named jobs' tasks."""

    targets: list[str]  # ids or names, each maybe with a task range ("9.1-3")
    user: str
    host: str = ""
    hold: bool = True  # False: release
    kinds: str = "u"  # which holds: u (user), o (operator), s (system)


class SelectQueues(Msg, tag="select_queues"):
    """qselect: the names of the instances chosen."""

    select: QueueSelect


class QueuesSelected(Msg, tag="queues_selected"):
    names: list[str]  # in qstat -f order


class QueryJobs(Msg, tag="query_jobs"):
    """Fetch jobs (all when ids is empty) with the queues and hosts that qstat shows."""

    ids: list[str] = []
    finished: bool = False  # with the jobs finished lately (qstat -s z)
    details: bool = False  # with the scheduler's reasons (qstat -j)
    # With the values qstat -F shows per queue instance, and qhost -F per host: these
    # attributes ([] = all), None = none.
    resources: list[str] | None = None
    host_resources: list[str] | None = None
    host_request: dict[str, str] = {}  # qhost -l: which hosts offer this
    parts: bool = False  # with each job's priority parts (qstat -pri, -urg, -ext, -r)
    select: QueueSelect | None = None  # qstat -q, -l, -pe, -U: see JobsReply.selected
    explain: str = ""  # qstat -explain letters: see JobsReply.alarms


class PriorityParts(msgspec.Struct, array_like=True):
    """A job's priority as qstat -pri, -urg and -ext break it down (all 0 for a job the
    scheduler leaves out), and what each hard request adds to its urgency (qstat -r)."""

    nurg: float
    npprior: float
    ntckts: float
    urg: float
    rrcontr: float
    wtcontr: float
    dlcontr: float
    ppri: int
    requests: dict[str, float] = {}


class JobsReply(Msg, tag="jobs"):
    jobs: list[Job]
    queues: list[Queue]
    hosts: list[ExecHost]
    now: float
    reasons: dict[int, list[str]] = {}
    priorities: dict[int, float] = {}  # job -> normalised priority (qstat's prior)
    parts: dict[int, PriorityParts] = {}  # with QueryJobs.parts
    # With details: the jobs the last cycle reserved for, when and where (qstat -j).
    reserved: dict[int, Reserved] = {}
    states: dict[str, str] = {}  # queue instance -> state letters (qstat -f)
    ar_slots: dict[str, int] = {}  # queue instance -> slots held by running ARs (resv)
    # With QueryJobs.resources, per queue instance; with QueryJobs.host_resources, per host
    # ("global" included).
    instance_resources: dict[str, list[Resource]] = {}
    host_resources: dict[str, list[Resource]] = {}
    fitting_hosts: list[str] | None = None  # with QueryJobs.host_request
    # With QueryJobs.finished: the last finished_jobs jobs that ended, oldest first.
    finished: list[Job] = []
    # With QueryJobs.select: the instances chosen, and the waiting jobs that might run in
    # one of them (gridd.sched.select.might_run) unless it chose by states alone.
    selected: list[str] | None = None
    eligible: list[int] | None = None
    # With QueryJobs.explain a or A: per queue instance, why it is in load alarm ("load")
    # or suspend alarm ("suspend"), one line per threshold its host's load reaches.
    alarms: dict[str, list[tuple[str, str]]] = {}


class QueryRows(Msg, tag="query_rows"):
    """A plain qstat listing (qstat, qstat -xml), answered with its text (Printed): the
    rows are built and printed on the master (gridd.model.job_rows,
    gridd.formats.qstat_rows), so that only what is shown travels and the client
    decodes one string whatever the queue's length. `users`: owner patterns (qstat -u),
    None for all; `states`: qstat -s letters; `select`: as QueryJobs'; `tasks_apart`:
    qstat -g d; `xml`: qstat -xml; `zone`: the client's time zone, whose local times the
    listing shows (gridd.connection.time_zone; "" for the master's)."""

    users: list[str] | None = None
    states: str = ""
    select: QueueSelect | None = None
    tasks_apart: bool = False
    xml: bool = False
    zone: str = ""


class Printed(Msg, tag="printed"):
    """What a command prints on standard output, as the master rendered it."""

    text: str


class QueryQuota(Msg, tag="query_quota"):
    """qquota: the limits in use for these users, hosts, queues, PEs, projects and
    resources; an empty list selects all, "*" in users too."""

    users: list[str] = []
    hosts: list[str] = []
    queues: list[str] = []
    pes: list[str] = []
    projects: list[str] = []
    resources: list[str] = []


class QuotaReply(Msg, tag="quota_reply"):
    rows: list[QuotaRow] = []


class Qmod(Msg, tag="qmod"):
    """A qmod action on queue instances and jobs, applied in the order given."""

    action: str  # the option without its dash: d, e, s, us, sq, usq, sj, usj, c, cq, cj,
    # r, rj, rq
    targets: list[str]
    user: str
    host: str
    force: bool = False  # -f: reschedule jobs that are not rerunnable too


class ArSubmit(Msg, tag="ar_submit"):
    """qrsub; the reply is Ok ("Your advance reservation N has been granted") or Error
    (its code qrsub's exit status)."""

    spec: ArSpec
    host: str = ""


class ArDelete(Msg, tag="ar_delete"):
    """qrdel: ids or names (patterns), or every AR of -u users."""

    targets: list[str]
    user: str
    users: list[str] = []
    force: bool = False
    host: str = ""  # where it was sent from: a submit host (set by the master)


class QueryArs(Msg, tag="query_ars"):
    """qrstat: the ARs named (ids, names, patterns), else all, of these owners ("*": any)."""

    ids: list[str] = []
    users: list[str] = []


class ArsReply(Msg, tag="ars"):
    ars: list[AdvanceReservation]
    now: float
    missing: list[str] = []  # ids, names or patterns that named none of them


class Shutdown(Msg, tag="shutdown"):
    pass


class SpoolRequest(Msg, tag="spool"):
    """`gridd spool check` or `backup DIR` while the master runs: the master does it
    between two transactions, so the copy is consistent."""

    action: str  # "check" or "backup"
    user: str
    target: str = ""  # backup: the directory to fill


class Qconf(Msg, tag="qconf"):
    """A qconf command line; files named by -A*/-M* options travel with it, and which of
    the host names it gives that the master has no exec host by resolve where qconf runs
    (Grid Engine's words for such a name depend on it)."""

    argv: list[str]
    user: str
    host: str
    files: dict[str, str] = {}
    resolved: list[str] = []


class QconfReply(Msg, tag="qconf_reply"):
    out: list[str] = []
    err: list[str] = []
    code: int = 0


# ---- the web server -> master (gridd web; see gridd.master.web_sessions) --------------

class WebLogin(Msg, tag="web_login"):
    """A web server logs a browser's user in with a token that user made
    (gridd.login_token); answered with a WebSession or an Error."""

    token: str


class WebSession(Msg, tag="web_session"):
    """A session the connection that asked for it may act as `user` in, until `expires`."""

    session: str
    user: str
    expires: float


class AsUser(Msg, tag="as_user"):
    """`request`, an encoded client request with the same rid, handled as if the
    session's user had sent it over this connection."""

    session: str
    request: bytes


class WebLogout(Msg, tag="web_logout"):
    session: str


class Watch(Msg, tag="watch"):
    """Answered with Changed once the master's version differs from `since`, else at
    its next host check with the same version."""

    since: int


class Changed(Msg, tag="changed"):
    version: int


# ---- execd <-> master --------------------------------------------------------------

class TaskReport(msgspec.Struct, kw_only=True):
    """How a task ended; execd keeps it until the master acknowledges it."""

    job_id: int
    task_id: int
    host: str
    start_time: float
    end_time: float
    exit_status: int
    failed: int = 0
    failed_reason: str = ""
    signal: str = ""
    usage: Usage = msgspec.field(default_factory=Usage)
    pe_task: str = ""  # of a task started by qrsh -inherit; "" the job's own task


class Register(Msg, tag="register"):
    host: str
    load: dict[str, str]
    running: list[tuple[int, int]] = []  # (job, task) still running here
    finished: list[TaskReport] = []  # reports not yet acknowledged
    load_report_time: float = 40.0
    # Where qrsh opens a task's session here: tcp://HOST:PORT (HOST this host's name,
    # as the master knows it) or, on a cell of one machine, ipc://PATH.
    session_endpoint: str = ""
    running_pe: list[tuple[int, int, str]] = []  # (job, task, PE task) running here


class LoadReport(Msg, tag="load"):
    host: str
    load: dict[str, str]
    running: list[tuple[int, int]] = []
    usage: list[tuple[int, int, Usage]] = []  # what each running job has used so far


class TaskStarted(Msg, tag="task_started"):
    host: str
    job_id: int
    task_id: int
    start_time: float
    pe_task: str = ""


class TaskFinished(Msg, tag="task_finished"):
    report: TaskReport


class Ack(Msg, tag="ack"):
    """The master has made a task report durable: execd may forget it."""

    job_id: int
    task_id: int
    pe_task: str = ""


class StartTask(Msg, tag="start_task"):
    """Run a task: the job's own (its script or command), or with pe_task a task of
    qrsh -inherit on this host (its command, env and cwd). A session_key makes it an
    interactive task whose streams go to the qrsh holding that key (see gridd.session)."""

    job: Job  # with only the task to start in tasks
    task_id: int
    queue: str  # master queue instance
    granted: list[tuple[str, int]]  # (queue instance, slots) over all hosts
    tmpdir: str = "/tmp"
    h_rt: float = 0.0  # 0 = unlimited
    s_rt: float = 0.0
    shell: str = "/bin/sh"
    pe_task: str = ""
    command: list[str] = []  # a PE task's argument vector
    env: dict[str, str] = {}  # a PE task's variables from qrsh -V
    cwd: str = ""
    session_key: bytes = b""
    pty: bool = False
    nostdin: bool = False


class StopExecd(Msg, tag="stop_execd"):
    """qconf -ke (the jobs go on, for the next execd to take over) or -kej (killed)."""

    kill_jobs: bool = False


class KillTask(Msg, tag="kill_task"):
    """Kill a task; without pe_task its PE tasks on that host too."""

    job_id: int
    task_id: int
    reason: str = ""
    pe_task: str = ""


class SuspendTask(Msg, tag="suspend_task"):
    """Stop (suspend) or continue a task's processes; sent again after a reconnect."""

    job_id: int
    task_id: int
    suspend: bool


# ---- master <-> scheduler (its child process) --------------------------------------
# The master's state and events, and the scheduler's Dispatch, are the planner's input and
# output: gridd.model.planning.

class SchedHello(Msg, tag="sched_hello"):
    pass


# ---- master <-> accounting (its child process) -------------------------------------

class AccountTask(Msg, tag="account"):
    """One finished task to account; seq is the master's durable outbox key."""

    seq: int
    job: Job
    task: Task
    pe_task: str = ""  # the record of this PE task of it (qrsh -inherit)


class ReportRecord(Msg, tag="report_record"):
    """One record for the reporting file; seq is the master's durable outbox key."""

    seq: int
    record: Report


class ReportingParams(Msg, tag="reporting_params"):
    """The global configuration's reporting_params as read (gridd/master/reporting.py).
    The master sends them to the accounting actor before anything else and whenever the
    configuration changes them: where finished jobs go, how long records may wait."""

    accounting: bool = True
    reporting: bool = False
    joblog: bool = False
    flush_time: float = 15.0  # seconds, 8.1.9's default
    accounting_format: str = "colon"  # or "json": accounting.jsonl (gridd.model.reporting_params)


class Accounted(Msg, tag="accounted"):
    seqs: list[int]


SqlValue = str | int | float | bool | None


class DbQuery(Msg, tag="db_query"):
    """Read-only SQL for the reporting database (qacct, gridd report). The master hands
    it to the accounting actor, the only process that may open the database, with
    `client` set to the asker's identity. With `qacct`, a qacct command line instead (of
    the cell's records, no file: the quick `qacct -j N`, gridd.cli.quick), answered with
    what qacct prints (DbAnswer.text, .error, .code)."""

    sql: str
    params: list[SqlValue] | dict[str, SqlValue] | None = None
    client: bytes = b""
    qacct: list[str] | None = None


class DbExport(Msg, tag="db_export"):
    """Write a consistent Parquet snapshot of the database into a directory."""

    directory: str
    client: bytes = b""


class DbAnswer(Msg, tag="db_answer"):
    """A query's result; values travel as msgpack has them (times as ISO text), the DuckDB
    type names say how to read them back. `error` set: the query was refused or failed."""

    columns: list[str] = []
    types: list[str] = []
    rows: list[list[Any]] = []
    error: str = ""
    client: bytes = b""
    text: str = ""  # a qacct command line's (DbQuery.qacct) standard output
    code: int = 0  # and its exit code; `error` is its standard error


Message = (
    Error | Ok | Ping | Submit | Submitted | WaitJob | JobExited | WaitScheduled | Scheduled
    | WaitTasks | TaskEnded | NotEnded
    | Delete | Alter | Hold | Resubmit | QueryJobs | JobsReply | QueryRows | Printed
    | SelectQueues
    | QueuesSelected | Shutdown | Qconf | QconfReply
    | WaitStarted | StartPeTask | Started
    | Qmod | QueryQuota | QuotaReply | ArSubmit | ArDelete | QueryArs | ArsReply
    | WebLogin | WebSession | AsUser | WebLogout | Watch | Changed
    | Register | LoadReport
    | TaskStarted | TaskFinished | Ack | StartTask | KillTask | SuspendTask | StopExecd
    | SchedState | SchedEvent
    | SchedHello | Dispatch | AccountTask | ReportRecord | Accounted | ReportingParams
    | DbQuery | DbExport | DbAnswer | SpoolRequest
)

# What the master (or an execd) answers a client: gridd.client decodes these first, so
# that msgspec builds its type information for them alone rather than for every message,
# a fifth of what a q* command's imports cost (anything else falls back to Message).
Reply = (
    Error | Ok | Ping | Submitted | JobExited | Scheduled | TaskEnded | NotEnded | JobsReply
    | Printed | QueuesSelected | QconfReply | Started | QuotaReply | ArsReply | WebSession | Changed
    | DbAnswer
)

_encoder = msgspec.msgpack.Encoder()
_decoders: dict[object, msgspec.msgpack.Decoder] = {}  # by type, made when first used


def encode(msg: Msg) -> bytes:
    return _encoder.encode(msg)


def _decoder(kind: object) -> msgspec.msgpack.Decoder:
    if kind not in _decoders:
        _decoders[kind] = msgspec.msgpack.Decoder(kind)
    return _decoders[kind]


def decode_reply(frame: bytes, max_size: int | None = MAX_MESSAGE) -> Msg:
    """decode() for a client: a Reply decoded as one, any other frame as decode() does."""
    if max_size is None or len(frame) <= max_size:
        try:
            msg = _decoder(Reply).decode(frame)
            if msg.v == VERSION:
                return msg
        except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError,
                RecursionError):
            pass
    return decode(frame, max_size)


def decode(frame: bytes, max_size: int | None = MAX_MESSAGE) -> Msg:
    """A message from a frame; `max_size=None` only between the master and the children
    it started (the scheduler's full state grows with the number of pending jobs)."""
    if max_size is not None and len(frame) > max_size:
        raise ProtocolError(f"message of {len(frame)} bytes exceeds {max_size}")
    try:
        msg = _decoder(Message).decode(frame)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise ProtocolError(f"malformed message: {exc}") from None
    except UnicodeDecodeError as exc:  # msgspec before 0.23 lets a str not in UTF-8 through
        raise ProtocolError(f"malformed message: a string is not UTF-8: {exc.reason}") from None
    except RecursionError:  # values nested deeper than the interpreter's stack (Any fields)
        raise ProtocolError("malformed message: values nested too deeply") from None
    if msg.v != VERSION:
        raise ProtocolError(f"protocol version {msg.v} not supported (want {VERSION})")
    return msg
