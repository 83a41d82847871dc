"""Real data for the multi-task experiments: the Intel lab sensors and an offline substitute.

* :func:`load_intel_lab` reads the Intel Berkeley lab release (user-supplied files) into
  :class:`SensorReadings` (readings ``(N, n)`` of ``S`` sensors at ``locations (S, d)``);
* :func:`sensor_tasks` turns any such readings into the multi-task problem of Chowdhury &
  Gopalan (2021), Sec. 5: objective ``f (S, n)``, ICM task matrix ``B (n, n)``, SE lengthscale
  and noise variance (:class:`SensorTasks`);
* :func:`load_substitute_readings` / :func:`substitute_sensor_tasks` do the same on real data
  that installs with the optional extra ``kernelbandits[data]`` (Atlantic storms binned into
  grid cells, see :mod:`kernelbandits.datasets.offline`).
"""

from kernelbandits.datasets.automl import (
    GLMNET_TABLE_FILE,
    AutoMLTables,
    lattice_points,
    load_glmnet_tables,
    load_hpobench_sequence,
)
from kernelbandits.datasets.intel_lab import (
    HUMIDITY_RANGE,
    INTEL_TASK_NAMES,
    LIGHT_MIN,
    TEMPERATURE_RANGE,
    SensorReadings,
    load_intel_lab,
)
from kernelbandits.datasets.offline import load_substitute_readings, substitute_sensor_tasks
from kernelbandits.datasets.sensor_protocol import (
    MIN_RIDGE,
    SensorTasks,
    sensor_tasks,
    task_matrix,
)
from kernelbandits.datasets.svm_automl import SVMTable, load_svm_table
from kernelbandits.datasets.transfer_automl import (
    TransferTable,
    hpobench_transfer_table,
    load_hpobench_pairs,
    load_transfer_table,
)

__all__ = [
    "GLMNET_TABLE_FILE",
    "HUMIDITY_RANGE",
    "INTEL_TASK_NAMES",
    "LIGHT_MIN",
    "MIN_RIDGE",
    "TEMPERATURE_RANGE",
    "AutoMLTables",
    "SVMTable",
    "SensorReadings",
    "SensorTasks",
    "TransferTable",
    "hpobench_transfer_table",
    "lattice_points",
    "load_glmnet_tables",
    "load_hpobench_pairs",
    "load_hpobench_sequence",
    "load_intel_lab",
    "load_substitute_readings",
    "load_svm_table",
    "load_transfer_table",
    "sensor_tasks",
    "substitute_sensor_tasks",
    "task_matrix",
]
