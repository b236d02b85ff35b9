# Felt: `make run` serves the game, `make test` runs the whole suite, `make test-fast` the
# edit-run lane (no `slow` or `browser` tests), `make check` lints server/, tests/ and bench/ and
# type-checks server/.
# Each sets itself up.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PORT   ?= 8000
HOST   ?= 127.0.0.1
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: run test test-fast check bench bench-quick install clean

# Running needs the project's dependencies only: `python -m server` runs from this folder, so
# nothing is built and neither the test nor the bench extras are fetched. The stamp is written
# only once the server's whole import graph loads with what was installed: a failed install, or
# a dependency missing from pyproject.toml, leaves no stamp and the next `make run` tries again.
$(RUN_STAMP): pyproject.toml
	@rm -f $@
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"], sep="\n")' > $(VENV)/requirements-run.txt
	$(PY) -m pip install --quiet --disable-pip-version-check -r $(VENV)/requirements-run.txt
	$(PY) -c 'import server.app, server.__main__'
	@touch $@

# The tests and the benchmarks start servers from other folders: the project itself, editable,
# with the test and bench extras.
$(DEV_STAMP): $(RUN_STAMP) pyproject.toml
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test,bench]'
	@touch $@

install: $(DEV_STAMP)

run: $(RUN_STAMP)
	PORT=$(PORT) $(PY) -m server --host $(HOST) --port $(PORT)

# Two lanes, each on two worker processes (pytest-xdist, a file to a worker: each test makes its
# own servers, databases and Redis prefixes, so they share nothing): the tests that need no
# browser, then the browser tests (each worker with its own server and Chromium; Playwright's sync
# API owns its process's event loop, so no asyncio test runs beside it). Both lanes run whatever
# the first gives; the command fails if either failed (a lane that PYTEST_ARGS leaves empty,
# pytest's exit status 5, is no failure). See docs/decisions/0051 and 0060.
test: $(DEV_STAMP)
	@failed=0; \
	$(PY) -m pytest -q -n 2 --dist loadfile -m "not browser" $(PYTEST_ARGS) || [ $$? -eq 5 ] || failed=1; \
	$(PY) -m pytest -q -n 2 --dist loadfile -m browser $(PYTEST_ARGS) || [ $$? -eq 5 ] || failed=1; \
	exit $$failed

test-fast: $(DEV_STAMP)
	$(PY) -m pytest -q -n 2 --dist loadfile -m "not slow and not browser" $(PYTEST_ARGS)

# ruff and mypy come from the `dev` extra, installed on first use; their settings are in pyproject.toml.
check: $(DEV_STAMP)
	@$(PY) -m ruff --version >/dev/null 2>&1 && $(PY) -m mypy --version >/dev/null 2>&1 \
		|| $(PY) -m pip install --quiet -e '.[dev]'
	$(PY) -m ruff check server tests bench
	$(PY) -m ruff format --check server tests bench
	$(PY) -m mypy

# The benchmarks write to bench/results/local/ (ignored by git); `make bench BENCH_ARGS=--write`
# records the run in the committed bench/results/*.json and bench/README.md's "Last figures".
bench: $(DEV_STAMP)
	$(PY) -m bench.run $(BENCH_ARGS)

bench-quick: $(DEV_STAMP)
	$(PY) -m bench.run --quick $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache .ruff_cache felt.db felt.db-wal felt.db-shm felt-spool.jsonl
