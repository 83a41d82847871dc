"""The bad-input table of the results store (:class:`~kernelbandits.experiments.ResultsStore`,
issue 23, item 1): opening a path that is not a store, and every method with a wrong key, a
string for a number, a negative seed, a NaN wall time, ...

Each case is one mistake a user might make (:class:`tests._bad_input.Bad`). For a method the
subject is a store holding two ok runs, a failed run, a plan and a lease; after the rejected call
its rows are those of an untouched twin.
"""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from _bad_input import Bad, Subject, assert_rejected, params
from _repo import promised_cases
from kernelbandits.experiments.store import ResultsStore, StoreError
from kernelbandits.experiments.trace import Trace

NAN, INF = float("nan"), float("inf")
_TMP = tempfile.TemporaryDirectory(prefix="kb-bad-store-")
_ROOT = Path(_TMP.name)
_NUMBERS = itertools.count()
KEY = ("exp", "Random", 0, 3)  # a stored run


@pytest.fixture(scope="module", autouse=True)
def _clean_up() -> Iterator[None]:
    yield
    _TMP.cleanup()


def _fresh(name: str = "results.sqlite") -> Path:
    """A path in a folder of its own (a store per subject)."""
    folder = _ROOT / f"s{next(_NUMBERS)}"
    folder.mkdir()
    return folder / name


def _trace(seed: int) -> Trace:
    T = 3
    return Trace(
        X=np.linspace(0.0, 1.0, T)[:, None],
        y=np.arange(T, dtype=float),
        f=np.arange(T, dtype=float),
        regret=np.full(T, 0.5),
        wall_time=np.full(T, 0.01),
        policy="Random",
        problem="line",
        seed=seed,
        optimum_value=3.0,
    )


def _store() -> ResultsStore:
    store = ResultsStore(_fresh())
    store.put(_trace(0), "exp")
    store.put(_trace(1), "exp", policy="Other", wall_time=2.5)
    store.put_failure("exp", "Random", 2, 3, "RuntimeError: boom")
    store.set_plan("exp", 3, 3, ["Random", "Other"])
    assert store.claim(("exp", "Random", 2, 3), "worker-1", 60.0, 1)
    return store


def _observe(store: ResultsStore) -> Any:
    """Every row but the creation times (which differ between twins) and the lease expiries."""
    runs = [
        (r.experiment, r.policy, r.seed, r.horizon, r.status, r.wall_time, r.error, r.attempts)
        for r in store.runs()
    ]
    traces = {p: [t.seed for t in ts] for p, ts in store.traces("exp").items()}
    # the leases have no public reader: look at the table itself
    leases = store._conn.execute("SELECT experiment, policy, seed, horizon, owner FROM leases")
    return runs, traces, store.plans(), sorted(leases)


STORE = Subject(_store, _observe)


def _b(id: str, call: Any, name: str, allowed: str, error: Any = ValueError) -> Bad:
    """A constructor case: ``call()`` takes no subject."""
    return Bad(id, lambda _: call(), name, allowed, error)


def _m(id: str, call: Any, name: str, allowed: str) -> Bad:
    """A method case on a store with some history."""
    return Bad(id, call, name, allowed, ValueError, STORE)


def _directory() -> Path:
    folder = _fresh().parent / "results.sqlite"
    folder.mkdir()
    return folder


def _corrupt() -> Path:
    path = _fresh("corrupt.sqlite")
    path.write_text("not a database, only text\n" * 200)
    return path


def _under_a_file() -> Path:
    blocker = _fresh("blocker")
    blocker.write_text("a file where a folder should be")
    return blocker / "results.sqlite"


def _unchanged_corrupt() -> None:
    path = _corrupt()
    before = path.read_bytes()
    try:
        ResultsStore(path)
    finally:
        assert path.read_bytes() == before  # the file was left untouched


OPEN = [
    _b(
        "open-directory",
        lambda: ResultsStore(_directory()),
        "results.sqlite",
        "is a directory, not a results store: give the path of a file",
        StoreError,
    ),
    _b(
        "open-corrupt",
        _unchanged_corrupt,
        "corrupt.sqlite",
        "not a readable results store .* move it away",
        StoreError,
    ),
    _b(
        "open-under-a-file",
        lambda: ResultsStore(_under_a_file()),
        "blocker",
        "in a writable directory",
        StoreError,
    ),
    _b("open-none", lambda: ResultsStore(None), "path", r"a file path \(a str or os.PathLike"),
    _b("open-int", lambda: ResultsStore(3), "path", "a file path"),
    _b("open-empty", lambda: ResultsStore(""), "path", "a file path"),
]

PUT = [
    _m("put-not-a-trace", lambda s: s.put("trace.npz", "exp"), "trace", "a Trace"),
    _m("put-none", lambda s: s.put(None, "exp"), "trace", "a Trace"),
    _m("put-experiment-empty", lambda s: s.put(_trace(5), ""), "experiment", "non-empty string"),
    _m("put-experiment-int", lambda s: s.put(_trace(5), 3), "experiment", "non-empty string"),
    _m("put-policy-int", lambda s: s.put(_trace(5), "exp", policy=1), "policy", "non-empty str"),
    _m("put-policy-empty", lambda s: s.put(_trace(5), "exp", policy=""), "policy", "non-empty"),
    _m(
        "put-wall-time-str",
        lambda s: s.put(_trace(5), "exp", wall_time="1.5"),
        "wall_time",
        "finite non-negative number",
    ),
    _m(
        "put-wall-time-nan",
        lambda s: s.put(_trace(5), "exp", wall_time=NAN),
        "wall_time",
        "finite non-negative number",
    ),
    _m(
        "put-wall-time-negative",
        lambda s: s.put(_trace(5), "exp", wall_time=-1.0),
        "wall_time",
        "finite non-negative number",
    ),
    _m(
        "put-failure-error-exception",
        lambda s: s.put_failure("exp", "Random", 4, 3, RuntimeError("boom")),
        "error",
        "a string",
    ),
    _m(
        "put-failure-seed-str",
        lambda s: s.put_failure("exp", "Random", "4", 3, "boom"),
        "seed",
        "integer >= 0",
    ),
    _m(
        "put-failure-seed-negative",
        lambda s: s.put_failure("exp", "Random", -1, 3, "boom"),
        "seed",
        "integer >= 0",
    ),
    _m(
        "put-failure-seed-float",
        lambda s: s.put_failure("exp", "Random", 2.0, 3, "boom"),
        "seed",
        "integer >= 0",
    ),
    _m(
        "put-failure-horizon-str",
        lambda s: s.put_failure("exp", "Random", 4, "3", "boom"),
        "horizon",
        "integer >= 0",
    ),
    _m(
        "put-failure-policy-none",
        lambda s: s.put_failure("exp", None, 4, 3, "boom"),
        "policy",
        "non-empty string",
    ),
    _m(
        "put-failure-wall-time-inf",
        lambda s: s.put_failure("exp", "Random", 4, 3, "boom", wall_time=INF),
        "wall_time",
        "finite non-negative",
    ),
    _m(
        "set-plan-policies-str",
        lambda s: s.set_plan("exp", 3, 3, "Random"),
        "policies",
        "a list of policy names",
    ),
    _m(
        "set-plan-policies-ints",
        lambda s: s.set_plan("exp", 3, 3, [1, 2]),
        "policies",
        "non-empty string",
    ),
    _m("set-plan-horizon-0", lambda s: s.set_plan("exp", 0, 3, ["a"]), "horizon", "integer >= 1"),
    _m(
        "set-plan-horizon-str",
        lambda s: s.set_plan("exp", "3", 3, ["a"]),
        "horizon",
        "integer >= 1",
    ),
    _m("set-plan-n-seeds-0", lambda s: s.set_plan("exp", 3, 0, ["a"]), "n_seeds", "integer >= 1"),
    _m(
        "set-plan-n-seeds-float",
        lambda s: s.set_plan("exp", 3, 2.5, ["a"]),
        "n_seeds",
        "integer >= 1",
    ),
    _m("set-plan-experiment-none", lambda s: s.set_plan(None, 3, 3, ["a"]), "experiment", "non-"),
]

LEASES = [
    _m(
        "claim-short-key",
        lambda s: s.claim(("exp", "Random"), "w", 60.0, 0),
        "key",
        r"a tuple \(experiment, policy, seed, horizon\)",
    ),
    _m(
        "claim-key-str",
        lambda s: s.claim("exp/Random/4/3", "w", 60.0, 0),
        "key",
        r"a tuple \(experiment, policy, seed, horizon\)",
    ),
    _m(
        "claim-key-seed-str",
        lambda s: s.claim(("exp", "Random", "4", 3), "w", 60.0, 0),
        "seed",
        "integer >= 0",
    ),
    _m("claim-owner-none", lambda s: s.claim(KEY, None, 60.0, 0), "owner", "non-empty string"),
    _m(
        "claim-seconds-0",
        lambda s: s.claim(("exp", "Random", 4, 3), "w", 0.0, 0),
        "seconds",
        "finite positive number",
    ),
    _m(
        "claim-seconds-nan",
        lambda s: s.claim(("exp", "Random", 4, 3), "w", NAN, 0),
        "seconds",
        "finite positive number",
    ),
    _m(
        "claim-seen-attempts-negative",
        lambda s: s.claim(("exp", "Random", 4, 3), "w", 60.0, -1),
        "seen_attempts",
        "integer >= 0",
    ),
    _m(
        "renew-seconds-str",
        lambda s: s.renew("worker-1", "60"),
        "seconds",
        "finite positive number",
    ),
    _m(
        "renew-seconds-negative",
        lambda s: s.renew("worker-1", -5.0),
        "seconds",
        "finite positive number",
    ),
    _m("renew-owner-int", lambda s: s.renew(1, 60.0), "owner", "non-empty string"),
    _m("release-owner-none", lambda s: s.release(None), "owner", "non-empty string"),
    _m("release-owner-empty", lambda s: s.release(""), "owner", "non-empty string"),
]

READS = [
    _m("get-seed-str", lambda s: s.get("exp", "Random", "0", 3), "seed", "integer >= 0"),
    _m("get-seed-word", lambda s: s.get("exp", "Random", "abc", 3), "seed", "integer >= 0"),
    _m("get-seed-negative", lambda s: s.get("exp", "Random", -1, 3), "seed", "integer >= 0"),
    _m("get-horizon-float", lambda s: s.get("exp", "Random", 0, 3.5), "horizon", "integer >= 0"),
    _m("get-experiment-none", lambda s: s.get(None, "Random", 0, 3), "experiment", "non-empty"),
    _m("get-policy-int", lambda s: s.get("exp", 7, 0, 3), "policy", "non-empty string"),
    _m("has-seed-bool", lambda s: s.has("exp", "Random", True, 3), "seed", "integer >= 0"),
    _m("has-horizon-negative", lambda s: s.has("exp", "Random", 0, -3), "horizon", ">= 0"),
    _m("attempts-seed-float", lambda s: s.attempts("exp", "Random", 1.0, 3), "seed", ">= 0"),
    _m("attempts-experiment-int", lambda s: s.attempts(1, "Random", 1, 3), "experiment", "str"),
    _m("traces-seeds-str", lambda s: s.traces("exp", seeds="01"), "seeds", "integers >= 0"),
    _m("traces-seeds-negative", lambda s: s.traces("exp", seeds=[0, -1]), "seeds", ">= 0"),
    _m("traces-seeds-floats", lambda s: s.traces("exp", seeds=[0.0]), "seeds", "integer >= 0"),
    _m("traces-horizon-str", lambda s: s.traces("exp", horizon="3"), "horizon", "integer >= 0"),
    _m("traces-experiment-none", lambda s: s.traces(None), "experiment", "non-empty string"),
    _m("runs-experiment-int", lambda s: s.runs(3), "experiment", "non-empty string"),
]

TABLE = OPEN + PUT + LEASES + READS


@pytest.mark.parametrize("case", params(TABLE))
def test_a_bad_input_is_a_clear_error_and_changes_nothing(case: Bad) -> None:
    assert_rejected(case)


def test_an_unknown_key_is_not_an_error_but_nothing() -> None:
    """Reading a run never stored is a plain answer, not an error."""
    store = _store()
    assert store.get("exp", "Random", 9, 3) is None
    assert store.get("other", "Random", 0, 3) is None
    assert not store.has("exp", "Random", 9, 3, ok_only=False)
    assert store.attempts("exp", "Nobody", 0, 3) == 0
    assert store.traces("other") == {}
    assert store.runs("other") == []
    store.close()


def test_a_failure_of_unknown_duration_is_stored_without_a_time() -> None:
    """NaN is how the sweep says a dead worker's time is unknown: not a bad input there."""
    store = _store()
    store.put_failure("exp", "Random", 7, 3, "the worker died", wall_time=NAN)
    (record,) = [r for r in store.runs() if r.seed == 7]
    assert record.status == "failed" and record.wall_time is None
    store.close()


def test_the_observed_state_can_tell_a_changed_store() -> None:
    a, b = _store(), _store()
    a.put_failure("exp", "Random", 7, 3, "boom")
    assert _observe(a) != _observe(b)
    a, b = _store(), _store()
    a.release("worker-1")
    assert _observe(a) != _observe(b)


def test_the_table_is_as_large_as_promised() -> None:
    assert len(TABLE) == promised_cases("tests/experiments/test_bad_input_store.py")
