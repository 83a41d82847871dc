"""Markdown rendering of the results: the table, the targets and the machine."""

from __future__ import annotations

from typing import Any

COLUMNS = [
    "n",
    "t",
    "m",
    "kernelbandits ms",
    "limit ms",
    "ours/limit",
    "BoTorch ms (model, strategy)",
    "BoTorch/ours",
    "sklearn ms",
    "sklearn/ours",
    "peak MB ours",
    "peak MB BoTorch",
    "no-cache ms (BoTorch/it)",
    "peak MB no-cache",
]


def _ms(x: float) -> str:
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def _ratio(x: float) -> str:
    return f"{x:,.0f}x" if x >= 100 else f"{x:.1f}x"


def _mb(x: float | None) -> str:
    return "—" if x is None else f"{x:,.0f}"


def fastest_botorch(record: dict[str, Any]) -> dict[str, Any] | None:
    """The BoTorch entry with the smallest median round time, else the one that got furthest
    (measured first posterior), else any BoTorch entry; ``None`` if there is none."""
    entries = [e for e in record["impls"].values() if e["family"] == "botorch"]
    if not entries:
        return None
    ok = [e for e in entries if e["status"] == "ok"]
    if ok:
        return min(ok, key=lambda e: e["median_ms"])
    probed = [e for e in entries if e.get("first_posterior_s") is not None]
    if probed:
        return min(probed, key=lambda e: e["first_posterior_s"])
    return min(entries, key=lambda e: e.get("est_seconds") or float("inf"))


def _peer_cells(entry: dict[str, Any] | None, ours_ms: float | None) -> tuple[str, str]:
    if entry is None:
        return "n/a", "—"
    if entry["status"] == "ok":
        ratio = _ratio(entry["median_ms"] / ours_ms) if ours_ms else "—"
        return _ms(entry["median_ms"]), ratio
    reason = entry["reason"] or entry["status"]
    status = entry["status"]
    lower = entry.get("first_posterior_s")
    if status == "skipped" and lower is not None and ours_ms:  # a round >= its posterior
        return f"skipped: {reason}", f"> {_ratio(1e3 * lower / ours_ms)}"
    est = entry.get("est_seconds")
    if reason.startswith("est.") and est and ours_ms:
        return f"skipped: {reason}", f"~{_ratio(1e3 * est / ours_ms)} (est.)"
    return f"{status}: {reason}", "—"


def row(record: dict[str, Any]) -> list[str]:
    cfg, lim = record["config"], record["limit"]
    ours = next(e for e in record["impls"].values() if e["family"] == "kernelbandits")
    ours_ms = ours["median_ms"] if ours["status"] == "ok" else None
    lim_ms = 1e3 * lim["seconds"]
    lim_cell = _ms(lim_ms) + ("" if lim["method"] == "measured" else " (extrap.)")
    bo = fastest_botorch(record)
    bo_ms, bo_ratio = _peer_cells(bo, ours_ms)
    if bo is not None and bo["status"] == "ok":
        bo_ms = f"{bo_ms} ({bo['label']})"
    sk = record["impls"].get("sklearn")
    sk_ms, sk_ratio = _peer_cells(sk, ours_ms) if sk is not None else ("n/a (single task)", "—")
    return [
        str(cfg["n"]),
        str(cfg["t"]),
        f"{cfg['m']:,}",
        _ms(ours_ms) if ours_ms is not None else f"skipped: {ours['reason']}",
        lim_cell,
        _ratio(ours_ms / lim_ms) if ours_ms is not None else "—",
        bo_ms,
        bo_ratio,
        sk_ms,
        sk_ratio,
        _mb(ours.get("peak_mb")),
        _mb(bo.get("peak_mb") if bo is not None else None),
        *_no_cache_cells(record, bo),
    ]


def _no_cache_cells(record: dict[str, Any], bo: dict[str, Any] | None) -> tuple[str, str]:
    """kernelbandits' cache-free ICM path (multi-task cells only): its round time with
    BoTorch's time over it, and its peak memory."""
    eig = record["impls"].get("kernelbandits-eigen")
    if eig is None:
        return "—", "—"
    if eig["status"] != "ok":
        return f"{eig['status']}: {eig['reason']}", "—"
    ms = _ms(eig["median_ms"])
    if bo is not None and bo["status"] == "ok":
        ms += f" ({_ratio(bo['median_ms'] / eig['median_ms'])})"
    return ms, _mb(eig.get("peak_mb"))


def markdown_table(records: list[dict[str, Any]]) -> str:
    lines = [
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "|".join("---:" if i < 6 else "---" for i in range(len(COLUMNS))) + "|",
    ]
    lines += ["| " + " | ".join(row(rec)) + " |" for rec in records]
    return "\n".join(lines)


def machine_markdown(machine: dict[str, Any]) -> str:
    blas = ", ".join(
        f"{b.get('internal_api')} {b.get('version')} {b.get('architecture')} [{b.get('library')}]"
        for b in machine.get("blas", [])
        if b.get("user_api") == "blas"
    )
    blas += f"; torch: {machine.get('torch_blas', '?')}"
    v = machine["versions"]
    return (
        f"Machine: {machine['cpu']}, {machine['cores']} cores, {machine['ram_gb']:.0f} GB RAM; "
        f"Python {v['python']}, numpy {v['numpy']}, scipy {v['scipy']}, torch {v['torch']}, "
        f"botorch {v['botorch']}, gpytorch {v['gpytorch']}, scikit-learn {v['sklearn']}; "
        f"BLAS: {blas}; threads per process: {machine['threads']}."
    )


def _entry(record: dict[str, Any], family: str) -> dict[str, Any] | None:
    """The ``ok`` entry of ``family`` in ``record`` (``None`` if absent or not timed)."""
    for e in record["impls"].values():
        if e["family"] == family and e["status"] == "ok":
            return e
    return None


def _cell(record: dict[str, Any]) -> str:
    c = record["config"]
    return f"n={c['n']} t={c['t']} m={c['m']:,}"


def _verdict(ok: bool) -> str:
    return "**met**" if ok else "**not met**"


#: the two kernelbandits paths the targets are checked on (multi-task cells have both)
_PATHS = (("kernelbandits", "cached path"), ("kernelbandits-eigen", "no-cache path"))


def _paired(
    records: list[dict[str, Any]], family: str
) -> list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
    """``(record, ours, botorch)`` for every record where ``family`` and the fastest BoTorch
    entry were both timed."""
    out = []
    for rec in records:
        ours, bo = _entry(rec, family), fastest_botorch(rec)
        if ours is not None and bo is not None and bo["status"] == "ok":
            out.append((rec, ours, bo))
    return out


def targets_markdown(records: list[dict[str, Any]]) -> str:
    """The targets of the benchmark (speed against BoTorch, distance to the limit, peak memory
    against BoTorch), each checked on the measured records: one bullet per target with the
    numbers it rests on. Cells that a side skipped do not count for or against a target."""
    lines = []
    # 1. single task, t = 500, m = 1e4: >= 10x BoTorch
    for rec, ours, bo in _paired(records, "kernelbandits"):
        if (rec["config"]["n"], rec["config"]["t"], rec["config"]["m"]) == (1, 500, 10_000):
            ratio = bo["median_ms"] / ours["median_ms"]
            lines.append(
                f"- Single task, t = 500, m = 10,000: {_ratio(ratio)} faster than BoTorch "
                f"(target >= 10x): {_verdict(ratio >= 10)}."
            )
    # 2. ICM, n = 20: >= 10x BoTorch's fastest multi-task model, in every cell it was timed
    for family, name in _PATHS:
        ratios = [
            (bo["median_ms"] / ours["median_ms"], _cell(rec))
            for rec, ours, bo in _paired(records, family)
            if rec["config"]["n"] == 20
        ]
        if ratios:
            worst, where = min(ratios)
            lines.append(
                f"- ICM, n = 20, {name}: at least {_ratio(worst)} faster than BoTorch's fastest "
                f"multi-task model in the {len(ratios)} cells BoTorch finished (lowest at {where}; "
                f"target >= 10x): {_verdict(worst >= 10)}."
            )
    # 3. every round within 3x of the limit at t >= 500 (the cached path, whose pass it is)
    dist = []
    for rec in records:
        ours = _entry(rec, "kernelbandits")
        if rec["config"]["t"] >= 500 and ours is not None:
            dist.append((ours["median_ms"] / (1e3 * rec["limit"]["seconds"]), _cell(rec)))
    if dist:
        worst, where = max(dist)
        lines.append(
            f"- Within 3x of the limit at t >= 500: at most {_ratio(worst)} over {len(dist)} "
            f"cells (at {where}): {_verdict(worst <= 3)}."
        )
    # 4. peak memory no higher than BoTorch's, per path
    for family, name in _PATHS:
        measured = [
            (rec, ours["peak_mb"], bo["peak_mb"])
            for rec, ours, bo in _paired(records, family)
            if ours.get("peak_mb") is not None and bo.get("peak_mb") is not None
        ]
        above = [f"{_cell(rec)}: {_mb(a)} vs {_mb(b)} MB" for rec, a, b in measured if a > b]
        if measured:
            detail = "; above it at " + ", ".join(above) if above else ""
            lines.append(
                f"- Peak memory, {name}: no higher than BoTorch's in "
                f"{len(measured) - len(above)} of {len(measured)} cells{detail}: "
                f"{_verdict(not above)}."
            )
    return "\n".join(lines)
