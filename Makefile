# One entry point for people and CI. `make run` and `make check` work on a fresh machine:
# they create .venv, install the project, and (for the tests) Debian's redis-server.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
SOURCES := bot tests scripts bench soak dev

.PHONY: setup run check format lint types test bench soak e2e-model redis-server clean

$(BIN)/prdigest: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e ".[dev]" -e ./dev
	touch $@

setup: $(BIN)/prdigest

# The main job: today's digest of a public repository, in the terminal, with no keys.
run: setup
	$(BIN)/prdigest digest vllm-project/vllm

# The tests start their own redis-server (and a Redis Cluster of three) and rabbitmq-server on
# loopback; install Debian's packages when the machine lacks them.
redis-server:
	@{ command -v redis-server && command -v redis-cli && { command -v rabbitmq-server || test -x /usr/lib/rabbitmq/bin/rabbitmq-server; }; } >/dev/null 2>&1 \
		|| { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq redis-server rabbitmq-server >/dev/null; }

format: setup
	$(BIN)/ruff format $(SOURCES)
	$(BIN)/ruff check --fix $(SOURCES)

lint: setup
	$(BIN)/ruff format --check $(SOURCES)
	$(BIN)/ruff check $(SOURCES)

types: setup
	$(BIN)/mypy

test: setup redis-server
	$(BIN)/pytest --cov=bot --cov-report=term:skip-covered

check: lint types test

# The benchmark: figures with their bounds and targets (a few minutes; see docs/benchmarks.md).
bench: setup redis-server
	$(BIN)/python -m bench

# Faults, replicas and load, as an outcome table (about 20 minutes; see docs/reliability.md).
soak: setup redis-server
	$(BIN)/python -m soak

# A real model server (llama-cpp-python with Gemma 3 270M) writing the example PRs' cards. Not part
# of `check`: the first run compiles llama.cpp (~20 minutes on 2 cores) in a venv outside the repo.
e2e-model: setup
	scripts/e2e_model.sh

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .coverage
