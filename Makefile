# Entry points that do all their own set-up on a fresh clone:
#   make demo             -> creates .venv, installs the package, runs `kernelbandits demo`
#   make test             -> creates .venv, installs the package with dev tools, runs ruff, mypy, pytest
#   make reproduce-quick  -> every paper experiment at CI size, then the report
#   make bench            -> installs the `bench` extra, benchmarks against BoTorch and sklearn
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed

.PHONY: demo test lint pytest bench reproduce-quick clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev,data,lifelong,hpo,quantum,dask,tables,optuna]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/kernelbandits demo

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks scripts examples
	$(BIN)/ruff format --check src tests benchmarks scripts examples
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/python -m pytest -q

test: lint pytest

# every paper experiment at CI size, then the report (kb-results/report/report.{md,html})
reproduce-quick: $(STAMP)
	$(BIN)/kernelbandits reproduce all --quick --out kb-results
	$(BIN)/kernelbandits report kb-results

BENCH_STAMP = $(VENV)/.installed-bench

$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[bench]"
	touch $(BENCH_STAMP)

# kernelbandits vs BoTorch/GPyTorch and scikit-learn, one bandit round on the full grid (about
# 30 minutes on 2 cores); rewrites the README's table with this machine's numbers
bench: $(BENCH_STAMP)
	$(BIN)/python benchmarks/peers/bench_peers.py --readme README.md

clean:
	rm -rf $(VENV) kb-results build *.egg-info src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
