"""The classic spooling method: one text file per object, to be read with cat and grep.

Configuration objects are written in the `name value` form qconf shows (Grid Engine's
classic spool files), whenever reading that text back gives exactly the object; every
other object, and a configuration object the qconf form would alter, is one `field value`
line per field with the value in JSON, which msgspec decodes back exactly. Each kind has a
directory; jobs have Grid Engine's kind of hierarchy so that no directory grows past
10,000 entries however many jobs there are:

    config/queue/all.q              hosts/node1                 ars/12
    jobs/0000/0001/2345/job         jobs/0000/0001/2345/7 (task 7 of job 12345)
    jobs/0000/0001/2345/5000-5999/5678 (tasks from 1000 on, a thousand per directory)
    reports/12000-12999/12345       outbox/12000-12999/12345    counters/next_job_id

A transaction becomes durable as a whole through a write-ahead journal: the changes, as
the files' new contents, go into one file that is fsync'd and renamed into `journal/`
(the commit point), and only then into the object files, each written beside and renamed
over the old one, without fsync. Every 64 transactions a checkpoint syncs the file
system, records the last applied journal in an `applied-N` mark and deletes the journals
up to it. Opening the spool replays the journals after the mark, in order, so a crash
at any moment loses nothing that was committed and shows nothing that was not. Journals
are numbered and the mark, not the deletion of journals, says what is done: a deleted
journal that reappears after a crash is never replayed over newer objects.

One process writes the spool (the master). Others may open it to read it: every operation
takes a lock on `.lock` (shared to read, exclusive to change anything), and a reader
overlays the journals it did not write itself.
"""

from __future__ import annotations

import base64
import errno
import fcntl
import functools
import logging
import os
import re
import shutil
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import quote, unquote

import msgspec

from gridd.durable import fsync_dir, write_all, write_synced
from gridd.formats.objects import SPOOL_KEY_WIDTHS, parse_object, print_object
from gridd.formats.parsing import FormatError
from gridd.formats.qconf_objects import (
    from_pairs,
    host_conf_from_pairs,
    to_pairs,
    userset_from_pairs,
    userset_pairs,
)
from gridd.model.values import is_unsigned
from gridd.spool.base import Change, Spool, SpoolError
from gridd.spool.records import CONFIG_KINDS, TYPES

log = logging.getLogger(__name__)

JOURNAL = "journal"
LOCK = ".lock"
MARK = "applied-"  # journal/applied-N: journals up to N are in the object files, synced
CHECKPOINT_EVERY = 64  # transactions
CHECKPOINT_BYTES = 64 << 20  # or this much journal, whichever comes first
BUCKET = 1000  # tasks, reports and outbox entries per directory
_DIGITS = 12  # job ids and journal numbers, zero-padded; jobs/AAAA/BBBB/CCCC

CONFIG = "config"
JOBS = "jobs"
JOB_FILE = "job"
FLAT = {"host": "hosts", "ar": "ars", "counter": "counters", "flags": "flags"}
NUMBERED = {"outbox": "outbox", "report": "reports"}
_KIND_OF_DIR = {directory: kind for kind, directory in (FLAT | NUMBERED).items()}

# The generic form: a header line naming it, then the lines.
_GENERIC = b"# gridd "
_FIELDS_HEADER = b"# gridd fields: one line per field, its name, a tab, its value in JSON\n"
_VALUE_HEADER = b"# gridd value: `value`, a tab, the object in JSON\n"
_MSGPACK_HEADER = b"# gridd msgpack: `msgpack`, a tab, the object in msgpack, base64\n"
_BUCKET_NAME = re.compile(r"[0-9]+-[0-9]+")
_SAFE = "@+"  # besides letters, digits and `_.-~`, which quote() never escapes
_NAME_MAX = 255
_CHUNK = 1 << 16


class _Entry(NamedTuple):
    """One change as the journal and the object files hold it: the file's new content
    (None: delete it), and where it lives (`directory` relative to the spool)."""

    kind: str
    key: str
    content: bytes | None
    directory: str
    name: str


_JournalBody = list[tuple[str, str, bytes | None]]


def _read_file(path: str) -> bytes:
    """The file's bytes in one read(2) for the usual small file (open() and its buffer
    cost more than the read, with 200,000 files to read at a restart)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        data = os.read(fd, _CHUNK)
        if len(data) < _CHUNK:  # a regular file reads short only at its end
            return data
        chunks = [data]
        while chunk := os.read(fd, _CHUNK):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _make_dirs(path: str) -> None:
    """The directory and its missing parents, durably: a journal committed into a
    directory that a crash then forgets would be lost."""
    missing = []
    while not os.path.isdir(path):
        missing.append(path)
        path = os.path.dirname(path)
    for directory in reversed(missing):
        try:
            os.mkdir(directory)
        except FileExistsError:
            pass
        fsync_dir(os.path.dirname(directory))


@functools.cache
def _syncfs() -> Callable[[int], None] | None:
    """syncfs(2), raising OSError, where the C library has it (ctypes loads on first use:
    only the master spools)."""
    import ctypes

    call = getattr(ctypes.CDLL(None, use_errno=True), "syncfs", None)
    if call is None:
        return None

    def syncfs(fd: int) -> None:
        if call(fd) != 0:
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code))

    return syncfs


def _sync_filesystem(path: str) -> None:
    """Everything written to the spool's file system on disk: syncfs(2) where there is
    one (the other file systems' dirty pages are not ours to wait for), else sync(2).
    One call for thousands of object files is what makes not fsyncing each one cheap."""
    syncfs = _syncfs()
    if syncfs is None:
        os.sync()
        return
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        syncfs(fd)
    finally:
        os.close(fd)


# ---- names -------------------------------------------------------------------------------


def escape(key: str) -> str:
    """A key as a file name: percent-encoded outside letters, digits and `._-~@+`, a
    leading dot too (names starting with a dot are temporary files), and the empty key
    as `%`, which no other key escapes to."""
    if not key:
        return "%"
    name = quote(key, safe=_SAFE)
    return "%2E" + name[1:] if name.startswith(".") else name


def unescape(name: str) -> str | None:
    """The key a file name stands for; None when `escape` would not have written it."""
    try:
        key = "" if name == "%" else unquote(name, errors="strict")
    except UnicodeDecodeError:
        return None
    return key if escape(key) == name else None


def _number(kind: str, key: str) -> int:
    """A numeric key (job id, task id, sequence number), in its one canonical spelling,
    since the key is read back from the file's path."""
    if is_unsigned(key) and (key == "0" or key[0] != "0") and len(key) <= 12:
        return int(key)
    raise SpoolError(f"bad key {key!r} of a {kind} object")


def _bucket(number: int) -> str:
    """The directory of at most BUCKET numbered files that holds `number`: `1000-1999`."""
    low = number - number % BUCKET
    return f"{low}-{low + BUCKET - 1}"


def job_dir(job_id: int) -> str:
    """jobs/0000/0001/2345 for job 12345: at most 10,000 entries per directory."""
    digits = f"{job_id:0{_DIGITS}d}"
    return f"{JOBS}/{digits[0:4]}/{digits[4:8]}/{digits[8:12]}"


def location(kind: str, key: str) -> tuple[str, str]:
    """Where the object lives: (directory relative to the spool, file name)."""
    if kind == "job":
        return job_dir(_number(kind, key)), JOB_FILE
    if kind == "task":
        job_id, dot, task_id = key.partition(".")
        if not dot:
            raise SpoolError(f"bad key {key!r} of a task object")
        job, task = _number(kind, job_id), _number(kind, task_id)
        if task < BUCKET:  # beside the header: no directory more for most jobs
            return job_dir(job), str(task)
        return f"{job_dir(job)}/{_bucket(task)}", str(task)
    if kind in NUMBERED:
        number = _number(kind, key)
        return f"{NUMBERED[kind]}/{_bucket(number)}", str(number)
    if kind in FLAT:
        directory = FLAT[kind]
    elif kind in CONFIG_KINDS:
        directory = f"{CONFIG}/{kind}"
    else:
        raise SpoolError(f"unknown object kind {kind!r} (key {key!r})")
    try:
        name = escape(key)
    except UnicodeEncodeError:
        raise SpoolError(f"the key of {kind} {key!r} is not valid text") from None
    if len(name.encode()) > _NAME_MAX:
        raise SpoolError(f"the key of {kind} {key[:40]!r}... is too long for a file name")
    return directory, name


# ---- file contents -----------------------------------------------------------------------


class _Qconf(NamedTuple):
    """How qconf writes and reads one kind."""

    width: int
    pairs: Callable[[Any], list[tuple[str, str]]]
    parse: Callable[[list[tuple[str, str]], str], Any]


def _generic(name: str) -> _Qconf:
    """A kind qconf_objects knows by `name` (to_pairs and from_pairs)."""
    return _Qconf(SPOOL_KEY_WIDTHS[name], to_pairs,
                  lambda pairs, source: from_pairs(name, pairs, source=source))


# spool kind -> how qconf writes it
QCONF: dict[str, _Qconf] = {
    **{kind: _generic(name) for kind, name in (
        ("queue", "queue"), ("exechost", "exechost"), ("pe", "pe"),
        ("hostgroup", "hostgroup"), ("project", "project"), ("user", "user"),
        ("sched_conf", "sched"),
        ("global_conf", "conf"))},
    "userset": _Qconf(SPOOL_KEY_WIDTHS["userset"], userset_pairs,
                      lambda pairs, source: userset_from_pairs(pairs, source=source)),
    "host_conf": _Qconf(SPOOL_KEY_WIDTHS["conf"], lambda conf: list(conf.items()),
                        lambda pairs, source: host_conf_from_pairs(pairs, source=source)),
}

_DECODE_ERRORS = (msgspec.MsgspecError, FormatError, ValueError, TypeError)


class Codec:
    """Objects to file contents and back, with the encoders and decoders built once."""

    def __init__(self) -> None:
        self._json = msgspec.json.Encoder()
        self._msgpack = msgspec.msgpack.Encoder()
        self._json_dec = {kind: msgspec.json.Decoder(t) for kind, t in TYPES.items()}
        self._msgpack_dec = {kind: msgspec.msgpack.Decoder(t) for kind, t in TYPES.items()}
        self._plans: dict[type, list[tuple[str, bytes]] | None] = {}

    # writing

    def encode(self, kind: str, obj: object) -> bytes:
        if kind in QCONF:
            text = self._qconf(kind, obj)
            if text is not None:
                return text
        return self._generic(kind, obj)

    def _qconf(self, kind: str, obj: object) -> bytes | None:
        """The qconf form, if it reads back as exactly this object (the parsers normalize,
        and a value may hold what the form cannot: a newline, an empty string)."""
        form = QCONF[kind]
        try:
            text = print_object(form.pairs(obj), width=form.width, spool=True)
            again = form.parse(parse_object(text, source=kind), kind)
        except (*_DECODE_ERRORS, AttributeError):
            return None
        return text.encode() if self._same(again, obj) else None

    def _same(self, one: object, other: object) -> bool:
        """Equal down to types and the order of dict keys (a host configuration's order
        is the order qconf shows it in), which == alone does not see."""
        return type(one) is type(other) and self._msgpack.encode(one) == self._msgpack.encode(
            other)

    def _plan(self, cls: type) -> list[tuple[str, bytes]] | None:
        """(attribute, line start `name<TAB>`) per field of a Struct class, the tag first
        (attribute ""); None for a class whose JSON is not one member per field."""
        if cls in self._plans:
            return self._plans[cls]
        config = getattr(cls, "__struct_config__", None)
        plan: list[tuple[str, bytes]] | None = None
        if config is not None and not config.array_like and not config.omit_defaults:
            names = cls.__struct_encode_fields__  # type: ignore[attr-defined]
            plan = [(attr, f"{name}\t".encode())
                    for attr, name in zip(cls.__struct_fields__, names, strict=True)]  # type: ignore[attr-defined]
            if config.tag_field is not None:
                tag = self._json.encode(config.tag)
                plan.insert(0, ("", f"{config.tag_field}\t".encode() + tag))
        self._plans[cls] = plan
        return plan

    def _generic(self, kind: str, obj: object) -> bytes:
        plan = self._plan(type(obj))
        encode = self._json.encode
        try:
            if plan is None:
                text = _VALUE_HEADER + b"value\t" + encode(obj) + b"\n"
            else:
                text = _FIELDS_HEADER + b"".join(
                    [start + b"\n" if not attr else start + encode(getattr(obj, attr)) + b"\n"
                     for attr, start in plan])
        except (msgspec.EncodeError, TypeError, ValueError, OverflowError) as exc:
            raise SpoolError(f"cannot encode the {kind} object: {exc}") from exc
        if b"null" in text and not self._exact(kind, text, obj):
            # JSON writes NaN and infinities as null; msgpack keeps them.
            text = _MSGPACK_HEADER + b"msgpack\t" + base64.b64encode(
                self._msgpack.encode(obj)) + b"\n"
        return text

    def _exact(self, kind: str, text: bytes, obj: object) -> bool:
        try:
            return self._decode_generic(kind, text) == obj
        except _DECODE_ERRORS:
            return False

    # reading

    def decode(self, kind: str, data: bytes, source: str) -> object:
        """The object a file holds; SpoolError names `source` if it does not decode."""
        try:
            if data.startswith(_GENERIC):
                return self._decode_generic(kind, data)
            if kind in QCONF:
                return QCONF[kind].parse(parse_object(data.decode(), source=source), source)
        except _DECODE_ERRORS as exc:
            raise SpoolError(f"{source}: not a spooled {kind} object: {exc}") from exc
        raise SpoolError(f"{source}: not a spooled {kind} object (no `# gridd` header)")

    def _decode_generic(self, kind: str, data: bytes) -> object:
        end = data.index(b"\n")
        header, body = data[: end + 1], data[end + 1:]
        if header == _FIELDS_HEADER:
            # As written: a tab in each line, none in JSON, so two replaces make the
            # object (a tenth of the cost of splitting lines, with 200,000 files).
            json = b'{"' + body.rstrip(b"\n").replace(b"\t", b'":').replace(b"\n", b',"') + b"}"
            try:
                return self._json_dec[kind].decode(json)
            except msgspec.DecodeError:  # edited by hand? blanks for the tab, empty lines
                lines = _lines(body)
                return self._json_dec[kind].decode(
                    b"{" + b",".join(b'"%s":%s' % (name, value) for name, value in lines) + b"}")
        (name, value), = _lines(body)
        if header == _VALUE_HEADER and name == b"value":
            return self._json_dec[kind].decode(value)
        if header == _MSGPACK_HEADER and name == b"msgpack":
            return self._msgpack_dec[kind].decode(base64.b64decode(value, validate=True))
        raise ValueError(f"unknown form {header.strip().decode(errors='replace')!r}")


def _lines(body: bytes) -> list[tuple[bytes, bytes]]:
    """(name, value) of each line, split at the first blank or tab; empty lines and
    comments left out."""
    pairs = []
    for line in body.splitlines():
        if not line.strip() or line.startswith(b"#"):
            continue
        name, *value = line.split(None, 1)
        if not value:
            raise ValueError(f"line {line.decode(errors='replace')!r} has no value")
        pairs.append((name, value[0]))
    return pairs


# ---- the spool ---------------------------------------------------------------------------


class ClassicSpool(Spool):
    """A classic spool directory: the object files, journal/ and .lock (see above)."""

    method = "classic"

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.root = str(path)
        self.journal = os.path.join(self.root, JOURNAL)
        self.codec = Codec()
        self._mutex = threading.RLock()
        self._pending: deque[tuple[int, list[_Entry]]] = deque()  # committed, not applied
        self._last_seq = 0  # the newest journal this spool wrote or replayed
        self._applied = 0  # every journal up to this one is in the object files
        self._mark = 0  # ... and synced: the applied-N mark
        self._since_checkpoint = 0
        self._journal_bytes = 0
        self._lock_fd = -1
        self._journal_fd = -1
        self._journal_enc = msgspec.msgpack.Encoder()
        self._journal_dec = msgspec.msgpack.Decoder(_JournalBody)
        try:
            self._create()
        except OSError as exc:
            self._close_fds()
            raise SpoolError(f"cannot open the spool {self.root}: {exc}") from exc
        try:
            with self._locked(fcntl.LOCK_EX):
                self._recover()
        except SpoolError:
            self._close_fds()
            raise

    def _create(self) -> None:
        _make_dirs(self.journal)
        self._lock_fd = os.open(os.path.join(self.root, LOCK),
                                os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        self._journal_fd = os.open(self.journal, os.O_RDONLY | os.O_CLOEXEC)

    def _close_fds(self) -> None:
        for fd in (self._lock_fd, self._journal_fd):
            if fd >= 0:
                os.close(fd)
        self._lock_fd = self._journal_fd = -1

    @contextmanager
    def _locked(self, mode: int) -> Iterator[None]:
        """This process's threads, then other processes, kept out while the spool changes."""
        with self._mutex:
            if self._lock_fd < 0:
                raise SpoolError(f"the spool {self.root} is closed")
            fcntl.flock(self._lock_fd, mode)
            try:
                yield
            finally:
                fcntl.flock(self._lock_fd, fcntl.LOCK_UN)

    # ---- the journal ---------------------------------------------------------------------

    def _scan_journal(self) -> tuple[int, list[int]]:
        """(the mark, the journals after it in order)."""
        mark, journals = 0, []
        with os.scandir(self.journal) as entries:
            for entry in entries:
                name = entry.name
                if is_unsigned(name):
                    journals.append(int(name))
                elif name.startswith(MARK) and is_unsigned(name[len(MARK):]):
                    mark = max(mark, int(name[len(MARK):]))
        return mark, sorted(seq for seq in journals if seq > mark)

    def _journal_path(self, seq: int) -> str:
        return os.path.join(self.journal, f"{seq:0{_DIGITS}d}")

    def _load_journal(self, seq: int) -> list[_Entry]:
        path = self._journal_path(seq)
        try:
            body = self._journal_dec.decode(_read_file(path))
            return [_Entry(kind, key, content, *location(kind, key))
                    for kind, key, content in body]
        except msgspec.DecodeError as exc:
            raise SpoolError(f"{path}: not a spool journal: {exc}") from exc
        except OSError as exc:
            raise SpoolError(f"cannot read {path}: {exc}") from exc

    def _recover(self) -> None:
        """Replay what a crash (or a failure to apply) left in the journal, and tidy it."""
        try:
            mark, journals = self._scan_journal()
            with os.scandir(self.journal) as entries:
                # uncommitted transactions, and what a checkpoint cut short did not delete
                done = [entry.path for entry in entries
                        if entry.name.startswith(".") or _applied_by(entry.name, mark)]
            for path in done:
                os.unlink(path)
        except OSError as exc:
            raise SpoolError(f"cannot read the journal {self.journal}: {exc}") from exc
        self._mark = self._applied = self._last_seq = mark
        for seq in journals:
            self._pending.append((seq, self._load_journal(seq)))
            self._last_seq = seq
        if journals:
            log.info("spool %s: replaying %d journal(s)", self.root, len(journals))
            self._checkpoint()

    def _next_seq(self) -> int:
        """A number no journal had: after ours, and after any another process wrote.
        Of ours still to apply, those that process already applied and synced go."""
        mark, journals = self._scan_journal()
        while self._pending and self._pending[0][0] <= mark:
            self._pending.popleft()
        self._applied = max(self._applied, mark)
        self._mark = max(self._mark, mark)
        return max(self._last_seq, mark, *journals) + 1

    def _commit(self, seq: int, payload: bytes) -> None:
        """The commit point: the whole transaction in journal/<seq>, durably. On failure
        nothing of it is left, and SpoolError says why."""
        final = self._journal_path(seq)
        temporary = os.path.join(self.journal, f".{seq}.tmp")
        renamed = False
        try:
            write_synced(temporary, payload)
            os.replace(temporary, final)
            renamed = True
            os.fsync(self._journal_fd)
        except OSError as exc:
            for path in (temporary, final) if renamed else (temporary,):
                try:
                    os.unlink(path)
                except OSError:
                    pass
            raise SpoolError(f"cannot write the spool: {exc.strerror or exc}") from exc

    # ---- the object files ----------------------------------------------------------------

    def _put_file(self, directory: str, name: str, content: bytes) -> None:
        """Write the whole file beside (a dot name, which readers pass over) and rename
        it over the old one, so that `cat` or grep never see a file half written; no
        fsync here: the journal holds the content until the next checkpoint syncs it, and
        a crash before that leaves the file to the replay."""
        temporary = f"{directory}/.{name}.new"
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC
        try:
            fd = os.open(temporary, flags, 0o644)
        except FileNotFoundError:
            os.makedirs(directory, exist_ok=True)
            fd = os.open(temporary, flags, 0o644)
        try:
            write_all(fd, content)
        finally:
            os.close(fd)
        os.replace(temporary, f"{directory}/{name}")

    def _apply(self, entries: list[_Entry]) -> None:
        """The transaction's changes in the object files (idempotent: replaying it again
        gives the same files); then the job, task and sequence directories it emptied go."""
        emptied: set[str] = set()
        for entry in entries:
            directory = f"{self.root}/{entry.directory}"
            if entry.content is not None:
                self._put_file(directory, entry.name, entry.content)
                continue
            try:
                os.unlink(f"{directory}/{entry.name}")
            except FileNotFoundError:
                pass
            if entry.kind == "task":
                emptied.add(directory)
                if not is_unsigned(entry.name) or int(entry.name) >= BUCKET:
                    emptied.add(os.path.dirname(directory))
            elif entry.kind in ("job", *NUMBERED):
                emptied.add(directory)
        for directory in sorted(emptied, key=len, reverse=True):
            try:
                os.rmdir(directory)
            except OSError as exc:  # not empty, or gone already
                if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOENT):
                    raise

    def _apply_pending(self) -> bool:
        """Apply the committed journals in order; on failure keep the rest for the next
        write, checkpoint or open (they are durable: nothing is lost, read_all shows them)."""
        while self._pending:
            seq, entries = self._pending[0]
            try:
                self._apply(entries)
            except OSError as exc:
                log.warning("spool %s: cannot apply journal %d yet: %s", self.root, seq, exc)
                return False
            self._pending.popleft()
            self._applied = seq
        return True

    def _checkpoint(self) -> None:
        """Make the applied journals redundant: sync the object files, mark them applied,
        delete them. A failure leaves them to be replayed; nothing is lost."""
        self._since_checkpoint = 0
        self._apply_pending()
        applied = self._applied
        if applied <= self._mark:
            return
        try:
            _sync_filesystem(self.root)
            mark = os.path.join(self.journal, f"{MARK}{applied:0{_DIGITS}d}")
            os.close(os.open(mark, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644))
            os.fsync(self._journal_fd)
            self._mark = applied
            with os.scandir(self.journal) as entries:
                done = [entry.path for entry in entries if _applied_by(entry.name, applied)]
            for path in done:
                os.unlink(path)
        except OSError as exc:
            log.warning("spool %s: checkpoint failed, journals kept: %s", self.root, exc)
            return
        self._journal_bytes = 0

    # ---- the interface -------------------------------------------------------------------

    def write(self, changes: list[Change]) -> None:
        if changes:
            with self._mutex:  # the encoders are shared
                self._write(changes)

    def _write(self, changes: list[Change]) -> None:
        entries = [self._entry(change) for change in changes]
        body = [(entry.kind, entry.key, entry.content) for entry in entries]
        try:
            payload = self._journal_enc.encode(body)
        except (msgspec.EncodeError, TypeError) as exc:
            raise SpoolError(f"cannot encode the transaction: {exc}") from exc
        with self._locked(fcntl.LOCK_EX):
            try:
                seq = self._next_seq()
            except OSError as exc:
                raise SpoolError(f"cannot read the journal {self.journal}: {exc}") from exc
            self._commit(seq, payload)
            self._last_seq = seq
            self._pending.append((seq, entries))
            self._journal_bytes += len(payload)
            self._since_checkpoint += 1
            self._apply_pending()
            if (self._since_checkpoint >= CHECKPOINT_EVERY
                    or self._journal_bytes >= CHECKPOINT_BYTES):
                self._checkpoint()

    def _entry(self, change: Change) -> _Entry:
        directory, name = location(change.kind, change.key)
        content = None if change.obj is None else self.codec.encode(change.kind, change.obj)
        return _Entry(change.kind, change.key, content, directory, name)

    def read_all(self) -> Iterator[tuple[str, str, object]]:
        with self._locked(fcntl.LOCK_SH):
            overlay = self._overlay()
            superseded = {(entry.kind, entry.key) for entry in overlay}
            try:
                objects = list(self._read_files(superseded))
            except OSError as exc:
                raise SpoolError(f"cannot read the spool: {exc}") from exc
        if overlay:
            merged = {(kind, key): obj for kind, key, obj in objects}
            for entry in overlay:
                if entry.content is None:
                    merged.pop((entry.kind, entry.key), None)
                else:
                    source = f"{self.journal} ({entry.kind} {entry.key})"
                    merged[(entry.kind, entry.key)] = self.codec.decode(
                        entry.kind, entry.content, source)
            objects = [(kind, key, obj) for (kind, key), obj in merged.items()]
        yield from objects

    def _overlay(self) -> list[_Entry]:
        """Changes that are committed but maybe not in the object files: ours not yet
        applied, and journals another process wrote since we looked."""
        try:
            _, journals = self._scan_journal()
        except OSError as exc:
            raise SpoolError(f"cannot read the journal {self.journal}: {exc}") from exc
        overlay = [entry for _, entries in self._pending for entry in entries]
        for seq in journals:
            if seq > self._last_seq:
                overlay.extend(self._load_journal(seq))
        return overlay

    def _read_files(self, superseded: set[tuple[str, str]]
                    ) -> Iterator[tuple[str, str, object]]:
        """The objects in the files. One that a journal not yet applied supersedes may be
        half written (the apply failed or was cut short): the journal's version counts."""
        decode = self.codec.decode
        for kind, key, path in self._walk():
            try:
                obj = decode(kind, _read_file(path), path)
            except OSError as exc:
                if (kind, key) in superseded:
                    continue
                raise SpoolError(f"cannot read {path}: {exc}") from exc
            except SpoolError:
                if (kind, key) in superseded:
                    continue
                raise
            yield kind, key, obj

    def _walk(self) -> Iterator[tuple[str, str, str]]:
        """(kind, key, path) of every object file."""
        config = os.path.join(self.root, CONFIG)
        for entry in _entries(config, directories=True):
            if entry.name not in CONFIG_KINDS:
                raise SpoolError(f"{entry.path}: no such kind of configuration object")
            yield from _walk_flat(entry.name, entry.path)
        for directory, kind in _KIND_OF_DIR.items():
            path = os.path.join(self.root, directory)
            if kind in NUMBERED:
                yield from _walk_numbered(kind, path)
            else:
                yield from _walk_flat(kind, path)
        yield from _walk_jobs(os.path.join(self.root, JOBS))

    def backup(self, target: Path) -> None:
        """Checkpoint, then copy: the copy holds every object in its file (and the
        journals, should some not apply yet), and ClassicSpool(target) opens it."""
        with self._locked(fcntl.LOCK_EX):
            self._checkpoint()
            try:
                target.mkdir(parents=True, exist_ok=True)
                shutil.copytree(self.root, target, dirs_exist_ok=True,
                                ignore=lambda _, names: [n for n in names if n.startswith(".")])
                _sync_filesystem(str(target))
            except OSError as exc:
                raise SpoolError(f"cannot back up the spool to {target}: {exc}") from exc

    def close(self) -> None:
        """Checkpoint (a restart then has no journal to replay) and let go."""
        with self._mutex:
            if self._lock_fd < 0:
                return
            with self._locked(fcntl.LOCK_EX):
                self._checkpoint()
            self._close_fds()


def _applied_by(name: str, mark: int) -> bool:
    """Whether journal/<name> is a journal or an older mark that the mark makes redundant."""
    if name.startswith(MARK):
        name = name[len(MARK):]
        return is_unsigned(name) and int(name) < mark
    return is_unsigned(name) and int(name) <= mark


# ---- walking the directories -------------------------------------------------------------


def _entries(path: str, *, directories: bool) -> Iterator[os.DirEntry[str]]:
    """The directory's files (or subdirectories), temporary files left out; a missing
    directory has none. Anything of the other sort is damage, named."""
    try:
        with os.scandir(path) as listing:
            found = [entry for entry in listing if not entry.name.startswith(".")]
    except FileNotFoundError:
        return
    for entry in found:
        if entry.is_dir(follow_symlinks=False) != directories:
            what = "directory" if directories else "file"
            raise SpoolError(f"{entry.path}: unexpected in the spool (expected a {what})")
        yield entry


def _walk_flat(kind: str, path: str) -> Iterator[tuple[str, str, str]]:
    for entry in _entries(path, directories=False):
        key = unescape(entry.name)
        if key is None:
            raise SpoolError(f"{entry.path}: not a spool file name")
        yield kind, key, entry.path


def _walk_numbered(kind: str, path: str) -> Iterator[tuple[str, str, str]]:
    for bucket in _entries(path, directories=True):
        if not _BUCKET_NAME.fullmatch(bucket.name):
            raise SpoolError(f"{bucket.path}: unexpected in the spool")
        for entry in _entries(bucket.path, directories=False):
            yield kind, _checked_number(entry), entry.path


def _checked_number(entry: os.DirEntry[str]) -> str:
    if not _canonical(entry.name):
        raise SpoolError(f"{entry.path}: not a spool file name")
    return entry.name


def _walk_jobs(path: str) -> Iterator[tuple[str, str, str]]:
    """jobs/AAAA/BBBB/CCCC/job and its tasks (see _job_files)."""
    for top in _shards(path):
        for middle in _shards(top.path):
            for low in _shards(middle.path):
                yield from _job_files(str(int(top.name + middle.name + low.name)), low.path)


def _shards(path: str) -> Iterator[os.DirEntry[str]]:
    for entry in _entries(path, directories=True):
        if not (len(entry.name) == 4 and is_unsigned(entry.name)):
            raise SpoolError(f"{entry.path}: unexpected in the job spool")
        yield entry


def _canonical(name: str) -> bool:
    """A number as str(int) writes it: the only spelling a numbered file may have."""
    return is_unsigned(name) and (name[0] != "0" or name == "0")


def _job_files(job_id: str, path: str) -> list[tuple[str, str, str]]:
    """The header `job`, tasks below BUCKET beside it, the others in `<first>-<last>`.
    A list per job, not a generator per file: this runs for every job at a restart."""
    files = []
    with os.scandir(path) as listing:
        for entry in listing:
            name = entry.name
            if name == JOB_FILE:
                files.append(("job", job_id, entry.path))
            elif _canonical(name):
                files.append(("task", f"{job_id}.{name}", entry.path))
            elif name.startswith("."):
                continue
            elif _BUCKET_NAME.fullmatch(name) and entry.is_dir(follow_symlinks=False):
                files.extend(("task", f"{job_id}.{_checked_number(task)}", task.path)
                             for task in _entries(entry.path, directories=False))
            else:
                raise SpoolError(f"{entry.path}: unexpected in the job spool")
    return files
