"""Writes every man page made from the manual sources: DIR/man1/*.1 and DIR/man5/*.5.
setup.py calls write_pages at build time, so that pip installs the pages where man finds
them (<prefix>/share/man); `python -m gridd.manual.build DIR` writes them anywhere."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from gridd.manual import gridd_pages
from gridd.manual.help_text import source
from gridd.manual.page import FilePage
from gridd.manual.roff import command_page, file_page

# The q* commands, each with its source gridd/manual/<command>.py.
COMMANDS = ("qacct", "qalter", "qconf", "qdel", "qhold", "qhost", "qlogin", "qmod", "qquota",
            "qrdel", "qresub", "qrls", "qrsh", "qrstat", "qrsub", "qselect", "qstat", "qsub")
# The files gridd writes and reads, each with its source gridd/manual/files/<name>.py.
FILES = ("accounting", "reporting", "sge_schedule", "queue_conf", "host_conf", "sge_pe",
         "sge_resource_quota")


def file_source(name: str) -> FilePage:
    return importlib.import_module(f"gridd.manual.files.{name}").PAGE


def pages(version: str) -> dict[str, str]:
    """Each page's text by its path under a man directory (man1/qsub.1)."""
    out = {f"man1/{name}.1": command_page(source(name), version) for name in COMMANDS}
    out |= {f"man1/{page.name}.1": command_page(page, version, gridd_pages.SOURCE)
            for page in gridd_pages.pages()}
    out |= {f"man5/{name}.5": file_page(file_source(name), version) for name in FILES}
    return out


def write_pages(directory: Path, version: str) -> dict[str, list[Path]]:
    """Write the pages under `directory`; the paths written, by section directory."""
    written: dict[str, list[Path]] = {}
    for relative, text in pages(version).items():
        path = directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        written.setdefault(path.parent.name, []).append(path)
    return written


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: python -m gridd.manual.build DIR [VERSION]")
    write_pages(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) == 3 else "")
