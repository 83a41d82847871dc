"""The generic claim checker: each primitive on constructed data, missing data, notes, the table."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from _stores import Runs, fabricated_trace, final_regrets, store_runs
from kernelbandits.experiments import get
from kernelbandits.experiments.store import ResultsStore
from kernelbandits.experiments.trace import Trace
from kernelbandits.report import notes
from kernelbandits.report.claims import (
    Claim,
    Note,
    Verdict,
    all_below,
    all_of,
    approaches,
    at_fraction,
    at_round,
    below,
    check_claims,
    claims_table,
    decreasing,
    exploits_later,
    final,
    gap_grows,
    learns,
    lowest,
    matches_reference,
    not_above,
    plateaus,
    significantly_below,
    similar,
    tail_rate,
)
from kernelbandits.report.data import StoredResults
from kernelbandits.report.registry import all_claims


@pytest.fixture
def make_results(tmp_path) -> Iterator:
    opened: list[StoredResults] = []

    def make(runs: Runs) -> StoredResults:
        results = store_runs(tmp_path / "results.sqlite", runs)
        opened.append(results)
        return results

    yield make
    for r in opened:
        r.close()


# -- missing data -------------------------------------------------------------------------------
def test_a_claim_is_missing_when_an_experiment_or_policy_is_absent(make_results) -> None:
    claim = next(c for c in all_claims() if c.id == "mt-rkhs2-mtkb-below-itkb")
    only_other = make_results(
        {"mt-rkhs-20": {"MT-KB": final_regrets(1.0), "IT-KB": final_regrets(2.0)}}
    )
    assert claim.check(only_other).status == "missing"
    (_, verdict), *_ = check_claims(only_other, [claim])
    assert verdict.status == "missing" and "mt-rkhs-2" in verdict.evidence


def test_missing_policy_and_disjoint_seeds(make_results) -> None:
    results = make_results(
        {
            "e": {"a": final_regrets(1.0), "b": final_regrets(2.0)},
            "f": {"a": final_regrets(1.0), "b": final_regrets(5.0)},
        }
    )
    v = below("e", "a", "c")(results)
    assert v.status == "missing" and "c in e" in v.evidence
    # a cross-experiment comparison on seeds no pair shares
    with ResultsStore(results.path) as store:
        store.put(fabricated_trace([0.0, 0.0, 0.0, 3.0], 7, "z"), "g", policy="z")
    again = StoredResults(results.path)
    v = below("g", "z", "a", b_exp="e")(again)
    again.close()
    assert v.status == "missing" and "no seed" in v.evidence


# -- the primitives ---------------------------------------------------------------------------------
def test_below_pass_fail_and_tie(make_results) -> None:
    results = make_results(
        {
            "e": {
                "a": final_regrets(1.0, 2.0),
                "b": final_regrets(2.0, 3.0),
                "c": final_regrets(2.0, 1.0),
            }
        }
    )
    v = below("e", "a", "b")(results)
    assert v == Verdict("pass", v.evidence)
    assert "a 1.5 ±" in v.evidence and "b 2.5 ±" in v.evidence and "2 seeds" in v.evidence
    assert "a lower on 2/2 paired seeds" in v.evidence and "R_T (T = 4)" in v.evidence
    assert below("e", "b", "a")(results).status == "fail"
    tie = below("e", "a", "c")(results)  # equal means: not below
    assert tie.status == "fail" and "a 1.5 ±" in tie.evidence and "c 1.5 ±" in tie.evidence


def test_below_ignores_rounding_differences(make_results) -> None:
    results = make_results({"e": {"a": [[1e-16] * 4], "b": [[0.0] * 4]}})
    assert below("e", "b", "a")(results).status == "fail"


def test_below_across_experiments_pairs_by_seed(make_results) -> None:
    results = make_results(
        {"e": {"a": final_regrets(1.0, 2.0)}, "f": {"a": final_regrets(3.0, 3.0)}}
    )
    v = below("e", "a", "a", b_exp="f")(results)
    assert v.status == "pass" and "a [e] 1.5" in v.evidence and "a [f] 3 ±" in v.evidence
    assert below("e", "a", "a", b_exp="f").needs == (("e", "a"), ("f", "a"))


def test_measures_follow_the_figure_metric_and_rounds(make_results) -> None:
    # mt-rkhs-2 plots R_T / T, mt-bayes the last recorded value; unknown ids: R_T
    regrets = [[1.0, 2.0, 3.0, 6.0]]  # R_t = 1, 3, 6, 12
    results = make_results(
        {e: {"MT-KB": regrets, "IT-KB": [[2.0] * 4]} for e in ("mt-rkhs-2", "mt-bayes", "e")}
    )
    v = below("mt-rkhs-2", "IT-KB", "MT-KB")(results)
    assert "R_T/T (T = 4)" in v.evidence and "MT-KB 3 ±" in v.evidence and "IT-KB 2 ±" in v.evidence
    v = below("mt-bayes", "IT-KB", "MT-KB")(results)
    assert "r_T (T = 4)" in v.evidence and "MT-KB 6 ±" in v.evidence
    v = below("e", "IT-KB", "MT-KB", final("average"))(results)
    assert "MT-KB 3 ±" in v.evidence
    v = below("e", "MT-KB", "IT-KB", at_round(2))(results)
    assert "R_t at t = 2 (T = 4)" in v.evidence and "MT-KB 3 ±" in v.evidence
    assert v.status == "pass"
    v = below("e", "MT-KB", "IT-KB", at_fraction(0.25))(results)
    assert "t = 1 " in v.evidence and "MT-KB 1 ±" in v.evidence and "IT-KB 2 ±" in v.evidence
    v = below("e", "IT-KB", "MT-KB", tail_rate(2))(results)  # (12 - 3) / 2 vs 2
    assert "last 2 rounds" in v.evidence and "MT-KB 4.5 ±" in v.evidence


def test_measure_windows_and_rounds_are_clipped() -> None:
    tr = fabricated_trace([1.0, 2.0, 3.0], 0, "a")
    assert tail_rate(10).of(tr, "cumulative") == pytest.approx(2.0)
    assert at_round(99).of(tr, "cumulative") == 6.0
    assert at_fraction(0.0).of(tr, "instantaneous") == 1.0
    assert at_fraction(1 / 3).round_of(30) == 10


def test_all_below(make_results) -> None:
    results = make_results(
        {
            "e": {
                "a": final_regrets(1.0),
                "b": final_regrets(2.0),
                "c": final_regrets(3.0),
                "d": final_regrets(2.0),
            }
        }
    )
    v = all_below("e", ["a", "b"], ["c"])(results)
    assert v.status == "pass" and "a 1 ±" in v.evidence and "c 3 ±" in v.evidence
    assert all_below("e", ["a", "c"], ["b"])(results).status == "fail"
    assert all_below("e", ["a", "b"], ["c", "d"])(results).status == "fail"  # b == d


def test_lowest(make_results) -> None:
    results = make_results(
        {
            "e": {
                "a": final_regrets(1.0, 2.0),
                "b": final_regrets(2.0, 2.0),
                "c": final_regrets(3.0, 0.0),
            }
        }
    )
    v = lowest("e", "b", ["a", "b", "c"])(results)
    assert v.status == "fail" and "b 2 ±" in v.evidence and "a 1.5 ±" in v.evidence
    assert lowest("e", "a", ["a", "b"])(results).status == "pass"
    assert lowest("e", "a", ["a", "c"])(results).status == "fail"  # tie at 1.5
    # default: every policy of the registered spec
    assert {p for _, p in lowest("mt-rkhs-2", "MT-KB").needs} == set(get("mt-rkhs-2").policies)


def test_decreasing(make_results) -> None:
    results = make_results(
        {"e": {"n1": final_regrets(3.0), "n2": final_regrets(2.0), "n3": final_regrets(2.0)}}
    )
    v = decreasing("e", ["n1", "n2"])(results)
    assert v.status == "pass" and "n1 3 ± 0 > n2 2 ± 0" in v.evidence
    assert decreasing("e", ["n1", "n2", "n3"])(results).status == "fail"  # n2 == n3
    assert decreasing("e", ["n2", "n1"])(results).status == "fail"


def test_similar_and_not_above_use_the_paired_95_interval(make_results) -> None:
    # paired differences a - b: [2.96, 0.96] -> mean 1.96, s.e. 1, half-width exactly 1.96
    base = [0.0, 0.0]
    results = make_results(
        {
            "e": {
                "b": final_regrets(*base),
                "edge": final_regrets(2.96, 0.96),
                "out": final_regrets(2.96, 1.0),  # mean 1.98, half-width 1.96 * 0.98
                "zero": final_regrets(1.0, -1.0),
            }
        }
    )
    v = similar("e", "edge", "b")(results)  # reference mean 0: nothing is within 25% of it
    assert v.status == "fail" and "paired difference 1.96 ± 1.96" in v.evidence
    assert not_above("e", "edge", "b")(results).status == "pass"
    assert not_above("e", "out", "b")(results).status == "fail"
    assert not_above("e", "b", "out")(results).status == "pass"  # lower


def test_significance_needs_the_paired_95_interval_below_zero(make_results) -> None:
    # paired differences a - b: edge [-2.96, -0.96] -> mean -1.96, s.e. 1: the interval
    # [-3.92, 0] touches 0 (not significant); in [-2.96, -1.0] -> mean -1.98, s.e. 0.98: below 0
    results = make_results(
        {
            "e": {
                "b": final_regrets(0.0, 0.0),
                "edge": final_regrets(-2.96, -0.96),
                "in": final_regrets(-2.96, -1.0),
                "far": final_regrets(-10.0, -10.0),
                "Random": final_regrets(5.0, 6.0),
            }
        }
    )
    v = significantly_below("e", "in", "b")(results)
    assert v.status == "pass" and "in lower on 2/2 paired seeds" in v.evidence
    assert significantly_below("e", "edge", "b")(results).status == "fail"
    assert below("e", "edge", "b")(results).status == "pass"  # lower, but not significantly
    assert significantly_below("e", "b", "in")(results).status == "fail"
    # lowest / all_below: the least significant pair decides and is named
    v = lowest("e", "far", ["far", "b", "edge"], significant=True)(results)
    assert v.status == "pass" and "least significant: far - edge" in v.evidence
    assert lowest("e", "in", ["in", "b", "edge"])(results).status == "pass"
    assert lowest("e", "in", ["in", "b", "edge"], significant=True)(results).status == "fail"
    assert all_below("e", ["in", "far"], ["b"], significant=True)(results).status == "pass"
    v = all_below("e", ["edge", "far"], ["b"], significant=True)(results)
    assert v.status == "fail" and "least significant: edge - b" in v.evidence
    # learns: significantly below the uniformly random policy
    assert learns("e", "b")(results).status == "pass"
    assert {p for _, p in learns("e", "b").needs} == {"b", "Random"}


def test_exploits_later_counts_switches_of_the_played_point(tmp_path) -> None:
    def trace(points: list[float], seed: int) -> Trace:
        T = len(points)
        zeros = np.zeros(T)
        X = np.array(points, dtype=float)[:, None]
        return Trace(X, zeros, zeros, zeros, zeros, "a", "fabricated", seed, 0.0)

    # T = 12, halves of 6 rounds: switches counted between consecutive rounds
    early = [0, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 0]  # 5 switches in the first half, 1 in the second
    flat = [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1]  # 5 and 6
    store = ResultsStore(tmp_path / "results.sqlite")
    for seed, pts in enumerate([early, early]):
        store.put(trace(pts, seed), "good", policy="a")
    for seed, pts in enumerate([flat, early]):
        store.put(trace(pts, seed), "bad", policy="a")
    store.set_plan("good", 12, 2, ["a"])
    store.set_plan("bad", 12, 2, ["a"])
    with StoredResults(store) as results:
        v = exploits_later("good", "a")(results)
        assert (
            v.status == "pass" and "5 switches" in v.evidence and ", 1 in the second" in v.evidence
        )
        assert exploits_later("bad", "a")(results).status == "fail"  # 3.5 x 5 > 5
        assert exploits_later("bad", "a", factor=1.0)(results).status == "pass"
        assert exploits_later("none", "a")(results).status == "missing"


def test_a_note_is_computed_from_the_store_only_for_the_verdicts_it_explains(make_results) -> None:
    results = make_results({"e": {"a": final_regrets(1.0), "b": final_regrets(2.0)}})

    def explain(stored: StoredResults) -> str:
        return f"b ends at {notes.mean(stored, 'e', 'b'):g}"

    failing = Claim(
        "f", "quantum", "b below a", "Fig. 1", ("e",), below("e", "b", "a"), Note(explain)
    )
    passing = Claim(
        "p", "quantum", "a below b", "Fig. 1", ("e",), below("e", "a", "b"), Note(explain)
    )
    on_pass = Claim("q", "quantum", "a below b", "Fig. 1", ("e",), below("e", "a", "b"),
                    Note(explain, shown_on=("pass",)))  # fmt: skip
    rows = dict((c.id, v) for c, v in check_claims(results, [failing, passing, on_pass]))
    assert (rows["f"].status, rows["f"].note) == ("fail", "b ends at 2")
    assert (rows["p"].status, rows["p"].note) == ("pass", "")
    assert rows["q"].note == "b ends at 2"
    table = claims_table(check_claims(results, [failing, passing]))
    assert "criterion: mean b < mean a. Note: b ends at 2 |" in table
    assert table.count("Note:") == 1


def test_similar_is_an_equivalence_test_within_a_margin_of_the_reference(make_results) -> None:
    # reference b = 10 on both seeds; margin 25% -> |d| + 1.96 s.e. must be <= 2.5
    results = make_results(
        {
            "e": {
                "b": final_regrets(10.0, 10.0),
                "close": final_regrets(10.5, 10.7),  # d = 0.6, s.e. 0.1: 0.796 <= 2.5
                "edge": final_regrets(11.5, 11.5),  # d = 1.5, s.e. 0: 1.5 <= 2.5
                "wide": final_regrets(7.0, 13.0),  # d = 0, s.e. 3: 5.88 > 2.5 (absence of evidence)
                "far": final_regrets(13.0, 13.0),  # d = 3 > 2.5
                "same": final_regrets(10.0, 10.0),
            }
        }
    )
    v = similar("e", "close", "b")(results)
    assert v.status == "pass" and "25% of mean b (2.5)" in v.evidence
    assert similar("e", "edge", "b")(results).status == "pass"
    assert similar("e", "same", "b")(results).status == "pass"
    assert similar("e", "wide", "b")(results).status == "fail"
    assert similar("e", "far", "b")(results).status == "fail"
    assert similar("e", "far", "b", margin=0.3)(results).status == "pass"


def test_approaches_compares_tail_slopes(make_results) -> None:
    def runs(slope: float) -> list[list[float]]:
        return [[50.0, 50.0] + [slope] * 4]  # a costly start outside the window

    results = make_results(
        {"e": {"ref": [[0.0, 0.0] + [1.0] * 4]} | {str(s): runs(s) for s in (1.25, 1.3, 0.75, 0.7)}}
    )
    v = approaches("e", "1.25", "ref", window=4)(results)
    assert v.status == "pass" and "ratio 1.25" in v.evidence and "ref 1 ±" in v.evidence
    assert approaches("e", "1.3", "ref", window=4)(results).status == "fail"
    assert approaches("e", "0.75", "ref", window=4)(results).status == "pass"
    assert approaches("e", "0.7", "ref", window=4)(results).status == "fail"
    assert approaches("e", "1.25", "ref", window=6)(results).status == "fail"  # start counts


def test_plateaus(make_results) -> None:
    results = make_results(
        {
            "e": {
                "flat": [[1.0, 1.0, 0.0, 0.0]],
                "line": [[1.0] * 4],
                "edge": [[0.9, 0.0, 0.1, 0.0]],  # the last half adds exactly 10%
                "exact": [[1e-16] * 4],  # rounding residue of an exact optimum
            }
        }
    )
    v = plateaus("e", "line")(results)
    assert v.status == "fail" and "R_T 4" in v.evidence and "2 (50.0%) in the last 2" in v.evidence
    assert plateaus("e", "flat")(results).status == "pass"
    assert plateaus("e", "edge")(results).status == "pass"
    assert plateaus("e", "exact")(results).status == "pass"
    assert plateaus("e", "absent")(results).status == "missing"


def test_gap_grows(make_results) -> None:
    results = make_results(
        {
            "small": {"a": final_regrets(1.0), "b": final_regrets(2.0)},  # advantage 50%
            "large": {"a": final_regrets(1.0), "b": final_regrets(4.0)},  # advantage 75%
            "same": {"a": final_regrets(2.0), "b": final_regrets(4.0)},  # 50%
        }
    )
    v = gap_grows("small", "large", "a", "b")(results)
    assert v.status == "pass" and "advantage 50.0%" in v.evidence and "75.0%" in v.evidence
    assert gap_grows("large", "small", "a", "b")(results).status == "fail"
    assert gap_grows("small", "same", "a", "b")(results).status == "fail"


def test_all_of_combines_and_flattens(make_results) -> None:
    results = make_results({"e": {"a": final_regrets(1.0), "b": final_regrets(2.0)}})
    yes, no = below("e", "a", "b"), below("e", "b", "a")
    assert all_of(yes, yes)(results).status == "pass"
    combined = all_of(yes, all_of(no, yes))
    v = combined(results)
    assert v.status == "fail" and v.evidence.count("[pass]") == 2 and "[fail]" in v.evidence
    assert len(combined.parts) == 3 and combined.needs == (("e", "a"), ("e", "b"))
    assert all_of(yes, below("e", "a", "c"))(results).status == "missing"


def test_table_row_escapes_pipes(make_results) -> None:
    results = make_results({"e": {"a": final_regrets(1.0), "b": final_regrets(2.0)}})
    check = all_of(below("e", "a", "b"), below("e", "a", "b"))
    claim = Claim("x", "transfer", "s", "src", ("e",), check)
    table = claims_table(check_claims(results, [claim]))
    row = table.splitlines()[2]
    assert row.startswith("| x | transfer | PASS |") and "\\|" in row
    assert "1 pass, 0 fail, 0 missing of 1 claims" in table


def test_the_mean_over_rounds_measure_is_the_area_under_the_recorded_curve() -> None:
    from kernelbandits.report.claims import over_rounds

    regret = np.array([0.5, 0.25, 0.0, 0.0])
    trace = Trace(
        X=np.zeros((4, 1)), y=np.zeros(4), f=np.zeros(4), regret=regret, wall_time=np.zeros(4),
        policy="p", problem="q", seed=0, optimum_value=1.0,
    )  # fmt: skip
    assert over_rounds().of(trace, "instantaneous") == pytest.approx(0.1875)
    assert over_rounds().label(4, "instantaneous") == "mean of r_t over t = 1..4"


def test_matches_reference_is_unpaired_and_needs_a_precise_enough_comparison(make_results) -> None:
    # ours [9, 11]: mean 10, s.e. 1; reference [9, 11] + shift: s.e. 1, so h = 1.96 sqrt(2)
    h = 1.96 * np.sqrt(2.0)
    results = make_results({"e": {"a": final_regrets(9.0, 11.0), "wide": final_regrets(0.0, 40.0)}})
    asked: list[int] = []

    def reference(shift: float):
        def at(T: int) -> np.ndarray:
            asked.append(T)
            return np.array([9.0, 11.0]) + shift

        return at

    inside = matches_reference("e", "a", reference(h - 0.01), "theirs")(results)
    assert inside.status == "pass", inside.evidence
    assert asked == [4]  # the reference is read at our stored horizon
    assert f"difference {-(h - 0.01):.4g} ± {h:.4g} (95%, unpaired)" in inside.evidence
    outside = matches_reference("e", "a", reference(h + 0.01), "theirs")(results)
    assert outside.status == "fail"
    # a spread too wide to tell: within the noise, but h > 50% of the reference's mean (10)
    wide = matches_reference("e", "wide", reference(10.0), "theirs")(results)
    assert wide.status == "fail" and "50% of the reference's mean (10)" in wide.evidence
    assert matches_reference("e", "wide", reference(10.0), "t", precision=5.0)(results).status == (
        "pass"
    )
    none = matches_reference("e", "a", lambda T: None, "theirs")(results)
    assert none.status == "missing" and "nothing published at T = 4" in none.evidence
    absent = matches_reference("e", "nobody", reference(0.0), "theirs")(results)
    assert absent.status == "missing"
