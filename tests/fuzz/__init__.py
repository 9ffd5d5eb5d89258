"""Fuzzing of everything that reads untrusted input: the wire protocol's decoder, the
text formats (the Lark grammars and the small value syntaxes) and the command lines.

Each target is a strategy of inputs and a check that runs the parser and lets only its
documented error through (tests/fuzz/targets.py). The suite runs every target briefly
(tests/fuzz/test_fuzz.py); bench/fuzz.py runs the same targets for 100,000 inputs each.
"""
