"""The complex editor's choices are exactly the rows validate_attr accepts."""

from __future__ import annotations

import itertools

from gridd.model.complexes import (
    CONSUMABLE,
    EXCL,
    RELOPS,
    TYPES,
    ComplexAttr,
    editor_choices,
    no_default,
    validate_attr,
)


def test_every_offered_row_is_valid_and_every_other_is_refused():
    choices = editor_choices()
    for type_, relop, consumable in itertools.product(TYPES, (*RELOPS, EXCL), CONSUMABLE):
        offered = relop in (choices[type_]["consumable_relops"] if consumable != "NO"
                            else choices[type_]["relops"])
        default = "1" if consumable != "NO" else no_default(type_)
        row = ComplexAttr("x", "x", type_, relop, "YES", consumable, default, "0")
        assert (validate_attr(row) == []) == offered, (type_, relop, consumable,
                                                       validate_attr(row))


def test_strings_and_hosts_cannot_be_consumables():
    choices = editor_choices()
    assert [t for t in TYPES if not choices[t]["consumable_relops"]] == [
        "STRING", "HOST", "CSTRING", "RESTRING"]


def test_an_rsmap_is_only_a_consumable():
    assert editor_choices()["RSMAP"] == {"relops": [], "consumable_relops": ["<="]}
