"""Claims and their checks: a paper's qualitative claims, checked on stored results.

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
* :func:`matches_reference` -- our runs agree with another implementation's published runs
  (different seeds, so unpaired): ``|m(a) - m(ref)| <= h = 1.96 sqrt(se_a^2 + se_ref^2)``, and
  ``h`` is at most 50% of ``|m(ref)|`` (runs too spread to tell do not pass).
* :func:`gap_grows` -- the relative advantage ``1 - m(a) / m(b)`` is larger in a second experiment
  (``m(b) > 0`` required in both).
* :func:`all_of` -- a claim with several parts: missing if any part is, else pass iff all pass.

Comparisons ignore floating-point rounding: two numbers within ``RTOL = 1e-9`` (relative) or
``ATOL = 1e-12`` (absolute) of each other count as equal, so a strict comparison of equal means
fails and a ``<=`` of equal numbers passes (a policy that hits an exact optimum has regrets of
~1e-15, not 0).

The claims themselves live with their papers (``claims.py`` of each package of
:mod:`kernelbandits.papers`, registered through :mod:`kernelbandits.report.registry`); this module
is the generic checker. A claim's :class:`Note` explains a verdict with numbers computed from the
store, and :func:`check_claims` computes it only for the verdicts it explains.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Literal

import numpy as np

from kernelbandits._validation import FloatArray
from kernelbandits.experiments.spec import Metric, get
from kernelbandits.experiments.trace import Trace
from kernelbandits.report.data import StoredResults
from kernelbandits.report.registry import all_claims

Status = Literal["pass", "fail", "missing"]
Ref = tuple[str, str]  # (experiment, policy)
Z95 = 1.96  # two-sided 95% normal quantile
RTOL, ATOL = 1e-9, 1e-12  # numbers this close are equal (regrets of exact optima: ~1e-15)
_SYMBOL: dict[str, str] = {"cumulative": "R_{t}", "average": "R_{t}/{t}", "instantaneous": "r_{t}"}


@dataclass(frozen=True)
class Verdict:
    """The outcome of a check and the numbers it rests on."""

    status: Status
    evidence: str
    #: the claim's :class:`Note`, computed from the store, when it explains this verdict
    note: str = ""


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


REFERENCE_PRECISION = 0.5  # matches_reference: the 95% half-width at most 50% of the reference


def matches_reference(
    exp: str, a: str, reference: Callable[[int], FloatArray | None], source: str,
    precision: float = REFERENCE_PRECISION,
) -> Check:  # fmt: skip
    """Pass iff our ``R_T`` of ``a`` agrees with another implementation's published runs within
    the seeds' noise, ``|m(a) - m(ref)| <= h`` with ``h = 1.96 sqrt(se_a^2 + se_ref^2)``
    (unpaired: the two sets of runs share no seeds), **and** the comparison can tell:
    ``h <= precision * |m(ref)|`` (so that runs too spread to say anything do not pass).
    ``reference(T)`` gives the published runs' cumulative regret after ``T`` rounds,
    ``(n_ref,)``, at our stored horizon ``T`` (``None``: not published there, the verdict is
    "missing"); ``source`` names them in the evidence."""

    def decide(results: StoredResults) -> Verdict:
        runs = results.traces(exp).get(a, [])
        T = runs[0].horizon
        ref = reference(T)
        if ref is None or len(ref) == 0:
            return Verdict("missing", f"{source}: nothing published at T = {T}")
        ours = np.array([float(tr.cumulative_regret[-1]) for tr in runs])
        d = float(np.mean(ours) - np.mean(ref))
        half = Z95 * math.hypot(_se(ours), _se(np.asarray(ref, dtype=float)))
        text = (
            f"R_T (T = {T}): {a} {_num(float(np.mean(ours)))} ± {_se(ours):.2g} "
            f"({_seeds(ours.size)}) vs {source} {_num(float(np.mean(ref)))} ± "
            f"{_se(np.asarray(ref, dtype=float)):.2g} ({len(ref)} runs); difference "
            f"{_num(d)} ± {_num(half)} (95%, unpaired)"
        )
        bound = precision * abs(float(np.mean(ref)))
        ok = _le(abs(d), half) and _le(half, bound)
        crit = (
            f"|difference| <= 1.96 s.e. (within seed noise) and 1.96 s.e. <= {precision:.0%} of "
            f"the reference's mean ({_num(bound)})"
        )
        return _verdict(ok, text, crit)

    return Check(((exp, a),), decide)


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
class Note:
    """What explains a verdict: a text computed from the stored runs (a function of the store,
    never numbers typed by hand), shown only with the verdicts it explains (``shown_on``; by
    default a failed claim: "where this fails")."""

    explain: Callable[[StoredResults], str]
    shown_on: tuple[Status, ...] = ("fail",)


@dataclass(frozen=True)
class Claim:
    """A paper's qualitative claim about its experiments and the check that tests it."""

    id: str
    paper: str
    statement: str
    source: str
    experiments: tuple[str, ...]
    check: Check
    #: what explains the verdict (the cause, measured on the store), if anything
    note: Note | None = None


def claim(
    id: str, paper: str, statement: str, source: str, check: Check, note: Note | None = None
) -> Claim:
    """A :class:`Claim` whose experiments are those its check reads, in order."""
    experiments = tuple(dict.fromkeys(e for e, _ in check.needs))
    return Claim(id, paper, statement, source, experiments, check, note)


def paired(
    results: StoredResults, refs: Sequence[Ref], measure: Measure = FINAL
) -> dict[Ref, FloatArray]:
    """The measure of each of ``refs`` on the seeds all of them have stored, each ``(n,)`` and
    aligned by seed; empty if some ref has no stored run or no seed is common."""
    sample = _sample(results, refs, measure)
    return {} if isinstance(sample, Verdict) else sample.values


def check_claims(
    results: StoredResults, claims: Sequence[Claim] | None = None
) -> list[tuple[Claim, Verdict]]:
    """Each claim (default: every registered paper's) with its verdict on ``results``; a claim's
    note is computed into ``Verdict.note`` only when the verdict is one it explains (never raises
    on absent data)."""
    rows = []
    for c in all_claims() if claims is None else claims:
        verdict = c.check(results)
        if c.note is not None and verdict.status in c.note.shown_on:
            verdict = replace(verdict, note=c.note.explain(results))
        rows.append((c, verdict))
    return rows


def claims_table(rows: Sequence[tuple[Claim, Verdict]]) -> str:
    """A Markdown table of verdicts (id, paper, verdict, statement, source, evidence)."""
    lines = [
        "| claim | paper | verdict | statement | source | evidence |",
        "|---|---|---|---|---|---|",
    ]
    for c, v in rows:
        evidence = f"{v.evidence}. Note: {v.note}" if v.note else v.evidence
        cells = (c.id, c.paper, v.status.upper(), c.statement, c.source, evidence)
        lines.append("| " + " | ".join(x.replace("|", "\\|") for x in cells) + " |")
    counts = {s: sum(v.status == s for _, v in rows) for s in ("pass", "fail", "missing")}
    lines.append("")
    lines.append(", ".join(f"{n} {s}" for s, n in counts.items()) + f" of {len(rows)} claims")
    return "\n".join(lines)
