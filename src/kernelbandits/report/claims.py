"""The claims table: every qualitative claim of the four papers, checked on stored results.

A **claim** is one sentence a paper says about its experiments ("MT-KB's regret decays much more
rapidly than IT-KB's", "DeltaBO outperforms all other algorithms"), written as the paper states it
and tied to the registered experiments (base ids only: the ``-avg`` and ``-qiskit`` twins are the
same runs) that reproduce the figure. Its **check** reads a :class:`StoredResults` and returns a
:class:`Verdict`: ``"pass"``, ``"fail"`` or ``"missing"`` (an experiment or policy the check needs
has no stored runs; a check never raises on absent data), with the numbers it rests on. Where our
runs contradict a paper the claim stays as the paper states it and fails.

Notation: ``T`` the horizon of the stored plan, ``R_t`` the cumulative regret after round ``t``,
``r_t`` the trace's per-round value (for ``mt-bayes`` the Bayes regret after round ``t``). Every
check is **paired**: it uses only the seeds that every policy it compares has stored (all policies
of a seed face the same problem and noise, and ``ll-*-all-data`` share their problems with the
experiment they modify), reports ``mean ± s.e.`` over those ``n`` seeds (``s.e. = sd / sqrt(n)``,
``sd`` with ``n - 1``; 0 for one seed) and, for two policies, on how many seeds the first is lower.

What one run contributes (:class:`Measure`): by default its value at ``T`` in the metric the
paper's figure plots (the spec's ``metric``: ``R_T``, ``R_T / T`` or ``r_T``); or that value at a
given round or fraction of ``T``; or its **tail rate** ``(R_T - R_{T-w}) / w``, the slope of the
cumulative regret over the last ``w`` rounds (``w`` clipped to ``T``).

The primitives, each deciding on the means ``m`` of a measure:

* :func:`below` -- ``m(a) < m(b)`` (strict: equal means fail).
* :func:`significantly_below` -- the paired difference is significantly negative: the 95%
  interval ``mean(a - b) ± 1.96 s.e.`` lies below 0. Claims whose words are stronger than "lower"
  ("significantly", "much better", "substantially") use it, and so do :func:`lowest` and
  :func:`all_below` with ``significant=True``.
* :func:`learns` -- a policy is significantly below a uniformly random policy (``"Random"``),
  the check that a curve the paper shows learning does learn here.
* :func:`all_below` -- every policy of one group below every policy of another:
  ``max m(A) < min m(B)``.
* :func:`lowest` -- ``m(a) < m(c)`` for every other policy ``c`` compared (strict).
* :func:`decreasing` -- the means strictly decrease along a sequence (an N-sweep).
* :func:`similar` -- an equivalence test: the 95% confidence interval of the paired mean
  difference, ``mean(a - b) ± 1.96 s.e.``, lies within ``± 25%`` of ``|m(b)|`` (a wide interval,
  i.e. absence of evidence, fails; a difference too small to matter passes).
* :func:`not_above` -- ``mean(a - b) <= 1.96 s.e.``: ``a`` is lower, or not significantly higher.
* :func:`approaches` -- the tail rates agree within a relative tolerance:
  ``|s(a) - s(ref)| <= tol * s(ref)`` (default ``tol = 0.25``), "the same slope as the oracle".
* :func:`exploits_later` -- the played point changes at least ``factor`` (5) times less often in
  the second half of the rounds than in the first (seed means).
* :func:`plateaus` -- the curve levels off: the regret added over the last half of the rounds is at
  most 10% of ``R_T``, ``m(R_T - R_{T - floor(T/2)}) <= 0.1 m(R_T)``.
* :func:`gap_grows` -- the relative advantage ``1 - m(a) / m(b)`` is larger in a second experiment
  (``m(b) > 0`` required in both).
* :func:`all_of` -- a claim with several parts: missing if any part is, else pass iff all pass.

Comparisons ignore floating-point rounding: two numbers within ``RTOL = 1e-9`` (relative) or
``ATOL = 1e-12`` (absolute) of each other count as equal, so a strict comparison of equal means
fails and a ``<=`` of equal numbers passes (a policy that hits an exact optimum has regrets of
~1e-15, not 0).

Papers covered (``paper`` field; texts in the project's shared papers folder):

* ``multitask`` -- Chowdhury & Gopalan (2021), *No-regret algorithms for multi-task Bayesian
  optimization*: Sec. 5, Fig. 1-3; App. E, Fig. 4 (Bayes regret).
* ``lifelong`` -- Schur, Kassraie, Rothfuss & Krause (2023), *Lifelong bandit optimization*:
  Sec. 6, Fig. 2-3; App. G.3, Fig. 5-6.
* ``quantum`` -- Dai et al. (2023), *Quantum Bayesian optimization*: Sec. 6, Fig. 1; App. J,
  Fig. 2-3 (Fig. 4, a real quantum computer, is not reproduced).
* ``transfer`` -- Lin, Zhao, Kolar & Liu, *Provable accelerated BO with knowledge transfer*:
  Sec. 5.3, Sec. 6, Fig. 1. "All other algorithms" are the paper's six baselines; ``Joint-GP``
  (the project's exact joint model) is not one of them and is left out.

Claims on this project's second data sets (``ll-hpobench``, ``q-automl-breast-cancer``,
``tr-hpobench``) restate the paper's claim for its data set, and say so in ``source``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Literal

import numpy as np

from kernelbandits._validation import FloatArray
from kernelbandits.experiments.spec import Metric, get
from kernelbandits.experiments.trace import Trace
from kernelbandits.report.data import StoredResults

Status = Literal["pass", "fail", "missing"]
Ref = tuple[str, str]  # (experiment, policy)
PAPERS = ("multitask", "lifelong", "quantum", "transfer")
Z95 = 1.96  # two-sided 95% normal quantile
RTOL, ATOL = 1e-9, 1e-12  # numbers this close are equal (regrets of exact optima: ~1e-15)
_SYMBOL: dict[str, str] = {"cumulative": "R_{t}", "average": "R_{t}/{t}", "instantaneous": "r_{t}"}


@dataclass(frozen=True)
class Verdict:
    """The outcome of a check and the numbers it rests on."""

    status: Status
    evidence: str


# -- what one run contributes ----------------------------------------------------------------------
@dataclass(frozen=True)
class Measure:
    """One number per run.

    ``kind``: ``"final"`` (round ``T``), ``"round"`` (round ``int(value)``, clipped to ``T``),
    ``"fraction"`` (round ``round(value * T)``, at least 1) -- each in ``metric`` (``None``: the
    experiment's figure metric) -- ``"tail"``: ``(R_T - R_{T-w}) / w``, ``w = min(value, T)``, or
    ``"mean"``: the mean of the recorded per-round values ``r_1 .. r_T`` (for a Bayes-regret
    trace, the area under the curve over ``T``: a curve that reaches 0 for every policy still
    tells how fast it got there).
    """

    kind: Literal["final", "round", "fraction", "tail", "mean"] = "final"
    value: float = 0.0
    metric: Metric | None = None

    def round_of(self, T: int) -> int:
        """The 1-based round read in a run of ``T`` rounds."""
        if self.kind == "round":
            return max(1, min(T, int(self.value)))
        if self.kind == "fraction":
            return max(1, min(T, round(self.value * T)))
        return T

    def of(self, trace: Trace, metric: Metric) -> float:
        """The measure of one run (``metric`` already resolved)."""
        T = trace.horizon
        cum = trace.cumulative_regret
        if self.kind == "tail":
            w = max(1, min(int(self.value), T))
            return float(cum[-1] - (cum[T - w - 1] if w < T else 0.0)) / w
        if self.kind == "mean":
            return float(cum[-1]) / T
        t = self.round_of(T)
        if metric == "average":
            return float(cum[t - 1]) / t
        if metric == "instantaneous":
            return float(trace.regret[t - 1])
        return float(cum[t - 1])

    def label(self, T: int, metric: Metric) -> str:
        """E.g. ``R_T``, ``R_T/T``, ``R_t at t = 1000``, ``R_t slope over the last 500 rounds``."""
        if self.kind == "tail":
            return f"R_t slope over the last {max(1, min(int(self.value), T))} rounds"
        if self.kind == "mean":
            return f"mean of r_t over t = 1..{T}"
        symbol = _SYMBOL[metric]
        if self.kind == "final":
            return symbol.format(t="T") + f" (T = {T})"
        return symbol.format(t="t") + f" at t = {self.round_of(T)} (T = {T})"


def final(metric: Metric | None = None) -> Measure:
    """The value at ``T`` (default: in the experiment's figure metric)."""
    return Measure("final", 0.0, metric)


def at_round(t: int, metric: Metric | None = None) -> Measure:
    """The value at round ``t`` (clipped to ``T``)."""
    return Measure("round", float(t), metric)


def at_fraction(q: float, metric: Metric | None = None) -> Measure:
    """The value at round ``round(q T)``."""
    return Measure("fraction", float(q), metric)


def over_rounds() -> Measure:
    """The mean of the per-round values ``r_t`` over all ``T`` rounds."""
    return Measure("mean")


def tail_rate(window: int) -> Measure:
    """The regret per round over the last ``window`` rounds."""
    return Measure("tail", float(window))


FINAL = final()


def _figure_metric(experiment: str) -> Metric:
    try:
        return get(experiment).metric
    except ValueError:  # not registered: a plain cumulative-regret experiment
        return "cumulative"


# -- paired samples -------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Sample:
    """Measures of the common seeds of each compared (experiment, policy), aligned by seed."""

    values: dict[Ref, FloatArray]
    label: str
    cross: bool  # the refs span more than one experiment

    @property
    def n(self) -> int:
        return len(next(iter(self.values.values())))

    def mean(self, ref: Ref) -> float:
        return float(np.mean(self.values[ref]))

    def name(self, ref: Ref) -> str:
        return f"{ref[1]} [{ref[0]}]" if self.cross else ref[1]

    def show(self, ref: Ref) -> str:
        """``name mean ± s.e.``"""
        return f"{self.name(ref)} {_num(self.mean(ref))} ± {_se(self.values[ref]):.2g}"

    def lower_on(self, a: Ref, b: Ref) -> str:
        k = int(np.sum(self.values[a] < self.values[b]))
        return f"{self.name(a)} lower on {k}/{self.n} paired seeds"


def _lt(x: float, y: float) -> bool:
    """``x < y`` beyond floating-point rounding (closer than ``RTOL``/``ATOL`` counts as equal)."""
    return x < y and not math.isclose(x, y, rel_tol=RTOL, abs_tol=ATOL)


def _le(x: float, y: float) -> bool:
    """``x <= y`` up to floating-point rounding."""
    return x <= y or math.isclose(x, y, rel_tol=RTOL, abs_tol=ATOL)


def _seeds(n: int) -> str:
    return f"{n} seed" + ("s" if n != 1 else "")


def _num(x: float) -> str:
    return f"{x:.4g}"


def _se(x: FloatArray) -> float:
    return float(np.std(x, ddof=1) / np.sqrt(len(x))) if len(x) > 1 else 0.0


def _sample(results: StoredResults, refs: Sequence[Ref], measure: Measure) -> _Sample | Verdict:
    """The measure on the seeds common to all ``refs``; a "missing" verdict if there are none."""
    by_seed: dict[Ref, dict[int, float]] = {}
    label = ""
    for exp, policy in refs:
        runs = results.traces(exp).get(policy, [])
        if not runs:
            return Verdict("missing", f"no stored runs of {policy} in {exp}")
        metric = measure.metric or _figure_metric(exp)
        by_seed[(exp, policy)] = {tr.seed: measure.of(tr, metric) for tr in runs}
        label = label or measure.label(runs[0].horizon, metric)
    common = sorted(set.intersection(*(set(v) for v in by_seed.values())))
    if not common:
        return Verdict("missing", "no seed stored for all of " + ", ".join(p for _, p in refs))
    values = {r: np.array([v[s] for s in common]) for r, v in by_seed.items()}
    return _Sample(values, label, len({e for e, _ in refs}) > 1)


# -- checks ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Check:
    """A callable ``StoredResults -> Verdict`` that names the runs it needs.

    ``needs``: the (experiment, policy) pairs read; if any has no stored run the verdict is
    "missing" and ``decide`` is not called. ``parts``: the checks an :func:`all_of` combines.
    """

    needs: tuple[Ref, ...]
    decide: Callable[[StoredResults], Verdict]
    parts: tuple[Check, ...] = ()  # the parts of an :func:`all_of`

    def __call__(self, results: StoredResults) -> Verdict:
        absent = [f"{p} in {e}" for e, p in self.needs if not results.traces(e).get(p)]
        if absent:
            return Verdict("missing", "no stored runs: " + ", ".join(absent))
        return self.decide(results)


def _paired(refs: Sequence[Ref], measure: Measure, rule: Callable[[_Sample], Verdict]) -> Check:
    """A check on one paired sample of ``refs``."""

    def decide(results: StoredResults) -> Verdict:
        sample = _sample(results, refs, measure)
        return sample if isinstance(sample, Verdict) else rule(sample)

    return Check(tuple(dict.fromkeys(refs)), decide)


def _verdict(ok: bool, evidence: str, criterion: str) -> Verdict:
    return Verdict("pass" if ok else "fail", f"{evidence}; criterion: {criterion}")


def below(exp: str, a: str, b: str, measure: Measure = FINAL, *, b_exp: str | None = None) -> Check:
    """Pass iff the mean measure of ``a`` is strictly below ``b``'s (``b`` from ``b_exp``)."""
    ra, rb = (exp, a), (b_exp or exp, b)

    def rule(s: _Sample) -> Verdict:
        ok = _lt(s.mean(ra), s.mean(rb))
        text = f"{s.label}: {s.show(ra)} vs {s.show(rb)} ({_seeds(s.n)}; {s.lower_on(ra, rb)})"
        return _verdict(ok, text, f"mean {s.name(ra)} < mean {s.name(rb)}")

    return _paired([ra, rb], measure, rule)


def _upper(s: _Sample, ra: Ref, rb: Ref) -> float:
    """The upper end of the paired 95% interval of ``mean(a - b)``."""
    diff = s.values[ra] - s.values[rb]
    return float(np.mean(diff)) + Z95 * _se(diff)


def _significance(s: _Sample, pairs: Sequence[tuple[Ref, Ref]]) -> tuple[bool, str]:
    """Whether every ``a - b`` of ``pairs`` is significantly negative, and the worst pair's text."""
    worst = max(pairs, key=lambda p: _upper(s, *p))
    ra, rb = worst
    diff = s.values[ra] - s.values[rb]
    d, half = float(np.mean(diff)), Z95 * _se(diff)
    text = f"least significant: {s.name(ra)} - {s.name(rb)} = {_num(d)} ± {_num(half)} (95%)"
    return all(_lt(_upper(s, *p), 0.0) for p in pairs), text


def significantly_below(
    exp: str, a: str, b: str, measure: Measure = FINAL, *, b_exp: str | None = None
) -> Check:
    """Pass iff the paired 95% interval ``mean(a - b) ± 1.96 s.e.`` lies below 0."""
    ra, rb = (exp, a), (b_exp or exp, b)

    def rule(s: _Sample) -> Verdict:
        text = _difference(s, ra, rb)[2]
        ok = _lt(_upper(s, ra, rb), 0.0)
        text += f"; {s.lower_on(ra, rb)}"
        return _verdict(ok, text, "mean difference + 1.96 s.e. < 0 (significantly lower)")

    return _paired([ra, rb], measure, rule)


def learns(exp: str, a: str, measure: Measure = FINAL, random: str = "Random") -> Check:
    """Pass iff ``a`` is significantly below the uniformly random policy ``random``."""
    return significantly_below(exp, a, random, measure)


def all_below(
    exp: str,
    group_a: Sequence[str],
    group_b: Sequence[str],
    measure: Measure = FINAL,
    *,
    significant: bool = False,
) -> Check:
    """Pass iff every policy of ``group_a`` has a mean strictly below every one of ``group_b``
    (``significant``: and every paired difference is significantly negative)."""
    ra, rb = [(exp, p) for p in group_a], [(exp, p) for p in group_b]

    def rule(s: _Sample) -> Verdict:
        ok = _lt(max(s.mean(r) for r in ra), min(s.mean(r) for r in rb))
        text = (
            f"{s.label}: {', '.join(s.show(r) for r in ra)} vs "
            f"{', '.join(s.show(r) for r in rb)} ({_seeds(s.n)})"
        )
        crit = f"max mean of {'/'.join(group_a)} < min mean of the others"
        if significant:
            sig, detail = _significance(s, [(x, y) for x in ra for y in rb])
            ok, text = ok and sig, f"{text}; {detail}"
            crit += ", every paired difference significantly negative"
        return _verdict(ok, text, crit)

    return _paired(ra + rb, measure, rule)


def lowest(
    exp: str,
    a: str,
    among: Sequence[str] | None = None,
    measure: Measure = FINAL,
    *,
    significant: bool = False,
) -> Check:
    """Pass iff ``a``'s mean is strictly below that of every other policy of ``among``
    (``significant``: and significantly so, paired, against each).

    ``among`` defaults to the registered spec's policies.
    """
    names = list(among) if among is not None else list(get(exp).policies)
    refs = [(exp, a)] + [(exp, p) for p in names if p != a]

    def rule(s: _Sample) -> Verdict:
        others = refs[1:]
        ok = all(_lt(s.mean(refs[0]), s.mean(r)) for r in others)
        ranked = sorted(refs, key=s.mean)
        text = f"{s.label}: " + ", ".join(s.show(r) for r in ranked) + f" ({_seeds(s.n)})"
        crit = f"mean {a} strictly lowest of {len(refs)}"
        if significant:
            sig, detail = _significance(s, [(refs[0], r) for r in others])
            ok, text = ok and sig, f"{text}; {detail}"
            crit += ", significantly below each (paired)"
        return _verdict(ok, text, crit)

    return _paired(refs, measure, rule)


def decreasing(exp: str, sequence: Sequence[str], measure: Measure = FINAL) -> Check:
    """Pass iff the means strictly decrease along ``sequence`` (e.g. growing source size N)."""
    refs = [(exp, p) for p in sequence]

    def rule(s: _Sample) -> Verdict:
        means = [s.mean(r) for r in refs]
        ok = all(_lt(y, x) for x, y in pairwise(means))
        text = f"{s.label}: " + " > ".join(s.show(r) for r in refs) + f" ({_seeds(s.n)})"
        return _verdict(ok, text, "means strictly decreasing in this order")

    return _paired(refs, measure, rule)


def _difference(s: _Sample, ra: Ref, rb: Ref) -> tuple[float, float, str]:
    """Paired mean difference ``a - b``, its 95% half-width, and the text showing both."""
    diff = s.values[ra] - s.values[rb]
    d, half = float(np.mean(diff)), Z95 * _se(diff)
    text = (
        f"{s.label}: {s.show(ra)} vs {s.show(rb)} ({_seeds(s.n)}); "
        f"paired difference {_num(d)} ± {_num(half)} (95%)"
    )
    return d, half, text


SIMILAR_MARGIN = 0.25  # "similar": the difference's 95% interval within 25% of the reference


def similar(
    exp: str, a: str, b: str, measure: Measure = FINAL, margin: float = SIMILAR_MARGIN
) -> Check:
    """Pass iff the 95% interval ``mean(a - b) ± 1.96 s.e.`` of the paired difference lies within
    ``± margin |mean(b)|``: an equivalence test, so that a wide interval (absence of evidence)
    fails and a difference too small to matter passes."""
    ra, rb = (exp, a), (exp, b)

    def rule(s: _Sample) -> Verdict:
        d, half, text = _difference(s, ra, rb)
        bound = margin * abs(s.mean(rb))
        crit = f"|mean difference| + 1.96 s.e. <= {margin:.0%} of mean {s.name(rb)} ({_num(bound)})"
        return _verdict(_le(abs(d) + half, bound), text, crit)

    return _paired([ra, rb], measure, rule)


def not_above(exp: str, a: str, b: str, measure: Measure = FINAL) -> Check:
    """Pass iff ``mean(a - b) <= 1.96 s.e.``: ``a`` is lower or not significantly higher."""
    ra, rb = (exp, a), (exp, b)

    def rule(s: _Sample) -> Verdict:
        d, half, text = _difference(s, ra, rb)
        return _verdict(_le(d, half), text, "mean difference <= 1.96 s.e.")

    return _paired([ra, rb], measure, rule)


def approaches(exp: str, a: str, ref: str, window: int, tol: float = 0.25) -> Check:
    """Pass iff the slopes over the last ``window`` rounds agree: ``|s_a - s_ref| <= tol s_ref``."""
    ra, rr = (exp, a), (exp, ref)

    def rule(s: _Sample) -> Verdict:
        sa, sr = s.mean(ra), s.mean(rr)
        ratio = f"ratio {_num(sa / sr)}" if sr > 0 else "reference slope 0"
        text = f"{s.label}: {s.show(ra)} vs {s.show(rr)} ({_seeds(s.n)}; {ratio})"
        return _verdict(_le(abs(sa - sr), tol * sr), text, f"slope within {tol:.0%} of {ref}'s")

    return _paired([ra, rr], tail_rate(window), rule)


def plateaus(exp: str, a: str, tail: float = 0.5, share: float = 0.1) -> Check:
    """Pass iff the last ``floor(tail T)`` rounds add at most ``share`` of ``R_T`` (seed means)."""
    r = (exp, a)

    def decide(results: StoredResults) -> Verdict:
        runs = results.traces(exp).get(a, [])
        if not runs:
            return Verdict("missing", f"no stored runs of {a} in {exp}")
        T = runs[0].horizon
        h = int(tail * T)
        total = float(np.mean([tr.cumulative_regret[-1] for tr in runs]))
        added = float(np.mean([tr.cumulative_regret[-1] - _cum_at(tr, T - h) for tr in runs]))
        part = f" ({added / total:.1%})" if total > 0 else ""
        text = (
            f"{a}: R_T {_num(total)} (T = {T}, {_seeds(len(runs))}), of which "
            f"{_num(added)}{part} in the last {h} rounds"
        )
        crit = f"the last {tail:.0%} of rounds add <= {share:.0%} of R_T"
        return _verdict(_le(added, share * total), text, crit)

    return Check((r,), decide)


def _cum_at(trace: Trace, t: int) -> float:
    """``R_t`` (``R_0 = 0``)."""
    return float(trace.cumulative_regret[t - 1]) if t > 0 else 0.0


def _switches(trace: Trace) -> tuple[int, int]:
    """How often the played point changes in the first and in the second half of the rounds."""
    changed = np.any(trace.X[1:] != trace.X[:-1], axis=1)  # (T - 1,): round t+1 differs from t
    half = trace.horizon // 2
    return int(changed[: half - 1].sum()), int(changed[half - 1 :].sum())


def exploits_later(exp: str, a: str, factor: float = 5.0) -> Check:
    """Pass iff ``a`` changes its played point at least ``factor`` times less often in the second
    half of the rounds than in the first (seed means): many arms explored early, few exploited
    late."""
    r = (exp, a)

    def decide(results: StoredResults) -> Verdict:
        runs = results.traces(exp).get(a, [])
        if not runs:
            return Verdict("missing", f"no stored runs of {a} in {exp}")
        first, second = (
            float(np.mean(v)) for v in zip(*(_switches(tr) for tr in runs), strict=True)
        )
        text = (
            f"{a}: {_num(first)} switches of the played point in the first half of T = "
            f"{runs[0].horizon} rounds, {_num(second)} in the second ({_seeds(len(runs))})"
        )
        crit = f"second-half switches x {factor:g} <= first-half switches"
        return _verdict(_le(factor * second, first), text, crit)

    return Check((r,), decide)


def gap_grows(small_exp: str, large_exp: str, a: str, b: str, measure: Measure = FINAL) -> Check:
    """Pass iff ``1 - m(a)/m(b)`` is larger in ``large_exp`` than in ``small_exp`` (both m(b) > 0).

    Each experiment is paired on its own common seeds.
    """
    exps = (small_exp, large_exp)

    def decide(results: StoredResults) -> Verdict:
        parts, gains = [], []
        for exp in exps:
            s = _sample(results, [(exp, a), (exp, b)], measure)
            if isinstance(s, Verdict):
                return s
            ma, mb = s.mean((exp, a)), s.mean((exp, b))
            gains.append(1.0 - ma / mb if mb > 0 else float("nan"))
            parts.append(
                f"{exp} {s.label}: {s.show((exp, a))} vs {s.show((exp, b))} ({_seeds(s.n)}; "
                f"advantage {gains[-1]:.1%})"
            )
        ok = _lt(gains[0], gains[1])  # NaN compares False
        crit = f"advantage 1 - m({a})/m({b}) larger on {large_exp}"
        return _verdict(ok, "; ".join(parts), crit)

    return Check(tuple((e, p) for e in exps for p in (a, b)), decide)


def all_of(*checks: Check) -> Check:
    """Every part must pass; "missing" if any part is missing (evidence of all parts, joined).

    Nested :func:`all_of` parts are flattened.
    """
    leaves = tuple(p for c in checks for p in (c.parts or (c,)))

    def decide(results: StoredResults) -> Verdict:
        verdicts = [c(results) for c in leaves]
        status: Status = "pass"
        if any(v.status == "missing" for v in verdicts):
            status = "missing"
        elif any(v.status == "fail" for v in verdicts):
            status = "fail"
        marks = [f"[{v.status}] {v.evidence}" for v in verdicts]
        return Verdict(status, " | ".join(marks))

    return Check(tuple(dict.fromkeys(r for c in leaves for r in c.needs)), decide, leaves)


# -- the claims -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Claim:
    """A paper's qualitative claim about its experiments and the check that tests it."""

    id: str
    paper: str
    statement: str
    source: str
    experiments: tuple[str, ...]
    check: Check
    #: what we found when the claim failed at paper size: the cause, measured (empty: none)
    note: str = ""


def _claim(id: str, paper: str, statement: str, source: str, check: Check, note: str = "") -> Claim:
    experiments = tuple(dict.fromkeys(e for e, _ in check.needs))
    return Claim(id, paper, statement, source, experiments, check, note)


_MT, _IT = ("MT-KB", "MT-BKB"), ("IT-KB", "IT-BKB", "MOBO")
_DIAG = "MT-KB (diagonal B)"
_MT_COMMON = "mt-sensor-linear-common-radius"  # MT-KB without the task correlations (same radius)
_MT_SYNTHETIC = ("mt-rkhs-2", "mt-rkhs-20", "mt-sine", "mt-branin")
_MT_RKHS20_NOTE = (
    "where the part 'below MT-KB without the task correlations' fails: B = A^T A (A 20 x 20, "
    "U[0, 1] entries) has eigenvalues from about 1e-4 to 1e2, so the tasks are strongly "
    "correlated and the "
    "full-B posterior is more certain. It is the better model (posterior-mean RMSE 10-40% below "
    "the diagonal-B model's from 10-100 random noisy points, 5 seeds), but with the same radius "
    "UCB then explores less, and the diagonal-B variant ends 2% lower with Thm 2's radius (lower "
    "on 9/10 seeds) and 14% lower with MOBO's (R_T/T 0.0091 against 0.0106, 10/10): an effect of "
    "exploration, not of the model. MT-KB below IT-KB holds"
)
_MT_SENSOR_NOTE = (
    "App. F sets the radii exactly as Thm 2 / Thm 3; on this data sigma / sqrt(eta) = 2.99 "
    "(noise variance 0.89 against eta = 0.1; 0.32 on the synthetic problems), so the exploration "
    "bonus is 5-22 times the utility's range and MT-KB, MT-BKB, IT-KB and IT-BKB explore "
    "uniformly (at the random floor, also at T = 3000), while MOBO's radius (about 1.2) ignores "
    "sigma. No reading of the data, noise, eta, b or B changes this; with one radius for every "
    "policy the multi-task kernel does help (claim mt-sensor-common-radius-mt-helps)"
)
_MT_RADIUS_NOTE = (
    "the same cause as on the sensor data, milder: Thm 2 / Thm 3's radii (App. F: 'exactly as "
    "given') make the exploration bonus at least the utility's range here too (sine: 0.10-0.28 "
    "against 0.18), so MT-KB and MT-BKB explore far more than MOBO, whose radius (Paria et al.) is "
    "about 1 (MOBO's R_T/T is 57 times lower on the sine); on shifted Branin MT-KB is even above "
    "the random floor. IT-KB and IT-BKB, with radii inflated by sqrt(n), explore more still, which "
    "is why MT-KB beats them"
)
_MT_GAIN_NOTE = (
    "the relative advantage is capped at n = 20, where IT-KB, IT-BKB and MT-BKB stay near the "
    "random floor (b grows with n and their radii with it); MT-KB's absolute advantage over "
    "IT-KB is several times larger at n = 20"
)


def _mt_pairs(exp: str) -> Check:
    """MT-KB and MT-BKB below their independent-task twins and below MOBO (Fig. 2 draws all),
    and MT-KB below itself without the task correlations (what the claim is about)."""
    return all_of(below(exp, "MT-KB", "IT-KB"), below(exp, "MT-BKB", "IT-BKB"),
                  below(exp, "MT-KB", "MOBO"), below(exp, "MT-BKB", "MOBO"),
                  below(exp, "MT-KB", _DIAG))  # fmt: skip


def _mt_beats_it(exp: str) -> Check:
    """MT-KB significantly below IT-KB, and below MT-KB with a diagonal ``B`` (same radius): an
    MT-KB that ignored ``B`` would still beat IT-KB's ``sqrt(n)``-inflated radius."""
    return all_of(significantly_below(exp, "MT-KB", "IT-KB"), below(exp, "MT-KB", _DIAG))


def _multitask() -> list[Claim]:
    p = "multitask"
    rkhs = "Sec. 5 (RKHS function): the average cumulative regret decays much more rapidly for "
    return [
        _claim("mt-rkhs2-mtkb-below-itkb", p, "MT-KB's average regret R_T/T is significantly "
               "below IT-KB's (and below MT-KB's without the task correlations) on RKHS functions "
               "with n = 2 tasks.", rkhs + "MT-KB than IT-KB; Fig. 1a",
               _mt_beats_it("mt-rkhs-2")),
        _claim("mt-rkhs2-mtbkb-below-itbkb", p, "MT-BKB's R_T/T is significantly below "
               "IT-BKB's on RKHS functions with n = 2 tasks.", rkhs + "MT-BKB than IT-BKB; Fig. 1a",
               significantly_below("mt-rkhs-2", "MT-BKB", "IT-BKB")),
        _claim("mt-rkhs20-mtkb-below-itkb", p, "MT-KB's R_T/T is significantly below IT-KB's "
               "(and below MT-KB's without the task correlations) on RKHS functions with n = 20 "
               "tasks.", rkhs + "MT-KB than IT-KB; Fig. 1b",
               _mt_beats_it("mt-rkhs-20"), _MT_RKHS20_NOTE),
        _claim("mt-rkhs20-mtbkb-below-itbkb", p, "MT-BKB's R_T/T is significantly below "
               "IT-BKB's on RKHS functions with n = 20 tasks.",
               rkhs + "MT-BKB than IT-BKB; Fig. 1b",
               significantly_below("mt-rkhs-20", "MT-BKB", "IT-BKB")),
        _claim("mt-rkhs-gain-grows-with-tasks", p, "Learning with the MT kernel gains more over "
               "independent learning with 20 tasks than with 2 (relative R_T/T advantage of MT-KB "
               "over IT-KB and of MT-BKB over IT-BKB).", "Sec. 5 (RKHS function): 'even more so "
               "when number of tasks are higher'; Fig. 1",
               all_of(gap_grows("mt-rkhs-2", "mt-rkhs-20", "MT-KB", "IT-KB"),
                      gap_grows("mt-rkhs-2", "mt-rkhs-20", "MT-BKB", "IT-BKB")),
               _MT_GAIN_NOTE),
        _claim("mt-sine-mt-below-it", p, "On the perturbed sine, MT-KB and MT-BKB have lower "
               "R_T/T than their independent-task counterparts IT-KB and IT-BKB, and than MOBO; "
               "MT-KB also below MT-KB without the task correlations.",
               "Fig. 2a (the text states the result for Fig. 1 and 3; Sec. 6: MT kernels "
               "'perform well in practice')", _mt_pairs("mt-sine"),
               _MT_RADIUS_NOTE),
        _claim("mt-branin-mt-below-it", p, "On the shifted Branin-Hoo tasks, MT-KB and MT-BKB "
               "have lower R_T/T than IT-KB and IT-BKB, and than MOBO; MT-KB also below MT-KB "
               "without the task correlations.", "Fig. 2b (as Fig. 2a)",
               _mt_pairs("mt-branin"),
               _MT_RADIUS_NOTE),
        _claim("mt-sensor-chebyshev-mt-below-all", p, "On sensor data (Chebyshev scalarization) "
               "MT-KB and MT-BKB are much better than IT-KB, IT-BKB and MOBO.",
               "Sec. 5 (Sensor measurements), Fig. 3a; our data: NOAA storms substitute",
               all_below("mt-sensor-chebyshev", _MT, _IT, significant=True),
               _MT_SENSOR_NOTE),
        _claim("mt-sensor-linear-mt-below-all", p, "On sensor data (linear scalarization) MT-KB "
               "and MT-BKB are much better than IT-KB, IT-BKB and MOBO.",
               "Sec. 5 (Sensor measurements), Fig. 3b; our data: NOAA storms substitute",
               all_below("mt-sensor-linear", _MT, _IT, significant=True), _MT_SENSOR_NOTE),
        _claim("mt-synthetic-mt-learns", p, "MT-KB learns on every synthetic problem of Fig. "
               "1-2: R_T/T significantly below a uniformly random arm's.", "Fig. 1-2 (the curves "
               "fall; the random floor is not in the paper)",
               all_of(*(learns(e, "MT-KB") for e in _MT_SYNTHETIC)),
               _MT_RADIUS_NOTE),
        _claim("mt-sensor-common-radius-mt-helps", p, "With one radius for every policy "
               "(MOBO's), on sensor data with linear scalarization MT-KB is significantly below "
               "IT-KB and below MT-KB without the task correlations, and significantly below a "
               "random cell.",
               "Not in the paper: the ablation behind the Fig. 3 verdicts "
               "(mt-sensor-linear-common-radius)",
               all_of(significantly_below(_MT_COMMON, "MT-KB", "IT-KB"),
                      below(_MT_COMMON, "MT-KB", _DIAG), learns(_MT_COMMON, "MT-KB"))),
        _claim("mt-bayes-mt-not-worse", p, "With random scalarizations, learning the tasks "
               "together yields better if not similar Bayes regret: R_B(t) averaged over the T "
               "rounds (all reach 0) of MT-KB and MT-BKB is each not above IT-KB's, IT-BKB's "
               "and MOBO's.", "App. E, Fig. 4",
               all_of(*(not_above("mt-bayes", a, b, over_rounds()) for a in _MT for b in _IT)),
               _MT_RADIUS_NOTE),
    ]  # fmt: skip


LL_STEPS, LL_OFFLINE_STEPS, LAST_TASKS = 100, 70, 5  # the catalog's task lengths (App. G)
_ORACLE_WINDOW = LAST_TASKS * LL_STEPS
_OFFLINE_WINDOW = LAST_TASKS * LL_OFFLINE_STEPS


_LL_FMETA_NOTE = (
    "F-META-KGL's clients each fit a group lasso on 10 points and list a given true kernel in "
    "only about 22% (2-D cosines) to 34% (1-D cosines) of tasks, near or below the vote level "
    "alpha = 0.25, so the server keeps a strict subset of J* and GP-UCB keeps a linear regret; "
    "the solver meets eq. (1)'s optimality conditions and the vote is Alg. 4's, and no lambda or "
    "omega in a wide range closes the gap (lifelong guide). META-KGL matches the oracle"
)


_LL_FLIBO_NOTE = (
    "where the F-LIBO part fails: F-LIBO learns its kernel with F-META-KGL, whose clients "
    "recover too few of the true kernels to pass the vote (see the offline claims); LIBO passes"
)
_LL_ALL_DATA_NOTE = (
    "where the Legendre part fails: the difference is within seed noise, set by the seeds whose "
    "final kernel misses a true component. Meta-learning on all data feeds back: GP-UCB with a "
    "kernel missing a component samples where that model puts the optimum, the group lasso on "
    "those points cannot see the component, and the estimate stays a strict subset of J* (6 of "
    "20 seeds at the last task; seed 1 keeps 2 of 5 kernels, R_T 7846). LIBO's uniform "
    "exploration data miss a kernel on 2 seeds (R_T about 7800 each). Where both recover J*, "
    "R_T is the same (2968 vs 2982); on the cosines all data is faster"
)
_LL_HPOBENCH_NOTE = (
    "where the LIBO part fails: LIBO's threshold omega = 0.25 is App. G's c_1 / 2 for "
    "coefficients of size at least 0.5 (kept by App. G.2 for GLMNET); on the MLP tables the "
    "group norms are smaller and META-KGL keeps 1-2 of the 100 kernels after the first task "
    "and 2-7 later, a kernel too narrow for the tables (task 2 costs 111 against k_full's 85, "
    "mean of 20 seeds). With omega = 0.05 LIBO's R_T is 471 +- 13, below k_full's 631 and "
    "F-LIBO's 507; lambda from 1e-4 to 0.015 changes little (633-657). Not a paper figure"
)


def _offline_converges(exp: str) -> Check:
    return all_of(approaches(exp, "META-KGL", "k*", _OFFLINE_WINDOW),
                  approaches(exp, "F-META-KGL", "k*", _OFFLINE_WINDOW))  # fmt: skip


def _both_below_full(exp: str, significant: bool = False) -> Check:
    test = significantly_below if significant else below
    return all_of(test(exp, "LIBO", "k_full"), test(exp, "F-LIBO", "k_full"))


def _lifelong() -> list[Claim]:
    p = "lifelong"
    last = f"over the last {LAST_TASKS} tasks"
    return [
        _claim("ll-offline-converge-to-oracle", p, "The single-task regret of GP-UCB with the "
               "kernels of META-KGL and F-META-KGL converges to the oracle's (k*) as meta-training "
               f"tasks accrue: per-round regret {last} (blocks of 70 steps) within 25% of k*'s.",
               "Sec. 6.1, Fig. 2", _offline_converges("ll-offline"),
               _LL_FMETA_NOTE),
        _claim("ll-offline-metakgl-below-fmetakgl", p, "META-KGL performs slightly better than "
               "F-META-KGL (lower regret summed over the 30 test tasks).", "Sec. 6.1, Fig. 2",
               below("ll-offline", "META-KGL", "F-META-KGL")),
        _claim("ll-offline-cosine2d-converge-to-oracle", p, "With 2-D cosine base kernels both "
               f"meta-learners approach the oracle's regret ({last}, within 25%).",
               "App. G.3, Fig. 5 (left)", _offline_converges("ll-offline-cosine2d"),
               _LL_FMETA_NOTE),
        _claim("ll-offline-legendre-converge-to-oracle", p, "With Legendre base kernels both "
               f"meta-learners approach the oracle's regret ({last}, within 25%).",
               "App. G.3, Fig. 5 (right)", _offline_converges("ll-offline-legendre"),
               _LL_FMETA_NOTE),
        _claim("ll-synthetic-initially-like-kfull", p, "LIBO and F-LIBO initially suffer the same "
               "regret as the naive k_full agent (R_t at the end of the first task "
               "indistinguishable).", "Sec. 6.2, Fig. 3 (left)",
               all_of(similar("ll-synthetic", "LIBO", "k_full", at_round(LL_STEPS)),
                      similar("ll-synthetic", "F-LIBO", "k_full", at_round(LL_STEPS)))),
        _claim("ll-synthetic-libo-below-kfull", p, "LIBO and F-LIBO significantly improve on the "
               "naive k_full agent (lower lifelong R_T).", "Sec. 6.2, Fig. 3 (left), Fig. 6a",
               _both_below_full("ll-synthetic", significant=True)),
        _claim("ll-synthetic-libo-oracle-slope", p, "LIBO becomes indistinguishable from the "
               f"oracle agent: the same slope of the cumulative regret as k* ({last}, within 25%).",
               "Sec. 6.2; App. G.3, Fig. 6a",
               approaches("ll-synthetic", "LIBO", "k*", _ORACLE_WINDOW)),
        _claim("ll-synthetic-flibo-slope-above-oracle", p, "F-LIBO stays slightly sub-optimal: "
               f"its regret slope {last} is higher than the oracle's.", "App. G.3, Fig. 6a",
               below("ll-synthetic", "k*", "F-LIBO", tail_rate(_ORACLE_WINDOW))),
        _claim("ll-legendre-libo-below-kfull", p, "With Legendre features LIBO and F-LIBO "
               "substantially outperform the naive k_full agent.", "App. G.3, Fig. 6c",
               _both_below_full("ll-legendre", significant=True),
               _LL_FLIBO_NOTE),
        _claim("ll-all-data-libo-below-kfull", p, "LIBO meta-learning on all data outperforms "
               "k_full (cosine and Legendre features).", "App. G.3, Fig. 6b, 6d",
               all_of(below("ll-synthetic-all-data", "LIBO (all data)", "k_full"),
                      below("ll-legendre-all-data", "LIBO (all data)", "k_full"))),
        _claim("ll-all-data-faster", p, "Convergence is much faster when all interaction data is "
               "used: LIBO (all data) has significantly lower R_T than LIBO on the same tasks "
               "(cosine and Legendre features).", "App. G.3, Fig. 6 caption",
               all_of(significantly_below("ll-synthetic-all-data", "LIBO (all data)", "LIBO",
                                          b_exp="ll-synthetic"),
                      significantly_below("ll-legendre-all-data", "LIBO (all data)", "LIBO",
                                          b_exp="ll-legendre")),
               _LL_ALL_DATA_NOTE),
        _claim("ll-automl-libo-below-kfull", p, "In lifelong AutoML (GLMNET tuning) LIBO and "
               "F-LIBO improve on the naive k_full agent.", "Sec. 6.2, Fig. 3 (right); our data: "
               "elastic-net tables on 53 data sets", _both_below_full("ll-automl")),
        _claim("ll-hpobench-libo-below-kfull", p, "The AutoML claim on a second sequence "
               "(HPOBench MLP tables): LIBO and F-LIBO below k_full.", "Sec. 6.2, Fig. 3 (right), "
               "restated on this project's second AutoML sequence",
               _both_below_full("ll-hpobench"),
               _LL_HPOBENCH_NOTE),
    ]  # fmt: skip


_Q_FIG1 = ("q-synthetic-bernoulli", "q-synthetic-gaussian", "q-automl-pima")
_Q_NOISE = tuple(f"{e}-device-noise" for e in _Q_FIG1)


def _kernel_below_linear(exp: str) -> Check:
    return all_of(below(exp, "GP-UCB", "LinUCB"), below(exp, "Q-GP-UCB", "Q-LinUCB"))


_Q_AUTHORS = "Q-GP-UCB (authors' code)"
_Q_ABL = "q-synthetic-bernoulli-ablation"
_Q_WEIGHTING = (
    "where this fails, it holds only under a departure of the authors' code from the paper: the "
    "code weights y by 1/eps^3 instead of eq. (3)'s 1/eps^2, which inflates the mean of an arm "
    "measured precisely about 1/eps times and locks the rule onto it (on the optimum: a plateau; "
    "on a near-optimal arm: linear regret). The claims q-ablation-weighting-decides and "
    "q-authors-code-* measure this"
)


_Q_AUTHORS_NOTE = (
    "the code's 1/eps^3 weighting locks the rule onto the first arm it measures precisely: on the "
    "optimum the regret stops (second half of the queries adds 0% of R_T; R_T 25-41), on a "
    "near-optimal arm it grows linearly (second half adds 41-49%): 2 of 10 seeds on the "
    "Bernoulli problem (R_T 105, 1241), 5 of 10 on the Gaussian one (287-599), all 5 on Pima "
    "(70-164). Medians: 35 against GP-UCB's 67 (Bernoulli), 197 against 72 (Gaussian), 137 "
    "against 148 (Pima). The authors' own result files give 34.1 +- 1.1 on the Bernoulli problem, "
    "the value of the seeds that lock onto the optimum (quantum guide)"
)


_Q_NOISE_NOTE = (
    "Alg. 1's regret here is dominated by exploring every arm, not by the estimates' errors, and "
    "the noisy runs differ from the noiseless ones by a few percent in either direction (see the "
    "evidence), within the seeds' spread; our device noise is that of Qiskit's GenericBackendV2, "
    "not the paper's fake IBM device, and may be milder"
)


def _quantum() -> list[Claim]:
    p = "quantum"
    win = "our Q-GP-UCB significantly outperforms the classical baseline of GP-UCB"
    return [
        _claim("q-bernoulli-qgpucb-below-gpucb", p, "Q-GP-UCB has significantly lower "
               "cumulative regret R_T than GP-UCB (synthetic, Bernoulli noise).",
               f"Sec. 6, Fig. 1a ('{win}')",
               significantly_below("q-synthetic-bernoulli", "Q-GP-UCB", "GP-UCB"), _Q_WEIGHTING),
        _claim("q-gaussian-qgpucb-below-gpucb", p, "Q-GP-UCB has significantly lower R_T than "
               "GP-UCB (synthetic, Gaussian noise).", f"Sec. 6, Fig. 1b ('{win}')",
               significantly_below("q-synthetic-gaussian", "Q-GP-UCB", "GP-UCB"), _Q_WEIGHTING),
        _claim("q-pima-qgpucb-below-gpucb", p, "Q-GP-UCB has significantly lower R_T than GP-UCB "
               "in AutoML (SVM on Pima diabetes).", f"Sec. 6 (AutoML), Fig. 1c ('{win}')",
               significantly_below("q-automl-pima", "Q-GP-UCB", "GP-UCB"), _Q_WEIGHTING),
        _claim("q-breast-cancer-qgpucb-below-gpucb", p, "The AutoML claim on a second data set "
               "(SVM on breast cancer): Q-GP-UCB significantly below GP-UCB.", "Sec. 6, Fig. 1c, "
               "restated on this project's second SVM table",
               significantly_below("q-automl-breast-cancer", "Q-GP-UCB", "GP-UCB"), _Q_WEIGHTING),
        _claim("q-explore-then-exploit", p, "Q-GP-UCB explores many arms in its initial stages "
               "and exploits a few in its later, longer stages: at least 5 times fewer changes of "
               "the played arm in the second half of the queries than in the first (Fig. 1 "
               "experiments).", "Sec. 4.2 (eps_s and N_eps_s: 'prefer the exploration of more "
               "unique inputs' early, 'the exploitation of a small number of unique inputs' later)",
               all_of(*(exploits_later(e, "Q-GP-UCB") for e in _Q_FIG1))),
        _claim("q-fig1-learn", p, "Both GP-UCB and Q-GP-UCB learn in the experiments of Fig. 1: "
               "R_T significantly below that of a uniformly random arm.", "Sec. 6, Fig. 1a-c (the "
               "curves flatten; the random floor is not in the paper)",
               all_of(*(learns(e, a) for e in _Q_FIG1 for a in ("GP-UCB", "Q-GP-UCB")))),
        _claim("q-ablation-weighting-decides", p, "Of the authors' code's three departures from "
               "Alg. 1, the 1/eps^3 weighting of y alone lowers Q-GP-UCB's R_T significantly; "
               "lam = 1 and the random initial arm do not change it significantly (Fig. 1a).",
               "Not in the paper: the ablation behind the Fig. 1a verdicts "
               "(q-synthetic-bernoulli-ablation)",
               all_of(significantly_below(_Q_ABL, "Q-GP-UCB + y/eps^3 weighting", "Q-GP-UCB"),
                      similar(_Q_ABL, "Q-GP-UCB + lam = 1", "Q-GP-UCB"),
                      similar(_Q_ABL, "Q-GP-UCB + random initial arm", "Q-GP-UCB"))),
        _claim("q-authors-code-below-gpucb", p, "As the authors' public code runs it, Q-GP-UCB "
               "has significantly lower R_T than GP-UCB in the experiments of Fig. 1.",
               "Sec. 6, Fig. 1a-c, with the code's departures from Alg. 1 (y weighted by "
               "1/eps^3, lam = 1, a random initial arm)",
               all_of(*(significantly_below(e, _Q_AUTHORS, "GP-UCB") for e in _Q_FIG1)),
               _Q_AUTHORS_NOTE),
        _claim("q-authors-code-plateaus", p, "As the authors' public code runs it, Q-GP-UCB's "
               "cumulative regret plateaus after the initial stage (Fig. 1 experiments).",
               "Sec. 6 (Discussion), Fig. 1a-c, with the code's departures from Alg. 1",
               all_of(*(plateaus(e, _Q_AUTHORS) for e in _Q_FIG1)),
               _Q_AUTHORS_NOTE),
        _claim("q-synthetic-kernel-below-linear", p, "Linear bandits severely underperform "
               "kernelized ones in both the classical and quantum settings: GP-UCB below "
               "LinUCB and Q-GP-UCB below Q-LinUCB (both synthetic problems).",
               "Sec. 6; App. J, Fig. 2a, 2b",
               all_of(*(_kernel_below_linear(e) for e in _Q_FIG1[:2]))),
        _claim("q-pima-kernel-below-linear", p, "In AutoML, GP-UCB is below LinUCB and Q-GP-UCB "
               "below Q-LinUCB.", "Sec. 6 (AutoML), Fig. 1d",
               _kernel_below_linear("q-automl-pima")),
        _claim("q-breast-cancer-kernel-below-linear", p, "The Fig. 1d claim on the second SVM "
               "table: GP-UCB below LinUCB, Q-GP-UCB below Q-LinUCB.", "Fig. 1d, restated on this "
               "project's second SVM table", _kernel_below_linear("q-automl-breast-cancer")),
        _claim("q-early-above-gpucb", p, "Q-GP-UCB incurs larger regret than GP-UCB in the "
               "initial stage (R_t at t = T/10) in the experiments of Fig. 1.",
               "Sec. 6 (Discussion), Fig. 1a-c",
               all_of(*(below(e, "GP-UCB", "Q-GP-UCB", at_fraction(0.1)) for e in _Q_FIG1))),
        _claim("q-qgpucb-plateaus", p, "After the initial stage Q-GP-UCB quickly achieves zero "
               "regret: its cumulative regret curve plateaus (Fig. 1 experiments).",
               "Sec. 6 (Discussion), Fig. 1a-c",
               all_of(*(plateaus(e, "Q-GP-UCB") for e in _Q_FIG1)), _Q_WEIGHTING),
        _claim("q-bernoulli-noisy-below-gpucb", p, "With simulated device noise Q-GP-UCB still "
               "significantly outperforms GP-UCB (Bernoulli noise).", "Sec. 6; App. J, Fig. 3a",
               significantly_below(_Q_NOISE[0], "Q-GP-UCB (noisy)", "GP-UCB"), _Q_WEIGHTING),
        _claim("q-gaussian-noisy-below-gpucb", p, "With simulated device noise Q-GP-UCB still "
               "significantly outperforms GP-UCB (Gaussian noise).", "Sec. 6; App. J, Fig. 3b",
               significantly_below(_Q_NOISE[1], "Q-GP-UCB (noisy)", "GP-UCB"), _Q_WEIGHTING),
        _claim("q-pima-noisy-below-gpucb", p, "With simulated device noise Q-GP-UCB still "
               "significantly outperforms GP-UCB (AutoML).", "Sec. 6; App. J, Fig. 3c",
               significantly_below(_Q_NOISE[2], "Q-GP-UCB (noisy)", "GP-UCB"), _Q_WEIGHTING),
        _claim("q-noise-deteriorates", p, "Quantum noise slightly deteriorates Q-GP-UCB: the "
               "noiseless Q-GP-UCB is below the noisy one in all three experiments.",
               "Sec. 6; App. J, Fig. 3a-c",
               all_of(*(below(e, "Q-GP-UCB", "Q-GP-UCB (noisy)") for e in _Q_NOISE)),
               _Q_NOISE_NOTE),
    ]  # fmt: skip


_CLASSICAL = ("GP-UCB", "GP-EI", "GP-PI", "GP-TS")
_BASELINES = (*_CLASSICAL, "Env-GP", "Diff-GP")  # the paper's six (Sec. 6.1)
_ALL = ("DeltaBO", *_BASELINES)
_SWEEP = ("DeltaBO N=25", "DeltaBO N=100", "DeltaBO N=400")


def _deltabo_lowest(exp: str, significant: bool = False) -> Check:
    return lowest(exp, "DeltaBO", _ALL, significant=significant)


_TR_FIG1 = ("tr-automl-gboost", "tr-automl-mlp", "tr-gaussian", "tr-bohachevsky", "tr-assumption")
_TR_AUTOML_NOTE = (
    "DeltaBO's Alg. 1 line 5 gives a target point off the source set the noise "
    "sigma_g^2(x) + sigma^2, about the output variance on these tables (neighbouring "
    "configurations correlate at 1e-2 to 1e-4), so the difference GP learns almost nothing off "
    "the source points and DeltaBO does not return to good initial points, where Diff-GP does; "
    "before the outputs were modelled at their level and scale (transfer guide) DeltaBO was the "
    "worst GP method here"
)


_TR_BOHACHEVSKY_NOTE = (
    "with 400 source points DeltaBO starts next to the optimum: its per-round regret is about "
    "0.03 from the first round to the last (GP-UCB's starts at 12), on about a third of the seeds "
    "0 at the best grid point, on the others a neighbouring point it never leaves; there is no "
    "growth to level off, and the check, relative to its own R_T, sees a straight line"
)


_TR_EQUIVALENCE_NOTE = (
    "'comparable' is checked as equivalence (the 95% interval of the paired difference within "
    "25% of DeltaBO's R_t); at the paper's 30 replications the early interval is too wide to show "
    "it, though it also contains 0"
)


def _transfer() -> list[Claim]:
    p = "transfer"
    n_claim = ("DeltaBO's regret falls as the source data grows (R_T strictly decreasing over "
               "N = 25, 100, 400; eq. (8): O~(sqrt(T (T/N + gamma_delta))))")  # fmt: skip
    n_source = "Sec. 5.3 and Thm 1 (eq. (8)); Sec. 6.3: DeltaBO 'benefits the most' from more N"
    return [
        _claim("tr-gboost-deltabo-lowest", p, "DeltaBO significantly outperforms all other "
               "baselines (lowest R_T, significantly below each) tuning gradient boosting.",
               "Sec. 6.2, Fig. 1a", _deltabo_lowest("tr-automl-gboost", significant=True),
               _TR_AUTOML_NOTE),
        _claim("tr-mlp-deltabo-lowest", p, "DeltaBO establishes a consistent advantage (lowest "
               "R_T) tuning the MLP.", "Sec. 6.2, Fig. 1b", _deltabo_lowest("tr-automl-mlp"),
               _TR_AUTOML_NOTE),
        _claim("tr-mlp-envgp-diffgp-similar", p, "Env-GP and Diff-GP exhibit nearly identical "
               "behavior tuning the MLP.", "Sec. 6.2, Fig. 1b",
               similar("tr-automl-mlp", "Env-GP", "Diff-GP")),
        _claim("tr-hpobench-deltabo-lowest", p, "The AutoML claim on a second pair (HPOBench MLP, "
               "credit_g -> australian): DeltaBO lowest.", "Sec. 6.2, Fig. 1b, restated on this "
               "project's HPOBench pair", _deltabo_lowest("tr-hpobench"), _TR_AUTOML_NOTE),
        _claim("tr-gaussian-deltabo-lowest", p, "DeltaBO achieves significantly lower regret than "
               "all other algorithms on the Gaussian-kernel functions.", "Sec. 6.3, Fig. 1c",
               _deltabo_lowest("tr-gaussian", significant=True)),
        _claim("tr-gaussian-transfer-below-classical", p, "Env-GP and Diff-GP outperform the "
               "classical algorithms (GP-UCB, GP-EI, GP-PI, GP-TS) on the Gaussian-kernel "
               "functions.", "Sec. 6.3, Fig. 1c",
               all_below("tr-gaussian", ("Env-GP", "Diff-GP"), _CLASSICAL)),
        _claim("tr-bohachevsky-deltabo-lowest", p, "DeltaBO outperforms all other algorithms on "
               "the Bohachevsky functions.", "Sec. 6.3, Fig. 1d",
               _deltabo_lowest("tr-bohachevsky")),
        _claim("tr-bohachevsky-envgp-best-baseline", p, "Env-GP achieves the best performance "
               "among the baselines on the Bohachevsky functions.", "Sec. 6.3, Fig. 1d",
               lowest("tr-bohachevsky", "Env-GP", _BASELINES)),
        _claim("tr-bohachevsky-deltabo-levels-off", p, "DeltaBO's regret growth slows and "
               "eventually levels off (it finds the global optimum).", "Sec. 6.3, Fig. 1d",
               plateaus("tr-bohachevsky", "DeltaBO"), _TR_BOHACHEVSKY_NOTE),
        _claim("tr-assumption-deltabo-lowest", p, "Where Assumption 1 holds, DeltaBO has the "
               "lowest regret (Diff-GP fails to sustain DeltaBO's low regret).",
               "Sec. 6.3, Fig. 1e; Sec. 7", _deltabo_lowest("tr-assumption")),
        _claim("tr-assumption-diffgp-early-comparable", p, "Diff-GP is comparable to DeltaBO in "
               "the early iterations (R_t at t = T/3 indistinguishable) but above it at T.",
               "Sec. 6.3, Fig. 1e",
               all_of(similar("tr-assumption", "Diff-GP", "DeltaBO", at_fraction(1 / 3)),
                      below("tr-assumption", "DeltaBO", "Diff-GP")),
               _TR_EQUIVALENCE_NOTE),
        _claim("tr-deltabo-learns", p, "DeltaBO learns in every experiment of Fig. 1: R_T "
               "significantly below a uniformly random target point's.", "Sec. 6, Fig. 1a-e "
               "(the random floor is not in the paper)",
               all_of(*(learns(e, "DeltaBO") for e in _TR_FIG1))),
        _claim("tr-gaussian-regret-falls-with-n", p, n_claim + ", Gaussian-kernel functions.",
               n_source, decreasing("tr-gaussian-n-sweep", _SWEEP)),
        _claim("tr-bohachevsky-regret-falls-with-n", p, n_claim + ", Bohachevsky functions.",
               n_source, decreasing("tr-bohachevsky-n-sweep", _SWEEP)),
        _claim("tr-assumption-regret-falls-with-n", p, n_claim + ", assumption-satisfied setting.",
               n_source, decreasing("tr-assumption-n-sweep", _SWEEP)),
    ]  # fmt: skip


CLAIMS: tuple[Claim, ...] = (*_multitask(), *_lifelong(), *_quantum(), *_transfer())


def check_claims(
    results: StoredResults, claims: Sequence[Claim] = CLAIMS
) -> list[tuple[Claim, Verdict]]:
    """Each claim with its verdict on ``results`` (never raises on absent data)."""
    return [(c, c.check(results)) for c in claims]


def claims_table(rows: Sequence[tuple[Claim, Verdict]]) -> str:
    """A Markdown table of verdicts (id, paper, verdict, statement, source, evidence)."""
    lines = [
        "| claim | paper | verdict | statement | source | evidence |",
        "|---|---|---|---|---|---|",
    ]
    for c, v in rows:
        evidence = f"{v.evidence}. Note: {c.note}" if c.note else v.evidence
        cells = (c.id, c.paper, v.status.upper(), c.statement, c.source, evidence)
        lines.append("| " + " | ".join(x.replace("|", "\\|") for x in cells) + " |")
    counts = {s: sum(v.status == s for _, v in rows) for s in ("pass", "fail", "missing")}
    lines.append("")
    lines.append(", ".join(f"{n} {s}" for s, n in counts.items()) + f" of {len(rows)} claims")
    return "\n".join(lines)
