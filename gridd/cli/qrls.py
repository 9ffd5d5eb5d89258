"""qrls: release the user hold of jobs and array tasks (see qhold)."""

from __future__ import annotations

import sys

from gridd.cli import qhold


def main(argv: list[str] | None = None) -> int:
    return qhold.main(argv, release=True)


if __name__ == "__main__":
    sys.exit(main())
