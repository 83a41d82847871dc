# Entry points that do all their own set-up on a fresh clone:
#   make demo             -> creates .venv, installs the package, runs `kernelbandits demo`
#   make test             -> creates .venv, installs the package with dev tools, runs ruff, mypy, pytest
#   make reproduce-quick  -> every paper experiment at CI size, then the report
#   make bench            -> installs the `bench` extra, benchmarks against BoTorch and sklearn
#   make bench-quality    -> installs the `bench` extra and the peers, sample efficiency of our
#                            Optuna samplers against Optuna's, BoTorch's, HEBO's and SMAC3's
#                            (hours; resumable store)
#   make bench-holdout    -> the same on 13 functions no default was chosen on (our default,
#                            Optuna's samplers; about 2 hours; resumable store)
#   make bench-peers      -> installs HEBO and SMAC3 (bench-quality's peers) into .venv
#   make bench-lifelong   -> installs the `bench` extra, LIBOSampler over families of studies
#                            against Optuna's samplers, a warm start and the transfer peers
#                            (resumable store)
#   make bench-transfer   -> DeltaBOSampler on related pairs of tuning tasks against Optuna's
#                            samplers and an enqueue warm start (about 30 minutes)
#   make bench-loto       -> transfer, leave one task out: DeltaBOSampler against Meta-Learn TPE,
#                            BoTorch's multi-task GP, RGPE, a warm start and Optuna's samplers on
#                            every data set as the target (the multi-task GP alone takes hours)
#   make bench-multiobjective -> MultiTaskSampler against Optuna's multi-objective samplers
#                            (hours; resumable store)
#   make docs             -> installs the `docs` extra, builds the documentation site (Sphinx) into
#                            docs/_build/html: warnings are errors, the gallery's scripts run
#   make reproduce-full   -> every paper experiment at paper size (20 min on 2 cores; resumable), then the
#                            published report in docs/results
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed

.PHONY: demo test lint pytest docs bench bench-quality bench-holdout bench-peers bench-lifelong bench-transfer bench-loto \
	bench-multiobjective reproduce-quick reproduce-full \
	report-full clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev,data,lifelong,hpo,quantum,dask,tables,optuna,postgres]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/kernelbandits demo

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks scripts examples
	$(BIN)/ruff format --check src tests benchmarks scripts examples
	$(BIN)/mypy

# two worker processes (pytest-xdist): the suite in about 8 minutes instead of 14 on 2 cores
pytest: $(STAMP)
	$(BIN)/python -m pytest -q -n 2

test: lint pytest

# every paper experiment at CI size, then the report (kb-results/report/report.{md,html})
reproduce-quick: $(STAMP)
	$(BIN)/kernelbandits reproduce all --quick --out kb-results
	$(BIN)/kernelbandits report kb-results

# the paper-size sweep: its store lives outside the work tree (a rerun resumes it; never commit
# it); the report, with the command and the machine, goes to docs/results
FULL_STORE ?= $(HOME)/kb-full
FULL_JOBS  ?= 2
FULL_NOTE   = Paper-size sweep: \`kernelbandits reproduce all --jobs $(FULL_JOBS) --out STORE\` \
	(\`make reproduce-full\`), then \`kernelbandits report STORE --to docs/results\`. Every \
	experiment at the size its paper states (the seeds of each are in the runs table: seeds \
	0..n-1); the Runs table says which experiments are complete.

reproduce-full: $(STAMP)
	$(BIN)/kernelbandits reproduce all --jobs $(FULL_JOBS) --out $(FULL_STORE)
	$(MAKE) report-full

# the report of whatever the store holds (a sweep still running shows its finished runs)
report-full: $(STAMP)
	$(BIN)/kernelbandits report $(FULL_STORE) --to docs/results --note "$(FULL_NOTE)"

DOCS_STAMP = $(VENV)/.installed-docs

$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[docs]"
	touch $(DOCS_STAMP)

# the documentation site: the guide, the gallery (docs/gallery/plot_*.py, run at every build),
# the API reference (regenerated from the docstrings each time) and the report; offline, and
# any warning fails the build
docs: $(DOCS_STAMP)
	rm -rf docs/api/generated
	MPLBACKEND=Agg $(BIN)/sphinx-build -W --keep-going -b html docs docs/_build/html

BENCH_STAMP = $(VENV)/.installed-bench

$(BENCH_STAMP): $(STAMP) pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[bench]"
	touch $(BENCH_STAMP)

# The benchmarks are the package `benchmarks` (run from the repository's root with
# `python -m benchmarks.<name>`); each rewrites the generated block of its page under
# docs/benchmarks/ from its results (docs/benchmarks/index.md lists them).

# kernelbandits vs BoTorch/GPyTorch and scikit-learn, one bandit round on the full grid (about
# 30 minutes on 2 cores); rewrites docs/benchmarks/speed.md's table with this machine's numbers
bench: $(BENCH_STAMP)
	$(BIN)/python -m benchmarks.peers.bench_peers --page docs/benchmarks/speed.md

# HEBO and SMAC3, the peers of bench-quality (CI installs neither: their tests skip without them).
# pyrfr (SMAC3's random forest) is built from its sdist by swig, so swig (a wheel with the binary)
# goes in first; pip's isolated build cannot import the venv's `swig` wrapper module, so PATH and
# SWIG_LIB point at the binary and the library inside that wheel (measured: the wrapper fails).
# The `peers` extra holds what resolves cleanly, with HEBO's own pin pymoo==0.6.0 (HEBO is
# repeatable with it, not with 0.6.2).
# pymoo 0.6.0 has no wheel for this Python, and its sdist compiles its Cython modules (the
# non-dominated sort among them) only when Cython and numpy are importable at build time, so it
# is rebuilt without build isolation after Cython<3 is in: the same trajectories (measured on
# Branin), HEBO about a fifth faster.
# HEBO 0.3.6 goes in without its dependencies: its metadata pins numpy<1.25 and lists GPy and
# catboost, but its default optimiser imports neither of the last two and was measured to run
# with numpy 2.4; letting pip resolve it would downgrade numpy under torch, scipy and the rest.
PEERS_STAMP = $(VENV)/.installed-peers

$(PEERS_STAMP): $(BENCH_STAMP)
	$(BIN)/python -m pip install --quiet "swig==4.5.1"
	SWIG_DATA="$$($(BIN)/python -c 'import swig; print(swig.DATA)')"; \
		PATH="$$SWIG_DATA/bin:$$PATH" SWIG_LIB="$$(ls -d $$SWIG_DATA/share/swig/*)" \
		$(BIN)/python -m pip install --quiet -e ".[bench,peers]"
	$(BIN)/python -m pip install --quiet --no-deps "hebo==0.3.6"
	$(BIN)/python -m pip install --quiet "cython<3"
	$(BIN)/python -m pip install --quiet --no-cache-dir --no-build-isolation --no-deps \
		--force-reinstall --no-binary pymoo "pymoo==0.6.0"
	$(BIN)/python -c "import hebo.optimizers.hebo, smac; \
		from pymoo.util.function_loader import is_compiled; assert is_compiled()"
	touch $(PEERS_STAMP)

bench-peers: $(PEERS_STAMP)

# sample efficiency: GPUCBSampler vs Optuna's GPSampler / TPE / random, a BoTorch qLogEI loop,
# HEBO and SMAC3, 13 problems x 10 seeds x 100 trials; the store lives outside the work tree (a rerun resumes
# it; never commit it); rewrites docs/benchmarks/sample_efficiency.md (and its figure) and
# docs/benchmarks/sample_efficiency_problems.md
QUALITY_STORE ?= $(HOME)/kb-bench-quality

# PYTHONHASHSEED=0: SMAC3's proposals follow Python's string-hash order (see
# benchmarks.harness.peer_loops)
bench-quality: $(PEERS_STAMP)
	PYTHONHASHSEED=0 $(BIN)/python -m benchmarks.sample_efficiency --jobs 2 --store $(QUALITY_STORE) \
		--page docs/benchmarks/sample_efficiency.md --plots docs/benchmarks \
		--details docs/benchmarks/sample_efficiency_problems.md
	$(BIN)/python -m benchmarks.sampler_overhead --page docs/benchmarks/sample_efficiency.md \
		--problems hartmann6 styblinskitang4 ackley10 hpobench-kc1

# the hold-out functions: thirteen BoTorch functions no default was chosen on; rewrites
# docs/benchmarks/holdout.md (its store outside the work tree too)
HOLDOUT_STORE ?= $(HOME)/kb-holdout
bench-holdout: $(BENCH_STAMP)
	$(BIN)/python -m benchmarks.sample_efficiency --holdout --jobs 2 --store $(HOLDOUT_STORE) \
		--samplers kb-gpucb optuna-gp optuna-tpe random --page docs/benchmarks/holdout.md \
		--plots docs/benchmarks --details docs/benchmarks/holdout_problems.md

# lifelong: LIBOSampler against Optuna's samplers and a hand-made warm start over families of
# studies (GLMNET table, HPOBench MLP), 10 seeds x 30 trials per study; the store lives outside
# the work tree (a rerun resumes it; never commit it); rewrites docs/benchmarks/lifelong.md
LIFELONG_STORE ?= $(HOME)/kb-bench-lifelong

bench-lifelong: $(BENCH_STAMP)
	$(BIN)/python -m benchmarks.optuna_lifelong --jobs 2 --store $(LIFELONG_STORE) \
		--page docs/benchmarks/lifelong.md

TRANSFER_STORE ?= $(HOME)/kb-bench-transfer
MO_STORE       ?= $(HOME)/kb-bench-mo
MO_TRIALS      ?= 50

bench-transfer: $(BENCH_STAMP)
	$(BIN)/python -m benchmarks.optuna_transfer --jobs 2 --store $(TRANSFER_STORE) \
		--page docs/benchmarks/transfer.md

# leave one task out: each data set of HPOBench's MLP and of GLMNET as the target, from its most
# similar, its least similar or all other data sets; Meta-Learn TPE needs a local copy of the
# optuna/optunahub-registry repository (OPTUNAHUB_REGISTRY; left out, saying why, without one)
LOTO_STORE         ?= $(HOME)/kb-bench-loto
OPTUNAHUB_REGISTRY ?= $(HOME)/optunahub-registry

bench-loto: $(BENCH_STAMP)
	$(BIN)/python -m benchmarks.transfer_loto --jobs 2 --store $(LOTO_STORE) \
		--optunahub-registry $(OPTUNAHUB_REGISTRY) --families hpobench-mlp \
		--page docs/benchmarks/transfer_loto.md
	$(BIN)/python -m benchmarks.transfer_loto --jobs 2 --store $(LOTO_STORE) \
		--optunahub-registry $(OPTUNAHUB_REGISTRY) --families glmnet --targets 12 \
		--page docs/benchmarks/transfer_loto.md --block transfer-loto-glmnet

bench-multiobjective: $(BENCH_STAMP)
	$(BIN)/python -m benchmarks.optuna_multiobjective --jobs 2 --trials $(MO_TRIALS) \
		--store $(MO_STORE) --page docs/benchmarks/multiobjective.md

clean:
	rm -rf $(VENV) kb-results build *.egg-info src/*.egg-info .pytest_cache .mypy_cache .ruff_cache \
		docs/_build docs/auto_gallery docs/api/generated docs/sg_execution_times.rst
