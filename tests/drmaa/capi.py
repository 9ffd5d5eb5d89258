"""A ctypes binding of libdrmaa for the conformance cases: every function of
gridd/drmaa/cdecl.py's FUNCTIONS with its argtypes and restype, and helpers that return
(rc, diag, ...) and raise nothing, so a case checks codes as a C program would."""

from __future__ import annotations

import ctypes
from ctypes import POINTER, c_char_p, c_int, c_long, c_size_t, c_uint, c_void_p

from gridd.drmaa.cdecl import FUNCTIONS

BUF = 1024

_C_TYPES = {"int": c_int, "unsigned": c_uint, "unsigned int": c_uint, "size_t": c_size_t,
            "signed long": c_long, "char": ctypes.c_char, "void": None}


def _ctype(base: str, stars: int) -> object:
    """The ctypes type of a C type: a base type name and its number of pointers."""
    if base.startswith("drmaa_"):  # the opaque handles
        return c_void_p if stars == 1 else POINTER(c_void_p)
    kind = _C_TYPES[base]
    if stars == 0:
        return kind
    if kind is ctypes.c_char:
        return c_char_p if stars == 1 else POINTER(c_char_p)
    return POINTER(kind)


def _param(decl: str) -> object:
    """The ctypes type of one parameter of cdecl's prototypes ("const char *job_ids[]")."""
    decl = decl.replace("const ", "").strip()
    stars = decl.count("*") + decl.endswith("[]")
    words = decl.removesuffix("[]").replace("*", " ").split()
    return _ctype(" ".join(words[:-1]), stars)


class Lib:
    """The library with every function typed; helpers below decode and never raise."""

    def __init__(self, path: str) -> None:
        self.c = ctypes.CDLL(path)
        for ret, name, params in FUNCTIONS:
            fn = getattr(self.c, name)
            fn.restype = c_char_p if ret == "const char *" else _ctype(ret, 0)
            fn.argtypes = [_param(p) for p in params.split(",")]

    def _call(self, name: str, *args: object) -> tuple[int, str]:
        diag = ctypes.create_string_buffer(BUF)
        rc = getattr(self.c, name)(*args, diag, BUF)
        return rc, diag.value.decode()

    def init(self, contact: str | None = None) -> tuple[int, str]:
        return self._call("drmaa_init", None if contact is None else contact.encode())

    def exit(self) -> tuple[int, str]:
        return self._call("drmaa_exit")

    def strerror(self, code: int) -> str:
        out = self.c.drmaa_strerror(code)
        return "" if out is None else out.decode()

    def _text(self, name: str, *args: object) -> tuple[int, str, str]:
        buf = ctypes.create_string_buffer(BUF)
        rc, diag = self._call(name, *args, buf, BUF)
        return rc, diag, buf.value.decode()

    def get_contact(self) -> tuple[int, str, str]:
        return self._text("drmaa_get_contact")

    def drm_system(self) -> tuple[int, str, str]:
        return self._text("drmaa_get_DRM_system")

    def drmaa_impl(self) -> tuple[int, str, str]:
        return self._text("drmaa_get_DRMAA_implementation")

    def version(self) -> tuple[int, str, tuple[int, int]]:
        major, minor = c_uint(), c_uint()
        rc, diag = self._call("drmaa_version", ctypes.byref(major), ctypes.byref(minor))
        return rc, diag, (major.value, minor.value)

    # Templates
    def allocate(self) -> tuple[int, str, c_void_p]:
        jt = c_void_p()
        rc, diag = self._call("drmaa_allocate_job_template", ctypes.byref(jt))
        return rc, diag, jt

    def delete(self, jt: c_void_p) -> tuple[int, str]:
        return self._call("drmaa_delete_job_template", jt)

    def set(self, jt: c_void_p, name: str, value: str) -> tuple[int, str]:
        return self._call("drmaa_set_attribute", jt, name.encode(), value.encode())

    def get(self, jt: c_void_p, name: str) -> tuple[int, str, str]:
        buf = ctypes.create_string_buffer(BUF)
        rc, diag = self._call("drmaa_get_attribute", jt, name.encode(), buf, BUF)
        return rc, diag, buf.value.decode()

    def set_vector(self, jt: c_void_p, name: str, values: list[str]) -> tuple[int, str]:
        arr = (c_char_p * (len(values) + 1))(*[v.encode() for v in values], None)
        return self._call("drmaa_set_vector_attribute", jt, name.encode(), arr)

    def get_vector(self, jt: c_void_p, name: str) -> tuple[int, str, list[str]]:
        values = c_void_p()
        rc, diag = self._call("drmaa_get_vector_attribute", jt, name.encode(),
                              ctypes.byref(values))
        return rc, diag, self.values(values) if rc == 0 else []

    # Lists: iterate as a C program does, checking count and the end code
    def _iterate(self, kind: str, handle: c_void_p) -> tuple[list[str], int, int]:
        """(items, count the library gave, rc that ended the iteration)."""
        n = c_int()
        getattr(self.c, f"drmaa_get_num_{kind}s")(handle, ctypes.byref(n))
        items = []
        buf = ctypes.create_string_buffer(BUF)
        while (rc := getattr(self.c, f"drmaa_get_next_{kind}")(handle, buf, BUF)) == 0:
            items.append(buf.value.decode())
        getattr(self.c, f"drmaa_release_{kind}s")(handle)
        return items, n.value, rc

    def values(self, handle: c_void_p) -> list[str]:
        return self._iterate("attr_value", handle)[0]

    def attribute_names(self, vector: bool = False) -> tuple[int, str, list[str], int, int]:
        names = c_void_p()
        fn = "drmaa_get_vector_attribute_names" if vector else "drmaa_get_attribute_names"
        rc, diag = self._call(fn, ctypes.byref(names))
        if rc:
            return rc, diag, [], 0, 0
        return rc, diag, *self._iterate("attr_name", names)

    # Jobs
    def run_job(self, jt: c_void_p) -> tuple[int, str, str]:
        buf = ctypes.create_string_buffer(BUF)
        rc, diag = self._call("drmaa_run_job", buf, BUF, jt)
        return rc, diag, buf.value.decode()

    def run_bulk(self, jt: c_void_p, start: int, end: int, incr: int
                 ) -> tuple[int, str, list[str], int, int]:
        ids = c_void_p()
        rc, diag = self._call("drmaa_run_bulk_jobs", ctypes.byref(ids), jt, start, end, incr)
        if rc:
            return rc, diag, [], 0, 0
        return rc, diag, *self._iterate("job_id", ids)

    def control(self, job: str, action: int) -> tuple[int, str]:
        return self._call("drmaa_control", job.encode(), action)

    def synchronize(self, jobs: list[str], timeout: int, dispose: bool) -> tuple[int, str]:
        arr = (c_char_p * (len(jobs) + 1))(*[j.encode() for j in jobs], None)
        return self._call("drmaa_synchronize", arr, timeout, int(dispose))

    def wait(self, job: str, timeout: int, rusage: bool = True, outputs: bool = True
             ) -> tuple[int, str, str, int, list[str] | None]:
        """(rc, diag, job id out, stat, rusage); NULL out-pointers when not outputs/rusage."""
        out = ctypes.create_string_buffer(BUF)
        stat = c_int()
        usage = c_void_p()
        rc, diag = self._call("drmaa_wait", job.encode(), out if outputs else None,
                              BUF if outputs else 0, ctypes.byref(stat) if outputs else None,
                              timeout, ctypes.byref(usage) if rusage else None)
        got = self.values(usage) if rusage and rc == 0 and usage.value else None
        return rc, diag, out.value.decode(), stat.value, got

    def job_ps(self, job: str) -> tuple[int, str, int]:
        state = c_int()
        rc, diag = self._call("drmaa_job_ps", job.encode(), ctypes.byref(state))
        return rc, diag, state.value

    def _flag(self, name: str, stat: int) -> int:
        out = c_int()
        self._call(name, ctypes.byref(out), stat)
        return out.value

    def wifexited(self, stat: int) -> int:
        return self._flag("drmaa_wifexited", stat)

    def wexitstatus(self, stat: int) -> int:
        return self._flag("drmaa_wexitstatus", stat)

    def wifsignaled(self, stat: int) -> int:
        return self._flag("drmaa_wifsignaled", stat)

    def wifaborted(self, stat: int) -> int:
        return self._flag("drmaa_wifaborted", stat)

    def wtermsig(self, stat: int) -> str:
        buf = ctypes.create_string_buffer(BUF)
        self._call("drmaa_wtermsig", buf, BUF, stat)
        return buf.value.decode()
