"""The BKB recipe: a Nystrom-sketched GP-UCB for long campaigns."""

from __future__ import annotations

from typing import Literal

from threadpoolctl import threadpool_limits

from kernelbandits._validation import FloatArray, check_positive
from kernelbandits.domains import Domain
from kernelbandits.kernels import Kernel, Matern
from kernelbandits.outcome import standardize
from kernelbandits.policies.base import Policy
from kernelbandits.policies.beta import BetaSchedule
from kernelbandits.policies.bkb import BKB
from kernelbandits.recipes.base import Prepared, beta_width, check_domain
from kernelbandits.recipes.gp import map_fit
from kernelbandits.space import SearchSpace, check_space

__all__ = ["BKBRecipe", "bkb"]


def bkb(
    space: SearchSpace,
    beta: float | str = 2.0,
    lengthscale: float = 0.2,
    noise_var: float = 1e-3,
    qbar: float = 4.0,
    hyperparameters: Literal["fixed", "map"] = "map",
) -> BKBRecipe:
    """BKB (Calandriello et al. 2019; a Nystrom-sketched GP-UCB) with the same defaults as
    :func:`~kernelbandits.recipes.gp_ucb`, for long campaigns where an exact GP becomes
    expensive.

    ``hyperparameters="map"`` (default) fits the Matern-5/2 ARD kernel and the noise variance
    as :func:`~kernelbandits.recipes.gp` does (:func:`~kernelbandits.recipes.gp.map_fit`, an
    exact-GP fit on the geometric schedule, O(n^3) per fit); ``"fixed"`` keeps the isotropic
    ``lengthscale`` and ``noise_var``. The policy is told the standardised values.
    """
    check_space(space)
    check_positive(lengthscale, "lengthscale")
    check_positive(noise_var, "noise_var")
    check_positive(qbar, "qbar")
    if hyperparameters not in ("fixed", "map"):
        raise ValueError(f"hyperparameters must be 'fixed' or 'map'; got {hyperparameters!r}")
    return BKBRecipe(
        space,
        beta_width(beta, noise_var),
        lengthscale,
        Matern(lengthscale, nu=2.5),
        noise_var,
        qbar,
        hyperparameters,
    )


class BKBRecipe:
    """The recipe :func:`bkb` returns (see :class:`~kernelbandits.recipes.gp.GPRecipe`)."""

    def __init__(
        self,
        space: SearchSpace,
        width: BetaSchedule | float,
        lengthscale: float,
        kernel: Kernel,
        noise_var: float,
        qbar: float,
        hyperparameters: str,
    ) -> None:
        self.space, self.width, self.lengthscale, self.kernel = space, width, lengthscale, kernel
        self.noise_var, self.qbar, self.hyperparameters = noise_var, qbar, hyperparameters

    def __call__(self, domain: Domain, seed: int) -> Policy:
        check_domain(self.space, domain)
        return BKB(
            domain,
            self.kernel,
            noise_var=self.noise_var,
            qbar=self.qbar,
            beta=self.width,
            seed=seed,
        )

    def prepare(self, X: FloatArray, values: FloatArray, seed: int) -> Prepared:
        """The fitted recipe (:meth:`fitted`, on one BLAS thread) and the standardised values."""
        with threadpool_limits(1, user_api="blas"):
            return Prepared(self.fitted(X, values, seed), standardize(values)[0])

    def fitted(self, X: FloatArray, y: FloatArray, seed: int) -> BKBRecipe:
        """A copy with the MAP kernel and noise of
        :func:`~kernelbandits.recipes.gp.map_fit` on ``X (n, d)``, ``y (n,)``."""
        if self.hyperparameters != "map" or y.size < 2:
            return self
        kernel, noise = map_fit(X, y, seed, self.lengthscale, self.noise_var)
        return BKBRecipe(
            self.space, self.width, self.lengthscale, kernel, noise, self.qbar, "fixed"
        )
