"""BoTorch / GPyTorch peers at fixed hyperparameters, float64, exact inference.

* ``SingleTaskGP`` (n = 1): ``ScaleKernel(RBFKernel)`` with the lengthscale and outputscale set,
  ``ZeroMean``, ``GaussianLikelihood`` with the noise set, no outcome or input transform. Two
  round strategies: *rebuild* (a new model on the t + 1 points, then ``posterior(Xc)``) and
  *fantasy* (``condition_on_observations(x, y)`` on the previous round's model, then
  ``posterior(Xc)``).
* ``KroneckerMultiTaskGP`` (n > 1, all tasks observed at each x): data kernel as above, task
  covariance ``IndexKernel`` with ``covar_factor = A^T`` (so ``F F^T = A^T A = B``) and
  ``var = 1e-12``, ``MultitaskGaussianLikelihood(rank=0, has_global_noise=False)`` with every task
  noise ``= eta``, zero constant means. Rebuild only: ``condition_on_observations`` raises a
  ``RuntimeError`` inside GPyTorch for this model (botorch 0.18.1 / gpytorch 1.15.2).
* ``MultiTaskGP`` (Hadamard form, n > 1): ``t n`` training rows with a task-index column,
  ``PositiveIndexKernel`` with ``covar_factor = A^T`` (entries of ``A`` are >= 0), ``var = 1e-12``
  and ``unit_scale_for_target = False`` (so the task matrix is ``B``, not ``B / B_00``),
  ``train_Yvar = eta``, ``ZeroMean``. Rebuild and fantasy.

Exactness: ``fast_pred_var(False)`` everywhere (no LOVE). Dense models run with
``fast_computations(False, False, False)`` and ``max_cholesky_size(10**9)`` (Cholesky solves,
never CG/Lanczos). The Kronecker model runs with ``fast_computations(solves=True)`` and the
default ``max_cholesky_size``: its solves then take the Kronecker eigen-decomposition path
(exact; the Cholesky setting would densify the ``nt x nt`` matrix). The agreement check to 1e-6
against kernelbandits is what certifies all of this.

The candidate posterior is always computed in chunks: GPyTorch's exact prediction evaluates the
dense test-by-test covariance of the whole batch (``ExactGP.__call__`` ->
``evaluate_kernel()``), i.e. O(m^2) memory for ``posterior(Xc)`` in one call (6 GB at m = 2e4),
and the Kronecker model's ``posterior`` builds a joint root of the train + test covariance,
cubic in ``t + chunk``. Chunk sizes (see ``_dense_chunk`` and ``KroneckerRebuild.chunk_size``)
were picked by sweeps on this machine to minimise the round time, within the memory budget.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Iterator
from typing import Any

import gpytorch
import numpy as np
import torch
from botorch.models import KroneckerMultiTaskGP, MultiTaskGP, SingleTaskGP
from gpytorch.kernels import RBFKernel, ScaleKernel
from gpytorch.likelihoods import GaussianLikelihood, MultitaskGaussianLikelihood
from gpytorch.means import ZeroMean

from benchmarks.peers.contract import Config, Implementation, Posterior

DTYPE = torch.float64
#: the diagonal part of the IndexKernel (must be > 0); the task matrix is B + TASK_VAR I
TASK_VAR = 1e-12
#: effective rates (flop / s, one thread, MKL) of the cost models below, fitted to measured first
#: posteriors on the benchmark machine (they err on the fast side: a cell is skipped without
#: running only when even an optimistic estimate is hopeless)
_SINGLE_RATE = 3e10
_MULTI_RATE = 2e10


def _t(a: Any) -> torch.Tensor:
    return torch.as_tensor(np.asarray(a, dtype=float), dtype=DTYPE)


@contextlib.contextmanager
def exact_settings(kronecker: bool = False) -> Iterator[None]:
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.no_grad())
        stack.enter_context(warnings.catch_warnings())
        warnings.simplefilter("ignore")
        stack.enter_context(gpytorch.settings.fast_pred_var(False))
        if kronecker:
            stack.enter_context(
                gpytorch.settings.fast_computations(
                    covar_root_decomposition=False, log_prob=False, solves=True
                )
            )
        else:
            stack.enter_context(gpytorch.settings.max_cholesky_size(10**9))
            stack.enter_context(
                gpytorch.settings.fast_computations(
                    covar_root_decomposition=False, log_prob=False, solves=False
                )
            )
        yield


def _dense_chunk_bytes(rows: int, N: int) -> float:
    """Working set of one exact ``posterior`` call on ``rows`` test rows against ``N`` training
    rows: GPyTorch evaluates the dense ``rows x rows`` test covariance (ExactGP.__call__), plus
    the ``rows x N`` cross-covariance, its Cholesky solve and the diagonal product."""
    return 8.0 * (2.0 * rows * rows + 4.0 * rows * N)


def _dense_chunk(m: int, n: int, N: int, budget_bytes: float) -> int:
    """Candidates per ``posterior`` call: about ``1.5 N`` test rows (``n`` rows per candidate),
    within [200, 10000] rows — the fastest in a sweep at t = 100, 500, 2000, m = 1e4 (each call
    refactorises the training covariance; the test covariance is quadratic in the chunk) — and
    within a quarter of the memory budget."""
    rows = min(10_000, max(200, 3 * N // 2))
    while rows > 16 and _dense_chunk_bytes(rows, N) > budget_bytes / 4:
        rows //= 2
    return max(1, min(m, rows // n))


def _data_kernel(cfg: Config) -> ScaleKernel:
    return ScaleKernel(RBFKernel()).to(DTYPE)


def _set_data_kernel(kernel: Any, cfg: Config) -> None:
    # set after the model is in float64: a Python float would be rounded through float32
    kernel.base_kernel.lengthscale = _t(cfg.lengthscale)
    kernel.outputscale = _t(cfg.variance)


class _TorchImpl(Implementation):
    family = "botorch"
    kronecker = False
    strategy = "rebuild"

    def __init__(self, problem: Any, cfg: Config, budget_bytes: float = 8e9) -> None:
        super().__init__(problem, cfg, budget_bytes)
        self._last: tuple[torch.Tensor, torch.Tensor] | None = None

    # -- model-specific pieces ----------------------------------------------------------------
    def _make_model(self, X: torch.Tensor, Y: torch.Tensor) -> Any:
        raise NotImplementedError

    def _chunk(self) -> int:
        return self.cfg.m

    def _condition(self, model: Any, j: int) -> Any:
        raise NotImplementedError

    # -- shared -------------------------------------------------------------------------------
    def build(self) -> None:
        p = self.problem
        self.tX, self.tY = _t(p.X), _t(p.Y)
        self.tXc, self.tYc = _t(p.Xc), _t(p.Yc)
        with exact_settings(self.kronecker):
            self.model = self._make_model(self.tX, self.tY)

    def _posterior(self, model: Any) -> tuple[torch.Tensor, torch.Tensor]:
        step = self._chunk()
        means, variances = [], []
        for s in range(0, self.cfg.m, step):
            post = model.posterior(self.tXc[s : s + step])
            means.append(post.mean)
            variances.append(post.variance)
        mean = means[0] if len(means) == 1 else torch.cat(means)
        var = variances[0] if len(variances) == 1 else torch.cat(variances)
        return mean.reshape(self.cfg.m, -1), var.reshape(self.cfg.m, -1)

    def posterior(self) -> Posterior:
        with exact_settings(self.kronecker):
            mean, var = self._posterior(self.model)
        return mean.numpy().copy(), var.numpy().copy()

    def prime(self) -> None:
        if self.strategy == "fantasy":
            self.posterior()

    def round(self, j: int) -> int:
        with exact_settings(self.kronecker):
            if self.strategy == "fantasy":
                self.model = self._condition(self.model, j)
            else:
                self.tX = torch.cat([self.tX, self.tXc[j : j + 1]])
                self.tY = torch.cat([self.tY, self.tYc[j : j + 1]])
                self.model = self._make_model(self.tX, self.tY)
            mean, var = self._posterior(self.model)
            score = mean.mean(dim=1) + 2.0 * var.max(dim=1).values.clamp_min(0.0).sqrt()
            self._last = (mean, var)
            return int(torch.argmax(score))

    def last_posterior(self) -> Posterior:
        if self._last is None:
            return self.posterior()
        return self._last[0].numpy().copy(), self._last[1].numpy().copy()

    def close(self) -> None:
        self._last = None
        for name in ("model", "tX", "tY", "tXc", "tYc"):
            self.__dict__.pop(name, None)


# -- single task ------------------------------------------------------------------------------
class _Single(_TorchImpl):
    @classmethod
    def supports(cls, cfg: Config) -> bool:
        return cfg.n == 1

    @classmethod
    def chunk_size(cls, cfg: Config, budget_bytes: float) -> int:
        return _dense_chunk(cfg.m, 1, cfg.t, budget_bytes)

    @classmethod
    def estimate_bytes(cls, cfg: Config, rounds: int, budget_bytes: float) -> float:
        c = cls.chunk_size(cfg, budget_bytes)
        return 8.0 * 4 * cfg.t**2 + _dense_chunk_bytes(c, cfg.t)

    @classmethod
    def estimate_seconds(cls, cfg: Config) -> float:
        t, m = cfg.t, cfg.m
        c = cls.chunk_size(cfg, 8e9)
        return (math.ceil(m / c) * t**3 / 3 + 2.0 * t * t * m + 30.0 * m * c) / _SINGLE_RATE

    def _chunk(self) -> int:
        return self.chunk_size(self.cfg, self.budget_bytes)

    def _make_model(self, X: torch.Tensor, Y: torch.Tensor) -> Any:
        cfg = self.cfg
        kernel = _data_kernel(cfg)
        likelihood = GaussianLikelihood().to(DTYPE)
        model = SingleTaskGP(
            X,
            Y,
            likelihood=likelihood,
            covar_module=kernel,
            mean_module=ZeroMean(),
            outcome_transform=None,
            input_transform=None,
        )
        _set_data_kernel(kernel, cfg)
        likelihood.noise = _t(cfg.noise)
        return model.eval()

    def _condition(self, model: Any, j: int) -> Any:
        return model.condition_on_observations(self.tXc[j : j + 1], self.tYc[j : j + 1])


class SingleRebuild(_Single):
    key = "botorch-single-rebuild"
    label = "SingleTaskGP, rebuild"
    strategy = "rebuild"


class SingleFantasy(_Single):
    key = "botorch-single-fantasy"
    label = "SingleTaskGP, condition_on_observations"
    strategy = "fantasy"


# -- multi-task, Kronecker ----------------------------------------------------------------------
class KroneckerRebuild(_TorchImpl):
    key = "botorch-kronecker-rebuild"
    label = "KroneckerMultiTaskGP, rebuild"
    kronecker = True
    strategy = "rebuild"

    @classmethod
    def supports(cls, cfg: Config) -> bool:
        return cfg.n > 1

    @classmethod
    def _chunk_bytes(cls, cfg: Config, c: int) -> float:
        # dense (c n x t n) Kronecker-Hadamard term, joint root of (t + c) and its pseudo-inverse
        return 8.0 * (2.0 * c * cfg.n**2 * cfg.t + 5.0 * (cfg.t + c) ** 2 + 3.0 * c * cfg.t)

    @classmethod
    def chunk_size(cls, cfg: Config, budget_bytes: float) -> int:
        c = min(cfg.m, max(200, cfg.t // 2))
        while c > 16 and cls._chunk_bytes(cfg, c) > budget_bytes / 4:
            c //= 2
        return c

    @classmethod
    def estimate_bytes(cls, cfg: Config, rounds: int, budget_bytes: float) -> float:
        c = cls.chunk_size(cfg, budget_bytes)
        return 8.0 * (8.0 * cfg.t**2 + 4.0 * cfg.m * cfg.n) + cls._chunk_bytes(cfg, c)

    @classmethod
    def estimate_seconds(cls, cfg: Config) -> float:
        t, m, n = cfg.t, cfg.m, cfg.n
        c = cls.chunk_size(cfg, 8e9)
        per_chunk = 2.0 * (t + c) ** 3 + 2.0 * c * t * t + 2.0 * c * n * n * t
        return (10.0 * t**3 + math.ceil(m / c) * per_chunk) / _MULTI_RATE

    def _chunk(self) -> int:
        return self.chunk_size(self.cfg, self.budget_bytes)

    def _make_model(self, X: torch.Tensor, Y: torch.Tensor) -> Any:
        cfg, A = self.cfg, self.problem.A
        assert A is not None
        likelihood = MultitaskGaussianLikelihood(
            num_tasks=cfg.n, rank=0, has_global_noise=False
        ).to(DTYPE)
        kernel = _data_kernel(cfg)
        model = KroneckerMultiTaskGP(
            X,
            Y,
            likelihood=likelihood,
            data_covar_module=kernel,
            rank=cfg.n,
            outcome_transform=None,
            input_transform=None,
        )
        _set_data_kernel(kernel, cfg)
        likelihood.task_noises = _t(np.full(cfg.n, cfg.noise))
        task = model.covar_module.task_covar_module
        task.covar_factor.data.copy_(_t(A.T))  # F F^T = A^T A = B
        task.var = _t(np.full(cfg.n, TASK_VAR))
        for mean in model.mean_module.base_means:
            mean.constant = _t(0.0)
        return model.eval()


# -- multi-task, Hadamard (MultiTaskGP) -----------------------------------------------------------
class _Hadamard(_TorchImpl):
    @classmethod
    def supports(cls, cfg: Config) -> bool:
        return cfg.n > 1

    @classmethod
    def chunk_size(cls, cfg: Config, budget_bytes: float) -> int:
        return _dense_chunk(cfg.m, cfg.n, cfg.n * cfg.t, budget_bytes)

    @classmethod
    def estimate_bytes(cls, cfg: Config, rounds: int, budget_bytes: float) -> float:
        N, c = cfg.n * cfg.t, cls.chunk_size(cfg, budget_bytes)
        return 8.0 * 4 * N * N + _dense_chunk_bytes(c * cfg.n, N)

    @classmethod
    def estimate_seconds(cls, cfg: Config) -> float:
        N, q = cfg.n * cfg.t, cfg.n * cfg.m
        c = cls.chunk_size(cfg, 8e9)
        chunks = math.ceil(cfg.m / c)
        return (chunks * N**3 / 3 + 2.0 * N * N * q + 30.0 * q * c * cfg.n) / _MULTI_RATE

    def _chunk(self) -> int:
        return self.chunk_size(self.cfg, self.budget_bytes)

    def _rows(self, X: torch.Tensor, Y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Point-major rows ``(x_i, task a)`` and their ``(t n, 1)`` targets."""
        n = self.cfg.n
        tasks = torch.arange(n, dtype=DTYPE).repeat(X.shape[0])[:, None]
        return torch.cat([X.repeat_interleave(n, dim=0), tasks], dim=1), Y.reshape(-1, 1)

    def _make_model(self, X: torch.Tensor, Y: torch.Tensor) -> Any:
        cfg, A = self.cfg, self.problem.A
        assert A is not None
        Xr, Yr = self._rows(X, Y)
        kernel = _data_kernel(cfg)
        model = MultiTaskGP(
            Xr,
            Yr,
            task_feature=-1,
            train_Yvar=torch.full_like(Yr, cfg.noise),
            mean_module=ZeroMean(),
            covar_module=kernel,
            task_covar_prior=None,
            rank=cfg.n,
            outcome_transform=None,
            input_transform=None,
        )
        _set_data_kernel(kernel, cfg)
        task = model.covar_module.kernels[1]
        task.unit_scale_for_target = False  # use B itself, not B / B_00
        task.covar_factor = _t(A.T)  # >= 0 entries, as PositiveIndexKernel requires
        task.var = _t(np.full(cfg.n, TASK_VAR))
        return model.eval()

    def _condition(self, model: Any, j: int) -> Any:
        Xr, Yr = self._rows(self.tXc[j : j + 1], self.tYc[j : j + 1])
        return model.condition_on_observations(Xr, Yr, noise=torch.full_like(Yr, self.cfg.noise))


class HadamardRebuild(_Hadamard):
    key = "botorch-multitask-rebuild"
    label = "MultiTaskGP, rebuild"
    strategy = "rebuild"


class HadamardFantasy(_Hadamard):
    key = "botorch-multitask-fantasy"
    label = "MultiTaskGP, condition_on_observations"
    strategy = "fantasy"


SINGLE = [SingleRebuild, SingleFantasy]
MULTITASK = [KroneckerRebuild, HadamardRebuild, HadamardFantasy]
