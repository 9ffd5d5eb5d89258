"""The data files gridd ships: Lark grammars (grammar/), SQL reports (reports/) and the
JSON Schemas of the q* commands' -json output (schemas/).

In the source tree they sit at the top level of the repository; an installed gridd
carries them inside the package as ``gridd/grammar``, ``gridd/reports`` and
``gridd/schemas`` (setup.py maps the folders).
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_dir(kind: str) -> Path:
    """The folder of ``kind`` ("grammar", "reports" or "schemas")."""
    installed = _PACKAGE / kind
    return installed if installed.is_dir() else _PACKAGE.parent / kind
