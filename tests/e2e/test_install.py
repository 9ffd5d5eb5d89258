"""A non-editable install carries the data files and the console scripts."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_wheel_ships_reports_and_commands(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path / "dist"), str(REPO)],
        check=True, capture_output=True, cwd=tmp_path)
    (wheel,) = (tmp_path / "dist").glob("gridd-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    schema = sorted(p.name for p in (REPO / "reports" / "schema").glob("*.sql"))
    assert schema and {f"gridd/reports/schema/{name}" for name in schema} <= set(names)
    assert {"gridd/grammar/complex.lark", "gridd/grammar/object.lark"} <= set(names)
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    scripts = zipfile.ZipFile(wheel).read(entry_points).decode()
    for command in ("gridd", "qsub", "qstat", "qdel", "qhost", "qacct"):
        assert f"{command} = " in scripts
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target",
                    str(target), str(wheel)], check=True, capture_output=True)
    found = subprocess.run(
        [sys.executable, "-c",
         "from gridd.resources import data_dir; "
         "print(data_dir('reports') / 'schema' / '001_arco.sql')"],
        check=True, capture_output=True, text=True, cwd=tmp_path,
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"}).stdout.strip()
    assert found.startswith(str(target)) and Path(found).is_file()
