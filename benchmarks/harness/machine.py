"""What a benchmark page says about where its numbers come from: the machine, the package
versions, kernelbandits' own version and commit, and the command (without this machine's
paths)."""

from __future__ import annotations

import datetime as dt
import importlib.metadata
import importlib.util
import os
import platform
import shlex
import subprocess
from collections.abc import Sequence
from pathlib import Path


def importable(module: str) -> bool:
    """Whether ``module`` can be imported here (without importing it)."""
    return importlib.util.find_spec(module) is not None


def cpu_model() -> str:
    """The CPU model name (``/proc/cpuinfo``, else ``platform``)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def package_version(dist: str) -> str:
    """The installed version of the distribution ``dist`` ("-" when not installed)."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "-"


def code_version() -> str:
    """kernelbandits' version, plus its git commit (``+dirty`` if its sources have local
    changes) when it runs from a checkout; stored with every run, so that a store mixing
    runs of different code is reported."""
    import kernelbandits

    version = str(kernelbandits.__version__)
    where = Path(kernelbandits.__file__).resolve().parent
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=where,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "."],
            cwd=where,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return version
    return f"{version} ({commit}{'+dirty' if dirty else ''})"


#: options whose value is a path: the store is always written ``STORE``, the others as given
#: unless absolute (then ``PATH``)
PATH_OPTIONS = {
    "--store": "STORE",
    "--page": None,
    "--readme": None,
    "--plots": None,
    "--details": None,
    "--output": None,
}


def command_line(argv: Sequence[str], module: str) -> str:
    """The command running the benchmark ``module`` (``benchmarks.<name>``) from the
    repository's root, with the store shown as ``STORE`` and absolute paths as ``PATH`` (no
    path of this machine goes into a page)."""

    def clean(opt: str, value: str) -> str:
        fixed = PATH_OPTIONS[opt]
        if fixed is not None:
            return fixed
        return "PATH" if Path(value).is_absolute() or value.startswith("~") else value

    out = ["python", "-m", module]
    args = list(argv)
    i = 0
    while i < len(args):
        a = args[i]
        opt, eq, value = a.partition("=")
        if opt in PATH_OPTIONS and eq:
            out.append(f"{opt}={clean(opt, value)}")
        elif a in PATH_OPTIONS and i + 1 < len(args):
            out += [a, clean(a, args[i + 1])]
            i += 1
        else:
            out.append(a)
        i += 1
    return shlex.join(out)


def command_note(argv: Sequence[str], module: str) -> str:
    """``Command: `...`; report written DATE.``: the first line of a page block."""
    return f"Command: `{command_line(argv, module)}`; report written {dt.date.today().isoformat()}."


def greenlet_note() -> str:
    """Whether greenlet is installed (without it Optuna's ``GPSampler`` optimises its
    acquisition function sequentially, which changes its time per trial)."""
    return "greenlet " + ("installed" if importable("greenlet") else "not installed")


def machine_note(packages: Sequence[str], extra: str = "") -> str:
    """``Machine: CPU, N cores, one thread per run; Python x, <package> <version>, ...,
    kernelbandits <version (commit)>[; extra].``"""
    listed = "".join(f", {p} {package_version(p)}" for p in packages)
    tail = f"; {extra}" if extra else ""
    return (
        f"Machine: {cpu_model()}, {os.cpu_count()} cores, one thread per run; Python "
        f"{platform.python_version()}{listed}, kernelbandits {code_version()}{tail}."
    )
