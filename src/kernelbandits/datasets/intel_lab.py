"""Loader for the Intel Berkeley Research lab sensor data (Bodik et al., 2004 public release).

The release (http://db.csail.mit.edu/labdata/labdata.html) has two text files, which must be
obtained by the user; nothing is downloaded here.

``data.txt`` (optionally gzip-compressed, ``data.txt.gz``) holds one reading per line, eight
whitespace-separated fields::

    date        time            epoch moteid temperature humidity light voltage
    2004-02-28  00:59:16.02785  3     1      19.9884     37.0933  45.08 2.69964

(temperature in degrees C, relative humidity in %, light in lux, voltage in V).
``mote_locs.txt`` holds one sensor per line: ``moteid x y`` (metres, 54 sensors).

Cleaning rules (each one drops the *reading*, never the whole file):

* a line that does not have exactly 8 fields, or whose epoch / mote id is not an integer, or
  whose temperature, humidity or light is not a finite number, is skipped (the release has
  lines with the trailing fields missing);
* failing motes report physically absurd values (e.g. 122.153 C when the battery dies); a
  reading is kept only if ``-10 <= temperature <= 100`` (C), ``0 <= humidity <= 100`` (%) and
  ``light >= 0`` (lux), see :data:`TEMPERATURE_RANGE`, :data:`HUMIDITY_RANGE`,
  :data:`LIGHT_MIN` (bounds inclusive);
* a reading from a mote absent from the locations file is dropped (the release has readings
  with corrupted mote ids such as 65407).

The voltage and the date/time fields are not used. Sensors of the locations file are kept even
if none of their readings survives (they then own no reading).

Notation (shapes):
    S        number of sensors (motes with a location)
    N        number of readings kept
    n        number of measured variables (tasks); 3 here
    d        dimension of the locations; 2 here (x, y in metres)
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import numpy as np
from numpy.typing import NDArray

from kernelbandits._validation import FloatArray
from kernelbandits.datasets._checks import check_finite_matrix, check_integer_vector

IntArray = NDArray[np.int64]

#: task order of :class:`SensorReadings` from this loader: the order of the paper (Sec. 5)
INTEL_TASK_NAMES: tuple[str, str, str] = ("temperature", "light", "humidity")
#: inclusive range of a plausible temperature reading, degrees C
TEMPERATURE_RANGE: tuple[float, float] = (-10.0, 100.0)
#: inclusive range of a plausible relative humidity reading, %
HUMIDITY_RANGE: tuple[float, float] = (0.0, 100.0)
#: smallest plausible light reading, lux (inclusive)
LIGHT_MIN: float = 0.0

_N_FIELDS = 8


@dataclass(frozen=True, eq=False)
class SensorReadings:
    """Repeated readings of ``n`` variables by ``S`` sensors at fixed locations.

    Attributes
    ----------
    locations : ``(S, d)`` float, the position of each sensor.
    sensor_ids : ``(S,)`` int, the identifier of each sensor (e.g. the Intel mote id).
    sensor_index : ``(N,)`` int in ``[0, S)``, the row of ``locations`` that took each reading.
    epoch : ``(N,)`` int, the time stamp of each reading (Intel: the epoch sequence number).
    values : ``(N, n)`` float, the readings, one column per task.
    task_names : ``n`` names, the column order of ``values``.

    The arrays are validated (shapes, finiteness, index range) on construction.
    """

    locations: FloatArray
    sensor_ids: IntArray
    sensor_index: IntArray
    epoch: IntArray
    values: FloatArray
    task_names: tuple[str, ...] = field(default=INTEL_TASK_NAMES)

    def __post_init__(self) -> None:
        locations = np.asarray(self.locations, dtype=float)
        sensor_ids = np.asarray(self.sensor_ids)
        sensor_index = np.asarray(self.sensor_index)
        epoch = np.asarray(self.epoch)
        values = np.asarray(self.values, dtype=float)
        check_finite_matrix(locations, "locations", ("S", "d"), nonempty=("S",))
        n_sensors = locations.shape[0]
        check_integer_vector(sensor_ids, "sensor_ids", n_sensors)
        if np.unique(sensor_ids).size != n_sensors:
            raise ValueError("sensor_ids must be distinct")
        check_finite_matrix(values, "values", ("N", "n"), nonempty=("n",))
        n_readings = values.shape[0]
        check_integer_vector(sensor_index, "sensor_index", n_readings)
        if n_readings and (sensor_index.min() < 0 or sensor_index.max() >= n_sensors):
            raise ValueError(f"sensor_index must lie in [0, {n_sensors}) (a row of locations)")
        check_integer_vector(epoch, "epoch", n_readings)
        names = tuple(str(name) for name in self.task_names)
        if len(names) != values.shape[1]:
            raise ValueError(
                f"task_names must have {values.shape[1]} names (one per column of values); "
                f"got {len(names)}"
            )
        object.__setattr__(self, "locations", locations)
        object.__setattr__(self, "sensor_ids", sensor_ids.astype(np.int64))
        object.__setattr__(self, "sensor_index", sensor_index.astype(np.int64))
        object.__setattr__(self, "epoch", epoch.astype(np.int64))
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "task_names", names)

    @property
    def n_sensors(self) -> int:
        """``S``, the number of sensors."""
        return int(self.locations.shape[0])

    @property
    def n_readings(self) -> int:
        """``N``, the number of readings."""
        return int(self.values.shape[0])

    @property
    def n_tasks(self) -> int:
        """``n``, the number of measured variables."""
        return int(self.values.shape[1])

    def readings_per_sensor(self) -> IntArray:
        """``(S,)`` number of readings of each sensor."""
        return np.bincount(self.sensor_index, minlength=self.n_sensors).astype(np.int64)


def load_intel_lab(
    data_file: str | os.PathLike[str], locations_file: str | os.PathLike[str]
) -> SensorReadings:
    """Read ``data.txt`` (or ``data.txt.gz``) and ``mote_locs.txt`` into :class:`SensorReadings`.

    Parameters
    ----------
    data_file : path of the readings file; a name ending in ``.gz`` is read through gzip.
    locations_file : path of the ``moteid x y`` file.

    Returns
    -------
    SensorReadings with ``S`` = the sensors of ``locations_file`` sorted by mote id,
    ``locations (S, 2)`` in metres, ``values (N, 3)`` in the order temperature (C), light (lux),
    humidity (%), and ``epoch (N,)`` the epoch field. Readings keep the order of the file. The
    cleaning rules are in the module docstring.

    Raises
    ------
    FileNotFoundError if either file does not exist; ValueError if the locations file is
    malformed or no reading survives the cleaning.
    """
    data_path = _existing(data_file, "data_file")
    loc_path = _existing(locations_file, "locations_file")
    mote_ids, locations = _read_locations(loc_path)
    row_of = {int(mote): row for row, mote in enumerate(mote_ids)}

    sensor_index: list[int] = []
    epochs: list[int] = []
    values: list[tuple[float, float, float]] = []
    t_lo, t_hi = TEMPERATURE_RANGE
    h_lo, h_hi = HUMIDITY_RANGE
    with _open_text(data_path) as handle:
        for line in handle:
            parts = line.split()
            if len(parts) != _N_FIELDS:
                continue
            try:
                epoch, mote = int(parts[2]), int(parts[3])
                temp, hum, light = float(parts[4]), float(parts[5]), float(parts[6])
            except ValueError:
                continue
            # NaN fails every comparison below, inf fails the closed ranges: both are dropped
            if not (t_lo <= temp <= t_hi and h_lo <= hum <= h_hi and LIGHT_MIN <= light < np.inf):
                continue
            row = row_of.get(mote)
            if row is None:
                continue
            sensor_index.append(row)
            epochs.append(epoch)
            values.append((temp, light, hum))
    if not values:
        raise ValueError(
            f"data_file {str(data_path)!r} holds no valid reading from a mote listed in "
            f"locations_file (expected lines 'date time epoch moteid temperature humidity "
            f"light voltage' within the plausible ranges)"
        )
    return SensorReadings(
        locations=locations,
        sensor_ids=mote_ids,
        sensor_index=np.asarray(sensor_index, dtype=np.int64),
        epoch=np.asarray(epochs, dtype=np.int64),
        values=np.asarray(values, dtype=float).reshape(-1, 3),
        task_names=INTEL_TASK_NAMES,
    )


def _existing(path: str | os.PathLike[str], name: str) -> Path:
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{name} not found (or not a file): {str(p)!r}")
    return p


def _open_text(path: Path) -> IO[str]:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def _read_locations(path: Path) -> tuple[IntArray, FloatArray]:
    """``(mote ids (S,), locations (S, 2))`` sorted by mote id; strict: any bad line raises."""
    rows: dict[int, tuple[float, float]] = {}
    for lineno, parts in _nonblank_lines(path):
        try:
            if len(parts) != 3:
                raise ValueError
            mote, x, y = int(parts[0]), float(parts[1]), float(parts[2])
        except ValueError:
            raise ValueError(
                f"locations_file {str(path)!r} line {lineno}: expected 'moteid x y'; "
                f"got {' '.join(parts)!r}"
            ) from None
        if not (np.isfinite(x) and np.isfinite(y)):
            raise ValueError(f"locations_file {str(path)!r} line {lineno}: non-finite location")
        if mote in rows:
            raise ValueError(f"locations_file {str(path)!r} line {lineno}: duplicate mote {mote}")
        rows[mote] = (x, y)
    if not rows:
        raise ValueError(f"locations_file {str(path)!r} lists no sensor")
    ids = np.array(sorted(rows), dtype=np.int64)
    locations = np.array([rows[int(i)] for i in ids], dtype=float)
    return ids, locations


def _nonblank_lines(path: Path) -> Iterator[tuple[int, list[str]]]:
    with _open_text(path) as handle:
        for lineno, line in enumerate(handle, start=1):
            parts = line.split()
            if parts:
                yield lineno, parts
