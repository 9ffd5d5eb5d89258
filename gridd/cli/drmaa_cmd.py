"""`gridd drmaa-library`: where the DRMAA library (and its header) of this installation is,
for DRMAA_LIBRARY_PATH and for compiling C programs against it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def configure(sub: argparse._SubParsersAction) -> None:
    """Add `drmaa-library` to gridd's subcommands."""
    parser = sub.add_parser(
        "drmaa-library", help="print the absolute path of gridd's DRMAA library",
        description="Print the absolute path of libdrmaa.so.1.0, gridd's DRMAA 1.0 "
        "library, built when gridd was installed: DRMAA programs and bindings load it "
        "(export DRMAA_LIBRARY_PATH=$(gridd drmaa-library)). A C program that loads it "
        "runs gridd in an embedded Python, found from the library's place or from "
        "$VIRTUAL_ENV.")
    parser.add_argument("--header", action="store_true",
                        help="print the path of its drmaa.h instead")


def cmd_drmaa_library(args: argparse.Namespace) -> int:
    from gridd.drmaa.build import HEADER, LIBRARY

    where = Path(__file__).resolve().parent.parent / "drmaa"
    path = where / (HEADER if args.header else LIBRARY)
    if not path.is_file():
        print(f"gridd: {path} is missing: the DRMAA library is built when gridd is installed, "
              "which needs cffi and a C compiler (install gcc and reinstall gridd)",
              file=sys.stderr)
        return 1
    print(path)
    return 0
