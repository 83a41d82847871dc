"""The quantum paper's figures (Dai et al. 2023, Sec. 6 and App. J, Fig. 1-3).

Layout (Dai et al. 2023, Sec. 6 and App. J; mean +- 1 s.e., 10 synthetic / 5 AutoML
trials): cumulative regret against the number of oracle queries. Fig. 1 a row of four (a, b, c
GP-UCB vs Q-GP-UCB; d adds LinUCB and Q-LinUCB), Fig. 2 two panels with all four methods,
Fig. 3 three panels adding Q-GP-UCB under a device noise model.

Extra figures (no figure of the paper): the ablation of the authors' code, Fig. 1 on the
authors' own instance beside their published runs (dashed), and AutoML on breast cancer (the
Fig. 1 c-d layout).

One :class:`~kernelbandits.report.figures.PaperFigure` per figure, in the paper's layout (the
panels' metrics and bands: :mod:`kernelbandits.report.figures`); the package registers them.
"""

from __future__ import annotations

import functools

import numpy as np

from kernelbandits._validation import FloatArray
from kernelbandits.papers.quantum.experiments import (
    AUTHORS_FIXED_SEED_POLICY,
    AUTHORS_POLICY,
    REFERENCE,
)
from kernelbandits.report.figures import Panel, PaperFigure, Reference

_Q_X = "oracle queries"
_Q_Y = "cumulative regret"
_Q_GP = ("GP-UCB", "Q-GP-UCB", "Q-GP-UCB (authors' code)")
_Q_ABLATION = (
    "GP-UCB", "Q-GP-UCB", "Q-GP-UCB + y/eps^3 weighting", "Q-GP-UCB + lam = 1",
    "Q-GP-UCB + random initial arm", "Q-GP-UCB + fixed simulator seed",
    "Q-GP-UCB (authors' code)", "Q-GP-UCB (authors' code, fixed simulator seed)",
)  # fmt: skip
_Q_ALL = ("GP-UCB", "Q-GP-UCB", "LinUCB", "Q-LinUCB")
_Q_NOISE = ("GP-UCB", "Q-GP-UCB", "Q-GP-UCB (noisy)")


def _q(experiment: str, title: str, policies: tuple[str, ...]) -> Panel:
    return Panel(experiment, title, "cumulative", "se", policies, _Q_X, _Q_Y)


def published_curves(key: str, policy: str) -> tuple[FloatArray, FloatArray]:
    """The authors' runs ``(key, policy)``: queries ``1..T`` and cumulative regret ``(n, T)``."""
    from kernelbandits.datasets.quantum_authors import load_published_runs

    runs = load_published_runs(key, policy)
    return np.arange(1.0, runs.budget + 1.0), runs.cumulative()


def _published(key: str, policy: str, like: str) -> Reference:
    return Reference(
        f"{policy} (authors' runs)", functools.partial(published_curves, key, policy), like
    )


_Q_OURS = ("GP-UCB", AUTHORS_POLICY, AUTHORS_FIXED_SEED_POLICY)


def _authors_panel(setting: str, title: str) -> Panel:
    """Our GP-UCB and authors'-code runs on the authors' instance, their published runs dashed."""
    return Panel(
        f"q-authors-{setting}", title, "cumulative", "se", _Q_OURS, _Q_X, _Q_Y,
        references=(_published(setting, "GP-UCB", "GP-UCB"),
                    _published(setting, "Q-GP-UCB", AUTHORS_POLICY)),
    )  # fmt: skip


FIGURES = (
    PaperFigure(
        "quantum-fig1", "quantum",
        "Fig. 1: Q-GP-UCB vs GP-UCB (and linear bandits on AutoML)",
        f"{REFERENCE}, Fig. 1",
        (
            _q("q-synthetic-bernoulli", "(a) synthetic (Bernoulli)", _Q_GP),
            _q("q-synthetic-gaussian", "(b) synthetic (Gaussian)", _Q_GP),
            _q("q-automl-pima", "(c) AutoML", _Q_GP),
            _q("q-automl-pima", "(d) AutoML", _Q_ALL),
        ),
        "Cumulative regret per oracle query; mean ± 1 s.e. (a band for the paper's error bars). "
        "Q-GP-UCB is Alg. 1 as printed; 'Q-GP-UCB (authors' code)' adds the three departures of "
        "the authors' public code (quantum-ablation shows each alone). "
        "Deviation: the AutoML table is built on the 532-row MASS Pima data (the 768-row original "
        "is not available offline); QMC is simulated exactly.",
    ),
    PaperFigure(
        "quantum-ablation", "quantum",
        "Fig. 1a, one difference per curve: Alg. 1 vs the authors' code",
        f"{REFERENCE}, Fig. 1a; authors' code",
        (
            _q("q-synthetic-bernoulli-ablation", "(a) synthetic (Bernoulli)", _Q_ABLATION),
            Panel(
                "q-synthetic-bernoulli-ablation", "(b) the same, log scale", "cumulative", "se",
                _Q_ABLATION, _Q_X, _Q_Y, logy=True,
            ),
        ),
        "Each 'Q-GP-UCB + ...' curve differs from Q-GP-UCB (Alg. 1) by one departure of the "
        "authors' code: y weighted by 1/eps^3 in the mean instead of eq. (3)'s 1/eps^2; lam = 1 "
        "instead of 1 + 2/T (the same trajectories: no decision changes); one random initial arm "
        "at eps = 1; QMC with one fixed random stream for every job (their simulator seed). "
        "The weighting makes the rule lock onto the first arm it measures precisely; the fixed "
        "seed decides which arm that is. Not in the paper. Mean ± 1 s.e.",
    ),
    PaperFigure(
        "quantum-fig2", "quantum",
        "Fig. 2: Synthetic experiments with LinUCB and Q-LinUCB",
        f"{REFERENCE}, App. J, Fig. 2",
        (
            _q("q-synthetic-bernoulli", "(a) synthetic, Bernoulli noise", _Q_ALL),
            _q("q-synthetic-gaussian", "(b) synthetic, Gaussian noise", _Q_ALL),
        ),
        "Cumulative regret per oracle query; mean ± 1 s.e.",
    ),
    PaperFigure(
        "quantum-fig3", "quantum",
        "Fig. 3: Q-GP-UCB under simulated quantum (device) noise",
        f"{REFERENCE}, App. J, Fig. 3",
        (
            _q("q-synthetic-bernoulli-device-noise", "(a) synthetic, Bernoulli noise", _Q_NOISE),
            _q("q-synthetic-gaussian-device-noise", "(b) synthetic, Gaussian noise", _Q_NOISE),
            _q("q-automl-pima-device-noise", "(c) AutoML", _Q_NOISE),
        ),
        "Deviation: the device noise model is that of qiskit's GenericBackendV2 (a synthetic "
        "IBM-like backend), not a fake IBM backend. Mean ± 1 s.e. Fig. 4 (a real IBM device) "
        "cannot be reproduced.",
    ),
    PaperFigure(
        "quantum-authors", "quantum",
        "Fig. 1 on the authors' own instance: our runs beside their published runs",
        f"{REFERENCE}, Fig. 1; the authors' result files (daizhongxiang/"
        "Quantum_Bayesian_Optimization at cc1e768)",
        (
            _authors_panel("synthetic-bernoulli", "(a) synthetic, Bernoulli"),
            _authors_panel("synthetic-gaussian-0.3", "(b) synthetic, Gaussian sd 0.3"),
            _authors_panel("synthetic-gaussian-0.4", "(b) synthetic, Gaussian sd 0.4"),
            _authors_panel("automl-0.01", "(c) AutoML, sd 0.01"),
            _authors_panel("automl-0.05", "(c) AutoML, sd 0.05"),
            Panel(
                "q-authors-automl-0.05", "(d) AutoML, sd 0.05, linear bandits", "cumulative",
                "se", ("LinUCB", "Q-LinUCB"), _Q_X, _Q_Y,
                references=(_published("automl-0.05", "LinUCB", "LinUCB"),
                            _published("automl-0.05", "Q-LinUCB", "Q-LinUCB")),
            ),
        ),
        "Solid: our runs on the authors' function, SVM table and feature draws (the same for "
        "every seed, as in their runs); dashed: their published runs, read from their result "
        "files and scored as their analyze.ipynb scores them. 'Q-GP-UCB (authors' code)' is "
        "Alg. 1 with their code's three departures; '... fixed simulator seed' adds their QMC's "
        "common random numbers (every IAE job reads one random stream, their Aer "
        "seed_simulator=0). Mean ± 1 s.e. (10 synthetic / 5 AutoML runs each).",
        ncols=3,
    ),
    PaperFigure(
        "quantum-automl-noise", "quantum",
        "Extra: Fig. 1c, 1d on our Pima table at the authors' noise levels",
        f"{REFERENCE}, Fig. 1c, 1d; the reward noise of the authors' AutoML runs",
        (
            _q("q-automl-pima-sd0.01", "(c) AutoML, sd 0.01", _Q_GP),
            _q("q-automl-pima-sd0.01", "(d) AutoML, sd 0.01", _Q_ALL),
            _q("q-automl-pima-sd0.05", "(c) AutoML, sd 0.05", _Q_GP),
            _q("q-automl-pima-sd0.05", "(d) AutoML, sd 0.05", _Q_ALL),
        ),
        "As quantum-fig1 (c, d), with Gaussian rewards of sd 0.01 and 0.05 (the authors' files) "
        "instead of 0.4. Not in the paper. Mean ± 1 s.e.",
        ncols=2,
    ),
    PaperFigure(
        "quantum-breast-cancer", "quantum",
        "Extra: Q-GP-UCB on AutoML, SVM on breast cancer",
        f"{REFERENCE}, Fig. 1c, 1d (second data set)",
        (
            _q("q-automl-breast-cancer", "(c) AutoML, breast cancer", _Q_GP),
            _q("q-automl-breast-cancer", "(d) AutoML, breast cancer", _Q_ALL),
        ),
        "The layout of Fig. 1 (c, d) on a second data set (UCI breast cancer). Not in the paper. "
        "Mean ± 1 s.e.",
    ),
)  # fmt: skip
