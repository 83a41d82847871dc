"""Acquisitions bound to a posterior, and the one optimiser that maximises them.

* :mod:`~kernelbandits.acquisition.scores`: the math on marginal arrays (UCB, log EI, log PI
  and their partial derivatives);
* :mod:`~kernelbandits.acquisition.analytic`: :class:`UpperConfidenceBound`,
  :class:`ExpectedImprovement`, :class:`ProbabilityOfImprovement`, each built on a posterior
  (BoTorch's ``AcquisitionFunction(model)``) and evaluated at points, with gradients where the
  posterior has them; :func:`best_observed_mean`, the incumbent;
* :mod:`~kernelbandits.acquisition.thompson`: :class:`ThompsonSampling`;
* :mod:`~kernelbandits.acquisition.optimize`: :func:`maximize_acquisition` for any acquisition
  on any domain (grid, box, mixed search space through a projection), with
  :class:`BoxOptimizer` and :class:`SobolSearch`;
* :mod:`~kernelbandits.acquisition.multitask`: acquisitions bound to a multi-task posterior,
  :class:`ScalarizedUpperConfidenceBound`, :class:`ScalarizedExpectedImprovement` and
  :class:`ExpectedHypervolumeImprovement`;
* :mod:`~kernelbandits.acquisition.hypervolume`: :func:`expected_hypervolume_improvement` and
  the box decomposition it sums over, :func:`non_dominated_boxes`, and the non-dominated rows
  of a set of points, :func:`pareto_rows`;
* :mod:`~kernelbandits.acquisition.multistart`: :func:`minimize_independently`, independent
  L-BFGS-B searches from several starts, evaluated together (``BoxOptimizer``'s
  ``local_search="independent"``).
"""

from kernelbandits.acquisition.analytic import (
    Acquisition,
    AcquisitionName,
    ExpectedImprovement,
    PointwiseAcquisition,
    ProbabilityOfImprovement,
    UpperConfidenceBound,
    best_observed_mean,
    check_acquisition_name,
    pointwise_acquisition,
)
from kernelbandits.acquisition.hypervolume import (
    expected_hypervolume_improvement,
    log_expected_hypervolume_improvement,
    non_dominated_boxes,
    pareto_rows,
)
from kernelbandits.acquisition.multistart import minimize_independently
from kernelbandits.acquisition.multitask import (
    ExpectedHypervolumeImprovement,
    MultiTaskAcquisition,
    ScalarizedExpectedImprovement,
    ScalarizedUpperConfidenceBound,
)
from kernelbandits.acquisition.optimize import (
    BoxOptimizer,
    SobolSearch,
    argmax_random_tie,
    central_difference,
    maximize_acquisition,
    maximize_on_domain,
    maximize_score,
)
from kernelbandits.acquisition.scores import log_ei_score, log_h, log_pi_score, ucb_score
from kernelbandits.acquisition.thompson import ThompsonSampling

__all__ = [
    "Acquisition",
    "AcquisitionName",
    "BoxOptimizer",
    "ExpectedHypervolumeImprovement",
    "ExpectedImprovement",
    "MultiTaskAcquisition",
    "PointwiseAcquisition",
    "ProbabilityOfImprovement",
    "ScalarizedExpectedImprovement",
    "ScalarizedUpperConfidenceBound",
    "SobolSearch",
    "ThompsonSampling",
    "UpperConfidenceBound",
    "argmax_random_tie",
    "best_observed_mean",
    "central_difference",
    "check_acquisition_name",
    "expected_hypervolume_improvement",
    "log_ei_score",
    "log_expected_hypervolume_improvement",
    "log_h",
    "log_pi_score",
    "maximize_acquisition",
    "maximize_on_domain",
    "maximize_score",
    "minimize_independently",
    "non_dominated_boxes",
    "pareto_rows",
    "pointwise_acquisition",
    "ucb_score",
]
