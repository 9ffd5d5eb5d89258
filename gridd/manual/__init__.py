"""gridd's manual: one source per command (its options, their argument forms, a line for
-help and a paragraph for the man page), from which the q* commands' -help texts are made.

A q* command loads its source only when it prints its usage (help_text.help_text).
"""
