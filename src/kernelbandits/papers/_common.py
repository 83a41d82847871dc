"""What the paper packages share: the spec of one paper figure and the uniformly random floor.

Not a family of experiments: importing this module registers nothing. Its helpers build specs
and leave :func:`~kernelbandits.experiments.spec.register` to the paper module, so that each
spec's ``module`` is the module whose import registers it (worker processes import it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from kernelbandits.experiments.spec import ExperimentSpec, Metric

if TYPE_CHECKING:
    from kernelbandits.policies.base import Policy
    from kernelbandits.problems.base import Problem

#: seeds of every paper experiment's quick (CI-size) variant
QUICK_SEEDS = 2
#: an experiment's ``problem_seed -> Problem`` (:attr:`ExperimentSpec.make_problem`)
ProblemFactory = Callable[[int], "Problem"]
#: display name -> ``(problem, policy_seed) -> Policy`` (:attr:`ExperimentSpec.policies`)
PolicyFactories = Mapping[str, Callable[["Problem", int], "Policy"]]


def paper_spec(
    reference: str,
    figure: str,
    id: str,
    title: str,
    problem: ProblemFactory,
    policies: PolicyFactories,
    *,
    horizon: int,
    n_seeds: int,
    quick_horizon: int,
    text: str,
    settings: Mapping[str, object],
    note: str = "",
    metric: Metric = "cumulative",
    variant_of: str = "",
) -> ExperimentSpec:
    """The (unregistered) spec of ``figure`` of the paper cited as ``reference``.

    Its reference is ``"<reference>, <figure>"``, its description ``text`` followed by the
    paper's shared ``note`` (if any), its quick variant :data:`QUICK_SEEDS` seeds of
    ``quick_horizon`` rounds.
    """
    return ExperimentSpec(
        id=id,
        title=title,
        make_problem=problem,
        policies=policies,
        horizon=horizon,
        n_seeds=n_seeds,
        quick_horizon=quick_horizon,
        quick_seeds=QUICK_SEEDS,
        description=f"{text} {note}" if note else text,
        paper_settings=settings,
        metric=metric,
        reference=f"{reference}, {figure}",
        variant_of=variant_of,
    )


def random_policy(problem: Problem, seed: int) -> Policy:
    """Uniformly random grid points: the reference every learner must beat."""
    from kernelbandits.policies.base import RandomPolicy

    return RandomPolicy(problem.domain, seed=seed)
