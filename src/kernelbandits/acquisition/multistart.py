"""Independent L-BFGS-B searches from several starts whose function calls are evaluated together.

A multi-start local search of an acquisition wants two things at once: each start's search
should be its own (its own quasi-Newton curvature and line search, so that a start on a narrow
mode is not thrown out of it by a step sized for another start), and the acquisition should be
evaluated on all the current points in one vectorised call (one posterior solve for ``k``
points costs about what one point costs). Maximising the *sum* over the starts in ``k * d``
variables (:class:`~kernelbandits.acquisition.BoxOptimizer`'s ``local_search="joint"``, as
BoTorch's ``gen_candidates_scipy``) gets the second and gives up the first: the searches share
one line search and one curvature estimate.

:func:`minimize_independently` keeps both. Each start runs its own
``scipy.optimize.minimize(method="L-BFGS-B")`` in a thread; the objective each one calls posts
its point and waits; when every search still running has posted, the last to arrive evaluates
all of them in one call and wakes the others (Optuna's ``batched_lbfgsb`` does the same with
greenlets). A round holds exactly one call of each running search, so the rounds, and hence the
results, do not depend on how the threads are scheduled: the same starts give the same end
points, bit for bit, as ``k`` separate runs would if the vectorised evaluation gives each row
the value it would get alone (tested on a closed-form objective).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np
from scipy.optimize import minimize

from kernelbandits._validation import FloatArray, check_count, numeric_array, require_finite

__all__ = ["minimize_independently"]

#: ``(X (m, d)) -> (values (m,), gradients (m, d))``, to be minimised row by row
BatchObjective = Callable[[FloatArray], tuple[FloatArray, FloatArray]]


class _Rounds:
    """The meeting point of the searches: collects one point per running search, evaluates the
    batch when all have posted, hands each its value and gradient."""

    def __init__(self, fun: BatchObjective, n: int) -> None:
        self.fun = fun
        self.running = n
        self.posted: dict[int, FloatArray] = {}
        self.answers: dict[int, tuple[float, FloatArray]] = {}
        self.error: BaseException | None = None
        self.cond = threading.Condition()

    def _evaluate_if_complete(self) -> None:
        # caller holds the lock
        if not self.posted or len(self.posted) < self.running:
            return
        ids = sorted(self.posted)
        try:
            values, grads = self.fun(np.array([self.posted[i] for i in ids]))
            values = np.asarray(values, dtype=float).reshape(len(ids))
            grads = np.asarray(grads, dtype=float).reshape(len(ids), -1)
            for row, i in enumerate(ids):
                self.answers[i] = (float(values[row]), grads[row].copy())
        except BaseException as exc:  # handed to every search, re-raised by the caller
            self.error = exc
        self.posted.clear()
        self.cond.notify_all()

    def call(self, i: int, x: FloatArray) -> tuple[float, FloatArray]:
        with self.cond:
            if self.error is not None:
                raise _Stop
            self.posted[i] = np.array(x, dtype=float)
            self._evaluate_if_complete()
            while i not in self.answers and self.error is None:
                self.cond.wait()
            if self.error is not None:
                raise _Stop
            return self.answers.pop(i)

    def finished(self) -> None:
        with self.cond:
            self.running -= 1
            self._evaluate_if_complete()


class _Stop(Exception):
    """Ends a search whose batch failed (the failure itself is re-raised by the caller)."""


def minimize_independently(
    fun: BatchObjective,
    starts: FloatArray,
    bounds: FloatArray,
    maxiter: int,
) -> tuple[FloatArray, FloatArray]:
    """Minimise ``fun`` from each row of ``starts (k, d)`` by its own L-BFGS-B search within
    ``bounds (d, 2)``, at most ``maxiter`` iterations each, evaluating the searches' points
    together (module notes). ``fun`` maps ``X (m, d)`` to ``(values (m,), gradients (m, d))``
    row by row and must be finite. Returns the end points ``(k, d)`` and their values ``(k,)``.
    An exception raised by ``fun`` stops every search and is raised here; ``ValueError`` for
    starts that are not a finite ``(k, d)`` array, bounds that are not ``(d, 2)`` with
    ``lower <= upper``, or ``maxiter < 1``."""
    X0 = numeric_array(starts, "starts", "a finite (k, d) array of numbers")
    if X0.ndim != 2:
        raise ValueError(f"starts must be a finite (k, d) array; got shape {X0.shape}")
    require_finite(X0, "starts")
    B = numeric_array(bounds, "bounds", "a (d, 2) array of numbers")
    if B.shape != (X0.shape[1], 2) or not np.all(B[:, 0] <= B[:, 1]):
        raise ValueError(
            f"bounds must be a (d, 2) array of (lower, upper) with lower <= upper, d = "
            f"{X0.shape[1]}; got shape {B.shape}"
        )
    maxiter = check_count(maxiter, "maxiter")
    k = X0.shape[0]
    ends = X0.copy()
    end_values = np.full(k, np.inf)
    if k == 0:
        return ends, end_values
    rounds = _Rounds(fun, k)

    def search(i: int) -> None:
        try:
            res = minimize(
                lambda x: rounds.call(i, x),
                X0[i],
                jac=True,
                method="L-BFGS-B",
                bounds=B,
                options={"maxiter": maxiter},
            )
            ends[i], end_values[i] = res.x, res.fun
        except _Stop:
            pass
        except BaseException as exc:  # scipy's own failure: stop every search, raise below
            with rounds.cond:
                rounds.error = rounds.error or exc
                rounds.cond.notify_all()
        finally:
            rounds.finished()

    threads = [threading.Thread(target=search, args=(i,), daemon=True) for i in range(k)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if rounds.error is not None:
        raise rounds.error
    return ends, end_values
