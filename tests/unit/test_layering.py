"""The layers of docs/ARCHITECTURE.md, checked: which gridd package may import which.

Every module under gridd/ is parsed (not imported) and each of its imports is checked,
those inside functions too (a lazy import is a dependency all the same) and those under
`if TYPE_CHECKING:`. LAYERS is the document's table; a module that no layer holds fails,
so that a new top-level module is given its place in both.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2] / "gridd"
ANY = frozenset({"*"})  # an outer layer: it may import whatever it needs


@dataclass(frozen=True)
class Layer:
    modules: tuple[str, ...]  # the modules it holds, with their submodules
    imports: frozenset[str]  # the layers it may import (its own is always allowed)
    packages: frozenset[str] = frozenset()  # outside packages it may import, beside stdlib
    pure: bool = False  # the pure core: no I/O, no clock, no trio


def _layer(modules: str, imports: str = "", packages: str = "", pure: bool = False) -> Layer:
    return Layer(tuple(modules.split()), ANY if imports == "*" else frozenset(imports.split()),
                 ANY if packages == "*" else frozenset(packages.split()), pure)


# The table of docs/ARCHITECTURE.md ("Layers"); keep the two the same.
LAYERS = {
    "model": _layer("gridd.model gridd.wire", "", "msgspec", pure=True),
    "formats": _layer("gridd.formats", "model resources", "lark msgspec", pure=True),
    "sched": _layer("gridd.sched", "model", "msgspec", pure=True),
    "protocol": _layer("gridd.protocol", "model", "msgspec"),
    "master.state": _layer("gridd.master.state", "model protocol", pure=True),
    "master": _layer("gridd.master", "model formats sched protocol master.state", "msgspec",
                     pure=True),
    "spool": _layer("gridd.spool", "model formats master.state base", "msgspec"),
    "accounting": _layer("gridd.accounting", "model formats protocol client base resources",
                         "duckdb msgspec"),
    "client": _layer("gridd.client gridd.connection gridd.master_local gridd.zmtp gridd.keys "
                     "gridd.join_bundle gridd.session gridd.login_token",
                     "model protocol base", "nacl zmq msgspec"),
    "base": _layer("gridd gridd.durable gridd.collector gridd.paths gridd.pidfile "
                   "gridd.sge_root gridd.master_endpoint"),
    "resources": _layer("gridd.resources"),
    "manual": _layer("gridd.manual", "cli"),
    "cli": _layer("gridd.cli", "*", "*"),
    "shells": _layer("gridd.actors gridd.execd gridd.transport gridd.sim_processes", "*", "*"),
    "web": _layer("gridd.web", "*", "*"),
    "drmaa": _layer("gridd.drmaa", "client model protocol formats cli base", "cffi msgspec"),
}
# What the pure core never imports: an event loop, sockets, databases, other processes.
IMPURE = frozenset({"trio", "zmq", "duckdb", "sqlite3", "socket", "_socket", "subprocess"})
# What a command must not pay for at start-up: imported by gridd.cli only inside functions.
HEAVY = frozenset({"trio", "zmq", "duckdb", "lark", "starlette", "hypercorn", "jinja2", "anyio"})
# Reading a clock: the pure core is given `now`.
CLOCKS = frozenset({"time.time", "time.time_ns", "time.monotonic", "time.monotonic_ns",
                    "time.perf_counter", "time.perf_counter_ns", "time.process_time",
                    "datetime.now", "datetime.utcnow", "datetime.today", "date.today"})
# Without a time given, these read the clock too (time.localtime() is now).
CLOCK_DEFAULTS = {"time.localtime": 1, "time.gmtime": 1, "time.ctime": 1,
                  "time.asctime": 1, "time.strftime": 2}


def layer_of(module: str) -> str | None:
    """The layer holding `module`: the one naming it or the longest package holding it
    (the top package, gridd, holds only its own __init__)."""
    best, length = None, -1
    for name, layer in LAYERS.items():
        for prefix in layer.modules:
            inside = prefix != "gridd" and module.startswith(prefix + ".")
            if (module == prefix or inside) and len(prefix) > length:
                best, length = name, len(prefix)
    return best


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SOURCE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(node: ast.Import | ast.ImportFrom, module: str, is_package: bool,
              known: set[str]) -> Iterator[str]:
    """The modules an import statement names; `from pkg import mod` names pkg.mod."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        package = package[: len(package) - node.level + 1]
        base = ".".join([*package, base] if base else package)
    for alias in node.names:
        sub = f"{base}.{alias.name}"
        yield sub if sub in known else base


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else None
    return None


def _clock_read(node: ast.AST) -> str | None:
    """The clock `node` reads, if it reads one."""
    if isinstance(node, ast.Attribute):
        name = _dotted(node)
        if name and any(name == c or name.endswith("." + c) for c in CLOCKS):
            return name
    if isinstance(node, ast.ImportFrom) and node.module in ("time", "datetime"):
        for alias in node.names:
            if f"{node.module}.{alias.name}" in CLOCKS:
                return f"{node.module}.{alias.name}"
    if isinstance(node, ast.Call):
        name = _dotted(node.func)
        if name in CLOCK_DEFAULTS and len(node.args) < CLOCK_DEFAULTS[name]:
            return f"{name}()"
    return None


def violations(path: Path, source: str, known: set[str]) -> Iterator[str]:
    """Every import (and clock read) of one module that its layer forbids, as
    `file:line: what (rule)`."""
    module = module_name(path)
    where = str(path.relative_to(SOURCE.parent))
    name = layer_of(module)
    if name is None:
        yield f"{where}:1: {module} is in no layer (add it to LAYERS and the document)"
        return
    layer = LAYERS[name]
    tree = ast.parse(source, str(path))
    lazy = {id(inner) for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            for inner in ast.walk(node)}
    for node in ast.walk(tree):
        line = f"{where}:{getattr(node, 'lineno', 1)}"
        if layer.pure and (clock := _clock_read(node)):
            yield f"{line}: reads the clock ({clock}): the {name} layer is given `now`"
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        for target in _imported(node, module, path.name == "__init__.py", known):
            top = target.split(".")[0]
            if top == "gridd":
                other = layer_of(target)
                if other != name and other not in layer.imports and layer.imports != ANY:
                    yield (f"{line}: imports {target}: the {name} layer may import "
                           f"{_listed(layer.imports)}, not {other}")
            elif layer.pure and top in IMPURE:
                yield f"{line}: imports {top}: the pure core never imports {top}"
            elif name == "cli" and top in HEAVY and id(node) not in lazy:
                yield (f"{line}: imports {top} at start-up: gridd.cli imports it only "
                       "inside the functions that need it")
            elif (top not in sys.stdlib_module_names and top not in layer.packages
                  and layer.packages != ANY):
                yield (f"{line}: imports {top}: the {name} layer may import "
                       f"{_listed(layer.packages)} outside the stdlib")


def _listed(names: frozenset[str]) -> str:
    return ", ".join(sorted(names)) or "nothing else"


def _sources() -> dict[Path, str]:
    return {path: path.read_text() for path in sorted(SOURCE.rglob("*.py"))}


def test_every_import_keeps_to_the_layers() -> None:
    sources = _sources()
    known = {module_name(path) for path in sources}
    found = [v for path, text in sources.items() for v in violations(path, text, known)]
    assert not found, "imports the layers forbid:\n" + "\n".join(found)


def test_the_check_finds_what_it_is_for() -> None:
    """Each rule, on a module it would catch: the checks are not vacuous."""
    known = {module_name(path) for path in _sources()}

    def found(module: str, source: str) -> list[str]:
        return list(violations(SOURCE / module, source, known))

    assert found("model/__init__.py", "import trio") == [
        "gridd/model/__init__.py:1: imports trio: the pure core never imports trio"]
    assert found("sched/plan.py", "def f():\n    from gridd import protocol as p") == [
        "gridd/sched/plan.py:2: imports gridd.protocol: the sched layer may import model, "
        "not protocol"]
    assert found("model/job.py", "from gridd.formats.values import x")[0].endswith(
        "imports gridd.formats.values: the model layer may import nothing else, not formats")
    assert found("spool/records.py", "from gridd.master.core import Master")
    assert not found("spool/records.py", "from gridd.master.state import MasterState")
    assert found("master/core.py", "import time\nt = time.monotonic()") == [
        "gridd/master/core.py:2: reads the clock (time.monotonic): the master layer is "
        "given `now`"]
    assert found("formats/names.py", "import time\nx = time.localtime()")
    assert not found("formats/names.py", "import time\nx = time.localtime(0)")
    assert found("cli/qstat.py", "import duckdb")
    assert not found("cli/qstat.py", "def f():\n    import duckdb")
    assert found("newmodule.py", "")
