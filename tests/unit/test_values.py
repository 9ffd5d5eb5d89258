"""The value rules of gridd.model.values: TIME, MEMORY and BOOL as sge_types(5) defines them."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gridd.model.values import (
    format_bool,
    format_time,
    parse_bool,
    parse_memory,
    parse_time,
    time_or,
)

# --- TIME ---------------------------------------------------------------------------


def test_configuration_times_are_read_and_bad_or_empty_ones_keep_their_default():
    assert time_or("00:05:00", 1.0) == 300.0 and time_or("10", 1.0) == 10.0
    assert time_or("soon", 7.0) == 7.0 and time_or(" ", 7.0) == 7.0


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("0:1:0", 60),
        ("00:30:00", 1800),
        ("1:00:00", 3600),
        ("60", 60),
        ("1:30", 90),
        ("::5", 5),
        (":1:", 60),
        ("0:90:0", 5400),
        ("2:0:0", 7200),
        ("1.5", 1.5),
        (" 10 ", 10),
    ],
)
def test_parse_time(text: str, seconds: float) -> None:
    assert parse_time(text) == seconds


@pytest.mark.parametrize("text", ["INFINITY", "infinity", "Infinity"])
def test_parse_time_infinity(text: str) -> None:
    assert parse_time(text) == math.inf


@pytest.mark.parametrize("text", ["", "abc", "1:2:3:4", "1:a:0", "-5", "nan", "inf", "1:-1", "."])
def test_parse_time_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="invalid time value"):
        parse_time(text)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "0:00:00"), (59, "0:00:59"), (60, "0:01:00"), (3661, "1:01:01"), (360000, "100:00:00")],
)
def test_format_time(seconds: float, text: str) -> None:
    assert format_time(seconds) == text


def test_format_time_infinity_and_errors() -> None:
    assert format_time(math.inf) == "INFINITY"
    with pytest.raises(ValueError):
        format_time(-1)
    with pytest.raises(ValueError):
        format_time(math.nan)


@given(st.integers(min_value=0, max_value=10**8))
def test_time_round_trip(seconds: int) -> None:
    assert parse_time(format_time(seconds)) == seconds


@given(
    st.integers(min_value=0, max_value=999),
    st.integers(min_value=0, max_value=999),
    st.integers(min_value=0, max_value=999),
)
def test_time_components_normalise(hours: int, minutes: int, seconds: int) -> None:
    total = hours * 3600 + minutes * 60 + seconds
    assert parse_time(f"{hours}:{minutes}:{seconds}") == total
    assert parse_time(format_time(parse_time(f"{hours}:{minutes}:{seconds}"))) == total


# --- MEMORY -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("100", 100),
        ("1k", 1000),
        ("1K", 1024),
        ("2m", 2_000_000),
        ("2M", 2 * 1024**2),
        ("1g", 10**9),
        ("1G", 1024**3),
        ("1.5G", 1.5 * 1024**3),
        ("2t", 2 * 10**12),  # sge_types(5): t and T too
        ("1000T", 1000 * 1024**4),
        ("0", 0),
    ],
)
def test_parse_memory(text: str, size: float) -> None:
    assert parse_memory(text) == size


def test_parse_memory_infinity() -> None:
    assert parse_memory("INFINITY") == math.inf


@pytest.mark.parametrize("text", ["", "G", "1X", "1GG", "-1G", "abc", "1.2.3M"])
def test_parse_memory_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="invalid memory value"):
        parse_memory(text)


# --- BOOL ---------------------------------------------------------------------------


def test_bool() -> None:
    for text in ["TRUE", "true", "True", "1", " TRUE "]:
        assert parse_bool(text) is True
    for text in ["FALSE", "false", "0"]:
        assert parse_bool(text) is False
    for text in ["yes", "no", "", "2", "t"]:
        with pytest.raises(ValueError):
            parse_bool(text)
    assert (format_bool(True), format_bool(False)) == ("TRUE", "FALSE")
