"""Acquisitions bound to a posterior and evaluated at points (BoTorch's
``AcquisitionFunction(model)``): ``acq(X (m, d)) -> (m,)``.

An acquisition holds one posterior (anything that answers
:class:`~kernelbandits.regression.base.Posterior`: exact GP, Nystrom, transfer, a fitted
source-target model, ...) and one round's parameters (the width ``w``, the incumbent). It
answers

* ``acq(X)``: the score a policy ranks points by (exact on a grid);
* :meth:`PointwiseAcquisition.smooth`: a score with the same maximiser that a box optimiser
  follows (a monotone transform, e.g. ``log EI``), and
  :meth:`PointwiseAcquisition.smooth_with_gradient` with its gradient in ``x`` by the chain rule

      d a / dx = (d a / d mu) d mu / dx + (d a / d sd) d sd / dx,   d sd / dx = (d var / dx) / (2 sd),

  when the posterior supplies ``d mu / dx`` and ``d var / dx``
  (:class:`~kernelbandits.regression.base.DifferentiablePosterior`);
* :meth:`PointwiseAcquisition.on_grid`: the scores of every point of a grid the posterior
  tracks (:class:`~kernelbandits.regression.base.GridTracking`), from its cached marginals.

Every score here is a function of the marginals ``(mu(x), sd(x))`` at each point
(:class:`PointwiseAcquisition`); Thompson sampling, which needs joint draws, is
:class:`~kernelbandits.acquisition.thompson.ThompsonSampling`. One optimiser,
:func:`~kernelbandits.acquisition.optimize.maximize_acquisition`, turns any of them into a
decision on any domain.

The incumbent of EI and PI is :func:`best_observed_mean`, ``max_s mu_{t-1}(x_s)``: the one
place it is computed.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy.stats import norm

from kernelbandits._deprecation import renamed_method, warn_renamed
from kernelbandits._validation import FloatArray, as_finite_scalar, check_nonnegative
from kernelbandits.acquisition.scores import log_ei_score, log_pi_score, ucb_score
from kernelbandits.regression.base import (
    DifferentiablePosterior,
    GridTracking,
    Posterior,
    as_differentiable,
)

__all__ = [
    "Acquisition",
    "AcquisitionName",
    "ExpectedImprovement",
    "PointwiseAcquisition",
    "ProbabilityOfImprovement",
    "UpperConfidenceBound",
    "best_observed_mean",
    "check_acquisition_name",
    "pointwise_acquisition",
]

#: the acquisitions a policy can be asked for by name
AcquisitionName = Literal["ucb", "ei", "pi", "ts"]


def marginals(posterior: Posterior, X: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """``(mu (m,), sd (m,))`` of ``posterior`` at ``X (m, d)`` (``sd`` clipped at 0)."""
    mu, var = posterior.predict(X)
    return mu, np.sqrt(np.maximum(var, 0.0))


class _NoPosterior:
    """The posterior of an acquisition built the retired way, without one: it scores marginals
    (``acq(mu, sd)``) only."""

    def predict(self, X: ArrayLike) -> tuple[FloatArray, FloatArray]:
        raise TypeError(
            "this acquisition has no posterior: build it as Acquisition(posterior, ...)"
        )


_NO_POSTERIOR = _NoPosterior()
_NOTHING = float("nan")  # "not given" for a retired positional argument


class Acquisition(ABC):
    """An acquisition bound to a posterior for one round, as
    :func:`~kernelbandits.acquisition.maximize_acquisition` consumes it:

    * ``acq(X (m, d)) -> (m,)``: the score a policy ranks points by (exact on a grid);
    * :meth:`smooth`: a score with the same maximiser that a box optimiser follows (default:
      the score itself);
    * :meth:`smooth_with_gradient`: :meth:`smooth` and its gradient in ``x``, used when
      :attr:`differentiable`.

    :class:`PointwiseAcquisition` (scores of a scalar posterior's marginals) and the scalarised
    and hypervolume acquisitions of a multi-task posterior
    (:mod:`kernelbandits.acquisition.multitask`) are the two families.
    """

    @abstractmethod
    def __call__(self, X: ArrayLike) -> FloatArray:
        """The scores at ``X (m, d)``, shape ``(m,)``."""

    def smooth(self, X: ArrayLike) -> FloatArray:
        """The value a box optimiser maximises at ``X (m, d)``, ``(m,)`` (same maximiser as the
        score)."""
        return self(X)

    @property
    def differentiable(self) -> bool:
        """Whether :meth:`smooth_with_gradient` is available."""
        return False

    def smooth_with_gradient(self, X: FloatArray) -> tuple[FloatArray, FloatArray]:
        """:meth:`smooth` at ``X (m, d)``, ``(m,)``, and its gradient in ``x``, ``(m, d)``; an
        acquisition that is not :attr:`differentiable` has none (``ValueError``: search it with
        a :class:`~kernelbandits.acquisition.SobolSearch`, which needs no gradient)."""
        raise ValueError(
            f"{type(self).__name__} has no input gradient (differentiable is False): maximise it "
            "with a SobolSearch, which needs none"
        )


class PointwiseAcquisition(Acquisition):
    """A score of the posterior marginals ``(mu(x), sd(x))`` at each point, for one round.

    Subclasses give :meth:`score` (exact, on arrays ``(m,)``) and :meth:`transformed` (a
    score with the same maximiser and its partials in ``mu`` and ``sd``, each ``(m,)``).
    """

    def __init__(self, posterior: Posterior) -> None:
        self.posterior = posterior

    @abstractmethod
    def score(self, mu: FloatArray, sd: FloatArray) -> FloatArray:
        """Scores ``(m,)`` from posterior means and standard deviations ``(m,)``."""

    @abstractmethod
    def transformed(
        self, mu: FloatArray, sd: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(value, d value / d mu, d value / d sd)``, each ``(m,)``: what a box optimiser
        follows (the maximiser of :meth:`score`)."""

    def __call__(self, X: ArrayLike, sd: FloatArray | None = None) -> FloatArray:
        """The scores at ``X (m, d)``, shape ``(m,)``. (``acq(mu, sd)``, scores of marginals,
        is the deprecated spelling of :meth:`score`.)"""
        if sd is not None:
            warn_renamed("acquisition(mu, sd)", "acquisition.score(mu, sd)")
            return self.score(np.asarray(X, dtype=float), sd)
        return self.score(*marginals(self.posterior, X))

    #: deprecated spelling of :meth:`transformed`
    with_gradient = renamed_method("with_gradient", "transformed")

    def on_grid(self) -> FloatArray:
        """The scores of every point of the grid the posterior tracks, ``(|grid|,)``."""
        assert isinstance(self.posterior, GridTracking)
        mu, var = self.posterior.predict_on_grid()
        return self.score(mu, np.sqrt(np.maximum(var, 0.0)))

    def smooth(self, X: ArrayLike) -> FloatArray:
        """:meth:`transformed` at ``X (m, d)``: the value a box optimiser maximises, ``(m,)``."""
        return self.transformed(*marginals(self.posterior, X))[0]

    @property
    def differentiable(self) -> bool:
        """Whether the posterior gives input gradients (:meth:`smooth_with_gradient`)."""
        return isinstance(self.posterior, DifferentiablePosterior) and bool(
            self.posterior.has_input_gradient
        )

    def smooth_with_gradient(self, X: FloatArray) -> tuple[FloatArray, FloatArray]:
        """:meth:`smooth` at ``X (m, d)``, ``(m,)``, and its gradient in ``x``, ``(m, d)``, by
        the chain rule (module docstring)."""
        mu, var, dmu, dvar = as_differentiable(self.posterior).predict_with_gradient(X)
        sd = np.sqrt(var)
        value, d_mu, d_sd = self.transformed(mu, sd)
        dsd = dvar / (2.0 * np.maximum(sd, 1e-300))[:, None]
        return value, d_mu[:, None] * dmu + d_sd[:, None] * dsd


class UpperConfidenceBound(PointwiseAcquisition):
    """``mu + width sd`` (Srinivas et al. 2010). ``width`` is the multiplier of the standard
    deviation (the glossary's ``beta``; BoTorch's and Optuna's ``beta`` is its square); the
    policies take it from their paper's schedule (:mod:`kernelbandits.policies.beta`)."""

    def __init__(self, posterior: Posterior, width: float | None = None) -> None:
        if width is None and _is_number(posterior):  # UpperConfidenceBound(width): retired
            warn_renamed("UpperConfidenceBound(width)", "UpperConfidenceBound(posterior, width)")
            posterior, width = _NO_POSTERIOR, posterior  # type: ignore[assignment]
        super().__init__(posterior)
        if width is None:
            raise TypeError(
                "UpperConfidenceBound needs a width: UpperConfidenceBound(posterior, width)"
            )
        self.width = check_nonnegative(width, "width")

    def score(self, mu: FloatArray, sd: FloatArray) -> FloatArray:
        return mu + self.width * sd

    def transformed(
        self, mu: FloatArray, sd: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        return ucb_score(mu, sd, self.width)


class _Improvement(PointwiseAcquisition):
    """Shared by EI and PI: the improvement over ``incumbent + xi`` in units of ``sd``."""

    def __init__(self, posterior: Posterior, incumbent: float = _NOTHING, xi: float = 0.0) -> None:
        if _is_number(posterior):  # ExpectedImprovement(incumbent, xi): retired
            name = type(self).__name__
            warn_renamed(f"{name}(incumbent, xi)", f"{name}(posterior, incumbent, xi)")
            if incumbent is not _NOTHING:
                xi = incumbent
            posterior, incumbent = _NO_POSTERIOR, posterior  # type: ignore[assignment]
        super().__init__(posterior)
        as_finite_scalar(incumbent, "incumbent")
        self.incumbent = incumbent
        self.xi = check_nonnegative(xi, "xi")

    def _gap_and_z(self, mu: FloatArray, sd: FloatArray) -> tuple[FloatArray, FloatArray]:
        """``gap = mu - incumbent - xi`` and ``z = gap / sd`` (``+-inf`` where ``sd = 0``)."""
        gap = mu - self.incumbent - self.xi
        safe = np.where(sd > 0, sd, 1.0)
        return gap, np.where(sd > 0, gap / safe, np.where(gap > 0, np.inf, -np.inf))


class ExpectedImprovement(_Improvement):
    """``EI = gap Phi(z) + sd phi(z)`` (Jones et al. 1998); its box search follows ``log EI``
    (:func:`~kernelbandits.acquisition.scores.log_ei_score`), which has the same maximiser and
    does not underflow."""

    def score(self, mu: FloatArray, sd: FloatArray) -> FloatArray:
        gap, z = self._gap_and_z(mu, sd)
        with np.errstate(invalid="ignore", over="ignore"):  # phi(z) = 0 where z^2 overflows
            ei = gap * norm.cdf(z) + sd * norm.pdf(z)
        return np.where(sd > 0, ei, np.maximum(gap, 0.0))

    def transformed(
        self, mu: FloatArray, sd: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        return log_ei_score(mu, sd, self.incumbent + self.xi)


class ProbabilityOfImprovement(_Improvement):
    """``PI = Phi(z)`` (Kushner 1964); its box search follows ``log PI``
    (:func:`~kernelbandits.acquisition.scores.log_pi_score`)."""

    def score(self, mu: FloatArray, sd: FloatArray) -> FloatArray:
        return np.asarray(norm.cdf(self._gap_and_z(mu, sd)[1]), dtype=float)

    def transformed(
        self, mu: FloatArray, sd: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        return log_pi_score(mu, sd, self.incumbent + self.xi)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)


def best_observed_mean(
    posterior: Posterior,
    X_observed: FloatArray,
    means: Callable[[], FloatArray | None] | None = None,
) -> float:
    """The incumbent of EI and PI: ``max_s mu_{t-1}(x_s)`` over the observed points
    ``X_observed (t, d)`` (0, the prior mean, before any data).

    ``means()`` may give ``mu_{t-1}(X_observed)`` faster than a prediction (e.g. read off a
    grid cache in O(t), :meth:`~kernelbandits.regression.CandidatePosterior.mean_at_observations`);
    when it is absent or returns ``None`` the posterior predicts them.
    """
    if len(X_observed) == 0:
        return 0.0
    observed = None if means is None else means()
    if observed is None:
        observed = posterior.predict(X_observed)[0]
    return float(np.max(observed))


def pointwise_acquisition(
    name: AcquisitionName,
    posterior: Posterior,
    width: float,
    incumbent: float,
    xi: float = 0.0,
) -> PointwiseAcquisition:
    """The acquisition called ``name`` on ``posterior`` for one round: ``"ucb"`` (``mu + width
    sd``), ``"ei"`` or ``"pi"`` (improvement over ``incumbent + xi``)."""
    if name == "ucb":
        return UpperConfidenceBound(posterior, width)
    if name == "ei":
        return ExpectedImprovement(posterior, incumbent, xi)
    if name == "pi":
        return ProbabilityOfImprovement(posterior, incumbent, xi)
    raise ValueError(f"acquisition must be 'ucb', 'ei' or 'pi' (pointwise); got {name!r}")


def check_acquisition_name(name: object) -> AcquisitionName:
    """``name`` if it is one of ``"ucb"``, ``"ei"``, ``"pi"``, ``"ts"``; ``ValueError`` naming
    them."""
    if name not in ("ucb", "ei", "pi", "ts"):
        raise ValueError(f"acquisition must be 'ucb', 'ei', 'pi' or 'ts'; got {name!r}")
    return name
