"""Man pages in roff (the man macros) from manual sources: a command's page in section 1,
a file format's in section 5. Only the build (gridd.manual.build) renders them."""

from __future__ import annotations

import re

from gridd.manual.page import Command, FilePage, Option, Section

_HYPHENATED = re.compile(r"[^\s-]*-\S*")
_GENERATED = ('.\\" Made by gridd.manual from its source {source}: change that, not this '
              "file.")


def escape(text: str) -> str:
    """Text as roff prints it: backslashes and hyphens escaped (a hyphen is a minus sign,
    so that options can be copied, and a word holding one is never broken at it), no line
    taken for a request."""
    text = _HYPHENATED.sub(r"\\%\g<0>", text.replace("\\", "\\e")).replace("-", "\\-")
    return "\n".join("\\&" + line if line.startswith((".", "'")) else line
                     for line in text.split("\n"))


def paragraphs(text: str) -> list[str]:
    """Filled paragraphs, and literal ones (their lines indented by two spaces) kept as
    they are written."""
    out: list[str] = []
    for block in (b for b in text.split("\n\n") if b.strip()):
        out.append(".PP" if out else "")
        if block.startswith("  "):
            out += [".RS", ".nf", *(escape(line[2:]) for line in block.split("\n")), ".fi",
                    ".RE"]
        else:
            out.append(escape(block.replace("\n", " ")))
    return [line for line in out if line]


def _tagged(tag: str, text: str) -> list[str]:
    return [".TP", tag, *paragraphs(text)]


def _option_tag(option: Option) -> str:
    tag = f"\\fB{escape(option.name)}\\fR"
    return f"{tag} \\fI{escape(option.arg)}\\fR" if option.arg else tag


def _section(section: Section) -> list[str]:
    lines = [f'.SH "{section.title}"', *paragraphs(section.text)]
    for tag, text in section.items:
        lines += _tagged(f"\\fB{escape(tag)}\\fR", text)
    return lines


def _header(name: str, number: int, purpose: str, version: str, source: str) -> list[str]:
    return [_GENERATED.format(source=source),
            f'.TH {name.upper()} {number} "" "gridd {version}" "gridd manual"',
            ".nh", ".ad l",  # no hyphens in option names, no stretched blanks
            ".SH NAME", f"{escape(name)} \\- {escape(purpose)}"]


def _see_also(pages: tuple[str, ...]) -> list[str]:
    if not pages:
        return []
    return [".SH \"SEE ALSO\"", ",\n".join(f".BR {escape(p).replace('(', ' (')}"
                                             for p in pages)]


def command_page(command: Command, version: str, source: str = "") -> str:
    """A command's section 1 page: synopsis, description, every option and operand with
    its paragraph, the argument forms, then the further sections. `source` is where it
    comes from (default: gridd/manual/NAME.py)."""
    source = source or f"gridd/manual/{command.name}.py"
    lines = _header(command.name, 1, command.purpose, version, source)
    lines += [".SH SYNOPSIS", f".B {escape(command.called or command.name)}",
              escape(command.usage),
              ".SH DESCRIPTION", *paragraphs(command.description), ".SH OPTIONS"]
    for entry in command.entries:
        if isinstance(entry, Option):
            lines += _tagged(_option_tag(entry), entry.text)
        else:
            lines += _tagged(f"\\fI{escape(entry.name)}\\fR", entry.text)
    if command.terms:
        lines += ['.SH "ARGUMENT FORMS"']
        for term in command.terms:
            lines += [".TP", f"\\fI{escape(term.name)}\\fR", escape(term.form)]
    for section in command.sections:
        lines += _section(section)
    lines += _see_also(command.see_also)
    return "\n".join(lines) + "\n"


def file_page(page: FilePage, version: str) -> str:
    """A file format's section 5 page."""
    lines = _header(page.name, 5, page.purpose, version, f"gridd/manual/files/{page.name}.py")
    lines += [".SH DESCRIPTION", *paragraphs(page.description)]
    for section in page.sections:
        lines += _section(section)
    lines += _see_also(page.see_also)
    return "\n".join(lines) + "\n"
