"""Acquisitions bound to a multi-task posterior (``f: R^d -> R^n``, every task maximised), for
one round: ``acq(X (m, d)) -> (m,)``, the interface of
:class:`~kernelbandits.acquisition.analytic.Acquisition` that
:func:`~kernelbandits.acquisition.maximize_acquisition` consumes.

* :class:`ScalarizedUpperConfidenceBound`: eq. (3) of Chowdhury & Gopalan (2021) for one
  weight ``lambda``, ``s_lambda(mu(x)) + w ||Gamma(x, x)||^{1/2}`` (MT-KB's score);
* :class:`ScalarizedExpectedImprovement`: expected improvement of ``s_lambda(f(x))`` over an
  incumbent, on a Gaussian proxy of the scalarised value (its box search follows ``log EI``);
* :class:`ExpectedHypervolumeImprovement`: the expected hypervolume improvement of the
  posterior's marginals over a front (its box search follows ``log EHVI``).

The posterior is a :class:`~kernelbandits.regression.base.MultiTaskPosterior` (``predict(X)
-> (mean (m, n), task covariance (m, n, n))``). None of these has an analytic input gradient:
the box optimiser follows the central-difference gradient of the smooth form
(:func:`~kernelbandits.acquisition.optimize.central_difference`, step ``gradient_step`` in the
coordinates of ``X``).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._validation import FloatArray, as_finite_scalar, check_nonnegative
from kernelbandits.acquisition.analytic import Acquisition
from kernelbandits.acquisition.hypervolume import (
    expected_hypervolume_improvement,
    log_expected_hypervolume_improvement,
    non_dominated_boxes,
)
from kernelbandits.acquisition.optimize import central_difference
from kernelbandits.acquisition.scores import log_ei_score, ucb_score
from kernelbandits.regression.base import MultiTaskPosterior
from kernelbandits.regression.multitask import spectral_norms
from kernelbandits.scalarization import (
    ChebyshevScalarization,
    LinearScalarization,
    Scalarization,
)

__all__ = [
    "ExpectedHypervolumeImprovement",
    "MultiTaskAcquisition",
    "ScalarizedExpectedImprovement",
    "ScalarizedUpperConfidenceBound",
]

#: central-difference step of the box search's gradient (unit-box coordinates)
GRADIENT_STEP = 1e-6


class _ScalarizedPolicy(Protocol):
    """What :meth:`ScalarizedUpperConfidenceBound.from_policy` reads off an MT-KB-like policy
    (:class:`~kernelbandits.policies.vector.ScalarizedUCB` on an exact multi-task model)."""

    @property
    def posterior(self) -> MultiTaskPosterior: ...

    @property
    def scalarization(self) -> Scalarization: ...

    @property
    def lipschitz(self) -> float: ...

    def width(self) -> float: ...


def task_marginals(posterior: MultiTaskPosterior, X: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """The posterior mean ``(m, n)`` and per-task standard deviations ``sd (m, n)`` (square
    roots of the task covariance's diagonal, clipped at 0) of ``posterior`` at ``X (m, d)``."""
    mean, cov = posterior.predict(X)
    return mean, np.sqrt(np.maximum(np.diagonal(cov, axis1=1, axis2=2), 0.0))


class MultiTaskAcquisition(Acquisition):
    """An acquisition of a multi-task posterior; its box search follows the central-difference
    gradient of :meth:`smooth` (step :attr:`gradient_step`)."""

    #: the step ``h`` of the central differences
    gradient_step: float = GRADIENT_STEP

    def __init__(self, posterior: MultiTaskPosterior) -> None:
        self.posterior = posterior

    @property
    def differentiable(self) -> bool:
        """Always: the gradient is a central difference of :meth:`smooth`."""
        return True

    def smooth_with_gradient(self, X: FloatArray) -> tuple[FloatArray, FloatArray]:
        """:meth:`smooth` at ``X (m, d)``, ``(m,)``, and its central-difference gradient
        ``(m, d)`` (:func:`~kernelbandits.acquisition.optimize.central_difference`)."""
        return central_difference(self.smooth, self.gradient_step)(X)


def _check_weight(scalarization: Scalarization, weight: ArrayLike) -> FloatArray:
    if not isinstance(scalarization, Scalarization):
        raise ValueError(
            f"scalarization must be a Scalarization; got {type(scalarization).__name__}"
        )
    w = np.asarray(weight, dtype=float)
    if w.ndim != 1:
        raise ValueError(f"weight must be one weight vector (n,); got shape {w.shape}")
    return w


class ScalarizedUpperConfidenceBound(MultiTaskAcquisition):
    """Eq. (3) of Chowdhury & Gopalan (2021), "No-regret Algorithms for Multi-task Bayesian
    Optimization" (AISTATS), for one weight ``lambda`` (App. E's random scalarisation)::

        u(x) = s_lambda(mu(x)) + width ||Gamma(x, x)||^{1/2}

    with ``mu (n,)`` and ``Gamma(x, x) (n, n)`` the posterior mean and task covariance at
    ``x``, ``||.||`` the spectral norm and ``width = L beta`` (the Lipschitz constant of the
    scalarisation times the confidence radius): what
    :meth:`~kernelbandits.policies.vector.ScalarizedUCB.scores` computes for ``weight``
    (:meth:`from_policy` builds it from the policy). The smooth form is the score.
    """

    def __init__(
        self,
        posterior: MultiTaskPosterior,
        scalarization: Scalarization,
        weight: ArrayLike,
        width: float,
    ) -> None:
        super().__init__(posterior)
        self.scalarization = scalarization
        self.weight = _check_weight(scalarization, weight)
        self.width = check_nonnegative(width, "width")

    @classmethod
    def from_policy(
        cls, policy: _ScalarizedPolicy, weight: ArrayLike
    ) -> ScalarizedUpperConfidenceBound:
        """The acquisition of an MT-KB-like ``policy`` for its next decision with ``weight``:
        its posterior and scalarisation, ``width = L beta_{t-1}`` (``policy.lipschitz *
        policy.width()``)."""
        return cls(
            policy.posterior, policy.scalarization, weight, policy.lipschitz * policy.width()
        )

    def __call__(self, X: ArrayLike) -> FloatArray:
        """``u(x)`` at ``X (m, d)``, ``(m,)``."""
        mean, cov = self.posterior.predict(X)
        # eq. (3): s_lambda(mu(x)) + L beta ||Gamma(x, x)||^{1/2}
        return ucb_score(
            self.scalarization(mean, self.weight), np.sqrt(spectral_norms(cov)), self.width
        )[0]


class ScalarizedExpectedImprovement(MultiTaskAcquisition):
    """Expected improvement of the scalarised objective ``s_lambda(f(x))`` over ``incumbent``
    (e.g. the best scalarised observation), with ``s_lambda(f(x))`` taken Gaussian with

    * mean ``s_lambda(mu(x))`` and
    * standard deviation ``w(x)``: ``s_lambda(mu + sd) - s_lambda(mu)`` for a Chebyshev
      scalarisation (the change of the scalarisation under a one-sigma optimism in every task),
      ``||lambda sd||_2`` for a linear one (exact for independent tasks); floored at ``1e-12``,

    ``sd (n,)`` the per-task posterior standard deviations (a proxy: the Chebyshev
    scalarisation of a Gaussian vector is not Gaussian, and the task correlations are
    ignored). ``EI = w h((m - incumbent) / w)``, ``h(z) = phi(z) + z Phi(z)`` (Jones et al.
    1998); the box search follows ``log EI``
    (:func:`~kernelbandits.acquisition.scores.log_ei_score`), which has the same maximiser.
    """

    def __init__(
        self,
        posterior: MultiTaskPosterior,
        scalarization: Scalarization,
        weight: ArrayLike,
        incumbent: float,
    ) -> None:
        super().__init__(posterior)
        if not isinstance(scalarization, ChebyshevScalarization | LinearScalarization):
            raise ValueError(
                "scalarization must be a ChebyshevScalarization or a LinearScalarization (the "
                f"Gaussian proxy knows no other); got {type(scalarization).__name__}"
            )
        self.scalarization = scalarization
        self.weight = _check_weight(scalarization, weight)
        self.incumbent = as_finite_scalar(incumbent, "incumbent")

    def proxy(self, X: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """The proxy's mean and standard deviation at ``X (m, d)``, ``(m,)`` each."""
        mean, sd = task_marginals(self.posterior, X)
        m = np.asarray(self.scalarization(mean, self.weight), dtype=float)
        if isinstance(self.scalarization, ChebyshevScalarization):
            w = self.scalarization(mean + sd, self.weight) - m
        else:
            w = np.sqrt((sd**2) @ (self.weight**2))
        return m, np.maximum(w, 1e-12)

    def __call__(self, X: ArrayLike) -> FloatArray:
        """``EI (m,)`` at ``X (m, d)`` (``exp`` of :meth:`smooth`)."""
        return np.exp(self.smooth(X))

    def smooth(self, X: ArrayLike) -> FloatArray:
        """``log EI (m,)`` at ``X (m, d)``."""
        return log_ei_score(*self.proxy(X), self.incumbent)[0]


class ExpectedHypervolumeImprovement(MultiTaskAcquisition):
    """Expected hypervolume improvement (every task maximised) of one new point over
    ``front (k, n)`` inside the box above ``reference (n,)``, from the posterior's marginals
    ``N(mu_j(x), sd_j(x)^2)`` taken independent (Emmerich, Giannakoglou & Naujoks 2006; the
    task correlations are ignored, as in BoTorch's analytic EHVI).

    In losses (negated values): the boxes of :func:`non_dominated_boxes` of ``-front`` below
    ``-reference`` and :func:`expected_hypervolume_improvement` over them. Rows of ``front``
    outside the box above ``reference`` change nothing; if every row is outside, the boxes are
    the whole box above ``reference``. The box search follows ``log EHVI``
    (:func:`log_expected_hypervolume_improvement`: finite, with a slope towards the box, where
    EHVI underflows because the posterior lies far outside the box).
    """

    def __init__(
        self, posterior: MultiTaskPosterior, front: ArrayLike, reference: ArrayLike
    ) -> None:
        super().__init__(posterior)
        F = np.asarray(front, dtype=float)
        self.front = F
        self.reference = np.asarray(reference, dtype=float)
        self.lower, self.upper = non_dominated_boxes(-F, -self.reference)  # (K, n) each

    def __call__(self, X: ArrayLike) -> FloatArray:
        """``EHVI (m,)`` at ``X (m, d)``."""
        mean, sd = task_marginals(self.posterior, X)
        return expected_hypervolume_improvement(-mean, sd, self.lower, self.upper)

    def smooth(self, X: ArrayLike) -> FloatArray:
        """``log EHVI (m,)`` at ``X (m, d)`` (without underflow; ``-inf`` only where every box
        of the decomposition is empty)."""
        mean, sd = task_marginals(self.posterior, X)
        return log_expected_hypervolume_improvement(-mean, sd, self.lower, self.upper)
