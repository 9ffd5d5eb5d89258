"""A q* command's -help text, made from its manual source in Grid Engine 8.1.9's layout:
the version line, the usage line, an option a line with the summaries in one column,
then the argument forms. The commands print the same text before some refusals."""

from __future__ import annotations

import importlib

from gridd.manual.page import Command, Option

# What 8.1.9's commands print first. Scripts read this line to tell which Grid Engine
# (and which version of its options and output) they talk to: gridd offers 8.1.9's.
VERSION_LINE = "SGE 8.1.9"


def source(command: str) -> Command:
    """The manual source of a q* command (gridd.manual.<command>)."""
    return importlib.import_module(f"gridd.manual.{command}").COMMAND


def render(command: Command) -> str:
    layout = command.layout
    lines = [VERSION_LINE, f"usage: {command.name} {command.usage}".rstrip()]
    width = layout.column - layout.indent - 1
    for entry in command.entries:
        form = f"[{entry.form}]" if isinstance(entry, Option) else entry.name
        first, *more = entry.summary.split("\n")
        lines.append(f"{' ' * layout.indent}{form:<{width}} {first}".rstrip())
        lines += [f"{' ' * layout.column}{line}" for line in more]
    if command.terms:
        lines.append("")
        width = layout.term_column - layout.term_indent - 1
        lines += [f"{' ' * layout.term_indent}{term.name:<{width}} {term.form}"
                  for term in command.terms]
    return "\n".join(lines) + "\n"


def help_text(command: str) -> str:
    """What `command -help` prints."""
    return render(source(command))
