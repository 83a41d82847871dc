"""LIBO's meta-learned prior as a recipe: the kernel a new task gets from earlier tasks.

Schur, Kassraie, Rothfuss & Krause (2023), *Lifelong bandit optimization: no prior and no
regret*: META-KGL (Alg. 1, :class:`~kernelbandits.metalearning.MetaKGL`) selects, from a
dictionary of base kernels (:mod:`kernelbandits.metalearning.dictionaries`), the ones that
explain the earlier tasks' data (App. G.3's "all data" variant: every completed evaluation of
every earlier task, each task's values standardised within it). The new task's GP then uses
that selection:

* ``model="meta-prior"`` (default, with ``hyperparameters="map"``): as the lengthscale prior
  of a Matern-5/2 ARD GP fitted by type-II MAP on the task's own trials (:func:`family_prior`;
  the GP is :func:`kernelbandits.recipes.gp` with that prior);
* ``model="meta-kernel"``: Alg. 2's GP on the learned kernel itself (with
  ``hyperparameters="map"`` its output scale and noise fitted on the task's own trials,
  :func:`fit_scale`, the learner
  :class:`~kernelbandits.regression.hyperparameters.ScaleMaximumAPosteriori`).

With no usable earlier task the recipe is the plain :func:`~kernelbandits.recipes.gp`
(``"map"``) or Alg. 2's first kernel ``k_full``, the mean of all base kernels (``"fixed"``).
The forced exploration of Alg. 2 / Alg. 5 belongs to the driver (a campaign's ``n_init``;
:class:`~kernelbandits.integrations.optuna.LIBOSampler` schedules it across a family).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from kernelbandits._validation import FloatArray, check_positive
from kernelbandits.acquisition import BoxOptimizer
from kernelbandits.domains import Domain
from kernelbandits.kernels.base import Kernel
from kernelbandits.metalearning.dictionaries import SEDictionary
from kernelbandits.metalearning.kgl import BaseKernels, KernelEstimate, MetaKGL
from kernelbandits.outcome import standardize
from kernelbandits.policies.base import Policy
from kernelbandits.policies.gp import GPEI, GPUCB
from kernelbandits.recipes.base import Prepared, beta_width, check_beta, check_domain
from kernelbandits.recipes.gp import gp
from kernelbandits.recipes.observations import Observations, as_observations
from kernelbandits.regression.fit_cache import fit_key, memoised
from kernelbandits.regression.hyperparameters import ScaleMaximumAPosteriori
from kernelbandits.regression.likelihood import HyperPrior
from kernelbandits.space import SearchSpace, check_space

__all__ = [
    "LIBOOptions",
    "LIBORecipe",
    "MetaKernel",
    "family_prior",
    "fit_scale",
    "libo",
    "meta_kernel",
    "task_data",
]

Model = Literal["meta-kernel", "meta-prior"]

#: lengthscale prior median (unit box) of a parameter META-KGL did not select: nearly irrelevant
UNSELECTED_LENGTHSCALE = 2.0


@dataclass(frozen=True)
class MetaKernel:
    """What META-KGL learnt from the earlier tasks.

    Attributes
    ----------
    base : the base kernels (``p`` of them).
    names : a name per base kernel.
    params : the parameter of each base kernel (``""`` if unknown, for a custom dictionary).
    estimate : META-KGL's result, ``None`` when no earlier task is usable.
    kernel : the learned kernel (``k_full`` when ``estimate`` is ``None`` or fell back).
    """

    base: BaseKernels
    names: tuple[str, ...]
    params: tuple[str, ...]
    estimate: KernelEstimate | None
    kernel: Kernel

    @property
    def selected_names(self) -> tuple[str, ...]:
        """Names of the selected base kernels (empty for ``k_full``)."""
        if self.estimate is None or self.estimate.fell_back:
            return ()
        return tuple(self.names[j] for j in self.estimate.selected)

    @property
    def selected_params(self) -> tuple[str, ...]:
        """Sorted names of the parameters the selected kernels depend on."""
        if self.estimate is None or self.estimate.fell_back:
            return ()
        return tuple(sorted({self.params[j] for j in self.estimate.selected}))


def base_kernels_for(
    space: SearchSpace, base_kernels: Callable[[SearchSpace], BaseKernels] | None
) -> tuple[BaseKernels, tuple[str, ...], tuple[str, ...]]:
    """The dictionary for ``space`` (``None``: :class:`SEDictionary`), its names and params."""
    if base_kernels is None:
        se = SEDictionary(space)
        return se, se.names, se.params
    base = base_kernels(space)
    if not isinstance(base, BaseKernels):
        raise ValueError(f"base_kernels must return BaseKernels; got {type(base).__name__}")
    names = tuple(getattr(base, "names", [f"k{j}" for j in range(base.n_kernels)]))
    params = tuple(getattr(base, "params", [""] * base.n_kernels))
    return base, names, params


def task_data(observations: Observations, space: SearchSpace) -> tuple[FloatArray, FloatArray]:
    """One earlier task as META-KGL's ``(X (n, D), y (n,))``: encoded in ``space``, values
    made larger-is-better and standardised within the task."""
    values = [observations.sign * float(v) for v in observations.values]
    return observations.encode(space), standardize(values)[0]


def meta_kernel(
    space: SearchSpace,
    tasks: Sequence[tuple[FloatArray, FloatArray]],
    base_kernels: Callable[[SearchSpace], BaseKernels] | None = None,
    penalty: float = 0.2,
    omega: float = 0.25,
) -> MetaKernel:
    """META-KGL on ``tasks`` (each ``(X (n_u, D), y (n_u,))``, see :func:`task_data`), memoised
    in-process by the tasks' data and the dictionary's names
    (:mod:`~kernelbandits.regression.fit_cache`): the group lasso is the expensive part of a
    LIBO proposal and depends on the earlier tasks only."""
    base, names, params = base_kernels_for(space, base_kernels)
    estimate = None
    if tasks:
        arrays = [part for task in tasks for part in task]
        key = fit_key("|".join(names), arrays, [penalty, omega])
        estimate = memoised(
            key, lambda: MetaKGL(base, penalty=penalty, omega=omega).fit(list(tasks))
        )
    kernel = base.kernel(None) if estimate is None else estimate.kernel
    return MetaKernel(base, names, params, estimate, kernel)


def fit_scale(
    kernel: Kernel, X: FloatArray, values: FloatArray, seed: int = 0
) -> tuple[Kernel, float]:
    """The meta-learned kernel shape with the current task's output scale and noise: what
    :class:`~kernelbandits.regression.hyperparameters.ScaleMaximumAPosteriori` fits to the
    completed trials ``X (n, d)`` and their values ``(n,)`` (standardised), ``Scaled(kernel,
    v)`` and the noise variance, by type-II MAP with ``log v ~ N(-log mean diag K, 1)`` (prior
    median: unit prior variance) and the default noise prior; before two trials are complete,
    the prior medians (and noise ``1e-3``). ``seed`` is passed on (the fit draws nothing)."""
    learner = ScaleMaximumAPosteriori()
    return learner.fit_history(learner.prior_median(kernel, X), X, values, seed)


def family_prior(meta: MetaKernel, space: SearchSpace) -> HyperPrior | None:
    """A lengthscale prior for a Matern-5/2 ARD GP from what META-KGL selected: the median of
    a parameter's lengthscale is the shortest lengthscale of its selected SE base kernels
    (``"x@0.1"``: 0.1), :data:`UNSELECTED_LENGTHSCALE` if none of its kernels was selected,
    the default median for a selected categorical; log-sd 0.5. ``None`` when META-KGL fell back
    or the base kernels are not named ``param@lengthscale`` (a custom dictionary)."""
    if meta.estimate is None or meta.estimate.fell_back:
        return None
    default = 0.35 * math.sqrt(space.dim)
    medians = np.full(space.dim, UNSELECTED_LENGTHSCALE)
    blocks = dict(zip(space.names, space.blocks, strict=True))
    for j in meta.estimate.selected:
        name, param = meta.names[j], meta.params[j]
        if param not in blocks:
            return None
        scale = float(name.split("@", 1)[1]) if "@" in name else default
        block = blocks[param]
        medians[block] = np.minimum(medians[block], scale)
    return HyperPrior(lengthscale=(np.log(medians), 0.5))


@dataclass(frozen=True)
class LIBOOptions:
    """The settings of :func:`libo` (see there), checked on construction."""

    beta: float | str = 2.0
    base_kernels: Callable[[SearchSpace], BaseKernels] | None = None
    penalty: float = 0.2
    omega: float = 0.25
    noise_var: float = 1e-3
    hyperparameters: Literal["fixed", "map"] = "map"
    acquisition: Literal["ucb", "ei"] = "ei"
    model: Model = "meta-prior"

    def __post_init__(self) -> None:
        for name in ("penalty", "omega", "noise_var"):
            object.__setattr__(self, name, check_positive(getattr(self, name), name))
        object.__setattr__(self, "beta", check_beta(self.beta))
        if self.beta == "theory" and self.hyperparameters == "fixed":
            raise ValueError(
                "beta='theory' (the IGP-UCB schedule) needs hyperparameters='map'; with "
                "'fixed' give beta as a number"
            )
        if self.base_kernels is not None and not callable(self.base_kernels):
            raise ValueError(
                "base_kernels must be a callable space -> BaseKernels (e.g. SEDictionary) or "
                f"None; got {self.base_kernels!r}"
            )
        if self.hyperparameters not in ("fixed", "map"):
            raise ValueError(
                f"hyperparameters must be 'fixed' or 'map'; got {self.hyperparameters!r}"
            )
        if self.acquisition not in ("ucb", "ei"):
            raise ValueError(f"acquisition must be 'ucb' or 'ei'; got {self.acquisition!r}")
        if self.model not in ("meta-kernel", "meta-prior"):
            raise ValueError(f"model must be 'meta-kernel' or 'meta-prior'; got {self.model!r}")


def libo(
    space: SearchSpace,
    previous_studies: Sequence[object],
    *,
    beta: float | str = 2.0,
    base_kernels: Callable[[SearchSpace], BaseKernels] | None = None,
    penalty: float = 0.2,
    omega: float = 0.25,
    noise_var: float = 1e-3,
    hyperparameters: Literal["fixed", "map"] = "map",
    acquisition: Literal["ucb", "ei"] = "ei",
    model: Model = "meta-prior",
) -> LIBORecipe:
    """LIBO's meta-learned GP on the unit box of ``space`` (see the module notes).

    Parameters
    ----------
    previous_studies : the earlier tasks, in order, each a finished
        :class:`~kernelbandits.campaign.Campaign`, a sequence of
        :class:`~kernelbandits.campaign.Trial` (maximised) or
        :class:`~kernelbandits.recipes.Observations`, with configurations in ``space``. Tasks
        with fewer than 2 completed evaluations carry no information and are left out.
    beta : GP-UCB's constant width (``acquisition="ucb"``); ``"theory"`` (IGP-UCB's schedule,
        :func:`~kernelbandits.recipes.beta_width`) only with ``hyperparameters="map"``.
    base_kernels : ``space -> BaseKernels`` (``None``:
        :class:`~kernelbandits.metalearning.dictionaries.SEDictionary`).
    penalty, omega : META-KGL's group-lasso weight and selection threshold ``omega sqrt(s)``.
    noise_var : the GP noise variance with ``hyperparameters="fixed"``.
    hyperparameters, acquisition, model : see the module notes; the acquisition is expected
        improvement (``"ei"``, default) or GP-UCB (``"ucb"``, Alg. 2).
    """
    check_space(space)
    options = LIBOOptions(
        beta, base_kernels, penalty, omega, noise_var, hyperparameters, acquisition, model
    )
    if isinstance(previous_studies, str | bytes) or not isinstance(previous_studies, Sequence):
        raise ValueError(
            f"previous_studies must be a sequence of campaigns or trial lists; "
            f"got {type(previous_studies).__name__}"
        )
    studies = [as_observations(s, f"previous_studies[{i}]") for i, s in enumerate(previous_studies)]
    tasks = [task_data(s, space) for s in studies if s.values.size >= 2]
    meta = meta_kernel(space, tasks, options.base_kernels, options.penalty, options.omega)
    return LIBORecipe(space, meta, options)


class LIBORecipe:
    """The recipe :func:`libo` returns, holding the learned :class:`MetaKernel` (``meta``)."""

    def __init__(self, space: SearchSpace, meta: MetaKernel, options: LIBOOptions) -> None:
        self.space, self.meta, self.options = space, meta, options

    def __call__(self, domain: Domain, seed: int) -> Policy:
        return self.prepare(np.zeros((0, self.space.dim)), np.zeros(0), seed).factory(domain, seed)

    def prepare(self, X: FloatArray, values: FloatArray, seed: int) -> Prepared:
        """The task's GP for its completed trials ``X (n, d)``, ``values (n,)``."""
        space, o = self.space, self.options
        kernel, noise_var = self.meta.kernel, o.noise_var
        if o.hyperparameters == "map":
            if self.meta.estimate is None:  # nothing learnt yet: the plain GP recipe
                return gp(space, o.acquisition, beta=o.beta).prepare(X, values, seed)
            prior = family_prior(self.meta, space) if o.model == "meta-prior" else None
            if prior is not None:  # the selection as the prior of a per-task MAP GP
                recipe = gp(space, o.acquisition, beta=o.beta, prior=prior)
                return recipe.prepare(X, values, seed)
            X_done = np.asarray(X, dtype=float).reshape(-1, space.dim)
            kernel, noise_var = fit_scale(kernel, X_done, values, seed)
        beta, acquisition = beta_width(o.beta, noise_var), o.acquisition
        optimizer = BoxOptimizer(projection=None if space.is_continuous else space.snap_rows)

        def factory(domain: Domain, policy_seed: int) -> Policy:
            check_domain(space, domain)
            if acquisition == "ei":
                return GPEI(
                    domain, kernel, noise_var=noise_var, seed=policy_seed, optimizer=optimizer
                )
            return GPUCB(
                domain,
                kernel,
                noise_var=noise_var,
                beta=beta,
                seed=policy_seed,
                optimizer=optimizer,
            )

        return Prepared(factory, standardize(values)[0])
