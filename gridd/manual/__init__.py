"""gridd's manual: one source per command (its options, their argument forms, a line for
-help and a paragraph for the man page) and per file format (files/), from which the q*
commands' -help texts and the man pages are made; gridd's own pages come from its
argparse parsers (gridd_pages).

A q* command loads its source only when it prints its usage (usage, below); the
man pages are written at build time (setup.py runs build.write_pages), so no command
loads roff.
"""


def usage(command: str) -> str:
    """What `command -help` prints, which some refusals print too. The renderer and the
    command's source are loaded only now: making their dataclasses costs a q* command's
    start-up some milliseconds."""
    from gridd.manual.help_text import help_text

    return help_text(command)
