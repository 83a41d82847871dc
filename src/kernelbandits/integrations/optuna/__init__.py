"""Optuna samplers backed by kernelbandits policies (``pip install 'kernelbandits[optuna]'``).

:class:`GPUCBSampler` lets an Optuna study be driven by GP-UCB (Srinivas et al., 2010, "Gaussian
Process Optimization in the Bandit Setting: No Regret and Experimental Design") or by its improved
variant IGP-UCB (Chowdhury & Gopalan, 2017, "On Kernelized Multi-armed Bandits"; ``beta="theory"``),
or by BKB (budgeted kernelized bandits, ``policy="bkb"``)::

    import optuna
    from kernelbandits.integrations.optuna import GPUCBSampler

    study = optuna.create_study(sampler=GPUCBSampler(seed=0), storage="sqlite:///hpo.db")
    study.optimize(objective, n_trials=30)

The sampler is *stateless*: every proposal is rebuilt from the trials in the study's storage by
:meth:`kernelbandits.campaign.Campaign.from_trials` (a campaign is a pure function of its trial
history), so a study resumed from SQLite, even after its process was killed, continues exactly
as the uninterrupted run would have. See :class:`GPUCBSampler` for the rules.
"""

from kernelbandits.integrations.optuna._common import (
    IndependentSamplingWarning,
    complete_trials,
    fail_stale_running_trials,
    observed_history,
    search_space_from_distributions,
    study_direction,
)
from kernelbandits.integrations.optuna._deltabo import DeltaBOSampler
from kernelbandits.integrations.optuna._gpucb import GPUCBSampler
from kernelbandits.integrations.optuna._libo import (
    FAMILY_ATTR,
    CosineDictionary,
    FamilyKernel,
    FamilyMismatchWarning,
    LIBOSampler,
    SEDictionary,
    join_family,
)
from kernelbandits.integrations.optuna._multitask import (
    WEIGHT_ATTR,
    MultiTaskSampler,
    estimate_task_matrix,
)

__all__ = [
    "FAMILY_ATTR",
    "WEIGHT_ATTR",
    "CosineDictionary",
    "DeltaBOSampler",
    "FamilyKernel",
    "FamilyMismatchWarning",
    "GPUCBSampler",
    "IndependentSamplingWarning",
    "LIBOSampler",
    "MultiTaskSampler",
    "SEDictionary",
    "complete_trials",
    "estimate_task_matrix",
    "fail_stale_running_trials",
    "join_family",
    "observed_history",
    "search_space_from_distributions",
    "study_direction",
]
