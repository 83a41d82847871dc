"""The bad-input table of the Optuna samplers (issue 23, item 1): the constructors of
GPBOSampler, DeltaBOSampler, LIBOSampler and MultiTaskSampler, their use inside a study (the
wrong kind of study, a source or a family that does not match, a task matrix of the wrong size)
and the module's helpers.

Each case is one mistake a user might make (:class:`tests._bad_input.Bad`). For a sampler used
in a study the subject is the study: after the rejected ``optimize`` its stored trials (all but
the FAIL one Optuna records for the rejected trial) and the next proposal of a valid sampler are
those of an untouched twin, so the study keeps working as if nothing had happened.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from _bad_input import Bad, Subject, assert_rejected, params
from _repo import promised_cases

optuna = pytest.importorskip("optuna")

from optuna.distributions import FloatDistribution, IntDistribution  # noqa: E402
from optuna.storages import InMemoryStorage  # noqa: E402
from optuna.trial import TrialState, create_trial  # noqa: E402

from kernelbandits.integrations.optuna import (  # noqa: E402
    JOINED_ATTR,
    CosineDictionary,
    DeltaBOSampler,
    GPBOSampler,
    LIBOSampler,
    MultiTaskSampler,
    SEDictionary,
    estimate_task_matrix,
    fail_stale_running_trials,
    join_family,
    search_space_from_distributions,
    study_direction,
)
from kernelbandits.space import Float, SearchSpace  # noqa: E402

optuna.logging.set_verbosity(optuna.logging.ERROR)

NAN, INF = float("nan"), float("inf")
X, Y = FloatDistribution(0.0, 1.0), IntDistribution(1, 4)
DISTS = {"x": X, "y": Y}
POINTS = [{"x": 0.1, "y": 1}, {"x": 0.5, "y": 3}, {"x": 0.9, "y": 2}]
ARRAYS = {"params": POINTS, "values": [0.1, 0.7, 0.3]}
SPACE = SearchSpace([Float("x", 0.0, 1.0)])
ALLOWED_SEED = r"integer >= 0 or None"
FINITE_POSITIVE = r"finite positive number"


def _b(id: str, call: Any, name: str, allowed: str, error: Any = ValueError) -> Bad:
    """A constructor or function case: ``call()`` takes no subject."""
    return Bad(id, lambda _: call(), name, allowed, error)


def _study(
    directions: tuple[str, ...] = ("maximize",),
    storage: Any = None,
    name: str | None = None,
    dists: dict[str, Any] = DISTS,
) -> Any:
    """A study holding the three completed trials of ``POINTS`` (values made up)."""
    study = optuna.create_study(directions=list(directions), storage=storage, study_name=name)
    for k, point in enumerate(POINTS):
        values = [float(k) + 0.5 * j for j in range(len(directions))]
        study.add_trial(create_trial(params=point, distributions=dists, values=values))
    return study


def _objective(trial: Any) -> Any:
    x, y = trial.suggest_float("x", 0.0, 1.0), trial.suggest_int("y", 1, 4)
    n = len(trial.study.directions)
    return x + y if n == 1 else (x, y)


def _optimize(study: Any, sampler: Any) -> None:
    """One trial of ``study`` proposed by ``sampler``."""
    study.sampler = sampler
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study.optimize(_objective, n_trials=1)


def _observe(study: Any) -> Any:
    """The stored trials that are not FAIL (a FAIL trial is invisible to every sampler here),
    then the next proposal of a valid sampler of the study's kind (a startup draw, which depends
    on the seed and on the number of earlier trials that are not FAIL)."""
    kept = [
        (t.number, t.state, t.params, t.values) for t in study.trials if t.state != TrialState.FAIL
    ]
    startup = {"seed": 0, "n_startup_trials": 100}
    valid = GPBOSampler(**startup) if len(study.directions) == 1 else MultiTaskSampler(**startup)
    study.sampler = valid
    trial = study.ask(DISTS)
    attrs = {k: v for k, v in study.user_attrs.items() if k != JOINED_ATTR}  # JOINED_ATTR: a time
    return kept, trial.params, attrs


def _in(study: Any) -> Subject:
    return Subject(study, _observe)


SINGLE = _in(lambda: _study())
MULTI = _in(lambda: _study(("maximize", "minimize")))


def _s(id: str, subject: Subject, sampler: Any, name: str, allowed: str) -> Bad:
    """A sampler (built by ``sampler()``) rejected while proposing a trial of the subject."""
    return Bad(id, lambda study: _optimize(study, sampler()), name, allowed, ValueError, subject)


def _source_study(direction: str = "maximize") -> Any:
    return _study((direction,))


def _family(other: str) -> Any:
    """A study that already belongs to family ``other``."""
    study = _study()
    join_family(study, other)
    return study


_FAMILY_STORAGE: dict[str, Any] = {}  # the storage of the last _after_a_mismatched_study


def _after_a_mismatched_study() -> Any:
    """Family ``f`` in one storage: an earlier study over ``x`` only, then this one over
    ``x`` and ``y``."""
    storage = _FAMILY_STORAGE["storage"] = InMemoryStorage()
    earlier = optuna.create_study(storage=storage, study_name="earlier")
    for k, point in enumerate(POINTS):
        earlier.add_trial(
            create_trial(params={"x": point["x"]}, distributions={"x": X}, value=float(k))
        )
    join_family(earlier, "f")
    study = _study(storage=storage, name="current")
    join_family(study, "f")
    return study


# -- the constructors -------------------------------------------------------------------------
def _seed_cases(prefix: str, make: Any) -> list[Bad]:
    return [
        _b(f"{prefix}-seed-{id}", lambda s=seed: make(s), "seed", ALLOWED_SEED)
        for id, seed in [
            ("negative", -1),
            ("str", "abc"),
            ("digits", "3"),
            ("float", 2.0),
            ("bool", True),
            ("list", [1]),
            ("generator", np.random.default_rng(0)),
        ]
    ]


GPUCB = [
    *_seed_cases("gpucb", lambda s: GPBOSampler(seed=s)),
    _b("gpucb-beta-str", lambda: GPBOSampler(beta="2"), "beta", "positive number or 'theory'"),
    _b("gpucb-beta-zero", lambda: GPBOSampler(beta=0.0), "beta", "positive number or 'theory'"),
    _b("gpucb-beta-nan", lambda: GPBOSampler(beta=NAN), "beta", "positive number or 'theory'"),
    _b("gpucb-beta-list", lambda: GPBOSampler(beta=[2.0]), "beta", "positive number or 'theo"),
    _b("gpucb-beta-bool", lambda: GPBOSampler(beta=True), "beta", "positive number or 'theo"),
    _b("gpucb-startup-0", lambda: GPBOSampler(n_startup_trials=0), "n_startup_trials", ">= 1"),
    _b(
        "gpucb-startup-str",
        lambda: GPBOSampler(n_startup_trials="5"),
        "n_startup_trials",
        "integer >= 1",
    ),
    _b(
        "gpucb-startup-float",
        lambda: GPBOSampler(n_startup_trials=2.5),
        "n_startup_trials",
        "integer >= 1",
    ),
    _b(
        "gpucb-startup-bool",
        lambda: GPBOSampler(n_startup_trials=True),
        "n_startup_trials",
        "integer >= 1",
    ),
    _b("gpucb-policy", lambda: GPBOSampler(policy="ucb"), "policy", "'gp-ucb' or 'bkb'"),
    _b(
        "gpucb-hyperparameters",
        lambda: GPBOSampler(hyperparameters="learned"),
        "hyperparameters",
        "'fixed' or 'map'",
    ),
    _b(
        "gpucb-acquisition",
        lambda: GPBOSampler(acquisition="pi"),
        "acquisition",
        "'ucb', 'ei' or 'ts'",
    ),
    _b(
        "gpucb-output-warping",
        lambda: GPBOSampler(output_warping="yes"),
        "output_warping",
        "True or False",
    ),
    _b(
        "gpucb-independent-sampler",
        lambda: GPBOSampler(independent_sampler="random"),
        "independent_sampler",
        r"BaseSampler\) or None",
    ),
    _b(
        "gpucb-positional",
        lambda: GPBOSampler(0),
        "positional",
        "takes 1 positional argument",
        TypeError,
    ),
]

DELTABO = [
    *_seed_cases("deltabo", lambda s: DeltaBOSampler(ARRAYS, seed=s)),
    _b("deltabo-source-path", lambda: DeltaBOSampler("source.db"), "source", "optuna Study"),
    _b("deltabo-source-none", lambda: DeltaBOSampler(None), "source", "optuna Study"),
    _b("deltabo-source-empty", lambda: DeltaBOSampler([]), "source", "no COMPLETE trial"),
    _b(
        "deltabo-source-not-trials",
        lambda: DeltaBOSampler([{"x": 0.1}]),
        "source",
        "expected FrozenTrial objects",
    ),
    _b(
        "deltabo-source-multiobjective",
        lambda: DeltaBOSampler(_study(("maximize", "minimize"))),
        "source",
        "single-objective values only",
    ),
    _b(
        "deltabo-source-unknown-key",
        lambda: DeltaBOSampler({"params": POINTS, "values": [0.0] * 3, "dists": DISTS}),
        "source",
        "keys 'params', 'values' and optionally 'distributions'",
    ),
    _b(
        "deltabo-source-lengths",
        lambda: DeltaBOSampler({"params": POINTS, "values": [0.0, 1.0]}),
        "source",
        "one value per row of 'params'",
    ),
    _b(
        "deltabo-source-values-str",
        lambda: DeltaBOSampler({"params": POINTS, "values": ["0.1", "0.7", "0.3"]}),
        "values",
        "a list of numbers",
    ),
    _b(
        "deltabo-source-values-nan",
        lambda: DeltaBOSampler({"params": POINTS, "values": [0.1, NAN, 0.3]}),
        "values",
        "finite",
    ),
    _b(
        "deltabo-source-params-str",
        lambda: DeltaBOSampler({"params": "x", "values": [0.1]}),
        "params",
        r"list of dicts",
    ),
    _b(
        "deltabo-source-empty-arrays",
        lambda: DeltaBOSampler({"params": [], "values": []}),
        "source",
        "empty",
    ),
    _b(
        "deltabo-source-distributions",
        lambda: DeltaBOSampler(ARRAYS | {"distributions": {"x": (0, 1)}}),
        "distributions",
        "Optuna distributions",
    ),
    _b(
        "deltabo-source-direction",
        lambda: DeltaBOSampler(ARRAYS, source_direction="max"),
        "source_direction",
        "'maximize', 'minimize' or None",
    ),
    _b(
        "deltabo-source-direction-study",
        lambda: DeltaBOSampler(_source_study("maximize"), source_direction="minimize"),
        "source_direction",
        "source study is set to 'maximize'",
    ),
    _b("deltabo-beta-theory", lambda: DeltaBOSampler(ARRAYS, beta="theory"), "beta", "positive"),
    _b("deltabo-beta-0", lambda: DeltaBOSampler(ARRAYS, beta=0), "beta", FINITE_POSITIVE),
    _b(
        "deltabo-startup-negative",
        lambda: DeltaBOSampler(ARRAYS, n_startup_trials=-1),
        "n_startup_trials",
        "integer >= 0",
    ),
    _b(
        "deltabo-startup-float",
        lambda: DeltaBOSampler(ARRAYS, n_startup_trials=1.0),
        "n_startup_trials",
        "integer >= 0",
    ),
    _b("deltabo-tau-str", lambda: DeltaBOSampler(ARRAYS, tau="0.5"), "tau", FINITE_POSITIVE),
    _b("deltabo-tau-0", lambda: DeltaBOSampler(ARRAYS, tau=0.0), "tau", FINITE_POSITIVE),
    _b(
        "deltabo-noise-inf",
        lambda: DeltaBOSampler(ARRAYS, noise_var=INF),
        "noise_var",
        FINITE_POSITIVE,
    ),
    _b(
        "deltabo-source-lengthscale",
        lambda: DeltaBOSampler(ARRAYS, source_lengthscale=-0.2),
        "source_lengthscale",
        FINITE_POSITIVE,
    ),
    _b(
        "deltabo-offset-sd-none",
        lambda: DeltaBOSampler(ARRAYS, offset_sd=None),
        "offset_sd",
        FINITE_POSITIVE,
    ),
    _b("deltabo-model", lambda: DeltaBOSampler(ARRAYS, model="alg1"), "model", "'deltabo' or"),
    _b(
        "deltabo-hyperparameters",
        lambda: DeltaBOSampler(ARRAYS, hyperparameters="source"),
        "hyperparameters",
        "'fixed', 'map' or 'map\\+source'",
    ),
]

LIBO = [
    *_seed_cases(
        "libo",
        lambda s: LIBOSampler("f", storage=optuna.storages.InMemoryStorage(), n_trials=10, seed=s),
    ),
    _b(
        "libo-family-empty",
        lambda: LIBOSampler("", storage=optuna.storages.InMemoryStorage(), n_trials=10),
        "family",
        "non-empty string",
    ),
    _b(
        "libo-family-int",
        lambda: LIBOSampler(3, storage=optuna.storages.InMemoryStorage(), n_trials=10),
        "family",
        "non-empty string",
    ),
    _b(
        "libo-n-trials-0",
        lambda: LIBOSampler("f", storage=optuna.storages.InMemoryStorage(), n_trials=0),
        "n_trials",
        "integer >= 1",
    ),
    _b(
        "libo-n-trials-str",
        lambda: LIBOSampler("f", storage=optuna.storages.InMemoryStorage(), n_trials="10"),
        "n_trials",
        "integer >= 1",
    ),
    _b(
        "libo-n-trials-float",
        lambda: LIBOSampler("f", storage=optuna.storages.InMemoryStorage(), n_trials=9.5),
        "n_trials",
        "integer >= 1",
    ),
    _b(
        "libo-storage-int",
        lambda: LIBOSampler("f", storage=3, n_trials=10),
        "storage",
        "the family's Optuna storage",
    ),
    _b(
        "libo-unknown-option",
        lambda: LIBOSampler("f", storage=optuna.storages.InMemoryStorage(), n_trials=10, lr=1),
        "lr",
        "unexpected keyword arguments",
        TypeError,
    ),
    _b(
        "libo-n-trials-missing",
        lambda: LIBOSampler("f", storage=optuna.storages.InMemoryStorage()),
        "n_trials",
        "missing 1 required keyword-only argument",
        TypeError,
    ),
    _b(
        "libo-penalty-str",
        lambda: LIBOSampler(
            "f", storage=optuna.storages.InMemoryStorage(), n_trials=10, penalty="0.2"
        ),
        "penalty",
        FINITE_POSITIVE,
    ),
    _b(
        "libo-omega-0",
        lambda: LIBOSampler("f", storage=optuna.storages.InMemoryStorage(), n_trials=10, omega=0.0),
        "omega",
        FINITE_POSITIVE,
    ),
    _b(
        "libo-noise-nan",
        lambda: LIBOSampler(
            "f", storage=optuna.storages.InMemoryStorage(), n_trials=10, noise_var=NAN
        ),
        "noise_var",
        FINITE_POSITIVE,
    ),
    _b(
        "libo-on-mismatch",
        lambda: LIBOSampler(
            "f", storage=optuna.storages.InMemoryStorage(), n_trials=10, on_mismatch="ignore"
        ),
        "on_mismatch",
        "'raise' or 'skip'",
    ),
    _b(
        "libo-warm-start",
        lambda: LIBOSampler(
            "f", storage=optuna.storages.InMemoryStorage(), n_trials=10, warm_start="yes"
        ),
        "warm_start",
        "True or False",
    ),
    _b(
        "libo-acquisition",
        lambda: LIBOSampler(
            "f", storage=optuna.storages.InMemoryStorage(), n_trials=10, acquisition="ts"
        ),
        "acquisition",
        "'ucb' or 'ei'",
    ),
    _b(
        "libo-model",
        lambda: LIBOSampler(
            "f", storage=optuna.storages.InMemoryStorage(), n_trials=10, model="meta"
        ),
        "model",
        "'meta-kernel' or 'meta-prior'",
    ),
    _b(
        "libo-base-kernels",
        lambda: LIBOSampler(
            "f", storage=optuna.storages.InMemoryStorage(), n_trials=10, base_kernels="se"
        ),
        "base_kernels",
        "callable space -> BaseKernels",
    ),
    _b(
        "libo-beta-str",
        lambda: LIBOSampler("f", storage=optuna.storages.InMemoryStorage(), n_trials=10, beta="2"),
        "beta",
        "positive number",
    ),
    _b(
        "libo-hyperparameters",
        lambda: LIBOSampler(
            "f", storage=optuna.storages.InMemoryStorage(), n_trials=10, hyperparameters="meta"
        ),
        "hyperparameters",
        "'fixed' or 'map'",
    ),
]

MULTITASK = [
    *_seed_cases("multitask", lambda s: MultiTaskSampler(seed=s)),
    _b(
        "multitask-scalarization",
        lambda: MultiTaskSampler(scalarization="pareto"),
        "scalarization",
        "'chebyshev' or 'linear'",
    ),
    _b(
        "multitask-task-matrix-word",
        lambda: MultiTaskSampler(task_matrix="full"),
        "task_matrix",
        "'auto', 'independent' or a symmetric PSD matrix",
    ),
    _b(
        "multitask-task-matrix-not-psd",
        lambda: MultiTaskSampler(task_matrix=[[1.0, 2.0], [2.0, 1.0]]),
        "task_matrix",
        "positive semi-definite",
    ),
    _b(
        "multitask-task-matrix-asymmetric",
        lambda: MultiTaskSampler(task_matrix=[[1.0, 0.5], [0.1, 1.0]]),
        "task_matrix",
        "symmetric",
    ),
    _b(
        "multitask-task-matrix-1x1",
        lambda: MultiTaskSampler(task_matrix=np.eye(1)),
        "task_matrix",
        "m >= 2",
    ),
    _b(
        "multitask-task-matrix-str",
        lambda: MultiTaskSampler(task_matrix=[["1", "0"], ["0", "1"]]),
        "task_matrix",
        "matrix of numbers",
    ),
    _b(
        "multitask-task-matrix-nan",
        lambda: MultiTaskSampler(task_matrix=[[1.0, NAN], [NAN, 1.0]]),
        "task_matrix",
        "finite",
    ),
    _b("multitask-rank-0", lambda: MultiTaskSampler(rank=0), "rank", "integer >= 1"),
    _b("multitask-rank-str", lambda: MultiTaskSampler(rank="2"), "rank", "integer >= 1"),
    _b("multitask-rank-float", lambda: MultiTaskSampler(rank=1.5), "rank", "integer >= 1"),
    _b(
        "multitask-model",
        lambda: MultiTaskSampler(model="shared"),
        "model",
        "'icm' or 'per-objective'",
    ),
    _b(
        "multitask-task-matrix-needs-icm",
        lambda: MultiTaskSampler(task_matrix="independent"),
        "task_matrix",
        "pass model='icm'",
    ),
    _b(
        "multitask-acquisition",
        lambda: MultiTaskSampler(acquisition="hvi"),
        "acquisition",
        "'ucb', 'ei' or 'ehvi'",
    ),
    _b("multitask-beta", lambda: MultiTaskSampler(beta=-1.0), "beta", "positive number or 'th"),
    _b(
        "multitask-startup-0",
        lambda: MultiTaskSampler(n_startup_trials=0),
        "n_startup_trials",
        "integer >= 1",
    ),
    _b(
        "multitask-prior-mean-nan",
        lambda: MultiTaskSampler(prior_mean=NAN),
        "prior_mean",
        "finite number",
    ),
    _b(
        "multitask-prior-mean-str",
        lambda: MultiTaskSampler(prior_mean="worst"),
        "prior_mean",
        "finite number",
    ),
    _b(
        "multitask-prior-mean-fit-spelling",
        lambda: MultiTaskSampler(prior_mean="FIT"),
        "prior_mean",
        "or 'fit'",
    ),
]

# -- the helpers ------------------------------------------------------------------------------
HELPERS = [
    _b("se-dictionary-space", lambda: SEDictionary("x"), "space", "SearchSpace"),
    _b(
        "se-dictionary-lengthscales-str",
        lambda: SEDictionary(SPACE, lengthscales="0.1"),
        "lengthscales",
        r"numbers in \(0, 2\]",
    ),
    _b(
        "se-dictionary-lengthscales-big",
        lambda: SEDictionary(SPACE, lengthscales=(0.1, 3.0)),
        "lengthscales",
        r"\(0, 2\]",
    ),
    _b(
        "se-dictionary-lengthscales-empty",
        lambda: SEDictionary(SPACE, lengthscales=()),
        "lengthscales",
        r"\(0, 2\]",
    ),
    _b("cosine-dictionary-space", lambda: CosineDictionary(None), "space", "SearchSpace"),
    _b(
        "cosine-dictionary-n-frequencies",
        lambda: CosineDictionary(SPACE, n_frequencies=0),
        "n_frequencies",
        "integer >= 1",
    ),
    _b(
        "cosine-dictionary-n-frequencies-str",
        lambda: CosineDictionary(SPACE, n_frequencies="8"),
        "n_frequencies",
        "integer >= 1",
    ),
    _b(
        "estimate-task-matrix-1d",
        lambda: estimate_task_matrix([1.0, 2.0]),
        "values",
        r"shape \(t, n\)",
    ),
    _b(
        "estimate-task-matrix-str",
        lambda: estimate_task_matrix([["a", "b"]]),
        "values",
        "array of numbers",
    ),
    _b(
        "search-space-not-distributions",
        lambda: search_space_from_distributions({"x": (0.0, 1.0)}),
        "distributions",
        "Optuna distributions",
    ),
    _b(
        "search-space-list",
        lambda: search_space_from_distributions([X]),
        "distributions",
        "map parameter names",
    ),
    _b(
        "study-direction-multiobjective",
        lambda: study_direction(_study(("maximize", "minimize"))),
        "study",
        "single-objective",
    ),
    _b("study-direction-str", lambda: study_direction("maximize"), "study", "optuna Study"),
    _b("fail-stale-not-a-study", lambda: fail_stale_running_trials(None), "study", "optuna Study"),
    _b(
        "fail-stale-older-than-negative",
        lambda: fail_stale_running_trials(_study(), older_than=-1.0),
        "older_than",
        "number of seconds >= 0",
    ),
    _b(
        "fail-stale-callback-not-callable",
        lambda: fail_stale_running_trials(_study(), failed_trial_callback=3),
        "failed_trial_callback",
        "callable",
    ),
    _b("join-family-empty", lambda: join_family(_study(), ""), "family", "non-empty string"),
    _b(
        "family-kernel-no-space",
        lambda: LIBOSampler(
            "f", storage=optuna.storages.InMemoryStorage(), n_trials=10
        ).family_kernel(optuna.create_study()),
        "search_space",
        "pass search_space",
    ),
]

# -- in a study -------------------------------------------------------------------------------
IN_A_STUDY = [
    _s(
        "gpucb-in-a-multiobjective-study",
        MULTI,
        lambda: GPBOSampler(seed=0),
        "study",
        "single-objective studies only",
    ),
    _s(
        "deltabo-in-a-multiobjective-study",
        MULTI,
        lambda: DeltaBOSampler(ARRAYS, seed=0),
        "study",
        "single-objective studies only",
    ),
    _s(
        "libo-in-a-multiobjective-study",
        MULTI,
        lambda: LIBOSampler("mo", storage=optuna.storages.InMemoryStorage(), n_trials=1, seed=0),
        "study",
        "single-objective studies only",
    ),
    _s(
        "multitask-in-a-single-objective-study",
        SINGLE,
        lambda: MultiTaskSampler(seed=0),
        "study",
        "at least two objectives",
    ),
    _s(
        "multitask-task-matrix-size",
        MULTI,
        lambda: MultiTaskSampler(seed=0, model="icm", task_matrix=np.eye(3), n_startup_trials=1),
        "task_matrix",
        "the study has 2 objectives",
    ),
    _s(
        "deltabo-source-direction-differs",
        SINGLE,
        lambda: DeltaBOSampler(_source_study("minimize"), seed=0),
        "source",
        r"the target study is to maximize",
    ),
    _s(
        "deltabo-source-lacks-a-parameter",
        SINGLE,
        lambda: DeltaBOSampler(ARRAYS | {"distributions": {"x": X}}, seed=0),
        "source",
        r"parameter 'y' is in the target's search space only",
    ),
    _s(
        "deltabo-source-other-range",
        SINGLE,
        lambda: DeltaBOSampler(ARRAYS | {"distributions": {"x": X, "y": IntDistribution(1, 9)}}),
        "source",
        r"parameter 'y' differs",
    ),
    _s(
        "deltabo-source-value-outside",
        SINGLE,
        lambda: DeltaBOSampler({"params": [{"x": 0.5, "y": 7}], "values": [1.0]}, seed=0),
        "source",
        r"'y' = 7 is outside the target's",
    ),
    _s(
        "deltabo-source-other-parameters",
        SINGLE,
        lambda: DeltaBOSampler({"params": [{"x": 0.5, "z": 1}], "values": [1.0]}, seed=0),
        "source",
        r"lacks parameters \['y'\] and has extra parameters \['z'\]",
    ),
    _s(
        "libo-study-of-another-family",
        _in(lambda: _family("a")),
        lambda: LIBOSampler("b", storage=optuna.storages.InMemoryStorage(), n_trials=10, seed=0),
        "family",
        "belongs to family 'a', not 'b'",
    ),
    _s(
        "libo-earlier-study-mismatch",
        _in(_after_a_mismatched_study),
        lambda: LIBOSampler("f", storage=_FAMILY_STORAGE["storage"], n_trials=1, seed=0),
        "on_mismatch",
        "give it another family",
    ),
    Bad(
        "join-family-other",
        lambda study: join_family(study, "b"),
        "family",
        "belongs to family 'a', not 'b'",
        ValueError,
        _in(lambda: _family("a")),
    ),
]

TABLE = GPUCB + DELTABO + LIBO + MULTITASK + HELPERS + IN_A_STUDY


@pytest.mark.parametrize("case", params(TABLE))
def test_a_bad_input_is_a_clear_error_and_changes_nothing(case: Bad) -> None:
    assert_rejected(case)


def test_the_observed_state_can_tell_a_changed_study() -> None:
    """A trial that is stored (even one left RUNNING) changes what is observed."""
    a, b = _study(), _study()
    _optimize(a, GPBOSampler(seed=0))
    assert _observe(a) != _observe(b)
    a, b = _study(), _study()
    a.ask()  # a RUNNING trial: pending for the samplers, and it takes a slot
    assert _observe(a) != _observe(b)


def test_the_table_is_as_large_as_promised() -> None:
    assert len(TABLE) == promised_cases("tests/integrations/optuna/test_optuna_bad_input.py")
