"""The lifelong paper's claims (Schur et al. 2023, Sec. 6, Fig. 2-3; App. G.3, Fig. 5-6).

Paper: Schur, Kassraie, Rothfuss & Krause (2023), *Lifelong bandit optimization*: Sec. 6,
Fig. 2-3; App. G.3, Fig. 5-6. ``ll-hpobench`` is this project's second AutoML sequence: its
claim restates the paper's and says so in ``source``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kernelbandits.experiments.spec import get
from kernelbandits.papers.lifelong.experiments import LIFELONG_STEPS, OFFLINE_STEPS
from kernelbandits.report import notes
from kernelbandits.report.claims import (
    Check,
    Claim,
    Note,
    all_of,
    approaches,
    at_round,
    below,
    claim,
    significantly_below,
    similar,
    tail_rate,
)
from kernelbandits.report.figures import steps_per_task

if TYPE_CHECKING:
    from kernelbandits.report.data import StoredResults

LAST_TASKS = 5  # the tasks over which a slope is compared with the oracle's
_ORACLE_WINDOW = LAST_TASKS * LIFELONG_STEPS
_OFFLINE_WINDOW = LAST_TASKS * OFFLINE_STEPS


def _fmeta_note(exp: str) -> Note:
    """Why F-META-KGL stays above the oracle: its clients' votes miss true kernels."""

    def explain(results: StoredResults) -> str:
        slope = tail_rate(_OFFLINE_WINDOW)
        return (
            f"regret per round over the last {LAST_TASKS} tasks: "
            f"{notes.means(results, exp, ('META-KGL', 'F-META-KGL', 'k*', 'k_full'), slope)}. "
            "F-META-KGL's clients each fit a group lasso on 10 points and list a given true "
            "kernel in too few tasks to pass the vote level alpha = 0.25, so the server keeps a "
            "strict subset of J* and GP-UCB keeps a linear regret; the solver meets eq. (1)'s "
            "optimality conditions and the vote is Alg. 4's (lifelong guide)"
        )

    return Note(explain)


def _flibo_note(results: StoredResults) -> str:
    """F-LIBO inherits F-META-KGL's missed kernels."""
    exp = "ll-legendre"
    return (
        "where the F-LIBO part fails: F-LIBO learns its kernel with F-META-KGL, whose clients "
        "recover too few of the true kernels to pass the vote (see the offline claims). R_T: "
        f"{notes.compare(results, exp, 'F-LIBO', 'k_full')}; "
        f"{notes.compare(results, exp, 'LIBO', 'k_full')}"
    )


def _all_data_note(results: StoredResults) -> str:
    """Meta-learning on all data feeds back on the seeds whose kernel misses a component."""
    parts = []
    for base in ("ll-synthetic", "ll-legendre"):
        exp = f"{base}-all-data"
        c = notes.compare(results, exp, "LIBO (all data)", "LIBO", b_exp=base)
        worst = notes.values(results, exp, "LIBO (all data)")
        top = "" if worst is None else f", its worst seed {notes.num(float(worst.max()))}"
        parts.append(f"{base}: {c}, {c.interval()}{top}" if c.n else f"{base}: {c}")
    return (
        "R_T " + "; ".join(parts) + ". Where the difference is within seed noise it is set by "
        "the seeds whose final kernel misses a true component: meta-learning on all data feeds "
        "back (GP-UCB with a kernel missing a component samples where that model puts the "
        "optimum, the group lasso on those points cannot see the component, and the estimate "
        "stays a strict subset of J*)"
    )


def _hpobench_note(results: StoredResults) -> str:
    """LIBO's threshold keeps too narrow a kernel on the MLP tables (second task and R_T)."""
    exp = "ll-hpobench"
    steps = steps_per_task(get(exp))
    second = []
    for policy in ("LIBO", "k_full"):
        # regret within task 2: R_{2 steps} - R_{steps}
        end, start = (
            notes.mean(results, exp, policy, at_round(k * steps, "cumulative")) for k in (2, 1)
        )
        cost = None if end is None or start is None else end - start
        second.append(f"{policy} {notes.num(cost)}")
    return (
        "where the LIBO part fails: LIBO's threshold omega = 0.25 is App. G's c_1 / 2 for "
        "coefficients of size at least 0.5 (kept by App. G.2 for GLMNET); on the MLP tables the "
        "group norms are smaller and META-KGL keeps few of the 100 kernels, a kernel too narrow "
        f"for the tables. Regret on the second task: {', '.join(second)}; R_T: "
        f"{notes.means(results, exp, ('LIBO', 'F-LIBO', 'k_full'))}. Not a paper figure"
    )


def _offline_converges(exp: str) -> Check:
    return all_of(approaches(exp, "META-KGL", "k*", _OFFLINE_WINDOW),
                  approaches(exp, "F-META-KGL", "k*", _OFFLINE_WINDOW))  # fmt: skip


def _both_below_full(exp: str, significant: bool = False) -> Check:
    test = significantly_below if significant else below
    return all_of(test(exp, "LIBO", "k_full"), test(exp, "F-LIBO", "k_full"))


def _claims() -> list[Claim]:
    p = "lifelong"
    last = f"over the last {LAST_TASKS} tasks"
    return [
        claim("ll-offline-converge-to-oracle", p, "The single-task regret of GP-UCB with the "
               "kernels of META-KGL and F-META-KGL converges to the oracle's (k*) as meta-training "
               f"tasks accrue: per-round regret {last} (blocks of 70 steps) within 25% of k*'s.",
               "Sec. 6.1, Fig. 2", _offline_converges("ll-offline"),
               _fmeta_note("ll-offline")),
        claim("ll-offline-metakgl-below-fmetakgl", p, "META-KGL performs slightly better than "
               "F-META-KGL (lower regret summed over the 30 test tasks).", "Sec. 6.1, Fig. 2",
               below("ll-offline", "META-KGL", "F-META-KGL")),
        claim("ll-offline-cosine2d-converge-to-oracle", p, "With 2-D cosine base kernels both "
               f"meta-learners approach the oracle's regret ({last}, within 25%).",
               "App. G.3, Fig. 5 (left)", _offline_converges("ll-offline-cosine2d"),
               _fmeta_note("ll-offline-cosine2d")),
        claim("ll-offline-legendre-converge-to-oracle", p, "With Legendre base kernels both "
               f"meta-learners approach the oracle's regret ({last}, within 25%).",
               "App. G.3, Fig. 5 (right)", _offline_converges("ll-offline-legendre"),
               _fmeta_note("ll-offline-legendre")),
        claim("ll-synthetic-initially-like-kfull", p, "LIBO and F-LIBO initially suffer the same "
               "regret as the naive k_full agent (R_t at the end of the first task "
               "indistinguishable).", "Sec. 6.2, Fig. 3 (left)",
               all_of(similar("ll-synthetic", "LIBO", "k_full", at_round(LIFELONG_STEPS)),
                      similar("ll-synthetic", "F-LIBO", "k_full", at_round(LIFELONG_STEPS)))),
        claim("ll-synthetic-libo-below-kfull", p, "LIBO and F-LIBO significantly improve on the "
               "naive k_full agent (lower lifelong R_T).", "Sec. 6.2, Fig. 3 (left), Fig. 6a",
               _both_below_full("ll-synthetic", significant=True)),
        claim("ll-synthetic-libo-oracle-slope", p, "LIBO becomes indistinguishable from the "
               f"oracle agent: the same slope of the cumulative regret as k* ({last}, within 25%).",
               "Sec. 6.2; App. G.3, Fig. 6a",
               approaches("ll-synthetic", "LIBO", "k*", _ORACLE_WINDOW)),
        claim("ll-synthetic-flibo-slope-above-oracle", p, "F-LIBO stays slightly sub-optimal: "
               f"its regret slope {last} is higher than the oracle's.", "App. G.3, Fig. 6a",
               below("ll-synthetic", "k*", "F-LIBO", tail_rate(_ORACLE_WINDOW))),
        claim("ll-legendre-libo-below-kfull", p, "With Legendre features LIBO and F-LIBO "
               "substantially outperform the naive k_full agent.", "App. G.3, Fig. 6c",
               _both_below_full("ll-legendre", significant=True),
               Note(_flibo_note)),
        claim("ll-all-data-libo-below-kfull", p, "LIBO meta-learning on all data outperforms "
               "k_full (cosine and Legendre features).", "App. G.3, Fig. 6b, 6d",
               all_of(below("ll-synthetic-all-data", "LIBO (all data)", "k_full"),
                      below("ll-legendre-all-data", "LIBO (all data)", "k_full"))),
        claim("ll-all-data-faster", p, "Convergence is much faster when all interaction data is "
               "used: LIBO (all data) has significantly lower R_T than LIBO on the same tasks "
               "(cosine and Legendre features).", "App. G.3, Fig. 6 caption",
               all_of(significantly_below("ll-synthetic-all-data", "LIBO (all data)", "LIBO",
                                          b_exp="ll-synthetic"),
                      significantly_below("ll-legendre-all-data", "LIBO (all data)", "LIBO",
                                          b_exp="ll-legendre")),
               Note(_all_data_note)),
        claim("ll-automl-libo-below-kfull", p, "In lifelong AutoML (GLMNET tuning) LIBO and "
               "F-LIBO improve on the naive k_full agent.", "Sec. 6.2, Fig. 3 (right); our data: "
               "elastic-net tables on 53 data sets", _both_below_full("ll-automl")),
        claim("ll-hpobench-libo-below-kfull", p, "The AutoML claim on a second sequence "
               "(HPOBench MLP tables): LIBO and F-LIBO below k_full.", "Sec. 6.2, Fig. 3 (right), "
               "restated on this project's second AutoML sequence",
               _both_below_full("ll-hpobench"),
               Note(_hpobench_note)),
    ]  # fmt: skip


CLAIMS: tuple[Claim, ...] = tuple(_claims())
