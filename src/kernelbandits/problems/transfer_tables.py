"""Transfer problems from lookup tables: the target is a table, the source data drawn from one.

A :class:`~kernelbandits.datasets.transfer_automl.TransferTable` scores one fixed set of
configurations on a source and on a target task. :func:`tabular_transfer_problem` plays the
target on the :class:`~kernelbandits.domains.Grid` of those configurations (every evaluation is
a lookup, noise-free, so the optimum and the regret are exact) and hands the policy ``N`` source
observations at configurations drawn without replacement from the same grid, as in Lin, Zhao,
Kolar & Liu, Sec. 6.2 (``N = 90`` source points, ``T = 30`` target rounds).
"""

from __future__ import annotations

import numpy as np

from kernelbandits._validation import FloatArray, check_nonnegative
from kernelbandits.datasets.transfer_automl import TransferTable
from kernelbandits.domains import Grid
from kernelbandits.problems.base import FunctionProblem
from kernelbandits.problems.multiobjective import tabular_values
from kernelbandits.problems.transfer import TransferProblem, sample_source


def _lookup_problem(domain: Grid, values: FloatArray, name: str) -> FunctionProblem:
    """A noise-free problem whose value at grid point ``k`` is ``values[k]``."""
    lookup = tabular_values(domain, values[:, None])  # (m, 1) table

    def f(X: FloatArray) -> FloatArray:
        return lookup(X)[:, 0]

    return FunctionProblem(f, domain, noise_std=0.0, name=name)


def tabular_transfer_problem(
    table: TransferTable, n_source: int, seed: int, source_noise_std: float = 0.0
) -> TransferProblem:
    """The target of ``table`` as a lookup problem, with ``n_source`` source observations.

    Args:
        table: configurations ``(m, d)`` with source and target scores ``(m,)``.
        n_source: ``N``, the number of source observations (``0 <= N <= m``).
        seed: draws the source configurations (uniformly, without replacement) and then their
            noise, from ``numpy.random.default_rng(seed)``: the same seed gives the same source
            set whatever ``source_noise_std`` is.
        source_noise_std: ``sigma_0``; the source observations are ``source[k] + sigma_0
            N(0, 1)`` (default 0: the table's scores), and ``SourceData.noise_var`` is
            ``sigma_0^2``.

    Returns:
        A :class:`TransferProblem` named ``transfer-<model>`` whose target is noise-free on the
        grid of ``table.configs`` (optimum ``table.best_target``, exact) and whose
        ``source_problem`` is the source table as a lookup problem on the same grid.

    Raises:
        ValueError: ``n_source`` is negative or larger than the table, or a negative noise.
    """
    noise = check_nonnegative(source_noise_std, "source_noise_std")
    domain = Grid(table.configs)
    target = _lookup_problem(domain, np.asarray(table.target, dtype=float), f"{table.model}-target")
    source_problem = _lookup_problem(
        domain, np.asarray(table.source, dtype=float), f"{table.model}-source"
    )
    rng = np.random.default_rng(int(seed))
    source = sample_source(source_problem, n_source, noise, rng)
    return TransferProblem(target, source, source_problem, name=f"transfer-{table.model}")
