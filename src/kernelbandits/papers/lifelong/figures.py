"""The lifelong paper's figures (Schur et al. 2023, Sec. 6 and App. G, Fig. 2, 3, 5, 6).

Layout (Schur et al. 2023, Sec. 6 and App. G; standard-error bands, 20 seeds): Fig. 2 one
per-task panel; Fig. 3 two lifelong cumulative-regret panels (left synthetic, right AutoML)
with grey lines at each new task; Fig. 5 two per-task panels (2-D cosines, Legendre); Fig. 6 a
2 x 2 grid (a, b on top; c, d below). Colours follow the paper's text: ``k_full`` red, ``k*``
blue, the meta-learner green (LIBO on all data a darker green), the federated one yellow.

Extra figure (no figure of the paper): the HPOBench sequence.

One :class:`~kernelbandits.report.figures.PaperFigure` per figure, in the paper's layout (the
panels' metrics and bands: :mod:`kernelbandits.report.figures`); the package registers them.
"""

from __future__ import annotations

import functools

from kernelbandits.papers.lifelong.experiments import REFERENCE
from kernelbandits.report.figures import Panel, PaperFigure

_LL_STEP = "step $t$ (tasks in sequence)"
_LL_Y = "lifelong cumulative regret"
_LL_LIFELONG = ("LIBO", "F-LIBO", "k_full", "k*")
#: the paper names its colours (Sec. 6.1, App. G.3): k_full red, k* blue, the meta-learner green
#: (LIBO on all data a darker green, to tell them apart in Fig. 6), the federated one yellow
#: (darkened to show on white)
_COLORS = (
    ("k_full", "tab:red"),
    ("k*", "tab:blue"),
    ("LIBO", "tab:green"),
    ("LIBO (all data)", "darkgreen"),
    ("META-KGL", "tab:green"),
    ("F-LIBO", "goldenrod"),
    ("F-META-KGL", "goldenrod"),
)


def _ll_offline(experiment: str, title: str) -> Panel:
    return Panel(
        experiment, title, "per-task", "se", ylabel="single-task cumulative regret, n = 70"
    )


def _ll_lifelong(experiment: str, title: str, policies: tuple[str, ...] = ()) -> Panel:
    return Panel(experiment, title, "cumulative", "se", policies, _LL_STEP, _LL_Y, task_lines=True)


#: a lifelong figure, in the paper's colours
_figure = functools.partial(PaperFigure, colors=_COLORS)

FIGURES = (
    _figure(
        "lifelong-fig2", "lifelong",
        "Fig. 2: GP-UCB with the meta-learned kernel against the number of meta-training tasks",
        f"{REFERENCE}, Fig. 2",
        (_ll_offline("ll-offline", "cosine basis, $\\mathcal{X} = [0, 1]$"),),
        "Single-task cumulative regret of 70 GP-UCB steps on a fresh task with the kernel "
        "meta-learned on m offline tasks (META-KGL, F-META-KGL), against k_full (red) and the "
        "oracle k* (blue); mean ± 1 s.e.",
    ),
    _figure(
        "lifelong-fig3", "lifelong",
        "Fig. 3: Lifelong cumulative regret of GP-UCB",
        f"{REFERENCE}, Fig. 3",
        (
            _ll_lifelong("ll-synthetic", "synthetic tasks (left)", _LL_LIFELONG),
            _ll_lifelong("ll-automl", "GLMNET hyperparameter tuning (right)", _LL_LIFELONG[:3]),
        ),
        "Grey vertical lines mark the start of a new task; no oracle on AutoML. Deviation: the "
        "GLMNET/OpenML lookup table is replaced by elastic-net logistic regression tables built "
        "with scikit-learn on real data sets (53 tasks of 144 arms). Mean ± 1 s.e.",
    ),
    _figure(
        "lifelong-fig5", "lifelong",
        "Fig. 5: Offline meta-learning with other base kernels",
        f"{REFERENCE}, App. G.3, Fig. 5",
        (
            _ll_offline("ll-offline-cosine2d", "2-D cosine basis (left)"),
            _ll_offline("ll-offline-legendre", "Legendre polynomials (right)"),
        ),
        "As Fig. 2 with 2-D cosine products on [0, 1]^2 and orthonormalised Legendre polynomials "
        "on [-1, 1]. Mean ± 1 s.e.",
    ),
    _figure(
        "lifelong-fig6", "lifelong",
        "Fig. 6: Lifelong regret, exploration data vs all data",
        f"{REFERENCE}, App. G.3, Fig. 6",
        (
            _ll_lifelong("ll-synthetic", "(a) cosines, exploration data"),
            _ll_lifelong("ll-synthetic-all-data", "(b) cosines, all data"),
            _ll_lifelong("ll-legendre", "(c) Legendre, exploration data"),
            _ll_lifelong("ll-legendre-all-data", "(d) Legendre, all data"),
        ),
        "Left: LIBO and F-LIBO meta-learn on the forced-exploration data; right: on all data. "
        "Deviation: F-LIBO is not re-run on all data in (b, d) (its clients' data are their own "
        "exploration points by design). Mean ± 1 s.e.",
        ncols=2,
    ),
    _figure(
        "lifelong-hpobench", "lifelong",
        "Extra: Lifelong GP-UCB tuning MLPs (HPOBench tables)",
        f"{REFERENCE}, Fig. 3 (right), second sequence",
        (_ll_lifelong("ll-hpobench", "HPOBench MLP, 8 data sets"),),
        "A second AutoML sequence in the layout of Fig. 3 (right): 8 HPOBench MLP tables of 100 "
        "arms. Not in the paper. Mean ± 1 s.e.",
    ),
)  # fmt: skip
