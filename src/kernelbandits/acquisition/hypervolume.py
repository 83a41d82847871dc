"""Expected hypervolume improvement of one new point under independent Gaussian losses: the
acquisition of the multi-objective samplers."""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtr

from kernelbandits._validation import FloatArray

__all__ = ["expected_hypervolume_improvement"]

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


def expected_hypervolume_improvement(
    mean: FloatArray, sd: FloatArray, lower: FloatArray, upper: FloatArray
) -> FloatArray:
    """Expected hypervolume improvement of one new point with independent Gaussian losses
    ``N(mean, sd^2)`` (to be *minimised*), given the boxes ``[lower_k, upper_k]`` that tile the
    region the current front does not dominate inside the reference box (lower bounds may be
    ``-inf``; e.g. Optuna's box decomposition).

    The improvement of a point ``L`` is ``sum_k prod_j max(0, u_kj - max(L_j, l_kj))``; with
    independent objectives each factor's expectation has the closed form
    ``int_l^u P(L_j < t) dt = s [G((u - m) / s) - G((l - m) / s)]``, ``G(z) = z Phi(z) +
    phi(z)`` (Emmerich, Giannakoglou & Naujoks 2006; Yang et al. 2019 for the box form).
    ``mean, sd (c, n)``, ``lower, upper (K, n)``; returns ``(c,)``. Correlation between the
    objectives at one point is ignored (as in BoTorch's analytic EHVI).
    """
    mean, sd = np.asarray(mean, dtype=float), np.asarray(sd, dtype=float)
    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    if mean.ndim != 2 or sd.shape != mean.shape:
        raise ValueError(f"mean and sd must have one shape (c, n); got {mean.shape}, {sd.shape}")
    if lower.ndim != 2 or upper.shape != lower.shape or lower.shape[1] != mean.shape[1]:
        raise ValueError(
            f"lower and upper must have one shape (K, {mean.shape[1]}); got {lower.shape}, "
            f"{upper.shape}"
        )
    s = np.maximum(sd, 1e-12)[:, None, :]  # (c, 1, n)
    m = mean[:, None, :]

    def g(bound: FloatArray) -> FloatArray:
        z = (bound[None, :, :] - m) / s
        with np.errstate(invalid="ignore"):
            out = z * ndtr(z) + np.exp(-0.5 * z**2 - _LOG_SQRT_2PI)
        return np.where(np.isneginf(z), 0.0, out)

    factors = s * np.maximum(g(upper) - g(lower), 0.0)  # (c, K, n)
    return np.prod(factors, axis=2).sum(axis=1)
