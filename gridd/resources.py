"""The data files gridd ships: Lark grammars (grammar/) and SQL reports (reports/).

In the source tree they sit at the top level of the repository; an installed gridd
carries them inside the package as ``gridd/grammar`` and ``gridd/reports`` (setup.py
maps the folders).
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_dir(kind: str) -> Path:
    """The folder of ``kind`` ("grammar" or "reports")."""
    installed = _PACKAGE / kind
    return installed if installed.is_dir() else _PACKAGE.parent / kind
