"""Run one configuration: build every implementation, assert agreement, time interleaved rounds,
assert agreement again, measure the limit."""

from __future__ import annotations

import gc
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from benchmarks.peers import limit
from benchmarks.peers.contract import (
    Config,
    Implementation,
    Posterior,
    check_agreement,
    make_problem,
    ucb_scores,
)

#: a cell whose estimated round time exceeds this many times --max-round-seconds is not run
EST_SKIP_FACTOR = 4.0


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _entry(cls: type[Implementation]) -> dict[str, Any]:
    return {
        "key": cls.key,
        "family": cls.family,
        "label": cls.label,
        "status": "pending",
        "reason": "",
        "times_s": [],
        "median_ms": None,
        "agreement": {},
        "argmax_matches": None,
        "peak_mb": None,
    }


def _skip(entry: dict[str, Any], reason: str) -> None:
    entry["status"], entry["reason"] = "skipped", reason


def run_config(
    cfg: Config,
    classes: Sequence[type[Implementation]],
    *,
    rounds: int,
    budget_bytes: float,
    max_round_seconds: float,
    log: Callable[[str], None] = _log,
) -> dict[str, Any]:
    """``classes[0]`` is kernelbandits (the reference); the others are peers.

    Returns a JSON-ready record. Raises ``AssertionError`` if any peer disagrees with ours.
    """
    problem = make_problem(cfg)
    entries = {cls.key: _entry(cls) for cls in classes}
    impls: dict[str, Implementation] = {}
    ours_cls, peer_classes = classes[0], list(classes[1:])
    ours_entry = entries[ours_cls.key]
    ref: Posterior | None = None
    rank = cfg.n

    # -- kernelbandits: the reference --------------------------------------------------------
    est = ours_cls.estimate_bytes(cfg, rounds, budget_bytes)
    ours_entry["est_bytes"] = est
    if est > budget_bytes:
        _skip(ours_entry, f"memory {est / 1e9:.1f} GB > budget {budget_bytes / 1e9:g} GB")
    else:
        ours = ours_cls(problem, cfg, budget_bytes)
        start = time.perf_counter()
        ours.build()
        ours_entry["build_s"] = time.perf_counter() - start
        start = time.perf_counter()
        ref = ours.posterior()
        ours_entry["posterior_s"] = time.perf_counter() - start
        ours_entry["cache_bytes"] = int(getattr(ours, "cache_nbytes", lambda: 0)())
        rank = int(getattr(ours, "cache_rank", cfg.n))
        impls[ours_cls.key] = ours
        log(f"  {ours_cls.key}: built in {ours_entry['build_s']:.2f} s")

    # -- peers: skip, build, agree -------------------------------------------------------------
    for cls in peer_classes:
        entry = entries[cls.key]
        entry["est_bytes"] = est_b = cls.estimate_bytes(cfg, rounds, budget_bytes)
        entry["est_seconds"] = est_s = cls.estimate_seconds(cfg)
        if ref is None:
            _skip(entry, "no reference (kernelbandits skipped)")
            continue
        if est_b > budget_bytes:
            _skip(entry, f"memory {est_b / 1e9:.1f} GB > budget {budget_bytes / 1e9:g} GB")
            continue
        if est_s > EST_SKIP_FACTOR * max_round_seconds:
            _skip(entry, f"est. ~{est_s:.0f} s/round > {max_round_seconds:g} s")
            continue
        impl = cls(problem, cfg, budget_bytes)
        start = time.perf_counter()
        try:
            impl.build()
            post = impl.posterior()
        except AssertionError:
            raise
        except Exception as exc:  # a peer that cannot run this cell is reported, not fatal
            entry["status"], entry["reason"] = "failed", f"{type(exc).__name__}: {exc}"[:200]
            log(f"  {cls.key}: FAILED {entry['reason']}")
            impl.close()
            continue
        entry["first_posterior_s"] = elapsed = time.perf_counter() - start
        entry["agreement"]["before"] = check_agreement(cls.key, cfg, ref, post)
        log(f"  {cls.key}: agrees (first posterior {elapsed:.2f} s)")
        if elapsed > max_round_seconds:
            _skip(entry, f"first posterior {elapsed:.0f} s > {max_round_seconds:g} s/round")
            impl.close()
            continue
        impls[cls.key] = impl

    # -- interleaved timed rounds ----------------------------------------------------------------
    active = list(impls)
    choices: dict[str, list[int]] = {key: [] for key in active}
    j = int(np.argmax(ucb_scores(*ref))) if ref is not None else 0
    for r in range(rounds):
        j_next: int | None = None
        for key in list(active):
            start = time.perf_counter()
            try:
                chosen = impls[key].round(j)
            except AssertionError:
                raise
            except Exception as exc:
                if key == ours_cls.key:
                    raise
                entries[key]["status"] = "failed"
                entries[key]["reason"] = f"{type(exc).__name__}: {exc}"[:200]
                active.remove(key)
                continue
            elapsed = time.perf_counter() - start
            entries[key]["times_s"].append(elapsed)
            choices[key].append(chosen)
            if key == ours_cls.key or j_next is None:
                j_next = chosen
            if r == 0 and elapsed > max_round_seconds:
                _skip(entries[key], f"first round {elapsed:.0f} s > {max_round_seconds:g} s")
                active.remove(key)
        j = j_next if j_next is not None else j

    # -- agreement after the rounds (same data added to all) ------------------------------------
    if ours_cls.key in active:
        after = impls[ours_cls.key].posterior()
        for key in active:
            if key == ours_cls.key:
                continue
            got = impls[key].last_posterior()
            entries[key]["agreement"]["after"] = check_agreement(
                key, cfg, after, got, stage=f"after {rounds} timed rounds"
            )
            ours_choices, peer_choices = choices[ours_cls.key], choices[key]
            entries[key]["argmax_matches"] = sum(
                a == b for a, b in zip(ours_choices, peer_choices, strict=True)
            )
    for key in active:
        entry = entries[key]
        entry["status"] = "ok"  # (entries of removed impls keep "skipped" / "failed")
        entry["median_ms"] = 1e3 * statistics.median(entry["times_s"])
    for impl in impls.values():
        impl.close()
    impls.clear()
    gc.collect()

    # -- the limit --------------------------------------------------------------------------------
    lim = limit.read_pass(cfg.t, cfg.m, rank, budget_bytes)
    lim["rank"] = rank
    gc.collect()
    return {
        "config": {"n": cfg.n, "t": cfg.t, "m": cfg.m, "d": cfg.d},
        "limit": lim,
        "impls": entries,
    }
