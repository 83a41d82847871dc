"""The transfer paper's figures (Lin et al., Sec. 6 and App. C, Fig. 1-2).

Layout (Lin et al., Sec. 6 and App. C; 95% intervals ``+- 1.96 sd / sqrt(n)``, 100
AutoML / 30 synthetic replications): Fig. 1 cumulative and Fig. 2 average regret, each a row of
five panels (a GBoost, b MLP, c Gaussian kernel, d Bohachevsky, e assumptions-satisfied) with
the paper's seven methods. Fig. 2 is drawn from the *base* experiments with metric
``"average"`` (the ``-avg`` twins are the same runs and are never swept).

Extra figures (no figure of the paper): the HPOBench pair, DeltaBO against the exact joint model
it approximates (``Joint-GP``) and the N-sweeps.

One :class:`~kernelbandits.report.figures.PaperFigure` per figure, in the paper's layout (the
panels' metrics and bands: :mod:`kernelbandits.report.figures`); the package registers them.
"""

from __future__ import annotations

from kernelbandits.papers.transfer.experiments import REFERENCE
from kernelbandits.report.figures import Panel, PaperFigure

_TR_METHODS = ("DeltaBO", "GP-EI", "GP-PI", "GP-TS", "GP-UCB", "Env-GP", "Diff-GP")
_TR_X = "iteration $t$"
_TR_PANELS = (
    ("tr-automl-gboost", "(a) AutoML on GBoost"),
    ("tr-automl-mlp", "(b) AutoML on MLP"),
    ("tr-gaussian", "(c) Synthetic Gaussian kernel"),
    ("tr-bohachevsky", "(d) Synthetic Bohachevsky"),
    ("tr-assumption", "(e) Assumptions-satisfied setting"),
)
_TR_CI = "Mean ± 95% CI, 1.96 sd / sqrt(n) over the replications, as in the paper."


def _tr(experiment: str, title: str, metric: str, policies: tuple[str, ...] = ()) -> Panel:
    return Panel(experiment, title, metric, "ci95", policies or _TR_METHODS, _TR_X)


def _tr_sweep(experiment: str, title: str) -> Panel:
    return Panel(experiment, title, "n-sweep", "ci95", logx=True)


FIGURES = (
    PaperFigure(
        "transfer-fig1", "transfer", "Fig. 1: Cumulative regrets of all compared algorithms",
        f"{REFERENCE}, Fig. 1",
        tuple(_tr(e, t, "cumulative") for e, t in _TR_PANELS),
        "The paper's seven methods (the exact joint model Joint-GP is in transfer-joint-gp). "
        + _TR_CI,
    ),
    PaperFigure(
        "transfer-fig2", "transfer", "Fig. 2: Average regrets of all compared algorithms",
        f"{REFERENCE}, App. C.3, Fig. 2",
        tuple(_tr(e, t, "average") for e, t in _TR_PANELS),
        "The runs of Fig. 1 plotted as R_t / t (drawn from the base experiments). " + _TR_CI,
    ),
    PaperFigure(
        "transfer-hpobench", "transfer", "Extra: HPOBench MLP tables, credit_g -> australian",
        f"{REFERENCE}, Fig. 1b / 2b (HPOBench pair)",
        (
            _tr("tr-hpobench", "(a) cumulative regret", "cumulative", (*_TR_METHODS, "Joint-GP")),
            _tr("tr-hpobench", "(b) average regret", "average", (*_TR_METHODS, "Joint-GP")),
        ),
        "A second real source/target pair in the setting of Fig. 1b; not in the paper. " + _TR_CI,
    ),
    PaperFigure(
        "transfer-joint-gp", "transfer", "Extra: DeltaBO vs the exact joint model",
        f"{REFERENCE}, Fig. 1 (with Joint-GP)",
        tuple(_tr(e, t, "cumulative", ("DeltaBO", "Joint-GP", "GP-UCB")) for e, t in _TR_PANELS),
        "Joint-GP is the exact GP model of f = g + delta that DeltaBO approximates; GP-UCB on the "
        "target alone for reference. Not in the paper. " + _TR_CI,
    ),
    PaperFigure(
        "transfer-n-sweep", "transfer", "Extra: DeltaBO's final regret against the source size N",
        f"{REFERENCE}, Thm 1 (regret ~ sqrt(T (T / N + gamma_delta)))",
        (
            _tr_sweep("tr-gaussian-n-sweep", "(c) Synthetic Gaussian kernel"),
            _tr_sweep("tr-bohachevsky-n-sweep", "(d) Synthetic Bohachevsky"),
            _tr_sweep("tr-assumption-n-sweep", "(e) Assumptions-satisfied setting"),
        ),
        "R_T of DeltaBO using the first N of the source points (nested subsets), T = 30. Not in "
        "the paper. " + _TR_CI,
    ),
)  # fmt: skip
