"""Shared pieces of the Optuna samplers: distributions <-> search spaces, trial histories."""

from __future__ import annotations

import datetime
import functools
import math
import weakref
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal

try:
    import optuna
    from optuna.distributions import (
        BaseDistribution,
        CategoricalDistribution,
        FloatDistribution,
        IntDistribution,
    )
    from optuna.exceptions import UpdateFinishedTrialError
    from optuna.search_space import IntersectionSearchSpace, intersection_search_space
    from optuna.trial import FrozenTrial, TrialState
except ImportError as exc:  # pragma: no cover - exercised only without optuna
    raise ImportError(
        "kernelbandits.integrations.optuna needs Optuna: pip install 'kernelbandits[optuna]'"
    ) from exc


import numpy as np

from kernelbandits._validation import check_count
from kernelbandits.campaign import Trial
from kernelbandits.space import Categorical, Float, Int, Param, SearchSpace

if TYPE_CHECKING:
    from optuna.storages import BaseStorage
    from optuna.study import Study

__all__ = [
    "PROPOSAL_ATTR",
    "IndependentSamplingWarning",
    "completed_trials_of",
    "fail_stale_running_trials",
    "observed_history",
    "propose_apart",
    "record_key",
    "record_on_trial",
    "recorded",
    "search_space_from_distributions",
    "studies_in",
    "study_direction",
]


class IndependentSamplingWarning(UserWarning):
    """A parameter outside the relative search space was sampled by the independent sampler."""


def _stepped(dist: BaseDistribution) -> bool:
    """A float with ``step`` or an int with ``step > 1``: modelled on its lattice index."""
    if isinstance(dist, FloatDistribution):
        return dist.step is not None
    return isinstance(dist, IntDistribution) and dist.step != 1


def _lattice_size(dist: FloatDistribution | IntDistribution) -> int:
    """The largest index ``k`` with ``low + k step <= high`` (Optuna has adjusted ``high``)."""
    assert dist.step is not None
    return math.floor((dist.high - dist.low) / dist.step + 1e-8)


def _param_from_distribution(name: str, dist: BaseDistribution) -> Param:
    """Our parameter for one Optuna distribution; unsupported distributions raise ValueError.

    A categorical parameter is encoded by choice *index* (``0..k-1``), so any Optuna choice type
    (``None``, bools, numbers, strings) works; :func:`_external` maps the index back. A stepped
    parameter (``FloatDistribution(step=s)``, ``IntDistribution(step=k > 1)``) is encoded by its
    lattice index ``0..K`` (value ``low + index * step``): the GP sees an integer on the same
    linear scale, and every proposal is a valid value of the distribution.
    """
    if isinstance(dist, FloatDistribution | IntDistribution) and _stepped(dist):
        return Int(name, 0, _lattice_size(dist))
    if isinstance(dist, FloatDistribution):
        return Float(name, float(dist.low), float(dist.high), log=bool(dist.log))
    if isinstance(dist, IntDistribution):
        return Int(name, int(dist.low), int(dist.high), log=bool(dist.log))
    if isinstance(dist, CategoricalDistribution):
        return Categorical(name, tuple(range(len(dist.choices))))
    raise ValueError(
        f"parameter {name!r}: unsupported distribution {type(dist).__name__} for GPBOSampler"
    )


def search_space_from_distributions(
    distributions: dict[str, BaseDistribution],
) -> SearchSpace | None:
    """The :class:`~kernelbandits.space.SearchSpace` of Optuna ``distributions``.

    Single-valued distributions (Optuna fixes those itself) are left out; ``None`` when nothing
    is left. Raises ``ValueError`` for a distribution the sampler does not support.
    """
    if not isinstance(distributions, Mapping) or not all(
        isinstance(d, BaseDistribution) for d in distributions.values()
    ):
        raise ValueError(
            f"distributions must map parameter names to Optuna distributions; got {distributions!r}"
        )
    try:
        return _search_space(tuple(sorted(distributions.items())))
    except TypeError:  # an unhashable distribution (not Optuna's own): built without the memo
        return _search_space.__wrapped__(tuple(sorted(distributions.items())))


@functools.lru_cache(maxsize=64)
def _search_space(items: tuple[tuple[str, BaseDistribution], ...]) -> SearchSpace | None:
    """:func:`search_space_from_distributions` of the sorted ``(name, distribution)`` pairs,
    memoised: the same space object for every proposal of a study, so that its memo of encoded
    trials (:meth:`SearchSpace.encode`) carries from one proposal to the next."""
    params = [_param_from_distribution(name, dist) for name, dist in items if not dist.single()]
    return SearchSpace(params) if params else None


def _varying_intersection(trials: list[FrozenTrial]) -> dict[str, BaseDistribution]:
    """Optuna's intersection search space of ``trials`` without its single-valued distributions
    (Optuna fixes those itself): the relative search space the samplers model."""
    return {n: d for n, d in intersection_search_space(trials).items() if not d.single()}


#: one Optuna ``IntersectionSearchSpace`` per Study object (it reads only the trials finished
#: since its last call; :func:`study_intersection`)
_INTERSECTIONS: weakref.WeakKeyDictionary[Study, IntersectionSearchSpace] = (
    weakref.WeakKeyDictionary()
)


def study_intersection(study: Study) -> dict[str, BaseDistribution]:
    """:func:`_varying_intersection` of all of ``study``'s trials, kept up to date incrementally
    (Optuna's ``IntersectionSearchSpace``, one per Study object: at 1,000 trials recomputing it
    from every trial at every proposal took about a tenth of a proposal)."""
    try:
        calculator = _INTERSECTIONS.get(study)
        if calculator is None:
            calculator = _INTERSECTIONS[study] = IntersectionSearchSpace()
    except TypeError:  # not weak-referenceable (not an Optuna Study): computed afresh
        return _varying_intersection(study.get_trials(deepcopy=False))
    return {n: d for n, d in calculator.calculate(study).items() if not d.single()}


def _internal(dist: BaseDistribution, value: Any) -> Any:
    """Optuna external value -> the value our SearchSpace holds."""
    if isinstance(dist, CategoricalDistribution):
        return int(dist.to_internal_repr(value))
    if isinstance(dist, FloatDistribution | IntDistribution) and _stepped(dist):
        assert dist.step is not None
        return round((float(value) - dist.low) / dist.step)
    if isinstance(dist, IntDistribution):
        return int(value)
    return float(value)


def _external(dist: BaseDistribution, value: Any) -> Any:
    """The value our SearchSpace proposed -> an Optuna external value inside ``dist``."""
    if isinstance(dist, CategoricalDistribution):
        return dist.choices[int(value)]
    if isinstance(dist, FloatDistribution | IntDistribution) and _stepped(dist):
        assert dist.step is not None
        index = min(max(round(float(value)), 0), _lattice_size(dist))
        lattice = dist.low + index * dist.step
        if isinstance(dist, IntDistribution):
            return int(min(lattice, dist.high))
        return float(min(lattice, dist.high))
    if isinstance(dist, IntDistribution):
        return int(min(max(int(value), dist.low), dist.high))
    assert isinstance(dist, FloatDistribution)
    return float(min(max(float(value), dist.low), dist.high))


def fail_stale_running_trials(
    study: Study,
    *,
    older_than: float | None = None,
    failed_trial_callback: Callable[[Study, FrozenTrial], None] | None = None,
) -> list[int]:
    """Mark RUNNING trials of ``study`` FAIL; returns the numbers of those this call failed.

    With ``older_than=None`` every RUNNING trial: call it when resuming a study whose worker was
    killed, and only when no other worker is alive. With ``older_than=s`` (seconds) only the
    trials started more than ``s`` seconds ago (``datetime_start``, the clock of the worker that
    started it: ``s`` must exceed the longest trial and the clock skew between machines): the
    stale-trial check of a storage without Optuna's heartbeat, such as a journal file, run by
    every worker, e.g. as an ``optimize`` callback. On an RDB storage use Optuna's heartbeat
    instead (``RDBStorage(url, heartbeat_interval=..., grace_period=...)``, whose stale trials
    ``study.optimize`` fails by itself). ``failed_trial_callback(study, trial)`` is called on each
    trial this call failed, e.g. :class:`optuna.storages.RetryFailedTrialCallback` to retry it
    (when two workers fail the same trial at once, the storage lets one of them: one retry).

    A FAIL trial is invisible to :class:`GPBOSampler`, so it is no longer pending, and a resumed
    study proposes exactly what the uninterrupted one would have.
    """
    if not isinstance(study, optuna.Study):
        raise ValueError(f"study must be an optuna Study; got {study!r}")
    if older_than is not None and not (
        isinstance(older_than, int | float) and older_than >= 0 and math.isfinite(older_than)
    ):
        raise ValueError(f"older_than must be a number of seconds >= 0 or None; got {older_than!r}")
    if failed_trial_callback is not None and not callable(failed_trial_callback):
        raise ValueError(
            f"failed_trial_callback must be callable or None; got {failed_trial_callback!r}"
        )
    now = datetime.datetime.now()
    failed = []
    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        start = t.datetime_start
        if older_than is not None and (
            start is None or (now - start).total_seconds() <= older_than
        ):
            continue
        try:
            study.tell(t.number, state=TrialState.FAIL)
        except (ValueError, UpdateFinishedTrialError):
            continue  # another worker finished or failed it meanwhile
        failed.append(t.number)
        if failed_trial_callback is not None:
            frozen = [f for f in study.get_trials(deepcopy=True) if f.number == t.number]
            failed_trial_callback(study, frozen[0])
    return failed


def complete_trials(study: Study, objective: Callable[[optuna.Trial], Any], n_trials: int) -> int:
    """Run ``objective`` until ``study`` holds ``n_trials`` COMPLETE trials; returns how many
    trials this call ran. A study resumed after a crash (or simply run again) completes the
    missing ones and no more: this is what ``--n-trials`` means in the examples, so that running
    one twice does not double its budget."""
    n = check_count(n_trials, "n_trials", 0)
    done = len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))
    todo = max(0, n - done)
    if todo:
        study.optimize(objective, n_trials=todo)
    return todo


def study_direction(study: Study) -> Literal["maximize", "minimize"]:
    """The direction of a single-objective study, as :class:`~kernelbandits.campaign.Campaign`
    names it; ``ValueError`` for anything but an Optuna study with one objective."""
    if not isinstance(study, optuna.Study):
        raise ValueError(f"study must be a single-objective optuna Study; got {study!r}")
    if len(study.directions) != 1:
        raise ValueError(
            "study must be a single-objective optuna Study; this one has "
            f"{len(study.directions)} objectives"
        )
    minimize = study.direction == optuna.study.StudyDirection.MINIMIZE
    return "minimize" if minimize else "maximize"


#: the key under which a sampler records a proposal as soon as it is made (one study user
#: attribute per trial, :func:`record_key`), so that other workers see the trial as pending before
#: Optuna stores its parameters
PROPOSAL_ATTR = "kernelbandits:proposal"


# -- Optuna's storage ------------------------------------------------------------------------------
# Only public Optuna calls (tests/integrations/optuna/test_optuna_public_api.py checks it). Optuna
# has no public call that writes an attribute of a running trial from a sampler (a sampler is
# handed a FrozenTrial; Trial.set_system_attr is gone), so what a sampler records about a trial
# is a *study* user attribute keyed by the trial's number (:func:`record_key`): public, shared
# through every storage, and readable from any handle on the study (:func:`recorded`). Nor can a
# study's storage be reached from the study: the studies of a storage are listed from the storage
# the user passes (:func:`studies_in`).


class StudyRecords(Mapping[str, Any]):
    """A study's user attributes (the samplers' records, :func:`record_on_trial`), read from the
    storage on first use only. Optuna deep-copies every user attribute on each read, one record
    per trial, so a read costs O(trials); a study run by one worker has no running trial whose
    proposal must be looked up, and never pays it."""

    def __init__(self, study: Study) -> None:
        self._study = study
        self._attrs: dict[str, Any] | None = None

    def _read(self) -> dict[str, Any]:
        if self._attrs is None:
            self._attrs = self._study.user_attrs
        return self._attrs

    def __getitem__(self, key: str) -> Any:
        return self._read()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())


def record_key(record: str, number: int) -> str:
    """The study user attribute holding ``record`` (e.g. :data:`PROPOSAL_ATTR`) of trial
    ``number``: ``"<record>:<number>"`` (e.g. ``"kernelbandits:proposal:12"``)."""
    return f"{record}:{int(number)}"


def record_on_trial(study: Study, trial: FrozenTrial, key: str, value: Any) -> None:
    """Record ``value`` (JSON-serialisable) as ``key`` of the running ``trial``, at once, in the
    study user attribute :func:`record_key` ``(key, trial.number)``: other workers, in this process
    or sharing the storage, see it before Optuna stores the trial's parameters."""
    study.set_user_attr(record_key(key, trial.number), value)


def recorded(study: Study, trial: FrozenTrial | int, record: str) -> Any:
    """What a sampler recorded as ``record`` (e.g. :data:`PROPOSAL_ATTR`) of ``trial`` (a
    FrozenTrial or a trial number) of ``study`` (:func:`record_on_trial`); ``None`` if nothing.
    Any handle on the study reads it, e.g. ``optuna.load_study`` in another process."""
    number = trial if isinstance(trial, int) else trial.number
    return study.user_attrs.get(record_key(record, number))


def studies_in(storage: str | BaseStorage, user_attr: str, value: Any) -> list[Study]:
    """The studies of ``storage`` whose user attribute ``user_attr`` equals ``value``, in the order
    Optuna lists them (:func:`optuna.study.get_all_study_names`), loaded with a (never used)
    :class:`~optuna.samplers.RandomSampler`."""
    out = []
    for name in optuna.study.get_all_study_names(storage):
        other = optuna.load_study(
            study_name=name, storage=storage, sampler=optuna.samplers.RandomSampler(seed=0)
        )
        if other.user_attrs.get(user_attr) == value:
            out.append(other)
    return out


def completed_trials_of(study: Study) -> list[FrozenTrial]:
    """The COMPLETE trials of ``study`` with a finite value (single-objective)."""
    trials = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    return [t for t in trials if t.value is not None and math.isfinite(t.value)]


def observed_history(
    study: Study,
    trial: FrozenTrial,
    search_space: dict[str, BaseDistribution],
    space: SearchSpace,
) -> list[Trial]:
    """The study's trials in ``search_space`` as campaign trials (``trial`` itself excluded).

    COMPLETE trials with a finite value are observations; PRUNED trials count with their last
    intermediate value (pending if they reported none); RUNNING / WAITING trials holding the
    parameters, or a proposal not yet stored as parameters (:data:`PROPOSAL_ATTR`, written by
    the sampler that made it), are pending (hallucinated, GP-BUCB); FAIL trials and non-finite
    values are left out. Parameter values are in the space's internal representation
    (:func:`_internal`).
    """
    rows = _history_rows(study, trial, search_space, space)
    return [Trial(i, dict(params), value) for i, (_, params, value) in enumerate(rows)]


def history_points(
    study: Study,
    trial: FrozenTrial,
    search_space: dict[str, BaseDistribution],
    space: SearchSpace,
) -> tuple[set[tuple[float, ...]], set[tuple[float, ...]]]:
    """The distinct unit-box points (tuples) of the trials :func:`observed_history` keeps, and,
    second, of those among them that are pending: what :func:`propose_apart` reads before and
    after each proposal. A finished trial's point is encoded once per process
    (:data:`_FINISHED_POINTS`); at 1,000 trials encoding every trial twice per proposal took a
    tenth of it."""
    memo = _finished_memo(_FINISHED_POINTS, study, search_space)
    points: set[tuple[float, ...]] = set()
    pending: set[tuple[float, ...]] = set()
    for key, params, value in _history_rows(study, trial, search_space, space):
        point = None if key is None else memo.get(key)
        if point is None:
            point = tuple(space.encode(params).tolist())
            if key is not None:
                memo[key] = point
        points.add(point)
        if value is None:
            pending.add(point)
    return points, pending


def _history_rows(
    study: Study,
    trial: FrozenTrial,
    search_space: dict[str, BaseDistribution],
    space: SearchSpace,
) -> Iterator[tuple[tuple[int, Any] | None, dict[str, Any], float | None]]:
    """``(key, internal parameters, value)`` of each trial :func:`observed_history` keeps, in
    the study's order; ``key`` = (number, start time) for a finished trial (whose parameters
    never change), ``None`` for a running one; ``value`` ``None`` for a pending trial. The
    parameters are the memo's own dict (:data:`_FINISHED_PARAMS`): read, never change them."""
    names = list(space.names)
    records = StudyRecords(study)  # the samplers' proposals (PROPOSAL_ATTR), read if needed
    memo = _finished_memo(_FINISHED_PARAMS, study, search_space)
    for t in study.get_trials(deepcopy=False):
        if t.number == trial.number or t.state == TrialState.FAIL:
            continue
        finished = t.state.is_finished()  # a finished trial's parameters never change
        key = (t.number, t.datetime_start)
        if finished and key in memo:
            params = memo[key]
        else:
            external = _params_in(t, search_space, names, records)
            params = (
                None
                if external is None
                else {n: _internal(search_space[n], external[n]) for n in names}
            )
            if finished:
                memo[key] = params
        if params is None:
            continue  # the trial does not live in this space (or has not sampled yet)
        value: float | None
        if t.state == TrialState.COMPLETE:
            if t.value is None or not math.isfinite(t.value):
                continue
            value = float(t.value)
        elif t.state == TrialState.PRUNED:
            last = t.last_step
            value = None if last is None else float(t.intermediate_values[last])
            if value is not None and not math.isfinite(value):
                continue
        else:  # RUNNING / WAITING: pending, hallucinated (GP-BUCB)
            value = None
        yield (key if finished else None), params, value


#: (study name, search space) -> {(trial number, start time): internal parameters or None}:
#: the finished trials already converted by :func:`observed_history` (at 1,000 trials the
#: conversion took a quarter of a proposal); cleared when it holds more than _MEMO_MAX trials
_FINISHED_PARAMS: dict[tuple[str, tuple[Any, ...]], dict[tuple[int, Any], Any]] = {}
#: the same keys -> the finished trials' unit-box points (tuples), for :func:`history_points`
_FINISHED_POINTS: dict[tuple[str, tuple[Any, ...]], dict[tuple[int, Any], Any]] = {}
_MEMO_MAX = 200_000


def _finished_memo(
    memos: dict[tuple[str, tuple[Any, ...]], dict[tuple[int, Any], Any]],
    study: Study,
    search_space: dict[str, BaseDistribution],
) -> dict[tuple[int, Any], Any]:
    """The memo of ``memos`` (:data:`_FINISHED_PARAMS` or :data:`_FINISHED_POINTS`) for
    ``study`` and ``search_space`` (a fresh dict, not kept, if the distributions do not hash)."""
    try:
        key = (study.study_name, tuple(sorted(search_space.items())))
        hash(key)
    except TypeError:
        return {}
    if sum(len(m) for m in memos.values()) > _MEMO_MAX:
        memos.clear()
    return memos.setdefault(key, {})


#: how close (max-norm in the unit box of the search space) a proposal may come to a point that
#: it did not see (one recorded meanwhile by a worker proposing at the same time) before it is
#: made again with that point pending (:func:`propose_apart`)
APART = 0.01

#: how many times :func:`propose_apart` proposes at most (the first proposal and its retries).
#: Two workers that propose at the same moment from the same history move in lockstep: each
#: sees the other's point, and both propose again, to the same new point (measured with 4
#: processes on a journal file: 4 rounds in lockstep, then both kept the same corner); so rounds
#: are few, and a proposal that still collides after the last one is replaced by a random point
PROPOSAL_ROUNDS = 3


def propose_apart(
    study: Study,
    trial: FrozenTrial,
    search_space: dict[str, BaseDistribution],
    space: SearchSpace,
    propose: Callable[[], dict[str, Any] | None],
    seed: int,
    read: Callable[[], tuple[set[tuple[float, ...]], set[tuple[float, ...]]]] | None = None,
) -> dict[str, Any] | None:
    """``propose()`` (a proposal made from the study as it is now, Optuna external values, or
    ``None``), recorded on ``trial`` (:data:`PROPOSAL_ATTR`), and made again while it collides.

    ``read()`` reads the study afresh and returns the unit-box points (tuples) of its other
    trials and, second, of those among them that are pending; ``None`` (default): from
    :func:`observed_history`, a single-objective study's.

    Workers in other processes propose at the same time from the same history, and neither sees
    the other's proposal until it is recorded: both would propose the same point (a fitted GP and
    its acquisition optimum do not depend on the worker). So after recording its proposal a
    worker reads the study again; if a point it did not see when it proposed (another trial's
    recorded proposal or parameters) lies within :data:`APART` of its own in the unit box, it
    proposes again, now with that point pending, and so on up to :data:`PROPOSAL_ROUNDS`
    proposals. Of two workers whose proposals collide, the one that reads last sees the other's
    record (each records before it reads), so one of them moves. If the last proposal still
    collides with a point it did not see (two workers in lockstep: both move, to the same new
    point), or lies within :data:`APART` of the point of a trial that was *pending* in any of
    these reads (the model can choose a pending point again, e.g. a corner of the box, and that
    trial may complete before the check), it is replaced by a uniform random point of the box,
    drawn from ``(seed, trial number)``: different for every trial. A study run by one worker has no
    pending trial: its proposals are unchanged, at the cost of one more read of the study.
    """
    if read is None:

        def read() -> tuple[set[tuple[float, ...]], set[tuple[float, ...]]]:
            return history_points(study, trial, search_space, space)

    seen, pending = read()
    # every point pending in a read made here: a trial pending when the proposal was made may
    # complete before the check, and its point is still one this proposal must not repeat
    params, clash = None, False
    for _ in range(PROPOSAL_ROUNDS):
        params = propose()
        if params is None:
            return None
        record_on_trial(study, trial, PROPOSAL_ATTR, params)
        now, pending_now = read()
        pending |= pending_now
        own = space.encode({n: _internal(search_space[n], params[n]) for n in space.names})
        clash = _near(own, [p for p in now if p not in seen])
        if not clash:
            break
        seen = now
    if params is not None and (clash or _near(own, list(pending))):
        rng = np.random.default_rng([seed, trial.number])
        drawn = space.decode(rng.random(space.dim))
        params = {n: _external(search_space[n], drawn[n]) for n in space.names}
        record_on_trial(study, trial, PROPOSAL_ATTR, params)
    return params


def _near(own: np.ndarray, points: list[tuple[float, ...]]) -> bool:
    """Whether ``own`` (shape ``(dim,)``) is within :data:`APART` (max-norm) of one of
    ``points``."""
    others = np.array(points).reshape(-1, own.shape[0])
    return bool(np.any(np.max(np.abs(others - own), axis=1) < APART))


def _params_in(
    t: FrozenTrial,
    search_space: dict[str, BaseDistribution],
    names: list[str],
    records: Mapping[str, Any],
) -> dict[str, Any] | None:
    """``t``'s values of ``names`` (Optuna's external representation): its parameters when
    they live in ``search_space``, else, for a trial still running, the proposal a sampler
    recorded for it in the study user attributes ``records`` (:data:`PROPOSAL_ATTR`); ``None``
    if neither."""
    if all(t.distributions.get(n) == search_space[n] for n in names):
        return {n: t.params[n] for n in names}
    unfinished = not t.state.is_finished()
    proposal = records.get(record_key(PROPOSAL_ATTR, t.number)) if unfinished else None
    if isinstance(proposal, dict) and all(
        n in proposal and _within(search_space[n], proposal[n]) for n in names
    ):
        return {n: proposal[n] for n in names}
    return None


def _within(dist: BaseDistribution, value: Any) -> bool:
    """Whether the external ``value`` is a value of ``dist`` (public Optuna calls only): one of
    the choices of a categorical; a number in ``[low, high]`` on the lattice ``low + k step`` of
    a numeric distribution (within ``1e-8`` steps for a float, as Optuna checks it)."""
    try:
        v = dist.to_internal_repr(value)  # ValueError: not a choice, not a number, <= 0 for log
    except (ValueError, TypeError):
        return False
    if isinstance(dist, CategoricalDistribution):
        return True
    if not isinstance(dist, FloatDistribution | IntDistribution) or not dist.low <= v <= dist.high:
        return False
    if isinstance(dist, IntDistribution):
        return (v - dist.low) % dist.step == 0
    if dist.step is None:
        return True
    k = (v - dist.low) / dist.step
    return abs(k - round(k)) < 1e-8
