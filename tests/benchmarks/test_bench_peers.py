"""The peers benchmark's agreement check (benchmarks.peers): it passes for exact peers and
raises when a peer computes a different posterior."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from benchmarks.peers import contract, ours, sklearn_impl, table, timing

SINGLE = contract.Config(n=1, t=30, m=200)
MULTI = contract.Config(n=3, t=30, m=200)


def _reference(cfg: contract.Config) -> tuple[contract.Problem, contract.Implementation]:
    problem = contract.make_problem(cfg)
    cls = ours.OursSingle if cfg.n == 1 else ours.OursICM
    impl = cls(problem, cfg)
    impl.build()
    return problem, impl


def _peer(cls: type[contract.Implementation], problem: contract.Problem, cfg: contract.Config):
    peer = cls(problem, cfg)
    peer.build()
    return peer


def _agree_over_rounds(name: str, cfg: contract.Config, mine, peer, rounds: int) -> None:
    """Same posterior before, same argmax in every round, same posterior after."""
    diffs = contract.check_agreement(name, cfg, mine.posterior(), peer.posterior())
    assert diffs["mean"] <= contract.TOL and diffs["var"] <= contract.TOL
    j = int(np.argmax(contract.ucb_scores(*mine.posterior())))
    for _ in range(rounds):
        j_ours, j_peer = mine.round(j), peer.round(j)
        assert j_ours == j_peer
        j = j_ours
    contract.check_agreement(name, cfg, mine.posterior(), peer.last_posterior())


def test_sklearn_agrees_and_stays_in_agreement() -> None:
    problem, mine = _reference(SINGLE)
    _agree_over_rounds("sklearn", SINGLE, mine, _peer(sklearn_impl.SklearnGPR, problem, SINGLE), 2)


def test_cache_free_icm_agrees_and_stays_in_agreement() -> None:
    problem, mine = _reference(MULTI)
    _agree_over_rounds("eigen", MULTI, mine, _peer(ours.OursICMEigen, problem, MULTI), 3)


def test_agreement_raises_for_a_perturbed_noise() -> None:
    problem, mine = _reference(SINGLE)
    wrong = _peer(sklearn_impl.SklearnGPR, problem, dataclasses.replace(SINGLE, noise=2e-2))
    with pytest.raises(AssertionError, match="disagrees"):
        contract.check_agreement("sklearn", SINGLE, mine.posterior(), wrong.posterior())


def test_agreement_raises_on_shape_or_nan() -> None:
    mean, var = np.zeros((5, 2)), np.ones((5, 2))
    with pytest.raises(AssertionError, match="shape"):
        contract.check_agreement("x", MULTI, (mean, var), (mean[:, :1], var[:, :1]))
    bad = mean.copy()
    bad[0, 0] = np.nan
    with pytest.raises(AssertionError, match="non-finite"):
        contract.check_agreement("x", MULTI, (mean, var), (bad, var))


def test_icm_acquisition_matches_the_public_views() -> None:
    _, mine = _reference(MULTI)
    assert isinstance(mine, ours.OursICM)
    j = mine.round(0)  # the fast acquisition of the timed round
    assert j == mine.round_reference()


@pytest.fixture(scope="module")
def botorch_impl():
    pytest.importorskip("botorch")
    from benchmarks.peers import botorch_impl as module

    return module


@pytest.mark.parametrize(
    ("cfg", "name"),
    [
        (SINGLE, "SingleRebuild"),
        (SINGLE, "SingleFantasy"),
        (MULTI, "KroneckerRebuild"),
        (MULTI, "HadamardRebuild"),
        (MULTI, "HadamardFantasy"),
    ],
)
def test_botorch_agrees(botorch_impl, cfg: contract.Config, name: str) -> None:
    cls = getattr(botorch_impl, name)
    problem, mine = _reference(cfg)
    peer = _peer(cls, problem, cfg)
    contract.check_agreement(name, cfg, mine.posterior(), peer.posterior())
    j = mine.round(3)
    peer.round(3)
    contract.check_agreement(name, cfg, mine.posterior(), peer.last_posterior(), stage="after")
    assert 0 <= j < cfg.m


@pytest.mark.parametrize(("cfg", "name"), [(SINGLE, "SingleRebuild"), (MULTI, "KroneckerRebuild")])
def test_botorch_with_a_perturbed_noise_raises(
    botorch_impl, cfg: contract.Config, name: str
) -> None:
    problem, mine = _reference(cfg)
    wrong = _peer(getattr(botorch_impl, name), problem, dataclasses.replace(cfg, noise=2e-2))
    with pytest.raises(AssertionError, match="disagrees"):
        contract.check_agreement(name, cfg, mine.posterior(), wrong.posterior())


def test_run_config_reports_agreement_and_times() -> None:

    record = timing.run_config(
        SINGLE,
        [ours.OursSingle, sklearn_impl.SklearnGPR],
        rounds=2,
        budget_bytes=1e9,
        max_round_seconds=30.0,
        log=lambda _msg: None,
    )
    sk = record["impls"]["sklearn"]
    assert sk["status"] == "ok" and len(sk["times_s"]) == 2
    assert set(sk["agreement"]) == {"before", "after"}
    assert record["impls"]["kernelbandits"]["median_ms"] > 0
    assert record["limit"]["method"] == "measured"
    assert "| 1 | 30 | 200 |" in table.markdown_table([record])


class _Broken(sklearn_impl.SklearnGPR):
    key = "broken"

    def build(self) -> None:
        raise RuntimeError("cannot build")


class _Wrong(sklearn_impl.SklearnGPR):
    key = "wrong"

    def posterior(self) -> contract.Posterior:
        mean, var = super().posterior()
        return mean + 1e-3, var


def test_run_config_reports_a_failing_peer_and_raises_on_disagreement() -> None:

    kwargs = {"rounds": 1, "budget_bytes": 1e9, "max_round_seconds": 30.0, "log": print}
    record = timing.run_config(SINGLE, [ours.OursSingle, _Broken], **kwargs)
    assert record["impls"]["broken"]["status"] == "failed"
    assert "cannot build" in record["impls"]["broken"]["reason"]
    with pytest.raises(AssertionError, match="wrong disagrees"):
        timing.run_config(SINGLE, [ours.OursSingle, _Wrong], **kwargs)


def test_report_only_rewrites_the_page_from_the_committed_results(tmp_path) -> None:
    from benchmarks.harness.pages import markers
    from benchmarks.peers import bench_peers

    start, end = markers(bench_peers.BLOCK)
    page = tmp_path / "speed.md"
    page.write_text(f"intro\n{start}\nold\n{end}\noutro\n")
    bench_peers.main(["--report-only", "--page", str(page)])
    text = page.read_text()
    assert text.startswith(f"intro\n{start}\n| n | t | m |") and text.endswith(f"{end}\noutro\n")
    assert "Targets, checked on these numbers:" in text and "Machine:" in text
    page.write_text("no block\n")
    with pytest.raises(SystemExit, match="peers-benchmark:start"):
        bench_peers.main(["--report-only", "--page", str(page)])


def _record(n: int, t: int, m: int, limit_ms: float, **impls: tuple[float, float | None]) -> dict:
    """A results record with ``family=(median_ms, peak_mb)`` entries, all timed."""
    families = {"ours": "kernelbandits", "eigen": "kernelbandits-eigen", "botorch": "botorch"}
    return {
        "config": {"n": n, "t": t, "m": m},
        "limit": {"seconds": limit_ms / 1e3, "method": "measured"},
        "impls": {
            key: {"family": families[key], "status": "ok", "median_ms": ms, "peak_mb": mb}
            for key, (ms, mb) in impls.items()
        },
    }


def test_targets_are_checked_on_the_numbers() -> None:
    records = [
        _record(1, 500, 10_000, 1.5, ours=(2.0, 60.0), botorch=(400.0, 150.0)),
        _record(20, 500, 1_000, 3.0, ours=(5.0, 130.0), eigen=(30.0, 20.0), botorch=(270.0, 100.0)),
        _record(
            20, 2000, 1_000, 10.0, ours=(40.0, 900.0), eigen=(100.0, 200.0), botorch=(900.0, 500.0)
        ),
    ]
    text = table.targets_markdown(records)
    lines = text.splitlines()
    assert lines[0] == (
        "- Single task, t = 500, m = 10,000: 200x faster than BoTorch (target >= 10x): **met**."
    )
    # the cached path: 270/5 = 54x and 900/40 = 22.5x -> worst 22.5x; the no-cache path: 9.0x
    assert "cached path: at least 22.5x" in lines[1] and lines[1].endswith("**met**.")
    assert "no-cache path: at least 9.0x" in lines[2] and lines[2].endswith("**not met**.")
    assert "at n=20 t=2000 m=1,000" in lines[2]
    # ours/limit: 2/1.5 = 1.33, 5/3 = 1.67, 40/10 = 4.0 -> not met at t = 2000
    assert "at most 4.0x over 3 cells (at n=20 t=2000 m=1,000): **not met**" in lines[3]
    # memory: the cached path is above BoTorch in two cells, the no-cache path in none
    assert "cached path: no higher than BoTorch's in 1 of 3 cells; above it at" in lines[4]
    assert "n=20 t=2000 m=1,000: 900 vs 500 MB" in lines[4] and lines[4].endswith("**not met**.")
    assert (
        lines[5]
        == "- Peak memory, no-cache path: no higher than BoTorch's in 2 of 2 cells: **met**."
    )
    # a peer that was skipped counts neither way
    records[0]["impls"]["botorch"]["status"] = "skipped"
    assert not table.targets_markdown(records).startswith("- Single task")
