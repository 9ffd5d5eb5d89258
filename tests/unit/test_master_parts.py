"""Master is made of parts, a module each (gridd.master.submission, control, queries,
dispatch, execution, interactive): each method has one home, so no part hides another's."""

from __future__ import annotations

import inspect

from gridd.master.core import Master


def _methods(cls: type) -> set[str]:
    return {name for name, value in vars(cls).items() if inspect.isfunction(value)}


def test_no_method_is_defined_by_two_parts_or_by_master_over_a_part():
    parts = [cls for cls in Master.__mro__[1:] if cls is not object]
    assert [cls.__module__ for cls in parts] == [
        "gridd.master.submission", "gridd.master.control", "gridd.master.queries",
        "gridd.master.dispatch", "gridd.master.execution", "gridd.master.interactive"]
    seen: dict[str, str] = {}
    for cls in [Master, *parts]:
        for name in _methods(cls):
            assert name not in seen, f"{name} is in {seen.get(name)} and {cls.__name__}"
            seen[name] = cls.__name__
