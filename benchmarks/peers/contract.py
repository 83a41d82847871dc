"""Shared pieces of the peers benchmark: the configuration, the synthetic problem, the one
acquisition rule every implementation uses, the agreement check and the implementation
interface.

Shapes: ``n`` tasks, ``t`` observations, ``m`` candidates, ``d`` input dimensions. Every
implementation reports posteriors as a pair ``(mean, var)`` of ``(m, n)`` float64 arrays
(``n = 1`` for a single task; for multi-task models ``var`` holds the per-task marginal
variances, i.e. the diagonal of the ``n x n`` task covariance).
"""

from __future__ import annotations

import dataclasses
import math
from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np

#: max abs difference allowed between a peer's posterior (mean or variance) and ours
TOL = 1e-6
#: UCB exploration weight: score = mean + BETA_SQRT * sd
BETA_SQRT = 2.0
#: observation noise (std) of the synthetic data; independent of the model's noise variance
DATA_NOISE_STD = 0.1

Posterior = tuple[np.ndarray, np.ndarray]


@dataclasses.dataclass(frozen=True)
class Config:
    """One benchmark cell plus the fixed hyperparameters shared by every implementation.

    The RBF kernel is ``variance * exp(-||x - x'||^2 / (2 lengthscale^2))`` (same convention in
    kernelbandits, GPyTorch and scikit-learn); ``noise`` is the Gaussian noise variance (``eta``
    for the multi-task models); multi-task models use the ICM kernel ``k(x, x') B``.
    """

    n: int
    t: int
    m: int
    d: int = 3
    lengthscale: float = 0.2
    variance: float = 1.0
    noise: float = 1e-2
    seed: int = 0

    @property
    def label(self) -> str:
        return f"n={self.n} t={self.t} m={self.m}"


@dataclasses.dataclass
class Problem:
    """The data of one configuration (generated from ``cfg.seed``, ``n``, ``t``, ``m`` only, so
    a configuration with perturbed hyperparameters sees exactly the same data).

    X (t, d), Y (t, n): the warm-start observations; Xc (m, d): the candidates; Yc (m, n): the
    noisy value observed when candidate ``j`` is chosen; A (n, n) ~ U[0, 1] and B = A^T A the ICM
    task matrix (``None`` when ``n = 1``).
    """

    X: np.ndarray
    Y: np.ndarray
    Xc: np.ndarray
    Yc: np.ndarray
    A: np.ndarray | None
    B: np.ndarray | None


def make_problem(cfg: Config) -> Problem:
    """Uniform inputs in ``[0, 1]^d``; ``y_a(x) = sin(w_a . x + phi_a) + N(0, 0.1^2)``."""
    rng = np.random.default_rng([cfg.seed, cfg.n, cfg.t, cfg.m, cfg.d])
    X = rng.random((cfg.t, cfg.d))
    Xc = rng.random((cfg.m, cfg.d))
    freqs = 3.0 * rng.standard_normal((cfg.n, cfg.d))
    phase = rng.uniform(0.0, 2.0 * math.pi, cfg.n)

    def f(Z: np.ndarray) -> np.ndarray:
        return np.sin(Z @ freqs.T + phase)

    Y = f(X) + DATA_NOISE_STD * rng.standard_normal((cfg.t, cfg.n))
    Yc = f(Xc) + DATA_NOISE_STD * rng.standard_normal((cfg.m, cfg.n))
    A = rng.random((cfg.n, cfg.n)) if cfg.n > 1 else None
    B = A.T @ A if A is not None else None
    return Problem(X=X, Y=Y, Xc=Xc, Yc=Yc, A=A, B=B)


def ucb_scores(mean: np.ndarray, var: np.ndarray) -> np.ndarray:
    """The acquisition of every implementation, ``(m,)`` from ``(m, n)`` posteriors:
    ``mean averaged over tasks + 2 sqrt(max over tasks of the marginal variance)``; for
    ``n = 1`` this is plain UCB ``mu + 2 sigma``."""
    return mean.mean(axis=1) + BETA_SQRT * np.sqrt(np.maximum(var.max(axis=1), 0.0))


def check_agreement(
    name: str,
    cfg: Config,
    reference: Posterior,
    candidate: Posterior,
    *,
    stage: str = "before timing",
    tol: float = TOL,
) -> dict[str, float]:
    """Assert that ``candidate`` (a peer's ``(mean, var)``) equals ``reference`` (ours) to ``tol``.

    Returns the max abs differences; raises ``AssertionError`` with the numbers otherwise
    (also on a shape mismatch or a non-finite value).
    """
    ref_mean, ref_var = (np.asarray(a, dtype=float) for a in reference)
    mean, var = (np.asarray(a, dtype=float) for a in candidate)
    for what, a, b in (("mean", ref_mean, mean), ("var", ref_var, var)):
        if a.shape != b.shape:
            raise AssertionError(
                f"{name} [{cfg.label}, {stage}]: {what} has shape {b.shape}, ours {a.shape}"
            )
        if not np.all(np.isfinite(b)):
            raise AssertionError(f"{name} [{cfg.label}, {stage}]: non-finite {what}")
    d_mean = float(np.max(np.abs(mean - ref_mean)))
    d_var = float(np.max(np.abs(var - ref_var)))
    if not (d_mean <= tol and d_var <= tol):
        raise AssertionError(
            f"{name} disagrees with kernelbandits [{cfg.label}, {stage}]: "
            f"max|mean diff| = {d_mean:.3e}, max|var diff| = {d_var:.3e} (tolerance {tol:g})"
        )
    return {"mean": d_mean, "var": d_var}


def chunk_rows(total: int, bytes_per_row: float, budget_bytes: float) -> int:
    """Largest number of rows (>= 1, <= total) whose working set fits ``budget_bytes``."""
    if bytes_per_row <= 0:
        return max(total, 1)
    return int(max(1, min(total, budget_bytes // bytes_per_row)))


class Implementation(ABC):
    """One way of running the round. Subclasses set the class variables and implement the
    four methods; ``round`` is the only one timed.

    A *round* adds the observation ``(Xc[j], Yc[j])``, computes the posterior on all ``m``
    candidates and returns the argmax of :func:`ucb_scores` (computed the same way by all).
    """

    key: ClassVar[str]  # unique id, e.g. "botorch-single-rebuild"
    family: ClassVar[str]  # "kernelbandits" | "botorch" | "sklearn"
    label: ClassVar[str]  # human-readable model / strategy

    def __init__(self, problem: Problem, cfg: Config, budget_bytes: float = 8e9) -> None:
        self.problem = problem
        self.cfg = cfg
        self.budget_bytes = float(budget_bytes)

    @classmethod
    def supports(cls, cfg: Config) -> bool:
        """Whether this implementation applies to ``cfg`` (single task vs multi-task)."""
        return True

    @classmethod
    @abstractmethod
    def estimate_bytes(cls, cfg: Config, rounds: int, budget_bytes: float) -> float:
        """Rough peak working memory of building the state and running ``rounds`` rounds."""

    @classmethod
    def estimate_seconds(cls, cfg: Config) -> float:
        """Rough time of one round (to skip hopeless cells without running them)."""
        return 0.0

    @abstractmethod
    def build(self) -> None:
        """Put the ``t`` warm-start observations into the model."""

    def prime(self) -> None:
        """Whatever must happen once before the first round (e.g. the caches a fantasy update
        needs). The agreement check's :meth:`posterior` call does it in the main process."""
        return None

    @abstractmethod
    def posterior(self) -> Posterior:
        """``(mean, var)`` on all candidates for the current data, ``(m, n)`` each (untimed)."""

    @abstractmethod
    def round(self, j: int) -> int:
        """Add candidate ``j``'s observation, recompute the posterior, return the UCB argmax."""

    def last_posterior(self) -> Posterior:
        """The posterior computed by the last round (for the agreement check after timing)."""
        return self.posterior()

    def close(self) -> None:
        """Drop the state."""
        return None
