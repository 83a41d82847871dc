"""One Bayesian-optimisation round, kernelbandits vs BoTorch/GPyTorch and scikit-learn.

Run on demand (never in CI)::

    python -m benchmarks.peers.bench_peers --quick          # smoke run, about a minute
    python -m benchmarks.peers.bench_peers                  # full grid, with peak memory

What is measured
    One *round* at fixed hyperparameters (RBF lengthscale 0.2, outputscale 1, noise variance
    1e-2; d = 3; float64): add one observation, compute the exact posterior mean and variance on
    every one of the m candidates, take the argmax of the acquisition. Single task (n = 1): UCB
    ``mu + 2 sigma``. Multi-task (ICM ``k(x, x') B`` with ``B = A^T A``, ``A ~ U[0, 1]^{n x n}``,
    every task observed at each x): ``mean averaged over tasks + 2 sqrt(max over tasks of the
    marginal variance)`` — the same rule, computed from the same ``(m, n)`` quantities, for all.
    The models hold t observations when the timed rounds start. The R timed rounds are
    interleaved in one process (``for r: for impl: time one round``, ``time.perf_counter``) and
    every implementation adds the same point (kernelbandits' argmax) so they stay on the same
    data; the table shows medians. kernelbandits keeps a candidate cache (``GPPosterior.track`` /
    the ICM fast path of ``vector_posterior``) updated in O(r t m) per round; BoTorch rebuilds the
    model on t + 1 points or conditions it (``condition_on_observations``) and calls
    ``posterior`` (the faster strategy / multi-task model is reported); scikit-learn refits and
    predicts. See ``ours.py``, ``botorch_impl.py``, ``sklearn_impl.py`` for the exact settings.

How agreement is asserted
    Before timing, every peer's posterior mean and (per-task) variance on all candidates must
    equal kernelbandits' to 1e-6 in max abs difference; after the timed rounds the check is
    repeated on the posteriors the last round computed. A failure raises ``AssertionError`` with
    the numbers and stops the benchmark (``contract.check_agreement``).

The limit column
    One read pass over the matrix the round must read, ``V = L^{-1} k(X_t, X_c)`` (``t x m``
    float64; ``r = rank(B)`` such matrices for ICM): the median time of ``w @ V`` with the same
    BLAS thread count (measured on freshly allocated arrays, or extrapolated from the bandwidth
    of a 1 GB array when ``r t m 8`` bytes exceed the memory budget). ``ours/limit`` close to 1
    means the round runs at memory bandwidth.

Skips
    A cell whose estimated memory exceeds ``--memory-budget-gb`` (GB = 1e9 bytes) is not run; a
    peer whose estimated round time (the cost model in its module, with rates fitted on the
    benchmark machine) exceeds 4 x ``--max-round-seconds`` is not run; a peer whose first
    posterior (the agreement check) or first timed round exceeds ``--max-round-seconds`` is not
    timed further. The reason is shown in the table; the ratio column then shows a lower bound
    (``> N x``, from the measured first posterior) or an estimate (``~N x (est.)``). Peak memory (``--memory``) is the peak RSS growth (VmHWM after
    resetting it, minus VmRSS, after imports) of building the state and running the rounds in a
    separate subprocess per (implementation, cell); it is measured for kernelbandits and the
    fastest BoTorch entry.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.harness.cli import add_page_argument
from benchmarks.harness.machine import command_line, cpu_model
from benchmarks.harness.pages import check_block, rewrite_block
from benchmarks.peers import contract, table
from kernelbandits.experiments.progress import ProgressLines

BLOCK = "peers-benchmark"  # the generated block of docs/benchmarks/speed.md
MODULE = "benchmarks.peers.bench_peers"
RESULTS = Path(__file__).resolve().parent / "results.json"  # the last full run, committed

FULL_GRID = {"n": [1, 5, 20], "t": [100, 500, 2000], "m": [1_000, 10_000, 100_000]}
QUICK_GRID = {"n": [1, 5], "t": [100, 500], "m": [1_000, 10_000]}


# -- implementations ---------------------------------------------------------------------------
def implementation_classes(n: int) -> list[type[contract.Implementation]]:
    """kernelbandits first (the reference), then the peers that import."""
    from benchmarks.peers import ours

    classes: list[type[contract.Implementation]] = (
        [ours.OursSingle] if n == 1 else [ours.OursICM, ours.OursICMEigen]
    )
    try:
        from benchmarks.peers import botorch_impl

        classes += botorch_impl.SINGLE if n == 1 else botorch_impl.MULTITASK
    except ImportError as exc:  # pragma: no cover - botorch is optional
        print(f"BoTorch peers unavailable: {exc}", file=sys.stderr)
    if n == 1:
        from benchmarks.peers import sklearn_impl

        classes.append(sklearn_impl.SklearnGPR)
    return classes


def find_class(key: str, n: int) -> type[contract.Implementation]:
    for cls in implementation_classes(n):
        if cls.key == key:
            return cls
    raise KeyError(key)


# -- threads and machine -------------------------------------------------------------------------
def set_threads(threads: int) -> Any:
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(threads)  # inherited by the memory subprocesses
    from threadpoolctl import threadpool_limits

    limiter = threadpool_limits(limits=threads)
    with contextlib.suppress(ImportError):
        import torch

        torch.set_num_threads(threads)
    return limiter


def _version(module: str) -> str:
    try:
        return str(__import__(module).__version__)
    except ImportError:
        return "not installed"


def describe_machine(threads: int) -> dict[str, Any]:
    cpu = cpu_model()
    ram_gb = float("nan")
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram_gb = int(line.split()[1]) * 1024 / 1e9
    from threadpoolctl import threadpool_info

    blas = [
        {k: info.get(k) for k in ("user_api", "internal_api", "version", "num_threads")}
        | {"architecture": info.get("architecture"), "library": Path(info["filepath"]).name}
        for info in threadpool_info()
    ]
    torch_blas = "not installed"
    with contextlib.suppress(ImportError):
        import torch

        config = torch.__config__.show()
        torch_blas = next(
            (part.split("=", 1)[1] for part in config.split(",") if "BLAS_INFO=" in part),
            "unknown",
        ).strip()
        for part in config.splitlines():
            if "Math Kernel Library Version" in part:
                torch_blas += " (" + part.strip(" -").split(" for ")[0] + ")"
    return {
        "cpu": cpu,
        "torch_blas": torch_blas,
        "cores": os.cpu_count(),
        "ram_gb": ram_gb,
        "threads": threads,
        "platform": platform.platform(),
        "versions": {
            "python": platform.python_version(),
            **{
                name: _version(mod)
                for name, mod in (
                    ("numpy", "numpy"),
                    ("scipy", "scipy"),
                    ("torch", "torch"),
                    ("botorch", "botorch"),
                    ("gpytorch", "gpytorch"),
                    ("sklearn", "sklearn"),
                    ("kernelbandits", "kernelbandits"),
                )
            },
        },
        "blas": blas,
    }


def kernelbandits_fingerprint() -> dict[str, str]:
    """Short SHA-256 of the kernelbandits sources the rounds run through (to tell which version
    of the library a results file measured)."""
    import hashlib

    import kernelbandits

    root = Path(kernelbandits.__file__).resolve().parent
    out = {}
    for rel in (
        "regression/gp.py",
        "regression/multitask.py",
        "kernels/stationary.py",
        "kernels/multitask.py",
        "kernels/base.py",
        "_validation.py",
    ):
        with contextlib.suppress(OSError):
            out[rel] = hashlib.sha256((root / rel).read_bytes()).hexdigest()[:12]
    return out


# -- peak memory (subprocess) ---------------------------------------------------------------------
def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def memory_child(spec: dict[str, Any]) -> dict[str, Any]:
    """Build the state and run the rounds; report the peak RSS growth over the RSS after
    imports (VmHWM is reset through /proc/self/clear_refs when the kernel allows it)."""
    cfg = contract.Config(n=spec["n"], t=spec["t"], m=spec["m"])
    cls = find_class(spec["key"], cfg.n)  # imports everything first, then the limits apply
    set_threads(int(spec["threads"]))
    problem = contract.make_problem(cfg)
    reset = True
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        reset = False
    base_kb = _status_kb("VmRSS")
    impl = cls(problem, cfg, float(spec["budget_bytes"]))
    impl.build()
    impl.prime()
    j = int(spec["j0"])
    for _ in range(int(spec["rounds"])):
        j = impl.round(j)
    peak_kb = _status_kb("VmHWM")
    return {
        "peak_mb": (peak_kb - base_kb) * 1024 / 2**20,
        "baseline_mb": base_kb * 1024 / 2**20,
        "hwm_reset": reset,
        "sources": kernelbandits_fingerprint(),
    }


def measure_memory(
    record: dict[str, Any],
    key: str,
    args: argparse.Namespace,
    budget_bytes: float,
    sources: dict[str, str],
) -> None:
    entry = record["impls"][key]
    cfg = record["config"]
    spec = {
        "key": key,
        "n": cfg["n"],
        "t": cfg["t"],
        "m": cfg["m"],
        "rounds": args.memory_rounds,
        "budget_bytes": budget_bytes,
        "threads": args.threads,
        "j0": 0,
    }
    cmd = [sys.executable, "-m", MODULE, "--memory-child", json.dumps(spec)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=1800)
        result = json.loads(out.stdout.strip().splitlines()[-1])
    except (subprocess.SubprocessError, ValueError, IndexError) as exc:
        entry["peak_error"] = str(exc)[-500:]
        return
    entry["peak_mb"] = result["peak_mb"]
    if result.get("sources") != sources:
        entry["peak_warning"] = "kernelbandits sources changed since the timed run"
    entry["peak_method"] = "VmHWM - VmRSS after imports" + (
        " (VmHWM reset)" if result["hwm_reset"] else ""
    )


# -- main ------------------------------------------------------------------------------------------
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--quick", action="store_true", help="tiny grid, 3 rounds, no memory")
    p.add_argument("--rounds", type=int, default=None, help="timed rounds R (default 5; quick 3)")
    p.add_argument("--only", choices=["single", "multitask"], default=None)
    p.add_argument("--threads", type=int, default=1, help="BLAS / torch threads (default 1)")
    p.add_argument(
        "--memory",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="measure peak memory in subprocesses (default: on for the full grid)",
    )
    p.add_argument("--memory-rounds", type=int, default=2, help="rounds run by each subprocess")
    p.add_argument("--memory-budget-gb", type=float, default=8.0)
    p.add_argument(
        "--max-round-seconds",
        type=float,
        default=10.0,
        help="a peer whose first posterior or round takes longer is not timed further (s)",
    )
    p.add_argument("--n", type=int, nargs="+", default=None, help="override the grid's n")
    p.add_argument("--t", type=int, nargs="+", default=None, help="override the grid's t")
    p.add_argument("--m", type=int, nargs="+", default=None, help="override the grid's m")
    p.add_argument("--output", type=Path, default=RESULTS, help="the results file (JSON)")
    add_page_argument(p, BLOCK)
    p.add_argument(
        "--report-only",
        action="store_true",
        help="run nothing: rewrite the --page block from the --output results file",
    )
    p.add_argument("--memory-child", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.rounds is None:
        args.rounds = 3 if args.quick else 5
    if args.memory is None:
        args.memory = not args.quick
    return args


def grid(args: argparse.Namespace) -> list[contract.Config]:
    base = QUICK_GRID if args.quick else FULL_GRID
    ns = args.n or base["n"]
    if args.only == "single":
        ns = [n for n in ns if n == 1]
    elif args.only == "multitask":
        ns = [n for n in ns if n > 1]
    return [
        contract.Config(n=n, t=t, m=m)
        for n in ns
        for t in (args.t or base["t"])
        for m in (args.m or base["m"])
    ]


def report(results: dict[str, Any], page: Path | None) -> None:
    """Print the table, the targets and the machine of ``results`` (a results file's
    content), and rewrite the block of ``page`` with them."""
    records = results["records"]
    block = "\n\n".join(
        [
            table.markdown_table(records),
            "Targets, checked on these numbers:",
            table.targets_markdown(records),
            table.machine_markdown(results["machine"]),
            f"Command: `{results['command']}`",
        ]
    )
    print(block)
    if page is not None:
        rewrite_block(page, BLOCK, block)


def main(argv: list[str] | None = None) -> None:
    raw = sys.argv[1:] if argv is None else argv
    args = parse_args(raw)
    if args.memory_child is not None:
        print(json.dumps(memory_child(json.loads(args.memory_child))))
        return
    if args.page is not None:  # fail before the long run if the page has no block
        try:
            check_block(args.page, BLOCK)
        except (OSError, ValueError) as exc:
            raise SystemExit(f"--page {args.page}: {exc}") from exc
    if args.report_only:
        report(json.loads(args.output.read_text(encoding="utf-8")), args.page)
        return
    from benchmarks.peers import timing

    for n in (1, 2):  # import every implementation before limiting the thread pools
        implementation_classes(n)
    limiter = set_threads(args.threads)

    budget = args.memory_budget_gb * 1e9
    machine = describe_machine(args.threads)
    sources = kernelbandits_fingerprint()
    command = command_line(raw, MODULE)
    records: list[dict[str, Any]] = []
    started = time.perf_counter()
    partial = args.output.with_name(args.output.stem + ".partial.json")
    configs = list(grid(args))
    # a line per cell (cells take minutes), with cells done / total and an ETA, on stderr
    cells = ProgressLines("make bench", len(configs), unit="cells", interval=1e-9)
    for i, cfg in enumerate(configs):
        cells.update(i, note=f"next: {cfg.label}")
        records.append(
            timing.run_config(
                cfg,
                implementation_classes(cfg.n),
                rounds=args.rounds,
                budget_bytes=budget,
                max_round_seconds=args.max_round_seconds,
            )
        )
        partial.write_text(json.dumps({"command": command, "records": records}, indent=1))
    cells.update(len(configs))
    if args.memory:
        for rec in records:
            cfg = rec["config"]
            keys = [k for k, e in rec["impls"].items() if e["family"].startswith("kernelbandits")]
            best = table.fastest_botorch(rec)
            if best is not None:
                keys.append(best["key"])
            for key in keys:
                if rec["impls"][key]["status"] != "ok":
                    continue
                print(
                    f"[{time.perf_counter() - started:6.0f} s] memory {key} "
                    f"n={cfg['n']} t={cfg['t']} m={cfg['m']}",
                    file=sys.stderr,
                    flush=True,
                )
                measure_memory(rec, key, args, budget, sources)
    elapsed = time.perf_counter() - started
    settings = {
        k: (str(v) if isinstance(v, Path) else v)
        for k, v in vars(args).items()
        if k not in ("memory_child", "output", "page", "report_only")
    }
    results = {
        "command": command,
        "machine": machine,
        "settings": settings | {"tolerance": contract.TOL},
        "hyperparameters": {
            k: v
            for k, v in dataclasses.asdict(contract.Config(n=1, t=0, m=0)).items()
            if k not in ("n", "t", "m")
        },
        "kernelbandits_sources_sha256": sources,
        "elapsed_s": elapsed,
        "records": records,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    partial.unlink(missing_ok=True)
    report(results, args.page)
    print(f"({elapsed / 60:.1f} min)")
    del limiter


if __name__ == "__main__":
    main()
