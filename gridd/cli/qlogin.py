"""qlogin: an interactive shell on a cluster host, on a pseudo-terminal (qrsh's session
without a command, with qlogin's options and words)."""

from __future__ import annotations

import sys

from gridd.cli.qrsh import run


def main(argv: list[str] | None = None) -> int:
    return run("qlogin", list(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())
