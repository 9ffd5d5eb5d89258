"""Checks a q* command's -json document against its published schema (schemas/<cmd>.json),
times included: every date-time must be ISO 8601 with an offset."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import jsonschema

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"
_FORMATS = jsonschema.FormatChecker(formats=())


@_FORMATS.checks("date-time", raises=ValueError)
def _date_time(text: object) -> bool:
    return not isinstance(text, str) or datetime.fromisoformat(text).tzinfo is not None


def schema(command: str) -> dict:
    return json.loads((SCHEMAS / f"{command}.json").read_text())


def check(command: str, document: str | dict) -> dict:
    """The parsed document, after it is found valid (jsonschema raises otherwise)."""
    found = json.loads(document) if isinstance(document, str) else document
    jsonschema.Draft202012Validator.check_schema(schema(command))
    jsonschema.Draft202012Validator(schema(command), format_checker=_FORMATS).validate(found)
    return found
