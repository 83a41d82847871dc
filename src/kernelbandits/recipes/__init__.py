"""Recipes: the models a practitioner runs on an objective, usable without Optuna.

A recipe (:class:`Recipe`) is a policy factory ``(domain, seed) -> Policy`` that also fits
itself to a history (:meth:`Recipe.prepare`). A :class:`~kernelbandits.campaign.Campaign`
takes one as its ``policy``; the Optuna samplers
(:mod:`kernelbandits.integrations.optuna`) are adapters over the same recipes.

=================================  ===========================================================
:func:`gp`, :func:`gp_ucb`          exact GP, EI (default) / UCB / TS, MAP hyperparameters
:func:`bkb`                         BKB, a Nystrom-sketched GP-UCB for long campaigns
:func:`deltabo`                     DeltaBO's fitted transfer model from a ``source`` task
:func:`multi_source_deltabo`        DeltaBO from several sources: one, or all pooled, by evidence
:func:`libo`                        LIBO's meta-learned prior from ``previous_studies``
:func:`multitask_model`             the MT-KB ICM model (task matrix, hyperparameters)
=================================  ===========================================================

Example::

    from kernelbandits.campaign import Campaign
    from kernelbandits.recipes import deltabo

    new = Campaign(space, deltabo(space, source=old_campaign), seed=0)
"""

from kernelbandits.recipes.base import Prepared, Recipe, beta_width, check_beta
from kernelbandits.recipes.bkb import BKBRecipe, bkb
from kernelbandits.recipes.deltabo import (
    DeltaBORecipe,
    MultiSourceDeltaBORecipe,
    Offset,
    deltabo,
    multi_source_deltabo,
)
from kernelbandits.recipes.gp import GPRecipe, gp, gp_ucb, map_fit
from kernelbandits.recipes.libo import LIBORecipe, MetaKernel, libo
from kernelbandits.recipes.multitask import estimate_task_matrix, multitask_model
from kernelbandits.recipes.observations import Observations

__all__ = [
    "BKBRecipe",
    "DeltaBORecipe",
    "GPRecipe",
    "LIBORecipe",
    "MetaKernel",
    "MultiSourceDeltaBORecipe",
    "Observations",
    "Offset",
    "Prepared",
    "Recipe",
    "beta_width",
    "bkb",
    "check_beta",
    "deltabo",
    "estimate_task_matrix",
    "gp",
    "gp_ucb",
    "libo",
    "map_fit",
    "multi_source_deltabo",
    "multitask_model",
]
