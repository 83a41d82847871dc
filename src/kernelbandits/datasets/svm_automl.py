"""SVM lookup tables of the quantum Bayesian optimisation AutoML experiment (Dai et al.).

Dai et al., *Quantum Bayesian Optimization*, Sec. 6 / App. J, tune an RBF-kernel SVM on the Pima
Indians diabetes data over a 5 x 5 grid of (penalty ``C``, kernel parameter ``gamma``), each in
``[1e-4, 1]`` with equal (linear) spacing; the reward of an arm is the validation accuracy of a
70/30 train/validation split. The tables shipped here are built by
``scripts/build_svm_tables.py`` (settings in its docstring and in each table's ``source``):

* ``"pima"`` -- MASS ``Pima.tr`` + ``Pima.te`` (532 of the 768 rows of the original data; the
  rows with missing values were dropped by MASS), the offline stand-in for the paper's data;
* ``"breast_cancer"`` -- scikit-learn's ``load_breast_cancer``, a second task.

Arm ``k = i * 5 + j`` has ``C = linspace(1e-4, 1, 5)[i]``, ``gamma = linspace(1e-4, 1, 5)[j]``
and ``points[k] = (i / 4, j / 4)``: the grid rescaled linearly to the BO domain ``[0, 1]^2``.

Measured on the shipped tables (scikit-learn 1.9.1): the linear grid puts four of five values
in ``[0.25, 1]``. With ``C = 1e-4`` every ``gamma`` predicts the majority class, and so do most
cells with ``gamma = 1e-4`` (under-fit) or ``gamma >= 0.75`` (a very narrow kernel on
standardised features over-fits); the good models sit at ``gamma = 0.25``. Pima: accuracies
0.669 (majority class, 12 of 25 cells) to 0.769 at ``(C, gamma) = (0.250075, 0.250075)``, 9
distinct values. Breast cancer: 0.626 (majority class, 12 cells) to 0.895 at ``(1,
0.250075)``, 9 distinct values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from kernelbandits.datasets._npz import frozen_float64, load_named_table

FloatArray = npt.NDArray[np.float64]

#: table name -> file name inside ``kernelbandits/datasets/tables/``
SVM_TABLE_FILES: dict[str, str] = {
    "pima": "svm_pima.npz",
    "breast_cancer": "svm_breast_cancer.npz",
}
#: side of the grid: ``SVM_GRID_SIZE ** 2`` arms
SVM_GRID_SIZE: int = 5

_REBUILD_HINT = (
    "regenerate it from a source checkout with `python scripts/build_svm_tables.py` "
    "(a few seconds; the Pima table needs `pip install 'kernelbandits[data]'`) or reinstall "
    "kernelbandits"
)


@dataclass(frozen=True)
class SVMTable:
    """One SVM lookup table: 25 arms (``C``, ``gamma``) and their validation accuracy.

    Attributes:
        points: ``(25, 2)`` arms in ``[0, 1]^2``; arm ``k = i * 5 + j`` is ``(i / 4, j / 4)``.
        C: ``(25,)`` SVM penalty of each arm (``x1`` axis; ``1e-4 + x1 * (1 - 1e-4)``).
        gamma: ``(25,)`` RBF kernel parameter of each arm (``x2`` axis, same map).
        accuracy: ``(25,)`` validation accuracy of each arm, in ``[0, 1]``; higher is better.
        name: table name (a key of :data:`SVM_TABLE_FILES`).
        source: one-line provenance (data, split, learner, grid, software versions).

    All arrays are read-only.
    """

    points: FloatArray
    C: FloatArray
    gamma: FloatArray
    accuracy: FloatArray
    name: str
    source: str

    @property
    def n_arms(self) -> int:
        return self.accuracy.size

    @property
    def best_index(self) -> int:
        """Arm of the highest accuracy (the first one on ties)."""
        return int(np.argmax(self.accuracy))

    @property
    def best_accuracy(self) -> float:
        """The optimum (the reference for regret)."""
        return float(self.accuracy.max())

    def surface(self) -> FloatArray:
        """``(5, 5)`` accuracies, ``[i, j]`` at the ``i``-th ``C`` and ``j``-th ``gamma``."""
        return self.accuracy.reshape(SVM_GRID_SIZE, SVM_GRID_SIZE)


def load_svm_table(name: str = "pima") -> SVMTable:
    """The shipped SVM table ``name`` (``"pima"`` or ``"breast_cancer"``).

    Raises:
        ValueError: ``name`` is not a shipped table (the message lists the available names).
        FileNotFoundError: the table file is missing from the installed package.
    """
    npz = load_named_table(
        SVM_TABLE_FILES, name, "SVM table", "the SVM lookup table", _REBUILD_HINT
    )
    return SVMTable(
        points=frozen_float64(npz["points"]),
        C=frozen_float64(npz["C"]),
        gamma=frozen_float64(npz["gamma"]),
        accuracy=frozen_float64(npz["accuracy"]),
        name=str(npz["name"]),
        source=str(npz["source"]),
    )
