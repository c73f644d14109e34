# Two commands on a fresh machine: `make run` (the floor on SQLite, tasks in-process) and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | sha1sum | cut -c1-12)

.PHONY: run check test test-all install unit integration bench emulate clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	rm -f $(VENV)/.installed-*; touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/slotsys run

# By hand, `make test` leaves out the multi-minute fault suites (marker `faults`: killed processes, Redis and
# PostgreSQL outages); CI (CI=true, as .ci/run runs) and `make test-all` run everything.
PYTEST_MARKS ?= $(if $(CI),,-m "not faults")

# The import contracts, the linter and the type checker ([tool.importlinter], [tool.ruff], [tool.mypy] in
# pyproject.toml): seconds, so every test run starts with them.
check: $(STAMP)
	$(BIN)/lint-imports
	$(BIN)/ruff check
	$(BIN)/mypy

# The suite runs in JOBS processes (pytest-xdist; one file per process at a time, so a module's server fixture
# starts once): as many as there are cores, at most 4 (each holds PostgreSQL connections and a Redis database of
# its own, tests/conftest.py). `make test JOBS=0` runs in this process alone (pdb, -x).
JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); [ $$n -gt 4 ] && n=4; echo $$n)
PYTEST_JOBS = $(if $(filter 0,$(JOBS)),,-n $(JOBS) --dist loadfile)

test: check
	$(BIN)/pytest $(PYTEST_JOBS) $(PYTEST_MARKS) $(PYTEST_ARGS)

test-all: check
	$(BIN)/pytest $(PYTEST_JOBS) $(PYTEST_ARGS)

unit: $(STAMP)
	$(BIN)/pytest tests/unit $(PYTEST_ARGS)

emulate: $(STAMP)
	$(BIN)/slotsys emulate --machines 20 --spins 2000

bench: $(STAMP)
	$(BIN)/python bench/spin_throughput.py

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
