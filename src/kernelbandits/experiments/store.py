"""A results store over SQLite: one row per run, committed as soon as the run finishes.

A run is keyed by ``(experiment, policy, seed, horizon)``. A row holds the status (``"ok"`` or
``"failed"``), the :class:`Trace` as ``.npz`` bytes (ok runs), the wall time of the whole run in
seconds (problem construction included; the trace keeps the per-round ask + tell times), the
error text (failed runs), the number of attempts and a UTC ISO-8601 creation time. Writing a key
again replaces the row (a failed run retried later becomes ok, its attempts counted).

Crash safety: every run is one SQLite transaction in WAL mode, so a writer killed at any moment
(SIGKILL included) leaves the store with every run committed before the kill and nothing half
written; the next open recovers the journal. Only one process (the sweep's client) writes;
readers may look at any time.

A second table, ``plans``, records for each experiment the size last asked for (horizon, seeds,
policies), so that readers such as the report know which runs make up the current result.

:mod:`kernelbandits.experiments.tables` reads a store as tidy tables and exports them to CSV or
Parquet.
"""

from __future__ import annotations

import json
import math
import sqlite3
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from os import PathLike
from pathlib import Path
from typing import Self

from kernelbandits._validation import check_count, check_nonnegative, check_positive
from kernelbandits.experiments.trace import Trace

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    experiment TEXT NOT NULL,
    policy     TEXT NOT NULL,
    seed       INTEGER NOT NULL,
    horizon    INTEGER NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    trace      BLOB,
    wall_time  REAL,
    error      TEXT,
    created    TEXT NOT NULL,
    attempts   INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (experiment, policy, seed, horizon)
);
CREATE TABLE IF NOT EXISTS leases (
    experiment TEXT NOT NULL,
    policy     TEXT NOT NULL,
    seed       INTEGER NOT NULL,
    horizon    INTEGER NOT NULL,
    owner      TEXT NOT NULL,
    expires    REAL NOT NULL,
    PRIMARY KEY (experiment, policy, seed, horizon)
);
CREATE TABLE IF NOT EXISTS plans (
    experiment TEXT PRIMARY KEY,
    horizon    INTEGER NOT NULL,
    n_seeds    INTEGER NOT NULL,
    policies   TEXT NOT NULL,
    updated    TEXT NOT NULL
);
"""
_COLUMNS = "experiment, policy, seed, horizon, status, wall_time, error, created, attempts"


@dataclass(frozen=True)
class RunRecord:
    """One row of the store, without the trace bytes."""

    experiment: str
    policy: str
    seed: int
    horizon: int
    status: str
    wall_time: float | None
    error: str | None
    created: str
    attempts: int = 1


@dataclass(frozen=True)
class Plan:
    """The size of an experiment last asked for: seeds ``0..n_seeds-1`` of each policy at
    ``horizon`` rounds."""

    experiment: str
    horizon: int
    n_seeds: int
    policies: tuple[str, ...]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _drop_lease(c: sqlite3.Connection, key: tuple[str, str, int, int]) -> None:
    """A stored run needs no lease any more, whoever held it."""
    c.execute("DELETE FROM leases WHERE experiment=? AND policy=? AND seed=? AND horizon=?", key)


def _check_name(value: object, name: str) -> str:
    """``value`` if it is a non-empty string, else a ``ValueError`` naming ``name``."""
    if not isinstance(value, str) or not value:
        raise ValueError(
            f"{name} must be a non-empty string; got {value!r} ({type(value).__name__})"
        )
    return value


def _check_key(
    experiment: object, policy: object, seed: object, horizon: object
) -> tuple[str, str, int, int]:
    """The key of a run, ``(experiment, policy, seed, horizon)``, checked: two non-empty
    strings and two integers >= 0 (a string such as ``"3"`` is refused, not coerced)."""
    return (
        _check_name(experiment, "experiment"),
        _check_name(policy, "policy"),
        check_count(seed, "seed", minimum=0),  # type: ignore[arg-type]
        check_count(horizon, "horizon", minimum=0),  # type: ignore[arg-type]
    )


def _check_wall_time(wall_time: object) -> float | None:
    return None if wall_time is None else check_nonnegative(wall_time, "wall_time")  # type: ignore[arg-type]


class StoreError(RuntimeError):
    """A results store that cannot be opened (a damaged file, or not a store at all)."""


class _ClosingContext(ABC):
    """A context manager for an object with :meth:`close`: ``with`` gives the object itself and
    closes it on leaving the block."""

    @abstractmethod
    def close(self) -> None:
        """Release what the object holds."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ResultsStore(_ClosingContext):
    """Runs of experiments in the SQLite file ``path`` (created with its parent directories).

    Use as a context manager or call :meth:`close`. Reopening an existing file keeps its runs.
    """

    def __init__(self, path: str | PathLike[str]) -> None:
        if not isinstance(path, str | PathLike) or not str(path):
            raise ValueError(
                f"path must be a file path (a str or os.PathLike); got {path!r} "
                f"({type(path).__name__})"
            )
        self.path = Path(path)
        if self.path.is_dir():
            raise StoreError(
                f"{self.path} is a directory, not a results store: give the path of a file, "
                f"such as {self.path / 'results.sqlite'}"
            )
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(self.path, timeout=30.0)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(
                f"{self.path} cannot be opened as a results store ({exc}): give the path of a "
                "file in a writable directory"
            ) from exc
        try:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            with self._conn:
                self._conn.executescript(_SCHEMA)
                columns = {row[1] for row in self._conn.execute("PRAGMA table_info(runs)")}
                if "attempts" not in columns:  # a store written before attempts were counted
                    self._conn.execute(
                        "ALTER TABLE runs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 1"
                    )
        except sqlite3.DatabaseError as exc:  # not SQLite, or damaged: leave the file as it is
            self._conn.close()
            raise StoreError(
                f"{self.path} is not a readable results store ({exc}); it was left untouched: "
                "move it away, or choose another output directory"
            ) from exc

    # -- lifecycle ------------------------------------------------------------------------------
    def close(self) -> None:
        self._conn.close()

    def __repr__(self) -> str:
        return f"ResultsStore({str(self.path)!r})"

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._conn:  # commits on success, rolls back on an exception
            yield self._conn

    # -- writing --------------------------------------------------------------------------------
    def _attempts(self, c: sqlite3.Connection, key: tuple[str, str, int, int]) -> int:
        row = c.execute(
            "SELECT attempts FROM runs WHERE experiment=? AND policy=? AND seed=? AND horizon=?",
            key,
        ).fetchone()
        return 1 if row is None else int(row[0]) + 1

    def put(
        self,
        trace: Trace,
        experiment: str,
        policy: str | None = None,
        wall_time: float | None = None,
    ) -> None:
        """Store a finished run (one transaction); the key is taken from the trace.

        ``policy`` overrides ``trace.policy`` as the key (the name the experiment gave it);
        ``wall_time`` is the whole run's time in seconds (default: the trace's ask + tell total).
        """
        if not isinstance(trace, Trace):
            raise ValueError(f"trace must be a Trace; got {trace!r} ({type(trace).__name__})")
        _check_name(experiment, "experiment")
        if policy is not None:
            _check_name(policy, "policy")
        checked = _check_wall_time(wall_time)
        key = (experiment, policy or trace.policy, trace.seed, trace.horizon)
        seconds = float(trace.wall_time.sum()) if checked is None else checked
        with self._transaction() as c:
            c.execute(
                "INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, 'ok', ?, ?, NULL, ?, ?)",
                (*key, sqlite3.Binary(trace.to_bytes()), seconds, _now(), self._attempts(c, key)),
            )
            _drop_lease(c, key)

    def put_failure(
        self,
        experiment: str,
        policy: str,
        seed: int,
        horizon: int,
        error: str,
        wall_time: float | None = None,
    ) -> None:
        """Record that a run failed with ``error`` (one transaction); it is retried on resume.

        ``wall_time``: seconds >= 0, or ``None`` / NaN when unknown (a worker that died)."""
        key = _check_key(experiment, policy, seed, horizon)
        if not isinstance(error, str):
            raise ValueError(
                f"error must be a string (the error's text); got {error!r} ({type(error).__name__})"
            )
        unknown = isinstance(wall_time, float) and math.isnan(wall_time)
        wall_time = None if unknown else _check_wall_time(wall_time)
        with self._transaction() as c:
            c.execute(
                "INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, 'failed', NULL, ?, ?, ?, ?)",
                (*key, wall_time, error, _now(), self._attempts(c, key)),
            )
            _drop_lease(c, key)

    def set_plan(
        self, experiment: str, horizon: int, n_seeds: int, policies: Iterable[str]
    ) -> None:
        """Record the size of ``experiment`` last asked for (replaces the previous plan)."""
        _check_name(experiment, "experiment")
        horizon = check_count(horizon, "horizon", minimum=1)
        n_seeds = check_count(n_seeds, "n_seeds", minimum=1)
        if isinstance(policies, str) or not isinstance(policies, Iterable):
            raise ValueError(
                f"policies must be a list of policy names; got {policies!r} "
                f"({type(policies).__name__})"
            )
        names = json.dumps([_check_name(p, "policies") for p in policies])
        with self._transaction() as c:
            c.execute(
                "INSERT OR REPLACE INTO plans VALUES (?, ?, ?, ?, ?)",
                (experiment, int(horizon), int(n_seeds), names, _now()),
            )

    # -- leases: several sweeps on one store share the work ------------------------------------
    def attempts(self, experiment: str, policy: str, seed: int, horizon: int) -> int:
        """How many times this run has been stored (0: never)."""
        row = self._conn.execute(
            "SELECT attempts FROM runs WHERE experiment=? AND policy=? AND seed=? AND horizon=?",
            _check_key(experiment, policy, seed, horizon),
        ).fetchone()
        return 0 if row is None else int(row[0])

    def claim(
        self, key: tuple[str, str, int, int], owner: str, seconds: float, seen_attempts: int
    ) -> bool:
        """Take the lease of run ``key`` for ``seconds`` (atomically, across processes): not
        when it is stored successfully or stored again since ``seen_attempts`` (another sweep
        ran it), nor while another owner's lease has not expired. ``True`` if ``owner`` holds
        it now."""
        if not isinstance(key, tuple | list) or len(key) != 4:
            raise ValueError(
                f"key must be a tuple (experiment, policy, seed, horizon); got {key!r}"
            )
        key = _check_key(*key)
        _check_name(owner, "owner")
        seconds = check_positive(seconds, "seconds")
        seen_attempts = check_count(seen_attempts, "seen_attempts", minimum=0)
        now = time.time()
        c = self._conn
        c.execute("BEGIN IMMEDIATE")  # one claimer at a time: the read and the write are atomic
        try:
            row = c.execute(
                "SELECT status, attempts FROM runs WHERE experiment=? AND policy=? AND seed=? "
                "AND horizon=?",
                key,
            ).fetchone()
            if row is not None and (row[0] == "ok" or int(row[1]) > seen_attempts):
                c.commit()
                return False
            lease = c.execute(
                "SELECT owner, expires FROM leases WHERE experiment=? AND policy=? AND seed=? "
                "AND horizon=?",
                key,
            ).fetchone()
            if lease is not None and lease[0] != owner and float(lease[1]) > now:
                c.commit()
                return False
            c.execute("INSERT OR REPLACE INTO leases VALUES (?, ?, ?, ?, ?, ?)",
                      (*key, owner, now + seconds))  # fmt: skip
            c.commit()
            return True
        except BaseException:
            c.rollback()
            raise

    def renew(self, owner: str, seconds: float) -> None:
        """Extend every lease ``owner`` holds by ``seconds`` from now (the heartbeat)."""
        _check_name(owner, "owner")
        seconds = check_positive(seconds, "seconds")
        with self._transaction() as c:
            c.execute("UPDATE leases SET expires=? WHERE owner=?", (time.time() + seconds, owner))

    def release(self, owner: str) -> None:
        """Drop every lease ``owner`` still holds (runs it will not finish)."""
        _check_name(owner, "owner")
        with self._transaction() as c:
            c.execute("DELETE FROM leases WHERE owner=?", (owner,))

    # -- reading --------------------------------------------------------------------------------
    def has(
        self, experiment: str, policy: str, seed: int, horizon: int, ok_only: bool = True
    ) -> bool:
        """Is this run stored (by default: successfully)?"""
        row = self._conn.execute(
            "SELECT status FROM runs WHERE experiment=? AND policy=? AND seed=? AND horizon=?",
            _check_key(experiment, policy, seed, horizon),
        ).fetchone()
        return row is not None and (row[0] == "ok" or not ok_only)

    def get(self, experiment: str, policy: str, seed: int, horizon: int) -> Trace | None:
        """The trace of a successful run, or ``None``."""
        row = self._conn.execute(
            "SELECT trace FROM runs WHERE experiment=? AND policy=? AND seed=? AND horizon=? "
            "AND status='ok'",
            _check_key(experiment, policy, seed, horizon),
        ).fetchone()
        return None if row is None else Trace.from_bytes(row[0])

    def traces(
        self,
        experiment: str,
        horizon: int | None = None,
        seeds: Iterable[int] | None = None,
    ) -> dict[str, list[Trace]]:
        """Successful runs of ``experiment``: policy -> traces sorted by seed.

        Optionally only one ``horizon`` and only the given ``seeds``.
        """
        query = "SELECT policy, seed, trace FROM runs WHERE experiment=? AND status='ok'"
        args: list[object] = [_check_name(experiment, "experiment")]
        if horizon is not None:
            query += " AND horizon=?"
            args.append(check_count(horizon, "horizon", minimum=0))
        if seeds is not None and (isinstance(seeds, str) or not isinstance(seeds, Iterable)):
            raise ValueError(f"seeds must be integers >= 0 or None; got {seeds!r}")
        wanted = None if seeds is None else {check_count(s, "seeds", minimum=0) for s in seeds}
        out: dict[str, list[Trace]] = {}
        for policy, seed, blob in self._conn.execute(query + " ORDER BY policy, seed", args):
            if wanted is None or seed in wanted:
                out.setdefault(policy, []).append(Trace.from_bytes(blob))
        return out

    def plans(self) -> dict[str, Plan]:
        """experiment -> its :class:`Plan`, for every experiment a sweep has asked for."""
        rows = self._conn.execute(
            "SELECT experiment, horizon, n_seeds, policies FROM plans ORDER BY experiment"
        )
        return {e: Plan(e, int(h), int(s), tuple(json.loads(p))) for e, h, s, p in rows}

    def runs(self, experiment: str | None = None) -> list[RunRecord]:
        """Every stored run (optionally of one experiment), ok and failed, without traces."""
        query = f"SELECT {_COLUMNS} FROM runs"
        args: tuple[str, ...] = ()
        if experiment is not None:
            _check_name(experiment, "experiment")
            query, args = query + " WHERE experiment=?", (experiment,)
        rows = self._conn.execute(query + " ORDER BY experiment, policy, seed, horizon", args)
        return [RunRecord(*row) for row in rows]
