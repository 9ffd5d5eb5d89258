"""Build libdrmaa: a cffi embedded module whose exported C functions run gridd.drmaa.glue
in the Python interpreter of the calling process, or in one it starts (a C program).

Run by setup.py at install time (non-editable and editable installs alike) and by the
tests' fixtures; it needs cffi and a C compiler, and links to libpython so that a C
program that loads the library gets an interpreter.
"""

from __future__ import annotations

import os
import sys
import sysconfig
import tempfile
from pathlib import Path

LIBRARY = "libdrmaa.so.1.0"
HEADER = "drmaa.h"
MODULE = "_gridd_drmaa"  # the embedded module's name inside the library

# Runs in the library's interpreter at its first call. A C program's interpreter starts
# without the environment gridd is installed in: the library finds it from its own
# place (site-packages/gridd/drmaa/, or a source tree) and $VIRTUAL_ENV. Should gridd
# still not import, every function answers DRMAA_ERRNO_INTERNAL_ERROR saying why,
# rather than cffi's default of 0 (success).
INIT_CODE = '''
import os, site, sys
from _gridd_drmaa import ffi

def _own_place():
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.rstrip("\\n").split(" ")[-1]
                if path.endswith("/gridd/drmaa/%(library)s"):
                    return os.path.dirname(os.path.dirname(os.path.dirname(path)))
    except OSError:
        pass
    return None

def _find_gridd():
    try:
        import gridd.drmaa.glue
        return
    except ImportError:
        pass
    version = "python%%d.%%d" %% sys.version_info[:2]
    venvs = [os.environ.get("VIRTUAL_ENV")]
    place = _own_place()
    if place:
        if os.path.basename(place) in ("site-packages", "dist-packages"):
            site.addsitedir(place)
        else:  # a source tree (an editable install), and its own .venv
            sys.path.insert(0, place)
            venvs.append(os.path.join(place, ".venv"))
    for venv in venvs:
        if venv and os.path.isfile(os.path.join(venv, "pyvenv.cfg")):
            site.addsitedir(os.path.join(venv, "lib", version, "site-packages"))

try:
    _find_gridd()
    from gridd.drmaa import glue
    glue.export(ffi)
except BaseException as exc:
    _why = ("gridd cannot be imported by libdrmaa (%%s: %%s); run the program with the "
            "Python environment gridd is installed in on PATH or in VIRTUAL_ENV"
            %% (type(exc).__name__, exc)).encode()
    sys.stderr.write(_why.decode() + "\\n")
    _stub_all(ffi, _why)
'''

# The stand-ins for every function when gridd cannot be imported: plain cffi only.
STUB_CODE = '''
def _stub_all(ffi, why):
    from _gridd_drmaa import lib
    for name in %(names)r:
        params = %(diag)r.get(name)
        def stub(*args, _params=params):
            if _params is not None and args[_params] != ffi.NULL and args[_params + 1] > 0:
                data = why[:args[_params + 1] - 1]
                ffi.memmove(args[_params], data, len(data))
                args[_params][len(data)] = b"\\0"
            return 1
        ffi.def_extern(name=name, error=1)(stub)
'''


# Runs when the library is loaded. In a C program, before cffi starts an interpreter,
# choose which one: that of the virtual environment the library is installed in (an
# ancestor of its directory with pyvenv.cfg, or a source tree's .venv), else
# $VIRTUAL_ENV's, else the Python it was built for. The interpreter then finds its
# standard library and site-packages as the venv's own python would. In a Python
# program there is an interpreter already, and nothing is done.
CHOOSE_PYTHON = r"""
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int gridd_python_in(const char *venv, char *exe) {
    char cfg[PATH_MAX];
    if (snprintf(cfg, sizeof cfg, "%s/pyvenv.cfg", venv) >= (int)sizeof cfg) return 0;
    if (access(cfg, R_OK) != 0) return 0;
    if (snprintf(exe, PATH_MAX, "%s/bin/python3", venv) >= PATH_MAX) return 0;
    return access(exe, X_OK) == 0;
}

static int gridd_python_around(const char *library, char *exe) {
    char dir[PATH_MAX], venv[PATH_MAX];
    char *slash;
    if (strlen(library) >= sizeof dir) return 0;
    strcpy(dir, library);
    while ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
        *slash = '\0';
        if (gridd_python_in(dir, exe)) return 1;
        if (snprintf(venv, sizeof venv, "%s/.venv", dir) < (int)sizeof venv
                && gridd_python_in(venv, exe)) return 1;
    }
    return 0;
}

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  /* Py_SetProgramName: 3.11 has
                                                              no other way before cffi's
                                                              own Py_InitializeEx */
__attribute__((constructor)) static void gridd_choose_python(void) {
    static char exe[PATH_MAX];
    Dl_info info;
    const char *venv = getenv("VIRTUAL_ENV");
    if (Py_IsInitialized()) return;
    if (!(dladdr((void *)gridd_choose_python, &info) && info.dli_fname
              && gridd_python_around(info.dli_fname, exe))
            && !(venv && gridd_python_in(venv, exe))) {
        if (snprintf(exe, sizeof exe, "%s", BUILT_FOR) >= (int)sizeof exe) return;
    }
    Py_SetProgramName(Py_DecodeLocale(exe, NULL));
}
"""


def _stub_code() -> str:
    from gridd.drmaa.cdecl import FUNCTIONS

    names, diag = [], {}
    for ret, name, params in FUNCTIONS:
        if ret != "int":
            continue
        names.append(name)
        words = [p.strip() for p in params.split(",")]
        if words[-1].endswith("error_diag_len"):
            diag[name] = len(words) - 2
    return STUB_CODE % {"names": names, "diag": diag}


def build(target: Path, temp: Path | None = None) -> Path:
    """Compile the library (and write drmaa.h) into `target`; the library's path."""
    import cffi

    from gridd.drmaa.cdecl import TYPES, header, prototypes

    target.mkdir(parents=True, exist_ok=True)
    ffi = cffi.FFI()
    ffi.cdef(TYPES)
    ffi.embedding_api(prototypes())
    libdir = sysconfig.get_config_var("LIBDIR") or ""
    built_for = os.path.join(sysconfig.get_config_var("BINDIR") or "",
                             "python{}.{}".format(*sys.version_info[:2]))
    preamble = f'#define BUILT_FOR "{built_for}"\n' + CHOOSE_PYTHON
    links = [f"-Wl,-rpath,{libdir}"] if libdir else []
    ffi.set_source(MODULE, TYPES + preamble, extra_link_args=[*links, f"-Wl,-soname,{LIBRARY}"])
    ffi.embedding_init_code(_stub_code() + INIT_CODE % {"library": LIBRARY})
    if temp is not None:  # setuptools names build_temp without making it (a fresh wheel build)
        temp.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=temp) as work:
        built = ffi.compile(tmpdir=work, target=LIBRARY)
        os.replace(built, target / LIBRARY)
    (target / HEADER).write_text(header())
    return target / LIBRARY


if __name__ == "__main__":
    print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent))
