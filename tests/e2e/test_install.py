"""A non-editable install carries the data files, the console scripts and the man pages;
an editable install (the Makefile's) the man pages too."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from gridd.manual import roff
from gridd.manual.build import COMMANDS, FILES

REPO = Path(__file__).resolve().parents[2]
PIP = [sys.executable, "-m", "pip"]


def _wheel(tmp_path: Path) -> Path:
    subprocess.run(
        [*PIP, "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path / "dist"), str(REPO)],
        check=True, capture_output=True, cwd=tmp_path)
    (wheel,) = (tmp_path / "dist").glob("gridd-*.whl")
    return wheel


def test_wheel_ships_reports_and_commands(tmp_path):
    wheel = _wheel(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    schema = sorted(p.name for p in (REPO / "reports" / "schema").glob("*.sql"))
    assert schema and {f"gridd/reports/schema/{name}" for name in schema} <= set(names)
    assert {"gridd/grammar/complex.lark", "gridd/grammar/object.lark"} <= set(names)
    assert "gridd/schemas/qstat.json" in names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    scripts = zipfile.ZipFile(wheel).read(entry_points).decode()
    for command in ("gridd", "qsub", "qstat", "qdel", "qhost", "qacct"):
        assert f"{command} = " in scripts
    pages = {n.split("/data/", 1)[1] for n in names if ".data/data/share/man/" in n}
    assert {f"share/man/man1/{command}.1" for command in COMMANDS} <= pages
    assert {f"share/man/man5/{name}.5" for name in FILES} <= pages
    target = tmp_path / "site"
    subprocess.run([*PIP, "install", "--no-deps", "-q", "--target",
                    str(target), str(wheel)], check=True, capture_output=True)
    found = subprocess.run(
        [sys.executable, "-c",
         "from gridd.resources import data_dir; "
         "print(data_dir('reports') / 'schema' / '001_arco.sql')"],
        check=True, capture_output=True, text=True, cwd=tmp_path,
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"}).stdout.strip()
    assert found.startswith(str(target)) and Path(found).is_file()


# Into a prefix of its own, leaving the gridd this venv has where it is (without
# --ignore-installed, pip uninstalls it from here first).
_ELSEWHERE = ("--no-deps", "--ignore-installed", "-q", "--prefix")


def _man(prefix: Path, *args: str) -> subprocess.CompletedProcess:
    """man as a user with the prefix's bin first on PATH runs it (man-db finds the pages
    in <prefix>/share/man from that)."""
    env = {"PATH": f"{prefix / 'bin'}:/usr/bin:/bin", "MANWIDTH": "80", "LANG": "C.UTF-8",
           "HOME": str(prefix)}
    return subprocess.run(["man", *args], capture_output=True, text=True, env=env)


def _check_pages(prefix: Path) -> None:
    """Every command's and file's page where man looks, in full; man finds and renders
    them where it is installed (CI's Debian may have no man-db)."""
    man1, man5 = prefix / "share" / "man" / "man1", prefix / "share" / "man" / "man5"
    for path in [*(man1 / f"{c}.1" for c in (*COMMANDS, "gridd", "gridd-up")),
                 *(man5 / f"{f}.5" for f in FILES)]:
        text = path.read_text()
        assert text.startswith('.\\" Made by gridd.manual')
        assert f"\n.SH NAME\n{roff.escape(path.stem)} \\-" in text
    if shutil.which("man") is None:
        pytest.skip("no man here to find and render the pages")
    assert _man(prefix, "-w", "qsub").stdout.strip() == str(man1 / "qsub.1")
    shown = _man(prefix, "qsub")
    assert shown.returncode == 0 and "qsub - submit a batch job" in shown.stdout
    assert "-hold_jid job_identifier_list" in shown.stdout
    assert _man(prefix, "-w", "5", "accounting").stdout.strip() == str(man5 / "accounting.5")


def _installed_here() -> bool:
    return subprocess.run([*PIP, "show", "-q", "gridd"], capture_output=True).returncode == 0


@pytest.fixture
def venv_kept():
    """The gridd installed where the tests run is there after installing elsewhere."""
    before = _installed_here()
    yield
    assert _installed_here() == before


@pytest.mark.usefixtures("venv_kept")
def test_a_wheel_installs_the_man_pages_where_man_finds_them(tmp_path):
    prefix = tmp_path / "prefix"
    subprocess.run([*PIP, "install", *_ELSEWHERE, str(prefix), str(_wheel(tmp_path))],
                   check=True, capture_output=True)
    assert (prefix / "bin" / "qsub").exists()
    _check_pages(prefix)


@pytest.mark.usefixtures("venv_kept")
def test_an_editable_install_installs_the_man_pages(tmp_path):
    """As the Makefile installs gridd (setuptools' editable wheels leave data files out
    unless told: setup.py tells them)."""
    prefix = tmp_path / "prefix"
    subprocess.run([*PIP, "install", "--no-build-isolation", *_ELSEWHERE, str(prefix), "-e",
                    str(REPO), "--config-settings", "editable_mode=compat"],
                   check=True, capture_output=True)
    _check_pages(prefix)


def test_the_venv_the_suite_runs_from_has_the_pages():
    """`make` installs gridd editable in .venv: `PATH=.venv/bin:$PATH man qsub` works."""
    if not _installed_here():
        pytest.skip("gridd is not installed where the suite runs")
    _check_pages(Path(sys.prefix))


C_PROGRAM = r"""
#include <stdio.h>
#include "drmaa.h"
int main(void) {
    char diag[DRMAA_ERROR_STRING_BUFFER], drm[DRMAA_DRM_SYSTEM_BUFFER];
    int rc = drmaa_init(NULL, diag, sizeof diag);
    printf("init %d %s\n", rc, rc ? diag : "");
    if (rc == DRMAA_ERRNO_SUCCESS) {
        drmaa_get_DRM_system(drm, sizeof drm, diag, sizeof diag);
        printf("drm %s\n", drm);
        printf("exit %d\n", drmaa_exit(diag, sizeof diag));
    }
    return 0;
}
"""


def test_a_wheel_installs_a_working_drmaa_library(tmp_path, cell):
    """A non-editable install carries libdrmaa and drmaa.h, and the shepherd program execd
    runs, executable; a C program built against the library runs in a bare environment, on a
    cell and without one. The fresh venv gets this venv's dependencies by a .pth file
    (offline, fast) and the wheel in its own site-packages, ahead of them."""
    if shutil.which("gcc") is None:
        pytest.skip("no gcc to build a DRMAA program")
    wheel = _wheel(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    assert {"gridd/drmaa/libdrmaa.so.1.0", "gridd/drmaa/drmaa.h",
            "gridd/execd/gridd-shepherd"} <= set(names)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; "
                                "print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    deps = Path(next(p for p in sys.path if p.endswith("site-packages")))
    (site / "zz_deps.pth").write_text(f"{deps}\n")
    subprocess.run([*PIP, "install", "--no-deps", "-q", "--target", str(site), str(wheel)],
                   check=True, capture_output=True)
    assert (site / "gridd" / "execd" / "gridd-shepherd").stat().st_mode & 0o111
    gridd = [str(python), "-c", "import sys; from gridd.cli.entry import gridd; "
             "sys.argv[0] = 'gridd'; sys.exit(gridd())"]
    where = subprocess.run([*gridd, "drmaa-library"], check=True, capture_output=True,
                           text=True, cwd=tmp_path).stdout.strip()
    header = subprocess.run([*gridd, "drmaa-library", "--header"], check=True,
                            capture_output=True, text=True, cwd=tmp_path).stdout.strip()
    assert where == str(site / "gridd" / "drmaa" / "libdrmaa.so.1.0") and Path(where).is_file()
    assert Path(header).is_file()
    (tmp_path / "prog.c").write_text(C_PROGRAM)
    subprocess.run(["gcc", "-o", str(tmp_path / "prog"), f"-I{Path(header).parent}",
                    str(tmp_path / "prog.c"), where, f"-Wl,-rpath,{Path(where).parent}"],
                   check=True, capture_output=True)
    bare = ["env", "-i", f"HOME={tmp_path}"]
    without = subprocess.run([*bare, f"GRIDD_ROOT={tmp_path / 'nothing'}",
                              str(tmp_path / "prog")], capture_output=True, text=True,
                             timeout=60)
    assert without.stdout.startswith("init 8 "), without.stdout + without.stderr
    on_cell = subprocess.run([*bare, f"GRIDD_ROOT={cell.env['GRIDD_ROOT']}",
                              str(tmp_path / "prog")], capture_output=True, text=True,
                             timeout=60)
    assert on_cell.stdout.splitlines() == ["init 0 ", "drm SGE 8.1.9 (gridd)", "exit 0"], (
        on_cell.stdout + on_cell.stderr)
