"""gridd(1), and gridd-COMMAND(1) for each of its commands, made from gridd's argparse
parsers (gridd.cli.gridd_cmd.build_parser): their help strings are the one source of what
each command and flag does; only gridd(1)'s overview is written here."""

from __future__ import annotations

import argparse

from gridd.manual.page import Command, Entry, Operand, Option, Section

SOURCE = "gridd/cli/gridd_cmd.py"

DESCRIPTION = (
    "gridd starts, stops and inspects a cell of gridd, the batch-queueing system in the "
    "Grid Engine tradition whose q* commands (qsub(1), qstat(1), qconf(1), ...) "
    "administrators and users run; it runs the cell's daemons, replays workload traces "
    "and reports on the reporting database.\n\n"
    "A cell lives under $GRIDD_ROOT (when unset, $SGE_ROOT/$SGE_CELL, else ~/.gridd): "
    "common/ holds its configuration "
    "files, keys, the accounting and reporting files and the reporting database; "
    "spool/qmaster/ the master's spool; spool/HOST/ each execution daemon's. Each command "
    "has a page of its own, gridd-COMMAND(1).")


def _formatter(parser: argparse.ArgumentParser) -> argparse.HelpFormatter:
    """argparse's own formatting of usages and flags, unwrapped. Its helpers for a flag's
    argument and help (and the parsers' lists of actions) are not public, but they are
    what `gridd CMD --help` prints with: the pages say the same."""
    return argparse.HelpFormatter(parser.prog, width=10_000)


def _subcommands(parser: argparse.ArgumentParser
                 ) -> list[tuple[str, argparse.ArgumentParser, str]]:
    """(name, parser, help) of each command the parser takes, in their order."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            return [(name, sub, helps.get(name, "")) for name, sub in action.choices.items()]
    return []


def _usage(parser: argparse.ArgumentParser) -> str:
    """What follows the command's name in its usage line."""
    formatter = _formatter(parser)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups,
                        prefix="")
    return formatter.format_help().strip().removeprefix(parser.prog).strip()


def _entries(parser: argparse.ArgumentParser) -> tuple[Entry, ...]:
    """An Option per flag, an Operand per positional argument (its commands aside)."""
    formatter = _formatter(parser)
    entries: list[Entry] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            continue
        text = formatter._expand_help(action) if action.help else ""
        if action.option_strings:
            arg = (formatter._format_args(action, action.dest.upper())
                   if action.nargs != 0 else "")
            entries.append(Option(", ".join(action.option_strings), arg, text, text))
        else:
            name = formatter._format_args(action, action.dest)
            entries.append(Operand(name, text, text))
    return tuple(entries)


def _sentence(text: str) -> str:
    return text if not text or text.endswith(".") else f"{text}."


def _option_sentences(parser: argparse.ArgumentParser) -> str:
    """A nested command's flags and arguments, said in its item of COMMANDS."""
    return " ".join(_sentence(f"{entry.form if isinstance(entry, Option) else entry.name}: "
                              f"{entry.text}") for entry in _entries(parser)
                    if entry.text and entry.name != "-h, --help")


def command_page(name: str, parser: argparse.ArgumentParser, purpose: str) -> Command:
    """gridd-NAME(1): its usage, what it is for, its flags, and its own commands."""
    items = tuple((f"gridd {name} {sub_name} {_usage(sub)}".strip(),
                   " ".join(filter(None, [_sentence(sub_help), _option_sentences(sub)])))
                  for sub_name, sub, sub_help in _subcommands(parser))
    return Command(
        name=f"gridd-{name}", called=f"gridd {name}", purpose=purpose or f"gridd {name}",
        usage=_usage(parser), entries=_entries(parser),
        description=parser.description or (purpose[:1].upper() + purpose[1:] + "."),
        sections=(Section("COMMANDS", items=items),) if items else (),
        see_also=("gridd(1)",))


def pages() -> list[Command]:
    """gridd(1), then a page per command."""
    from gridd.cli.gridd_cmd import build_parser

    parser = build_parser()
    commands = _subcommands(parser)
    overview = Command(
        name="gridd", purpose="start, stop and inspect a gridd cell, and run its daemons",
        usage=_usage(parser), entries=_entries(parser), description=DESCRIPTION,
        sections=(
            Section("COMMANDS", items=tuple(
                (f"gridd {name} {_usage(sub)}".strip(), f"{_sentence(text)} See "
                 f"gridd-{name}(1).")
                for name, sub, text in commands)),
            Section("ENVIRONMENT", items=(
                ("GRIDD_ROOT", "The cell's root directory; when unset, $SGE_ROOT/$SGE_CELL "
                 "(SGE_CELL defaulting to default), else ~/.gridd."),)),
        ),
        see_also=tuple(f"gridd-{name}(1)" for name, _, _ in commands)
        + ("qsub(1)", "qstat(1)", "qconf(1)", "accounting(5)"))
    return [overview, *(command_page(name, sub, text) for name, sub, text in commands)]
