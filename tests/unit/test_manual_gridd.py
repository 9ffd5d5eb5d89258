"""gridd's man pages are made from its argparse parsers: every command has a page, and
every flag and argument of it (and of its own commands) is on that page."""

from __future__ import annotations

import argparse

import pytest

from gridd.cli.gridd_cmd import build_parser
from gridd.manual import build, gridd_pages, roff


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(actions[0].choices) if actions else {}


def words(parser: argparse.ArgumentParser) -> set[str]:
    """What a page must name for this parser: its flags, its arguments (by metavar or
    name), and those of its own commands."""
    found: set[str] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= words(sub)
        elif action.option_strings:
            found |= set(action.option_strings)
        elif action.choices and not action.metavar:
            found |= set(action.choices)
        else:
            found.add(action.metavar or action.dest)
    return found


PAGES = {page.name: page for page in gridd_pages.pages()}
COMMANDS = subcommands(build_parser())


def test_a_page_for_gridd_and_each_of_its_commands() -> None:
    assert set(PAGES) == {"gridd", *(f"gridd-{name}" for name in COMMANDS)}
    pages = build.pages("1.0")
    assert {f"man1/{name}.1" for name in PAGES} <= set(pages)
    overview = pages["man1/gridd.1"]
    for name in COMMANDS:  # roff escapes a name's hyphens (drmaa-library) as any other
        assert f"\\fB{roff.escape(f'gridd {name}')} " in overview
        assert f"gridd\\-{roff.escape(name).removeprefix(chr(92) + '%')} (1)" in overview


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_flag_and_argument_is_on_its_page(name: str) -> None:
    page = PAGES[f"gridd-{name}"]
    text = roff.command_page(page, "1.0", gridd_pages.SOURCE)
    assert f".SH SYNOPSIS\n.B {roff.escape(f'gridd {name}')}\n" in text
    for word in words(COMMANDS[name]):
        assert roff.escape(word).removeprefix("\\%") in text, (name, word)
    flags = {entry.name for entry in page.options}
    own = {", ".join(a.option_strings) for a in COMMANDS[name]._actions if a.option_strings}
    assert flags == own


def test_help_strings_become_the_options_paragraphs() -> None:
    parser = argparse.ArgumentParser(prog="gridd x")
    parser.add_argument("--slots", type=int, default=4, help="slots per host (default: "
                                                              "%(default)s)")
    parser.add_argument("trace", help="a trace file")
    page = gridd_pages.command_page("x", parser, "do x")
    assert page.called == "gridd x" and page.purpose == "do x"
    assert page.usage == "[-h] [--slots SLOTS] trace"
    (_, slots), (trace,) = page.options, page.entries[2:]
    assert (slots.name, slots.arg, slots.text) == ("--slots", "SLOTS",
                                                   "slots per host (default: 4)")
    assert (trace.name, trace.text) == ("trace", "a trace file")
