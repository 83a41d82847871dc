"""The tables of the benchmark pages: per-trial curves of many seeds grouped into cells
(problem x sampler), their quartiles at checkpoints, the time per trial, and the notes under a
table (warnings, mixed code versions)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

CHECKPOINTS = (25, 50, 100)
TIME_WINDOW = 10  # mean time per trial over the last TIME_WINDOW trials


def checkpoints(n_trials: int) -> list[int]:
    """25, 50, 100 up to ``n_trials``, and ``n_trials`` itself."""
    out = [c for c in CHECKPOINTS if c <= n_trials]
    return out if n_trials in out else [*out, n_trials]


@dataclass
class Cell:
    """The runs of one sampler on one problem: ``curve`` (the simple regret here; another
    benchmark's per-trial curve, e.g. the hypervolume of ``optuna_multiobjective.py``) and
    ``seconds`` are (seeds, trials)."""

    seeds: list[int]
    curve: FloatArray
    seconds: FloatArray
    warnings: Counter[str] = field(default_factory=Counter)
    code_versions: set[str] = field(default_factory=set)

    def quartiles(self, n: int) -> tuple[float, float, float]:
        """(q1, median, q3) over seeds of the curve (simple regret) after ``n`` trials."""
        q1, med, q3 = np.percentile(self.curve[:, n - 1], [25, 50, 75])
        return float(q1), float(med), float(q3)

    def ms_per_trial(self) -> float:
        """Mean wall time per trial over the last :data:`TIME_WINDOW` trials, in ms."""
        return 1000 * float(self.seconds[:, -TIME_WINDOW:].mean())


def collect(
    records: Iterable[Mapping[str, Any]],
    problems: Sequence[str],
    samplers: Sequence[str],
    seeds: int,
    n_trials: int,
    *,
    row: str = "problem",
    keep: Callable[[Mapping[str, Any]], bool] | None = None,
    cell_type: type[Cell] = Cell,
    curve: str = "regret",
) -> dict[str, dict[str, Cell]]:
    """problem -> sampler -> :class:`Cell` of the stored runs with ``n_trials`` trials and a seed
    below ``seeds`` (the last record wins if a run is stored twice).

    For other stores: ``row`` is the record field of the rows (``problems`` lists its values),
    ``keep`` a further filter of the records, ``cell_type`` the class built from each group and
    ``curve`` the records' field that becomes the cells' curve."""
    runs: dict[tuple[str, str], dict[int, Mapping[str, Any]]] = {}
    for rec in records:
        if (
            rec[row] in problems
            and rec["sampler"] in samplers
            and rec["n_trials"] == n_trials
            and 0 <= rec["seed"] < seeds
            and (keep is None or keep(rec))
        ):
            runs.setdefault((rec[row], rec["sampler"]), {})[rec["seed"]] = rec
    out: dict[str, dict[str, Cell]] = {}
    for p in problems:
        for s in samplers:
            by_seed = runs.get((p, s))
            if not by_seed:
                continue
            order = sorted(by_seed)
            cell = cell_type(
                order,
                np.array([by_seed[k][curve] for k in order], dtype=float),
                np.array([by_seed[k]["seconds"] for k in order], dtype=float),
            )
            for k in order:
                cell.warnings.update(by_seed[k].get("warnings", {}))
                cell.code_versions.add(by_seed[k].get("code_version", ""))
            out.setdefault(p, {})[s] = cell
    return out


def mean_se(x: Sequence[float] | FloatArray, mean_fmt: str = ".3g", se_fmt: str = ".2g") -> str:
    """``mean ± standard error`` over seeds (the mean alone for one seed), formatted with
    ``mean_fmt`` and ``se_fmt`` (format specifications, e.g. ``".4f"``)."""
    a = np.asarray(x, dtype=float)
    if a.size < 2:  # one seed: no standard error
        return f"{a.mean():{mean_fmt}}"
    return f"{a.mean():{mean_fmt}} ± {a.std(ddof=1) / np.sqrt(a.size):{se_fmt}}"


def fmt_regret(x: float) -> str:
    return "0" if x == 0 else f"{x:.3g}"


def fmt_ms(x: float) -> str:
    return f"{x:.1f}" if x < 100 else f"{x:,.0f}"


def cells_table(
    title: str,
    cells: Mapping[str, Cell],
    n_trials: int,
    seeds: int,
    column: str,
    text: Callable[[Cell, int], str],
) -> str:
    """Markdown table under ``title``: one row per sampler, its number of seeds, one column per
    checkpoint ``n`` (header ``column.format(n=n)``, entries ``text(cell, n)``) and the mean ms
    per trial over the last :data:`TIME_WINDOW` trials; then the warnings of the runs."""
    cps = checkpoints(n_trials)
    lo = max(1, n_trials - TIME_WINDOW + 1)
    lines = [
        title,
        "",
        "| sampler | seeds | "
        + " | ".join(column.format(n=c) for c in cps)
        + f" | ms/trial (trials {lo}-{n_trials}) |",
        "|---|---:|" + "---|" * len(cps) + "---:|",
    ]
    for name, cell in cells.items():
        n = len(cell.seeds)
        seeds_txt = str(n) if n == seeds else f"{n} of {seeds}"
        lines.append(
            f"| {name} | {seeds_txt} | "
            + " | ".join(text(cell, c) for c in cps)
            + f" | {fmt_ms(cell.ms_per_trial())} |"
        )
    return "\n".join(lines + warnings_note(cells))


def warnings_note(cells: Mapping[str, Cell]) -> list[str]:
    """``["", "Warnings during these runs: ..."]`` when runs of a sampler warned, else ``[]``."""
    warned = [
        f"{name}: " + ", ".join(f"{k} x {v}" for k, v in sorted(cell.warnings.items()))
        for name, cell in cells.items()
        if cell.warnings
    ]
    return ["", "Warnings during these runs: " + "; ".join(warned) + "."] if warned else []


def is_ours(name: str) -> bool:
    """Whether the sampler ``name`` is one of kernelbandits' (named ``kb...``)."""
    return name.startswith("kb")


def versions_note(
    cells: Mapping[str, Mapping[str, Cell]], ours: Callable[[str], bool] = is_ours
) -> list[str]:
    """``[note]`` when the runs of our samplers (names for which ``ours`` is true, default
    ``kb...``: only they depend on kernelbandits' code, the peers' runs are kept across
    versions of it) come from several versions of kernelbandits, else ``[]``."""
    seen = sorted(
        {
            v
            for c in cells.values()
            for name, cell in c.items()
            if ours(name)
            for v in cell.code_versions
        }
    )
    if len(seen) < 2:
        return []
    return [
        "NB: these runs of our samplers come from several versions of kernelbandits: "
        + ", ".join(v or "unknown" for v in seen)
        + " (the store resumes runs whatever code made them)."
    ]


def ratio(a: float, b: float) -> float:
    """``a / b`` with 0 / 0 = 1 and a / 0 = inf."""
    if b == 0:
        return 1.0 if a == 0 else float("inf")
    return a / b


def average_ranks(values: Mapping[str, float]) -> dict[str, float]:
    """Rank of each value, 1 for the lowest; equal values share the mean of the ranks they span
    (rank = number of lower values + (number of equal values + 1) / 2)."""
    v = list(values.values())
    return {k: sum(w < x for w in v) + (sum(w == x for w in v) + 1) / 2 for k, x in values.items()}
