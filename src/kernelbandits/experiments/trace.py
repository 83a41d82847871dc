"""The record of one run: what a policy chose, what it saw, and what it lost.

Notation: ``T`` rounds, ``d`` dimension. Round ``t`` (1-based) chose ``x_t = X[t-1]``, observed
``y_t = f(x_t) + noise`` and lost ``r_t = f(x*) - f(x_t)`` (instantaneous regret, against the
problem's declared optimum). The cumulative regret is ``R_t = sum_{s<=t} r_s``.

A trace serialises to a ``.npz`` archive (arrays plus 0-d metadata arrays, never pickles), either
to a file (:meth:`Trace.save`) or to bytes for the results store (:meth:`Trace.to_bytes`).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._validation import FloatArray

_ARRAYS = ("X", "y", "f", "regret", "wall_time")
_FORMAT_VERSION = 1


def _frozen(a: ArrayLike, ndim: int, name: str) -> FloatArray:
    arr = np.array(a, dtype=float)  # a private copy, then made read-only
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D; got shape {arr.shape}")
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class Trace:
    """One run of a policy on a problem for ``T`` rounds.

    Attributes
    ----------
    X : (T, d) chosen points, row ``t-1`` is round ``t``.
    y : (T,) noisy observations, or (T, n) for a problem with ``n`` outputs.
    f : (T,) noise-free values ``f(x_t)`` (for ``n`` outputs: the scalar utility scored).
    regret : (T,) the problem's per-round regret (:meth:`Problem.trajectory_regret`): by default
        the instantaneous regret ``optimum_value - f``; for a set-based score such as Bayes regret
        its value after round ``t`` (then read it with the ``"instantaneous"`` metric).
    wall_time : (T,) seconds spent in ``ask`` + ``tell`` in each round.
    policy, problem : display names.
    seed : the run's seed (see :func:`kernelbandits.experiments.runner.run`).
    optimum_value : ``max_x f(x)`` used for the regret.

    Arrays are read-only copies. Equality of two traces is :meth:`same_trajectory` (``==`` is
    identity, since wall times never repeat).
    """

    X: FloatArray
    y: FloatArray
    f: FloatArray
    regret: FloatArray
    wall_time: FloatArray
    policy: str
    problem: str
    seed: int
    optimum_value: float
    _cum: FloatArray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        arrays = {"X": _frozen(self.X, 2, "X")}
        y = np.asarray(self.y)
        arrays["y"] = _frozen(y, 2 if y.ndim == 2 else 1, "y")  # (T,) or (T, n)
        arrays |= {k: _frozen(getattr(self, k), 1, k) for k in _ARRAYS[2:]}
        T = arrays["X"].shape[0]
        for k, v in arrays.items():
            if v.shape[0] != T:
                raise ValueError(f"{k} has {v.shape[0]} rounds; X has {T}")
            object.__setattr__(self, k, v)
        object.__setattr__(self, "policy", str(self.policy))
        object.__setattr__(self, "problem", str(self.problem))
        object.__setattr__(self, "seed", int(self.seed))
        object.__setattr__(self, "optimum_value", float(self.optimum_value))
        cum = np.cumsum(arrays["regret"])
        cum.setflags(write=False)
        object.__setattr__(self, "_cum", cum)

    # -- derived quantities ---------------------------------------------------------------------
    @property
    def horizon(self) -> int:
        """Number of rounds ``T``."""
        return int(self.X.shape[0])

    @property
    def cumulative_regret(self) -> FloatArray:
        """``R_t = sum_{s<=t} r_s``, shape ``(T,)``."""
        return self._cum

    @property
    def average_regret(self) -> FloatArray:
        """Time-averaged regret ``R_t / t``, shape ``(T,)``."""
        return self._cum / np.arange(1, self.horizon + 1)

    def same_trajectory(self, other: Trace) -> bool:
        """True if both traces hold bit-identical X, y, f, regret and metadata (wall times aside)."""
        same_meta = (self.policy, self.problem, self.seed) == (
            other.policy,
            other.problem,
            other.seed,
        ) and np.array_equal(self.optimum_value, other.optimum_value)
        return same_meta and all(
            np.array_equal(getattr(self, k), getattr(other, k)) for k in _ARRAYS[:-1]
        )

    # -- serialisation --------------------------------------------------------------------------
    def _payload(self) -> dict[str, np.ndarray]:
        payload: dict[str, np.ndarray] = {k: getattr(self, k) for k in _ARRAYS}
        payload["policy"] = np.array(self.policy)
        payload["problem"] = np.array(self.problem)
        payload["seed"] = np.array(self.seed, dtype=np.int64)
        payload["optimum_value"] = np.array(self.optimum_value, dtype=float)
        payload["format_version"] = np.array(_FORMAT_VERSION, dtype=np.int64)
        return payload

    def to_bytes(self) -> bytes:
        """The trace as the bytes of an uncompressed ``.npz`` archive."""
        buf = io.BytesIO()
        np.savez(buf, allow_pickle=False, **self._payload())
        return buf.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> Trace:
        """Inverse of :meth:`to_bytes` (bit-exact)."""
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            return cls._from_npz(npz)

    def save(self, path: str | PathLike[str]) -> Path:
        """Write the trace to ``path`` (``.npz``); return the path written."""
        p = Path(path)
        p.write_bytes(self.to_bytes())
        return p

    @classmethod
    def load(cls, path: str | PathLike[str]) -> Trace:
        """Read a trace written by :meth:`save`."""
        return cls.from_bytes(Path(path).read_bytes())

    @classmethod
    def _from_npz(cls, npz: np.lib.npyio.NpzFile) -> Trace:
        version = int(npz["format_version"]) if "format_version" in npz.files else 0
        if version != _FORMAT_VERSION:
            raise ValueError(f"unsupported trace format version {version}")
        return cls(
            X=npz["X"],
            y=npz["y"],
            f=npz["f"],
            regret=npz["regret"],
            wall_time=npz["wall_time"],
            policy=str(npz["policy"]),
            problem=str(npz["problem"]),
            seed=int(npz["seed"]),
            optimum_value=float(npz["optimum_value"]),
        )

    def __repr__(self) -> str:
        return (
            f"Trace(policy={self.policy!r}, problem={self.problem!r}, seed={self.seed}, "
            f"T={self.horizon}, R_T={self._cum[-1] if self.horizon else 0.0:.4g})"
        )
