"""The quantum BO authors' own instance and published runs (Dai et al. 2023, public code).

Dai, Lau, Verma, Shu, Low & Jaillet (NeurIPS 2023) ran Fig. 1 on one synthetic function and one
SVM table, with one draw of random Fourier features, and published the result files their
``analyze.ipynb`` plots. ``scripts/build_quantum_authors_tables.py`` reads a local copy of their
repository (``daizhongxiang/Quantum_Bayesian_Optimization``, pickles opened with a numpy-only
unpickler) into ``tables/quantum_authors.npz``; this module reads that table:

* :func:`load_authors_instance` -- ``"synthetic"``: their 20-arm function on [0, 1] (values in
  [0, 1], the optimum 1 at arm 14, ``x = 0.737``), the same for every run;
  ``"automl"``: their SVM table, the validation accuracy on the 768-row Pima data without feature
  scaling over their 25 arms (21 arms at the majority-class accuracy 0.6494, the optimum 0.7619
  at ``C = 0.75, gamma = 1e-4``), recomputed from their data and equal to every accuracy their
  runs logged;
* :meth:`AuthorsInstance.features` -- their random Fourier features (the draw every one of their
  runs used) as a :class:`~kernelbandits.regression.RandomFourierFeatures`;
* :func:`load_published_runs` -- their per-run cumulative regret against oracle queries, scored
  as their notebook scores it (:data:`PUBLISHED_SERIES` lists what there is).

Their runs differ between seeds only by the noise and the random initial arm (``numpy`` seeded
with the run index); the function and the features are fixed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt

from kernelbandits.datasets._npz import frozen_float64, load_shipped_table

if TYPE_CHECKING:
    from kernelbandits.regression import RandomFourierFeatures

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
InstanceName = Literal["synthetic", "automl"]

TABLE_FILE = "quantum_authors.npz"
#: (series key, policy) of every published family of runs; the key is
#: ``<instance>-<setting>``: ``bernoulli``, ``gaussian-<sd>`` or, for AutoML, ``<sd>``
PUBLISHED_SERIES: tuple[tuple[str, str], ...] = (
    ("synthetic-bernoulli", "GP-UCB"),
    ("synthetic-bernoulli", "Q-GP-UCB"),
    ("synthetic-gaussian-0.3", "GP-UCB"),
    ("synthetic-gaussian-0.3", "Q-GP-UCB"),
    ("synthetic-gaussian-0.4", "GP-UCB"),
    ("synthetic-gaussian-0.4", "Q-GP-UCB"),
    ("automl-0.01", "GP-UCB"),
    ("automl-0.01", "Q-GP-UCB"),
    ("automl-0.05", "GP-UCB"),
    ("automl-0.05", "Q-GP-UCB"),
    ("automl-0.05", "LinUCB"),
    ("automl-0.05", "Q-LinUCB"),
)
#: the SE lengthscale of each feature draw (from the authors' file names)
FEATURE_LENGTHSCALE: dict[tuple[str, str], float] = {
    ("synthetic", "GP-UCB"): 0.1,
    ("synthetic", "Q-GP-UCB"): 0.1,
    ("automl", "GP-UCB"): 1.0,
    ("automl", "Q-GP-UCB"): 0.2,
}
_FEATURE_KEY = {
    ("synthetic", "GP-UCB"): "synthetic__rff",
    ("synthetic", "Q-GP-UCB"): "synthetic__rff",
    ("automl", "GP-UCB"): "automl__rff_gp",
    ("automl", "Q-GP-UCB"): "automl__rff_q",
}
_REBUILD_HINT = (
    "regenerate it from a source checkout with `python scripts/build_quantum_authors_tables.py "
    "--repo <a local copy of daizhongxiang/Quantum_Bayesian_Optimization>` or reinstall "
    "kernelbandits"
)


@cache
def _table() -> dict[str, np.ndarray]:
    return load_shipped_table(TABLE_FILE, "the quantum authors' table", _REBUILD_HINT)


def provenance() -> dict[str, object]:
    """The table's metadata: repository, commit, SHA-256 of every file read, scoring rule."""
    meta: dict[str, object] = json.loads(str(_table()["metadata"]))
    return meta


@dataclass(frozen=True)
class AuthorsInstance:
    """One of the authors' problems.

    Attributes:
        name: ``"synthetic"`` or ``"automl"``.
        points: ``(m, d)`` the arms (``m = 20, d = 1`` or ``m = 25, d = 2``), in ``[0, 1]^d``.
        values: ``(m,)`` the mean reward of each arm.
        f_max: the optimum their notebook scores against (``values.max()``).
        source: one-line provenance.
    """

    name: InstanceName
    points: FloatArray
    values: FloatArray
    f_max: float
    source: str

    def features(self, policy: Literal["GP-UCB", "Q-GP-UCB"]) -> RandomFourierFeatures:
        """Their random Fourier features for ``policy`` (normalised as their code normalises
        them: ``k~(x, x)`` equals the kernel variance), a ``RandomFourierFeatures``."""
        from kernelbandits.kernels import RBF
        from kernelbandits.regression import RandomFourierFeatures

        key = (self.name, policy)
        if key not in _FEATURE_KEY:
            raise ValueError(f"policy must be 'GP-UCB' or 'Q-GP-UCB'; got {policy!r}")
        table, prefix = _table(), _FEATURE_KEY[key]
        kernel = RBF(FEATURE_LENGTHSCALE[key], variance=float(table[f"{prefix}__variance"]))
        return RandomFourierFeatures.from_frequencies(
            kernel, table[f"{prefix}__frequencies"], table[f"{prefix}__offsets"], normalize=True
        )


def load_authors_instance(name: InstanceName) -> AuthorsInstance:
    """The authors' ``"synthetic"`` function or ``"automl"`` SVM table (module docstring)."""
    if name not in ("synthetic", "automl"):
        raise ValueError(f"unknown instance {name!r}; available: automl, synthetic")
    table = _table()
    return AuthorsInstance(
        name=name,
        points=frozen_float64(table[f"{name}__points"]),
        values=frozen_float64(table[f"{name}__values"]),
        f_max=float(table[f"{name}__f_max"]),
        source=str(table["source"]),
    )


@dataclass(frozen=True)
class PublishedRuns:
    """The authors' runs of one policy on one setting, every query of every run.

    Each run is stored as the arms it played, run-length encoded: segment 0 is the run's random
    initial point alone (its value ``first_value``: on AutoML an off-grid point, its arm the
    nearest one), then one segment per stretch of queries on one arm (a quantum stage is such a
    stretch; consecutive stages on one arm merge).

    Attributes:
        key: the setting, e.g. ``"synthetic-bernoulli"`` (:data:`PUBLISHED_SERIES`).
        policy: ``"GP-UCB"``, ``"Q-GP-UCB"``, ``"LinUCB"`` or ``"Q-LinUCB"``.
        instance: the :class:`AuthorsInstance` they ran on.
        arms: ``(n, s)`` arm index of each segment (padding -1).
        counts: ``(n, s)`` queries of each segment (padding 0); each row sums to the budget.
        first_value: ``(n,)`` the mean reward of each run's first evaluation.
    """

    key: str
    policy: str
    instance: AuthorsInstance
    arms: IntArray
    counts: IntArray
    first_value: FloatArray

    @property
    def n_runs(self) -> int:
        return int(self.arms.shape[0])

    @property
    def budget(self) -> int:
        return int(self.counts[0].sum())

    def regret(self, run: int) -> FloatArray:
        """``(budget,)`` the regret ``f_max - f(x_t)`` of every query of run ``run``, as the
        authors' notebook scores it."""
        keep = self.counts[run] > 0
        arms, counts = self.arms[run][keep], self.counts[run][keep]
        gaps = self.instance.f_max - self.instance.values[arms]
        gaps[0] = self.instance.f_max - self.first_value[run]
        return np.repeat(gaps, counts)

    def cumulative(self) -> FloatArray:
        """``(n, budget)`` the cumulative regret of every run after every query."""
        return np.cumsum([self.regret(r) for r in range(self.n_runs)], axis=1)

    def at(self, t: int) -> FloatArray:
        """``(n,)`` the cumulative regret of each run after ``t`` queries (``1 <= t <= budget``)."""
        t = int(t)
        if not 1 <= t <= self.budget:
            raise ValueError(f"t must be in [1, {self.budget}] queries; got {t}")
        return np.array([self.regret(r)[:t].sum() for r in range(self.n_runs)])

    def last_arms(self) -> IntArray:
        """``(n,)`` the arm each run played at its last query."""
        return np.array([row[row >= 0][-1] for row in self.arms], dtype=np.int64)


def load_published_runs(key: str, policy: str) -> PublishedRuns:
    """The authors' runs ``(key, policy)`` of :data:`PUBLISHED_SERIES`."""
    if (key, policy) not in PUBLISHED_SERIES:
        known = ", ".join(f"{k}/{p}" for k, p in PUBLISHED_SERIES)
        raise ValueError(f"no published runs {key}/{policy}; available: {known}")
    table = _table()
    name = f"runs__{key}__{policy}"
    instance: InstanceName = "synthetic" if key.startswith("synthetic") else "automl"
    return PublishedRuns(
        key=key,
        policy=policy,
        instance=load_authors_instance(instance),
        arms=np.array(table[f"{name}__arms"], dtype=np.int64),
        counts=np.array(table[f"{name}__counts"], dtype=np.int64),
        first_value=frozen_float64(table[f"{name}__first_value"]),
    )
