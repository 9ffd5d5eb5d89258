"""qconf -sc/-Mc/-mc through the real CLI, compared with Grid Engine 8.1.9's transcript."""

from __future__ import annotations

import re
from pathlib import Path

from tests.e2e.conftest import Cell

REFERENCE = Path(__file__).resolve().parents[3] / "shared/reference/sge-8.1.9/transcripts"


def transcript_block(name: str, command: str) -> str:
    text = (REFERENCE / name).read_text()
    start = text.index(f"$ {command}\n--- stdout ---\n") + len(f"$ {command}\n--- stdout ---\n")
    return text[start:text.index("--- exit code", start)]


def test_default_table_matches_reference_and_mc_validates(cell: Cell, tmp_path):
    default = cell.ok("qconf", "-sc")
    if REFERENCE.exists():
        assert default == transcript_block("complexes.txt", "qconf -sc")
    table = tmp_path / "sc"
    license_row = "license lic INT <= YES YES 0 0"  # columns need not line up
    added = default + license_row + "\n"
    table.write_text(added)
    res = cell.run("qconf", "-Mc", str(table))
    assert res.returncode == 0
    assert re.fullmatch(r'\S+@\S+ added "license" to complex entry list\n', res.stderr)
    assert "license" in cell.ok("qconf", "-sc")
    job = cell.run("qsub", "-l", "lic=1", "-b", "y", "true")  # the shortcut is requestable now
    assert job.returncode == 0, job.stderr
    bad = {
        "bad_str             bs         STRING      ==    YES         YES        0        0":
            'Complex "bad_str" of type "STRING" cannot be a consumable\n'
            'Consumable "bad_str" can have only <= as an relational operator\n',
        "bad_type            bt         FOO         <=    YES         YES        0        0":
            'error: unknown complex attribute type "FOO"\n'
            f'Complex attribute file "{table}" is not correct\n',
        "dup_sc              lic        INT         <=    YES         YES        0        0":
            "complex with name dup_sc or shortcut lic already exists\n",
    }
    for line, message in bad.items():
        table.write_text(added + line + "\n")
        res = cell.run("qconf", "-Mc", str(table))
        assert (res.returncode, res.stderr) == (1, message)
    table.write_text(added)
    res = cell.run("qconf", "-Mc", str(table))
    assert res.stderr == "Complex attribute configuration has not been changed\n"
    res = cell.run("qconf", "-Mc", str(tmp_path / "missing"))
    assert res.returncode == 1 and "error opening file" in res.stderr
    editor = tmp_path / "drop_license.sh"
    editor.write_text("#!/bin/sh\nsed -i '/^license /d' \"$1\"\n")
    editor.chmod(0o755)
    res = cell.run("qconf", "-mc", env=dict(cell.env, EDITOR=str(editor)))
    assert res.returncode == 0 and 'removed "license" from complex list' in res.stderr
    assert cell.ok("qconf", "-sc") == default
