# Two commands set everything up on a fresh machine: `make demo` and `make test`.
# The venv's interpreter: the system's /usr/bin/python3 where it is 3.11 or later and can
# make a venv, else the first python3 on PATH. Debian's links the interpreter into its
# binary, where a build with --enable-shared (pyenv's) calls it through libpython.so: the
# planner runs some 15 % faster on Debian's (gridd sim of KTH-SP2, bench/sim_throughput.py).
SYSTEM_PYTHON := /usr/bin/python3
PYTHON ?= $(shell $(SYSTEM_PYTHON) -c 'import sys, ensurepip, venv; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && echo $(SYSTEM_PYTHON) || echo python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_ROOT ?= $(CURDIR)/gridd-root

.PHONY: demo test lint bench fuzz clean

# setup.py writes the man pages from gridd/manual (and gridd's parsers) and builds libdrmaa
# and the shepherd at install time.
$(STAMP): pyproject.toml setup.py $(wildcard gridd/manual/*.py gridd/manual/*/*.py) \
		gridd/cli/gridd_cmd.py gridd/cli/report.py gridd/cli/dbwriter.py gridd/cli/spool_cmd.py \
		gridd/cli/web_cmd.py gridd/cli/drmaa_cmd.py $(wildcard gridd/drmaa/*.py) \
		gridd/execd/shepherd.py gridd/execd/shepherd.c
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]' --config-settings editable_mode=compat
	$(BIN)/python -m compileall -q gridd  # bytecode even where PYTHONDONTWRITEBYTECODE is set
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/ruff check gridd tests bench
	$(BIN)/python -m pytest tests -n 2 --dist worksteal --durations=20  # two workers; the slowest twenty listed, to keep the suite near ten minutes

demo: $(STAMP)
	GRIDD_ROOT=$(DEMO_ROOT) BIN=$(BIN) bash contrib/demo.sh

bench: $(STAMP)
	$(BIN)/python -m compileall -q gridd
	$(BIN)/python bench/run_all.py

# Every fuzz target for 100,000 inputs (bench/fuzz.py --help for the options).
fuzz: $(STAMP)
	$(BIN)/python bench/fuzz.py

lint: $(STAMP)
	$(BIN)/ruff check gridd tests bench

clean:
	-GRIDD_ROOT=$(DEMO_ROOT) $(BIN)/gridd down --kill-jobs
	rm -rf $(VENV) $(DEMO_ROOT) build *.egg-info
