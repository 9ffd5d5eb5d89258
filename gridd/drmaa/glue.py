"""The C functions of libdrmaa, in Python: C arguments in, the session's calls, C results
and error diagnoses out. `export` attaches them to the library's cffi module.

Opaque C objects (job templates and the string vectors DRMAA returns) are numbers the
library hands out and looks up, never pointers into Python objects: a stale or foreign
pointer is a clear error instead of a crash.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any

from gridd.drmaa import codes as c
from gridd.drmaa import session as s
from gridd.drmaa.codes import DrmaaError
from gridd.drmaa.template import SCALAR, VECTOR, Template

SESSION = s.Session()
_objects: dict[int, Any] = {}  # handle -> Template or _Strings
_numbers = itertools.count(0x1000, 16)
_objects_lock = threading.Lock()


class _Strings:
    """A vector of strings DRMAA returns (attribute names and values, job ids), read
    one by one."""

    def __init__(self, items: list[str]) -> None:
        self.items = items
        self.next = 0


def export(ffi: Any) -> None:
    """Define every exported function on the library's ffi."""
    NULL = ffi.NULL
    messages = {code: ffi.new("char[]", text.encode()) for code, text in c.MESSAGES.items()}

    def put(buf: Any, size: int, text: str) -> None:
        if buf == NULL or size <= 0:
            return
        data = text.encode(errors="replace")[:size - 1]
        ffi.memmove(buf, data, len(data))
        buf[len(data)] = b"\0"

    def text(p: Any) -> str | None:
        return None if p == NULL else ffi.string(p).decode(errors="surrogateescape")

    def new_handle(obj: Any, kind: str) -> Any:
        with _objects_lock:
            number = next(_numbers)
            _objects[number] = obj
        return ffi.cast(kind, number)

    def lookup(p: Any, kind: type) -> Any:
        obj = _objects.get(int(ffi.cast("uintptr_t", p))) if p != NULL else None
        if not isinstance(obj, kind):
            raise DrmaaError(c.INVALID_ARGUMENT, f"not a valid {kind.__name__.strip('_')}")
        return obj

    def release(p: Any) -> None:
        if p != NULL:
            with _objects_lock:
                obj = _objects.get(int(ffi.cast("uintptr_t", p)))
                if isinstance(obj, _Strings):
                    del _objects[int(ffi.cast("uintptr_t", p))]

    def call(name: str, diag_at: int | None) -> Callable[[Callable[..., None]], Any]:
        """Export `name`: the function's DrmaaError becomes its code and diagnosis (the
        parameters at diag_at, diag_at + 1); anything else an internal error."""

        def wrap(fn: Callable[..., None]) -> Any:
            def exported(*args: Any) -> int:
                try:
                    fn(*args)
                    return c.SUCCESS
                except DrmaaError as exc:
                    code, message = exc.code, exc.text
                except Exception as exc:  # noqa: BLE001 - a C caller gets a code, never a raise
                    code, message = c.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}"
                if diag_at is not None:
                    put(args[diag_at], args[diag_at + 1], message)
                return code

            exported.__name__ = name
            return ffi.def_extern(name=name, error=c.INTERNAL_ERROR)(exported)
        return wrap

    # ---- string vectors ----------------------------------------------------------------

    def next_of(values: Any, value: Any, size: int) -> int:
        try:
            vector = lookup(values, _Strings)
        except DrmaaError:
            return c.INVALID_ARGUMENT
        if vector.next >= len(vector.items):
            return c.NO_MORE_ELEMENTS
        put(value, size, vector.items[vector.next])
        vector.next += 1
        return c.SUCCESS

    def count_of(values: Any, size: Any) -> int:
        try:
            vector = lookup(values, _Strings)
        except DrmaaError:
            return c.INVALID_ARGUMENT
        if size != NULL:
            size[0] = len(vector.items)
        return c.SUCCESS

    for kind in ("attr_name", "attr_value", "job_id"):
        ffi.def_extern(name=f"drmaa_get_next_{kind}", error=c.INTERNAL_ERROR)(next_of)
    for kind in ("attr_names", "attr_values", "job_ids"):
        ffi.def_extern(name=f"drmaa_get_num_{kind}", error=c.INTERNAL_ERROR)(count_of)
        ffi.def_extern(name=f"drmaa_release_{kind}")(release)

    # ---- session -----------------------------------------------------------------------

    @call("drmaa_init", 1)
    def _init(contact: Any, diag: Any, size: int) -> None:
        SESSION.init(text(contact))

    @call("drmaa_exit", 0)
    def _exit(diag: Any, size: int) -> None:
        SESSION.exit()

    @call("drmaa_get_contact", 2)
    def _contact(buf: Any, length: int, diag: Any, size: int) -> None:
        put(buf, length, SESSION.get_contact())

    @call("drmaa_version", 2)
    def _version(major: Any, minor: Any, diag: Any, size: int) -> None:
        if major != NULL:
            major[0] = s.VERSION[0]
        if minor != NULL:
            minor[0] = s.VERSION[1]

    @call("drmaa_get_DRM_system", 2)
    def _system(buf: Any, length: int, diag: Any, size: int) -> None:
        put(buf, length, s.DRM_SYSTEM)

    @call("drmaa_get_DRMAA_implementation", 2)
    def _implementation(buf: Any, length: int, diag: Any, size: int) -> None:
        put(buf, length, s.IMPLEMENTATION)

    @ffi.def_extern(name="drmaa_strerror")
    def _strerror(code: int) -> Any:
        return messages.get(code, NULL)

    # ---- job templates -----------------------------------------------------------------

    @call("drmaa_allocate_job_template", 1)
    def _allocate(jt: Any, diag: Any, size: int) -> None:
        _in_session()
        if jt == NULL:
            raise DrmaaError(c.INVALID_ARGUMENT, "no place to put the job template")
        jt[0] = new_handle(Template(), "drmaa_job_template_t *")

    @call("drmaa_delete_job_template", 1)
    def _delete(jt: Any, diag: Any, size: int) -> None:
        _template(jt)
        with _objects_lock:
            del _objects[int(ffi.cast("uintptr_t", jt))]

    @call("drmaa_set_attribute", 3)
    def _set(jt: Any, name: Any, value: Any, diag: Any, size: int) -> None:
        template = _template(jt)
        template.set(_name(name), text(value))

    @call("drmaa_get_attribute", 4)
    def _get(jt: Any, name: Any, value: Any, length: int, diag: Any, size: int) -> None:
        put(value, length, _template(jt).get(_name(name)))

    @call("drmaa_set_vector_attribute", 3)
    def _set_vector(jt: Any, name: Any, values: Any, diag: Any, size: int) -> None:
        template = _template(jt)
        template.set_vector(_name(name), _strings(values))

    @call("drmaa_get_vector_attribute", 3)
    def _get_vector(jt: Any, name: Any, values: Any, diag: Any, size: int) -> None:
        items = _template(jt).get_vector(_name(name))
        _hand_out(values, items, "drmaa_attr_values_t *")

    @call("drmaa_get_attribute_names", 1)
    def _names(values: Any, diag: Any, size: int) -> None:
        _in_session()
        _hand_out(values, list(SCALAR), "drmaa_attr_names_t *")

    @call("drmaa_get_vector_attribute_names", 1)
    def _vector_names(values: Any, diag: Any, size: int) -> None:
        _in_session()
        _hand_out(values, list(VECTOR), "drmaa_attr_names_t *")

    def _in_session() -> None:
        if not SESSION.active:
            raise DrmaaError(c.NO_ACTIVE_SESSION)

    def _template(jt: Any) -> Template:
        _in_session()
        return lookup(jt, Template)

    def _name(name: Any) -> str:
        got = text(name)
        if not got:
            raise DrmaaError(c.INVALID_ARGUMENT, "no attribute name")
        return got

    def _strings(values: Any) -> list[str]:
        items: list[str] = []
        if values != NULL:
            for i in itertools.count():
                if values[i] == NULL:
                    break
                items.append(ffi.string(values[i]).decode(errors="surrogateescape"))
        return items

    def _hand_out(where: Any, items: list[str], kind: str) -> None:
        if where == NULL:
            raise DrmaaError(c.INVALID_ARGUMENT, "no place to put the values")
        where[0] = new_handle(_Strings(items), kind)

    # ---- jobs --------------------------------------------------------------------------

    @call("drmaa_run_job", 3)
    def _run(job_id: Any, length: int, jt: Any, diag: Any, size: int) -> None:
        submitted, said = SESSION.run_job(_template(jt))
        put(job_id, length, submitted)
        put(diag, size, said)  # as Grid Engine's library, the master's words

    @call("drmaa_run_bulk_jobs", 5)
    def _run_bulk(ids: Any, jt: Any, start: int, end: int, incr: int, diag: Any,
                  size: int) -> None:
        template = _template(jt)
        if ids == NULL:
            raise DrmaaError(c.INVALID_ARGUMENT, "no place to put the job ids")
        submitted, said = SESSION.run_bulk_jobs(template, start, end, incr)
        _hand_out(ids, submitted, "drmaa_job_ids_t *")
        put(diag, size, said)

    @call("drmaa_control", 2)
    def _control(job_id: Any, action: int, diag: Any, size: int) -> None:
        SESSION.control(_job_id(job_id), action)

    @call("drmaa_synchronize", 3)
    def _synchronize(ids: Any, timeout: int, dispose: int, diag: Any, size: int) -> None:
        SESSION.synchronize(_strings(ids), timeout, bool(dispose))

    @call("drmaa_wait", 6)
    def _wait(job_id: Any, out: Any, out_len: int, stat: Any, timeout: int, usage: Any,
              diag: Any, size: int) -> None:
        ended_id, code, used = SESSION.wait(_job_id(job_id), timeout)
        put(out, out_len, ended_id)
        if stat != NULL:
            stat[0] = code
        if usage != NULL:
            if used is None:  # it never started
                usage[0] = NULL
                raise DrmaaError(c.NO_RUSAGE)
            usage[0] = new_handle(_Strings(used), "drmaa_attr_values_t *")

    @call("drmaa_job_ps", 2)
    def _job_ps(job_id: Any, state: Any, diag: Any, size: int) -> None:
        found = SESSION.job_ps(_job_id(job_id))
        if state != NULL:
            state[0] = found

    def _job_id(job_id: Any) -> str:
        _in_session()
        got = text(job_id)
        if got is None:
            raise DrmaaError(c.INVALID_ARGUMENT, "no job id")
        return got

    # ---- how a job ended ---------------------------------------------------------------

    def _flag(name: str, of: Callable[[int], bool]) -> None:
        @call(name, 2)
        def _exported(result: Any, stat: int, diag: Any, size: int) -> None:
            if result != NULL:
                result[0] = int(of(stat))

    _flag("drmaa_wifexited", s.exited)
    _flag("drmaa_wifsignaled", s.signaled)
    _flag("drmaa_wcoredump", s.core_dumped)
    _flag("drmaa_wifaborted", s.aborted)

    @call("drmaa_wexitstatus", 2)
    def _exit_status(result: Any, stat: int, diag: Any, size: int) -> None:
        if result != NULL:
            result[0] = s.exit_status(stat)

    @call("drmaa_wtermsig", 3)
    def _term_signal(buf: Any, length: int, stat: int, diag: Any, size: int) -> None:
        put(buf, length, s.term_signal(stat))
