"""The multi-task paper's figures (Chowdhury & Gopalan 2021, Sec. 5 and App. E, Fig. 1-4).

Layout (Chowdhury & Gopalan 2021, Sec. 5 and App. E): Fig. 1-3 are rows of two panels
of the time-averaged cumulative regret ``R_C(t) / t`` with mean +- 1 sd ("mean and standard
deviation over 10 independent trials"); Fig. 4 one panel of the Bayes regret ``R_B(t)``, with
the same band (App. E does not say; decision).

One :class:`~kernelbandits.report.figures.PaperFigure` per figure, in the paper's layout (the
panels' metrics and bands: :mod:`kernelbandits.report.figures`); the package registers them.
"""

from __future__ import annotations

from kernelbandits.papers.multitask import sessa
from kernelbandits.papers.multitask.experiments import REFERENCE
from kernelbandits.report.figures import Panel, PaperFigure

_MT_Y = "average cumulative regret $R_C(t) / t$"
_MT_BAND = "Mean ± 1 standard deviation over the seeds (Sec. 5: 'mean and standard deviation')."


def _mt(experiment: str, title: str) -> Panel:
    return Panel(experiment, title, "average", "sd", ylabel=_MT_Y)


FIGURES: tuple[PaperFigure, ...] = (
    PaperFigure(
        "multitask-fig1", "multitask",
        "Fig. 1: MT-KB and MT-BKB vs IT-KB and IT-BKB on RKHS functions (Chebyshev)",
        f"{REFERENCE}, Fig. 1",
        (_mt("mt-rkhs-2", "(a) 2 tasks"), _mt("mt-rkhs-20", "(b) 20 tasks")),
        "Time-averaged cumulative regret of the expected Chebyshev-scalarised utility. Not in "
        "the paper: 'MT-KB (diagonal B)' (MT-KB without the task correlations) and 'Random'. "
        + _MT_BAND,
    ),
    PaperFigure(
        "multitask-fig2", "multitask",
        "Fig. 2: MT-KB, MT-BKB, IT-KB, IT-BKB and MOBO (Chebyshev)",
        f"{REFERENCE}, Fig. 2",
        (_mt("mt-sine", "(a) perturbed sine"), _mt("mt-branin", "(b) shifted Branin-Hoo")),
        "As Fig. 1 on the perturbed sine (n = 4, omega = 0.4) and 9 shifted Branin-Hoo tasks "
        "(omega = 0.5). " + _MT_BAND,
    ),
    PaperFigure(
        "multitask-fig3", "multitask",
        "Fig. 3: MT-KB and MT-BKB vs IT-KB, IT-BKB and MOBO on sensor-style data",
        f"{REFERENCE}, Fig. 3",
        (_mt("mt-sensor-chebyshev", "(a) Chebyshev"), _mt("mt-sensor-linear", "(b) linear")),
        "Deviation: the Intel Berkeley lab readings are not available offline; the paper's "
        "protocol runs on NOAA storm records (3 outputs at 2.5-degree cells). 'Random' (a "
        "uniformly random cell) is not in the paper. " + _MT_BAND,
    ),
    PaperFigure(
        "multitask-common-radius", "multitask",
        "Fig. 3 with one radius for every policy (ablation, not in the paper)",
        f"{REFERENCE}, Fig. 3 (ablation)",
        (_mt("mt-sensor-chebyshev-common-radius", "(a) Chebyshev"),
         _mt("mt-sensor-linear-common-radius", "(b) linear")),
        "Every policy with MOBO's radius sqrt(0.2 d log(2 d t + 1)) in place of the theorems' "
        "(which, on this data, make the bonus 5-22 times the utility's range); 'MT-KB (Thm 2)' is "
        "the paper's MT-KB. " + _MT_BAND,
    ),
    PaperFigure(
        "multitask-improved-radius", "multitask",
        "Fig. 2 with Sessa et al.'s improved radius for MT-KB (not in the paper)",
        f"{REFERENCE}, Fig. 2 (improved radius)",
        (_mt("mt-sine-improved-radius", "(a) perturbed sine"),
         _mt("mt-branin-improved-radius", "(b) shifted Branin-Hoo")),
        "MT-KB with the improved multi-task radius of Sessa et al. (2023) beside Thm 2's, MOBO's "
        "radius for MT-KB (common radius), MOBO and a random point. " + _MT_BAND,
    ),
    PaperFigure(
        "multitask-fig4", "multitask",
        "Fig. 4: Bayes regret with random scalarizations (Chebyshev)",
        f"{REFERENCE}, App. E, Fig. 4",
        (Panel("mt-bayes", "perturbed sine, n = 4", "instantaneous", "sd", ylabel="Bayes regret $R_B(t)$"),),
        "Bayes regret after round t, one random Chebyshev scalarization per round. Decisions: the "
        "paper does not name the problem (the perturbed sine of Fig. 2a is used) nor the band "
        "(mean ± 1 sd, as in Sec. 5).",
    ),
)  # fmt: skip
#: Sessa et al.'s online multi-task figure, reported with the paper it improves on
FIGURES += sessa.FIGURES
