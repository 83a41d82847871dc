"""What a recipe is: a model a :class:`~kernelbandits.campaign.Campaign` (or an Optuna
sampler) fits to its history and turns into a policy.

A *policy factory* is any ``(domain, seed) -> Policy`` (:data:`PolicyFactory`); a campaign
tells the policy it builds the standardised values (:func:`kernelbandits.outcome.standardize`).
A :class:`Recipe` is a policy factory that also says how to fit itself to a history: its
:meth:`Recipe.prepare` takes the completed trials ``X (n, d)`` and their values ``(n,)`` and
returns the fitted factory and the values its policy must be told (its own outcome transform).
"""

from __future__ import annotations

import math
from typing import Literal, NamedTuple, Protocol, runtime_checkable

from kernelbandits._validation import FloatArray, check_positive
from kernelbandits.domains import Domain
from kernelbandits.policies.base import Policy, PolicyFactory
from kernelbandits.policies.beta import BetaSchedule, IGPUCBBeta
from kernelbandits.space import SearchSpace

__all__ = ["Prepared", "Recipe", "beta_width", "check_beta", "check_domain"]


class Prepared(NamedTuple):
    """A recipe fitted to a history: the policy factory and the values ``(n,)`` to tell it
    (in the units of its model, e.g. standardised and warped)."""

    factory: PolicyFactory
    values: FloatArray


@runtime_checkable
class Recipe(Protocol):
    """A policy factory that fits itself to a campaign's history.

    ``recipe(domain, seed)`` builds a policy with the recipe's current model (a
    :data:`PolicyFactory`); ``recipe.prepare(X, values, seed)`` fits the recipe to the
    completed trials ``X (n, d)`` (encoded in the unit box of ``recipe.space``) with their
    values ``(n,)`` (raw, signed so that larger is better; any scale) and returns
    :class:`Prepared`: the fitted factory and the values its policy is told. It must be a pure
    function of its arguments (a campaign is a pure function of its history).
    """

    space: SearchSpace

    def __call__(self, domain: Domain, seed: int) -> Policy: ...

    def prepare(self, X: FloatArray, values: FloatArray, seed: int) -> Prepared: ...


def check_beta(beta: object) -> float | Literal["theory"]:
    """``beta`` if it is ``"theory"`` (IGP-UCB's schedule) or a finite positive number, else a
    ``ValueError`` naming it (shared by the recipes and the Optuna samplers)."""
    if isinstance(beta, str) and beta == "theory":
        return "theory"
    if not isinstance(beta, str):
        try:
            return check_positive(beta, "beta")  # type: ignore[arg-type]
        except ValueError:
            pass
    raise ValueError(
        f"beta must be a finite positive number or 'theory'; got {beta!r} ({type(beta).__name__})"
    )


def beta_width(beta: float | str, noise_var: float) -> BetaSchedule | float:
    """UCB's width multiplier: the constant ``beta``, or for ``"theory"`` IGP-UCB's schedule
    (Chowdhury & Gopalan 2017, :class:`~kernelbandits.policies.beta.IGPUCBBeta`) with
    ``R = sqrt(noise_var)``."""
    checked = check_beta(beta)
    return IGPUCBBeta(noise_std=math.sqrt(noise_var)) if checked == "theory" else checked


def check_domain(space: SearchSpace, domain: Domain) -> None:
    """``ValueError`` unless ``domain`` has the dimension ``space`` encodes to."""
    if domain.dim != space.dim:
        raise ValueError(
            f"domain has dimension {domain.dim} but the search space encodes to {space.dim}"
        )
