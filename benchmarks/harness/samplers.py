"""The samplers of the single-objective benchmarks: a named :class:`SamplerSpec` (a family and
its keyword arguments) builds a fresh Optuna sampler per run, so worker processes rebuild it
from a picklable spec; ``--variant NAME:key=value,...`` adds more of a family's settings.
Other benchmarks register their own families in :data:`FAMILIES` (the multi-objective one adds
``kb-multitask`` and ``optuna-nsga2``). The :data:`LOOPS` (BoTorch, HEBO, SMAC3) are not Optuna
samplers: the benchmark runs each as its own ask/tell loop."""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import optuna

from benchmarks.harness.machine import importable


def _kb_gpucb(seed: int, **kwargs: Any) -> optuna.samplers.BaseSampler:
    from kernelbandits.integrations.optuna import GPBOSampler

    return GPBOSampler(seed=seed, **kwargs)


def _optuna_gp(seed: int, **kwargs: Any) -> optuna.samplers.BaseSampler:
    return optuna.samplers.GPSampler(seed=seed, **kwargs)


def _optuna_tpe(seed: int, **kwargs: Any) -> optuna.samplers.BaseSampler:
    return optuna.samplers.TPESampler(seed=seed, **kwargs)


def _random(seed: int, **kwargs: Any) -> optuna.samplers.BaseSampler:
    return optuna.samplers.RandomSampler(seed=seed, **kwargs)


BOTORCH = "botorch-qlogei"
HEBO = "hebo"
SMAC = "smac"
#: the samplers that are their own ask/tell loops, not Optuna samplers
LOOPS = (BOTORCH, HEBO, SMAC)


#: Optuna sampler families: name -> factory ``(seed, **kwargs) -> sampler``; add ours here
FAMILIES: dict[str, Callable[..., optuna.samplers.BaseSampler]] = {
    "kb-gpucb": _kb_gpucb,
    "optuna-gp": _optuna_gp,
    "optuna-tpe": _optuna_tpe,
    "random": _random,
}


#: how each family is written in the report
FAMILY_CALLS: dict[str, str] = {
    "kb-gpucb": "GPBOSampler",
    "optuna-gp": "optuna.samplers.GPSampler",
    "optuna-tpe": "optuna.samplers.TPESampler",
    "random": "optuna.samplers.RandomSampler",
    BOTORCH: "SingleTaskGP + qLogExpectedImprovement",
    HEBO: "HEBO loop (seed=seed: numpy's and torch's global generators): "
    "hebo.optimizers.hebo.HEBO(DesignSpace) with its defaults",
    SMAC: "SMAC3 ask/tell loop: BlackBoxFacade (continuous) or HyperparameterOptimizationFacade "
    "(grid indices) with their defaults, Scenario(deterministic=noiseless, n_trials=trials, "
    "seed=seed)",
}


#: what each family needs beyond optuna
FAMILY_NEEDS: dict[str, str] = {
    "optuna-gp": "torch",
    BOTORCH: "botorch",
    HEBO: "hebo.optimizers.hebo",
    SMAC: "smac",
}

#: families whose module is imported to tell whether they are available, not only found: the
#: peers are installed without their declared pins (``make bench-peers``), so a found package
#: may still miss a dependency
IMPORT_CHECKED = frozenset({HEBO, SMAC})


@cache
def imports(module: str) -> bool:
    """Whether ``module`` imports here (it is imported, once per process)."""
    try:
        importlib.import_module(module)
    except Exception:  # any failure of a peer's import makes it unavailable, not the run
        return False
    return True


@dataclass(frozen=True)
class SamplerSpec:
    """A named sampler: a family of :data:`FAMILIES` (or :data:`BOTORCH`) and its keyword
    arguments. Picklable, so worker processes rebuild the sampler from it."""

    name: str
    family: str
    kwargs: tuple[tuple[str, Any], ...] = ()

    def build(self, seed: int) -> optuna.samplers.BaseSampler:
        """A fresh Optuna sampler for one run (not for the :data:`LOOPS`)."""
        return FAMILIES[self.family](seed, **dict(self.kwargs))

    def describe(self) -> str:
        """How the sampler is built, e.g. ``GPBOSampler(seed=seed, beta=3.0)``."""
        if self.family == BOTORCH:
            return (
                "BoTorch loop (seed=seed): 10 scrambled-Sobol points, then " + FAMILY_CALLS[BOTORCH]
            )
        if self.family in LOOPS:
            return FAMILY_CALLS[self.family]
        args = ", ".join(["seed=seed"] + [f"{k}={v!r}" for k, v in self.kwargs])
        return f"{FAMILY_CALLS[self.family]}({args})"


#: the built-in samplers: name -> spec (``--variant`` adds more)
SAMPLERS: dict[str, SamplerSpec] = {name: SamplerSpec(name, name) for name in [*FAMILIES, *LOOPS]}


def available(family: str) -> bool:
    """Whether the packages of ``family`` are here (imported for :data:`IMPORT_CHECKED`)."""
    module = FAMILY_NEEDS.get(family, "optuna")
    if family in IMPORT_CHECKED:
        return imports(module)
    return importable(module)


def available_samplers() -> list[str]:
    """Built-in samplers whose packages import here."""
    return [n for n, s in SAMPLERS.items() if available(s.family)]


def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def parse_variant(
    text: str, family: str = "kb-gpucb", builtin: Mapping[str, SamplerSpec] | None = None
) -> SamplerSpec:
    """``NAME:key=value,key=value`` -> ``GPBOSampler(seed=seed, key=value, ...)`` named NAME
    (another sampler with ``family``, a key of :data:`FAMILIES`; NAME must not be a key of
    ``builtin``, default :data:`SAMPLERS`).

    Values are parsed by ``ast.literal_eval`` (``3`` -> int, ``'map'`` or ``map`` -> str,
    ``None`` -> None); a value cannot contain a comma."""
    name, sep, rest = text.partition(":")
    name = name.strip()
    if not name or not sep:
        raise ValueError(f"--variant must look like NAME:key=value,key=value; got {text!r}")
    if name in (SAMPLERS if builtin is None else builtin):
        raise ValueError(f"--variant name {name!r} is a built-in sampler; choose another")
    kwargs = []
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip().isidentifier():
            raise ValueError(f"--variant {name}: {item!r} is not key=value")
        kwargs.append((key.strip(), _literal(value.strip())))
    spec = SamplerSpec(name, family, tuple(kwargs))
    try:
        spec.build(0)  # fail now on a bad keyword, not in every worker
    except TypeError as err:
        raise ValueError(f"--variant {name}: {err}") from err
    return spec
