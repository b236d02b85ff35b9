# Felt: `make run` serves the game, `make test` runs the whole suite, `make test-fast` the
# edit-run lane (no `slow` or `browser` tests), `make check` lints and type-checks server/.
# Each sets itself up.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PORT   ?= 8000
HOST   ?= 127.0.0.1
STAMP  := $(VENV)/.installed

.PHONY: run test test-fast check bench bench-quick install clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,bench]'
	@touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	PORT=$(PORT) $(PY) -m server --host $(HOST) --port $(PORT)

test: $(STAMP)
	$(PY) -m pytest -q $(PYTEST_ARGS)

test-fast: $(STAMP)
	$(PY) -m pytest -q -m "not slow and not browser" $(PYTEST_ARGS)

# ruff and mypy come from the `dev` extra, installed on first use; their settings are in pyproject.toml.
check: $(STAMP)
	@$(PY) -m ruff --version >/dev/null 2>&1 && $(PY) -m mypy --version >/dev/null 2>&1 \
		|| $(PY) -m pip install --quiet -e '.[dev]'
	$(PY) -m ruff check server
	$(PY) -m ruff format --check server
	$(PY) -m mypy

# The benchmarks write to bench/results/local/ (ignored by git); `make bench BENCH_ARGS=--write`
# records the run in the committed bench/results/*.json and bench/README.md's "Last figures".
bench: $(STAMP)
	$(PY) -m bench.run $(BENCH_ARGS)

bench-quick: $(STAMP)
	$(PY) -m bench.run --quick $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache .ruff_cache felt.db felt.db-wal felt.db-shm felt-spool.jsonl
