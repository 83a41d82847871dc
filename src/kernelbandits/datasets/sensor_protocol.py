"""The "sensor measurements" protocol of Chowdhury & Gopalan (2021), Sec. 5, as a pure function.

Paper: each task ``f_i(x)`` is the empirical mean of 50% of the readings of the sensor at ``x``;
the remaining readings estimate an ICM kernel ``Gamma(x, x') = k(x, x') B`` -- an SE kernel
``k`` fitted on the sensor locations, and ``B = R^T K^{-1} R / m`` -- and the noise variance
``sigma^2`` is the largest empirical variance of the readings over the tasks.

Notation (shapes):
    S    number of sensors kept (those with at least 2 readings), ``locations (S, d)``
    N    number of readings, ``values (N, n)``, ``sensor_index (N,)``
    n    number of tasks (measured variables)
    f    ``(S, n)`` objective: standardised per-sensor means of the objective half
    R    ``(S, n)`` standardised per-sensor means of the estimation half
    C    ``(S, S)`` unit-variance SE correlation ``exp(-||x - x'||^2 / (2 l^2))`` on the locations
    K    ``(S, S)`` ``C + rho I`` with the ridge ``rho``
    B    ``(n, n)`` task matrix ``R^T K^{-1} R / S``

Decisions (the paper leaves them open or its literal form is infeasible):

1. **Split.** Readings are split at random *per sensor*: a sensor with ``n_s`` readings gives
   ``floor(n_s / 2)`` to the objective half and the other ``ceil(n_s / 2)`` to the estimation half
   (the odd reading goes to estimation, which needs two readings for a variance). Sensors with
   fewer than 2 readings cannot be on both sides and are dropped (``SensorTasks.sensors`` lists
   the rows kept). The split is drawn from the ``seed`` and nothing else.
2. **Standardisation.** The tasks have unrelated units (Intel: light in hundreds of lux,
   temperature in tens of degrees), so each task is z-scored with constants from the
   estimation half only: centre = average over sensors of the estimation per-sensor means
   (each sensor weighted equally, so ``R`` has zero column means, matching the zero-mean GP
   prior of the fit and of ``B``), scale = standard deviation (``ddof=1``) of all estimation
   readings of that task. The same constants are applied to the objective half, so ``f`` and
   ``R`` are in the same units; ``SensorTasks.values_in_units`` undoes it.
3. **Rows of R, and m.** The paper's ``m x m`` Gram over all ``m`` readings is infeasible
   (Intel: ~2.3 million readings) and singular (every sensor repeats its location). We use one
   row per sensor: ``R`` = the standardised estimation means, ``K`` on the ``S`` locations,
   ``m = S``. Then ``B = R^T K^{-1} R / S`` is the maximum-likelihood estimate of the column
   covariance of the matrix normal model ``R ~ MN(0, K, B)``, i.e. of the task matrix of an ICM
   model whose scalar kernel is ``C`` (plus the ridge).
4. **Fitting k.** Under ICM every linear combination ``R w`` of the tasks is a GP with the same
   scalar kernel up to the factor ``w^T B w``, so one combination identifies the lengthscale.
   We fit an isotropic :class:`~kernelbandits.kernels.RBF` (lengthscale ``l``, variance ``v``)
   plus a nugget ``lambda`` by type-II maximum likelihood
   (:func:`~kernelbandits.regression.likelihood.fit_hyperparameters`, ``fit_noise=True``) to
   ``y = R w_1``, ``w_1`` the leading eigenvector of ``R^T R`` (the best-determined
   combination). Start: ``l`` = median distance between sensors, ``v = var(y)``,
   ``lambda = var(y) / 10``; bounds are the kernel's (``1e-3 .. 1e3`` in location units) and
   ``1e-6 .. 10`` for ``lambda``.
5. **Scale convention and ridge.** ``B`` carries the scale: it is computed with the
   unit-variance correlation ``C``, so the ICM kernel is ``Gamma = B * k_1`` with
   ``k_1 = RBF(l, 1)`` (:attr:`SensorTasks.kernel`); ``kernel_variance = v`` is reported as a
   diagnostic (under ICM it estimates ``w_1^T B w_1``). The ridge defaults to the fitted
   noise-to-signal ratio ``rho = lambda / v`` (floored at :data:`MIN_RIDGE` ``= 1e-6``): under
   the model ``y ~ N(0, v C + lambda I)`` the rows of ``R`` have correlation ``C + rho I``, so
   ``B`` is the MLE under the fitted model. A tiny fixed ridge (the literal "K^{-1}") would
   amplify the part of ``R`` that an SE surface does not explain by up to ``1 / ridge`` and let
   it dominate ``B`` (on the storm substitute, ``ridge=1e-6`` gives ``B_ii ~ 4.5e4`` against
   ``B_ii ~ 0.2`` with the fitted ``rho ~ 0.5``, while ``var(R_i) ~ 0.2``); pass ``ridge=`` to
   fix it anyway. Caveat, inherent to the paper's formula: it is the MLE only if the noise of
   ``R`` has a covariance proportional to ``B`` (noise correlated across tasks like the signal,
   as the within-sensor fluctuations of real sensors and storm cells are). If the noise is
   independent across tasks, every direction of ``K`` dominated by noise adds independent mass
   to the diagonal of ``B`` and its off-diagonal correlations shrink toward 0 (synthetic test:
   true correlation 0.94, fitted ``rho = 2e-4`` gives -0.05; ``ridge=0.1`` gives 0.93).
6. **PSD.** ``B`` is symmetrised, ``(B + B^T) / 2``, and eigenvalues below 0 (round-off only:
   ``R^T K^{-1} R`` is PSD in exact arithmetic) are clipped to 0.
7. **Noise variance.** "Empirical variance of sensor readings" is read as the within-sensor
   variance: for each task, the pooled variance of the standardised estimation readings around
   their own sensor's mean, ``sum (z - R_s)^2 / (N_est - S)``; ``noise_var`` is the maximum over
   tasks (``noise_vars`` keeps all of them). It is the variance of one reading around ``f``, in
   the standardised units of ``f``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.linalg import cho_factor, cho_solve
from scipy.spatial.distance import pdist

from kernelbandits._random import SeedLike, as_generator
from kernelbandits._validation import FloatArray, as_points, check_positive
from kernelbandits.datasets._checks import check_finite_matrix, check_integer_vector
from kernelbandits.kernels import RBF
from kernelbandits.regression.likelihood import fit_hyperparameters

IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]

#: smallest ridge added to the SE correlation matrix before solving for ``B``
MIN_RIDGE = 1e-6


class ReadingsLike(Protocol):
    """What :func:`sensor_tasks` reads (``task_names`` is optional)."""

    @property
    def locations(self) -> ArrayLike: ...  # (S, d)

    @property
    def sensor_index(self) -> ArrayLike: ...  # (N,) ints in [0, S)

    @property
    def values(self) -> ArrayLike: ...  # (N, n)


@dataclass(frozen=True, eq=False)
class SensorTasks:
    """The multi-task problem built by :func:`sensor_tasks` (see the module docstring).

    Attributes
    ----------
    locations : ``(S, d)`` locations of the sensors kept.
    values : ``(S, n)`` standardised objective ``f``: per-sensor means of the objective half.
    task_matrix : ``(n, n)`` symmetric PSD ``B``; the ICM kernel is ``B * kernel``.
    lengthscale : fitted SE lengthscale ``l`` (location units).
    kernel_variance : fitted SE variance ``v`` on the fitting target (diagnostic, see 5.).
    noise_var : ``sigma^2``, the largest within-sensor variance over tasks (standardised units).
    noise_vars : ``(n,)`` the within-sensor variance of each task.
    ridge : ``rho`` added to the correlation matrix to compute ``B``.
    task_names : ``n`` names.
    task_mean, task_scale : ``(n,)`` standardisation: ``f = (raw - task_mean) / task_scale``.
    estimation_means : ``(S, n)`` ``R``, standardised per-sensor means of the estimation half.
    sensors : ``(S,)`` rows of the input ``locations`` that were kept.
    objective_counts, estimation_counts : ``(S,)`` readings of each sensor on each side.
    objective_mask : ``(N,)`` True for the input readings averaged into ``values``; the others
        of kept sensors formed the estimation half (readings of dropped sensors are in neither).
    """

    locations: FloatArray
    values: FloatArray
    task_matrix: FloatArray
    lengthscale: float
    kernel_variance: float
    noise_var: float
    noise_vars: FloatArray
    ridge: float
    task_names: tuple[str, ...]
    task_mean: FloatArray
    task_scale: FloatArray
    estimation_means: FloatArray
    sensors: IntArray
    objective_counts: IntArray
    estimation_counts: IntArray
    objective_mask: BoolArray

    @property
    def n_objective(self) -> int:
        """Number of readings averaged into the objective ``f``."""
        return int(self.objective_counts.sum())

    @property
    def n_estimation(self) -> int:
        """Number of readings used to estimate ``k``, ``B`` and ``sigma^2``."""
        return int(self.estimation_counts.sum())

    @property
    def kernel(self) -> RBF:
        """The unit-variance SE kernel ``k_1 = RBF(lengthscale, 1)`` that ``B`` multiplies."""
        return RBF(self.lengthscale, 1.0)

    @property
    def values_in_units(self) -> FloatArray:
        """``(S, n)`` the objective in the original units of each task."""
        return self.values * self.task_scale + self.task_mean


def task_matrix(
    estimation_means: ArrayLike, locations: ArrayLike, lengthscale: float, ridge: float
) -> FloatArray:
    """``B = R^T (C + ridge I)^{-1} R / S``, symmetrised, negative eigenvalues clipped to 0.

    ``estimation_means`` is ``R (S, n)``, ``locations (S, d)``, ``C`` the unit-variance SE
    correlation with ``lengthscale``. Returns ``(n, n)``.
    """
    X = as_points(locations, "locations")
    R = np.asarray(estimation_means, dtype=float)
    if R.ndim != 2 or R.shape[0] != X.shape[0] or not np.all(np.isfinite(R)):
        raise ValueError(
            f"estimation_means must be a finite ({X.shape[0]}, n) array (one row per location); "
            f"got shape {R.shape}"
        )
    rho = check_positive(ridge, "ridge")
    K = RBF(check_positive(lengthscale, "lengthscale"), 1.0)(X) + rho * np.eye(X.shape[0])
    B = R.T @ cho_solve(cho_factor(K, lower=True), R) / X.shape[0]
    B = 0.5 * (B + B.T)
    eigval, eigvec = np.linalg.eigh(B)
    B = (eigvec * np.clip(eigval, 0.0, None)) @ eigvec.T
    return 0.5 * (B + B.T)


def sensor_tasks(
    readings: ReadingsLike,
    seed: SeedLike,
    *,
    ridge: float | None = None,
    n_restarts: int = 2,
) -> SensorTasks:
    """Run the paper's protocol on ``readings`` (every decision is in the module docstring).

    Parameters
    ----------
    readings : object with ``locations (S, d)``, ``sensor_index (N,)`` (ints in ``[0, S)``),
        ``values (N, n)`` and optionally ``task_names`` -- e.g. a
        :class:`~kernelbandits.datasets.SensorReadings`.
    seed : seed or Generator for the 50/50 split and the restarts of the kernel fit.
    ridge : ``rho`` in ``B = R^T (C + rho I)^{-1} R / S``; default: the fitted noise-to-signal
        ratio, at least :data:`MIN_RIDGE`.
    n_restarts : random restarts of the type-II maximum-likelihood fit.

    Returns
    -------
    SensorTasks
    """
    locations, sensor_index, values, task_names = _check_readings(readings)
    if ridge is not None:
        ridge = check_positive(ridge, "ridge")
    if int(n_restarts) != n_restarts or n_restarts < 0:
        raise ValueError(f"n_restarts must be a non-negative integer; got {n_restarts!r}")
    rng = as_generator(seed)
    sensors, new_row = _kept_sensors(sensor_index, locations.shape[0])
    halves = _split_halves(sensor_index, new_row, sensors.size, rng)  # step 1
    f, R, task_mean, task_scale, noise_vars = _standardised_halves(  # steps 2 and 7
        values, sensor_index, new_row, halves, task_names
    )
    X = locations[sensors]
    lengthscale, kernel_variance, nugget = _fit_spatial_kernel(X, R, n_restarts, rng)  # step 4
    rho = ridge if ridge is not None else max(nugget / kernel_variance, MIN_RIDGE)
    B = task_matrix(R, X, lengthscale, rho)  # steps 3, 5 and 6
    objective_mask, _, objective_counts, estimation_counts = halves
    return SensorTasks(
        locations=X,
        values=f,
        task_matrix=B,
        lengthscale=lengthscale,
        kernel_variance=kernel_variance,
        noise_var=float(noise_vars.max()),
        noise_vars=noise_vars,
        ridge=float(rho),
        task_names=task_names,
        task_mean=task_mean,
        task_scale=task_scale,
        estimation_means=R,
        sensors=sensors,
        objective_counts=objective_counts,
        estimation_counts=estimation_counts,
        objective_mask=objective_mask,
    )


def _kept_sensors(sensor_index: IntArray, n_sensors_all: int) -> tuple[IntArray, IntArray]:
    """The sensors with 2 or more readings ``(S,)`` and every sensor's row among them (``-1``
    for a dropped one), ``(n_sensors_all,)``; ``ValueError`` if fewer than 2 remain."""
    counts_all = np.bincount(sensor_index, minlength=n_sensors_all)
    kept = counts_all >= 2
    if kept.sum() < 2:
        raise ValueError(
            f"readings must have at least 2 sensors with 2 or more readings each; "
            f"got {int(kept.sum())}"
        )
    sensors = np.flatnonzero(kept).astype(np.int64)
    new_row = np.full(n_sensors_all, -1, dtype=np.int64)
    new_row[sensors] = np.arange(sensors.size)
    return sensors, new_row


#: ``(objective_mask (N,), estimation_mask (N,), objective_counts (S,), estimation_counts (S,))``
Halves = tuple[NDArray[np.bool_], NDArray[np.bool_], IntArray, IntArray]


def _split_halves(
    sensor_index: IntArray, new_row: IntArray, n_sensors: int, rng: np.random.Generator
) -> Halves:
    """Step 1, the per-sensor random split: each kept sensor's readings sorted by a uniform key,
    the first ``floor(n_s / 2)`` to the objective ``f``, the rest to the estimation half."""
    kept = new_row >= 0
    rows = np.flatnonzero(kept[sensor_index])
    owner = new_row[sensor_index[rows]]
    order = np.lexsort((rng.random(rows.size), owner))
    counts = np.bincount(owner, minlength=n_sensors)
    starts = np.cumsum(counts) - counts
    rank = np.arange(rows.size) - starts[owner[order]]
    to_objective = rank < counts[owner[order]] // 2
    objective_mask = np.zeros(sensor_index.size, dtype=bool)
    objective_mask[rows[order[to_objective]]] = True
    estimation_mask = np.zeros(sensor_index.size, dtype=bool)
    estimation_mask[rows[order[~to_objective]]] = True
    objective_counts = (counts // 2).astype(np.int64)
    estimation_counts = (counts - counts // 2).astype(np.int64)
    return objective_mask, estimation_mask, objective_counts, estimation_counts


def _standardised_halves(
    values: FloatArray,
    sensor_index: IntArray,
    new_row: IntArray,
    halves: Halves,
    task_names: tuple[str, ...],
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
    """Step 2, the standardisation from the estimation half, and step 7, the pooled
    within-sensor noise variance: ``(f (S, n), R (S, n), task_mean (n,), task_scale (n,),
    noise_vars (n,))``."""
    objective_mask, estimation_mask, objective_counts, estimation_counts = halves
    obj_owner = new_row[sensor_index[objective_mask]]
    est_owner = new_row[sensor_index[estimation_mask]]
    est_values = values[estimation_mask]
    obj_means = _group_means(obj_owner, values[objective_mask], objective_counts)
    est_means = _group_means(est_owner, est_values, estimation_counts)
    task_mean = est_means.mean(axis=0)
    task_scale = est_values.std(axis=0, ddof=1)
    for j in range(values.shape[1]):
        if not task_scale[j] > 0.0:
            raise ValueError(
                f"readings.values: task {task_names[j]!r} is constant in the estimation half; "
                f"it cannot be standardised"
            )
    dof = est_values.shape[0] - objective_counts.size
    if dof < 1:
        raise ValueError(
            "readings must give some sensor 3 or more readings, so that the estimation half "
            "has a within-sensor variance"
        )
    resid = (est_values - est_means[est_owner]) / task_scale
    noise_vars = np.sum(resid**2, axis=0) / dof
    f = (obj_means - task_mean) / task_scale
    R = (est_means - task_mean) / task_scale
    return f, R, task_mean, task_scale, noise_vars


def _fit_spatial_kernel(
    X: FloatArray, R: FloatArray, n_restarts: int, rng: np.random.Generator
) -> tuple[float, float, float]:
    """Step 4, the type-II ML fit of an SE kernel plus a nugget on the leading combination of
    the tasks: ``(lengthscale, kernel variance, nugget)``."""
    _, eigvec = np.linalg.eigh(R.T @ R)
    y = R @ eigvec[:, -1]
    y_var = max(float(np.var(y)), 1e-3)
    distances = pdist(X)
    start_ls = float(np.median(distances[distances > 0])) if np.any(distances > 0) else 1.0
    fitted, nugget = fit_hyperparameters(
        RBF(start_ls, y_var),
        X,
        y,
        noise_var=min(max(y_var / 10.0, 1e-6), 10.0),
        fit_noise=True,
        n_restarts=int(n_restarts),
        seed=rng,
    )
    assert isinstance(fitted, RBF)
    return float(fitted.lengthscale[0]), float(fitted.variance), float(nugget)


def _group_means(owner: IntArray, values: FloatArray, counts: IntArray) -> FloatArray:
    """``(S, n)`` mean of the rows of ``values (M, n)`` that belong to each group ``owner (M,)``."""
    sums = np.stack(
        [
            np.bincount(owner, weights=values[:, j], minlength=counts.size)
            for j in range(values.shape[1])
        ],
        axis=1,
    )
    return sums / counts[:, None]


def _check_readings(
    readings: ReadingsLike,
) -> tuple[FloatArray, IntArray, FloatArray, tuple[str, ...]]:
    missing = [a for a in ("locations", "sensor_index", "values") if not hasattr(readings, a)]
    if missing:
        raise ValueError(
            f"readings must have attributes locations, sensor_index and values; missing {missing}"
        )
    locations = np.asarray(readings.locations, dtype=float)
    check_finite_matrix(locations, "readings.locations", ("S", "d"), nonempty=("S", "d"))
    values = np.asarray(readings.values, dtype=float)
    check_finite_matrix(values, "readings.values", ("N", "n"), nonempty=("N", "n"))
    index = np.asarray(readings.sensor_index)
    check_integer_vector(
        index,
        "readings.sensor_index",
        values.shape[0],
        note=" (one entry per row of readings.values)",
    )
    if index.min() < 0 or index.max() >= locations.shape[0]:
        raise ValueError(
            f"readings.sensor_index must lie in [0, {locations.shape[0]}) (rows of "
            f"readings.locations); got range [{index.min()}, {index.max()}]"
        )
    names = getattr(readings, "task_names", None)
    if names is None:
        task_names = tuple(f"task{j}" for j in range(values.shape[1]))
    else:
        task_names = tuple(str(name) for name in names)
        if len(task_names) != values.shape[1]:
            raise ValueError(
                f"readings.task_names must have {values.shape[1]} names; got {len(task_names)}"
            )
    return locations, index.astype(np.int64), values, task_names
