"""LIBO as an Optuna sampler: lifelong BO across a family of studies kept in one storage.

Schur, Kassraie, Rothfuss & Krause (2023), *Lifelong bandit optimization: no prior and no
regret*: Alg. 1 (META-KGL), Alg. 2 (LIBO), Alg. 5 (integer forced exploration), App. G.3
(meta-learning on all data). The library's own pieces are reused:
:class:`~kernelbandits.metalearning.MetaKGL` for the kernel,
:func:`~kernelbandits.policies.libo.integer_exploration` for the schedule and
:class:`~kernelbandits.integrations.optuna.GPUCBSampler` (via its ``_make_policy`` hook) for the
GP-UCB proposals.

Notation:
    family     a name; the studies of one family are LIBO's sequence of tasks
    s          the position (1-based) of the current study in its family: 1 + the number of
               the family's studies created before it in the storage
    n          ``n_trials``, the study's budget (Optuna does not know it, so the user says it)
    n~_s       the number of forced-exploration trials of the current study (Alg. 5)
    D          ``space.dim``, the dimension of the unit box the SearchSpace encodes to
    p          the number of base kernels

Decisions (each an ambiguous point of putting Alg. 2 into Optuna's sampler protocol):

* **Family membership.** A study belongs to family ``f`` when its user attribute
  ``"kernelbandits_family"`` (:data:`FAMILY_ATTR`) equals ``f``. The sampler sets it in
  ``before_trial`` (and raises ``ValueError`` if the study already belongs to another family);
  :func:`join_family` sets it by hand, e.g. for a first study run with another sampler.
* **Order of the family.** The *earlier* studies are the family's studies with a smaller study
  id, i.e. created before the current one in the same storage. Studies created later, even if
  they already hold trials, are never used, so a resumed study sees the same past.
* **Meta-learning data.** META-KGL is fitted on every COMPLETE trial (finite value) of every
  earlier study (App. G.3's "all data" variant), not only on their forced-exploration trials as
  in Alg. 2: those would be a handful of points per study, and studies run by other samplers
  can join the family. Each earlier study is one task: its configurations are encoded in the
  unit box by the current study's :class:`~kernelbandits.space.SearchSpace`, its values are
  signed by its own direction (maximised) and standardised within the study, ``(y - mean) /
  sd``, as :class:`~kernelbandits.campaign.Campaign` does for the current one. Studies with
  fewer than 2 such trials carry no information and are left out (they still count in ``s``).
* **Same search space.** An earlier study is usable only if the intersection search space of
  its COMPLETE trials (single-valued distributions left out) equals the current study's relative
  search space, names and distributions (bounds, ``log``, choices), and it is single-objective.
  Otherwise ``on_mismatch="raise"`` (default) raises ``ValueError`` naming the study and the
  difference; ``on_mismatch="skip"`` leaves it out with a :class:`FamilyMismatchWarning`
  (once per study name and sampler).
* **Base kernels.** The paper's 1-D cosine dictionary is made for one coordinate; on a
  d-dimensional box the default (:class:`SEDictionary`) is an *additive* dictionary of 1-D
  squared-exponential kernels, one per (parameter, lengthscale) with lengthscales 0.1 and 0.3 in
  unit-box units, each written with deterministic Fourier features (a Fourier series of the SE
  kernel, exact stationarity, ``k(u, u) = 1``), plus one one-hot kernel per Categorical. So
  ``p = 2 * #numeric + #categorical`` (6 for 3 floats) and META-KGL selects the parameters that
  matter and their scale; it fits in well under a second for 10 studies x 30 trials. Measured
  alternative: the paper's cosines put on every coordinate, one kernel per (coordinate,
  frequency) (:class:`CosineDictionary`), learn a very low-rank kernel whose UCB is pulled to
  the box's faces (cosines have their largest prior variance there); on the sparse test family
  it beat GP-UCB in 2/8 seeds (``penalty = 0.1``, noise ``1e-2``), the SE dictionary in 6/8
  (same settings) and 7/8 (defaults). The additive form cannot model interactions between
  parameters. Any ``base_kernels(space) -> BaseKernels`` can replace it.
* **First study** (no usable earlier study): with ``hyperparameters="map"`` (default) the
  campaign of :class:`GPUCBSampler` (Matern-5/2 ARD by type-II MAP) after forced exploration;
  with ``"fixed"``, ``k_full``, the mean of all base kernels (as Alg. 2 starts). ``k_full``
  is also used if META-KGL selects nothing (``KernelEstimate.fell_back``).
* **Forced exploration** (Alg. 2 with Alg. 5): rate ``n_s = sqrt(n) / s^{1/4}``; ``n~_s`` is
  Alg. 5's integer for task ``s``, with the residue carried over tasks ``1..s`` as if every
  earlier study had the current budget ``n`` (their budgets are not stored), capped at ``n``. A
  trial is forced when its *slot*, the number of earlier trials of the study that are not FAIL,
  is below ``n~_s`` (so a failed forced trial is retried with the same configuration). With
  ``warm_start=True`` (default) slot ``k`` first replays the best configuration of the ``k``-th
  most recent earlier study (each distinct configuration once; a parameter whose distribution
  differs there is drawn as below); the other forced trials' parameters are drawn uniformly
  (Optuna's RandomSampler, i.e. uniform on the unit box of the
  encoding, log-uniform for log-scaled parameters), seeded by ``(seed, s, slot, parameter
  name)``. If the forced trials are all done but none is COMPLETE (the relative search space is
  still unknown), trials keep being drawn this way.
* **Model** (``model``): by default META-KGL's selection is used as the lengthscale prior of a
  Matern-5/2 ARD GP fitted by type-II MAP on the study's own trials (:func:`_family_prior`),
  as :class:`GPUCBSampler` fits its GP; ``model="meta-kernel"`` is Alg. 2's GP on the learned
  kernel itself.
* **Base policy**: expected improvement (``acquisition="ei"``, default) or GP-UCB (constant
  width ``beta``; Alg. 2) with the learned kernel (or the prior-informed GP), on the campaign
  :class:`GPUCBSampler` rebuilds; pending trials are hallucinated (GP-BUCB) as there. With
  ``hyperparameters="map"`` the kernel's output scale and the noise variance are fitted on the
  study's own trials (:func:`_fit_scale`); with ``"fixed"``, noise variance ``noise_var``
  (``1e-3`` on the standardised values, :class:`GPUCBSampler`'s old default, not App. G's
  ``lambda_ucb^2 = 0.01``, tuned for noisy synthetic tasks; on the test family ``1e-2`` won
  6/8 seeds, ``1e-3`` 7/8). Each choice is measured in ``benchmarks/optuna_lifelong.py``
  (see the guide, ``docs/guide/asktell.md``).
* **Stateless.** Everything is rebuilt from the storage at every trial (the kernel's META-KGL
  fit is memoised by the earlier studies' data, so it is recomputed only when an earlier study
  changes; the output scale and noise are refitted at every trial), so ``load_study(...,
  sampler=LIBOSampler(family, seed=s, n_trials=n))`` resumes a study exactly, provided its
  earlier studies are finished.

Limitations: single-objective studies; reads the storage through ``study._storage`` (Optuna has
no public accessor for a study's storage).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from optuna.distributions import BaseDistribution
from optuna.study import StudyDirection
from optuna.trial import FrozenTrial, TrialState

from kernelbandits._deprecation import renamed_parameters
from kernelbandits._validation import check_count, check_positive, numeric_array
from kernelbandits.campaign import Trial, standardize
from kernelbandits.integrations.optuna._common import (
    _internal,
    _varying_intersection,
    search_space_from_distributions,
    study_direction,
)
from kernelbandits.integrations.optuna._gpucb import GPUCBSampler
from kernelbandits.kernels.base import Kernel
from kernelbandits.kernels.features import FeatureMap
from kernelbandits.metalearning.kgl import BaseKernels, KernelEstimate, MetaKGL
from kernelbandits.policies.libo import integer_exploration
from kernelbandits.regression.likelihood import HyperPrior
from kernelbandits.space import Categorical, SearchSpace, check_space

if TYPE_CHECKING:
    from optuna.storages import BaseStorage
    from optuna.study import Study

    from kernelbandits.campaign import PolicyFactory
    from kernelbandits.domains import Domain
    from kernelbandits.policies.base import Policy

__all__ = [
    "FAMILY_ATTR",
    "CosineDictionary",
    "FamilyKernel",
    "FamilyMismatchWarning",
    "LIBOSampler",
    "SEDictionary",
    "join_family",
]

#: the study user attribute naming a study's family
FAMILY_ATTR = "kernelbandits_family"

_SD_FLOOR = 1e-12


class FamilyMismatchWarning(UserWarning):
    """An earlier study of the family was skipped: its search space differs."""


def join_family(study: Study, family: str) -> None:
    """Mark ``study`` as a member of ``family`` (its user attribute :data:`FAMILY_ATTR`).

    ``ValueError`` if the study already belongs to another family.
    """
    if not isinstance(family, str) or not family:
        raise ValueError(f"family must be a non-empty string; got {family!r}")
    current = study.user_attrs.get(FAMILY_ATTR)
    if current is None:
        study.set_user_attr(FAMILY_ATTR, family)
    elif current != family:
        raise ValueError(
            f"study {study.study_name!r} belongs to family {current!r}, not {family!r}"
        )


#: period of the Fourier series of the SE kernels (on the unit interval, so images at >= 3 away)
_PERIOD = 4.0
#: spectral weights below this fraction of the largest are dropped
_SPECTRAL_CUTOFF = 1e-6


def _se_fourier(lengthscale: float) -> tuple[np.ndarray, np.ndarray]:
    """Frequencies ``omega_j`` and weights ``a_j`` (``sum a_j = 1``, ``j = 0..J``) with
    ``sum_j a_j cos(omega_j r) ~ exp(-r^2 / (2 l^2))`` on ``|r| <= 1``: the SE kernel made
    periodic with period 4 (Poisson summation), whose Fourier coefficients are its spectral
    density sampled at ``omega_j = 2 pi j / 4``; ``a_j`` for ``j >= 1`` counts ``+-omega_j``."""
    omega = 2.0 * np.pi / _PERIOD * np.arange(0, 200)
    a = np.exp(-0.5 * (omega * lengthscale) ** 2)
    a[1:] *= 2.0
    keep = a >= _SPECTRAL_CUTOFF * a[0]
    return omega[keep], a[keep] / a[keep].sum()


@dataclass
class _Columns:
    """The feature columns of a dictionary, ``(coordinate, omega, weight)`` (omega -1: the
    coordinate ``u`` itself), grouped into base kernels with a name and a parameter each."""

    cols: list[tuple[int, float, float]] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    params: list[str] = field(default_factory=list)

    def add(self, group: list[tuple[int, float, float]], name: str, param: str) -> None:
        """One base kernel whose features are the columns ``group``."""
        self.cols += group
        self.sizes.append(len(group))
        self.names.append(name)
        self.params.append(param)

    def add_categorical(self, prm: Categorical, block: slice) -> int:
        """The base kernel of a Categorical: its one-hot features ``u_c`` (``k = 1`` for the
        same choice, else 0) as columns ``(coordinate, -1, 1)``; returns their number."""
        group = [(c, -1.0, 1.0) for c in range(block.start, block.stop)]
        self.add(group, prm.name, prm.name)
        return len(group)


class _NamedKernels(BaseKernels):
    """Base kernels with a name and a parameter per kernel."""

    names: tuple[str, ...]
    params: tuple[str, ...]

    def __init__(
        self, features: Callable[[np.ndarray], np.ndarray], columns: _Columns, dim: int
    ) -> None:
        super().__init__(FeatureMap(features, len(columns.cols), input_dim=dim), columns.sizes)
        self.names = tuple(columns.names)
        self.params = tuple(columns.params)


class SEDictionary(_NamedKernels):
    """The default base kernels: 1-D squared-exponential kernels, one per (parameter,
    lengthscale), added up (an additive kernel on the unit box of ``space``).

    Base kernel ``(i, l)`` is ``exp(-(u_i - u'_i)^2 / (2 l^2))`` on the coordinate ``u_i`` of a
    Float / Int parameter, for each ``l`` in ``lengthscales`` (unit-box units), written with
    deterministic Fourier features (:func:`_se_fourier`: ``sqrt(a_j) cos(omega_j u)`` and
    ``sqrt(a_j) sin(omega_j u)``, 2J + 1 of them), so that META-KGL's group lasso applies; it is
    exactly stationary with ``k(u, u) = 1``. A Categorical gets one base kernel, its one-hot
    coordinates as features (``k = 1`` for the same choice, 0 otherwise). META-KGL thus selects
    the parameters that matter and the scale on which each varies.

    Attributes
    ----------
    names : ``"x@0.1"`` (parameter ``x``, lengthscale 0.1) or ``"kind"`` per kernel.
    params : the parameter each kernel belongs to.
    """

    def __init__(self, space: SearchSpace, lengthscales: tuple[float, ...] = (0.1, 0.3)) -> None:
        check_space(space)
        given = numeric_array(lengthscales, "lengthscales", "a tuple of numbers in (0, 2]")
        ls = [float(v) for v in given.reshape(-1)]
        if not ls or any(not (math.isfinite(v) and 0 < v <= 2) for v in ls):
            raise ValueError(f"lengthscales must lie in (0, 2]; got {lengthscales!r}")
        columns = _Columns()
        kinds: list[int] = []  # per column: 0 cos, 1 sin, 2 the coordinate itself
        for prm, block in zip(space.params, space.blocks, strict=True):
            if isinstance(prm, Categorical):
                kinds += [2] * columns.add_categorical(prm, block)
                continue
            for v in ls:
                omega, a = _se_fourier(v)
                group: list[tuple[int, float, float]] = []
                for w, aj in zip(omega, a, strict=True):
                    group.append((block.start, float(w), math.sqrt(aj)))
                    kinds.append(0)
                    if w > 0:
                        group.append((block.start, float(w), math.sqrt(aj)))
                        kinds.append(1)
                columns.add(group, f"{prm.name}@{v:g}", prm.name)
        idx = np.array([c for c, _, _ in columns.cols])
        omega_all = np.array([w for _, w, _ in columns.cols])
        scale = np.array([s for _, _, s in columns.cols])
        kind = np.array(kinds)

        def features(X: np.ndarray) -> np.ndarray:  # (m, dim) -> (m, d)
            U = X[:, idx]
            out = np.where(kind == 1, np.sin(U * omega_all), np.cos(U * omega_all))
            return scale * np.where(kind == 2, U, out)

        super().__init__(features, columns, space.dim)
        self.lengthscales = tuple(ls)


class CosineDictionary(_NamedKernels):
    """The paper's dictionary put on every coordinate: one base kernel per single feature
    ``cos(j pi u_i)``, ``j = 1..n_frequencies``, for each Float / Int parameter, and the one-hot
    coordinates of a Categorical as features of one kernel (as in :class:`SEDictionary`).

    META-KGL then selects frequencies too and the learned kernel is very low-rank (a parametric
    model); cosines also have a larger prior variance at the box's faces than inside it, which
    pulls UCB to the faces. Pass ``base_kernels=CosineDictionary`` to use it.

    Attributes
    ----------
    names : ``"x:cos(2 pi u)"`` or ``"kind"`` per kernel.
    params : the parameter each kernel belongs to.
    """

    def __init__(self, space: SearchSpace, n_frequencies: int = 8) -> None:
        check_space(space)
        n_frequencies = check_count(n_frequencies, "n_frequencies", minimum=1)
        columns = _Columns()
        for prm, block in zip(space.params, space.blocks, strict=True):
            if isinstance(prm, Categorical):
                columns.add_categorical(prm, block)
                continue
            for j in range(1, int(n_frequencies) + 1):
                columns.add([(block.start, np.pi * j, 1.0)], f"{prm.name}:cos({j} pi u)", prm.name)
        idx = np.array([c for c, _, _ in columns.cols])
        omega = np.array([w for _, w, _ in columns.cols])

        def features(X: np.ndarray) -> np.ndarray:  # (m, dim) -> (m, d)
            U = X[:, idx]
            return np.where(omega < 0, U, np.cos(U * omega))

        super().__init__(features, columns, space.dim)
        self.n_frequencies = int(n_frequencies)


@dataclass(frozen=True)
class FamilyKernel:
    """What LIBO knows before a study's next proposal.

    Attributes
    ----------
    task : ``s``, the study's 1-based position in its family.
    n_forced : ``n~_s``, its number of forced-exploration trials.
    studies : names of the earlier studies whose trials META-KGL used (in family order).
    base : the base kernels (``p`` of them).
    names : a name per base kernel.
    params : the parameter of each base kernel (``""`` if unknown, for a custom dictionary).
    estimate : META-KGL's result, ``None`` when no earlier study is usable.
    kernel : the kernel of the base policy (``k_full`` when ``estimate`` is ``None`` or fell
        back).
    """

    task: int
    n_forced: int
    studies: tuple[str, ...]
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


def _fit_scale(
    kernel: Kernel, space: SearchSpace, history: Sequence[Trial], direction: str
) -> tuple[Kernel, float]:
    """The meta-learned kernel shape with the current study's output scale and noise.

    META-KGL learns which base kernels matter and their relative weights from the earlier
    studies; the scale of the current study's standardised values around that shape, and its
    noise, are the current study's own. They are fitted by type-II MAP
    (:func:`~kernelbandits.regression.likelihood.fit_scale_and_noise`: ``y ~ N(0, v K + lam
    I)`` on the completed trials, standardised as the campaign tells them), with ``log v ~
    N(-log mean diag K, 1)`` (prior median: unit prior variance) and the default noise prior;
    before two trials are complete, the prior medians (and noise ``1e-3``).
    """
    from kernelbandits.kernels.base import Scaled
    from kernelbandits.regression.likelihood import fit_scale_and_noise

    sign = 1.0 if direction == "maximize" else -1.0
    done = [t for t in history if t.value is not None]
    X = np.array([space.encode(t.params) for t in done]).reshape(-1, space.dim)
    diag = float(np.mean(kernel.diag(X))) if len(done) else 1.0
    log_scale = -math.log(max(diag, _SD_FLOOR))
    if len(done) < 2:
        return Scaled(kernel, math.exp(log_scale)), 1e-3
    y, _, _ = standardize([sign * float(t.value or 0.0) for t in done])
    v, lam = fit_scale_and_noise(kernel(X), y, (log_scale, 1.0))
    return Scaled(kernel, v), lam


#: lengthscale prior median (unit box) of a parameter META-KGL did not select: nearly irrelevant
_UNSELECTED_LENGTHSCALE = 2.0


def _family_prior(family: FamilyKernel, space: SearchSpace) -> HyperPrior | None:
    """A lengthscale prior for a Matern-5/2 ARD GP from what META-KGL selected: the median of
    a parameter's lengthscale is the shortest lengthscale of its selected SE base kernels
    (``"x@0.1"``: 0.1), :data:`_UNSELECTED_LENGTHSCALE` if none of its kernels was selected,
    the default median for a selected categorical; log-sd 0.5. ``None`` when META-KGL fell back
    or the base kernels are not named ``param@lengthscale`` (a custom dictionary)."""
    if family.estimate is None or family.estimate.fell_back:
        return None
    default = 0.35 * math.sqrt(space.dim)
    medians = np.full(space.dim, _UNSELECTED_LENGTHSCALE)
    blocks = dict(zip(space.names, space.blocks, strict=True))
    for j in family.estimate.selected:
        name, param = family.names[j], family.params[j]
        if param not in blocks:
            return None
        scale = float(name.split("@", 1)[1]) if "@" in name else default
        block = blocks[param]
        medians[block] = np.minimum(medians[block], scale)
    return HyperPrior(lengthscale=(np.log(medians), 0.5))


def _completed(storage: BaseStorage, fs: Any) -> list[FrozenTrial]:
    """The COMPLETE trials with a finite value of the study ``fs`` (a FrozenStudy)."""
    return [
        t
        for t in storage.get_all_trials(fs._study_id, deepcopy=False, states=(TrialState.COMPLETE,))
        if t.value is not None and math.isfinite(t.value)
    ]


def _space_difference(
    theirs: dict[str, BaseDistribution], ours: dict[str, BaseDistribution]
) -> str:
    only_theirs = sorted(set(theirs) - set(ours))
    only_ours = sorted(set(ours) - set(theirs))
    changed = sorted(n for n in set(theirs) & set(ours) if theirs[n] != ours[n])
    parts = []
    if only_ours:
        parts.append(f"missing parameters {only_ours}")
    if only_theirs:
        parts.append(f"extra parameters {only_theirs}")
    if changed:
        parts.append(f"other distributions for {changed}")
    return "; ".join(parts)


class LIBOSampler(GPUCBSampler):
    """LIBO (Schur et al. 2023, Alg. 2) across the studies of a family (see the module notes).

    Parameters
    ----------
    family
        The family's name; the study joins it at its first trial.
    seed
        Seed of every random choice; proposals are a pure function of ``(seed, the study's
        trials, its earlier family studies)``. ``None`` draws one.
    n_trials
        The study's budget ``n``; sets the forced-exploration schedule (Alg. 5).
    beta
        GP-UCB's constant width.
    base_kernels
        ``space -> BaseKernels`` (e.g. :class:`CosineDictionary`, or
        ``lambda space: SEDictionary(space, (0.05, 0.2))``); ``None``: :class:`SEDictionary`.
    penalty, omega
        META-KGL's group-lasso weight (``lam=`` is the deprecated spelling) (per-task scale, see
        :mod:`kernelbandits.metalearning.kgl`) and selection threshold ``omega sqrt(s)``.
    noise_var
        GP noise variance on the standardised values.
    on_mismatch
        ``"raise"`` or ``"skip"`` (warn and leave out) an earlier study whose search space
        differs.
    hyperparameters
        ``"map"`` (default): the meta-learned kernel gets the current study's output scale
        and noise variance, fitted by type-II MAP at every proposal (:func:`_fit_scale`), and
        the family's first study, which has no earlier study to learn a kernel from, is run as
        :class:`GPUCBSampler` with type-II MAP hyperparameters; ``"fixed"``: the meta-learned
        (or base) kernel as it is, with ``noise_var`` (the behaviour before this option).
    acquisition
        ``"ei"`` (default; expected improvement, maximised as log EI) or ``"ucb"`` (GP-UCB
        with width ``beta``, Alg. 2's base policy) on the learned kernel, and on the first
        study's GP. Measured in ``benchmarks/optuna_lifelong.py`` (4 seeds, with
        ``warm_start=True``): cumulative regret over the HPOBench family 0.061 with EI against
        0.074 with UCB, over the GLMNET family 0.0031 against 0.0052.
    model
        How the earlier studies inform the current one's GP. ``"meta-prior"`` (default): META-KGL
        selects the base kernels that matter, and that selection becomes the lengthscale prior
        of a Matern-5/2 ARD GP fitted by type-II MAP on the study's own trials
        (:func:`_family_prior`: a selected parameter's lengthscale median is its shortest
        selected SE lengthscale, an unselected one's 2.0, nearly irrelevant), as
        :class:`GPUCBSampler` fits it otherwise; so the model can express interactions between
        parameters, which the additive learned kernel cannot. ``"meta-kernel"``: Alg. 2's
        GP on the learned kernel itself (its output scale and noise fitted with
        ``hyperparameters="map"``). A prior needs a MAP fit: with ``hyperparameters="fixed"``
        the learned kernel is used whatever ``model`` says. Measured with
        ``benchmarks/optuna_lifelong.py`` (4 seeds):
        cumulative regret over the HPOBench family 0.045 with ``"meta-prior"`` against 0.061
        with ``"meta-kernel"``, over the GLMNET family 0.0028 against 0.0031.
    warm_start
        ``True`` (default): the forced-exploration trials of a study first replay the best
        configuration of each earlier study of the family (most recent first, each once; a
        parameter whose distribution differs is drawn uniformly), then draw uniformly as Alg. 2
        does; ``False``: all uniform (Alg. 2 with Alg. 5).
    """

    @renamed_parameters(lam="penalty")
    def __init__(
        self,
        family: str,
        *,
        seed: int | None = None,
        n_trials: int,
        beta: float = 2.0,
        base_kernels: Callable[[SearchSpace], BaseKernels] | None = None,
        penalty: float = 0.2,
        omega: float = 0.25,
        noise_var: float = 1e-3,
        on_mismatch: Literal["raise", "skip"] = "raise",
        hyperparameters: Literal["fixed", "map"] = "map",
        warm_start: bool = True,
        acquisition: Literal["ucb", "ei"] = "ei",
        model: Literal["meta-kernel", "meta-prior"] = "meta-prior",
    ) -> None:
        if not isinstance(family, str) or not family:
            raise ValueError(f"family must be a non-empty string; got {family!r}")
        n_trials = check_count(n_trials, "n_trials", minimum=1)
        for name, value in (("penalty", penalty), ("omega", omega), ("noise_var", noise_var)):
            check_positive(value, name)
        if base_kernels is not None and not callable(base_kernels):
            raise ValueError(
                "base_kernels must be a callable space -> BaseKernels (e.g. SEDictionary) or "
                f"None; got {base_kernels!r}"
            )
        if on_mismatch not in ("raise", "skip"):
            raise ValueError(f"on_mismatch must be 'raise' or 'skip'; got {on_mismatch!r}")
        super().__init__(seed=seed, beta=beta, n_startup_trials=1, hyperparameters=hyperparameters)
        self.family = family
        self.n_trials = int(n_trials)
        self._base_kernels = base_kernels
        self._penalty, self._omega = float(penalty), float(omega)
        self._noise_var = float(noise_var)
        self._on_mismatch = on_mismatch
        self._skip_warned: set[str] = set()
        self._kernels: dict[bytes, KernelEstimate] = {}  # META-KGL fits by their data
        if not isinstance(warm_start, bool):
            raise ValueError(f"warm_start must be True or False; got {warm_start!r}")
        self._warm_start = warm_start
        if acquisition not in ("ucb", "ei"):
            raise ValueError(f"acquisition must be 'ucb' or 'ei'; got {acquisition!r}")
        self._libo_acquisition: Literal["ucb", "ei"] = acquisition
        if model not in ("meta-kernel", "meta-prior"):
            raise ValueError(f"model must be 'meta-kernel' or 'meta-prior'; got {model!r}")
        self._model = model

    # -- the family -----------------------------------------------------------------------------
    def _earlier(self, study: Study) -> list[Any]:
        """The family's studies created before ``study`` (FrozenStudy objects, in order)."""
        storage: BaseStorage = study._storage
        own = study._study_id
        return sorted(
            (
                fs
                for fs in storage.get_all_studies()
                if fs.user_attrs.get(FAMILY_ATTR) == self.family and fs._study_id < own
            ),
            key=lambda fs: fs._study_id,
        )

    def n_forced(self, study: Study) -> int:
        """``n~_s``: how many trials of ``study`` explore uniformly (Alg. 5)."""
        s = len(self._earlier(study)) + 1
        rates = [math.sqrt(self.n_trials) / u**0.25 for u in range(1, s + 1)]
        return min(integer_exploration(rates)[-1], self.n_trials)

    def _base(self, space: SearchSpace) -> tuple[BaseKernels, tuple[str, ...], tuple[str, ...]]:
        if self._base_kernels is None:
            se = SEDictionary(space)
            return se, se.names, se.params
        base = self._base_kernels(space)
        if not isinstance(base, BaseKernels):
            raise ValueError(f"base_kernels must return BaseKernels; got {type(base).__name__}")
        names = tuple(getattr(base, "names", [f"k{j}" for j in range(base.n_kernels)]))
        params = tuple(getattr(base, "params", [""] * base.n_kernels))
        return base, names, params

    def _task_data(
        self,
        storage: BaseStorage,
        fs: Any,
        search_space: dict[str, BaseDistribution],
        space: SearchSpace,
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """One earlier study as META-KGL's task ``(X (n_u, D), y (n_u,))``; ``None``: no data."""
        trials = _completed(storage, fs)
        if not trials:
            return None
        problem = _space_difference(_varying_intersection(trials), search_space)
        if len(fs.directions) > 1:
            problem = "it is multi-objective"
        if problem:
            message = (
                f"LIBOSampler: study {fs.study_name!r} of family {self.family!r} does not "
                f"share the current study's search space ({problem})"
            )
            if self._on_mismatch == "raise":
                raise ValueError(message + "; give it another family, or pass on_mismatch='skip'")
            if fs.study_name not in self._skip_warned:
                self._skip_warned.add(fs.study_name)
                warnings.warn(message + "; it is skipped", FamilyMismatchWarning, stacklevel=3)
            return None
        if len(trials) < 2:
            return None
        sign = -1.0 if fs.directions[0] == StudyDirection.MINIMIZE else 1.0
        names = list(space.names)
        X = np.array(
            [
                space.encode({n: _internal(search_space[n], t.params[n]) for n in names})
                for t in trials
            ]
        )
        return X, standardize([sign * float(t.value or 0.0) for t in trials])[0]

    def family_kernel(
        self, study: Study, search_space: dict[str, BaseDistribution] | None = None
    ) -> FamilyKernel:
        """META-KGL on the earlier studies of the family, for ``study``.

        ``search_space`` defaults to the intersection search space of ``study``'s trials;
        ``ValueError`` if that is empty (pass the distributions then).
        """
        if search_space is None:
            search_space = _varying_intersection(study.get_trials(deepcopy=False))
        space = search_space_from_distributions(search_space)
        if space is None:
            raise ValueError(
                "the study has no relative search space yet; pass search_space (distributions)"
            )
        base, names, params = self._base(space)
        earlier = self._earlier(study)
        tasks, used = [], []
        for fs in earlier:
            data = self._task_data(study._storage, fs, search_space, space)
            if data is not None:
                tasks.append(data)
                used.append(fs.study_name)
        estimate = None
        if tasks:
            estimate = self._meta_kgl(base, names, tasks)
        return FamilyKernel(
            task=len(earlier) + 1,
            n_forced=self.n_forced(study),
            studies=tuple(used),
            base=base,
            names=names,
            params=params,
            estimate=estimate,
            kernel=base.kernel(None) if estimate is None else estimate.kernel,
        )

    def _meta_kgl(
        self, base: BaseKernels, names: tuple[str, ...], tasks: list[tuple[np.ndarray, np.ndarray]]
    ) -> KernelEstimate:
        """META-KGL on ``tasks``, memoised by the bytes of the tasks' data and the base kernels'
        names: the kernel depends on the earlier studies only, so the trials of one study all
        reuse one fit (the group lasso was 0.56 s of a 0.70 s trial at the 8th study of a
        5-D family) while a change in an earlier study still refits."""
        from kernelbandits.campaign import fit_key

        arrays = [part for task in tasks for part in task]
        key = fit_key("|".join(names), arrays, [self._penalty, self._omega])
        if key not in self._kernels:
            if len(self._kernels) >= 8:
                self._kernels.pop(next(iter(self._kernels)))
            self._kernels[key] = MetaKGL(base, penalty=self._penalty, omega=self._omega).fit(tasks)
        return self._kernels[key]

    # -- the sampler ----------------------------------------------------------------------------
    def _make_policy(
        self,
        space: SearchSpace,
        study: Study,
        search_space: dict[str, BaseDistribution],
        history: Sequence[Trial],
    ) -> PolicyFactory:
        """The study's GP from what META-KGL learns on the earlier studies.

        With ``hyperparameters="map"``: the family's first study (nothing learnt yet) gets
        :func:`kernelbandits.campaign.gp` as :class:`GPUCBSampler`; later ones the same GP with
        the selection as its lengthscale prior (``model="meta-prior"``, :func:`_family_prior`),
        or the learned kernel with the study's own output scale and noise (``"meta-kernel"``,
        or a selection the prior cannot express, :func:`_fit_scale`). With ``"fixed"``: the
        learned kernel (``k_full`` first) with ``noise_var``, as Alg. 2. The acquisition is
        maximised by :class:`~kernelbandits.acquisition.BoxOptimizer` in every case."""
        from kernelbandits import campaign
        from kernelbandits.acquisition import BoxOptimizer
        from kernelbandits.policies.gp import GPEI, GPUCB

        family = self.family_kernel(study, search_space)
        kernel, noise_var = family.kernel, self._noise_var
        if self._hyperparameters == "map":
            if family.estimate is None:  # nothing learnt yet: GPUCBSampler's own GP
                return campaign.gp(space, self._libo_acquisition, beta=self._beta)
            prior = _family_prior(family, space) if self._model == "meta-prior" else None
            if prior is not None:  # the selection as the prior of a per-study MAP GP
                return campaign.gp(space, self._libo_acquisition, beta=self._beta, prior=prior)
            kernel, noise_var = _fit_scale(kernel, space, history, study_direction(study))
        beta = float(self._beta)
        optimizer = BoxOptimizer(projection=None if space.is_continuous else space.snap_rows)

        def factory(domain: Domain, seed: int) -> Policy:
            if self._libo_acquisition == "ei":
                return GPEI(domain, kernel, noise_var=noise_var, seed=seed, optimizer=optimizer)
            return GPUCB(
                domain, kernel, noise_var=noise_var, beta=beta, seed=seed, optimizer=optimizer
            )

        return factory

    def is_forced(self, study: Study, trial: FrozenTrial) -> bool:
        """Whether ``trial`` is one of the study's forced-exploration trials."""
        return self._slot(study, trial) < self.n_forced(study)

    def infer_relative_search_space(
        self, study: Study, trial: FrozenTrial
    ) -> dict[str, BaseDistribution]:
        """``{}`` for a forced-exploration trial, else the intersection search space."""
        self._check_single_objective(study)
        if self.is_forced(study, trial):
            return {}
        return super().infer_relative_search_space(study, trial)

    def sample_independent(
        self,
        study: Study,
        trial: FrozenTrial,
        param_name: str,
        param_distribution: BaseDistribution,
    ) -> Any:
        """Uniform draw on a forced-exploration trial; otherwise as :class:`GPUCBSampler`."""
        if not self.is_forced(study, trial):
            return super().sample_independent(study, trial, param_name, param_distribution)
        self._check_single_objective(study)
        slot = self._slot(study, trial)
        if self._warm_start:
            replay = self._earlier_best(study)
            if (
                slot < len(replay)
                and replay[slot].get(param_name, (None,))[0] == param_distribution
            ):
                return replay[slot][param_name][1]
        s = len(self._earlier(study)) + 1
        return self._random_sampler(param_name, s, slot).sample_independent(
            study, trial, param_name, param_distribution
        )

    def _earlier_best(self, study: Study) -> list[dict[str, tuple[BaseDistribution, Any]]]:
        """The best COMPLETE trial of each earlier study of the family, most recent first,
        as ``{name: (distribution, value)}``; repeated configurations are kept once."""
        storage: BaseStorage = study._storage
        out: list[dict[str, tuple[BaseDistribution, Any]]] = []
        for fs in reversed(self._earlier(study)):
            if len(fs.directions) > 1:
                continue
            sign = -1.0 if fs.directions[0] == StudyDirection.MINIMIZE else 1.0
            done = _completed(storage, fs)
            if not done:
                continue
            best = max(done, key=lambda t: sign * float(t.value or 0.0))
            config = {n: (best.distributions[n], v) for n, v in best.params.items()}
            if config not in out:
                out.append(config)
        return out

    def before_trial(self, study: Study, trial: FrozenTrial) -> None:
        """Join the family. ``ValueError`` if the study belongs to another one or is
        multi-objective (then it does not join), and the trial Optuna has just created for it is
        marked FAIL (so it is not left RUNNING, where it would take a slot of the study)."""
        try:
            self._check_single_objective(study)
            join_family(study, self.family)
        except ValueError:
            study.tell(trial.number, state=TrialState.FAIL)
            raise
