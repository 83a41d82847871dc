"""LIBO as an Optuna sampler: lifelong BO across a family of studies kept in one storage.

Schur, Kassraie, Rothfuss & Krause (2023), *Lifelong bandit optimization: no prior and no
regret*: Alg. 1 (META-KGL), Alg. 2 (LIBO), Alg. 5 (integer forced exploration), App. G.3
(meta-learning on all data). The library's own pieces are reused:
:class:`~kernelbandits.metalearning.MetaKGL` for the kernel,
:func:`~kernelbandits.policies.libo.integer_exploration` for the schedule,
:func:`kernelbandits.recipes.libo` (the meta-learned GP, usable from a
:class:`~kernelbandits.campaign.Campaign` without Optuna) for the proposals, and
:class:`~kernelbandits.integrations.optuna.RecipeSampler` for the glue. This module adds only
what is Optuna's: the family of studies in one storage and the forced-exploration schedule.

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
* **Where the family lives.** The family's studies are listed from ``storage``, the storage the
  user also passes to ``optuna.create_study`` (a URL or a storage object): Optuna has no public
  accessor for a study's storage, and this module uses public Optuna calls only
  (``optuna.study.get_all_study_names``, ``optuna.load_study``, ``Study.user_attrs``,
  ``Study.get_trials``). ``storage`` is therefore needed (it was not before): a sampler built
  without it warns (``DeprecationWarning``) and, for this release only, reads the study's
  storage from Optuna's private ``Study._storage`` (:func:`_deprecated_storage_of`, the one
  private Optuna access left, removed with the old call form). The current study
  is normally in ``storage`` too; if it is kept elsewhere (e.g. Optuna's default in-memory
  storage), its earlier studies are still the family's studies in ``storage`` that joined
  before it.
* **Order of the family.** When a study joins the family it is stamped with the time it joins
  (user attribute ``"kernelbandits_family_joined"``, :data:`JOINED_ATTR`, ``time.time_ns()``,
  written before :data:`FAMILY_ATTR`), and the *earlier* studies are the family's studies
  stamped before the current one, ordered by stamp (equal stamps by study name). Joining happens
  at a study's first trial (or by :func:`join_family`), so for studies run one after the other
  this is their creation order, and it is reproducible: the stamps are stored, so studies that
  join later, even if they already hold trials, are never used and a resumed study sees the same
  past (an order by Optuna's internal study ids, what this sampler used before, would need
  private Optuna API). Studies that joined before the stamp existed come first, in the order
  Optuna lists them (creation order in Optuna's own storages); a study not yet in the family
  counts every member as earlier. Machines with skewed clocks can misorder studies that join
  within the skew of each other.
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
  campaign of :class:`GPBOSampler` (Matern-5/2 ARD by type-II MAP) after forced exploration;
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
  Matern-5/2 ARD GP fitted by type-II MAP on the study's own trials
  (:func:`kernelbandits.recipes.libo.family_prior`),
  as :class:`GPBOSampler` fits its GP; ``model="meta-kernel"`` is Alg. 2's GP on the learned
  kernel itself.
* **Base policy**: expected improvement (``acquisition="ei"``, default) or GP-UCB (constant
  width ``beta``; Alg. 2) with the learned kernel (or the prior-informed GP), on the campaign
  :class:`GPBOSampler` rebuilds; pending trials are hallucinated (GP-BUCB) as there. With
  ``hyperparameters="map"`` the kernel's output scale and the noise variance are fitted on the
  study's own trials (:func:`kernelbandits.recipes.libo.fit_scale`); with ``"fixed"``, noise variance ``noise_var``
  (``1e-3`` on the standardised values, :class:`GPBOSampler`'s old default, not App. G's
  ``lambda_ucb^2 = 0.01``, tuned for noisy synthetic tasks; on the test family ``1e-2`` won
  6/8 seeds, ``1e-3`` 7/8). Each choice is measured in ``benchmarks/optuna_lifelong.py``
  (see the guide, ``docs/guide/asktell.md``).
* **Stateless.** Everything is rebuilt from the storage at every trial (the kernel's META-KGL
  fit is memoised by the earlier studies' data, so it is recomputed only when an earlier study
  changes; the output scale and noise are refitted at every trial), so ``load_study(...,
  sampler=LIBOSampler(family, seed=s, n_trials=n))`` resumes a study exactly, provided its
  earlier studies are finished.

Limitations: single-objective studies; the family's earlier studies are listed from the
``storage`` passed to the sampler, which must be the one holding the study. The model itself is the public recipe
:func:`kernelbandits.recipes.libo`, which a :class:`~kernelbandits.campaign.Campaign` runs
without Optuna (``previous_studies=[...]``).
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import optuna
from optuna.distributions import BaseDistribution
from optuna.study import StudyDirection
from optuna.trial import FrozenTrial, TrialState

from kernelbandits._deprecation import renamed_parameters, warn_renamed
from kernelbandits._validation import check_count
from kernelbandits.integrations.optuna._common import (
    _internal,
    _varying_intersection,
    completed_trials_of,
    search_space_from_distributions,
    studies_in,
)
from kernelbandits.integrations.optuna._sampler import RecipeSampler, settings
from kernelbandits.metalearning.dictionaries import CosineDictionary, SEDictionary
from kernelbandits.policies.libo import integer_exploration
from kernelbandits.recipes.libo import (
    LIBOOptions,
    LIBORecipe,
    MetaKernel,
    meta_kernel,
    task_data,
)
from kernelbandits.recipes.observations import Observations
from kernelbandits.space import SearchSpace

if TYPE_CHECKING:
    from optuna.storages import BaseStorage
    from optuna.study import Study


__all__ = [
    "FAMILY_ATTR",
    "JOINED_ATTR",
    "CosineDictionary",
    "FamilyKernel",
    "FamilyMismatchWarning",
    "LIBOSampler",
    "SEDictionary",
    "join_family",
]

#: the study user attribute naming a study's family
FAMILY_ATTR = "kernelbandits_family"
#: the study user attribute stamping when a study joined its family (``time.time_ns()``)
JOINED_ATTR = "kernelbandits_family_joined"


class FamilyMismatchWarning(UserWarning):
    """An earlier study of the family was skipped: its search space differs."""


def join_family(study: Study, family: str) -> None:
    """Mark ``study`` as a member of ``family`` (its user attribute :data:`FAMILY_ATTR`), joined
    now (:data:`JOINED_ATTR`, which orders the family: the module notes).

    ``ValueError`` if the study already belongs to another family.
    """
    if not isinstance(family, str) or not family:
        raise ValueError(f"family must be a non-empty string; got {family!r}")
    current = study.user_attrs.get(FAMILY_ATTR)
    if current is None:
        # the stamp first: a reader that sees the family sees when the study joined it
        study.set_user_attr(JOINED_ATTR, time.time_ns())
        study.set_user_attr(FAMILY_ATTR, family)
    elif current != family:
        raise ValueError(
            f"study {study.study_name!r} belongs to family {current!r}, not {family!r}"
        )


@dataclass(frozen=True)
class FamilyKernel(MetaKernel):
    """What LIBO knows before a study's next proposal: what META-KGL learnt from the family's
    earlier studies (:class:`~kernelbandits.recipes.libo.MetaKernel`: ``base``, ``names``,
    ``params``, ``estimate``, ``kernel``, ``selected_names``, ``selected_params``) and where
    the study stands in its family.

    Attributes
    ----------
    task : ``s``, the study's 1-based position in its family.
    n_forced : ``n~_s``, its number of forced-exploration trials.
    studies : names of the earlier studies whose trials META-KGL used (in family order).
    """

    task: int = 1
    n_forced: int = 0
    studies: tuple[str, ...] = ()


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


class LIBOSampler(RecipeSampler):
    """LIBO (Schur et al. 2023, Alg. 2) across the studies of a family (see the module notes).

    Parameters
    ----------
    family
        The family's name; the study joins it at its first trial.
    storage
        The storage holding the family's studies, the one given to ``optuna.create_study``: a
        URL (an :class:`optuna.storages.RDBStorage` is opened on it at first use) or a storage
        object (e.g. the :class:`optuna.storages.InMemoryStorage` the studies share): the
        earlier studies are listed from it (module notes, *Where the family lives*). Leaving it
        out is deprecated (it warns, and this release still finds the study's own storage).
    seed
        Seed of every random choice; proposals are a pure function of ``(seed, the study's
        trials, its earlier family studies)``. ``None`` draws one.
    n_trials
        The study's budget ``n``; sets the forced-exploration schedule (Alg. 5).
    **options
        The model's settings below, with the names and defaults of
        :func:`kernelbandits.recipes.libo` (checked by
        :class:`~kernelbandits.recipes.libo.LIBOOptions`; an unknown name is a ``TypeError``).
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
        and noise variance, fitted by type-II MAP at every proposal (:func:`kernelbandits.recipes.libo.fit_scale`), and
        the family's first study, which has no earlier study to learn a kernel from, is run as
        :class:`GPBOSampler` with type-II MAP hyperparameters; ``"fixed"``: the meta-learned
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
        (:func:`kernelbandits.recipes.libo.family_prior`: a selected parameter's lengthscale median is its shortest
        selected SE lengthscale, an unselected one's 2.0, nearly irrelevant), as
        :class:`GPBOSampler` fits it otherwise; so the model can express interactions between
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
        storage: str | BaseStorage | None = None,
        seed: int | None = None,
        n_trials: int,
        on_mismatch: Literal["raise", "skip"] = "raise",
        warm_start: bool = True,
        **options: Any,
    ) -> None:
        if not isinstance(family, str) or not family:
            raise ValueError(f"family must be a non-empty string; got {family!r}")
        if storage is None:
            warn_renamed(
                "LIBOSampler(family, ...) without storage=",
                "LIBOSampler(family, storage=..., ...) with the storage given to "
                "optuna.create_study",
            )
        elif not isinstance(storage, str | optuna.storages.BaseStorage):
            raise ValueError(
                "storage must be the family's Optuna storage (a URL or a storage object, the one "
                f"given to optuna.create_study); got {storage!r}"
            )
        n_trials = check_count(n_trials, "n_trials", minimum=1)
        if on_mismatch not in ("raise", "skip"):
            raise ValueError(f"on_mismatch must be 'raise' or 'skip'; got {on_mismatch!r}")
        if not isinstance(warm_start, bool):
            raise ValueError(f"warm_start must be True or False; got {warm_start!r}")
        self._options: LIBOOptions = settings(LIBOOptions, options, "LIBOSampler")
        super().__init__(seed=seed, n_startup_trials=1)
        self._storage = storage  # a URL is opened once, at first use (_family_storage)
        self.family = family
        self.n_trials = int(n_trials)
        self._on_mismatch = on_mismatch
        self._skip_warned: set[str] = set()
        self._warm_start = warm_start

    # -- the family -----------------------------------------------------------------------------
    def _family_storage(self, study: Study) -> BaseStorage:
        """``storage`` as a storage object (a URL opened once, as an RDBStorage); ``study``'s
        own storage when the sampler was built without one (deprecated)."""
        if self._storage is None:
            return _deprecated_storage_of(study)
        if isinstance(self._storage, str):
            self._storage = optuna.storages.RDBStorage(self._storage)
        return self._storage

    def _earlier(self, study: Study) -> list[Study]:
        """The family's studies that joined it before ``study`` did, in that order (the module
        notes, *Order of the family*)."""
        members = studies_in(self._family_storage(study), FAMILY_ATTR, self.family)
        order = {m.study_name: _joined(m, i) for i, m in enumerate(members)}
        if study.study_name in order:
            own = order[study.study_name]
        elif study.user_attrs.get(FAMILY_ATTR) == self.family:  # kept in another storage
            own = _joined(study, len(members))
        else:  # not in the family yet: every member is earlier
            own = (2, 0, "")
        earlier = [m for m in members if order[m.study_name] < own]
        return sorted(earlier, key=lambda m: order[m.study_name])

    def n_forced(self, study: Study) -> int:
        """``n~_s``: how many trials of ``study`` explore uniformly (Alg. 5)."""
        s = len(self._earlier(study)) + 1
        rates = [math.sqrt(self.n_trials) / u**0.25 for u in range(1, s + 1)]
        return min(integer_exploration(rates)[-1], self.n_trials)

    def _task_data(
        self,
        study: Study,
        fs: Study,
        search_space: dict[str, BaseDistribution],
        space: SearchSpace,
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """One earlier study as META-KGL's task ``(X (n_u, D), y (n_u,))``; ``None``: no data."""
        trials = completed_trials_of(fs)
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
        minimize = fs.directions[0] == StudyDirection.MINIMIZE
        direction: Literal["maximize", "minimize"] = "minimize" if minimize else "maximize"
        names = list(space.names)
        params = tuple({n: _internal(search_space[n], t.params[n]) for n in names} for t in trials)
        values = np.array([float(t.value or 0.0) for t in trials])
        return task_data(Observations(params, values, direction, fs.study_name), space)

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
        earlier = self._earlier(study)
        tasks, used = [], []
        for fs in earlier:
            data = self._task_data(study, fs, search_space, space)
            if data is not None:
                tasks.append(data)
                used.append(fs.study_name)
        o = self._options
        meta = meta_kernel(space, tasks, o.base_kernels, o.penalty, o.omega)
        return FamilyKernel(
            task=len(earlier) + 1,
            n_forced=self.n_forced(study),
            studies=tuple(used),
            base=meta.base,
            names=meta.names,
            params=meta.params,
            estimate=meta.estimate,
            kernel=meta.kernel,
        )

    # -- the sampler ----------------------------------------------------------------------------
    def recipe_for(
        self, space: SearchSpace, study: Study, search_space: dict[str, BaseDistribution]
    ) -> LIBORecipe:
        """:func:`kernelbandits.recipes.libo` on what META-KGL learns from the earlier studies
        (the family's first study: nothing learnt, the plain GP recipe with ``"map"``)."""
        family = self.family_kernel(study, search_space)
        return LIBORecipe(space, family, self._options)

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

    def _own_draw(
        self, study: Study, trial: FrozenTrial, name: str, dist: BaseDistribution
    ) -> tuple[Any] | None:
        """On a forced-exploration trial: the replayed best configuration of an earlier study
        (``warm_start``) or a uniform draw; otherwise ``None`` (as :class:`GPBOSampler`)."""
        if not self.is_forced(study, trial):
            return None
        slot = self._slot(study, trial)
        if self._warm_start:
            replay = self._earlier_best(study)
            if slot < len(replay) and replay[slot].get(name, (None,))[0] == dist:
                return (replay[slot][name][1],)
        s = len(self._earlier(study)) + 1
        sampler = self._random_sampler(name, s, slot)
        return (sampler.sample_independent(study, trial, name, dist),)

    def _earlier_best(self, study: Study) -> list[dict[str, tuple[BaseDistribution, Any]]]:
        """The best COMPLETE trial of each earlier study of the family, most recent first,
        as ``{name: (distribution, value)}``; repeated configurations are kept once."""
        out: list[dict[str, tuple[BaseDistribution, Any]]] = []
        for fs in reversed(self._earlier(study)):
            if len(fs.directions) > 1:
                continue
            sign = -1.0 if fs.directions[0] == StudyDirection.MINIMIZE else 1.0
            done = completed_trials_of(fs)
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


def _joined(study: Study, listed: int) -> tuple[int, int, str]:
    """Where ``study`` stands in its family (smaller: earlier): ``(1, stamp, name)`` for a study
    stamped when it joined (:data:`JOINED_ATTR`), ``(0, listed, "")`` for one that joined before
    the stamp existed (its position ``listed`` in Optuna's listing of the storage)."""
    stamp = study.user_attrs.get(JOINED_ATTR)
    if stamp is None:
        return (0, listed, "")
    return (1, int(stamp), study.study_name)


def _deprecated_storage_of(study: Study) -> BaseStorage:
    """``study``'s storage, read from Optuna's private ``Study._storage``: only for a
    :class:`LIBOSampler` built without ``storage=`` (deprecated; removed in the next release
    together with this function, the integration's one private Optuna access)."""
    storage: BaseStorage = study._storage
    return storage
