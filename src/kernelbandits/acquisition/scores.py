"""The acquisition math on arrays: scores of the posterior marginals ``(mu, sd)`` with their
partial derivatives, which the posterior-bound acquisitions
(:mod:`kernelbandits.acquisition.analytic`) combine with the posterior's gradients by the chain
rule.

* :func:`ucb_score`: ``mu + w sd`` (Srinivas et al. 2010);
* :func:`log_ei_score`: ``log EI`` with ``EI = sd h((mu - best) / sd)``,
  ``h(z) = phi(z) + z Phi(z)`` (Jones et al. 1998), computed stably for very negative ``z``
  through the scaled complementary error function (the argument of Ament et al. 2023,
  "Unexpected improvements to expected improvement": ``EI`` underflows where ``log EI`` keeps
  a useful gradient). The maximiser is that of EI;
* :func:`log_pi_score`: ``log Phi((mu - best) / sd)``, whose maximiser is that of PI.

Arrays are ``(m,)``: one entry per point.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import erfcx, log_ndtr, ndtr

from kernelbandits._validation import FloatArray

__all__ = ["log_ei_score", "log_h", "log_pi_score", "ucb_score"]

_SQRT_HALF_PI = math.sqrt(0.5 * math.pi)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


def ucb_score(
    mu: FloatArray, sd: FloatArray, width: float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``mu + width sd`` and its partial derivatives in ``mu`` and ``sd``; arrays ``(m,)``."""
    return mu + width * sd, np.ones_like(mu), np.full_like(sd, width)


def log_h(z: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``log h(z)`` with ``h(z) = phi(z) + z Phi(z)`` and its derivative ``Phi(z) / h(z)``.

    With the Mills-type ratio ``M(z) = Phi(z) / phi(z) = sqrt(pi / 2) erfcx(-z / sqrt 2)``,
    ``h = phi (1 + z M)``, so ``log h = -z^2/2 - log sqrt(2 pi) + log(1 + z M)`` stays finite
    where ``phi`` underflows; below ``z = -1e4`` the asymptote ``1 + z M ~ 1 / z^2`` is used.
    """
    z = np.asarray(z, dtype=float)
    # z > -1: directly (h >= h(-1) = 0.083, no cancellation); z <= -1: through erfcx
    zp = np.maximum(z, -1.0)
    h = np.exp(-0.5 * zp * zp - _LOG_SQRT_2PI) + zp * ndtr(zp)
    zn = np.minimum(z, -1.0)
    ratio = _SQRT_HALF_PI * erfcx(-zn / math.sqrt(2.0))  # Phi(zn) / phi(zn), finite for zn <= -1
    one_plus = np.maximum(1.0 + zn * ratio, 1e-300)  # h / phi > 0
    far = zn < -1e4  # where the asymptote (error 3 / z^2) beats the cancellation (eps z^2)
    log_tail = np.where(far, -2.0 * np.log(np.abs(zn)), np.log(one_plus))
    value = np.where(z > -1.0, np.log(h), -0.5 * zn * zn - _LOG_SQRT_2PI + log_tail)
    slope = np.where(z > -1.0, ndtr(zp) / h, np.where(far, -zn - 2.0 / zn, ratio / one_plus))
    return value, slope


def log_pi_score(
    mu: FloatArray, sd: FloatArray, best: float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``log PI = log Phi(z)``, ``z = (mu - best) / sd``, and its partials in ``mu`` and ``sd``
    (``r / sd`` and ``-r z / sd`` with ``r = phi(z) / Phi(z)``, from ``log_ndtr``)."""
    positive = sd > 0.0
    safe = np.where(positive, sd, 1.0)
    z = np.clip((mu - best) / safe, -1e150, 1e150)
    value = log_ndtr(z)
    r = np.exp(-0.5 * z * z - _LOG_SQRT_2PI - value)
    value = np.where(positive, value, np.where(mu > best, 0.0, -np.inf))
    return value, np.where(positive, r / safe, 0.0), np.where(positive, -r * z / safe, 0.0)


def log_ei_score(
    mu: FloatArray, sd: FloatArray, best: float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``log EI = log sd + log h((mu - best) / sd)`` and its partials in ``mu`` and ``sd``.

    ``dEI / d mu = Phi(z)`` and ``dEI / d sd = phi(z)``, so the partials of ``log EI`` are
    ``g / sd`` and ``(phi(z) / h(z)) / sd`` with ``g = d log h / dz = Phi(z) / h(z)`` (the second
    from ``log phi - log h``, not as ``1 - z g``, which cancels for large ``z``). Points with
    ``sd = 0`` (observed points without noise) get ``-inf`` and zero partials.
    """
    positive = sd > 0.0
    safe = np.where(positive, sd, 1.0)
    z = np.clip((mu - best) / safe, -1e150, 1e150)
    log_hz, g = log_h(z)
    d_sd = np.exp(-0.5 * z * z - _LOG_SQRT_2PI - log_hz) / safe
    value = np.where(positive, np.log(safe) + log_hz, -np.inf)
    return value, np.where(positive, g / safe, 0.0), np.where(positive, d_sd, 0.0)
