"""MT-KB, its independent-task baseline IT-KB, and the MOBO baseline.

* :class:`MTKB` — Chowdhury & Gopalan (2021), Alg. 1 with the radius of Thm 2.
* :class:`ITKB` — the paper's IT-KB (Sec. 5, App. F): every task learnt by its own GP (kernel
  ``diag(k, ..., k)``), the IGP-UCB radius of Chowdhury & Gopalan (2017, Thm 2) inflated by
  ``sqrt(n)``.
* :class:`MOBO` — Paria et al. (2020), independent GPs per objective with scalarised UCB; the MT
  paper "modifies it suitably to tackle the cumulative regret": by default the acquisition is
  averaged over the fixed weight sample (expected scalarisation) instead of one random draw per
  round; ``random_scalarization=True`` is Paria et al.'s original rule.

Shared parameters (the paper's Sec. 5 values as defaults): ``lam = 0.1``, the regulariser the
paper calls ``eta`` (noise variance of the model), ``delta = 0.1``, ``noise_std`` the sub-Gaussian
constant ``sigma`` of the noise (0.1 in the RKHS experiment), ``norm_bound`` the paper's ``b``,
the bound on the RKHS norm of ``f`` (``max_x ||f(x)||_2`` in the paper when ``f`` is not an RKHS
draw). ``eta=`` and ``b=`` are the deprecated spellings (glossary).

Radius. The paper's experiments use the theorems' radii "exactly" (App. F) and so does every
policy here by default. ``beta=`` replaces it by a constant or a schedule ``t -> beta_t``
(e.g. :func:`~kernelbandits.policies.vector.paria_radius`, MOBO's): the practical setting the
paper does not use, for ablations (``mt-sensor-*-common-radius``).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._deprecation import renamed_parameters
from kernelbandits._random import SeedLike
from kernelbandits._validation import (
    FloatArray,
    check_nonnegative,
    check_probability,
)
from kernelbandits.acquisition import ucb_score
from kernelbandits.domains import Domain, Grid
from kernelbandits.kernels.base import Kernel, check_kernel
from kernelbandits.kernels.multitask import ICM, IndependentTasks, SeparableSum, interaction_form
from kernelbandits.policies.beta import IGPUCBBeta
from kernelbandits.policies.multitask_radius import MultiTaskRadius, improved_radius
from kernelbandits.policies.vector import (
    DEFAULT_N_WEIGHTS,
    RadiusLike,
    _MultiTaskKernelUCB,
    paria_radius,
)
from kernelbandits.regression.gp import GPPosterior
from kernelbandits.regression.multitask import (
    DecoupledPosterior,
    VectorCandidates,
    VectorMethod,
    spectral_norms,
    vector_posterior,
)
from kernelbandits.scalarization import ChebyshevScalarization, Scalarization


class _ExactModelUCB(_MultiTaskKernelUCB):
    """Eq. (3) on the exact multi-task posterior (tracked on a grid)."""

    def __init__(
        self,
        domain: Domain,
        kernel: SeparableSum,
        scalarization: Scalarization,
        *,
        method: VectorMethod,
        **options: Any,
    ) -> None:
        super().__init__(domain, kernel, scalarization, **options)
        self.posterior = vector_posterior(self.kernel, self.lam, domain.dim, method)
        self._tracked: VectorCandidates | None = (
            self.posterior.track(domain.points) if isinstance(domain, Grid) else None
        )

    def mean_and_norm(self, X: ArrayLike | None = None) -> tuple[FloatArray, FloatArray]:
        if X is None and self._tracked is not None:
            return self._tracked.mean, self._tracked.spectral_norm
        mean, cov = self.posterior.predict(self._grid_or(X))
        return mean, spectral_norms(cov)

    def _update(self, x: FloatArray, y: FloatArray) -> None:
        self.posterior.add(x, y)


class MTKB(_ExactModelUCB):
    """Multi-task kernelized bandits (Alg. 1) with the radius of Thm 2:

        beta_t = b + sigma / sqrt(eta) * sqrt(2 log(1/delta)
                 + sum_{s<=t} log det(I_n + Gamma_{s-1}(x_s, x_s) / eta))

    (``b = norm_bound``, ``sigma = noise_std``, ``eta = lam``), or ``radius="improved"``: Sessa
    et al. (2023)'s improved radius (:func:`~kernelbandits.policies.multitask_radius.improved_radius`)
    for an ICM kernel whose task matrix is ``scale A_b^{-1}``
    (:func:`~kernelbandits.kernels.interaction_form`, e.g. Evgeniou's), read for this setting where
    every task is observed at every point: ``n t`` observations, the multi-task gain
    ``gamma_t = 1/2 sum_s log det(...)`` above, every task's own gain that of the points ``x_s``
    under ``scale k``, no feature Grams (``B3`` left out). Its noise part never exceeds Thm 2's;
    its bias part replaces ``b`` by ``min(B sqrt(n (1 + b eps^2)), B1, B2)`` with
    ``B = norm_bound`` now a bound on *each* task's norm ``||f_i||`` and ``eps = similarity``.

    Parameters
    ----------
    domain : Grid or Box.
    kernel : the multi-task kernel ``Gamma`` (ICM, independent tasks or a sum of separable).
    scalarization : ``s_lambda``; the weight prior is the scalarisation's (Paria et al.).
    lam : regulariser ``lam > 0``, the paper's ``eta`` (default 0.1, Sec. 5).
    norm_bound : ``b``, the bound on ``||f||_Gamma`` (default 1).
    noise_std : ``sigma``, sub-Gaussian constant of the noise (default 0.1).
    delta : confidence level in (0, 1) (default 0.1).
    beta : a constant radius, or a schedule ``t -> beta_t`` of the round ``t`` being decided,
        instead of Thm 2 (``None``: Thm 2).
    radius : ``"theorem"`` (Thm 2, default) or ``"improved"`` (Sessa et al., above).
    similarity : ``eps`` of the improved radius, a bound on ``max_i ||f_i - f_bar|| / B``
        (default 1; 2 always holds).
    method : ``"auto"`` (ICM fast path when the kernel allows, App. A.2), ``"block"`` (eq. 1-2
        for any kernel), ``"decoupled"``, or ``"eigen"`` (ICM without candidate caches:
        bounded memory for large grids and many tasks, slower rounds; see
        :class:`~kernelbandits.regression.multitask.EigenPosterior`).
    n_weights, random_scalarization, lipschitz, seed : see :class:`ScalarizedUCB`.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelbandits import Grid
    >>> from kernelbandits.kernels import ICM, RBF
    >>> from kernelbandits.policies import MTKB
    >>> from kernelbandits.scalarization import LinearScalarization
    >>> grid = Grid.linspace(0.0, 1.0, 101)
    >>> kernel = ICM.evgeniou(RBF(0.1), 2, omega=0.5)  # two correlated tasks
    >>> policy = MTKB(grid, kernel, LinearScalarization(), lam=0.01, seed=0)
    >>> for _ in range(20):
    ...     x = policy.ask()
    ...     policy.tell(x, [np.sin(6 * x[0]), np.sin(6 * x[0] + 0.3)])  # y has one value per task
    >>> policy.y_observed.shape
    (20, 2)
    >>> policy.X_observed[np.argmax(policy.y_observed.sum(axis=1))]  # the sum peaks at 0.237
    array([0.23])
    """

    name = "MT-KB"

    @renamed_parameters(eta="lam", b="norm_bound")
    def __init__(
        self,
        domain: Domain,
        kernel: SeparableSum,
        scalarization: Scalarization,
        lam: float = 0.1,
        norm_bound: float = 1.0,
        noise_std: float = 0.1,
        delta: float = 0.1,
        beta: RadiusLike = None,
        method: VectorMethod = "auto",
        n_weights: int = DEFAULT_N_WEIGHTS,
        random_scalarization: bool = False,
        lipschitz: float = 1.0,
        radius: Literal["theorem", "improved"] = "theorem",
        similarity: float = 1.0,
        seed: SeedLike = None,
    ) -> None:
        super().__init__(
            domain, kernel, scalarization, lam=lam, beta=beta, method=method,
            n_weights=n_weights, random_scalarization=random_scalarization, lipschitz=lipschitz,
            seed=seed,
        )  # fmt: skip
        self.norm_bound = check_nonnegative(norm_bound, "norm_bound")
        self.noise_std = check_nonnegative(noise_std, "noise_std")
        self.delta = check_probability(delta, "delta")
        if radius not in ("theorem", "improved"):
            raise ValueError(f"radius must be 'theorem' or 'improved'; got {radius!r}")
        self.radius = radius
        self.similarity = check_nonnegative(similarity, "similarity")
        self._input_gain: GPPosterior | None = None
        if radius == "improved":
            form = (
                interaction_form(self.kernel.task_matrices[0])
                if isinstance(self.kernel, ICM)
                else None
            )
            if form is None:
                raise ValueError(
                    "radius='improved' needs an ICM kernel whose task matrix is scale * A_b^{-1} "
                    "(a constant diagonal and a constant non-negative off-diagonal, e.g. "
                    "ICM.evgeniou); use radius='theorem'"
                )
            scale, self.interaction = form
            assert isinstance(self.kernel, ICM)
            # every task's own information gain: the points x_s under scale * k
            self._input_gain = GPPosterior(scale * self.kernel.base, self.lam, domain.dim)

    def theorem_width(self) -> float:
        # Thm 2: log_det_sum = sum_{s<=t} log det(I_n + Gamma_{s-1}(x_s, x_s) / lam)
        if self._input_gain is not None:
            return self.improved_radius().improved.max().item()
        inner = 2.0 * np.log(1.0 / self.delta) + self.posterior.log_det_sum
        return float(self.norm_bound + self.noise_std / np.sqrt(self.lam) * np.sqrt(inner))

    def improved_radius(self) -> MultiTaskRadius:
        """Every part of Sessa et al.'s radius at the current data (``radius="improved"``)."""
        if self._input_gain is None:
            raise ValueError("improved_radius needs radius='improved'")
        n = self.n_tasks
        return improved_radius(
            n, self.interaction, self.norm_bound, self.similarity, self.noise_std, self.lam,
            self.delta, 0.5 * self.posterior.log_det_sum, [self._input_gain.info_gain] * n,
            n * self.n_observations,
        )  # fmt: skip

    def _update(self, x: FloatArray, y: FloatArray) -> None:
        super()._update(x, y)  # validates before it changes anything
        if self._input_gain is not None:
            self._input_gain.add(x, 0.0)  # the gain needs the points only


class ITKB(_ExactModelUCB):
    """Independent-task kernelized bandits (the paper's IT-KB baseline, Sec. 5 and App. F).

    Each task has its own GP with the scalar kernel ``k`` (``Gamma = diag(k, ..., k)``) and the
    IGP-UCB radius (Chowdhury & Gopalan 2017, Thm 2) inflated by ``sqrt(n)``:
    ``beta_t = sqrt(n) (b + sigma / sqrt(lam) sqrt(2 (gamma_t + 1 + ln(1/delta))))`` with
    ``gamma_t`` the largest per-task information gain
    ``1/2 sum_s log(1 + sigma^2_{s-1,i}(x_s) / lam)``.

    Decision: IGP-UCB regularises with ``1 + eta`` (so about 1); every algorithm of the
    comparison uses the same ``lam = eta`` (App. F: "for a particular hyperparameter, we always
    use the same value"), so the posterior here uses ``lam`` and the noise term is rescaled to
    it: for regulariser ``lam`` the bound reads ``B + R / sqrt(lam) sqrt(...)`` (posterior with
    noise ``lam`` = kernel ``k / lam`` with unit noise), which is also what the MT paper's Thm 2
    gives at ``n = 1`` (``sigma / sqrt(lam)``). Other parameters as :class:`MTKB` (``beta``
    replaces the whole inflated radius).
    """

    name = "IT-KB"

    @renamed_parameters(eta="lam", b="norm_bound")
    def __init__(
        self,
        domain: Domain,
        kernel: Kernel,
        n_tasks: int,
        scalarization: Scalarization,
        lam: float = 0.1,
        norm_bound: float = 1.0,
        noise_std: float = 0.1,
        delta: float = 0.1,
        beta: RadiusLike = None,
        n_weights: int = DEFAULT_N_WEIGHTS,
        random_scalarization: bool = False,
        lipschitz: float = 1.0,
        seed: SeedLike = None,
    ) -> None:
        mt_kernel = IndependentTasks(check_kernel(kernel, domain.dim), n_tasks)
        super().__init__(
            domain, mt_kernel, scalarization, lam=lam, beta=beta, method="decoupled",
            n_weights=n_weights, random_scalarization=random_scalarization, lipschitz=lipschitz,
            seed=seed,
        )  # fmt: skip
        # the noise term of IGP-UCB at regulariser lam: R / sqrt(lam) (see the class notes)
        self.radius = IGPUCBBeta(norm_bound, noise_std / np.sqrt(self.lam), delta)

    def theorem_width(self) -> float:
        assert isinstance(self.posterior, DecoupledPosterior)
        gamma = max(gp.info_gain for gp in self.posterior.components)
        single = self.radius.width(self.n_observations + 1, gamma, None)
        return float(np.sqrt(self.n_tasks) * single)


class MOBO(_ExactModelUCB):
    """Paria et al. (2020): independent GPs per objective and a scalarised UCB.

    Acquisition for a weight ``lambda`` (the reference implementation in Dragonfly,
    ``multiobjective_gpb_acquisitions.py``), with ``beta_t = sqrt(0.2 d log(2 d t + 1))``:

    * linear: ``sum_j lambda_j mu_j(x) + beta_t sqrt(sum_j lambda_j^2 sigma_j^2(x))``
    * Chebyshev: ``min_j lambda_j (mu_j(x) + beta_t sigma_j(x) - z_j)``

    averaged over the fixed weight sample (the MT paper's cumulative-regret variant, default) or
    for one ``lambda_t ~ P_lambda`` per round (``random_scalarization=True``, the original).

    Parameters
    ----------
    domain, kernel, n_tasks, scalarization, lam, n_weights, random_scalarization, seed : as
        :class:`ITKB` (``kernel`` is the scalar kernel of every objective).
    beta : a constant or another schedule ``t -> beta_t`` instead of the one above.
    """

    name = "MOBO"

    @renamed_parameters(eta="lam")
    def __init__(
        self,
        domain: Domain,
        kernel: Kernel,
        n_tasks: int,
        scalarization: Scalarization,
        lam: float = 0.1,
        beta: RadiusLike = None,
        n_weights: int = DEFAULT_N_WEIGHTS,
        random_scalarization: bool = False,
        seed: SeedLike = None,
    ) -> None:
        mt_kernel = IndependentTasks(check_kernel(kernel, domain.dim), n_tasks)
        super().__init__(
            domain, mt_kernel, scalarization, lam=lam, beta=beta, method="decoupled",
            n_weights=n_weights, random_scalarization=random_scalarization, seed=seed,
        )  # fmt: skip
        self._paria = paria_radius(domain.dim)

    def theorem_width(self) -> float:
        return self._paria(self.n_observations + 1)

    def component_mean_sd(self, X: ArrayLike | None) -> tuple[FloatArray, FloatArray]:
        """Per-objective ``mu_j`` and ``sigma_j``, each ``(m, n)``."""
        if X is None and self._tracked is not None:
            mean, cov = self._tracked.mean, self._tracked.task_cov
        else:
            mean, cov = self.posterior.predict(self._grid_or(X))
        return mean, np.sqrt(np.maximum(np.diagonal(cov, axis1=1, axis2=2), 0.0))

    def scores(self, X: ArrayLike | None = None, weight: FloatArray | None = None) -> FloatArray:
        mean, sd = self.component_mean_sd(X)
        beta = self.width()
        W = self.weights if weight is None else weight[None, :]  # (S, n)
        if isinstance(self.scalarization, ChebyshevScalarization):
            ucb = ucb_score(mean, sd, beta)[0]  # min_j lambda_j (mu_j + beta sigma_j - z_j)
            return self.scalarize(ucb, weight)
        # linear: lambda^T mu + beta sqrt(sum_j lambda_j^2 sigma_j^2), averaged over the weights
        spread = np.sqrt((sd**2) @ (W**2).T)  # (m, S)
        return ucb_score(mean @ W.mean(axis=0), spread.mean(axis=1), beta)[0]
