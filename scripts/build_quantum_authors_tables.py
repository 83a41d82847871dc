"""Extract the quantum BO authors' instance and published runs into a small shipped table.

Dai, Lau, Verma, Shu, Low & Jaillet, *Quantum Bayesian Optimization* (NeurIPS 2023), published
their code and result files in the repository ``daizhongxiang/Quantum_Bayesian_Optimization``.
This script reads a local copy of it (a work tree, or a git directory such as a bare clone, read
with ``git show``; nothing is downloaded) and writes
``src/kernelbandits/datasets/tables/quantum_authors.npz``, read back by
:mod:`kernelbandits.datasets.quantum_authors`. None of the authors' code is copied or run.

**Pickles are opened with a restricted unpickler** (:class:`NumpyOnlyUnpickler`): it resolves
only the globals a pickled numpy array or scalar needs (``numpy.core.multiarray``'s
``_reconstruct`` and ``scalar``, ``numpy.core.numeric._frombuffer`` for protocol 5,
``numpy.ndarray``, ``numpy.dtype``, under numpy 1's and 2's module names) and refuses every
other global, so a file cannot run code while it is read. Every
file the script reads passes (measured at commit ``cc1e768``: the 96 pickles it reads, none refused).

What is extracted (the authors' file names in each table's ``files`` entry):

* **Their synthetic function** (``synth/saved_synth_funcs/synth_func_ls_0.1_*.pkl``): 20 arms
  ``domain`` equally spaced on [0, 1] and ``f`` in [0, 1] -- the same function for every seed
  and for both noise files (the script checks that the two files agree).
* **Their random Fourier features** (``random_features_ls_*.pkl``): frequencies ``s (M, d)``
  and phases ``b (M,)``; their feature map is
  ``sqrt(v) * c / ||c||`` with ``c = sqrt(2 / M) cos(s x + b)`` (``helper_funcs_*.py``), which is
  :class:`~kernelbandits.regression.RandomFourierFeatures` with ``normalize=True`` and frequencies
  ``S = s^T``. Synthetic: ``M = 100``, lengthscale 0.1, ``v = 1`` (one draw, shared by every
  run); AutoML: ``M = 200``, ``v = 0.5``, lengthscale 0.2 (Q-GP-UCB) and 1 (GP-UCB).
* **Their AutoML instance**: the validation accuracy of an RBF ``SVC(C, gamma)`` on the 25 arms
  of their ``domain`` (``C, gamma = 1e-4 + x (1 - 1e-4)``), trained as ``automl/svm_*.py``
  trains it: their ``clinical_data/diabetes.csv`` (the 768-row Pima data), a stratified 70/30
  ``train_test_split(random_state=0)``, no feature scaling. The script recomputes the table
  with scikit-learn and checks it against every accuracy their result files logged at a grid
  arm (all equal at ``cc1e768``): the table is their instance, not an approximation of it.
  The same check runs on the synthetic files: every logged value after a run's initial point
  (394,362 in all) equals the stored function at its arm. A run's initial point is uniformly
  random; the synthetic function snaps it to the nearest arm, the AutoML runs evaluate the SVM
  there, off the grid, and it is scored as logged (as their notebook does).
* **Their published runs**, scored as their ``analyze.ipynb`` scores them: per query the regret
  ``f_max - f(x)`` of the arm played (a quantum stage's arm repeated for each of the
  ``track_queries`` it was charged), summed; ``f_max = 1`` (synthetic) and ``0.7619047619047619``
  (AutoML, the notebook's constant, their table's maximum 176/231). Series (``SERIES``):
  synthetic Bernoulli, Gaussian sd 0.3 and 0.4 (10 runs each, ``10^4`` queries) and AutoML
  Gaussian sd 0.01 and 0.05 (5 runs, 5,000 queries), GP-UCB and Q-GP-UCB; AutoML sd 0.05
  LinUCB and Q-LinUCB (their ``linear_bandit`` files). Stored: the arm of every query of every
  run up to the budget, run-length encoded (a quantum stage is a run of its queries), and the
  value of each run's first evaluation, from which the loader recomputes the cumulative regret
  after any number of queries; the script checks that this rescoring equals the notebook's.

Usage::

    python scripts/build_quantum_authors_tables.py --repo PATH           # write the table
    python scripts/build_quantum_authors_tables.py --repo PATH --check   # compare byte for byte

``PATH``: a copy of the authors' repository; ``--commit`` (default ``HEAD``) picks the revision
when ``PATH`` is a git directory. The table records the commit it was read from.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import pickle
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from kernelbandits.datasets._npz import npz_bytes

REPOSITORY = "daizhongxiang/Quantum_Bayesian_Optimization"
TABLE: Path = (
    Path(__file__).resolve().parents[1]
    / "src" / "kernelbandits" / "datasets" / "tables" / "quantum_authors.npz"
)  # fmt: skip
AUTOML_F_MAX: float = 0.7619047619047619  # their automl/analyze.ipynb
BUDGET: dict[str, int] = {"synthetic": 10_000, "automl": 5_000}
RUNS: dict[str, int] = {"synthetic": 10, "automl": 5}
SVM_LOW, SVM_HIGH = 1e-4, 1.0
SPLIT_SEED, VALID_FRACTION = 0, 0.3

_SYNTH_NOISE = {"0.09": "0.09", "0.16": "0.16000000000000003"}  # file-name spellings
_AUTOML_NOISE = {"0.01": "0.0001", "0.05": "0.0025000000000000005"}


@dataclass(frozen=True)
class Series:
    """One published curve family: ``key`` (``<problem>-<setting>``), the policy's name here,
    the file pattern (``{i}`` = run index) and whether it is a staged (quantum) run."""

    key: str
    policy: str
    pattern: str
    quantum: bool

    @property
    def problem(self) -> str:
        return self.key.split("-", 1)[0]


def _series() -> tuple[Series, ...]:
    out = []
    synth = {
        "bernoulli": "res_iter_{i}_binary.pkl",
        "gaussian-0.3": f"res_noise_var_{_SYNTH_NOISE['0.09']}_iter_{{i}}.pkl",
        "gaussian-0.4": f"res_noise_var_{_SYNTH_NOISE['0.16']}_iter_{{i}}.pkl",
    }
    for setting, name in synth.items():
        out.append(Series(f"synthetic-{setting}", "GP-UCB", f"synth/results_bo/{name}", False))
        out.append(
            Series(f"synthetic-{setting}", "Q-GP-UCB", f"synth/results_quantum/{name}", True)
        )
    for sd, var in _AUTOML_NOISE.items():
        name = f"res_noise_var_{var}_iter_{{i}}.pkl"
        out.append(Series(f"automl-{sd}", "GP-UCB", f"automl/results_bo/{name}", False))
        out.append(Series(f"automl-{sd}", "Q-GP-UCB", f"automl/results_quantum/{name}", True))
    lin = f"res_noise_var_{_AUTOML_NOISE['0.05']}_iter_{{i}}_linear_bandit.pkl"
    out.append(Series("automl-0.05", "LinUCB", f"automl/results_bo/{lin}", False))
    out.append(Series("automl-0.05", "Q-LinUCB", f"automl/results_quantum/{lin}", True))
    return tuple(out)


SERIES: tuple[Series, ...] = _series()


# -- reading -----------------------------------------------------------------------------------
class NumpyOnlyUnpickler(pickle.Unpickler):
    """An unpickler that builds numpy arrays and scalars and nothing else.

    Containers (dict, list, tuple), numbers and strings need no global; the only globals resolved
    are those a pickled ``ndarray``, ``dtype`` or numpy scalar names. Anything else raises
    ``pickle.UnpicklingError`` naming the refused global.
    """

    _ALLOWED: ClassVar[set[tuple[str, str]]] = {
        ("numpy.core.multiarray", "_reconstruct"),
        ("numpy._core.multiarray", "_reconstruct"),
        ("numpy.core.multiarray", "scalar"),
        ("numpy._core.multiarray", "scalar"),
        ("numpy.core.numeric", "_frombuffer"),  # protocol 5 arrays
        ("numpy._core.numeric", "_frombuffer"),
        ("numpy", "ndarray"),
        ("numpy", "dtype"),
    }

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in self._ALLOWED:
            raise pickle.UnpicklingError(f"refused global {module}.{name} (numpy arrays only)")
        if name in ("_reconstruct", "scalar"):
            return getattr(np._core.multiarray, name)
        if name == "_frombuffer":
            return np._core.numeric._frombuffer  # type: ignore[attr-defined]
        return getattr(np, name)


def restricted_loads(data: bytes) -> Any:
    """Unpickle ``data`` with :class:`NumpyOnlyUnpickler`."""
    return NumpyOnlyUnpickler(io.BytesIO(data)).load()


class AuthorsRepository:
    """Files of a local copy of the authors' repository: a work tree, or a git directory read
    with ``git show <commit>:<path>`` (a bare clone has no work tree)."""

    def __init__(self, path: Path, commit: str = "HEAD") -> None:
        self.path = Path(path)
        if (self.path / "synth").is_dir():
            self.git_dir: Path | None = None
            self.commit = self._work_tree_commit()
        elif (self.path / "objects").is_dir() or (self.path / ".git").exists():
            self.git_dir = self.path / ".git" if (self.path / ".git").exists() else self.path
            self.commit = self._git("rev-parse", f"{commit}^{{commit}}").decode().strip()
        else:
            raise SystemExit(
                f"{self.path} is neither a work tree of {REPOSITORY} (no synth/ folder) nor a "
                "git directory"
            )

    def _git(self, *args: str) -> bytes:
        cmd = ["git", f"--git-dir={self.git_dir}", *args]
        return subprocess.run(cmd, check=True, capture_output=True).stdout

    def _work_tree_commit(self) -> str:
        try:
            out = subprocess.run(
                ["git", "-C", str(self.path), "rev-parse", "HEAD"], capture_output=True, check=True
            )
        except (OSError, subprocess.CalledProcessError):
            return "unknown (work tree without git)"
        return out.stdout.decode().strip()

    def read(self, name: str) -> bytes:
        if self.git_dir is None:
            return (self.path / name).read_bytes()
        return self._git("show", f"{self.commit}:{name}")


def _load(repo: AuthorsRepository, name: str, files: dict[str, str]) -> Any:
    """Unpickle one file (restricted) and record its SHA-256 in ``files``."""
    data = repo.read(name)
    files[name] = hashlib.sha256(data).hexdigest()
    return restricted_loads(data)


# -- the instance ------------------------------------------------------------------------------
def svm_accuracy_table(csv: bytes, points: np.ndarray) -> np.ndarray:
    """``(m,)`` validation accuracy of ``SVC(C, gamma)`` at each arm of ``points (m, 2)``, as
    the authors' ``automl/svm_*.py`` computes it (module docstring)."""
    from sklearn.model_selection import train_test_split
    from sklearn.svm import SVC

    data = np.genfromtxt(io.BytesIO(csv), delimiter=",", skip_header=1)
    X, y = data[:, :-1], data[:, -1].astype(int)
    X_train, X_valid, y_train, y_valid = train_test_split(
        X, y, test_size=VALID_FRACTION, stratify=y, random_state=SPLIT_SEED
    )
    accuracy = np.empty(len(points))
    for k, (c, g) in enumerate(points):
        model = SVC(kernel="rbf", C=SVM_LOW + c * (SVM_HIGH - SVM_LOW),
                    gamma=SVM_LOW + g * (SVM_HIGH - SVM_LOW))  # fmt: skip
        model.fit(X_train, y_train)
        accuracy[k] = np.count_nonzero(model.predict(X_valid) == y_valid) / len(y_valid)
    return accuracy


def _features(obj: dict[str, Any], prefix: str) -> dict[str, np.ndarray]:
    s, b = np.asarray(obj["s"], float), np.asarray(obj["b"], float)
    return {
        f"{prefix}__frequencies": s.T.copy(),  # (d, M): our RandomFourierFeatures' S
        f"{prefix}__offsets": b.copy(),
        f"{prefix}__variance": np.asarray(float(obj["v_kernel"])),
    }


def instance_arrays(repo: AuthorsRepository, files: dict[str, str]) -> dict[str, np.ndarray]:
    """Their synthetic function, their AutoML table and their random features."""
    folder = "synth/saved_synth_funcs"
    funcs = [_load(repo, f"{folder}/synth_func_ls_0.1_noise_var_{v}.pkl", files)
             for v in _SYNTH_NOISE.values()]  # fmt: skip
    if not all(np.array_equal(funcs[0][k], f[k]) for f in funcs[1:] for k in ("domain", "f")):
        raise SystemExit("the authors' two synthetic-function files differ")
    feats = [_load(repo, f"{folder}/random_features_ls_0.1_noise_var_{v}.pkl", files)
             for v in _SYNTH_NOISE.values()]  # fmt: skip
    if not all(np.array_equal(feats[0][k], f[k]) for f in feats[1:] for k in ("s", "b")):
        raise SystemExit("the authors' two synthetic feature files differ")
    out = {
        "synthetic__points": np.asarray(funcs[0]["domain"], float).reshape(-1, 1),
        "synthetic__values": np.asarray(funcs[0]["f"], float).ravel(),
        "synthetic__f_max": np.asarray(1.0),
        **_features(feats[0], "synthetic__rff"),
    }
    q = _load(repo, "automl/saved_synth_funcs/random_features_ls_[0.2 0.2]_v_kernel_0.5_M_200.pkl",
              files)  # fmt: skip
    gp = _load(repo, "automl/saved_synth_funcs/random_features_ls_[1 1]_v_kernel_0.5_M_200.pkl",
               files)  # fmt: skip
    points = np.asarray(q["domain"], float)
    if not np.array_equal(points, np.asarray(gp["domain"], float)):
        raise SystemExit("the authors' two AutoML feature files have different domains")
    csv_name = "automl/clinical_data/diabetes.csv"
    csv = repo.read(csv_name)
    files[csv_name] = hashlib.sha256(csv).hexdigest()
    accuracy = svm_accuracy_table(csv, points)
    if not np.isclose(accuracy.max(), AUTOML_F_MAX, rtol=0, atol=1e-15):
        raise SystemExit(f"the AutoML table's maximum {accuracy.max()} is not their f_max")
    out |= {
        "automl__points": points,
        "automl__values": accuracy,
        "automl__f_max": np.asarray(AUTOML_F_MAX),
        **_features(q, "automl__rff_q"),
        **_features(gp, "automl__rff_gp"),
    }
    return out


# -- the runs ----------------------------------------------------------------------------------
def per_query_values(result: dict[str, Any], quantum: bool) -> tuple[np.ndarray, np.ndarray]:
    """``f(x)`` of every query of one run (their notebook's scoring) and the queries charged to
    each logged evaluation (1 for a classical run)."""
    values = np.asarray(result["all"]["f_values"], float).ravel()
    if not quantum:
        return values, np.ones(values.size, dtype=int)
    queries = np.asarray(result["all"]["track_queries"], int)
    return np.repeat(values, queries), queries


def _arm_index(points: np.ndarray, x: np.ndarray) -> int:
    return int(np.argmin(np.abs(points - np.asarray(x, float).reshape(1, -1)).sum(axis=1)))


def check_logged_values(result: dict[str, Any], points: np.ndarray, table: np.ndarray) -> int:
    """Every logged ``f_values`` entry after the first equals the table at its arm (``params``);
    returns how many were checked, exits on a mismatch. The first is the run's initial point, a
    uniformly random point that the AutoML runs evaluate off the grid (the synthetic function
    snaps it to the nearest arm), so it is scored as logged and not checked."""
    params = [np.ravel(p) for p in result["all"]["params"]]
    logged = np.asarray(result["all"]["f_values"], float).ravel()[1:]
    arms = [_arm_index(points, x) for x in params]
    if len(arms) != logged.size or not np.allclose(table[arms], logged, rtol=0, atol=1e-12):
        raise SystemExit("a logged f_value differs from the instance at its arm")
    return logged.size


def played_segments(
    result: dict[str, Any], quantum: bool, points: np.ndarray, budget: int
) -> tuple[np.ndarray, np.ndarray, float]:
    """The arms one run played over its first ``budget`` queries, run-length encoded: arm
    indices ``(s,)``, queries of each segment ``(s,)`` (summing to ``budget``), and the value of
    the first segment (the run's initial point, alone in segment 0: the AutoML runs evaluate it
    off the grid, so its value is the logged one, not the table's at its nearest arm)."""
    init = np.asarray(result["all"]["init"]["X"], float)
    params = [np.ravel(p) for p in result["all"]["params"]]
    arms = np.array([_arm_index(points, x) for x in [*init, *params]])
    _, charged = per_query_values(result, quantum)
    if charged.size != arms.size:
        raise SystemExit("a run logs a different number of evaluations and queries")
    per_query = np.repeat(arms, charged)
    if per_query.size < budget:
        raise SystemExit(f"a run has {per_query.size} queries < {budget}")
    first = min(int(charged[0]), budget)
    rest = per_query[first:budget]
    starts = np.flatnonzero(np.r_[True, rest[1:] != rest[:-1]]) if rest.size else np.array([], int)
    counts = np.diff(np.r_[starts, rest.size])
    seg_arms = np.r_[arms[0], rest[starts]].astype(np.int64)
    seg_counts = np.r_[first, counts].astype(np.int64)
    first_value = float(np.ravel(np.asarray(result["all"]["f_values"], float))[0])
    return seg_arms, seg_counts, first_value


def segments_regret(
    arms: np.ndarray, counts: np.ndarray, first_value: float, values: np.ndarray, f_max: float
) -> np.ndarray:
    """Per-query regret ``(sum(counts),)`` of run-length encoded segments (segment 0 at
    ``first_value``)."""
    gaps = f_max - values[arms]
    gaps[0] = f_max - first_value
    return np.repeat(gaps, counts)


def run_arrays(
    repo: AuthorsRepository, files: dict[str, str], inst: dict[str, np.ndarray]
) -> tuple[dict[str, np.ndarray], int]:
    """Every run's played arms, run-length encoded over the budget (``__arms``, ``__counts``,
    padded with -1 and 0) and its first value; checked against the notebook's scoring."""
    out: dict[str, np.ndarray] = {}
    checked = 0
    for series in SERIES:
        prob = series.problem
        T = BUDGET[prob]
        f_max = float(inst[f"{prob}__f_max"])
        points, table = inst[f"{prob}__points"], inst[f"{prob}__values"]
        runs = []
        for i in range(RUNS[prob]):
            result = _load(repo, series.pattern.format(i=i), files)
            checked += check_logged_values(result, points, table)
            arms, counts, first = played_segments(result, series.quantum, points, T)
            scored = np.cumsum(f_max - per_query_values(result, series.quantum)[0][:T])
            again = np.cumsum(segments_regret(arms, counts, first, table, f_max))
            if not np.allclose(scored, again, rtol=0, atol=1e-9):
                raise SystemExit(f"{series.pattern.format(i=i)}: segments do not rescore the run")
            runs.append((arms, counts, first))
        width = max(a.size for a, _, _ in runs)
        arms_out = np.full((len(runs), width), -1, dtype=np.int64)
        counts_out = np.zeros((len(runs), width), dtype=np.int64)
        for r, (a, c, _) in enumerate(runs):
            arms_out[r, : a.size], counts_out[r, : c.size] = a, c
        name = f"runs__{series.key}__{series.policy}"
        out[f"{name}__arms"], out[f"{name}__counts"] = arms_out, counts_out
        out[f"{name}__first_value"] = np.array([f for _, _, f in runs])
    return out, checked


def build(repo: AuthorsRepository) -> bytes:
    """The table's bytes (deterministic: the same copy gives the same bytes)."""
    import sklearn

    files: dict[str, str] = {}
    arrays = instance_arrays(repo, files)
    runs, checked = run_arrays(repo, files, arrays)
    arrays |= runs
    metadata = {
        "repository": REPOSITORY,
        "commit": repo.commit,
        "files_sha256": dict(sorted(files.items())),
        "logged_values_checked": checked,
        "scoring": "cumulative sum over queries of f_max - f(x) (automl/analyze.ipynb, "
        "synth/analyze.ipynb); a quantum stage's arm repeated track_queries times",
        "series": [[s.key, s.policy, s.pattern] for s in SERIES],
        "scikit-learn": sklearn.__version__,
        "numpy": np.__version__,
    }
    arrays["metadata"] = np.asarray(json.dumps(metadata, sort_keys=True))
    arrays["source"] = np.asarray(
        f"{REPOSITORY} at {repo.commit[:7]}: their synthetic function, random features, AutoML "
        "instance (recomputed from their diabetes.csv) and published runs, read with a "
        "numpy-only unpickler by scripts/build_quantum_authors_tables.py"
    )
    return npz_bytes(arrays)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, required=True, help=f"a local copy of {REPOSITORY}")
    parser.add_argument("--commit", default="HEAD", help="revision, when --repo is a git dir")
    parser.add_argument("--out", type=Path, default=TABLE, help="the table to write")
    parser.add_argument(
        "--check", action="store_true", help="do not write; compare with --out byte for byte"
    )
    args = parser.parse_args(argv)
    data = build(AuthorsRepository(args.repo, args.commit))
    if args.check:
        same = args.out.is_file() and args.out.read_bytes() == data
        print(f"{args.out.name}: {'identical' if same else 'DIFFERS'}")
        return 0 if same else 1
    args.out.write_bytes(data)
    print(f"wrote {args.out} ({len(data):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
