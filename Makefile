# Two entry points for a new user: `make demo` and `make test` (see README.md).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# A local mirror laid out like ../shared/data, used when it exists; without one, `data fetch all` gets every
# package from its public upstream ($ISARCASM_UPSTREAM moves every host, as the tests do for a local server).
DATA_MIRROR ?= $(if $(wildcard ../shared/data),../shared/data,)
PIP := $(BIN)/python -m pip install --quiet --disable-pip-version-check

# Arguments for the main job, e.g. `make demo DEMO_ARGS="--quick"` for a smoke run.
DEMO_ARGS ?=
# Runs trained at once, each with cores/JOBS threads (see `isarcasm reproduce --help`). The threads per run can
# change a run's digits (docs/protocol.md#same-numbers): the committed numbers are one thread per run (JOBS = cores).
JOBS ?= 2
# Test workers (pytest-xdist): one per core by default; `make test TEST_WORKERS=0` runs the suite in one process.
# `--dist loadfile` keeps each test file on one worker, so a module-scoped fixture that trains a model trains once.
TEST_WORKERS ?= auto
PYTEST := $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile
# The suite starts many Python processes that import the project (sweeps' workers, commands run as a user runs
# them); where PYTHONDONTWRITEBYTECODE is set each compiled its sources again. The tests write the bytecode
# (__pycache__/, which git ignores).
test test-fast: export PYTHONDONTWRITEBYTECODE :=

.PHONY: demo test test-fast install install-ray data

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

install: $(BIN)/python
	$(PIP) -e .

# `--executor ray` (see docs/cluster.md).
install-ray: $(BIN)/python
	$(PIP) -e '.[ray]'

data: install
	$(BIN)/isarcasm data fetch all $(if $(DATA_MIRROR),--mirror $(DATA_MIRROR),)

demo: data
	$(BIN)/isarcasm data list
	$(BIN)/isarcasm reproduce table7 --jobs $(JOBS) $(DEMO_ARGS)

# The Ray, backends and hub extras too: tests/experiments/runs/test_ray_executor.py runs on Ray, tests/experiments/runs/test_backends.py trains
# every model on JAX and torch, tests/experiments/runs/test_keras_entrants.py the keras_hub example (each skips, with the
# reason, where its extra is missing).
test: $(BIN)/python
	$(PIP) -e '.[test,ray,backends,hub]'
	$(PYTEST)

# The fast tier: every test not marked slow (tests/conftest.py marks the ones that train a model or read the
# real corpora). `make test` runs them all.
# Installs the test extra once (again when setup.py changes), so a rerun is the tests' time alone.
test-fast: $(VENV)/.installed-test
	$(PYTEST) -m "not slow"

$(VENV)/.installed-test: setup.py | $(BIN)/python
	$(PIP) -e '.[test]'
	touch $@
