"""BoTorch's own ask/tell loops, the references the samplers are measured against, on the unit
cube of a problem; a fitting failure keeps the prior's hyperparameters and is counted.

* :func:`botorch_qlogei_run` (one objective): 10 scrambled-Sobol points (seeded), then per
  trial ``SingleTaskGP`` with BoTorch's default priors and a standardised outcome, fitted by
  ``fit_gpytorch_mll``, and ``qLogExpectedImprovement`` (q = 1) maximised by
  ``optimize_acqf(num_restarts=10, raw_samples=512)``; on a table every point is rounded to the
  grid before it is evaluated, and the rounded point is what the GP sees.
* :func:`botorch_qlognehvi_run` (several objectives): ``2 (d + 1)`` scrambled-Sobol points
  (the initial design of BoTorch's multi-objective tutorials), then per trial a multi-output
  ``SingleTaskGP`` (one independent GP per objective, batched) with ``Standardize(m)``, fitted
  by ``fit_gpytorch_mll``, and ``qLogNoisyExpectedHypervolumeImprovement`` (q = 1, BoTorch's
  default quasi-Monte-Carlo sampler, baseline the evaluated points, pruned) with the problem's
  reference point, maximised as above.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.harness.problems import Problem
from benchmarks.harness.tables import FloatArray


def _fit(model: Any, counts: Counter[str]) -> None:
    """``fit_gpytorch_mll`` on ``model``'s exact marginal likelihood; a failure keeps the
    prior's hyperparameters and is counted."""
    from botorch.exceptions.errors import ModelFittingError
    from botorch.fit import fit_gpytorch_mll
    from gpytorch.mlls import ExactMarginalLogLikelihood

    try:
        fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
    except ModelFittingError:
        counts["ModelFittingError (kept the prior's hyperparameters)"] += 1


def _maximize(acqf: Any, dim: int) -> FloatArray:
    """The maximiser ``(dim,)`` of ``acqf`` on the unit cube, ``optimize_acqf`` with q = 1, 10
    restarts and 512 raw samples."""
    import torch
    from botorch.optim import optimize_acqf

    bounds = torch.stack([torch.zeros(dim), torch.ones(dim)]).double()
    cand, _ = optimize_acqf(acqf, bounds=bounds, q=1, num_restarts=10, raw_samples=512)
    return np.asarray(cand[0].detach().numpy(), dtype=float)


def _sobol(dim: int, n: int, seed: int) -> FloatArray:
    """``n`` scrambled-Sobol points ``(n, dim)`` in the unit cube, seeded."""
    import torch
    from torch.quasirandom import SobolEngine

    return np.asarray(
        SobolEngine(dim, scramble=True, seed=seed).draw(n, dtype=torch.double).numpy(), dtype=float
    )


def _timed_loop(
    n_trials: int,
    init: FloatArray,
    propose: Callable[[], FloatArray],
    record: Callable[[FloatArray], None],
) -> list[float]:
    """The ask/tell loop of both BoTorch runs: trial ``i`` takes the design point ``init[i]``
    while there is one, else ``propose()`` (fit and acquisition on what ``record`` kept), and
    ``record(u)`` evaluates the unit-cube point ``u``; the wall seconds of each trial."""
    seconds = []
    for i in range(n_trials):
        t0 = time.perf_counter()
        record(init[i] if i < len(init) else propose())
        seconds.append(time.perf_counter() - t0)
    return seconds


def botorch_qlogei_run(
    problem: Problem, seed: int, n_trials: int, rng: np.random.Generator, counts: Counter[str]
) -> tuple[list[float], list[float], list[float]]:
    """Run the loop for ``n_trials`` trials (seed ``seed``; ``rng`` draws the noise); the
    noiseless values, the observed ones and the seconds of each trial. A failed fit keeps the
    prior's hyperparameters and is counted in ``counts``."""
    import torch
    from botorch.acquisition.logei import qLogExpectedImprovement
    from botorch.models import SingleTaskGP
    from botorch.models.transforms.outcome import Standardize

    torch.manual_seed(seed)  # optimize_acqf's raw samples come from torch's global RNG
    X: list[FloatArray] = []
    true: list[float] = []
    observed: list[float] = []

    def propose() -> FloatArray:
        train_x = torch.tensor(np.array(X), dtype=torch.double)
        train_y = -torch.tensor(observed, dtype=torch.double).unsqueeze(-1)
        model = SingleTaskGP(train_x, train_y, outcome_transform=Standardize(m=1))
        _fit(model, counts)
        return _maximize(qLogExpectedImprovement(model, best_f=train_y.max()), problem.dim)

    def record(u: FloatArray) -> None:
        x = problem.from_unit(u)
        f = problem.true_value(x)
        X.append(problem.to_unit(x))  # the rounded point on a table
        true.append(f)
        observed.append(problem.observe(f, rng))

    init = _sobol(problem.dim, min(10, n_trials), seed)
    seconds = _timed_loop(n_trials, init, propose, record)
    return true, observed, seconds


def botorch_qlognehvi_run(
    dim: int,
    evaluate: Callable[[FloatArray], tuple[FloatArray, FloatArray]],
    ref_point: FloatArray,
    seed: int,
    n_trials: int,
    counts: Counter[str],
) -> tuple[list[list[float]], list[float]]:
    """Run the multi-objective loop for ``n_trials`` trials (seed ``seed``: the Sobol design,
    and torch's global generator for the raw samples and the quasi-Monte-Carlo base samples).
    ``evaluate(u)`` takes a unit-cube point ``(dim,)`` and returns the point the model is to
    see (``u``, or ``u`` rounded to a grid) and the objective values ``(n,)`` to *minimise*;
    ``ref_point (n,)`` bounds the hypervolume (minimisation). The values of each trial and its
    seconds."""
    import torch
    from botorch.acquisition.multi_objective.logei import (
        qLogNoisyExpectedHypervolumeImprovement,
    )
    from botorch.models import SingleTaskGP
    from botorch.models.transforms.outcome import Standardize

    torch.manual_seed(seed)
    ref = -torch.as_tensor(np.asarray(ref_point, dtype=float), dtype=torch.double)  # maximised
    X: list[FloatArray] = []
    values: list[list[float]] = []

    def propose() -> FloatArray:
        train_x = torch.tensor(np.array(X), dtype=torch.double)
        train_y = -torch.tensor(values, dtype=torch.double)  # BoTorch maximises
        model = SingleTaskGP(train_x, train_y, outcome_transform=Standardize(m=train_y.shape[-1]))
        _fit(model, counts)
        acqf = qLogNoisyExpectedHypervolumeImprovement(
            model, ref_point=ref.tolist(), X_baseline=train_x, prune_baseline=True
        )
        return _maximize(acqf, dim)

    def record(u: FloatArray) -> None:
        seen, y = evaluate(u)
        X.append(np.asarray(seen, dtype=float))
        values.append([float(v) for v in y])

    init = _sobol(dim, min(2 * (dim + 1), n_trials), seed)
    seconds = _timed_loop(n_trials, init, propose, record)
    return values, seconds
