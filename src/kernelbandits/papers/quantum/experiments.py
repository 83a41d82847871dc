"""Dai, Lau, Verma, Shu, Low & Jaillet (2023), *Quantum Bayesian Optimization*: the experiments of
Sec. 6 and App. J (Fig. 1-3). Importing this module registers them.

Regret is counted per oracle query (one query = one classical pull), so classical GP-UCB and
LinUCB, which pull one arm per round, and the staged Q-GP-UCB and Q-LinUCB, which spend a whole
stage of queries on one arm, share the x axis.

Shared settings (App. J): random Fourier features of the SE kernel (normalised as in the
authors' code) for GP-UCB and Q-GP-UCB, ``M = 100`` synthetic and ``200`` AutoML, drawn from the
policy's seed; Q-GP-UCB ``beta_s = 1 + log s``; GP-UCB ``beta = sqrt(2)`` (synthetic) or 1
(AutoML), the paper's best; QMC by iterative amplitude estimation with ``alpha = 0.05`` per
stage, Clopper-Pearson intervals — by default its exact classical simulation
(:class:`~kernelbandits.quantum.SimulatedIAE`); each ``*-qiskit`` twin runs the same experiment
on Qiskit Aer circuits (extra ``quantum``; ``kernelbandits reproduce <id> --estimator qiskit``).
Queries are charged as the authors' code charges them: Qiskit's ``num_oracle_queries`` (Grover
operator applications), with their substitute when IAE needs no Grover step
(:func:`~kernelbandits.quantum.estimators.charged_queries`).

Decisions on points the paper leaves open (also in each description):

* **lam** of the (weighted) ridge: ``1 + 2/T`` (Thm 3's ``1 + eta``) for Q-GP-UCB and GP-UCB
  alike; Q-LinUCB and LinUCB ``lam = 1``.
* **Gaussian noise sd**: 0.4, the value the paper's Fig. 4 caption gives for its real-device run
  (Fig. 1 does not state it; the theory needs ``sigma > 1/4``), on the synthetic function and on
  AutoML.
* **Linear bandits**: ``phi(x) = x`` (the paper's ``f(x) = x^T theta*``), ``S = 1``; LinUCB with
  the radius of Abbasi-Yadkori et al. (Thm 2), Q-LinUCB with Thm 6's. Without an intercept the
  model forces ``f(0) = 0``, so on [0, 1] with positive rewards both play ``x = 1`` in every
  round (the authors' code has the same map). ``"LinUCB (intercept)"`` and
  ``"Q-LinUCB (intercept)"`` use ``phi(x) = (1, x)`` (:class:`~kernelbandits.kernels.AffineFeatures`)
  with ``S = 2``: a linear baseline that can explore (not in the paper).
* **Queries per stage**: what the estimator spent (IAE is adaptive); the last stage is cut at
  the budget (see :mod:`kernelbandits.policies.quantum`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Literal

import numpy as np

from kernelbandits.experiments.spec import ExperimentSpec, register
from kernelbandits.papers._common import (
    PolicyFactories,
    ProblemFactory,
    paper_spec,
    random_policy,
)

if TYPE_CHECKING:
    from kernelbandits.kernels import AffineFeatures
    from kernelbandits.policies.base import Policy
    from kernelbandits.problems.base import Problem
    from kernelbandits.problems.quantum import RewardProblem
    from kernelbandits.quantum.base import MeanEstimator
    from kernelbandits.regression import RandomFourierFeatures

REFERENCE = "Dai et al. (2023), Quantum Bayesian Optimization"
SYNTHETIC_BUDGET, SYNTHETIC_TRIALS, SYNTHETIC_ARMS = 10_000, 10, 20
SYNTHETIC_LENGTHSCALE, SYNTHETIC_FEATURES = 0.1, 100
AUTOML_BUDGET, AUTOML_TRIALS, AUTOML_FEATURES = 5_000, 5, 200
AUTOML_VARIANCE, AUTOML_GP_LENGTHSCALE, AUTOML_Q_LENGTHSCALE = 0.5, 1.0, 0.2
GAUSSIAN_SD = 0.4
STAGE_ALPHA = 0.05
Estimator = Literal["simulator", "qiskit"]
AUTHORS_POLICY = "Q-GP-UCB (authors' code)"
#: the authors' code with their fixed simulator seed: every IAE job of every stage reads the
#: same random stream (common random numbers), as ``seed_simulator=0`` does in their Aer runs
AUTHORS_FIXED_SEED_POLICY = "Q-GP-UCB (authors' code, fixed simulator seed)"
AuthorsInstanceName = Literal["synthetic", "automl"]
PublishedFeatures = tuple[AuthorsInstanceName, Literal["GP-UCB", "Q-GP-UCB"]]
#: the reward noise of the authors' own runs: synthetic Gaussian sd, AutoML sd
#: ``S`` of the linear bandits with an intercept, ``phi(x) = (1, x)`` (decision: a mean reward
#: in [0, 1] that is linear in x in [0, 1]^d has coefficients of size about 1 each)
INTERCEPT_NORM_BOUND = 2.0
LINEAR_INTERCEPT, Q_LINEAR_INTERCEPT = "LinUCB (intercept)", "Q-LinUCB (intercept)"
AUTHORS_GAUSSIAN_SDS: tuple[float, ...] = (0.3, 0.4)
AUTHORS_AUTOML_SDS: tuple[float, ...] = (0.01, 0.05)


# -- problems ---------------------------------------------------------------------------------
def synthetic_problem(reward: Literal["bernoulli", "gaussian"], seed: int) -> Problem:
    """Sec. 6: a GP sample (SE, lengthscale 0.1) on 20 equally spaced points of [0, 1], min-max
    scaled to [0, 1], observed through Bernoulli or Gaussian rewards."""
    from kernelbandits.domains import Grid
    from kernelbandits.kernels import RBF
    from kernelbandits.problems.quantum import RewardProblem, scaled_gp_sample

    grid = Grid.linspace(0.0, 1.0, SYNTHETIC_ARMS)
    values = scaled_gp_sample(grid, RBF(SYNTHETIC_LENGTHSCALE), np.random.default_rng([seed, 31]))
    sd = GAUSSIAN_SD if reward == "gaussian" else None
    return RewardProblem(grid, values, reward, noise_std=sd, name=f"gp-sample-{reward}")


def automl_problem(table: str, seed: int, *, sd: float = GAUSSIAN_SD) -> Problem:
    """Sec. 6: SVM (C, gamma) on a 5 x 5 grid, validation accuracy with Gaussian rewards of
    standard deviation ``sd`` (the table from ``scripts/build_svm_tables.py``; every seed plays
    the same table)."""
    del seed
    from kernelbandits.datasets import load_svm_table
    from kernelbandits.domains import Grid
    from kernelbandits.problems.quantum import RewardProblem

    t = load_svm_table(table)
    return RewardProblem(Grid(t.points), t.accuracy, "gaussian", noise_std=sd, name=f"svm-{table}")


def authors_problem(
    instance: AuthorsInstanceName, reward: Literal["bernoulli", "gaussian"], sd: float | None,
    seed: int,
) -> Problem:  # fmt: skip
    """The authors' own instance (:mod:`kernelbandits.datasets.quantum_authors`): their 20-arm
    synthetic function or their SVM table, the same for every seed, with Bernoulli rewards or
    Gaussian rewards of standard deviation ``sd``."""
    del seed
    from kernelbandits.datasets.quantum_authors import load_authors_instance
    from kernelbandits.domains import Grid
    from kernelbandits.problems.quantum import RewardProblem

    inst = load_authors_instance(instance)
    name = f"authors-{instance}-{reward}" + ("" if sd is None else f"-{sd:g}")
    return RewardProblem(Grid(inst.points), inst.values, reward, noise_std=sd, name=name)


def _reward_problem(problem: Problem) -> RewardProblem:
    from kernelbandits.problems.quantum import RewardProblem

    if not isinstance(problem, RewardProblem):
        raise ValueError(f"expected a RewardProblem; got {type(problem).__name__}")
    return problem


# -- policies ---------------------------------------------------------------------------------
def _estimator(
    kind: Estimator, noisy: bool = False, simulator_seed: int | None = None
) -> MeanEstimator:
    """IAE as the authors ran it: Qiskit's query count, their substitute when it is 0
    (``simulator_seed``: every job reads one fixed stream, :class:`SimulatedIAE`'s
    ``fixed_seed``; simulator only)."""
    if simulator_seed is not None:
        if kind != "simulator" or noisy:
            raise ValueError("simulator_seed is an option of the exact simulation only")
        from kernelbandits.quantum.estimators import SimulatedIAE

        return SimulatedIAE(zero_query_fallback=True, fixed_seed=simulator_seed)
    if kind == "qiskit":
        from kernelbandits.quantum.qiskit_backend import QiskitIAE, device_noise_model

        noise = device_noise_model(7, seed=0) if noisy else None
        return QiskitIAE(noise_model=noise, zero_query_fallback=True)
    from kernelbandits.quantum.estimators import SimulatedIAE

    return SimulatedIAE(zero_query_fallback=True)


def _rff(
    problem: RewardProblem, lengthscale: float, variance: float, n: int, seed: int,
    published: PublishedFeatures | None = None,
) -> RandomFourierFeatures:  # fmt: skip
    """``n`` normalised random Fourier features of the SE kernel, drawn from the policy seed, or
    ``published = (instance, policy)``: the authors' own draw for that policy (every run of
    theirs used it), whose lengthscale, variance and ``M`` must be the ones asked for."""
    from kernelbandits.kernels import RBF
    from kernelbandits.regression import RandomFourierFeatures

    if published is not None:
        from kernelbandits.datasets.quantum_authors import (
            FEATURE_LENGTHSCALE,
            load_authors_instance,
        )

        features = load_authors_instance(published[0]).features(published[1])
        if (FEATURE_LENGTHSCALE[published], features.variance, features.n_features) != (
            lengthscale, variance, n,
        ):  # fmt: skip
            raise ValueError(f"the authors' features {published} are not SE({lengthscale}), "
                             f"variance {variance}, M = {n}")  # fmt: skip
        return features
    kernel = RBF(lengthscale, variance=variance)
    dim = problem.domain.dim
    rng = np.random.default_rng([seed, 5])
    return RandomFourierFeatures(kernel, n, seed=rng, dim=dim, normalize=True)


def _lam(budget: int) -> float:
    return 1.0 + 2.0 / budget  # Thm 3: lam = 1 + eta, eta = 2 / T


def gp_ucb(
    lengthscale: float, variance: float, n_features: int, beta: float, budget: int,
    problem: Problem, seed: int, *, published: AuthorsInstanceName | None = None,
) -> Policy:  # fmt: skip
    """Classical GP-UCB on random Fourier features (weight space), one query per round
    (``published``: on the authors' feature draw for GP-UCB on that instance)."""
    from kernelbandits.policies.linucb import FeatureGPUCB

    prob = _reward_problem(problem)
    drawn: PublishedFeatures | None = None if published is None else (published, "GP-UCB")
    feats = _rff(prob, lengthscale, variance, n_features, seed, drawn)
    return FeatureGPUCB(prob.domain, feats, noise_var=_lam(budget), beta=beta, seed=seed)


def q_gp_ucb(
    lengthscale: float, variance: float, n_features: int, budget: int, estimator: Estimator,
    noisy: bool, problem: Problem, seed: int, *, weighting: Literal["paper", "authors"] = "paper",
    lam: float | None = None, initial_stage: bool = False,
    published: AuthorsInstanceName | None = None, simulator_seed: int | None = None,
) -> Policy:  # fmt: skip
    """Q-GP-UCB (Alg. 1) with ``beta_s = 1 + log s`` on random Fourier features.

    ``weighting``, ``lam`` (default Thm 3's ``1 + 2/T``) and ``initial_stage`` switch on the
    authors' code's departures from Alg. 1 one at a time (:func:`authors_code` sets all three);
    ``published``: on the authors' feature draw for Q-GP-UCB on that instance;
    ``simulator_seed``: QMC with one fixed random stream for every job, as the authors' code
    seeds Aer (``seed_simulator=0``; see :data:`AUTHORS_FIXED_SEED_POLICY`)."""
    from kernelbandits.kernels import FeatureKernel
    from kernelbandits.policies.quantum import QGPUCB

    prob = _reward_problem(problem)
    drawn: PublishedFeatures | None = None if published is None else (published, "Q-GP-UCB")
    feats = _rff(prob, lengthscale, variance, n_features, seed, drawn)
    return QGPUCB(
        prob.domain, FeatureKernel(feats), prob.reward_distribution,
        _estimator(estimator, noisy, simulator_seed),
        budget=budget, lam=_lam(budget) if lam is None else lam, beta="practical",
        stage_delta=STAGE_ALPHA, weighting=weighting, initial_stage=initial_stage, seed=seed,
    )  # fmt: skip


def authors_code(
    policy: functools.partial[Policy],
) -> functools.partial[Policy]:
    """``policy`` (a partial :func:`q_gp_ucb`) as the authors' public code runs it: ``y``
    weighted by ``1/eps^3``, ``lam = 1`` and one random initial arm at ``eps = 1``."""
    return functools.partial(policy, weighting="authors", lam=1.0, initial_stage=True)


def _linear_map(problem: RewardProblem, intercept: bool) -> tuple[AffineFeatures | None, float]:
    """The linear bandits' feature map and norm bound ``S``: the paper's ``phi(x) = x`` with
    ``S = 1``, or ``(1, x)`` with :data:`INTERCEPT_NORM_BOUND`."""
    if not intercept:
        return None, 1.0
    from kernelbandits.kernels import AffineFeatures

    return AffineFeatures(problem.domain.dim), INTERCEPT_NORM_BOUND


def lin_ucb(problem: Problem, seed: int, *, intercept: bool = False) -> Policy:
    """LinUCB (Abbasi-Yadkori et al. 2011, Thm 2 radius) on ``phi(x) = x`` (``intercept``:
    on ``(1, x)``, a linear baseline that can explore)."""
    from kernelbandits.policies.linucb import LinUCB

    prob = _reward_problem(problem)
    feats, S = _linear_map(prob, intercept)
    return LinUCB(prob.domain, feats, lam=1.0, noise_std=prob.noise_std, norm_bound=S, seed=seed)


def q_lin_ucb(
    budget: int, estimator: Estimator, problem: Problem, seed: int, *, intercept: bool = False
) -> Policy:
    """Q-LinUCB (Wan et al. 2023) with Thm 6's radius on ``phi(x) = x`` (``intercept``: on
    ``(1, x)``)."""
    from kernelbandits.policies.quantum import QLinUCB

    prob = _reward_problem(problem)
    feats, S = _linear_map(prob, intercept)
    return QLinUCB(
        prob.domain, prob.reward_distribution, feats, _estimator(estimator), budget=budget,
        lam=1.0, norm_bound=S, beta="thm6", stage_delta=STAGE_ALPHA, seed=seed,
    )  # fmt: skip


# -- specs ------------------------------------------------------------------------------------
def _synthetic_policies(estimator: Estimator) -> dict[str, Callable[[Problem, int], Policy]]:
    ls, M, T = SYNTHETIC_LENGTHSCALE, SYNTHETIC_FEATURES, SYNTHETIC_BUDGET
    return {
        "GP-UCB": functools.partial(gp_ucb, ls, 1.0, M, float(np.sqrt(2.0)), T),
        "Q-GP-UCB": functools.partial(q_gp_ucb, ls, 1.0, M, T, estimator, False),
        "LinUCB": lin_ucb,
        "Q-LinUCB": functools.partial(q_lin_ucb, T, estimator),
        AUTHORS_POLICY: authors_code(functools.partial(q_gp_ucb, ls, 1.0, M, T, estimator, False)),
        LINEAR_INTERCEPT: functools.partial(lin_ucb, intercept=True),
        Q_LINEAR_INTERCEPT: functools.partial(q_lin_ucb, T, estimator, intercept=True),
        "Random": random_policy,
    }


def _automl_policies(estimator: Estimator) -> dict[str, Callable[[Problem, int], Policy]]:
    var, M, T = AUTOML_VARIANCE, AUTOML_FEATURES, AUTOML_BUDGET
    return {
        "GP-UCB": functools.partial(gp_ucb, AUTOML_GP_LENGTHSCALE, var, M, 1.0, T),
        "Q-GP-UCB": functools.partial(q_gp_ucb, AUTOML_Q_LENGTHSCALE, var, M, T, estimator, False),
        "LinUCB": lin_ucb,
        "Q-LinUCB": functools.partial(q_lin_ucb, T, estimator),
        AUTHORS_POLICY: authors_code(
            functools.partial(q_gp_ucb, AUTOML_Q_LENGTHSCALE, var, M, T, estimator, False)
        ),
        LINEAR_INTERCEPT: functools.partial(lin_ucb, intercept=True),
        Q_LINEAR_INTERCEPT: functools.partial(q_lin_ucb, T, estimator, intercept=True),
        "Random": random_policy,
    }


_COMMON = (
    "Regret per oracle query; Q-GP-UCB beta_s = 1 + log s, lam = 1 + 2/T for Q-GP-UCB and GP-UCB; "
    "QMC = iterative amplitude estimation, alpha = 0.05 per stage, charged as the authors' code "
    "charges it (Qiskit's num_oracle_queries, their substitute when that is 0); "
    "LinUCB / Q-LinUCB on phi(x) = x (Thm 2 / Thm 6 radii, lam = 1, S = 1); their "
    "'(intercept)' twins on phi(x) = (1, x), S = 2, a linear baseline that can explore (not in "
    "the paper: without the intercept both play x = 1 on the synthetic function). "
    "\"Q-GP-UCB (authors' code)\" adds the three departures of the authors' public code from "
    "Alg. 1: y weighted by 1/eps^3 instead of 1/eps^2 in the mean, lam = 1, and one random "
    "initial arm at eps = 1 (q-synthetic-bernoulli-ablation measures each alone). "
    "Random: a uniformly random arm every query (not in the paper; the floor of the claims)."
)


def _register(
    id: str, title: str, problem: ProblemFactory, policies: PolicyFactories, budget: int,
    trials: int, text: str, figure: str, settings: Mapping[str, object], variant_of: str = "",
) -> ExperimentSpec:  # fmt: skip
    return register(
        paper_spec(
            REFERENCE, figure, id, title, problem, policies, horizon=budget, n_seeds=trials,
            quick_horizon=min(budget, 600), text=text, settings=settings, note=_COMMON,
            variant_of=variant_of,
        )
    )  # fmt: skip


def _register_all(estimator: Estimator) -> None:
    suffix = "" if estimator == "simulator" else "-qiskit"
    how = (
        "QMC simulated exactly (SimulatedIAE)."
        if estimator == "simulator"
        else "QMC on Qiskit Aer circuits (QiskitIAE, extra 'quantum')."
    )
    synthetic = {
        "arms": SYNTHETIC_ARMS, "lengthscale": SYNTHETIC_LENGTHSCALE, "rff": SYNTHETIC_FEATURES,
        "budget": SYNTHETIC_BUDGET, "trials": SYNTHETIC_TRIALS, "gp_ucb_beta": "sqrt(2)",
    }  # fmt: skip
    rewards: tuple[tuple[Literal["bernoulli", "gaussian"], str], ...] = (
        ("bernoulli", "Fig. 1a, Fig. 2a"),
        ("gaussian", "Fig. 1b, Fig. 2b"),
    )
    for reward, fig in rewards:
        noise = (
            "Bernoulli rewards with mean f(x) (bounded noise)"
            if reward == "bernoulli"
            else f"Gaussian rewards, sd {GAUSSIAN_SD} (the value of the paper's Fig. 4 caption; Fig. 1 "
            "does not state it)"
        )
        _register(
            f"q-synthetic-{reward}{suffix}",
            f"Quantum BO, synthetic GP sample, {reward} rewards",
            functools.partial(synthetic_problem, reward),
            _synthetic_policies(estimator),
            SYNTHETIC_BUDGET,
            SYNTHETIC_TRIALS,
            f"{fig}: f a GP sample (SE, lengthscale 0.1) on 20 equally spaced points of [0, 1], "
            f"min-max scaled to [0, 1] (one function per seed); {noise}; budget 10^4 queries, "
            f"10 trials; GP-UCB and Q-GP-UCB on 100 RFF, GP-UCB beta = sqrt(2). {how}",
            fig,
            synthetic | {"reward": reward},
            variant_of=f"q-synthetic-{reward}" if suffix else "",
        )
    automl = {
        "grid": "5 x 5 (C, gamma) in [1e-4, 1]", "kernel_variance": AUTOML_VARIANCE,
        "lengthscale_gp_ucb": AUTOML_GP_LENGTHSCALE, "lengthscale_q_gp_ucb": AUTOML_Q_LENGTHSCALE,
        "rff": AUTOML_FEATURES, "budget": AUTOML_BUDGET, "trials": AUTOML_TRIALS,
    }  # fmt: skip
    for table, label, fig in (
        ("pima", "Pima diabetes", "Fig. 1c, 1d"),
        ("breast_cancer", "breast cancer", "Fig. 1c, 1d (second data set)"),
    ):
        _register(
            f"q-automl-{table.replace('_', '-')}{suffix}",
            f"Quantum BO, AutoML: SVM on {label}",
            functools.partial(automl_problem, table),
            _automl_policies(estimator),
            AUTOML_BUDGET,
            AUTOML_TRIALS,
            f"{fig}: RBF-SVM validation accuracy (70/30 split) on {label} over a 5 x 5 grid of "
            "(C, gamma) in [1e-4, 1] (equal spacing), a lookup table built by "
            "scripts/build_svm_tables.py (Pima: the 532 rows of MASS Pima.tr + Pima.te, the "
            f"768-row original being unavailable offline); Gaussian rewards, sd {GAUSSIAN_SD} "
            "(decision); SE kernel variance 0.5, lengthscale 1.0 (GP-UCB) and 0.2 (Q-GP-UCB), "
            f"200 RFF; GP-UCB beta = 1; budget 5000 queries, 5 trials. {how}",
            fig,
            automl | {"table": table},
            variant_of=f"q-automl-{table.replace('_', '-')}" if suffix else "",
        )


_register_all("simulator")
_register_all("qiskit")


def _register_device_noise() -> None:
    """Fig. 3: Q-GP-UCB with a simulated device noise model, against noiseless Q-GP-UCB and
    GP-UCB. Noise needs real circuits, so the noisy policy always runs Qiskit Aer."""
    problems = (
        ("synthetic-bernoulli", functools.partial(synthetic_problem, "bernoulli"), "Fig. 3a"),
        ("synthetic-gaussian", functools.partial(synthetic_problem, "gaussian"), "Fig. 3b"),
        ("automl-pima", functools.partial(automl_problem, "pima"), "Fig. 3c"),
    )
    for key, problem, fig in problems:
        synthetic = key.startswith("synthetic")
        base = _synthetic_policies("simulator") if synthetic else _automl_policies("simulator")
        ls, var, M = (
            (SYNTHETIC_LENGTHSCALE, 1.0, SYNTHETIC_FEATURES)
            if synthetic
            else (AUTOML_Q_LENGTHSCALE, AUTOML_VARIANCE, AUTOML_FEATURES)
        )
        T = SYNTHETIC_BUDGET if synthetic else AUTOML_BUDGET
        noisy = functools.partial(q_gp_ucb, ls, var, M, T, "qiskit", True)
        _register(
            f"q-{key}-device-noise",
            f"Quantum BO with device noise ({key})",
            problem,
            {"GP-UCB": base["GP-UCB"], "Q-GP-UCB": base["Q-GP-UCB"], "Q-GP-UCB (noisy)": noisy},
            T,
            SYNTHETIC_TRIALS if synthetic else AUTOML_TRIALS,
            f"{fig}: as q-{key}, plus Q-GP-UCB whose QMC runs on Qiskit Aer with a device noise "
            "model (extra 'quantum'): the noise of qiskit's GenericBackendV2 (a synthetic "
            "IBM-like backend, seed 0) through qiskit_aer.noise.NoiseModel.from_backend; the "
            "paper used a fake IBM backend, which needs the separate IBM runtime package. "
            "Each distinct circuit's outcome distribution is simulated once on Aer's "
            "density-matrix method and the shots are drawn from it (QiskitIAE's "
            "sampling='exact': Aer's law, a different random stream than Aer's own sampler).",
            fig,
            {"noise_model": "GenericBackendV2(7 qubits, seed 0)"},
        )


_register_device_noise()


def _register_ablation() -> None:
    """Fig. 1a, one difference per curve: Alg. 1 as printed, each departure of the authors' code
    alone, and all three together (what the code runs), against GP-UCB."""
    ls, M, T = SYNTHETIC_LENGTHSCALE, SYNTHETIC_FEATURES, SYNTHETIC_BUDGET
    q = functools.partial(q_gp_ucb, ls, 1.0, M, T, "simulator", False)
    policies: dict[str, Callable[[Problem, int], Policy]] = {
        "GP-UCB": _synthetic_policies("simulator")["GP-UCB"],
        "Q-GP-UCB": q,
        "Q-GP-UCB + y/eps^3 weighting": functools.partial(q, weighting="authors"),
        "Q-GP-UCB + lam = 1": functools.partial(q, lam=1.0),
        "Q-GP-UCB + random initial arm": functools.partial(q, initial_stage=True),
        "Q-GP-UCB + fixed simulator seed": functools.partial(q, simulator_seed=0),
        AUTHORS_POLICY: authors_code(q),
        AUTHORS_FIXED_SEED_POLICY: functools.partial(authors_code(q), simulator_seed=0),
    }
    _register(
        "q-synthetic-bernoulli-ablation",
        "Quantum BO: the authors' code vs Alg. 1, one difference at a time",
        functools.partial(synthetic_problem, "bernoulli"),
        policies,
        T,
        SYNTHETIC_TRIALS,
        "Fig. 1a setting (as q-synthetic-bernoulli). Each 'Q-GP-UCB + ...' curve differs from "
        "Q-GP-UCB (Alg. 1 as printed) by one departure of the authors' public code: the mean "
        "weights y by 1/eps^3 (rows scaled by 1/eps, y by 1/eps^2) instead of eq. (3)'s 1/eps^2; "
        "lam = 1 instead of 1 + 2/T; one uniformly random arm measured at eps = 1 before the "
        "first UCB stage; QMC with one fixed random stream for every job (their Aer "
        'seed_simulator=0: common random numbers). "Q-GP-UCB (authors\' code)" has the first '
        'three, "Q-GP-UCB (authors\' code, fixed simulator seed)" all four.',
        "Fig. 1a (ablation)",
        {"reward": "bernoulli", "budget": T, "trials": SYNTHETIC_TRIALS},
    )


_register_ablation()


def _authors_policies(
    instance: AuthorsInstanceName,
) -> dict[str, Callable[[Problem, int], Policy]]:
    """GP-UCB, Alg. 1 and the authors' code on the authors' feature draws (their settings:
    ``M``, lengthscales, variance and GP-UCB's ``beta`` as in :func:`_synthetic_policies` and
    :func:`_automl_policies`), the linear bandits and a random arm."""
    if instance == "synthetic":
        ls_gp = ls_q = SYNTHETIC_LENGTHSCALE
        var, M, T, beta = 1.0, SYNTHETIC_FEATURES, SYNTHETIC_BUDGET, float(np.sqrt(2.0))
    else:
        ls_gp, ls_q = AUTOML_GP_LENGTHSCALE, AUTOML_Q_LENGTHSCALE
        var, M, T, beta = AUTOML_VARIANCE, AUTOML_FEATURES, AUTOML_BUDGET, 1.0
    q = functools.partial(q_gp_ucb, ls_q, var, M, T, "simulator", False, published=instance)
    return {
        "GP-UCB": functools.partial(gp_ucb, ls_gp, var, M, beta, T, published=instance),
        "Q-GP-UCB": q,
        AUTHORS_POLICY: authors_code(q),
        AUTHORS_FIXED_SEED_POLICY: functools.partial(authors_code(q), simulator_seed=0),
        "LinUCB": lin_ucb,
        "Q-LinUCB": functools.partial(q_lin_ucb, T, "simulator"),
        LINEAR_INTERCEPT: functools.partial(lin_ucb, intercept=True),
        Q_LINEAR_INTERCEPT: functools.partial(q_lin_ucb, T, "simulator", intercept=True),
        "Random": random_policy,
    }


_AUTHORS_TEXT = (
    "On the authors' own instance, read from their repository "
    "(daizhongxiang/Quantum_Bayesian_Optimization at cc1e768) by "
    "scripts/build_quantum_authors_tables.py: {what}, the same for every seed, and their one "
    "draw of random Fourier features, which every run of theirs used (here every seed too). "
    "Their published runs of GP-UCB and Q-GP-UCB on it are in the table, scored as their "
    "analyze.ipynb scores them; the report draws them beside ours (figure quantum-authors) and "
    "the claim q-authors-code-reproduces-published compares R_T. Departures of our GP-UCB from "
    "their GP-UCB code: lam = 1 + 2/T instead of 1 and a UCB first arm instead of a random one."
)


def _register_authors_instance() -> None:
    """The Fig. 1 settings on the authors' instance, at the noise levels of their files."""
    synthetic = {"instance": "authors' synthetic function (20 arms)", "rff": "authors' draw"}
    settings: list[tuple[str, Literal["bernoulli", "gaussian"], float | None, str]] = [
        ("bernoulli", "bernoulli", None, "Fig. 1a"),
        *((f"gaussian-{sd:g}", "gaussian", sd, "Fig. 1b") for sd in AUTHORS_GAUSSIAN_SDS),
    ]
    for key, reward, sd, fig in settings:
        noise = "Bernoulli rewards" if sd is None else f"Gaussian rewards, sd {sd:g}"
        _register(
            f"q-authors-synthetic-{key}",
            f"Quantum BO on the authors' synthetic function, {noise}",
            functools.partial(authors_problem, "synthetic", reward, sd),
            _authors_policies("synthetic"),
            SYNTHETIC_BUDGET,
            SYNTHETIC_TRIALS,
            f"{fig} as the authors ran it: {noise}; budget 10^4 queries, 10 trials. "
            + _AUTHORS_TEXT.format(
                what="their synthetic function (20 arms on [0, 1], optimum 1 at x = 0.737)"
            ),
            f"{fig} (authors' instance)",
            synthetic | {"reward": reward, "noise_sd": sd},
        )
    for sd in AUTHORS_AUTOML_SDS:
        _register(
            f"q-authors-automl-{sd:g}",
            f"Quantum BO on the authors' SVM table, Gaussian rewards, sd {sd:g}",
            functools.partial(authors_problem, "automl", "gaussian", sd),
            _authors_policies("automl"),
            AUTOML_BUDGET,
            AUTOML_TRIALS,
            f"Fig. 1c, 1d as the authors ran it: Gaussian rewards, sd {sd:g}; budget 5000 "
            "queries, 5 trials. "
            + _AUTHORS_TEXT.format(what="their SVM table (RBF SVC on the 768-row Pima data, no "
                                   "feature scaling, 70/30 split, their 25 arms; 21 arms at "
                                   "the majority-class accuracy 0.6494, optimum 0.7619)"),
            "Fig. 1c, 1d (authors' instance)",
            {"instance": "authors' SVM table (25 arms)", "rff": "authors' draws",
             "noise_sd": sd},
        )  # fmt: skip


_register_authors_instance()


def _register_automl_noise() -> None:
    """``q-automl-pima`` at the noise levels of the authors' AutoML runs."""
    for sd in AUTHORS_AUTOML_SDS:
        _register(
            f"q-automl-pima-sd{sd:g}",
            f"Quantum BO, AutoML: SVM on Pima diabetes, reward sd {sd:g}",
            functools.partial(automl_problem, "pima", sd=sd),
            _automl_policies("simulator"),
            AUTOML_BUDGET,
            AUTOML_TRIALS,
            f"As q-automl-pima with Gaussian rewards of sd {sd:g}, a noise level of the authors' "
            "own AutoML runs (their files: sd 0.01 and 0.05), instead of 0.4.",
            "Fig. 1c, 1d (the authors' noise level)",
            {"table": "pima", "noise_sd": sd, "budget": AUTOML_BUDGET},
        )


_register_automl_noise()


def qiskit_variant(spec_id: str) -> str:
    """The id of ``spec_id``'s twin run on Qiskit circuits; ``ValueError`` if it has none."""
    from kernelbandits.experiments.spec import get

    twin = spec_id if spec_id.endswith("-qiskit") else f"{spec_id}-qiskit"
    try:
        get(twin)
    except ValueError:
        raise ValueError(f"experiment {spec_id!r} has no Qiskit variant") from None
    return twin
