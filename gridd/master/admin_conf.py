"""qconf on the cell's configurations: the complex table, the scheduler configuration,
and the global and host-local configurations.

A host configuration holds only the parameters the host sets for itself; Grid Engine's
-Aconf and -Mconf name the host by the file's name (`qconf -Mconf /tmp/node1` changes
node1's), so the file forms here do the same, and the editor forms name their
temporary file after the host.
"""

from __future__ import annotations

import msgspec

from gridd.formats.objects import parse_object, print_configuration
from gridd.formats.parsing import FormatError
from gridd.formats.qconf_objects import from_pairs, host_conf_from_pairs, show, to_pairs
from gridd.master import admin_refs as refs
from gridd.master.admin_base import (
    Answer,
    Caller,
    Verb,
    basename,
    load_object,
    names,
    refused_file,
)
from gridd.model.complexes import ComplexAttr, validate_table
from gridd.model.config import Configuration
from gridd.model.objects import GlobalConf

# ---- complex attributes ------------------------------------------------------------------


def show_complexes(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    from gridd.formats.complex_table import ComplexRow, print_complex_table

    rows = [ComplexRow(*msgspec.structs.astuple(attr))
            for attr in sorted(cfg.complexes, key=lambda a: a.name)]
    return Answer(out=print_complex_table(rows).splitlines())


def replace_complexes(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    """qconf -Mc: the whole table at once, refused as a whole if any row is wrong."""
    from gridd.formats.complex_table import parse_complex_table

    ans = Answer()
    path = args[0]
    try:
        rows = parse_complex_table(who.files.get(path, ""), source=path)
    except FormatError as exc:
        ans.fail(exc.ge_message)
        return ans
    new = [ComplexAttr(*row) for row in rows]
    old = {a.name: a for a in cfg.complexes}
    fresh = {a.name: a for a in new}
    # what names an attribute (every job's requests among it) matters only to a removal
    removing = any(name not in fresh for name in old)
    errors = validate_table(new, cfg.complexes, refs.complex_references(
        cfg, who.requested()) if removing else None)
    if errors:
        for error in errors:
            ans.fail(error)
        return ans
    for name in old:
        if name not in fresh:
            ans.err.append(f'{who} removed "{name}" from complex list')
    for name, attr in fresh.items():
        if name not in old:
            ans.err.append(f'{who} added "{name}" to complex entry list')
        elif old[name] != attr:
            ans.err.append(f'{who} modified "{name}" in complex entry list')
    if not ans.err:
        ans.err.append("Complex attribute configuration has not been changed")
        return ans
    cfg.complexes = sorted(new, key=lambda a: a.name)
    ans.changed = True
    return ans


# ---- scheduler configuration ----------------------------------------------------------------


def show_sched(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    return Answer(out=show("sched", cfg.sched).splitlines())


def replace_sched(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    """qconf -Msconf: Grid Engine confirms even a file equal to the configuration (only
    the editor form, -msconf, says "file unchanged", and that is qconf's own doing).
    """
    ans = Answer()
    path = args[0]
    try:
        new = load_object("sched", who, path)
    except FormatError as exc:
        ans.fail(f"{exc.ge_message}\nerror reading in file")
        return ans
    problem = refs.object_problem(cfg, new)
    if problem:
        ans.fail(problem)
        return ans
    cfg.sched = new
    ans.err.append("changed scheduler configuration")
    ans.changed = True
    return ans


# ---- global and host configurations -------------------------------------------------------

GLOBAL = "global"


def _conf_pairs(cfg: Configuration, name: str) -> list[tuple[str, str]] | None:
    if name == GLOBAL:
        return to_pairs(cfg.conf)
    conf = cfg.host_confs.get(name)
    return None if conf is None else list(conf.items())


def show_conf(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    """qconf -sconf [host,...|global]: each configuration under its `#name:` line and
    followed by a blank line, one more blank line between two; the first missing one ends
    the output, as in Grid Engine.
    """
    ans = Answer()
    for name in names(args[0]) if args else [GLOBAL]:
        pairs = _conf_pairs(cfg, name)
        if pairs is None:
            ans.fail(f"configuration {name} not defined")
            break
        if ans.out:
            ans.out.append("")
        ans.out += print_configuration(name, pairs).splitlines()
    return ans


def list_host_confs(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    ans = Answer(out=sorted(cfg.host_confs))
    if not ans.out:
        ans.fail("no config defined")
    return ans


def _read_conf(who: Caller, path: str, host: str) -> GlobalConf | dict[str, str]:
    """The configuration a file holds: a GlobalConf for `global`, else a host's own
    parameters. Raises FormatError with Grid Engine's words.
    """
    # the file may begin with the "#global:" line that -sconf prints: drop comments
    text = who.files.get(path, "")
    bare = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    pairs = parse_object(bare, source=path)
    if host != GLOBAL:
        return host_conf_from_pairs(pairs, source=path)
    if not pairs:  # every parameter back to its default is never what was meant
        raise FormatError("the file sets no parameter", path, 0, 0,
                          ge_message=f'error: error reading file: "{path}"')
    conf: GlobalConf = from_pairs("conf", pairs, source=path)
    return conf


def put_conf(adding: bool) -> Verb:
    """qconf -Aconf file,... (adding) / -Mconf file,...: each file's name is its host."""

    def verb(cfg: Configuration, args: list[str], who: Caller) -> Answer:
        ans = Answer()
        for path in names(args[0]):
            host = basename(path)
            exists = host == GLOBAL or host in cfg.host_confs
            if adding and exists:
                ans.fail(f"configuration {host} already exists")
                continue
            if not adding and not exists:
                ans.fail(f"configuration {host} does not exist")
                continue
            try:
                conf = _read_conf(who, path, host)
            except FormatError as exc:
                ans.fail(refused_file(exc, f"error reading configuration from file {path}"))
                continue
            params = dict(to_pairs(conf)) if isinstance(conf, GlobalConf) else conf
            problem = refs.conf_problem(cfg, host, params)
            if problem:
                ans.fail(problem)
                continue
            if isinstance(conf, GlobalConf):
                cfg.conf = conf
            else:
                cfg.host_confs[host] = conf
            ans.err.append(f'{who} {"added" if adding else "modified"} "{host}" '
                           f'{"to" if adding else "in"} configuration list')
            ans.changed = True
        return ans

    return verb


def delete_conf(cfg: Configuration, args: list[str], who: Caller) -> Answer:
    """qconf -dconf host,...: the global configuration stays. Grid Engine refuses that
    with exit code 0; gridd exits 1, as for every refusal, so scripts see it."""
    ans = Answer()
    for host in names(args[0]):
        if host == GLOBAL:
            ans.fail(f'can\'t delete configuration "{host}" from list')
        elif host not in cfg.host_confs:
            ans.fail(f'can\'t delete configuration "{host}" from list: configuration does '
                     "not exist")
        else:
            del cfg.host_confs[host]
            ans.err.append(f'{who} removed "{host}" from configuration list')
            ans.changed = True
    return ans
