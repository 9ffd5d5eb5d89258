"""The submission list syntaxes (`-l`, `-t`, `-pe`, `-v`, ...)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gridd.formats import requests
from gridd.formats.submitted import format_task_range

# --- -l resource lists --------------------------------------------------------------


def test_resource_list() -> None:
    assert requests.parse_resource_list("h_rt=0:1:0,license=2") == {
        "h_rt": "0:1:0",
        "license": "2",
    }


def test_resource_list_bare_name_is_true_and_blanks_separate() -> None:
    assert requests.parse_resource_list("arch, a=1 b=2,,") == {
        "arch": "TRUE",
        "a": "1",
        "b": "2",
    }


def test_resource_list_rejects_missing_name() -> None:
    with pytest.raises(ValueError, match='Wrong resource list format "=5" specified to -l'):
        requests.parse_resource_list("=5")


def test_resource_list_missing_value() -> None:
    with pytest.raises(requests.MissingValueError, match='missing value for resource "h_rt"'):
        requests.parse_resource_list("h_rt=")


def test_merge_resources_moves_overridden_name_last() -> None:
    merged = {"a": "1", "b": "2"}
    requests.merge_resources(merged, {"a": "3"})  # in place, as qsub adds -l after -l
    assert list(merged.items()) == [("b", "2"), ("a", "3")]


# --- -t task ranges -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [("7", (7, 7, 1)), ("1-6:2", (1, 6, 2)), ("2-10", (2, 10, 1)), ("5-2", (2, 5, 1)),
     ("1-10:20", (1, 10, 20))],
)
def test_task_range(text: str, expected: tuple[int, int, int]) -> None:
    assert requests.parse_task_range(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1-5:0", "Negative or zero step"),
        ("abc", 'The initial portion of string "abc" contains no decimal number'),
        ("1-3:x", 'string "x" contains no decimal number'),
        ("3-4:1:1", 'Range specifier "1:1" has unknown trailer ":1"'),
        ("-4", 'string "" contains no decimal number'),
    ],
)
def test_task_range_rejects(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        requests.parse_task_range(text)


def test_task_range_zero_is_a_task_id_error() -> None:
    with pytest.raises(requests.TaskIdError, match="0 is an invalid task id"):
        requests.parse_task_range("0")


@given(
    st.integers(min_value=1, max_value=10**6),
    st.integers(min_value=0, max_value=10**6),
    st.integers(min_value=1, max_value=1000),
)
def test_task_range_round_trip(first: int, extra: int, step: int) -> None:
    task_range = (first, first + extra, step)
    assert requests.parse_task_range(format_task_range(task_range)) == task_range


@given(st.integers(min_value=1, max_value=10**6), st.integers(min_value=1, max_value=10**6))
def test_task_range_order_does_not_matter(a: int, b: int) -> None:
    assert requests.parse_task_range(f"{a}-{b}") == requests.parse_task_range(f"{b}-{a}")


# --- -pe slot ranges, -hold_jid, -v, -m ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [("3", (3, 3)), ("2-4", (2, 4)), ("-3", (1, 3)), ("3-", (3, requests.PE_SLOTS_UNBOUNDED)),
     ("5-2", (2, 5)), ("0", (0, 0))],
)
def test_pe_range(text: str, expected: tuple[int, int]) -> None:
    assert requests.parse_pe_range(text) == expected


@pytest.mark.parametrize("text", ["x", "1-2-3", "", "2-x"])
def test_pe_range_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        requests.parse_pe_range(text)


def test_hold_list() -> None:
    assert requests.parse_hold_list("1,foo,,3") == ["1", "foo", "3"]


def test_variable_list_takes_unset_values_from_environment() -> None:
    assert requests.parse_variable_list("A=1,B,C", {"B": "bee"}) == {
        "A": "1",
        "B": "bee",
        "C": "",
    }


def test_variable_list_rejects_empty_name() -> None:
    with pytest.raises(ValueError, match='Wrong variable list format -v "=3"'):
        requests.parse_variable_list("=3", {})


@pytest.mark.parametrize(("text", "letters"), [("bea", "abe"), ("sea", "aes"), ("n", "")])
def test_mail_options(text: str, letters: str) -> None:
    assert requests.parse_mail_options(text) == letters


@pytest.mark.parametrize("text", ["xyz", "abc", "", "bn"])
def test_mail_options_reject(text: str) -> None:
    with pytest.raises(ValueError, match="Wrong mail options list format"):
        requests.parse_mail_options(text)


def test_job_task_identifiers() -> None:
    """A job number with tasks after its dot, or a job name whatever it holds (8.1.9's
    qdel takes `my.job` as the name of a job)."""
    assert requests.split_job_task("7.1-3") == ("7", "1-3")
    assert requests.split_job_task("7") == ("7", "")
    assert requests.split_job_task("my.job") == ("my.job", "")
    assert requests.split_job_task("sleep*") == ("sleep*", "")
    assert requests.task_selection("2-6:2") == range(2, 7, 2)
    assert requests.task_selection("") is None
    assert requests.invalid_job_task("7.x") == 'ERROR! "7.x" is an invalid job-task identifier'
    assert requests.invalid_job_task("7.0") is not None
    assert requests.invalid_job_task("my.job") is None
