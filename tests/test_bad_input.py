"""The bad-input table of the library core (issue 23, item 1): kernels, domains, every policy's
constructor and its ask/tell methods, posteriors, problems, quantum estimators, scalarisations,
acquisitions and the meta-learners.

Each case is one mistake a user might make (:class:`tests._bad_input.Bad`): the error type, a
one-line message naming the argument and what is allowed, and, for a method, an object that
behaves afterwards exactly like an untouched twin (same next ask, same number of observations).
The tables of the command line, the campaign and search spaces, the Optuna samplers and the
results store are in ``test_cli_bad_input.py``, ``test_bad_input_space_campaign.py``,
``integrations/optuna/test_optuna_bad_input.py`` and ``experiments/test_bad_input_store.py``.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from _bad_input import Bad, Subject, assert_rejected, params
from _repo import promised_cases
from kernelbandits import Box, Grid, run
from kernelbandits.acquisition import (
    BoxOptimizer,
    ExpectedHypervolumeImprovement,
    ExpectedImprovement,
    ProbabilityOfImprovement,
    ScalarizedExpectedImprovement,
    ScalarizedUpperConfidenceBound,
    SobolSearch,
    ThompsonSampling,
    UpperConfidenceBound,
    argmax_random_tie,
    best_observed_mean,
    central_difference,
    check_acquisition_name,
    expected_hypervolume_improvement,
    log_expected_hypervolume_improvement,
    maximize_acquisition,
    maximize_score,
    minimize_independently,
    non_dominated_boxes,
    pareto_rows,
    pointwise_acquisition,
)
from kernelbandits.kernels import (
    ICM,
    RBF,
    AffineFeatures,
    CosineFeatures1D,
    CosineFeatures2D,
    FeatureKernel,
    FeatureMap,
    IndependentTasks,
    LegendreFeatures,
    Linear,
    Matern,
    Offset,
    Product,
    Scaled,
    SeparableSum,
    Sum,
    TaggedTasks,
    check_task_matrix,
    evgeniou_task_matrix,
    interaction_form,
    interaction_task_matrix,
    tag_tasks,
)
from kernelbandits.metalearning import (
    BaseKernels,
    CosineDictionary,
    FMetaKGL,
    MetaKGL,
    SEDictionary,
    fit_group_lasso,
    group_lasso,
    group_norms,
    meta_loss,
)
from kernelbandits.policies import (
    BKB,
    FLIBO,
    GPEI,
    GPPI,
    GPTS,
    GPUCB,
    ITBKB,
    ITKB,
    LIBO,
    MOBO,
    MTBKB,
    MTKB,
    QGPUCB,
    AdaMTUCB,
    AffineOutcome,
    BKBBeta,
    ConstantBeta,
    DeltaBO,
    DiffGP,
    EnvGP,
    FeatureGPUCB,
    FixedKernelLifelong,
    IGPUCBBeta,
    JointGPUCB,
    LinUCB,
    MultiTaskUCB,
    OfflineMetaLearned,
    PolicyTags,
    QLinUCB,
    RandomPolicy,
    SrinivasBeta,
    VectorRandomPolicy,
    WithInitialDesign,
    check_policy,
)
from kernelbandits.problems import (
    Bohachevsky,
    Branin,
    FunctionProblem,
    GPSampleProblem,
    LinearTaskSequence,
    RKHSFunctionProblem,
    TaskSequenceProblem,
    VectorProblem,
    sessa_synthetic,
    tabular_values,
)
from kernelbandits.quantum import (
    AmplitudeProblem,
    BernoulliReward,
    ClassicalMonteCarlo,
    GaussianEncoding,
    GaussianReward,
    QiskitIAE,
    SimulatedCanonicalQAE,
    SimulatedIAE,
    amplitude_problem,
    canonical_qae_distribution,
    iae_default_shots,
    iae_target_epsilon,
    iterative_amplitude_estimation,
    qmc_query_bound,
)
from kernelbandits.regression import (
    BlockNystromPosterior,
    BlockPosterior,
    DecoupledNystromPosterior,
    DecoupledPosterior,
    DeltaPosterior,
    EigenPosterior,
    GPPosterior,
    HyperparameterLearner,
    ICMMaximumAPosteriori,
    JointPosterior,
    MaximumAPosteriori,
    MaximumLikelihood,
    NystromPosterior,
    RandomFourierFeatures,
    SourceTargetGP,
    TransferKernel,
    batch_posterior,
    constant_mean,
    fit_constant_mean_and_scale,
    fit_hyperparameters,
    information_gain,
    log_marginal_likelihood,
    nystrom_embedding,
    nystrom_vector_posterior,
    psd_root,
    resample_dictionary,
    sample_gaussian,
    vector_posterior,
)
from kernelbandits.scalarization import (
    ChebyshevScalarization,
    ExpectedScalarization,
    LinearScalarization,
    bayes_regret,
    check_weights,
    reference_point_below,
)
from kernelbandits.space import Float, SearchSpace
from policy_zoo import POLICY_FACTORIES

NAN, INF = float("nan"), float("inf")
GRID = Grid.lattice([0.0, 0.0], [1.0, 1.0], 5)  # 25 points on [0, 1]^2
LINE = Grid.linspace(0.0, 1.0, 11)
POST1 = GPPosterior(RBF(0.2), 0.1, input_dim=1)  # a posterior for the acquisitions
MT_POST = vector_posterior(ICM.evgeniou(RBF(0.2), 2, omega=0.5), 0.1, 1)  # and a multi-task one
BOX = Box([0.0, 0.0], [1.0, 1.0])
ALLOWED_SEED = r"integer >= 0, a numpy Generator or SeedSequence"
FINITE_POSITIVE = r"finite positive number"


_UNIT2 = np.array([[0.0, 1.0], [0.0, 1.0]])


def _SQUARE(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``sum x^2`` row by row and its gradient (a batch objective)."""
    return np.sum(X**2, axis=1), 2 * X


def _b(id: str, call: Any, name: str, allowed: str, error: Any = ValueError) -> Bad:
    """A constructor or function case: ``call()`` takes no subject."""
    return Bad(id, lambda _: call(), name, allowed, error)


# -- kernels --------------------------------------------------------------------------------
KERNELS = [
    _b("rbf-lengthscale-0", lambda: RBF(0.0), "lengthscale", FINITE_POSITIVE),
    _b("rbf-lengthscale-negative", lambda: RBF(-1.0), "lengthscale", FINITE_POSITIVE),
    _b("rbf-lengthscale-nan", lambda: RBF(NAN), "lengthscale", FINITE_POSITIVE),
    _b("rbf-lengthscale-inf", lambda: RBF(INF), "lengthscale", FINITE_POSITIVE),
    _b("rbf-lengthscale-str", lambda: RBF("0.2"), "lengthscale", "positive"),
    _b("rbf-lengthscale-2d", lambda: RBF([[0.1, 0.2]]), "lengthscale", "one per dimension"),
    _b("rbf-lengthscale-empty", lambda: RBF([]), "lengthscale", "one per dimension"),
    _b("rbf-variance-0", lambda: RBF(0.2, variance=0.0), "variance", FINITE_POSITIVE),
    _b("rbf-variance-str", lambda: RBF(0.2, variance="1"), "variance", FINITE_POSITIVE),
    _b("matern-nu", lambda: Matern(0.2, nu=2.0), "nu", r"0\.5, 1\.5, 2\.5"),
    _b("matern-nu-str", lambda: Matern(0.2, nu="2.5"), "nu", r"0\.5, 1\.5, 2\.5"),
    _b("matern-lengthscale-0", lambda: Matern(0.0), "lengthscale", FINITE_POSITIVE),
    _b("linear-variance-negative", lambda: Linear(-1.0), "variance", FINITE_POSITIVE),
    _b("linear-bias-negative", lambda: Linear(1.0, bias=-1.0), "bias", "non-negative"),
    _b("offset-variance-0", lambda: Offset(0.0), "variance", FINITE_POSITIVE),
    _b("offset-variance-str", lambda: Offset("1"), "variance", FINITE_POSITIVE),
    _b("scaled-scale-0", lambda: Scaled(RBF(0.2), 0.0), "scale", FINITE_POSITIVE),
    _b("scaled-not-a-kernel", lambda: Scaled("rbf", 2.0), "kernel", "Kernel"),
    _b("sum-not-a-kernel", lambda: RBF(0.2) + 1.0, "+", "RBF' and 'float", TypeError),
    _b("rbf-call-wrong-dim", lambda: RBF([0.1, 0.2])(np.zeros((3, 3))), "X", "2 columns"),
    _b("rbf-call-nan", lambda: RBF(0.2)([[NAN]]), "X", "finite"),
    _b("rbf-call-str", lambda: RBF(0.2)([["a"]]), "X", "array of numbers"),
    _b("rbf-call-3d", lambda: RBF(0.2)(np.zeros((2, 2, 2))), "X", r"2-D array"),
    _b("rbf-with-theta-length", lambda: RBF(0.2).with_theta([1.0, 2.0, 3.0]), "theta", "2 finite"),
    _b("rbf-with-theta-nan", lambda: RBF(0.2).with_theta([NAN, 0.0]), "theta", "finite"),
    _b(
        "matern-contracted-gradient-weights-shape",
        lambda: Matern(0.2).theta_gradient_contracted(np.zeros((3, 1)), np.ones((2, 2))),
        "weights",
        r"shape \(3, 3\)",
    ),
    _b(
        "matern-contracted-gradient-weights-nan",
        lambda: Matern(0.2).theta_gradient_contracted(np.zeros((2, 1)), [[NAN, 0.0], [0.0, 1.0]]),
        "weights",
        "finite",
    ),
    _b(
        "rbf-contracted-gradient-x-nan",
        lambda: RBF(0.2).theta_gradient_contracted([[NAN], [0.0]], np.eye(2)),
        "X",
        "finite",
    ),
    _b(
        "icm-task-matrix-not-psd",
        lambda: ICM(RBF(0.2), [[1.0, 2.0], [2.0, 1.0]]),
        "task_matrix",
        "positive semi-definite",
    ),
    _b(
        "icm-task-matrix-asymmetric",
        lambda: ICM(RBF(0.2), [[1.0, 0.5], [0.1, 1.0]]),
        "task_matrix",
        "symmetric",
    ),
    _b("icm-task-matrix-nan", lambda: ICM(RBF(0.2), [[NAN]]), "task_matrix", "finite"),
    _b("icm-task-matrix-shape", lambda: ICM(RBF(0.2), [1.0, 2.0]), "task_matrix", "square"),
    _b("icm-task-matrix-str", lambda: ICM(RBF(0.2), [["1"]]), "task_matrix", "matrix of numbers"),
    _b(
        "check-task-matrix-n-tasks",
        lambda: check_task_matrix(np.eye(2), n_tasks=3),
        "task_matrix",
        r"3 x 3",
    ),
    _b("evgeniou-omega-negative", lambda: evgeniou_task_matrix(2, -1.0), "omega", r"\[0, 1\]"),
    _b("evgeniou-n-tasks-0", lambda: evgeniou_task_matrix(0, 0.5), "n_tasks", r"integer >= 1"),
    _b("evgeniou-n-tasks-float", lambda: evgeniou_task_matrix(2.0, 0.5), "n_tasks", "integer"),
    _b(
        "independent-n-tasks-0",
        lambda: IndependentTasks(RBF(0.2), 0),
        "n_tasks",
        "positive integer",
    ),
    _b(
        "separable-sum-empty",
        lambda: SeparableSum([]),
        "terms",
        "at least one",
    ),
    _b(
        "separable-sum-sizes",
        lambda: SeparableSum([(RBF(0.2), np.eye(2)), (RBF(0.3), np.eye(3))]),
        "B_1",
        "2 x 2",
    ),
    _b("cosine-n-features-0", lambda: CosineFeatures1D(0), "n_features", "integer >= 1"),
    _b("affine-dim-0", lambda: AffineFeatures(0), "dim", "integer >= 1"),
    _b("legendre-n-features-str", lambda: LegendreFeatures("5"), "n_features", "integer >= 1"),
]

# -- domains --------------------------------------------------------------------------------
DOMAINS = [
    _b("grid-empty", lambda: Grid(np.zeros((0, 2))), "points", "at least one"),
    _b("grid-repeat", lambda: Grid([[0.0], [0.0]]), "points", "distinct"),
    _b("grid-nan", lambda: Grid([[NAN]]), "points", "finite"),
    _b("grid-str", lambda: Grid([["a"]]), "points", "array of numbers"),
    _b("grid-ragged", lambda: Grid([[0.0, 1.0], [2.0]]), "points", "array of numbers"),
    _b("grid-atol-negative", lambda: Grid([[0.0]], atol=-1.0), "atol", "non-negative"),
    _b("grid-linspace-num-0", lambda: Grid.linspace(0.0, 1.0, 0), "num", "integer >= 1"),
    _b("grid-linspace-num-str", lambda: Grid.linspace(0.0, 1.0, "5"), "num", "integer >= 1"),
    _b("grid-linspace-num-float", lambda: Grid.linspace(0.0, 1.0, 2.5), "num", "integer >= 1"),
    _b(
        "grid-linspace-bounds",
        lambda: Grid.linspace(1.0, 0.0, 5),
        "lower and upper",
        "lower < upper",
    ),
    _b("grid-linspace-nan", lambda: Grid.linspace(NAN, 1.0, 5), "lower and upper", "finite"),
    _b(
        "grid-lattice-mismatch",
        lambda: Grid.lattice([0.0, 0.0], [1.0], 3),
        "lower and upper",
        "equal length",
    ),
    _b("grid-lattice-num-0", lambda: Grid.lattice([0.0], [1.0], 0), "num", "integer >= 1"),
    _b("grid-index-off-grid", lambda: LINE.index([0.55]), "x", "not a point of the grid"),
    _b("grid-index-wrong-dim", lambda: GRID.index([0.5]), "x", r"shape \(2,\)"),
    _b(
        "grid-argmax-shape",
        lambda: maximize_score(LINE, lambda X: np.zeros(3), np.random.default_rng(0)),
        "values",
        r"shape \(11,\)",
    ),
    _b(
        "grid-sample-negative",
        lambda: LINE.sample(-1, np.random.default_rng(0)),
        "n",
        "integer >= 0",
    ),
    _b("box-mismatch", lambda: Box([0.0, 0.0], [1.0]), "lower and upper", "equal length"),
    _b("box-empty", lambda: Box([], []), "lower and upper", "equal length"),
    _b("box-reversed", lambda: Box([1.0], [0.0]), "lower and upper", "lower < upper"),
    _b("box-infinite", lambda: Box([0.0], [INF]), "lower and upper", "finite"),
    _b("box-str", lambda: Box(["0"], ["1"]), "lower", "vector of numbers"),
    _b("box-n-candidates-0", lambda: Box([0.0], [1.0], n_candidates=0), "n_candidates", ">= 1"),
    _b("box-n-refine-negative", lambda: Box([0.0], [1.0], n_refine=-1), "n_refine", ">= 0"),
    _b("box-validate-outside", lambda: BOX.validate([1.5, 0.5]), "x", "outside the box"),
    _b("box-validate-nan", lambda: BOX.validate([NAN, 0.5]), "x", "finite"),
    _b("box-contains-wrong-dim", lambda: BOX.contains([[0.5, 0.5, 0.5]]), "X", "2 columns"),
    _b("box-sample-str", lambda: BOX.sample("3", np.random.default_rng(0)), "n", "integer >= 0"),
]

# -- policy constructors --------------------------------------------------------------------
SOURCE = (GRID.points[:5], np.sin(GRID.points[:5]).sum(axis=1), 0.01)


def _deltabo(**kw: Any) -> DeltaBO:
    args: dict[str, Any] = {"beta": 2.0, "seed": 0} | kw
    return DeltaBO(GRID, SOURCE, RBF(0.3), RBF(0.2, variance=0.1), 0.01, **args)


CONSTRUCTORS = [
    _b("policy-domain-list", lambda: RandomPolicy([0.0, 1.0]), "domain", "Grid or a Box"),
    _b("gpucb-kernel-str", lambda: GPUCB(GRID, "rbf"), "kernel", "Kernel"),
    _b("gpucb-noise-0", lambda: GPUCB(GRID, RBF(0.2), noise_var=0.0), "noise_var", FINITE_POSITIVE),
    _b(
        "gpucb-noise-nan",
        lambda: GPUCB(GRID, RBF(0.2), noise_var=NAN),
        "noise_var",
        FINITE_POSITIVE,
    ),
    _b("gpucb-beta-negative", lambda: GPUCB(GRID, RBF(0.2), beta=-1.0), "beta", FINITE_POSITIVE),
    _b("gpucb-beta-str", lambda: GPUCB(GRID, RBF(0.2), beta="2"), "beta", "number"),
    _b("gpucb-seed-negative", lambda: GPUCB(GRID, RBF(0.2), seed=-1), "seed", r"integer >= 0"),
    _b("gpucb-seed-float", lambda: GPUCB(GRID, RBF(0.2), seed=1.5), "seed", ALLOWED_SEED),
    _b(
        "gpucb-unknown-option",
        lambda: GPUCB(GRID, RBF(0.2), lengthscale=2),
        "lengthscale",
        "unexpected keyword",
        TypeError,
    ),
    _b("gpucb-kernel-dim", lambda: GPUCB(GRID, RBF([0.1, 0.2, 0.3])), "kernel", r"dimension|2"),
    _b(
        "gpucb-hyperparameters",
        lambda: GPUCB(GRID, RBF(0.2), hyperparameters="ml"),
        "hyperparameters",
        "HyperparameterLearner",
    ),
    _b("gpei-xi-negative", lambda: GPEI(GRID, RBF(0.2), xi=-0.1), "xi", "non-negative"),
    _b("gpts-n-candidates-0", lambda: GPTS(BOX, RBF(0.2), n_candidates=0), "n_candidates", ">= 1"),
    _b("gpts-max-joint-str", lambda: GPTS(BOX, RBF(0.2), max_joint="4"), "max_joint", ">= 1"),
    _b("bkb-qbar-0", lambda: BKB(GRID, RBF(0.2), qbar=0.0), "qbar", FINITE_POSITIVE),
    _b("bkb-lam-negative", lambda: BKB(GRID, RBF(0.2), lam=-1.0), "lam", FINITE_POSITIVE),
    _b(
        "bkb-acquisition",
        lambda: BKB(GRID, RBF(0.2), acquisition="lcb"),
        "acquisition",
        r"'ucb', 'ei', 'pi'",
    ),
    _b("linucb-lam-0", lambda: LinUCB(BOX, lam=0.0), "lam", FINITE_POSITIVE),
    _b("linucb-delta-1", lambda: LinUCB(BOX, delta=1.0), "delta", r"\(0, 1\)"),
    _b("linucb-features", lambda: LinUCB(BOX, features=3), "features", "callable|FeatureMap"),
    _b("deltabo-rho-1", lambda: _deltabo(rho=1.0), "rho", r"\(0, 1\)"),
    _b(
        "deltabo-source-nan",
        lambda: DeltaBO(
            GRID, (GRID.points[:2], [0.0, NAN], 0.01), RBF(0.3), RBF(0.2), 0.01, beta=2.0
        ),
        "source",
        "y must be finite",
    ),
    _b(
        "deltabo-source-lengths",
        lambda: DeltaBO(GRID, (GRID.points[:2], [0.0], 0.01), RBF(0.3), RBF(0.2), 0.01, beta=2.0),
        "source",
        "y must have length 2",
    ),
    _b(
        "deltabo-source-dim",
        lambda: DeltaBO(
            GRID, (np.zeros((2, 3)), [0.0, 1.0], 0.01), RBF(0.3), RBF(0.2), 0.01, beta=2.0
        ),
        "source",
        "the target domain has 2",
    ),
    _b(
        "deltabo-source-type",
        lambda: DeltaBO(GRID, "source.csv", RBF(0.3), RBF(0.2), 0.01, beta=2.0),
        "source",
        r"SourceData, a tuple \(X, y, noise_var\)",
    ),
    _b(
        "deltabo-acquisition",
        lambda: _deltabo(acquisition="EI"),
        "acquisition",
        r"'ucb', 'ei', 'pi'",
    ),
    _b(
        "envgp-alpha0-0",
        lambda: EnvGP(GRID, RBF(0.2), SOURCE, 0.01, 2.0, alpha0=0.0),
        "alpha0",
        FINITE_POSITIVE,
    ),
    _b(
        "mtkb-kernel",
        lambda: MTKB(GRID, RBF(0.2), LinearScalarization()),
        "kernel",
        "SeparableSum|multi-task",
    ),
    _b(
        "mtkb-scalarization",
        lambda: MTKB(GRID, ICM.evgeniou(RBF(0.3), 2, omega=0.4), "linear"),
        "scalarization",
        "Scalarization",
    ),
    _b(
        "mtkb-n-weights-0",
        lambda: MTKB(
            GRID, ICM.evgeniou(RBF(0.3), 2, omega=0.4), LinearScalarization(), n_weights=0
        ),
        "n_weights",
        ">= 1",
    ),
    _b(
        "libo-steps-0",
        lambda: LIBO(GRID, 0, MetaKGL(BaseKernels(CosineFeatures1D(3)), 0.5, 0.25)),
        "steps_per_task",
        ">= 1",
    ),
    _b(
        "qgpucb-box",
        lambda: QGPUCB(BOX, RBF(0.3), lambda x: BernoulliReward(0.5)),
        "domain",
        "Grid",
    ),
    _b("qgpucb-oracle", lambda: QGPUCB(GRID, RBF(0.3), 0.5), "oracle", "callable"),
    _b(
        "qgpucb-beta",
        lambda: QGPUCB(GRID, RBF(0.3), lambda x: BernoulliReward(0.5), beta="thm"),
        "beta",
        "practical",
    ),
    _b(
        "initial-design-n-init-0",
        lambda: WithInitialDesign(GPUCB(GRID, RBF(0.2)), -1),
        "n_init",
        "non-negative integer",
    ),
    _b("constant-beta-negative", lambda: ConstantBeta(-1.0), "value", "non-negative"),
    _b("igpucb-beta-delta", lambda: IGPUCBBeta(delta=0.0), "delta", r"\(0, 1\)"),
    _b("srinivas-beta-delta", lambda: SrinivasBeta(delta=2.0), "delta", r"\(0, 1\)"),
    _b("bkb-beta-norm-bound", lambda: BKBBeta(norm_bound=-1.0), "norm_bound", "non-negative"),
]


# -- every policy's ask/tell -----------------------------------------------------------------
def _played(name: str) -> Subject:
    """The zoo's policy ``name`` on the 5x5 grid, told two observations at its own asks; its
    state is observed as its next ask and its number of observations."""

    def make() -> Any:
        policy = POLICY_FACTORIES[name](GRID, 0)
        n_tasks = policy.tags().n_tasks
        for _ in range(2):
            x = policy.ask()
            y = float(np.sin(3 * x).sum())
            policy.tell(x, y if n_tasks is None else y * np.linspace(1.0, 0.5, n_tasks))
        return policy

    return Subject(make, lambda policy: (policy.ask(), policy.n_observations))


def _y(policy: Any, value: float) -> Any:
    """A value of the right kind for ``policy``: a number, or one per task."""
    n_tasks = policy.tags().n_tasks
    return value if n_tasks is None else np.full(n_tasks, value)


def _policy_methods(name: str) -> list[Bad]:
    subject = _played(name)
    vector = POLICY_FACTORIES[name](GRID, 0).tags().n_tasks is not None
    y_name = "y"
    x0 = GRID.points[7]
    cases = [
        ("tell-x-nan", lambda p: p.tell([NAN, 0.5], _y(p, 0.0)), "x", "finite"),
        ("tell-x-dim", lambda p: p.tell([0.5], _y(p, 0.0)), "x", r"shape \(2,\)"),
        ("tell-x-str", lambda p: p.tell(["0.5", "0.5"], _y(p, 0.0)), "x", "numbers"),
        (
            "tell-x-off-domain",
            lambda p: p.tell([0.3, 0.3], _y(p, 0.0)),
            "x",
            "not a point of the grid",
        ),
        ("tell-y-nan", lambda p: p.tell(x0, _y(p, NAN)), y_name, "finite"),
        ("tell-y-inf", lambda p: p.tell(x0, _y(p, -INF)), y_name, "finite"),
        ("tell-y-str", lambda p: p.tell(x0, "1.0"), y_name, "number"),
        (
            "tell-many-lengths",
            lambda p: p.tell_many(GRID.points[:3], [_y(p, 0.0)] * 2),
            "X",
            r"shape \(2, 2\)",
        ),
        (
            "tell-many-one-nan",
            lambda p: p.tell_many(GRID.points[:2], [_y(p, 0.0), _y(p, NAN)]),
            y_name,
            "finite",
        ),
    ]
    if vector:
        cases.append(("tell-y-scalar", lambda p: p.tell(x0, 1.0), y_name, r"length 2|\(2,\)"))
        cases.append(
            ("tell-y-length", lambda p: p.tell(x0, [1.0, 2.0, 3.0]), y_name, r"length 2|\(2,\)")
        )
    else:
        cases.append(("tell-y-vector", lambda p: p.tell(x0, [1.0, 2.0]), y_name, "scalar"))
    return [
        Bad(f"{name}-{id}", call, arg, allowed, subject=subject) for id, call, arg, allowed in cases
    ]


POLICY_METHODS = [case for name in POLICY_FACTORIES for case in _policy_methods(name)]


# -- posteriors and hyperparameter learners ---------------------------------------------------
def _posterior() -> Subject:
    def make() -> GPPosterior:
        post = GPPosterior(RBF(0.2), 0.01, input_dim=2)
        post.add([0.1, 0.2], 0.5)
        post.add([0.4, 0.9], -0.2)
        return post

    return Subject(make, lambda post: (post.predict(GRID.points), post.n_observations))


POSTERIOR = _posterior()
POSTERIORS = [
    _b("gp-noise-negative", lambda: GPPosterior(RBF(0.2), -1.0), "noise_var", FINITE_POSITIVE),
    _b("gp-input-dim-0", lambda: GPPosterior(RBF(0.2), 0.1, input_dim=0), "input_dim", ">= 1"),
    _b(
        "gp-prior-mean-nan",
        lambda: GPPosterior(RBF(0.2), 0.1, prior_mean=NAN),
        "prior_mean",
        "finite",
    ),
    Bad("gp-add-y-nan", lambda p: p.add([0.5, 0.5], NAN), "y", "finite", subject=POSTERIOR),
    Bad("gp-add-x-dim", lambda p: p.add([0.5], 1.0), "x", r"shape \(2,\)", subject=POSTERIOR),
    Bad(
        "gp-add-noise-0",
        lambda p: p.add([0.5, 0.5], 1.0, noise_var=-1.0),
        "noise_var",
        FINITE_POSITIVE,
        subject=POSTERIOR,
    ),
    Bad(
        "gp-add-batch-lengths",
        lambda p: p.add_batch(GRID.points[:3], [1.0, 2.0]),
        "y",
        "length 3",
        subject=POSTERIOR,
    ),
    Bad(
        "gp-predict-dim", lambda p: p.predict(np.zeros((2, 3))), "X", "2 columns", subject=POSTERIOR
    ),
    Bad("gp-predict-nan", lambda p: p.predict([[NAN, 0.0]]), "X", "finite", subject=POSTERIOR),
    Bad(
        "gp-sample-n-0",
        lambda p: p.sample(GRID.points[:2], 0, rng=0),
        "n_samples",
        ">= 1",
        subject=POSTERIOR,
    ),
    Bad(
        "gp-sample-rng",
        lambda p: p.sample(GRID.points[:2], 1, rng="x"),
        "rng",
        ALLOWED_SEED,
        subject=POSTERIOR,
    ),
    _b(
        "nystrom-lam-0",
        lambda: NystromPosterior(RBF(0.2), 0.0, GRID.points[:2], GRID.points[:2], [0.0, 1.0]),
        "lam",
        FINITE_POSITIVE,
    ),
    _b(
        "nystrom-dictionary-nan",
        lambda: NystromPosterior(RBF(0.2), 0.1, [[NAN, 0.0]], GRID.points[:2], [0.0, 1.0]),
        "dictionary",
        "finite",
    ),
    _b(
        "information-gain-noise",
        lambda: information_gain(RBF(0.2), GRID.points[:2], -1.0),
        "noise_var",
        "positive",
    ),
    _b("ml-refit-every-0", lambda: MaximumLikelihood(0), "refit_every", ">= 1"),
    _b("ml-n-restarts-negative", lambda: MaximumLikelihood(n_restarts=-1), "n_restarts", ">= 0"),
    _b("map-n-starts-negative", lambda: MaximumAPosteriori(n_starts=-1), "n_starts", ">= 0"),
    _b(
        "rff-n-features-0",
        lambda: RandomFourierFeatures(RBF(0.2), 0, seed=0, dim=2),
        "n_features",
        "positive integer",
    ),
    _b(
        "rff-kernel",
        lambda: RandomFourierFeatures(Linear(), 10, seed=0, dim=2),
        "kernel",
        "RBF|Matern|stationary",
    ),
]

# -- problems -------------------------------------------------------------------------------
PROBLEMS = [
    _b(
        "bohachevsky-noise-negative",
        lambda: Bohachevsky(noise_std=-0.1),
        "noise_std",
        "non-negative",
    ),
    _b("bohachevsky-dim-0", lambda: Bohachevsky(dim=0), "dim", ">= 2"),
    _b("branin-noise-str", lambda: Branin(noise_std="0.1"), "noise_std", "non-negative"),
    _b("function-problem-f", lambda: FunctionProblem(3.0, LINE), "f", "callable"),
    _b(
        "function-problem-domain",
        lambda: FunctionProblem(np.sin, [0.0, 1.0]),
        "domain",
        "Grid or a Box",
    ),
    _b("gp-sample-problem-box", lambda: GPSampleProblem(BOX, RBF(0.2)), "grid", "Grid"),
    _b(
        "gp-sample-problem-seed",
        lambda: GPSampleProblem(LINE, RBF(0.2), seed="1"),
        "seed",
        ALLOWED_SEED,
    ),
    _b("problem-f-dim", lambda: Branin().f([[0.5]]), "X", "2 columns"),
    _b("problem-regret-nan", lambda: Branin().regret([[NAN, 0.0]]), "X", "finite"),
    _b("problem-evaluate-rng", lambda: Branin().evaluate([0.5, 0.5], 3), "rng", "numpy Generator"),
]

# -- quantum --------------------------------------------------------------------------------
QUANTUM = [
    _b("bernoulli-mean", lambda: BernoulliReward(1.5), "mean", r"\[0, 1\]"),
    _b("gaussian-sd", lambda: GaussianReward(0.0, -1.0), "sd", FINITE_POSITIVE),
    _b("iae-alpha", lambda: SimulatedIAE(alpha=1.5), "alpha", r"\(0, 1\)"),
    _b("iae-shots", lambda: SimulatedIAE(shots=0), "shots", "positive integer"),
    _b("qae-m", lambda: SimulatedCanonicalQAE(m=0), "m", r"integer in \[1, 24\]"),
    _b(
        "amplitude-eps",
        lambda: amplitude_problem(BernoulliReward(0.5), 0.0),
        "eps",
        FINITE_POSITIVE,
    ),
    _b(
        "estimate-eps",
        lambda: SimulatedIAE().estimate(BernoulliReward(0.5), -0.1, 0.1, np.random.default_rng(0)),
        "eps",
        FINITE_POSITIVE,
    ),
    _b(
        "estimate-delta",
        lambda: SimulatedIAE().estimate(BernoulliReward(0.5), 0.1, 1.0, np.random.default_rng(0)),
        "delta",
        r"\(0, 1\)",
    ),
]

# -- scalarisations, acquisitions, meta-learners -------------------------------------------
OTHERS = [
    _b(
        "chebyshev-reference-nan", lambda: ChebyshevScalarization([NAN, 0.0]), "reference", "finite"
    ),
    _b(
        "expected-weights-negative",
        lambda: ExpectedScalarization(LinearScalarization(), [[-0.5, 1.5]]),
        "weights",
        "strictly positive",
    ),
    _b(
        "expected-weights-sum",
        lambda: ExpectedScalarization(LinearScalarization(), [[0.2, 0.2]]),
        "weights",
        "sum to 1",
    ),
    _b(
        "linear-values-shape",
        lambda: LinearScalarization()(np.zeros((2, 3)), np.full((1, 2), 0.5)),
        "values",
        r"shape \(m, 2\)",
    ),
    _b("ucb-width-negative", lambda: UpperConfidenceBound(POST1, -1.0), "width", "non-negative"),
    _b("ei-incumbent-nan", lambda: ExpectedImprovement(POST1, NAN), "incumbent", "finite"),
    _b("ei-xi-negative", lambda: ExpectedImprovement(POST1, 0.0, xi=-1.0), "xi", "non-negative"),
    _b("ts-n-candidates-0", lambda: ThompsonSampling(POST1, 0), "n_candidates", ">= 1"),
    _b(
        "pointwise-name",
        lambda: pointwise_acquisition("lcb", POST1, 1.0, 0.0),
        "acquisition",
        r"'ucb', 'ei' or 'pi'",
    ),
    _b("box-optimizer-n-sobol", lambda: BoxOptimizer(n_sobol=0), "n_sobol", ">= 1"),
    _b("icm-map-rank-0", lambda: ICMMaximumAPosteriori(rank=0), "rank", ">= 1"),
    _b("se-dictionary-space", lambda: SEDictionary("x in [0, 1]"), "space", "SearchSpace"),
    _b(
        "se-dictionary-lengthscales",
        lambda: SEDictionary(SearchSpace([Float("x", 0.0, 1.0)]), (0.0,)),
        "lengthscales",
        r"\(0, 2\]",
    ),
    _b("cosine-dictionary-space", lambda: CosineDictionary(None), "space", "SearchSpace"),
    _b(
        "cosine-dictionary-frequencies",
        lambda: CosineDictionary(SearchSpace([Float("x", 0.0, 1.0)]), 0),
        "n_frequencies",
        ">= 1",
    ),
    _b("sobol-search-n-candidates", lambda: SobolSearch(n_candidates=0), "n_candidates", ">= 1"),
    _b("sobol-search-n-refine", lambda: SobolSearch(n_refine=-1), "n_refine", ">= 0"),
    _b("argmax-empty", lambda: argmax_random_tie(np.zeros(0), RNG), "values", "m >= 1"),
    _b(
        "maximize-acquisition-domain",
        lambda: maximize_acquisition(UpperConfidenceBound(POST1, 1.0), "[0, 1]", RNG),
        "domain",
        "a Grid or a Box",
        TypeError,
    ),
    _b(
        "best-observed-mean-shape",
        lambda: best_observed_mean(POST1, np.zeros((2, 3))),
        "X",
        "1 columns",
    ),
    _b(
        "box-optimizer-local-scale",
        lambda: BoxOptimizer(local_scale=0.0),
        "local_scale",
        "positive",
    ),
    _b(
        "base-kernels-groups",
        lambda: BaseKernels(CosineFeatures1D(4), [1, 2]),
        "group_sizes",
        "sum",
    ),
    _b(
        "metakgl-penalty",
        lambda: MetaKGL(BaseKernels(CosineFeatures1D(3)), -0.5, 0.25),
        "penalty",
        "positive",
    ),
    _b(
        "metakgl-normalization",
        lambda: MetaKGL(BaseKernels(CosineFeatures1D(3)), 0.5, 0.25, normalization="none"),
        "normalization",
        "per-task",
    ),
    _b(
        "fmetakgl-alpha",
        lambda: FMetaKGL(BaseKernels(CosineFeatures1D(3)), 0.5, 0.25, 1.5),
        "alpha",
        r"\[0, 1\]",
    ),
]

# -- the rest of the public API: one or more mistakes per constructor and function ------------
ICM2 = ICM.evgeniou(RBF(0.3), 2, omega=0.4)
BASE1 = BaseKernels(CosineFeatures1D(3))
TASK = (np.linspace(0.0, 1.0, 4)[:, None], np.zeros(4))
RNG = np.random.default_rng(0)
SRC3 = (GRID.points[:3], np.zeros(3), 0.01)


def _arm(x: Any) -> BernoulliReward:
    return BernoulliReward(0.5)


MORE = [
    # kernels and feature maps
    _b("featuremap-fn", lambda: FeatureMap(3, 2), "fn", "callable"),
    _b("featuremap-n-0", lambda: FeatureMap(lambda X: X, 0), "n_features", "integer >= 1"),
    _b("featurekernel-map", lambda: FeatureKernel(lambda X: X), "feature_map", "FeatureMap"),
    _b("product-not-a-kernel", lambda: Product(RBF(0.2), 2.0), "kernel", "Kernel"),
    _b("sum-first-not-a-kernel", lambda: Sum("a", RBF(0.2)), "kernel", "Kernel"),
    _b("independent-empty", lambda: IndependentTasks([]), "terms", "at least one"),
    _b(
        "independent-count",
        lambda: IndependentTasks([RBF(0.2), RBF(0.3)], n_tasks=3),
        "n_tasks",
        "2 kernels",
    ),
    _b("cosine2d-0", lambda: CosineFeatures2D(0), "n_features", "integer >= 1"),
    _b("separable-term", lambda: SeparableSum([(RBF(0.2),)]), "terms[0]", r"\(kernel, B\) pair"),
    _b("icm-base-str", lambda: ICM("rbf", np.eye(2)), "kernel", "Kernel"),
    # multi-task and lifelong policies
    _b(
        "itkb-n-tasks-0",
        lambda: ITKB(GRID, RBF(0.3), 0, LinearScalarization()),
        "n_tasks",
        "positive integer",
    ),
    _b(
        "itbkb-eps",
        lambda: ITBKB(GRID, RBF(0.3), 2, LinearScalarization(), eps=1.5),
        "eps",
        r"\(0, 1\)",
    ),
    _b(
        "mobo-lam-0",
        lambda: MOBO(GRID, RBF(0.3), 2, LinearScalarization(), lam=0.0),
        "lam",
        FINITE_POSITIVE,
    ),
    _b(
        "mtbkb-horizon-0",
        lambda: MTBKB(GRID, ICM2, LinearScalarization(), horizon=0),
        "horizon",
        "integer >= 1",
    ),
    _b(
        "mtbkb-no-horizon",
        lambda: MTBKB(GRID, ICM2, LinearScalarization()),
        "horizon",
        "or set qbar",
    ),
    _b(
        "mtkb-method",
        lambda: MTKB(GRID, ICM2, LinearScalarization(), method="fast"),
        "method",
        "'auto', 'block'",
    ),
    _b(
        "mtkb-noise-std",
        lambda: MTKB(GRID, ICM2, LinearScalarization(), noise_std=-1),
        "noise_std",
        "non-negative",
    ),
    _b("vector-random-0", lambda: VectorRandomPolicy(GRID, 0), "n_tasks", "integer >= 1"),
    _b(
        "libo-meta-data",
        lambda: LIBO(GRID, 3, MetaKGL(BASE1, 0.5, 0.25), meta_data="some"),
        "meta_data",
        "'exploration' or 'all'",
    ),
    _b("flibo-meta-learner", lambda: FLIBO(GRID, 3, "meta"), "meta_learner", "FMetaKGL"),
    _b("fixed-kernel-lifelong", lambda: FixedKernelLifelong(GRID, 3, "rbf"), "kernel", "Kernel"),
    _b(
        "offline-meta-data",
        lambda: OfflineMetaLearned(
            GRID, 3, MetaKGL(BASE1, 0.5, 0.25), [(np.zeros((2, 1)), np.zeros(3))]
        ),
        "tasks[0] y",
        "length 2",
    ),
    # wrappers, transfer, features, quantum policies
    _b(
        "affine-scale-0",
        lambda: AffineOutcome(RandomPolicy(GRID), 0.0, 0.0),
        "scale",
        FINITE_POSITIVE,
    ),
    _b("affine-policy", lambda: AffineOutcome("gp", 1.0, 0.0), "policy", "a Policy"),
    _b(
        "joint-gp-rho-0",
        lambda: JointGPUCB(GRID, SRC3, RBF(0.3), RBF(0.2), 0.01, rho=0),
        "rho",
        r"\(0, 1\)",
    ),
    _b(
        "diff-gp-noise",
        lambda: DiffGP(GRID, RBF(0.2), SRC3, -0.01, 2.0),
        "noise_var",
        FINITE_POSITIVE,
    ),
    _b(
        "env-gp-beta0",
        lambda: EnvGP(GRID, RBF(0.2), SRC3, 0.01, 2.0, beta0=0),
        "beta0",
        FINITE_POSITIVE,
    ),
    _b(
        "env-gp-source-var",
        lambda: EnvGP(GRID, RBF(0.2), SRC3, 0.01, 2.0, initial_source_var=-1),
        "initial_source_var",
        "non-negative",
    ),
    _b("feature-gpucb-features", lambda: FeatureGPUCB(GRID, 3), "features", "FeatureMap"),
    _b("random-policy-seed", lambda: RandomPolicy(GRID, seed="x"), "seed", ALLOWED_SEED),
    _b("qlinucb-box", lambda: QLinUCB(BOX, _arm), "domain", "Grid of arms"),
    _b(
        "qlinucb-beta",
        lambda: QLinUCB(GRID, _arm, beta="x"),
        "beta",
        "'thm6', 'wan', 'practical' or a number",
    ),
    _b("qgpucb-budget-0", lambda: QGPUCB(GRID, RBF(0.3), _arm, budget=0), "budget", "integer >= 1"),
    _b(
        "qgpucb-weighting",
        lambda: QGPUCB(GRID, RBF(0.3), _arm, weighting="x"),
        "weighting",
        "'paper' or 'authors'",
    ),
    _b(
        "qgpucb-queries",
        lambda: QGPUCB(GRID, RBF(0.3), _arm, queries="x"),
        "queries",
        "'estimator' or 'bound'",
    ),
    _b(
        "policy-tags-domains",
        lambda: PolicyTags(domains=("sphere",)),
        "domains",
        r"subset of \('grid', 'box'\)",
    ),
    _b(
        "check-policy-rounds",
        lambda: check_policy(lambda d, s: RandomPolicy(d, seed=s), rounds=0),
        "rounds",
        "integer >= 1",
    ),
    _b(
        "check-policy-checks",
        lambda: check_policy(lambda d, s: RandomPolicy(d, seed=s), checks=("nope",)),
        "checks",
        "the checks are",
    ),
    _b("check-policy-factory", lambda: check_policy("gp-ucb"), "factory", "callable"),
    _b("constant-beta-str", lambda: ConstantBeta("2"), "value", "non-negative"),
    _b("igpucb-noise", lambda: IGPUCBBeta(noise_std=-1), "noise_std", "non-negative"),
    _b("bkb-beta-delta", lambda: BKBBeta(delta=0), "delta", r"\(0, 1\)"),
    # problems and the runner
    _b(
        "rkhs-coefficients",
        lambda: RKHSFunctionProblem(LINE, RBF(0.2), [[0.5]], [1.0, 2.0]),
        "coefficients",
        "length 1",
    ),
    _b(
        "rkhs-centers-nan",
        lambda: RKHSFunctionProblem(LINE, RBF(0.2), [[NAN]], [1.0]),
        "centers",
        "finite",
    ),
    _b(
        "vector-problem-n-tasks",
        lambda: VectorProblem(
            lambda X: np.zeros((len(X), 2)),
            GRID,
            0,
            ExpectedScalarization(LinearScalarization(), [[0.5, 0.5]]),
        ),
        "n_tasks",
        "integer >= 1",
    ),
    _b(
        "vector-problem-score",
        lambda: VectorProblem(
            lambda X: np.zeros((len(X), 2)),
            GRID,
            2,
            ExpectedScalarization(LinearScalarization(), [[0.5, 0.5]]),
            score="x",
        ),
        "score",
        "'expected' or 'bayes'",
    ),
    _b(
        "tabular-rows",
        lambda: tabular_values(LINE, np.zeros(3)),
        "table",
        r"one row per grid point \(11\)",
    ),
    _b("tabular-nan", lambda: tabular_values(LINE, np.full((11, 2), NAN)), "table", "finite"),
    _b(
        "gp-sample-noise",
        lambda: GPSampleProblem(LINE, RBF(0.2), noise_std=-1),
        "noise_std",
        "non-negative",
    ),
    _b(
        "gp-sample-jitter",
        lambda: GPSampleProblem(LINE, RBF(0.2), jitter=-1),
        "jitter",
        "non-negative",
    ),
    _b("branin-domain-dim", lambda: Branin(domain=LINE), "domain", "dimension 2"),
    _b(
        "bohachevsky-bounds",
        lambda: Bohachevsky(bounds=([1, 1], [0, 0])),
        "lower and upper",
        "lower < upper",
    ),
    _b(
        "function-problem-optimizer",
        lambda: FunctionProblem(np.sin, LINE, optimizer=[0.5, 0.5]),
        "optimizer",
        r"shape \(1,\)",
    ),
    _b(
        "run-horizon-0",
        lambda: run(Branin(), RandomPolicy(Branin().domain, seed=0), 0, seed=0),
        "horizon",
        "integer >= 1",
    ),
    _b(
        "run-policy-str",
        lambda: run(Branin(), "gp-ucb", 5, seed=0),
        "policy",
        "a Policy or a factory",
    ),
    _b(
        "run-seed-negative",
        lambda: run(Branin(), RandomPolicy(Branin().domain, seed=0), 5, seed=-2),
        "seed",
        "non-negative integer",
    ),
    # quantum estimation
    _b(
        "gaussian-encoding-qubits",
        lambda: GaussianEncoding(0.0, 1.0, num_qubits=0),
        "num_qubits",
        r"integer in \[1, 16\]",
    ),
    _b("gaussian-encoding-sd", lambda: GaussianEncoding(0.0, 0.0), "sd", FINITE_POSITIVE),
    _b("amplitude-problem", lambda: AmplitudeProblem(1.5, 0.1, float), "amplitude", r"\[0, 1\]"),
    _b(
        "qmc-bound-delta",
        lambda: qmc_query_bound(0.1, 1.5, BernoulliReward(0.5)),
        "delta",
        r"\(0, 1\)",
    ),
    _b("canonical-qae-a", lambda: canonical_qae_distribution(1.5, 3), "a", r"\[0, 1\]"),
    _b("iae-default-shots", lambda: iae_default_shots(0.0, 0.05), "epsilon_target", r"\(0, 0.5\]"),
    _b(
        "iae-target-epsilon",
        lambda: iae_target_epsilon(BernoulliReward(0.5), -1),
        "eps",
        FINITE_POSITIVE,
    ),
    _b(
        "iterative-ae-shots",
        lambda: iterative_amplitude_estimation(lambda k, n: 0, 0.1, 0.05, 0),
        "shots",
        "positive integer",
    ),
    _b("iae-min-ratio", lambda: SimulatedIAE(min_ratio=1.0), "min_ratio", "larger than 1"),
    _b("iae-count", lambda: SimulatedIAE(count="x"), "count", "'grover' or 'oracle'"),
    _b(
        "classical-mc-eps",
        lambda: ClassicalMonteCarlo().estimate(BernoulliReward(0.5), 0.0, 0.1, RNG),
        "eps",
        FINITE_POSITIVE,
    ),
    # posteriors, learners, sampling
    _b("block-posterior-lam", lambda: BlockPosterior(ICM2, 0.0, 2), "lam", FINITE_POSITIVE),
    _b(
        "decoupled-input-dim", lambda: DecoupledPosterior(ICM2, 0.1, 0), "input_dim", "integer >= 1"
    ),
    _b(
        "eigen-scalar-kernel",
        lambda: EigenPosterior(RBF(0.2), 0.1, 2),
        "kernel",
        "multi-task kernel",
    ),
    _b(
        "vector-posterior-method",
        lambda: vector_posterior(ICM2, 0.1, 2, method="x"),
        "method",
        "'auto', 'block'",
    ),
    _b(
        "batch-posterior-y",
        lambda: batch_posterior(ICM2, 0.1, GRID.points[:2], np.zeros((3, 2)), GRID.points[:2]),
        "Y",
        r"shape \(2, 2\)",
    ),
    _b(
        "constant-mean-y",
        lambda: constant_mean(ICM2, 0.1, GRID.points[:2], np.zeros((3, 2))),
        "Y",
        r"shape \(2, 2\)",
    ),
    _b(
        "constant-mean-nan",
        lambda: constant_mean(ICM2, 0.1, GRID.points[:2], [[0.0, np.nan], [1.0, 2.0]]),
        "Y",
        "finite",
    ),
    _b(
        "constant-mean-empty",
        lambda: constant_mean(ICM2, 0.1, np.zeros((0, GRID.points.shape[1])), np.zeros((0, 2))),
        "observation",
        "at least one",
    ),
    _b(
        "constant-mean-lam",
        lambda: constant_mean(ICM2, 0.0, GRID.points[:2], np.zeros((2, 2))),
        "lam",
        "positive",
    ),
    _b(
        "nystrom-vector-y",
        lambda: nystrom_vector_posterior(
            ICM2, 0.1, GRID.points[:2], None, GRID.points[:2], np.zeros((2, 3))
        ),
        "Y",
        r"shape \(2, 2\)",
    ),
    _b(
        "source-target-noise",
        lambda: SourceTargetGP(RBF(0.2), GRID.points[:2], -1.0),
        "noise_var",
        FINITE_POSITIVE,
    ),
    _b("transfer-kernel", lambda: TransferKernel(RBF(0.2), "x", 2), "kernel", "Kernel"),
    _b(
        "delta-posterior-y",
        lambda: DeltaPosterior(RBF(0.2), RBF(0.2), 0.01, GRID.points[:2], [0.0], 0.01, 2),
        "y_source",
        "length 2",
    ),
    _b(
        "joint-posterior-noise",
        lambda: JointPosterior(RBF(0.2), RBF(0.2), 0.0, GRID.points[:2], [0.0, 1.0], 0.01, 2),
        "noise_var",
        FINITE_POSITIVE,
    ),
    _b("learner-estimator", lambda: HyperparameterLearner(3), "estimator", "callable"),
    _b(
        "learner-refit-every",
        lambda: HyperparameterLearner(lambda *a, **k: a[0], refit_every="x"),
        "refit_every",
        "'geometric'",
    ),
    _b(
        "fit-hyperparameters-noise",
        lambda: fit_hyperparameters(RBF(0.2), GRID.points[:3], np.zeros(3), -1.0),
        "noise_var",
        FINITE_POSITIVE,
    ),
    _b(
        "log-marginal-likelihood-y",
        lambda: log_marginal_likelihood(RBF(0.2), GRID.points[:3], np.zeros(2), 0.1),
        "y",
        "length 3",
    ),
    _b(
        "fit-constant-mean-y",
        lambda: fit_constant_mean_and_scale(RBF(0.2), GRID.points[:3], [0, NAN, 0], 0.1),
        "y",
        "finite",
    ),
    _b(
        "nystrom-weights",
        lambda: nystrom_embedding(RBF(0.2), GRID.points[:3], weights=[1.0, -1.0, 1.0]),
        "weights",
        "positive",
    ),
    _b(
        "nystrom-eps",
        lambda: nystrom_embedding(RBF(0.2), GRID.points[:3], eps=-1),
        "eps",
        "non-negative",
    ),
    _b("resample-qbar", lambda: resample_dictionary([0.1, 0.2], 0.0, RNG), "qbar", FINITE_POSITIVE),
    _b(
        "resample-variances",
        lambda: resample_dictionary([0.1, -0.2], 1.0, RNG),
        "variances",
        "non-negative",
    ),
    _b(
        "sample-gaussian-shapes",
        lambda: sample_gaussian(np.zeros(2), np.zeros((3, 3)), 1, RNG),
        "cov",
        r"shape \(m, m\)",
    ),
    _b(
        "rff-dim-0",
        lambda: RandomFourierFeatures(RBF(0.2), 10, seed=0, dim=0),
        "dim",
        "integer >= 1",
    ),
    # scalarisations, acquisitions, meta-learning
    _b(
        "chebyshev-reference-2d",
        lambda: ChebyshevScalarization([[0.0]]),
        "reference",
        r"shape \(n,\)",
    ),
    _b(
        "bayes-regret-shape",
        lambda: bayes_regret(
            np.zeros((3, 2)), np.zeros((4, 3)), LinearScalarization(), [[0.5, 0.5]]
        ),
        "chosen_values",
        r"shape \(m, 2\)",
    ),
    _b("check-weights-shape", lambda: check_weights([[0.5, 0.5]], 3), "weights", r"shape \(3,\)"),
    _b(
        "reference-below-margin",
        lambda: reference_point_below(np.zeros((3, 2)), margin=-1),
        "margin",
        FINITE_POSITIVE,
    ),
    _b(
        "expected-max-block",
        lambda: ExpectedScalarization(LinearScalarization(), [[0.5, 0.5]], max_block_floats=0),
        "max_block_floats",
        "integer >= 1",
    ),
    _b(
        "sample-weights-size",
        lambda: LinearScalarization().sample_weights(2, 0, RNG),
        "size",
        "integer >= 1",
    ),
    _b("ts-max-joint-0", lambda: ThompsonSampling(POST1, max_joint=0), "max_joint", "integer >= 1"),
    _b(
        "ehvi-shapes",
        lambda: expected_hypervolume_improvement(
            np.zeros((3, 2)), np.ones((3, 3)), np.zeros((1, 2)), np.ones((1, 2))
        ),
        "mean and sd",
        r"one shape \(c, n\)",
    ),
    _b(
        "ehvi-boxes",
        lambda: expected_hypervolume_improvement(
            np.zeros((3, 2)), np.ones((3, 2)), np.zeros(2), np.ones(2)
        ),
        "lower and upper",
        r"\(K, 2\)",
    ),
    _b(
        "log-ehvi-shapes",
        lambda: log_expected_hypervolume_improvement(
            np.zeros((3, 2)), np.ones((3, 3)), np.zeros((1, 2)), np.ones((1, 2))
        ),
        "mean and sd",
        r"one shape \(c, n\)",
    ),
    _b(
        "scalarized-ucb-width",
        lambda: ScalarizedUpperConfidenceBound(MT_POST, LinearScalarization(), [0.5, 0.5], -1.0),
        "width",
        "non-negative",
    ),
    _b(
        "scalarized-ucb-weight-2d",
        lambda: ScalarizedUpperConfidenceBound(MT_POST, LinearScalarization(), [[0.5, 0.5]], 1.0),
        "weight",
        "one weight vector",
    ),
    _b(
        "scalarized-ei-incumbent",
        lambda: ScalarizedExpectedImprovement(MT_POST, LinearScalarization(), [0.5, 0.5], NAN),
        "incumbent",
        "finite",
    ),
    _b(
        "ehvi-object-front",
        lambda: ExpectedHypervolumeImprovement(MT_POST, [[NAN, 0.0]], [0.0, 0.0]),
        "front",
        "finite",
    ),
    _b("central-difference-step", lambda: central_difference(np.sum, 0.0), "step", "positive"),
    _b(
        "non-dominated-boxes-reference",
        lambda: non_dominated_boxes(np.zeros((2, 2)), [0.0]),
        "reference",
        "n >= 2",
    ),
    _b("pareto-rows-1d", lambda: pareto_rows([1.0, 2.0]), "points", "(k, n)"),
    _b("pareto-rows-nan", lambda: pareto_rows([[NAN, 0.0]]), "points", "finite"),
    _b("box-optimizer-maxiter", lambda: BoxOptimizer(maxiter=0), "maxiter", "integer >= 1"),
    _b(
        "minimize-independently-starts-1d",
        lambda: minimize_independently(_SQUARE, np.zeros(2), _UNIT2, 10),
        "starts",
        "(k, d)",
    ),
    _b(
        "minimize-independently-starts-nan",
        lambda: minimize_independently(_SQUARE, [[NAN, 0.0]], _UNIT2, 10),
        "starts",
        "finite",
    ),
    _b(
        "minimize-independently-bounds",
        lambda: minimize_independently(_SQUARE, np.zeros((1, 2)), np.zeros((3, 2)), 10),
        "bounds",
        "(d, 2)",
    ),
    _b(
        "minimize-independently-bounds-order",
        lambda: minimize_independently(_SQUARE, np.zeros((1, 2)), [[1.0, 0.0], [0.0, 1.0]], 10),
        "bounds",
        "lower <= upper",
    ),
    _b(
        "minimize-independently-maxiter",
        lambda: minimize_independently(_SQUARE, np.zeros((1, 2)), _UNIT2, 0),
        "maxiter",
        "integer >= 1",
    ),
    _b("box-optimizer-starts", lambda: BoxOptimizer(n_starts=-1), "n_starts", "integer >= 0"),
    _b("base-kernels-map", lambda: BaseKernels("cos"), "feature_map", "FeatureMap"),
    _b("group-lasso-penalty", lambda: group_lasso(BASE1, [TASK], -1.0), "penalty", FINITE_POSITIVE),
    _b("group-lasso-no-task", lambda: group_lasso(BASE1, [], 0.1), "tasks", "at least one"),
    _b(
        "group-lasso-task-y",
        lambda: group_lasso(BASE1, [(TASK[0], np.zeros(3))], 0.1),
        "tasks[0] y",
        "length 4",
    ),
    _b(
        "fit-group-lasso-beta0",
        lambda: fit_group_lasso(BASE1, [TASK], 0.1, beta0=np.zeros(5)),
        "beta0",
        r"shape \(1, 3\)",
    ),
    _b("group-norms-beta", lambda: group_norms(BASE1, np.zeros(5)), "beta", r"shape \(s, 3\)"),
    _b(
        "meta-loss-beta",
        lambda: meta_loss(BASE1, [TASK], np.zeros(5), 0.1),
        "beta",
        r"shape \(1, 3\)",
    ),
    _b("metakgl-fit-no-task", lambda: MetaKGL(BASE1, 0.5, 0.25).fit([]), "tasks", "at least one"),
    _b("metakgl-omega", lambda: MetaKGL(BASE1, 0.5, -0.25), "omega", FINITE_POSITIVE),
    _b("gppi-xi", lambda: GPPI(GRID, RBF(0.2), xi=-0.1), "xi", "non-negative"),
    _b("pi-xi", lambda: ProbabilityOfImprovement(POST1, 0.0, xi=-1.0), "xi", "non-negative"),
    _b("acquisition-name", lambda: check_acquisition_name("lcb"), "acquisition", "'ts'"),
    _b("qiskit-iae-alpha", lambda: QiskitIAE(alpha=2.0), "alpha", r"\(0, 1\)"),
    _b(
        "block-nystrom-lam",
        lambda: BlockNystromPosterior(
            ICM2, 0.0, GRID.points[:2], None, GRID.points[:2], np.zeros((2, 2))
        ),
        "lam",
        FINITE_POSITIVE,
    ),
    _b(
        "decoupled-nystrom-y",
        lambda: DecoupledNystromPosterior(
            ICM2, 0.1, GRID.points[:2], None, GRID.points[:2], np.zeros((2, 3))
        ),
        "Y",
        r"shape \(2, 2\)",
    ),
    _b("psd-root-shape", lambda: psd_root(np.zeros((2, 3))), "cov", "square"),
    _b(
        "maximize-grid-scores",
        lambda: maximize_score(LINE, lambda X: X[:, 0], RNG, grid_scores=lambda: np.zeros(3)),
        "values",
        r"shape \(11,\)",
    ),
    _b(
        "fmetakgl-votes",
        lambda: FMetaKGL(BASE1, 0.5, 0.25, 0.5).aggregate([[7]]),
        "votes[0]",
        r"kernel indices in \[0, 3\)",
    ),
]

# -- online multi-task (Sessa et al.) --------------------------------------------------------
TAGGED = Grid(np.vstack([tag_tasks(np.eye(2), i) for i in range(2)]))  # 2 actions x 2 tasks


def _online(name: str) -> Subject:
    """An online multi-task policy told two observations at its own asks (tasks 0, 1); its
    state is its next ask for task 0 and its number of observations."""

    def make() -> Any:
        policy = (AdaMTUCB if name == "ada" else MultiTaskUCB)(TAGGED, Linear(), 2)
        for task in (0, 1):
            policy.set_task(task)
            policy.tell(policy.ask(), 0.5)
        return policy

    def observe(policy: Any) -> Any:
        policy.set_task(0)
        return policy.ask(), policy.n_observations

    return Subject(make, observe)


ONLINE_MULTITASK = [
    _b("tagged-tasks-not-multitask", lambda: TaggedTasks(RBF(0.2)), "multitask", "SeparableSum"),
    _b("interaction-negative", lambda: interaction_task_matrix(3, -1.0), "interaction", ">= 0"),
    _b(
        "interaction-form-not-psd",
        lambda: interaction_form([[1, 2], [2, 1]]),
        "task_matrix",
        "semi-definite",
    ),
    _b(
        "mtkb-improved-not-ab",
        lambda: MTKB(
            LINE, ICM(RBF(0.2), [[1.0, 0.1], [0.1, 2.0]]), LinearScalarization(), radius="improved"
        ),
        "radius",
        "A_b",
    ),
    _b("tag-tasks-fraction", lambda: tag_tasks(np.eye(2), [0, 0.5]), "tasks", "integer"),
    _b(
        "mt-ucb-radius", lambda: MultiTaskUCB(TAGGED, Linear(), 2, radius="wide"), "radius", "naive"
    ),
    _b("mt-ucb-untagged", lambda: MultiTaskUCB(GRID, Linear(), 2), "domain", "task index"),
    _b(
        "mt-ucb-interaction-nan",
        lambda: MultiTaskUCB(TAGGED, Linear(), 2, interaction=NAN),
        "interaction",
        ">= 0",
    ),
    _b(
        "mt-ucb-similarity-negative",
        lambda: MultiTaskUCB(TAGGED, Linear(), 2, similarity=-0.1),
        "similarity",
        ">= 0",
    ),
    _b(
        "ada-reward-bounds",
        lambda: AdaMTUCB(TAGGED, Linear(), 2, reward_bounds=[1, -1]),
        "reward_bounds",
        "r_min <= r_max",
    ),
    _b(
        "ada-grid-decreasing",
        lambda: AdaMTUCB(TAGGED, Linear(), 2, similarity_grid=[0.5, 0.2]),
        "similarity_grid",
        "increasing",
    ),
    Bad(
        "mt-ucb-tell-y-nan",
        lambda p: p.tell(TAGGED.points[0], NAN),
        "y",
        "finite",
        subject=_online("mt"),
    ),
    Bad(
        "mt-ucb-tell-x-off",
        lambda p: p.tell([0.5, 0.5, 0.0], 1.0),
        "x",
        "not a point of the grid",
        subject=_online("mt"),
    ),
    Bad("mt-ucb-set-task-range", lambda p: p.set_task(2), "task", "0..1", subject=_online("mt")),
    Bad(
        "ada-tell-y-inf",
        lambda p: p.tell(TAGGED.points[1], INF),
        "y",
        "finite",
        subject=_online("ada"),
    ),
    _b(
        "task-sequence-range",
        lambda: TaskSequenceProblem(TAGGED.points, np.zeros(4), [0, 2], 0.1),
        "task_sequence",
        "0..1",
    ),
    _b(
        "task-sequence-values",
        lambda: TaskSequenceProblem(TAGGED.points, np.zeros(3), [0], 0.1),
        "values",
        "4",
    ),
    _b(
        "linear-tasks-dim",
        lambda: LinearTaskSequence(np.eye(2), np.ones((2, 3)), [0], 0.1),
        "task_vectors",
        "2",
    ),
    _b("sessa-synthetic-tasks-0", lambda: sessa_synthetic(0, n_tasks=0), "n_tasks", ">= 1"),
]

TABLE = (
    KERNELS
    + DOMAINS
    + CONSTRUCTORS
    + POLICY_METHODS
    + POSTERIORS
    + PROBLEMS
    + ONLINE_MULTITASK
    + QUANTUM
    + OTHERS
    + MORE
)


#: public names the table does not call, and why: abstract bases and protocols (a user subclasses
#: them; their concrete classes are in the table), records the library builds and hands back,
#: and the vectorised acquisition math that policies call on arrays they built
NOT_CALLED = {
    "Trace": "a record returned by run(); its constructor is not for users",
    "PolicyCheckError": "raised by check_policy",
    "IAEOutcome": "a record returned by iterative_amplitude_estimation",
    "MeanEstimate": "a record returned by the estimators",
    "KernelEstimate": "a record returned by MetaKGL.fit",
    "NystromEmbedding": "built by nystrom_embedding (in the table)",
    "CandidatePosterior": "built by GPPosterior.track",
    "FittedSourceTarget": "built by SourceTargetGP.posterior",
    "GridTracked": "built by the policies over a posterior and the grid cache it made",
    "maximize_on_domain": "a retired spelling (tests/test_retired_spellings.py)",
    "device_noise_model": "needs qiskit-aer; no argument a user can get wrong but num_qubits",
    "log_h": "vectorised acquisition math on arrays a policy built",
    "log_ei_score": "vectorised acquisition math on arrays a policy built",
    "log_pi_score": "vectorised acquisition math on arrays a policy built",
    "ucb_score": "vectorised acquisition math on arrays a policy built",
}
PUBLIC_MODULES = [
    "kernelbandits",
    "kernelbandits.kernels",
    "kernelbandits.policies",
    "kernelbandits.problems",
    "kernelbandits.quantum",
    "kernelbandits.regression",
    "kernelbandits.metalearning",
    "kernelbandits.scalarization",
    "kernelbandits.acquisition",
    "kernelbandits.domains",
]


def test_every_public_constructor_and_function_is_in_the_table() -> None:
    source = Path(__file__).read_text(encoding="utf-8")
    table = source[source.index("# -- kernels ---") : source.index("#: public names the table")]
    missing = []
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            concrete_class = inspect.isclass(obj) and not (
                inspect.isabstract(obj) or getattr(obj, "_is_protocol", False)
            )
            callable_here = concrete_class or inspect.isfunction(obj)
            if (
                callable_here
                and name not in NOT_CALLED
                and not re.search(rf"\b{name}\b[(.]", table)
            ):
                missing.append(f"{module_name}.{name}")
    assert not missing, f"public names without a bad-input case: {missing}"


@pytest.mark.parametrize("case", params(TABLE))
def test_a_bad_input_is_a_clear_error_and_changes_nothing(case: Bad) -> None:
    assert_rejected(case)


def test_the_table_is_as_large_as_promised() -> None:
    assert len(TABLE) == promised_cases("tests/test_bad_input.py")
    assert {name for name in POLICY_FACTORIES} <= {c.id.split("-tell")[0] for c in POLICY_METHODS}
