"""Confidence radii for multi-task regression with one task observed per row (Sessa, Laforgue,
Cesa-Bianchi & Krause, "Multitask Learning with No Regret: from Improved Confidence Bounds to
Active Learning", NeurIPS 2023).

Setting. ``n`` tasks ``f_1, ..., f_n`` in the RKHS of an input kernel ``k``, with

* ``||f_i||_k <= B`` for every task (``norm_bound``),
* ``||f_i - f_bar||_k <= eps B`` with ``f_bar`` the tasks' mean (``similarity = eps``, relative
  to ``B``),
* ``R``-sub-Gaussian noise (``noise_std``), confidence ``1 - delta``.

The model is kernel ridge regression (the GP posterior) with the multi-task kernel
``k(x, x') [A_b^{-1}]_{ij}`` (:func:`~kernelbandits.kernels.multitask.interaction_task_matrix`)
and regulariser ``lam``; the interval is ``|f_i(x) - mu_t(x, i)| <= beta_t^(i) sigma_t(x, i)``
(``sigma_t`` the posterior standard deviation: ``||phi||_{V_t^{-1}} = sigma_t / sqrt(lam)``).

* :func:`naive_radius`: the bound for any kernel regression in the RKHS of ``Gamma`` (Abbasi-Yadkori
  et al. 2011; Chowdhury & Gopalan 2017) with
  ``||f||_Gamma^2 = sum_i ||f_i||^2 + b sum_i ||f_i - f_bar||^2 <= n B^2 (1 + b eps^2)`` and the
  *multi-task* information gain ``gamma_t``::

      beta_naive = B sqrt(n (1 + b eps^2)) + R / sqrt(lam) sqrt(2 (gamma_t + ln(1/delta)))

  (what GoB.Lin, Cesa-Bianchi et al. 2013, uses on the complete graph: "MT-UCB naive").
* :func:`improved_radius`: the paper's improved bound, the minimum of several valid bounds for
  each part (``L = ln(1/delta)``, ``gamma^(j)`` task ``j``'s own information gain: the input
  kernel ``k`` on task ``j``'s points alone, regulariser ``lam``)::

      variance^(i) = min( sqrt(2 (gamma_t + L)),
                          sqrt(2 (gamma^(i) + L) + 2 b sum_j (gamma^(j) + L)) ) / sqrt(lam)
      bias = min(B1, B2, B3, B_naive)
      B1 = B sqrt((1 + b n) / (1 + b)) (1 + b eps)
      B2 = B sqrt((1 + b eps)^2 / (1 + b) + 2 b n / (1 + b)
                  + 2 b (1 + b eps)^2 t^2 / (n lam^2 (1 + b)^3))
      B3 = sqrt(B^2 (1 + b eps)^2 / (1 + b) + lam^2 b (1 + b) / n ||D||^2)
      ||D|| = min( B (1 + b eps) ||sum_j (lam (1 + b) I + G_j)^{-1}||_F,
                   n B / (lam (1 + b)) + sum_j sum_k s_jk / (s_jk + lam (1 + b)) / (lam (1 + b)) )
      beta_improved^(i) = bias + R variance^(i)

  with ``t`` the number of observations, ``G_j = Phi_j^T Phi_j`` the Gram of task ``j``'s
  features (a finite feature map: the linear kernel of the paper's experiments) and ``s_jk`` its
  eigenvalues. ``B3`` needs those features; for other kernels it is left out of the minimum.

Provenance and decisions. The paper's body was not available to us offline (only its abstract),
so the formulas are those of the authors' public code (``sessap/multitask-noregret``,
``models.py``: ``beta_t_naive``, ``beta_t_improved``, read, not copied), which the paper's figures
were made with; every term is reproduced as that code computes it, including

* the minimum over all four bias bounds for every ``b`` (the code's comments call ``B1`` the
  "small-b" and ``B2``, ``B3`` the "large-b" bounds, but takes the minimum of all of them);
* ``ln(1/delta)`` counted ``n`` times inside the sum of the improved variance term;
* the second option of ``||D||`` with ``B`` multiplying only its first summand, and the Frobenius
  norm in its first option (an upper bound of the spectral norm, so conservative);
* ``t`` in ``B2``: every observation so far, initial ones included;
* no union bound over rounds (``delta`` is used as is, the anytime self-normalised bound).

Since ``B_naive`` and the naive variance are among the minimised terms,
``beta_improved^(i) <= beta_naive`` always (the tests check it on random data). Information gains are
``1/2 log det(I + K / lam)``, accumulated incrementally by
:class:`~kernelbandits.regression.GPPosterior` (no determinant overflow, which the authors'
``np.linalg.det`` meets at large ``n d T``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._validation import (
    FloatArray,
    as_finite_vector,
    as_real,
    check_count,
    check_nonnegative,
    check_positive,
    check_probability,
)

__all__ = ["MultiTaskRadius", "improved_radius", "naive_radius"]


def _check_interaction(interaction: float) -> float:
    value = as_real(interaction, "interaction", "a number >= 0")
    if not (np.isfinite(value) and value >= 0.0):
        raise ValueError(f"interaction (b) must be a finite number >= 0; got {interaction!r}")
    return value


def _check_similarity(similarity: float) -> float:
    value = as_real(similarity, "similarity", "a number >= 0")
    if not (np.isfinite(value) and value >= 0.0):
        raise ValueError(f"similarity (eps) must be a finite number >= 0; got {similarity!r}")
    return value


def naive_bias(n_tasks: int, interaction: float, norm_bound: float, similarity: float) -> float:
    """``B sqrt(n (1 + b eps^2))`` (``b = interaction``): the bound on ``||f||_Gamma`` (module
    notes)."""
    n = check_count(n_tasks, "n_tasks")
    return float(norm_bound * np.sqrt(n * (1.0 + interaction * similarity**2)))


def naive_variance(lam: float, delta: float, info_gain: float) -> float:
    """``sqrt(2 (gamma_t + ln(1/delta)) / lam)``: the noise part of the naive radius, per unit
    ``R``, with ``gamma_t`` the multi-task information gain."""
    return float(np.sqrt(2.0 * (info_gain + np.log(1.0 / delta)) / lam))


def _shared_inputs(
    n_tasks: int,
    interaction: float,
    norm_bound: float,
    similarity: float,
    noise_std: float,
    lam: float,
    delta: float,
    info_gain: float,
) -> tuple[int, float, float, float, float, float, float, float]:
    """The arguments both radii take, validated (``ValueError`` naming the first bad one)."""
    return (
        check_count(n_tasks, "n_tasks"),
        _check_interaction(interaction),
        check_nonnegative(norm_bound, "norm_bound"),
        _check_similarity(similarity),
        check_nonnegative(noise_std, "noise_std"),
        check_positive(lam, "lam"),
        check_probability(delta, "delta"),
        check_nonnegative(info_gain, "info_gain"),
    )


def naive_radius(
    n_tasks: int,
    interaction: float,
    norm_bound: float,
    similarity: float,
    noise_std: float,
    lam: float,
    delta: float,
    info_gain: float,
) -> float:
    """The naive multi-task radius
    ``B sqrt(n (1 + b eps^2)) + R sqrt(2 (gamma_t + ln(1/delta)) / lam)`` (module notes), the
    same for every task.

    Parameters
    ----------
    n_tasks : ``n``.
    interaction : ``b``, the interaction parameter of ``A_b`` (``b >= 0``; 0: independent tasks).
    norm_bound : ``B``, a bound on every ``||f_i||_k``.
    similarity : ``eps``, a bound on ``max_i ||f_i - f_bar||_k / B``.
    noise_std : ``R``, the sub-Gaussian constant of the noise.
    lam : the regulariser (the model's noise variance), ``> 0``.
    delta : confidence level in (0, 1).
    info_gain : ``gamma_t = 1/2 log det(I + K_t / lam)`` of the multi-task Gram matrix ``K_t``.
    """
    n, b, B, eps, R, lam, delta, gamma = _shared_inputs(
        n_tasks, interaction, norm_bound, similarity, noise_std, lam, delta, info_gain
    )
    return naive_bias(n, b, B, eps) + R * naive_variance(lam, delta, gamma)


@dataclass(frozen=True)
class MultiTaskRadius:
    """The parts of :func:`improved_radius` (module notes for the formulas).

    Attributes
    ----------
    bias_naive, bias_mixed, bias_growing : ``B_naive``, ``B1``, ``B2``.
    bias_data : ``B3``, or ``None`` without finite features.
    variance_naive : ``sqrt(2 (gamma_t + L) / lam)``.
    variance_tasks : ``(n,)``, ``sqrt((2 (gamma^(i) + L) + 2 b sum_j (gamma^(j) + L)) / lam)``.
    noise_std : ``R``.
    """

    bias_naive: float
    bias_mixed: float
    bias_growing: float
    bias_data: float | None
    variance_naive: float
    variance_tasks: FloatArray
    noise_std: float

    @property
    def bias(self) -> float:
        """``min(B_naive, B1, B2, B3)``."""
        terms = [self.bias_naive, self.bias_mixed, self.bias_growing]
        if self.bias_data is not None:
            terms.append(self.bias_data)
        return float(min(terms))

    @property
    def variance(self) -> FloatArray:
        """``min(variance_naive, variance_tasks)``, ``(n,)``."""
        return np.minimum(self.variance_naive, self.variance_tasks)

    @property
    def naive(self) -> float:
        """The naive radius ``B_naive + R variance_naive`` (:func:`naive_radius`)."""
        return self.bias_naive + self.noise_std * self.variance_naive

    @property
    def improved(self) -> FloatArray:
        """``beta_improved^(i) = bias + R variance^(i)``, ``(n,)``."""
        return self.bias + self.noise_std * self.variance


def _bias_data(
    b: float,
    B: float,
    eps: float,
    lam: float,
    n: int,
    task_grams: Sequence[ArrayLike],
) -> float:
    """``B3`` of the module notes from the per-task feature Grams ``G_j (p, p)``."""
    grams = [np.asarray(G, dtype=float) for G in task_grams]
    if len(grams) != n:
        raise ValueError(f"task_grams must hold one (p, p) Gram per task ({n}); got {len(grams)}")
    p = grams[0].shape[0]
    if any(G.shape != (p, p) or not np.all(np.isfinite(G)) for G in grams):
        raise ValueError("task_grams must be finite square matrices of one size")
    reg = lam * (1.0 + b)
    summed_inverse = sum(np.linalg.inv(reg * np.eye(p) + G) for G in grams)
    # the eigenvalues s_jk of each G_j: sum_k s_jk / (s_jk + lam (1 + b)) is an effective dimension
    effective = sum(
        float(np.sum(s / (s + reg)))
        for s in (np.clip(np.linalg.eigvalsh(G), 0, None) for G in grams)
    )
    norm_d = min(
        B * (1.0 + b * eps) * float(np.linalg.norm(summed_inverse)),  # Frobenius, as the code
        n * B / reg + effective / reg,
    )
    return float(
        np.sqrt(B**2 * (1.0 + b * eps) ** 2 / (1.0 + b) + lam**2 * b * (1.0 + b) / n * norm_d**2)
    )


def improved_radius(
    n_tasks: int,
    interaction: float,
    norm_bound: float,
    similarity: float,
    noise_std: float,
    lam: float,
    delta: float,
    info_gain: float,
    task_info_gains: ArrayLike,
    n_observations: int,
    task_grams: Sequence[ArrayLike] | None = None,
) -> MultiTaskRadius:
    """The improved multi-task radius of Sessa et al. (module notes) and its parts.

    Parameters
    ----------
    n_tasks, interaction, norm_bound, similarity, noise_std, lam, delta, info_gain : as
        :func:`naive_radius`.
    task_info_gains : ``(n,)``, ``gamma^(j) = 1/2 log det(I + K_j / lam)`` with ``K_j`` the input
        kernel's Gram matrix on task ``j``'s points.
    n_observations : ``t``, all observations so far.
    task_grams : ``n`` feature Grams ``G_j = Phi_j^T Phi_j (p, p)`` for ``B3``, or ``None``
        (``B3`` left out: kernels without finite features).

    Returns
    -------
    :class:`MultiTaskRadius`; its ``improved`` ``(n,)`` is the radius of each task.
    """
    n, b, B, eps, R, lam, delta, gamma = _shared_inputs(
        n_tasks, interaction, norm_bound, similarity, noise_std, lam, delta, info_gain
    )
    gammas = as_finite_vector(task_info_gains, n, "task_info_gains")
    if np.any(gammas < 0):
        raise ValueError("task_info_gains must be >= 0")
    t = check_count(n_observations, "n_observations", 0)
    log_term = np.log(1.0 / delta)
    shared = 2.0 * b * float(np.sum(gammas + log_term))  # 2 b sum_j (gamma^(j) + L)
    variance_tasks = np.sqrt((2.0 * (gammas + log_term) + shared) / lam)
    ratio = 1.0 + b * eps
    mixed = B * np.sqrt((1.0 + b * n) / (1.0 + b)) * ratio
    growing = B * np.sqrt(
        ratio**2 / (1.0 + b)
        + 2.0 * b * n / (1.0 + b)
        + 2.0 * b * ratio**2 * t**2 / (n * lam**2 * (1.0 + b) ** 3)
    )
    data = None if task_grams is None else _bias_data(b, B, eps, lam, n, task_grams)
    return MultiTaskRadius(
        bias_naive=naive_bias(n, b, B, eps),
        bias_mixed=float(mixed),
        bias_growing=float(growing),
        bias_data=data,
        variance_naive=naive_variance(lam, delta, gamma),
        variance_tasks=variance_tasks,
        noise_std=R,
    )
