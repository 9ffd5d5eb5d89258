"""qconf -sc/-Mc/-mc through the real CLI, compared with Grid Engine 8.1.9's transcript."""

from __future__ import annotations

import re
from pathlib import Path

from tests.e2e.conftest import Cell, wait_for

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
    job = cell.run("qsub", "-terse", "-l", "lic=1", "-b", "y", "true")  # by its shortcut too
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
    cell.ok("qdel", job.stdout.strip())  # a complex a job asks for stays (test_qconf_validation)
    editor = tmp_path / "drop_license.sh"
    editor.write_text("#!/bin/sh\nsed -i '/^license /d' \"$1\"\n")
    editor.chmod(0o755)
    res = cell.run("qconf", "-mc", env=dict(cell.env, EDITOR=str(editor)))
    assert res.returncode == 0 and 'removed "license" from complex list' in res.stderr
    assert cell.ok("qconf", "-sc") == default


def test_queue_with_host_override_takes_a_parallel_job(cell: Cell, tmp_path):
    shown = cell.ok("qconf", "-sq", "all.q")
    assert shown.startswith("qname                 all.q\nhostlist              @allhosts\n")
    lines = []
    for line in shown.splitlines():
        key = line.split()[0] if line.strip() else ""
        value = {"qname": "short.q", "slots": "1,[node2=3]", "seq_no": "1"}.get(key)
        lines.append(f"{key:<21} {value}" if value else line)
    queue = tmp_path / "short.q"
    queue.write_text("\n".join(lines) + "\n")
    res = cell.run("qconf", "-Aq", str(queue))
    assert res.returncode == 0 and res.stderr.endswith('added "short.q" to cluster queue list\n')
    res = cell.run("qconf", "-Aq", str(queue))
    assert (res.returncode, res.stderr) == (1, 'cluster queue "short.q" already exists\n')
    assert cell.ok("qconf", "-sql") == "all.q\nshort.q\n"
    assert "slots                 1,[node2=3]" in cell.ok("qconf", "-sq", "short.q")
    full = cell.ok("qstat", "-f")
    assert re.search(r"^short\.q@node2 +BIP +0/0/3 ", full, re.M)
    job = cell.ok("qsub", "-q", "short.q", "-pe", "smp", "3", "-b", "y", "sleep", "30")
    assert "has been submitted" in job
    wait_for(lambda: re.search(r"^short\.q@node2 +BIP +0/3/3 ", cell.ok("qstat", "-f"), re.M),
             what="the 3-slot job on short.q@node2")
    cell.ok("qdel", "-u", "*")
    res = cell.run("qconf", "-sq", "nosuch.q")
    assert res.stderr == 'No cluster queue or queue instance matches the phrase "nosuch.q"\n'
    assert cell.run("qconf", "-sp", "nosuch").stderr == "nosuch is not a parallel environment\n"
