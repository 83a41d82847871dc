# Two entry points that do all their own set-up on a fresh clone:
#   make demo   -> creates .venv, installs the package, runs `kernelbandits demo`
#   make test   -> creates .venv, installs the package with dev tools, runs ruff, mypy, pytest
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed

.PHONY: demo test lint pytest bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev,data,lifelong,hpo,quantum,dask,tables]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/kernelbandits demo

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/ruff format --check src tests benchmarks scripts
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/python -m pytest -q

test: lint pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_gpucb_round.py

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
