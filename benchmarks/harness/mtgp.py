"""BoTorch's multi-task GP over source and target studies, as an Optuna sampler: the transfer
peer Ax users reach for (its transfer-learning models are BoTorch's ``MultiTaskGP``).

:class:`MultiTaskGPSampler` models every source study and the target study jointly: one
``MultiTaskGP`` (an intrinsic coregionalisation model: a Matern-5/2 ARD kernel on the unit cube
times a learned full-rank task covariance, BoTorch's default priors, its default outcome
standardisation over all the data and its per-task noise), the task index the last input
column, the target the only output task. Per trial it is refitted by ``fit_gpytorch_mll`` on
every source observation and every completed target trial, starting from the previous trial's
hyperparameters (a cold fit of 210 source and 10 target points took 47 s, a warm one 4 s;
Optuna's ``GPSampler`` warm-starts its fits the same way), and BoTorch's analytic
``LogExpectedImprovement`` (its recommended acquisition for one point at a time) over the
target's best value picks the next point:

* on a space of integers (the tables of :mod:`benchmarks.transfer_loto`, grid indices) with at
  most :data:`MAX_LATTICE` points, exactly, by ``optimize_acqf_discrete`` over every lattice
  point the target has not evaluated yet (what a careful BoTorch user does on a table; it
  never proposes a configuration twice);
* otherwise by ``optimize_acqf(num_restarts=10, raw_samples=512)`` on the unit cube, the
  optimum decoded (integers rounded).

``MultiTaskGP`` needs at least one observation of its output task, so the first
``n_startup_trials`` (default 1) target trials are drawn by a seeded ``RandomSampler``
(Ax starts its transfer-learning runs from a quasi-random design too). A failed fit keeps the
prior's hyperparameters and is counted in :attr:`MultiTaskGPSampler.fit_failures`.
BoTorch draws its raw samples from torch's global generator: it is seeded from
``(seed, trial number)`` before each proposal, so a run is reproducible (one study per process).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
from optuna.distributions import BaseDistribution, FloatDistribution, IntDistribution
from optuna.study import Study
from optuna.trial import FrozenTrial, TrialState

from benchmarks.harness.source_studies import SourceStudiesSampler, study_sign
from kernelbandits.integrations.optuna import search_space_from_distributions
from kernelbandits.space import Int, SearchSpace

#: the exhaustive search over the lattice is used up to this many points
MAX_LATTICE = 100_000


def lattice(space: SearchSpace) -> np.ndarray | None:
    """Every point ``(n, dim)`` of the unit cube that a space of integers can take (``None``
    when a parameter is not an integer or the lattice has more than :data:`MAX_LATTICE`
    points)."""
    ints = [p for p in space.params if isinstance(p, Int)]
    if len(ints) < len(space.params):
        return None
    ranges = [range(int(p.low), int(p.high) + 1) for p in ints]
    if int(np.prod([len(r) for r in ranges])) > MAX_LATTICE:
        return None
    return np.array(
        [space.encode(dict(zip(space.names, v, strict=True))) for v in itertools.product(*ranges)]
    )


class MultiTaskGPSampler(SourceStudiesSampler):
    """BoTorch's ``MultiTaskGP`` + ``LogExpectedImprovement`` over the target and
    ``source_studies`` (finished studies of the same parameters; see the module docstring)."""

    def __init__(
        self, source_studies: Sequence[Study], *, seed: int, n_startup_trials: int = 1
    ) -> None:
        super().__init__(source_studies, seed)
        if n_startup_trials < 1:
            raise ValueError("n_startup_trials must be at least 1 (MultiTaskGP needs target data)")
        self.seed, self.n_startup_trials = int(seed), int(n_startup_trials)
        self.fit_failures = 0
        self._lattice: dict[tuple[str, ...], np.ndarray | None] = {}
        self._hyperparameters: dict[str, Any] | None = None  # the last fit's, warm start

    @staticmethod
    def supports(dist: BaseDistribution) -> bool:
        """A float or an integer without a step (what the leave-one-out tables suggest)."""
        if isinstance(dist, IntDistribution):
            return dist.step == 1
        return isinstance(dist, FloatDistribution) and dist.step is None

    def sample_relative(
        self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> dict[str, Any]:
        if not search_space:
            return {}
        done = [
            t
            for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
            if all(n in t.params for n in search_space)
        ]
        if len(done) < self.n_startup_trials:
            return {}
        space = search_space_from_distributions(search_space)
        assert space is not None
        u = self._propose(space, done, study_sign(study), trial.number)
        return space.decode(u)

    # -- the BoTorch model --------------------------------------------------------------------
    def _training_data(
        self, space: SearchSpace, target: list[FrozenTrial], target_sign: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(X, y)``: unit-cube points with the task index appended, ``(n, dim + 1)``, and the
        values made larger-is-better ``(n,)``; sources are tasks ``0..K-1``, the target ``K``."""
        rows, values = [], []
        for task, (trials, sign) in enumerate(
            [*zip(self.source_trials, self.source_signs, strict=True), (target, target_sign)]
        ):
            for t in trials:
                if t.value is None or not all(n in t.params for n in space.names):
                    continue
                u = space.encode({n: t.params[n] for n in space.names})
                rows.append(np.append(u, task))
                values.append(sign * float(t.value))
        return np.array(rows), np.array(values)

    def _propose(
        self, space: SearchSpace, target: list[FrozenTrial], target_sign: float, number: int
    ) -> np.ndarray:
        """The next unit-cube point ``(dim,)`` of the target."""
        import torch
        from botorch.acquisition.analytic import LogExpectedImprovement
        from botorch.exceptions.errors import ModelFittingError
        from botorch.fit import fit_gpytorch_mll
        from botorch.models import MultiTaskGP
        from botorch.optim import optimize_acqf, optimize_acqf_discrete
        from gpytorch.mlls import ExactMarginalLogLikelihood

        torch.manual_seed(int(np.random.SeedSequence([self.seed, number]).generate_state(1)[0]))
        X, y = self._training_data(space, target, target_sign)
        k = len(self.source_trials)
        train_x = torch.tensor(X, dtype=torch.double)
        train_y = torch.tensor(y, dtype=torch.double).unsqueeze(-1)
        model = MultiTaskGP(train_x, train_y, task_feature=-1, output_tasks=[k])
        if self._hyperparameters is not None:  # start from the last fit (not the data's scale)
            model.load_state_dict(self._hyperparameters, strict=False)
        try:
            fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
        except ModelFittingError:
            self.fit_failures += 1
        self._hyperparameters = {
            name: value.detach().clone()
            for name, value in model.state_dict().items()
            if not name.startswith("outcome_transform")
        }
        best = float(y[X[:, -1] == k].max())
        acqf = LogExpectedImprovement(model, best_f=best)
        key = tuple(space.names)
        if key not in self._lattice:
            self._lattice[key] = lattice(space)
        points = self._lattice[key]
        if points is not None:
            seen = {tuple(np.round(r, 12)) for r in X[X[:, -1] == k, :-1]}
            fresh = np.array([p for p in points if tuple(np.round(p, 12)) not in seen])
            if len(fresh):
                cand, _ = optimize_acqf_discrete(
                    acqf, q=1, choices=torch.tensor(fresh, dtype=torch.double)
                )
                return np.asarray(cand[0].detach().numpy(), dtype=float)
        bounds = torch.stack([torch.zeros(space.dim), torch.ones(space.dim)]).double()
        cand, _ = optimize_acqf(acqf, bounds=bounds, q=1, num_restarts=10, raw_samples=512)
        return np.asarray(cand[0].detach().numpy(), dtype=float)


__all__ = ["MAX_LATTICE", "MultiTaskGPSampler", "lattice"]
