"""The shared frame of the transfer peers that take finished Optuna studies as sources
(:mod:`benchmarks.harness.mtgp`, :mod:`benchmarks.harness.rgpe`): the sources' completed trials
and directions, the relative search space they share, and a seeded ``RandomSampler`` for
everything outside it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from optuna.distributions import BaseDistribution, FloatDistribution, IntDistribution
from optuna.samplers import BaseSampler, RandomSampler
from optuna.study import Study, StudyDirection
from optuna.trial import FrozenTrial, TrialState


def study_sign(study: Study) -> float:
    """+1 for a maximised study, -1 for a minimised one (single objective only)."""
    if len(study.directions) != 1:
        raise ValueError("the transfer peers support single-objective studies only")
    return 1.0 if study.direction == StudyDirection.MAXIMIZE else -1.0


class SourceStudiesSampler(BaseSampler):
    """A sampler over a target study and finished ``source_studies`` (their COMPLETE trials,
    each study's direction in :attr:`source_signs`); subclasses implement ``sample_relative``.

    The relative search space is the parameters that every completed source trial holds with
    the same distribution and that :meth:`supports`; the other parameters, and the trials the
    subclass leaves to it, come from ``RandomSampler(seed)``."""

    def __init__(self, source_studies: Sequence[Study], seed: int) -> None:
        if not source_studies:
            raise ValueError(f"{type(self).__name__} needs at least one source study")
        self.source_trials = [
            s.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)) for s in source_studies
        ]
        self.source_signs = [study_sign(s) for s in source_studies]
        self._random = RandomSampler(seed=seed)

    @staticmethod
    def supports(dist: BaseDistribution) -> bool:
        """Whether the model handles ``dist`` (default: floats and integers)."""
        return isinstance(dist, FloatDistribution | IntDistribution)

    def infer_relative_search_space(
        self, study: Study, trial: FrozenTrial
    ) -> dict[str, BaseDistribution]:
        """The sources' common parameters that :meth:`supports` accepts."""
        trials = [t for ts in self.source_trials for t in ts]
        if not trials:
            return {}
        return {
            name: dist
            for name, dist in sorted(trials[0].distributions.items())
            if self.supports(dist)
            and not dist.single()
            and all(t.distributions.get(name) == dist for t in trials)
        }

    def sample_independent(
        self,
        study: Study,
        trial: FrozenTrial,
        param_name: str,
        param_distribution: BaseDistribution,
    ) -> Any:
        return self._random.sample_independent(study, trial, param_name, param_distribution)

    def reseed_rng(self) -> None:
        self._random.reseed_rng()
