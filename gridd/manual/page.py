"""What a manual source holds: a command's options and operands, the argument forms they
use, and further man page sections; or a file format's sections. Plain data, no I/O.

Texts are paragraphs separated by blank lines; a paragraph whose lines start with two
spaces is shown as it is written (examples, file excerpts), any other is filled.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Option:
    """An option the command accepts. -help shows `[form]` and `summary` (a newline in it
    continues on the next line, under the first); the man page `form` and `text`."""

    name: str
    arg: str = ""
    summary: str = ""
    text: str = ""
    shown: str = ""  # the form between -help's brackets, when it is not `name arg`

    @property
    def form(self) -> str:
        return self.shown or f"{self.name} {self.arg}".rstrip()


@dataclass(frozen=True)
class Operand:
    """A word that is no option (job_task_list); -help shows it without brackets."""

    name: str
    summary: str = ""
    text: str = ""


Entry = Option | Operand


@dataclass(frozen=True)
class Term:
    """An argument form named in the options (date_time: [[CC]YY]MMDDhhmm[.SS])."""

    name: str
    form: str


@dataclass(frozen=True)
class Layout:
    """Where -help puts things, as the real command does: the options' indent and the
    column their summaries start in; the same for the argument forms below them."""

    indent: int = 3
    column: int = 44
    term_indent: int = 0
    term_column: int = 24


@dataclass(frozen=True)
class Section:
    """A man page section: paragraphs, then tagged items (a field and what it holds)."""

    title: str
    text: str = ""
    items: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Command:
    """A command's manual source: -help is made of `usage`, `entries` and `terms`; the
    man page of all of it."""

    name: str
    purpose: str  # the man page's NAME line, after the dash
    usage: str  # what follows "usage: NAME " in -help and the SYNOPSIS
    entries: tuple[Entry, ...]
    description: str
    terms: tuple[Term, ...] = ()
    layout: Layout = Layout()
    sections: tuple[Section, ...] = ()  # after OPTIONS: EXIT STATUS, FILES, ...
    see_also: tuple[str, ...] = ()
    called: str = ""  # how it is typed, when not by its name (gridd-up: gridd up)

    @property
    def options(self) -> tuple[Option, ...]:
        return tuple(entry for entry in self.entries if isinstance(entry, Option))

    def renamed(self, name: str, purpose: str, description: str,
                see_also: tuple[str, ...]) -> Command:
        """The same options under another command's name (qrls beside qhold)."""
        return replace(self, name=name, purpose=purpose, description=description,
                       see_also=see_also)


@dataclass(frozen=True)
class FilePage:
    """A section 5 page: a file gridd writes or reads."""

    name: str
    purpose: str
    description: str
    sections: tuple[Section, ...] = ()
    see_also: tuple[str, ...] = ()
