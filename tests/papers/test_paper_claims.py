"""The papers' claims: every claim names registered base experiments and policies, decides on
fabricated runs, and its note is computed from the store and shown only with the verdict it
explains."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from _stores import Runs, final_regrets, store_runs
from kernelbandits.experiments import get
from kernelbandits.report.claims import Claim, check_claims, claims_table
from kernelbandits.report.data import StoredResults
from kernelbandits.report.registry import all_claims, get_paper, papers

PAPERS = ("multitask", "lifelong", "quantum", "transfer")


@pytest.fixture
def make_results(tmp_path) -> Iterator:
    opened: list[StoredResults] = []

    def make(runs: Runs, name: str = "results.sqlite") -> StoredResults:
        opened.append(store_runs(tmp_path / name, runs))
        return opened[-1]

    yield make
    for r in opened:
        r.close()


def _claim(claim_id: str) -> Claim:
    return next(c for c in all_claims() if c.id == claim_id)


def _fabricated(rng: np.random.Generator) -> dict[str, dict[str, list[list[float]]]]:
    """Runs of every (experiment, policy) any claim needs: 12 rounds, shorter than any window,
    and one seed fewer for GP-UCB."""
    runs: dict[str, dict[str, list[list[float]]]] = {}
    for claim in all_claims():
        for exp, policy in claim.check.needs:
            n_seeds = 2 if policy == "GP-UCB" else 3
            runs.setdefault(exp, {})[policy] = rng.uniform(0, 1, (n_seeds, 12)).tolist()
    return runs


def test_claims_cover_the_four_papers() -> None:
    ids = [c.id for c in all_claims()]
    assert len(ids) == len(set(ids))
    for paper in PAPERS:
        assert len(get_paper(paper).claims) >= 5
    assert [p.id for p in papers() if p.claims] == list(PAPERS)
    for c in all_claims():
        assert c.statement and c.source and c.experiments


def test_every_input_is_a_registered_base_experiment_and_policy() -> None:
    for claim in all_claims():
        needs = claim.check.needs
        assert needs, claim.id
        assert claim.experiments == tuple(dict.fromkeys(e for e, _ in needs))
        for exp, policy in needs:
            assert not exp.endswith(("-avg", "-qiskit")), (claim.id, exp)
            assert policy in get(exp).policies, (claim.id, exp, policy)


def test_check_claims_on_an_empty_store_is_all_missing(make_results) -> None:
    rows = check_claims(make_results({}))
    assert [c for c, _ in rows] == list(all_claims())
    assert all(v.status == "missing" and v.evidence and not v.note for _, v in rows)
    table = claims_table(rows)
    assert table.startswith("| claim |") and f"0 pass, 0 fail, {len(rows)} missing" in table


def test_every_claim_and_note_decides_when_its_inputs_are_stored(make_results) -> None:
    """Each check passes or fails and never raises; every note is computed (on its verdicts)
    without raising, also when the other experiments it quotes are not stored."""
    rows = check_claims(make_results(_fabricated(np.random.default_rng(0))))
    assert {v.status for _, v in rows} <= {"pass", "fail"}
    assert all("criterion" in v.evidence for _, v in rows)
    empty = make_results({}, "empty.sqlite")
    for claim, _ in rows:
        assert claim.note is None or claim.note.explain(empty)
    explained = [v for c, v in rows if c.note is not None and v.status in c.note.shown_on]
    assert explained and all(v.note for v in explained)


def test_every_note_is_shown_only_with_the_verdict_it_explains(make_results) -> None:
    """Over many random stores each claim's note is on exactly the rows whose verdict it
    explains (both verdicts seen for several of them)."""
    seen: set[tuple[str, str]] = set()
    for seed in range(4):
        results = make_results(_fabricated(np.random.default_rng(seed)), f"r{seed}.sqlite")
        for claim, verdict in check_claims(results):
            explains = claim.note is not None and verdict.status in claim.note.shown_on
            assert bool(verdict.note) == explains, (claim.id, verdict.status)
            seen.add((claim.id, verdict.status))
    noted = [c.id for c in all_claims() if c.note is not None]
    assert sum((cid, "pass") in seen and (cid, "fail") in seen for cid in noted) >= 6


def test_a_note_quotes_the_stored_numbers_of_the_failure_it_explains(make_results) -> None:
    """``mt-rkhs20-mtkb-below-itkb`` fails when MT-KB is not below its diagonal-B twin: the note
    says by how much, from the store (and moves when the store does); it is absent on a pass."""
    claim = _claim("mt-rkhs20-mtkb-below-itkb")

    def store(mtkb: float, diag: float, name: str) -> StoredResults:
        policies = {"MT-KB": [mtkb] * 3, "IT-KB": [5.0, 5.1, 5.2], "MT-KB (diagonal B)": [diag] * 3}
        runs = {p: final_regrets(*v, T=4) for p, v in policies.items()}
        return make_results({"mt-rkhs-20": runs}, name)

    [(_, failed)] = check_claims(store(1.0, 0.8, "fail.sqlite"), [claim])
    assert failed.status == "fail"
    assert (
        "MT-KB (diagonal B) 0.2 against MT-KB 0.25 (20% lower, lower on 3/3 seeds)" in failed.note
    )
    [(_, moved)] = check_claims(store(1.0, 0.6, "moved.sqlite"), [claim])
    assert "MT-KB (diagonal B) 0.15 against MT-KB 0.25 (40% lower" in moved.note
    [(_, passed)] = check_claims(store(1.0, 1.2, "pass.sqlite"), [claim])
    assert passed.status == "pass" and passed.note == ""
    assert "Note:" in claims_table([(claim, failed)])
    assert "Note:" not in claims_table([(claim, passed)])
