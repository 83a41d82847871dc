"""Optuna samplers backed by kernelbandits policies (``pip install 'kernelbandits[optuna]'``).

Thin adapters over one base sampler, :class:`RecipeSampler`, that takes a recipe
(:mod:`kernelbandits.recipes`; the same models a :class:`~kernelbandits.campaign.Campaign` runs
without Optuna):

* :class:`GPBOSampler`: GP Bayesian optimisation (:func:`kernelbandits.recipes.gp`), expected
  improvement by default, GP-UCB (Srinivas et al., 2010) / IGP-UCB (Chowdhury & Gopalan, 2017;
  ``beta="theory"``), Thompson sampling, or BKB (``policy="bkb"``). ``GPUCBSampler`` is its
  deprecated former name.
* :class:`DeltaBOSampler`: DeltaBO's transfer model (:func:`kernelbandits.recipes.deltabo`)
  from a finished study.
* :class:`LIBOSampler`: LIBO's meta-learned prior (:func:`kernelbandits.recipes.libo`) across a
  family of studies.
* :class:`MultiTaskSampler`: MT-KB on a multi-objective study
  (:func:`kernelbandits.recipes.multitask_model`).

::

    import optuna
    from kernelbandits.integrations.optuna import GPBOSampler

    study = optuna.create_study(sampler=GPBOSampler(seed=0), storage="sqlite:///hpo.db")
    study.optimize(objective, n_trials=30)

The sampler is *stateless*: every proposal is rebuilt from the trials in the study's storage by
:meth:`kernelbandits.campaign.Campaign.from_trials` (a campaign is a pure function of its trial
history), so a study resumed from SQLite, even after its process was killed, continues exactly
as the uninterrupted run would have. See :class:`GPBOSampler` for the rules.

Only public Optuna API is used (a test checks the source). What a sampler records about a trial
(its proposal, :data:`PROPOSAL_ATTR`, which other workers hallucinate as pending before Optuna
stores the trial's parameters; MultiTaskSampler's scalarisation weight, :data:`WEIGHT_ATTR`) is a
*study* user attribute keyed by the trial's number, :func:`record_key` (``"<key>:<number>"``),
since Optuna has no public call that writes an attribute of a running trial from a sampler; read
it from any handle on the study with :func:`recorded` or :func:`recorded_weight`.
:class:`LIBOSampler` lists the family's studies from the ``storage`` it is given.
"""

from kernelbandits.integrations.optuna._common import (
    PROPOSAL_ATTR,
    IndependentSamplingWarning,
    complete_trials,
    fail_stale_running_trials,
    observed_history,
    record_key,
    recorded,
    search_space_from_distributions,
    study_direction,
)
from kernelbandits.integrations.optuna._deltabo import DeltaBOSampler
from kernelbandits.integrations.optuna._libo import (
    FAMILY_ATTR,
    JOINED_ATTR,
    FamilyKernel,
    FamilyMismatchWarning,
    LIBOSampler,
    join_family,
)
from kernelbandits.integrations.optuna._multitask import (
    WEIGHT_ATTR,
    MultiTaskSampler,
    recorded_weight,
)
from kernelbandits.integrations.optuna._sampler import GPBOSampler, GPUCBSampler, RecipeSampler
from kernelbandits.metalearning.dictionaries import CosineDictionary, SEDictionary
from kernelbandits.recipes.multitask import estimate_task_matrix

__all__ = [
    "FAMILY_ATTR",
    "JOINED_ATTR",
    "PROPOSAL_ATTR",
    "WEIGHT_ATTR",
    "CosineDictionary",
    "DeltaBOSampler",
    "FamilyKernel",
    "FamilyMismatchWarning",
    "GPBOSampler",
    "GPUCBSampler",
    "IndependentSamplingWarning",
    "LIBOSampler",
    "MultiTaskSampler",
    "RecipeSampler",
    "SEDictionary",
    "complete_trials",
    "estimate_task_matrix",
    "fail_stale_running_trials",
    "join_family",
    "observed_history",
    "record_key",
    "recorded",
    "recorded_weight",
    "search_space_from_distributions",
    "study_direction",
]
