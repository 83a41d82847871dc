"""Mutation tests of the papers' claims: a claim whose check passes must fail when the algorithm it
is about is deliberately broken.

Each test runs the experiments a claim reads into a temporary store, every policy as registered,
and checks the claim passes; then it replaces the claim's algorithm by a broken variant under the
same name (the other policies' runs are kept: they do not change) and checks the claim fails. A
check that cannot tell the two apart measures something other than the claim. Sizes are the
papers' where that is cheap, otherwise stated in the test.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from kernelbandits.experiments import get
from kernelbandits.experiments.runner import run
from kernelbandits.experiments.store import ResultsStore
from kernelbandits.policies.base import Policy
from kernelbandits.problems.base import Problem
from kernelbandits.report.claims import Claim, Status
from kernelbandits.report.data import StoredResults
from kernelbandits.report.registry import all_claims

Factory = Callable[[Problem, int], Policy]


def _claim(claim_id: str) -> Claim:
    return next(c for c in all_claims() if c.id == claim_id)


class _Runs:
    """The runs a claim reads, at one size, in one store; policies can be swapped in place."""

    def __init__(self, path: Path, claim: Claim, horizon: int | None, seeds: Sequence[int]) -> None:
        """``horizon``: one for every experiment, or ``None`` for each experiment's own."""
        self.store, self.claim = ResultsStore(path), claim
        self.horizon, self.seeds = horizon, list(seeds)
        self.policies: dict[str, list[str]] = {}
        for exp, policy in claim.check.needs:
            self.policies.setdefault(exp, []).append(policy)
        for exp, names in self.policies.items():
            self._run(exp, {name: get(exp).policies[name] for name in names})
            self.store.set_plan(exp, self._horizon(exp), len(self.seeds), names)

    def _horizon(self, exp: str) -> int:
        return get(exp).horizon if self.horizon is None else self.horizon

    def _run(self, exp: str, factories: Mapping[str, Factory]) -> None:
        spec = get(exp)
        for seed in self.seeds:
            problem = spec.make_problem(seed)
            for name, factory in factories.items():
                trace = run(factory, problem, self._horizon(exp), seed)
                self.store.put(trace, exp, policy=name)  # replaces a stored run of the same key

    def replace(self, exp: str, name: str, factory: Factory) -> None:
        """Rerun policy ``name`` of ``exp`` with ``factory`` (the broken variant)."""
        self._run(exp, {name: factory})

    def verdict(self) -> Status:
        return self.claim.check(StoredResults(self.store)).status


def test_deltabo_ignoring_its_source_does_not_improve_with_more_source_data(tmp_path) -> None:
    """Sec. 5.3 / Sec. 6.3 at the paper's size (T = 30, 30 seeds): DeltaBO given no source data
    has the same regret for every N, so "regret falls as N grows" must fail."""
    from kernelbandits.papers.transfer.experiments import delta_bo

    runs = _Runs(tmp_path / "r.sqlite", _claim("tr-gaussian-regret-falls-with-n"), 30, range(30))
    assert runs.verdict() == "pass"
    blind = functools.partial(delta_bo, "gaussian", 0, 0)  # n_source = 0: the source ignored
    for n in (25, 100, 400):
        runs.replace("tr-gaussian-n-sweep", f"DeltaBO N={n}", blind)
    assert runs.verdict() == "fail"


def test_libo_never_relearning_its_kernel_does_not_beat_k_full(tmp_path) -> None:
    """Sec. 6.2, Fig. 3 (left) at the paper's horizon (30 tasks, T = 3000), 5 of its 20 seeds:
    a LIBO that keeps ``k_full`` for good (its meta-learner never refits) only adds forced
    exploration to the naive agent, so "LIBO significantly below k_full" must fail."""
    from kernelbandits.metalearning import MetaKGL
    from kernelbandits.papers.lifelong import experiments as catalog
    from kernelbandits.policies.libo import LIBO

    class FrozenLIBO(LIBO):
        def _learn(self) -> None:
            return None  # never re-learns: the kernel stays k_full

    def frozen(problem: Problem, seed: int) -> Policy:  # catalog.libo with the frozen class
        env = catalog._env(problem)
        meta = MetaKGL(env.base, catalog.LIBO_LAM, catalog.OMEGA)
        return FrozenLIBO(env.domain, catalog._steps(problem), meta, seed=seed)

    runs = _Runs(tmp_path / "r.sqlite", _claim("ll-synthetic-libo-below-kfull"), 3000, range(5))
    assert runs.verdict() == "pass"
    runs.replace("ll-synthetic", "LIBO", frozen)
    assert runs.verdict() == "fail"


def test_mtkb_with_the_identity_for_b_does_not_beat_itself_without_correlations(tmp_path) -> None:
    """Sec. 5, Fig. 1a at the paper's size (n = 2 tasks, T = 1000, 10 seeds): an MT-KB whose task
    matrix is replaced by the identity still beats IT-KB (whose radius is inflated by sqrt(n)),
    but not MT-KB with B's diagonal, so the claim must fail."""
    from kernelbandits.kernels.multitask import ICM
    from kernelbandits.papers.multitask import experiments as catalog
    from kernelbandits.policies.multitask import MTKB

    def identity_b(problem: Problem, seed: int) -> Policy:
        vp, kernel, base = catalog._parts(problem)
        blind = ICM(base, np.eye(kernel.n_tasks))  # the tasks taken as independent, unit scale
        return MTKB(
            vp.domain, blind, norm_bound=vp.norm_bound, noise_std=vp.noise_std, delta=catalog.DELTA,
            lipschitz=catalog.LIPSCHITZ, **catalog._common(vp, seed, False),  # type: ignore[arg-type]
        )  # fmt: skip

    runs = _Runs(tmp_path / "r.sqlite", _claim("mt-rkhs2-mtkb-below-itkb"), 1000, range(10))
    assert runs.verdict() == "pass"
    runs.replace("mt-rkhs-2", "MT-KB", identity_b)
    assert runs.verdict() == "fail"


def test_qgpucb_with_unweighted_observations_does_not_settle(tmp_path) -> None:
    """Sec. 4.2 on the experiments of Fig. 1 (their horizons, 3 of their seeds): a Q-GP-UCB that
    adds every stage's estimate with weight 1 instead of ``1/eps^2`` keeps its stages short and
    switches arms as often late as early, so "explore early, exploit late" must fail."""
    from kernelbandits.policies.quantum import QGPUCB

    class UnweightedQGPUCB(QGPUCB):
        def _observe(self, x: np.ndarray, y: float, eps: float) -> None:
            self.posterior.add(x, y, noise_var=self.lam)  # the weight 1/eps^2 dropped

    def unweighted(spec_id: str) -> Factory:
        def make(problem: Problem, seed: int) -> Policy:
            pol = get(spec_id).policies["Q-GP-UCB"](problem, seed)
            assert isinstance(pol, QGPUCB)
            kernel = pol.posterior.kernel
            return UnweightedQGPUCB(
                pol.grid, kernel, pol.oracle, pol.estimator, budget=pol.budget, lam=pol.lam,
                beta=pol.beta, stage_delta=pol.stage_delta, seed=seed,
            )  # fmt: skip

        return make

    claim = _claim("q-explore-then-exploit")
    runs = _Runs(tmp_path / "r.sqlite", claim, None, range(3))
    assert runs.verdict() == "pass"
    for exp in runs.policies:
        runs.replace(exp, "Q-GP-UCB", unweighted(exp))
    assert runs.verdict() == "fail"
