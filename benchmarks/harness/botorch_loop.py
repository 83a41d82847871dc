"""BoTorch's own ask/tell loop, the reference the samplers are measured against: on the unit
cube of a problem, 10 scrambled-Sobol points (seeded), then per trial ``SingleTaskGP`` with
BoTorch's default priors and a standardised outcome, fitted by ``fit_gpytorch_mll``, and
``qLogExpectedImprovement`` (q = 1) maximised by ``optimize_acqf(num_restarts=10,
raw_samples=512)``; on a table every point is rounded to the grid before it is evaluated, and
the rounded point is what the GP sees."""

from __future__ import annotations

import time
from collections import Counter

import numpy as np

from benchmarks.harness.problems import Problem
from benchmarks.harness.tables import FloatArray


def botorch_qlogei_run(
    problem: Problem, seed: int, n_trials: int, rng: np.random.Generator, counts: Counter[str]
) -> tuple[list[float], list[float], list[float]]:
    """Run the loop for ``n_trials`` trials (seed ``seed``; ``rng`` draws the noise); the
    noiseless values, the observed ones and the seconds of each trial. A failed fit keeps the
    prior's hyperparameters and is counted in ``counts``."""
    import torch
    from botorch.acquisition.logei import qLogExpectedImprovement
    from botorch.exceptions.errors import ModelFittingError
    from botorch.fit import fit_gpytorch_mll
    from botorch.models import SingleTaskGP
    from botorch.models.transforms.outcome import Standardize
    from botorch.optim import optimize_acqf
    from gpytorch.mlls import ExactMarginalLogLikelihood
    from torch.quasirandom import SobolEngine

    torch.manual_seed(seed)  # optimize_acqf's raw samples come from torch's global RNG
    n_init = min(10, n_trials)
    init = SobolEngine(problem.dim, scramble=True, seed=seed).draw(n_init, dtype=torch.double)
    bounds = torch.stack([torch.zeros(problem.dim), torch.ones(problem.dim)]).double()
    X: list[FloatArray] = []
    true: list[float] = []
    observed: list[float] = []
    seconds = []
    for i in range(n_trials):
        t0 = time.perf_counter()
        if i < n_init:
            u = init[i].numpy()
        else:
            train_x = torch.tensor(np.array(X), dtype=torch.double)
            train_y = -torch.tensor(observed, dtype=torch.double).unsqueeze(-1)
            model = SingleTaskGP(train_x, train_y, outcome_transform=Standardize(m=1))
            try:
                fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
            except ModelFittingError:
                counts["ModelFittingError (kept the prior's hyperparameters)"] += 1
            acqf = qLogExpectedImprovement(model, best_f=train_y.max())
            cand, _ = optimize_acqf(acqf, bounds=bounds, q=1, num_restarts=10, raw_samples=512)
            u = cand[0].detach().numpy()
        x = problem.from_unit(u)
        f = problem.true_value(x)
        y = problem.observe(f, rng)
        X.append(problem.to_unit(x))  # the rounded point on a table
        true.append(f)
        observed.append(y)
        seconds.append(time.perf_counter() - t0)
    return true, observed, seconds
