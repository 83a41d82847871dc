"""``propose_apart``, the step that keeps workers sharing a study from proposing the same point:
each race between a proposal and what other workers do meanwhile, played out in one process by
a ``propose`` callable that changes the study while it proposes (as another process would)."""

from __future__ import annotations

import pytest

optuna = pytest.importorskip("optuna")

from optuna.distributions import FloatDistribution  # noqa: E402

from kernelbandits.integrations.optuna import _common  # noqa: E402

DISTS = {"x": FloatDistribution(0.0, 10.0), "y": FloatDistribution(-1.0, 1.0)}
CORNER = {"x": 10.0, "y": 1.0}  # where an acquisition optimiser clipped to the box often ends


def _study_with_running_trial():
    """A study with one COMPLETE trial, one RUNNING trial at :data:`CORNER` (another worker's)
    and the trial being proposed for; returns ``(study, the running Trial, own FrozenTrial)``."""
    study = _study()
    study.enqueue_trial(CORNER)
    other = study.ask(fixed_distributions=DISTS)  # RUNNING, at the corner
    own = study.ask()
    frozen = study.get_trials(deepcopy=False)[own.number]
    return study, other, frozen


def _study():
    """A study with one COMPLETE trial."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    trial = optuna.trial.create_trial(params={"x": 2.0, "y": 0.0}, distributions=DISTS, value=1.0)
    study.add_trial(trial)
    return study


def _propose_apart(study, frozen, propose):
    space = _common.search_space_from_distributions(DISTS)
    return _common.propose_apart(study, frozen, DISTS, space, propose, seed=7)


def test_one_worker_keeps_its_proposal_and_proposes_once():
    study = _study()
    own = study.ask()
    frozen = study.get_trials(deepcopy=False)[own.number]
    calls = []

    def propose():
        calls.append(1)
        return dict(CORNER)

    assert _propose_apart(study, frozen, propose) == CORNER
    assert len(calls) == 1
    assert _common.recorded(study, frozen, _common.PROPOSAL_ATTR) == CORNER


def test_a_proposal_on_a_pending_point_is_replaced_by_a_random_point():
    study, _, frozen = _study_with_running_trial()
    out = _propose_apart(study, frozen, lambda: dict(CORNER))
    assert out != CORNER
    assert 0.0 <= out["x"] <= 10.0 and -1.0 <= out["y"] <= 1.0
    assert _common.recorded(study, frozen, _common.PROPOSAL_ATTR) == out


def test_a_pending_trial_that_completes_before_the_check_is_still_not_repeated():
    """The race measured with 4 processes on a journal file (3 duplicates in 200 trials, all
    at corners of the box): the proposal lands on a trial pending when it was made, and that
    trial completes before the check reads the study again."""
    study, other, frozen = _study_with_running_trial()

    def propose():
        study.tell(other, 0.5)  # the other worker finishes while this one proposes
        return dict(CORNER)

    out = _propose_apart(study, frozen, propose)
    assert out != CORNER


def test_a_collision_with_a_proposal_recorded_meanwhile_is_proposed_again():
    """Two workers propose from the same history; the other records the same point first: this
    one sees it on reading back and proposes again (with that point pending)."""
    study = _study()
    other = study.ask()  # the other worker's trial, no parameters stored yet
    own = study.ask()
    frozen = study.get_trials(deepcopy=False)[own.number]
    other_frozen = study.get_trials(deepcopy=False)[other.number]
    proposals = iter([dict(CORNER), {"x": 5.0, "y": 0.0}])
    seen_pending = []

    def propose():
        history = _common.observed_history(study, frozen, DISTS,
                                           _common.search_space_from_distributions(DISTS))  # fmt: skip
        seen_pending.append(sum(t.value is None for t in history))
        if len(seen_pending) == 1:  # the other worker records its proposal meanwhile
            _common.record_on_trial(study, other_frozen, _common.PROPOSAL_ATTR, dict(CORNER))
        return next(proposals)

    assert _propose_apart(study, frozen, propose) == {"x": 5.0, "y": 0.0}
    assert seen_pending == [0, 1]  # the second proposal saw the other's point as pending


def test_the_multitask_sampler_proposes_again_on_a_collision():
    """MultiTaskSampler goes through the same step: another worker records the same point while
    this one proposes, so it proposes again, and the weight it records is the new proposal's."""
    from kernelbandits.integrations.optuna import MultiTaskSampler
    from kernelbandits.integrations.optuna._multitask import WEIGHT_ATTR

    sampler = MultiTaskSampler(seed=0, n_startup_trials=2)
    study = optuna.create_study(directions=["minimize", "minimize"], sampler=sampler)
    for x, y in [(2.0, 0.0), (8.0, 0.5), (5.0, -0.5)]:
        trial = optuna.trial.create_trial(
            params={"x": x, "y": y}, distributions=DISTS, values=[x, -y]
        )
        study.add_trial(trial)
    other = study.ask()  # another worker's trial, no parameters stored yet
    own = study.ask()
    frozen = study.get_trials(deepcopy=False)[own.number]
    other_frozen = study.get_trials(deepcopy=False)[other.number]
    made = []
    propose = sampler.propose

    def spy(study_, trial_, space_):
        params, weight = propose(study_, trial_, space_)
        if not made:  # the other worker records the same point meanwhile
            _common.record_on_trial(study, other_frozen, _common.PROPOSAL_ATTR, params)
        made.append((params, weight))
        return params, weight

    sampler.propose = spy
    out = sampler.sample_relative(study, frozen, DISTS)
    assert len(made) == 2 and out == made[1][0] != made[0][0]
    assert _common.recorded(study, frozen, WEIGHT_ATTR) == [float(w) for w in made[1][1]]


def test_two_workers_in_lockstep_end_on_a_random_point():
    """The race measured with 4 processes on a journal file after the fix above: two workers
    propose from the same history at the same moment, see each other's point, and both propose
    again, to the same new point, round after round; the other one's last point is evaluated
    (here: its trial replaced by a COMPLETE one there) before this one reads it, so it is never
    pending in a read. This one must not keep that point."""
    study = _study()
    other = study.ask()  # the other worker, proposing in lockstep
    own = study.ask()
    frozen = study.get_trials(deepcopy=False)[own.number]
    other_frozen = study.get_trials(deepcopy=False)[other.number]
    rounds = _common.PROPOSAL_ROUNDS
    points = [{"x": 4.0 + k, "y": 0.0} for k in range(rounds)]
    made = []

    def propose():
        point = points[len(made)]  # both workers make this same proposal now
        made.append(point)
        if len(made) < rounds:
            _common.record_on_trial(study, other_frozen, _common.PROPOSAL_ATTR, point)
        else:  # the other one's last point is evaluated before this one reads
            study.tell(other, state=optuna.trial.TrialState.FAIL)
            trial = optuna.trial.create_trial(params=point, distributions=DISTS, value=0.5)
            study.add_trial(trial)
        return dict(point)

    out = _propose_apart(study, frozen, propose)
    assert len(made) == rounds
    assert out not in points
