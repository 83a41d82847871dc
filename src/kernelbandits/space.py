"""Mixed search spaces mapped to the unit box a policy works on.

A user's objective takes a *configuration*, a ``dict`` from parameter names to values: floats
(optionally on a log scale), integers (optionally on a log scale) and categorical choices. A
policy works on points ``u`` of the unit box ``[0, 1]^dim``. :class:`SearchSpace` maps between the
two.

Encoding (``encode: config -> u``, ``u`` of shape ``(dim,)``), one block per parameter, in the
order the parameters were given:

* :class:`Float` ``(low, high)`` -> one coordinate ``u = (v - low) / (high - low)``; with
  ``log=True``, ``u = (ln v - ln low) / (ln high - ln low)``, so equal steps of ``u`` are equal
  *ratios* of ``v`` (``decode(0.5)`` of ``Float(1e-4, 1, log=True)`` is ``1e-2``).
* :class:`Int` ``(low, high)`` -> one coordinate, mapped as a Float; decoding rounds the
  continuous value to the nearest integer and clips it to ``[low, high]``. ``Int(k, k)`` is a
  constant (encoded as 0).
* :class:`Categorical` with ``c`` choices -> a one-hot block of ``c`` coordinates: choice ``j`` is
  the ``j``-th unit vector. Decoding takes the choice with the largest coordinate of the block
  (the first one on ties), so every point of the box decodes to a valid configuration.

Hence ``dim = #Float + #Int + sum of len(choices)``. :meth:`SearchSpace.decode` clips ``u`` to
the box first; :meth:`SearchSpace.snap` is ``encode(decode(u))``, the point of the box that is
actually evaluated (integers rounded, one-hot blocks made exact). Every bad input raises
``ValueError`` naming the parameter.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np
from numpy.typing import ArrayLike

from kernelbandits._random import check_generator
from kernelbandits._validation import FloatArray, check_count, numeric_array, require_finite
from kernelbandits.domains import Box

__all__ = ["Categorical", "Float", "Int", "Param", "SearchSpace"]


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


_N = TypeVar("_N", int, float)


@dataclass(frozen=True)
class _Numeric(Generic[_N]):
    """The fields of a numeric parameter: its ``name``, its bounds ``low`` and ``high``, and
    ``log`` (encoded on a log scale)."""

    name: str
    low: _N
    high: _N
    log: bool = False


@dataclass(frozen=True)
class Float(_Numeric[float]):
    """A real parameter on ``[low, high]`` (``low < high``); ``log=True`` needs ``low > 0``."""


@dataclass(frozen=True)
class Int(_Numeric[int]):
    """An integer parameter on ``{low, ..., high}`` (``low <= high``); ``log=True`` needs
    ``low > 0``."""


@dataclass(frozen=True)
class Categorical:
    """One of a finite sequence of distinct ``choices`` (stored as a tuple)."""

    name: str
    choices: tuple[Any, ...]

    def __post_init__(self) -> None:
        if isinstance(self.choices, str | bytes) or not isinstance(self.choices, Sequence):
            raise ValueError(
                f"parameter {self.name!r}: choices must be a sequence (list or tuple); "
                f"got {self.choices!r}"
            )
        object.__setattr__(self, "choices", tuple(self.choices))


Param = Float | Int | Categorical


def _same(a: Any, b: Any) -> bool:
    """``a == b`` as a plain bool; ``True`` and ``1`` are different choices."""
    if a is b:
        return True
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # e.g. arrays, whose == is not a truth value
        return False


def _shown(value: Any) -> str:
    """``value`` and its type, for a message: ``'0.5' (str)``."""
    return f"{value!r} ({type(value).__name__})"


def check_space(space: object, name: str = "space") -> SearchSpace:
    """``space`` if it is a :class:`SearchSpace`, else a ``ValueError`` naming ``name``."""
    if not isinstance(space, SearchSpace):
        raise ValueError(f"{name} must be a SearchSpace; got {_shown(space)}")
    return space


def _check_param(p: Any) -> None:
    if not isinstance(p, Float | Int | Categorical):
        raise ValueError(f"params must be Float, Int or Categorical objects; got {_shown(p)}")
    if not isinstance(p.name, str) or not p.name:
        raise ValueError(f"parameter names must be non-empty strings; got {_shown(p.name)}")
    if isinstance(p, Categorical):
        if len(p.choices) == 0:
            raise ValueError(
                f"parameter {p.name!r}: choices must be a non-empty sequence of distinct values; "
                "got ()"
            )
        for i, a in enumerate(p.choices):
            for b in p.choices[i + 1 :]:
                if _same(a, b):
                    raise ValueError(
                        f"parameter {p.name!r}: choices must be distinct; {a!r} appears twice"
                    )
        return
    if not isinstance(p.log, bool | np.bool_):
        raise ValueError(f"parameter {p.name!r}: log must be True or False; got {_shown(p.log)}")
    if isinstance(p, Int):
        for which, bound in (("low", p.low), ("high", p.high)):
            if not isinstance(bound, numbers.Integral) or isinstance(bound, bool):
                raise ValueError(
                    f"parameter {p.name!r}: {which} must be an integer; got {_shown(bound)}"
                )
        if p.low > p.high:
            raise ValueError(f"parameter {p.name!r}: low={p.low} must be <= high={p.high}")
    else:
        for which, fbound in (("low", p.low), ("high", p.high)):
            if not _is_real(fbound) or not math.isfinite(fbound):
                raise ValueError(
                    f"parameter {p.name!r}: {which} must be a finite number; got {_shown(fbound)}"
                )
        if p.low >= p.high:
            raise ValueError(f"parameter {p.name!r}: low={p.low} must be < high={p.high}")
    if p.log and p.low <= 0:
        raise ValueError(f"parameter {p.name!r}: log scale needs low > 0; got low={p.low}")


#: how many encoded configurations a search space keeps (:meth:`SearchSpace.encode`)
_ENCODED_MAX = 100_000


class SearchSpace:
    """An ordered collection of named parameters and its unit-box encoding (see module notes).

    Attributes
    ----------
    params : the parameters, in order.
    names : their names.
    dim : dimension of the encoded box.
    """

    def __init__(self, params: Sequence[Param]) -> None:
        if isinstance(params, str | bytes | Mapping) or not isinstance(params, Iterable):
            raise ValueError(
                "params must be a sequence of Float, Int or Categorical parameters; "
                f"got {_shown(params)}"
            )
        plist = tuple(params)
        if not plist:
            raise ValueError(
                "params must hold at least one parameter (Float, Int or Categorical); got none"
            )
        for p in plist:
            _check_param(p)
        names = tuple(p.name for p in plist)
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"parameter names must be distinct; duplicated: {dupes}")
        self.params: tuple[Param, ...] = plist
        self.names: tuple[str, ...] = names
        self._slices: list[slice] = []
        start = 0
        for p in plist:
            width = len(p.choices) if isinstance(p, Categorical) else 1
            self._slices.append(slice(start, start + width))
            start += width
        self.dim: int = start
        # configurations already encoded (the same trials are encoded at every proposal of a
        # study: at 1,000 trials this took a third of a proposal), keyed by each value and its
        # type (so that 1, 1.0 and True stay apart); cleared when it grows past _ENCODED_MAX
        self._encoded: dict[tuple[tuple[type, Any], ...], FloatArray] = {}

    def __repr__(self) -> str:
        return f"SearchSpace({list(self.params)!r})"

    @property
    def blocks(self) -> tuple[slice, ...]:
        """The encoded coordinates of each parameter, in order (one column for a float or an
        integer, ``k`` one-hot columns for a categorical with ``k`` choices)."""
        return tuple(self._slices)

    def __len__(self) -> int:
        return len(self.params)

    def domain(self) -> Box:
        """The unit box ``[0, 1]^dim`` the policy works on."""
        return Box(np.zeros(self.dim), np.ones(self.dim))

    # -- one parameter --------------------------------------------------------------------------
    @staticmethod
    def _to_unit(p: Float | Int, v: float) -> float:
        lo, hi = float(p.low), float(p.high)
        if hi == lo:
            return 0.0
        if p.log:
            u = (math.log(v) - math.log(lo)) / (math.log(hi) - math.log(lo))
        else:
            u = (v - lo) / (hi - lo)
        return min(max(u, 0.0), 1.0)

    @staticmethod
    def _from_unit(p: Float | Int, u: float) -> float:
        lo, hi = float(p.low), float(p.high)
        if p.log:
            v = math.exp(math.log(lo) + u * (math.log(hi) - math.log(lo)))
        else:
            v = lo + u * (hi - lo)
        return min(max(v, lo), hi)

    def _encode_value(self, p: Param, value: Any) -> FloatArray:
        if isinstance(p, Categorical):
            for j, c in enumerate(p.choices):
                if _same(c, value):
                    block = np.zeros(len(p.choices))
                    block[j] = 1.0
                    return block
            raise ValueError(
                f"parameter {p.name!r}: unknown category {value!r}; choices are {list(p.choices)}"
            )
        if not _is_real(value):
            kind = "an integer" if isinstance(p, Int) else "a number"
            raise ValueError(
                f"parameter {p.name!r}: expected {kind} in [{p.low}, {p.high}]; got {_shown(value)}"
            )
        v = float(value)
        if not math.isfinite(v):
            raise ValueError(f"parameter {p.name!r}: value must be finite; got {value!r}")
        if isinstance(p, Int) and not v.is_integer():
            raise ValueError(f"parameter {p.name!r}: expected an integer; got {value!r}")
        if not p.low <= v <= p.high:
            raise ValueError(
                f"parameter {p.name!r}: value {value!r} lies outside [{p.low}, {p.high}]"
            )
        return np.array([self._to_unit(p, v)])

    def _decode_block(self, p: Param, block: FloatArray) -> Any:
        if isinstance(p, Categorical):
            return p.choices[int(np.argmax(block))]
        v = self._from_unit(p, float(block[0]))
        if isinstance(p, Int):
            return int(min(max(round(v), p.low), p.high))
        return float(v)

    # -- the public maps ------------------------------------------------------------------------
    def encode(self, config: Mapping[str, Any]) -> FloatArray:
        """The point of the unit box for ``config``, shape ``(dim,)``."""
        if not isinstance(config, Mapping):
            raise ValueError(f"config must be a mapping from names to values; got {config!r}")
        missing = [n for n in self.names if n not in config]
        unknown = [k for k in config if k not in self.names]
        if missing or unknown:
            raise ValueError(
                f"config does not match the search space: missing {missing}, unknown {unknown}"
            )
        try:
            key: tuple[tuple[type, Any], ...] | None = tuple(
                (type(config[n]), config[n]) for n in self.names
            )
            hit = self._encoded.get(key)  # type: ignore[arg-type]
        except TypeError:  # an unhashable value: encoded (and refused) without the memo
            key, hit = None, None
        if hit is not None:
            return hit.copy()
        u = np.empty(self.dim)
        for p, sl in zip(self.params, self._slices, strict=True):
            u[sl] = self._encode_value(p, config[p.name])
        if key is not None:
            if len(self._encoded) >= _ENCODED_MAX:
                self._encoded.clear()
            self._encoded[key] = u.copy()
        return u

    def decode(self, u: ArrayLike) -> dict[str, Any]:
        """The configuration at ``u`` (shape ``(dim,)``, clipped to ``[0, 1]``)."""
        arr = numeric_array(u, "u", f"a point of {self.dim} numbers").reshape(-1)
        if arr.shape != (self.dim,):
            raise ValueError(f"u must have shape ({self.dim},); got {np.shape(u)}")
        require_finite(arr, "u")
        arr = np.clip(arr, 0.0, 1.0)
        return {
            p.name: self._decode_block(p, arr[sl])
            for p, sl in zip(self.params, self._slices, strict=True)
        }

    def snap(self, u: ArrayLike) -> FloatArray:
        """``encode(decode(u))``: the point of the box actually evaluated, shape ``(dim,)``."""
        return self.encode(self.decode(u))

    @property
    def is_continuous(self) -> bool:
        """Whether every parameter is a :class:`Float` (then :meth:`snap` is the identity on the
        box)."""
        return all(isinstance(p, Float) for p in self.params)

    def snap_rows(self, U: ArrayLike) -> FloatArray:
        """:meth:`snap` of every row of ``U (m, dim)``, shape ``(m, dim)``, vectorised per
        parameter: the projection an acquisition optimiser uses to score only values the space
        can take (floats: clipped; integers: rounded in their own scale, log or linear;
        categoricals: the one-hot vector of the largest coordinate)."""
        Ua = numeric_array(U, "U", f"an array of numbers of shape (m, {self.dim})")
        if Ua.ndim != 2 or Ua.shape[1] != self.dim:
            raise ValueError(f"U must have shape (m, {self.dim}); got {Ua.shape}")
        require_finite(Ua, "U")
        out = np.clip(Ua, 0.0, 1.0)
        for p, sl in zip(self.params, self._slices, strict=True):
            if isinstance(p, Categorical):
                block = np.zeros((Ua.shape[0], len(p.choices)))
                block[np.arange(Ua.shape[0]), np.argmax(out[:, sl], axis=1)] = 1.0
                out[:, sl] = block
            elif isinstance(p, Int) and p.high > p.low:
                lo, hi = float(p.low), float(p.high)
                u = out[:, sl.start]
                if p.log:
                    v = np.exp(np.log(lo) + u * (np.log(hi) - np.log(lo)))
                    v = np.clip(np.round(v), lo, hi)
                    out[:, sl.start] = (np.log(v) - np.log(lo)) / (np.log(hi) - np.log(lo))
                else:
                    out[:, sl.start] = (np.clip(np.round(lo + u * (hi - lo)), lo, hi) - lo) / (
                        hi - lo
                    )
            elif isinstance(p, Int):
                out[:, sl.start] = 0.0
        return out

    def sample(self, n: int, rng: np.random.Generator) -> list[dict[str, Any]]:
        """``n`` random configurations: Floats uniform in their (log) scale, Ints uniform on
        ``{low..high}`` (log-uniform if ``log``), categories uniform."""
        n = check_count(n, "n", minimum=0)
        check_generator(rng, "rng")
        out: list[dict[str, Any]] = []
        for _ in range(n):
            config: dict[str, Any] = {}
            for p in self.params:
                if isinstance(p, Categorical):
                    config[p.name] = p.choices[int(rng.integers(len(p.choices)))]
                elif isinstance(p, Int) and p.log:
                    a, b = math.log(p.low - 0.5), math.log(p.high + 0.5)
                    v = round(math.exp(a + float(rng.random()) * (b - a)))
                    config[p.name] = int(min(max(v, p.low), p.high))
                elif isinstance(p, Int):
                    config[p.name] = int(rng.integers(p.low, p.high + 1))
                else:
                    config[p.name] = self._from_unit(p, float(rng.random()))
            out.append(config)
        return out
