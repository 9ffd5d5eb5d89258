"""RSMAP values as hosts offer them (`gpu=4(0 1 2 3)`) and as jobs ask for them: the
syntax and messages are Open Cluster Scheduler's; choosing ids is first free first."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gridd.model import rsmap
from gridd.model.complexes import (
    ComplexAttr,
    capacity_problem,
    parse_value,
    validate_attr,
    value_problem,
)
from gridd.model.objects import list_items, words
from gridd.model.priority import ResourceUrgency

GPU = ComplexAttr("gpu", "gpu", "RSMAP", "<=", "YES", "HOST", "0", "0")


@pytest.mark.parametrize(("text", "ids"), [
    ("4(0 1 2 3)", ("0", "1", "2", "3")),
    ("2(GPU0 GPU1)", ("GPU0", "GPU1")),
    ("8(0-7)", tuple(str(n) for n in range(8))),
    ("3(7-5)", ("5", "6", "7")),  # a range given high to low
    ("4(a 0-1 a)", ("a", "0", "1", "a")),  # an id twice: two jobs may share it
    ("0()", ()),
])
def test_ids_a_host_offers(text: str, ids: tuple[str, ...]) -> None:
    assert rsmap.parse("gpu", text) == ids
    assert capacity_problem(GPU, text) is None
    assert parse_value("RSMAP", text) == len(ids)


@pytest.mark.parametrize(("text", "message"), [
    ("4(0 1)", 'RSMAP "gpu" value "4(0 1)" has amount 4 but 2 elements'),
    ("2", 'the RSMAP value "2" needs to define IDs'),
    ("2(0 1", 'the RSMAP value "2(0 1" needs to define IDs'),
    ("x(0)", 'RSMAP "gpu" value "x(0)" has no whole amount'),
    ("1(0-99999999)", 'RSMAP "gpu" value "1(0-99999999)" has more than 100000 elements'),
    ("2(0,1)", 'RSMAP "gpu" value "2(0,1)" has an invalid id "0,1"'),
])
def test_malformed_ids_are_refused(text: str, message: str) -> None:
    assert capacity_problem(GPU, text) == message


def test_a_job_asks_an_amount_not_ids() -> None:
    assert value_problem(GPU, "2") is None
    assert value_problem(GPU, "2(0 1)") == 'attribute "gpu" is not a integer value'
    assert value_problem(GPU, "1.5") == 'attribute "gpu" is not a integer value'


def test_an_rsmap_is_always_a_consumable_with_le() -> None:
    assert validate_attr(GPU) == []
    for consumable in ("YES", "JOB"):
        assert validate_attr(ComplexAttr("gpu", "gpu", "RSMAP", "<=", "YES", consumable)) == []
    assert validate_attr(ComplexAttr("gpu", "gpu", "RSMAP", "<=", "YES", "NO")) == [
        'RSMAP complex "gpu" needs to be a consumable']
    assert validate_attr(ComplexAttr("gpu", "gpu", "RSMAP", "==", "YES", "YES")) == [
        'Consumable "gpu" can have only <= as an relational operator']


def test_printed_with_ranges_of_three_or_more() -> None:
    assert rsmap.show(rsmap.parse("gpu", "8(0-7)")) == "8(0-7)"
    assert rsmap.show(("0", "1", "a", "3", "4", "5", "7")) == "7(0 1 a 3-5 7)"
    assert rsmap.show(("01", "02", "03")) == "3(01 02 03)"  # not numbers as written


@given(st.lists(st.sampled_from(["0", "1", "2", "3", "4", "a", "b", "010"]), max_size=12))
def test_show_reads_back(ids: list[str]) -> None:
    assert rsmap.parse("gpu", rsmap.show(ids)) == tuple(ids)


def test_first_free_ids_in_the_hosts_order() -> None:
    ids = ("0", "1", "2", "3")
    assert rsmap.pick(ids, [], 2) == ("0", "1")
    assert rsmap.pick(ids, ["0", "2"], 2) == ("1", "3")
    assert rsmap.pick(ids, ["0", "2", "3"], 2) is None
    shared = ("a", "a", "b")
    assert rsmap.pick(shared, ["a"], 2) == ("a", "b")
    assert rsmap.free_ids(shared, ["a", "b"]) == ["a"]


def test_a_list_keeps_the_ids_of_a_value_together() -> None:
    assert list_items("gpu=2(0 1),lic=3 x") == ["gpu=2(0 1)", "lic=3", "x"]
    assert words("gpu=4(0-1 a b) , mem=1G") == ["gpu=4(0-1 a b)", "mem=1G"]
    assert words("NONE") == []


def test_the_master_refuses_an_order_that_would_share_an_id() -> None:
    offered = {("gpu", "n1"): ("0", "1"), ("gpu", "n2"): ("0",), ("fpga", "global"): ("a", "a")}

    def overbooks(grant: rsmap.ResourceMap, *held: rsmap.ResourceMap) -> bool:
        return rsmap.overbooks(grant, held, lambda name, host: offered.get((name, host), ()))

    assert not overbooks([("gpu", "n1", ["1"])], [("gpu", "n1", ["0"]), ("gpu", "n2", ["1"])])
    assert overbooks([("gpu", "n1", ["0"])], [("gpu", "n1", ["0"])])
    assert overbooks([("gpu", "n1", ["0", "0"])])
    assert overbooks([("gpu", "n1", ["7"])])  # not offered (any more)
    assert not overbooks([("fpga", "global", ["a"])], [("fpga", "global", ["a"])])
    assert overbooks([("fpga", "global", ["a"])], [("fpga", "global", ["a", "a"])])


def test_an_rsmaps_urgency_is_its_amounts_as_an_ints() -> None:
    gpu = ComplexAttr("gpu", "gpu", "RSMAP", "<=", "YES", "YES", "0", "100")
    urgency = ResourceUrgency([gpu])
    assert urgency.of({"gpu": "2"}, 3) == 600  # per slot, as an INT consumable
