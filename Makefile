# relaybay — the two commands of the README: `make run` and `make test`.
# Finds Python >= 3.12 (python3.13, python3.12, python3 on PATH or via .python-version),
# keeps a .venv next to this file and reinstalls only when pyproject.toml changes.

PYTHON ?= $(shell for p in python3.13 python3.12 python3; do \
	if command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1; \
	then echo $$p; break; fi; done)
VENV := .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.stamp-run
TEST_STAMP := $(VENV)/.stamp-test

.PHONY: run demo test lint format docs bench wheel clean check-python bytecode

check-python:
	@if [ -z "$(PYTHON)" ]; then echo "relaybay needs Python >= 3.12 (python3.13 or python3.12 on PATH)." >&2; exit 1; fi

$(BIN)/python: | check-python
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	@touch $@

$(TEST_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $@ $(RUN_STAMP)

# Our own modules as bytecode. Where PYTHONDONTWRITEBYTECODE is set (our machines set it)
# nothing caches them, so every process compiled ~200 of them from source again: each
# start of the server, each CLI call, each test server (about 1 s on a slow machine).
# Files that are up to date are skipped; Python ignores a .pyc older than its source.
PACKAGES := relaybay core relaybay_site tasks plans reviews sessions effort agents environments policy memory
bytecode: | $(BIN)/python
	@$(BIN)/python -m compileall -q -j 0 $(PACKAGES)

run: $(RUN_STAMP) bytecode
	$(BIN)/relaybay serve

demo: $(RUN_STAMP) bytecode
	$(BIN)/relaybay demo --home .demo --force && $(BIN)/relaybay serve --home .demo

# One pytest-xdist worker per CPU, at most 4, each taking whole files (a module's server and
# browser start once); TEST_WORKERS=0 runs in this process, e.g. to use a debugger.
TEST_WORKERS ?= auto
test: $(TEST_STAMP) bytecode
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --maxprocesses 4 --dist loadfile $(PYTEST_ARGS)

lint: $(TEST_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(TEST_STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

docs: $(RUN_STAMP)
	$(BIN)/python -m relaybay_site.docgen

bench: $(TEST_STAMP)
	$(BIN)/python bench/http_floor.py

wheel: $(TEST_STAMP)
	$(BIN)/python -m build --outdir dist .

clean:
	rm -rf $(VENV) dist build tests/artifacts bench/out
