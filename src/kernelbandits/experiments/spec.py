"""Declarative experiment specifications and the registry that finds them by id.

One :class:`ExperimentSpec` per paper figure: a problem per seed, named policy factories, a
horizon and a number of seeds (plus a small "quick" variant for CI), and the paper's settings.

Worker processes find a spec by id, never by pickling it: the registry is filled by importing the
module that called :func:`register` (recorded in ``spec.module``); the built-in specs live in
:mod:`kernelbandits.papers` (one package per paper). Factories must therefore be module-level
functions.

Seeding protocol: at seed ``s`` the problem is ``make_problem(s)`` and every policy runs with
:func:`kernelbandits.experiments.runner.run` at seed ``s``, so all policies at seed ``s`` face the
same problem instance and the same noise stream.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Literal

from kernelbandits.policies.base import Policy
from kernelbandits.problems.base import Problem

CATALOG_MODULE = "kernelbandits.papers"
Metric = Literal["cumulative", "average", "instantaneous"]
METRICS = ("cumulative", "average", "instantaneous")


@dataclass(frozen=True)
class ExperimentSpec:
    """What to run and how to plot it.

    Attributes
    ----------
    id : short unique key (used in file names and on the command line).
    title : one line for tables and the plot title.
    description : the setting, and every decision taken on an ambiguous point of the paper.
    make_problem : ``problem_seed -> Problem``; a module-level function.
    policies : display name -> factory ``(problem, policy_seed) -> Policy`` (module-level).
    horizon, n_seeds : the full experiment (seeds are ``0..n_seeds-1``).
    quick_horizon, quick_seeds : the CI-size variant.
    paper_settings : free-form record of the paper's parameters.
    metric : y axis of the plot: ``"cumulative"`` (``R_t``), ``"average"`` (``R_t / t``) or
        ``"instantaneous"`` (the trace's per-round regret as recorded, e.g. Bayes regret).
    reference : the paper and figure reproduced.
    module : the module whose import registers this spec; set by :func:`register` when empty.
    variant_of : id of the experiment whose runs this one repeats with another plot metric or
        another backend (e.g. ``tr-gaussian-avg`` of ``tr-gaussian``); ``reproduce all`` skips
        variants.
    """

    id: str
    title: str
    make_problem: Callable[[int], Problem]
    policies: Mapping[str, Callable[[Problem, int], Policy]]
    horizon: int
    n_seeds: int
    quick_horizon: int
    quick_seeds: int
    description: str = ""
    paper_settings: Mapping[str, object] = field(default_factory=dict)
    metric: Metric = "cumulative"
    reference: str = ""
    module: str = ""
    variant_of: str = ""

    def __post_init__(self) -> None:
        if not self.id or any(c.isspace() or c in "/\\" for c in self.id):
            raise ValueError(f"id must be non-empty without spaces or slashes; got {self.id!r}")
        if not self.policies:
            raise ValueError(f"spec {self.id!r}: policies must name at least one policy")
        for name in ("horizon", "n_seeds", "quick_horizon", "quick_seeds"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"spec {self.id!r}: {name} must be >= 1")
        if self.metric not in METRICS:
            raise ValueError(f"metric must be one of {METRICS}; got {self.metric!r}")
        object.__setattr__(self, "policies", MappingProxyType(dict(self.policies)))
        object.__setattr__(self, "paper_settings", MappingProxyType(dict(self.paper_settings)))

    def size(self, quick: bool = False) -> tuple[int, int]:
        """``(horizon, n_seeds)`` of the full or the quick variant."""
        return (self.quick_horizon, self.quick_seeds) if quick else (self.horizon, self.n_seeds)


_REGISTRY: dict[str, ExperimentSpec] = {}


def register(spec: ExperimentSpec) -> ExperimentSpec:
    """Add ``spec`` to the registry and return it (with ``module`` filled in).

    ``module`` defaults to the caller's module, which worker processes import to find the spec.
    A duplicate id raises ``ValueError``.
    """
    if spec.id in _REGISTRY:
        raise ValueError(f"an experiment with id {spec.id!r} is already registered")
    if not spec.module:
        caller = sys._getframe(1).f_globals.get("__name__", "__main__")
        spec = replace(spec, module=caller)
    _REGISTRY[spec.id] = spec
    return spec


def unregister(spec_id: str) -> None:
    """Remove a spec (for tests); unknown ids are ignored."""
    _REGISTRY.pop(spec_id, None)


def load_catalog() -> None:
    """Import the built-in paper packages so their specs are registered (idempotent)."""
    importlib.import_module(CATALOG_MODULE)


def import_spec_module(module: str) -> None:
    """Import the module that registers a spec (in a worker process).

    ``__main__``/``__mp_main__`` are skipped: a spawned worker re-runs the parent's main module
    as ``__mp_main__`` by itself.
    """
    if module and module not in ("__main__", "__mp_main__"):
        importlib.import_module(module)


def get(spec_id: str) -> ExperimentSpec:
    """The registered spec with this id; ``ValueError`` listing the known ids otherwise."""
    load_catalog()
    try:
        return _REGISTRY[spec_id]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY)) or "(none)"
        raise ValueError(f"unknown experiment id {spec_id!r}; known ids: {known}") from None


def all_specs() -> list[ExperimentSpec]:
    """Every registered spec (the catalog included), sorted by id."""
    load_catalog()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def paper_specs() -> list[ExperimentSpec]:
    """The experiments ``reproduce all`` runs: the paper packages' specs without variants
    (:attr:`ExperimentSpec.variant_of`) and without the demo; sorted by id."""
    return [
        s
        for s in all_specs()
        if s.module.startswith(CATALOG_MODULE) and not s.variant_of and s.id != "demo"
    ]
