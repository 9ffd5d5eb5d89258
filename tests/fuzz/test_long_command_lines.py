"""Long command lines cost time in proportion to their length (issue 29, item 14).

Fuzzing found argument loops quadratic in the number of words: a 65,536-word qconf line
took seconds, qrstat with repeated -ar six. The figures are bench/argv_scaling.py's;
these tests are deterministic. Where the cost was comparisons (an `in` over a list,
for each word or name), they count them, with words that count how often they are
compared or hashed. Where it was copying (a word taken off the front of a list, a
list rebuilt to add to it), nothing short of a clock shows it, so the idioms themselves
are kept out of the code that reads command lines.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

from gridd import protocol as p
from gridd.cli import qmod
from gridd.cli.qrsub_args import _MERGING as AR_MERGING
from gridd.cli.qsub_args import _MERGING, add_setting
from gridd.master import ars
from gridd.master.admin import Caller, run_qconf
from gridd.model.ar import AdvanceReservation, ArSpec
from gridd.model.config import Configuration
from tests.fuzz.argv import _fresh_config, empty_cell, run_main
from tests.fuzz.canned import canned_master

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def counted() -> type[str]:
    """A str that counts how often it is compared for equality or hashed (`looked_at`):
    an `in` over a list compares it, a set made of the list hashes it."""

    class Counted(str):
        looked_at = 0

        def __eq__(self, other: object) -> bool:
            type(self).looked_at += 1
            return str.__eq__(self, other)

        def __hash__(self) -> int:
            type(self).looked_at += 1
            return str.__hash__(self)

    return Counted


# ---- comparisons, counted -----------------------------------------------------------------


def test_qmod_looks_for_force_once_not_at_each_action(counted: type[str]) -> None:
    argv = [counted(word) for i in range(200) for word in ("-d", f"q{i}")]
    with empty_cell(), canned_master(qmod):
        code, out, _ = run_main(qmod.main, argv)
    assert (code, out.count("done")) == (0, 200)
    assert counted.looked_at <= 4 * len(argv)  # 80,200 before


@pytest.mark.parametrize("apart", [False, True], ids=["a,b,...", "-x a -x b ..."])
@pytest.mark.parametrize(("add", "delete", "where"), [
    ("-am", "-dm", lambda cfg: cfg.managers),
    ("-ao", "-do", lambda cfg: cfg.operators),
    ("-ah", "-dh", lambda cfg: cfg.admin_hosts),
    ("-as", "-ds", lambda cfg: cfg.submit_hosts),
    ("-au", "-du", lambda cfg: cfg.usersets["arusers"].entries),
])
def test_names_added_are_looked_up_in_a_set(
        counted: type[str], add: str, delete: str,
        where: Callable[[Configuration], list[str]], apart: bool) -> None:
    """`qconf -am a,b,...` or `-am a -am b ...` and the like: each name was looked for
    in the list as it grew, and each removal looked through it again. A set beside the
    list is made once for the command line (a set for each option would hash the list
    each time). Removing one name an option still looks through the list."""
    cfg = _fresh_config()
    kept = where(cfg)
    kept += [counted(f"old{i}") for i in range(400)]
    before = list(kept)
    names = [f"new{i}" for i in range(400)]
    lists = ["arusers"] if add == "-au" else []
    line = [word for name in names for word in (add, name, *lists)] if apart else [
        add, ",".join(names), *lists]
    answer = run_qconf(cfg, line, Caller("root", "vm", resolved=frozenset(names)))
    assert answer.code == 0 and kept == [*before, *names]
    answer = run_qconf(cfg, [delete, ",".join([*names, "new0"]), *lists], Caller("root", "vm"))
    assert answer.code == 1 and len(answer.err) == 401  # new0 is gone when named again
    assert kept == before
    assert counted.looked_at <= 4 * 800  # 480,400 before


def test_qrstat_owners_are_looked_up_in_a_set(counted: type[str]) -> None:
    """`qrstat -u a -u b ...`: each AR's owner was looked for in the list of users."""
    reservations = {i: AdvanceReservation(ar_id=i, spec=ArSpec(owner=f"u{i}"),
                                          submission_time=0, start=0, end=60)
                    for i in range(1, 301)}
    master = SimpleNamespace(s=SimpleNamespace(ars=reservations))
    users = [counted(f"x{i}") for i in range(300)] + ["u7"]
    reply = ars.query(master, p.QueryArs(users=users), now=0.0)  # type: ignore[arg-type]
    assert [ar.ar_id for ar in reply.ars] == [7]
    reply = ars.query(master, p.QueryArs(ids=["7", "8"], users=users),  # type: ignore[arg-type]
                      now=0.0)
    assert [ar.ar_id for ar in reply.ars] == [7]
    assert counted.looked_at <= 600  # 181,200 before


# ---- copies: accumulated in place ---------------------------------------------------------


@pytest.mark.parametrize(("key", "values", "merging"), [
    ("hold_jid", [["1"], ["2", "3"], ["4"]], _MERGING),
    ("hard_queues", [["a.q"], ["b.q"], ["c.q"]], _MERGING),
    ("hard_resources", [{"a": "1"}, {"b": "2"}, {"a": "3"}], _MERGING),
    ("users", [["ann"], ["bob"]], AR_MERGING),
])
def test_options_that_add_up_are_added_to_in_place(key: str, values: list, merging) -> None:
    """-hold_jid, -q, -l ... given many times: the list (or mapping) so far was copied
    for each one. It is now the first value's own copy, added to in place."""
    settings: dict = {}
    first = values[0]
    add_setting(settings, key, first, same_source=True, merging=merging)
    kept = settings[key]
    assert kept is not first and kept == first  # the option's own value stays as it was
    for value in values[1:]:
        add_setting(settings, key, value, same_source=True, merging=merging)
    assert settings[key] is kept
    if isinstance(first, dict):
        assert list(kept.items()) == [("b", "2"), ("a", "3")]  # a name again moves last
    else:
        assert kept == [item for value in values for item in value]
    assert first == values[0]


# ---- copies: the idioms kept out ----------------------------------------------------------

_LOOPS = (ast.For, ast.While, ast.AsyncFor)


def _rebuilt(target: ast.expr, value: ast.expr) -> bool:
    """Whether `target = value` makes a new list of the old one and more: `x + [...]`,
    `(x or []) + [...]`, `[*x, ...]` or `x[1:]`."""
    name = ast.dump(target).replace("Store()", "Load()")
    for node in ast.walk(value):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and any(
                isinstance(side, ast.List | ast.ListComp | ast.BoolOp)
                for side in (node.left, node.right)) and any(
                ast.dump(part) == name for part in ast.walk(node.left)):
            return True
        if isinstance(node, ast.List) and node.elts and isinstance(node.elts[0], ast.Starred):
            return True
        if isinstance(node, ast.Subscript) and ast.dump(node.value) == name \
                and isinstance(node.slice, ast.Slice) and node.slice.upper is None:
            return True
    return False


def quadratic_idioms(source: str) -> list[int]:
    """Lines that take a word off the front of a list (`pop(0)`, `del x[:n]` in a loop)
    or rebuild a list to add to it in a loop."""
    found: list[int] = []

    def visit(node: ast.AST, in_loop: bool) -> None:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "pop" and len(node.args) == 1 \
                and isinstance(node.args[0], ast.Constant) and node.args[0].value == 0:
            found.append(node.lineno)
        elif in_loop and isinstance(node, ast.Delete) and any(
                isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Slice)
                and t.slice.lower is None for t in node.targets):
            found.append(node.lineno)
        elif in_loop and isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and _rebuilt(node.targets[0], node.value):
            found.append(node.lineno)
        for child in ast.iter_child_nodes(node):
            visit(child, in_loop or isinstance(node, _LOOPS))

    visit(ast.parse(source), False)
    return found


def test_the_idioms_are_found() -> None:
    for source in ("while args:\n    word = args.pop(0)\n",
                   "while rest:\n    del rest[:2]\n",
                   "for a in b:\n    opts.ids = (opts.ids or []) + [a]\n",
                   "for a in b:\n    ids = [*ids, a]\n",
                   "while args:\n    args = args[1:]\n"):
        assert quadratic_idioms(source) == [2], source
    assert quadratic_idioms("for p in parts:\n    total = total * 60 + int(p)\n") == []


def test_command_lines_are_read_without_quadratic_idioms() -> None:
    files = [*sorted((ROOT / "gridd" / "cli").glob("*.py")),
             *sorted((ROOT / "gridd" / "master").glob("admin*.py")),
             ROOT / "gridd" / "master" / "ars.py"]
    found = {str(path.relative_to(ROOT)): lines for path in files
             if (lines := quadratic_idioms(path.read_text()))}
    assert found == {}
