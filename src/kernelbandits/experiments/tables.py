"""The results store as tidy tables (pandas), and their export to CSV or Parquet.

Two tables, both "tidy" (one observation per row, one variable per column):

- :func:`runs_table`: one row per stored run, ok or failed: ``experiment, policy, seed, horizon,
  status, attempts, wall_time`` (seconds, the whole run), ``final_regret`` (``R_T``),
  ``average_regret`` (``R_T / T``), ``error`` (last line of the traceback of a failed run),
  ``created``.
- :func:`rounds_table`: one row per round of every successful run: ``experiment, policy, seed,
  horizon, round`` (``t = 1..T``), ``regret`` (``r_t`` as recorded), ``cumulative_regret``
  (``R_t``), ``average_regret`` (``R_t / t``), ``f`` (``f(x_t)``), ``wall_time`` (seconds of ask +
  tell in round ``t``).

pandas (and pyarrow for Parquet) come with the extra ``tables``::

    pip install "kernelbandits[tables]"
"""

from __future__ import annotations

from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from kernelbandits.experiments.store import ResultsStore

if TYPE_CHECKING:
    import pandas as pd

Table = Literal["runs", "rounds"]
_FORMATS = {".csv": "csv", ".parquet": "parquet"}


def _pandas() -> Any:
    """The pandas module, or an ImportError naming the extra to install."""
    try:
        import pandas
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise ImportError("tidy tables need pandas: pip install 'kernelbandits[tables]'") from None
    return pandas


def _open(store: ResultsStore | str | PathLike[str]) -> tuple[ResultsStore, bool]:
    if isinstance(store, ResultsStore):
        return store, False
    path = Path(store)
    if path.is_dir():
        path = path / "results.sqlite"
    if not path.exists():
        raise FileNotFoundError(f"no results store at {path}")
    return ResultsStore(path), True


def runs_table(
    store: ResultsStore | str | PathLike[str], experiment: str | None = None
) -> pd.DataFrame:
    """One row per stored run (see the module docstring for the columns).

    ``store`` is a :class:`ResultsStore`, its file, or the directory holding ``results.sqlite``.
    """
    pd = _pandas()
    st, owned = _open(store)
    try:
        rows = []
        for rec in st.runs(experiment):
            final = avg = float("nan")
            if rec.status == "ok":
                trace = st.get(rec.experiment, rec.policy, rec.seed, rec.horizon)
                if trace is not None:
                    final = float(trace.cumulative_regret[-1])
                    avg = final / trace.horizon
            lines = (rec.error or "").strip().splitlines()
            rows.append(
                {
                    "experiment": rec.experiment,
                    "policy": rec.policy,
                    "seed": rec.seed,
                    "horizon": rec.horizon,
                    "status": rec.status,
                    "attempts": rec.attempts,
                    "wall_time": rec.wall_time,
                    "final_regret": final,
                    "average_regret": avg,
                    "error": lines[-1] if lines else None,
                    "created": rec.created,
                }
            )
    finally:
        if owned:
            st.close()
    columns = [
        "experiment", "policy", "seed", "horizon", "status", "attempts", "wall_time",
        "final_regret", "average_regret", "error", "created",
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def rounds_table(
    store: ResultsStore | str | PathLike[str], experiment: str | None = None
) -> pd.DataFrame:
    """One row per round of every successful run (see the module docstring for the columns)."""
    pd = _pandas()
    st, owned = _open(store)
    frames = []
    try:
        for rec in st.runs(experiment):
            if rec.status != "ok":
                continue
            trace = st.get(rec.experiment, rec.policy, rec.seed, rec.horizon)
            if trace is None:
                continue
            T = trace.horizon
            frames.append(
                pd.DataFrame(
                    {
                        "experiment": rec.experiment,
                        "policy": rec.policy,
                        "seed": np.full(T, rec.seed),
                        "horizon": np.full(T, T),
                        "round": np.arange(1, T + 1),
                        "regret": trace.regret,
                        "cumulative_regret": trace.cumulative_regret,
                        "average_regret": trace.average_regret,
                        "f": trace.f,
                        "wall_time": trace.wall_time,
                    }
                )
            )
    finally:
        if owned:
            st.close()
    if not frames:
        columns = [
            "experiment", "policy", "seed", "horizon", "round", "regret",
            "cumulative_regret", "average_regret", "f", "wall_time",
        ]  # fmt: skip
        return pd.DataFrame(columns=columns)
    return pd.concat(frames, ignore_index=True)


def _check_stored(store: ResultsStore | str | PathLike[str], experiment: str) -> None:
    """``ValueError`` naming the stored experiments when ``experiment`` has no run in ``store``."""
    st, owned = _open(store)
    try:
        stored = sorted({rec.experiment for rec in st.runs()})
    finally:
        if owned:
            st.close()
    if experiment not in stored:
        raise ValueError(
            f"the store has no runs of experiment {experiment!r}; it holds: "
            + (", ".join(stored) if stored else "nothing yet")
        )


def export(
    store: ResultsStore | str | PathLike[str],
    path: str | PathLike[str],
    table: Table = "rounds",
    experiment: str | None = None,
) -> Path:
    """Write :func:`rounds_table` or :func:`runs_table` to ``path``; the suffix picks the format.

    ``.csv`` (no index column) or ``.parquet`` (pyarrow, extra ``tables``). Returns the path.
    """
    out = Path(path)
    fmt = _FORMATS.get(out.suffix.lower())
    if fmt is None:
        raise ValueError(f"export path must end in .csv or .parquet; got {out.name!r}")
    if table not in ("runs", "rounds"):
        raise ValueError(f"table must be 'runs' or 'rounds'; got {table!r}")
    if fmt == "parquet":  # before any work: nothing is written without the extra
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise ImportError(
                "Parquet export needs pyarrow: pip install 'kernelbandits[tables]'"
            ) from None
    if experiment is not None:
        _check_stored(store, experiment)
    frame = (rounds_table if table == "rounds" else runs_table)(store, experiment)
    out.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "csv":
        frame.to_csv(out, index=False)
    else:
        frame.to_parquet(out, index=False)
    return out
