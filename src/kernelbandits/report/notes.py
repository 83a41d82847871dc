"""The numbers a claim's :class:`~kernelbandits.report.claims.Note` quotes, read from the store.

A note explains a verdict ("where this fails: ..."); every number in it is computed here from
the stored runs, so that it moves with them, and an experiment or policy without stored runs is
written ``"not stored"`` (a note never raises on absent data). Notation as in
:mod:`kernelbandits.report.claims`: a measure (``R_T``, ``R_T / T``, a tail slope, ...) per run,
its mean over the seeds stored for the policy (``mean``), or over the seeds two policies share
(``compare``: the paired comparison the checks use).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kernelbandits._validation import FloatArray
from kernelbandits.report.claims import FINAL, Z95, Measure, Ref, paired
from kernelbandits.report.data import StoredResults

NOT_STORED = "not stored"


def num(x: float | None) -> str:
    """``x`` to 3 significant digits (``"not stored"`` for ``None``)."""
    return NOT_STORED if x is None else f"{x:.3g}"


def values(
    results: StoredResults, exp: str, policy: str, measure: Measure = FINAL
) -> FloatArray | None:
    """The measure of every stored run of ``policy`` in ``exp``, ``(n,)``; ``None`` if none."""
    refs: Sequence[Ref] = [(exp, policy)]
    return paired(results, refs, measure).get((exp, policy))


def mean(results: StoredResults, exp: str, policy: str, measure: Measure = FINAL) -> float | None:
    """The mean measure of ``policy``'s stored runs in ``exp`` (``None``: no run stored)."""
    v = values(results, exp, policy, measure)
    return None if v is None else float(np.mean(v))


def means(
    results: StoredResults, exp: str, policies: Sequence[str], measure: Measure = FINAL
) -> str:
    """``"A 1.2, B 3.4"``: each policy's mean measure in ``exp`` (a policy without stored runs
    is left out; ``"not stored"`` if none has any)."""
    found = [(p, mean(results, exp, p, measure)) for p in policies]
    return ", ".join(f"{p} {num(m)}" for p, m in found if m is not None) or NOT_STORED


@dataclass(frozen=True)
class Comparison:
    """Policy ``a`` against ``b`` on their ``n`` common seeds (``n = 0``: not both stored): the
    means, the paired mean difference ``a - b`` with its 95% half-width ``1.96 s.e.``, and on
    how many seeds ``a`` is lower."""

    a: str
    b: str
    mean_a: float = math.nan
    mean_b: float = math.nan
    diff: float = math.nan
    half: float = math.nan
    lower: int = 0
    n: int = 0

    def relative(self) -> str:
        """``a`` relative to ``b``, e.g. ``"12% lower"``, ``"3.1 times higher"``."""
        if self.mean_a == 0 or self.mean_b == 0:
            return "both 0" if self.mean_a == self.mean_b else "one of them 0"
        ratio = self.mean_a / self.mean_b
        if 0.5 <= ratio <= 2:
            return f"{abs(1 - ratio):.0%} {'lower' if ratio < 1 else 'higher'}"
        return f"{max(ratio, 1 / ratio):.3g} times {'higher' if ratio > 1 else 'lower'}"

    def __str__(self) -> str:
        """E.g. ``"A 0.9 against B 1.2 (25% lower, lower on 9/10 seeds)"``."""
        if self.n == 0:
            return f"{self.a} against {self.b}: {NOT_STORED}"
        return (
            f"{self.a} {num(self.mean_a)} against {self.b} {num(self.mean_b)} "
            f"({self.relative()}, lower on {self.lower}/{self.n} seeds)"
        )

    def interval(self) -> str:
        """``"paired difference d ± h (95%)"`` (empty when not stored)."""
        return f"paired difference {num(self.diff)} ± {num(self.half)} (95%)" if self.n else ""


def compare(
    results: StoredResults,
    exp: str,
    a: str,
    b: str,
    measure: Measure = FINAL,
    *,
    b_exp: str | None = None,
) -> Comparison:
    """``a`` in ``exp`` against ``b`` (in ``b_exp``, default ``exp``) on their common seeds."""
    ra, rb = (exp, a), (b_exp or exp, b)
    sample = paired(results, [ra, rb], measure)
    if not sample:
        return Comparison(a, b)
    va, vb = sample[ra], sample[rb]
    diff = va - vb
    n = len(diff)
    se = float(np.std(diff, ddof=1) / np.sqrt(n)) if n > 1 else 0.0
    return Comparison(
        a, b, float(np.mean(va)), float(np.mean(vb)), float(np.mean(diff)), Z95 * se,
        int(np.sum(va < vb)), n,
    )  # fmt: skip
