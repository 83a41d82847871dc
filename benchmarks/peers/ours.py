"""kernelbandits' round: the incremental exact posterior with a tracked candidate cache.

Single task: ``GPPosterior`` + ``track(Xc)``, which keeps ``V = L^{-1} k(X_t, X_c)`` (t x m).
A round is ``post.add(x_j, y_j)`` (the new Cholesky row is read from the cache, then one row
``v = (k(x_j, X_c) - l^T V) / L_tt`` is appended and ``mean += v z``, ``var -= v^2``), then
the UCB argmax over the tracked mean and variance.

Multi-task: the ICM fast path ``vector_posterior(ICM(k, B), eta, d)``: ``r = rank(B)`` scalar GPs
in the eigenbasis ``U`` of ``B``, each with its own candidate cache, so a round reads ``r``
caches of ``t x m``. The per-task marginal variance is ``sum_r var_r U_ar^2`` and the mean
``sum_r mu_r U_ar``.
"""

from __future__ import annotations

import numpy as np

import kernelbandits.regression.gp as gp_module
from benchmarks.peers.contract import Config, Implementation, Posterior, ucb_scores
from kernelbandits.kernels import RBF
from kernelbandits.kernels.multitask import ICM
from kernelbandits.regression import GPPosterior, vector_posterior
from kernelbandits.regression.gp import CandidatePosterior
from kernelbandits.regression.multitask import (
    DecoupledCandidates,
    DecoupledPosterior,
    EigenPosterior,
)

#: warm-start observations are added in blocks of this size: the buffers then grow exactly as
#: in a one-at-a-time loop (capacities 64, 128, 256, ...) and the temporaries stay small
BUILD_BLOCK = 64


def capacity(size: int) -> int:
    """Rows held by the Cholesky buffer and a candidate cache after ``size`` observations added
    in blocks of at most 64: GPPosterior doubles its capacity from 64 (its cache was one
    contiguous buffer in earlier versions, 64-row blocks now; both give these numbers for
    t in {100, 500, 2000})."""
    cap = 64
    while cap < size:
        cap *= 2
    return cap


def _kernel(cfg: Config) -> RBF:
    return RBF(cfg.lengthscale, variance=cfg.variance)


def _ours_bytes(cfg: Config, rounds: int, components: int) -> float:
    cap = capacity(cfg.t + rounds)
    per_component = 8.0 * (cap * cfg.m + cap * cap + 8 * cfg.m)  # cache, L, m-vectors
    block = 8.0 * 4 * BUILD_BLOCK * cfg.m  # kernel block, L21^T V, rhs, solve
    return components * per_component + block + 8.0 * 4 * cfg.m * cfg.n


class OursSingle(Implementation):
    key = "kernelbandits"
    family = "kernelbandits"
    label = "GPPosterior + track"

    @classmethod
    def supports(cls, cfg: Config) -> bool:
        return cfg.n == 1

    @classmethod
    def estimate_bytes(cls, cfg: Config, rounds: int, budget_bytes: float) -> float:
        return _ours_bytes(cfg, rounds, 1)

    @property
    def cache_rank(self) -> int:
        return 1

    def build(self) -> None:
        p, cfg = self.problem, self.cfg
        self.post = GPPosterior(_kernel(cfg), noise_var=cfg.noise, input_dim=cfg.d)
        self.tracker: CandidatePosterior = self.post.track(p.Xc)
        y = p.Y[:, 0]
        for s in range(0, cfg.t, BUILD_BLOCK):
            self.post.add_batch(p.X[s : s + BUILD_BLOCK], y[s : s + BUILD_BLOCK])

    def posterior(self) -> Posterior:
        return self.tracker.mean[:, None], self.tracker.variance[:, None]

    def round(self, j: int) -> int:
        self.post.add(self.problem.Xc[j], float(self.problem.Yc[j, 0]))
        tr = self.tracker
        return int(np.argmax(tr.mean + 2.0 * np.sqrt(tr.variance)))

    def cache_nbytes(self) -> int:
        return self.post.cache_nbytes()

    def close(self) -> None:
        self.__dict__.pop("tracker", None)
        self.__dict__.pop("post", None)


class OursICM(Implementation):
    key = "kernelbandits"
    family = "kernelbandits"
    label = "vector_posterior(ICM) + track"

    @classmethod
    def supports(cls, cfg: Config) -> bool:
        return cfg.n > 1

    @classmethod
    def estimate_bytes(cls, cfg: Config, rounds: int, budget_bytes: float) -> float:
        # r = rank(B) = n for B = A^T A with a (generically) full-rank random A
        return _ours_bytes(cfg, rounds, cfg.n)

    @property
    def cache_rank(self) -> int:
        return len(self.post.components)

    def build(self) -> None:
        p, cfg = self.problem, self.cfg
        assert p.B is not None
        post = vector_posterior(ICM(_kernel(cfg), p.B), cfg.noise, cfg.d)
        assert isinstance(post, DecoupledPosterior)
        self.post = post
        U = post.directions  # (n, r)
        # the same trackers as post.track(Xc) builds, kept at hand for the acquisition
        self.trackers = [gp.track(p.Xc) for gp in post.components]
        self.cand = DecoupledCandidates(p.Xc, U, self.trackers)
        # warm start: VectorPosterior has no batch add, so each scalar GP of the decoupling
        # (App. A.2) gets its outputs Y u_r in blocks; this is exactly what t calls of
        # post.add(x, y) would store (post.n_observations and log_det_sum are not updated).
        for r, gp in enumerate(post.components):
            coords = p.Y @ U[:, r]
            for s in range(0, cfg.t, BUILD_BLOCK):
                gp.add_batch(p.X[s : s + BUILD_BLOCK], coords[s : s + BUILD_BLOCK])
        self._u_mean = U.mean(axis=0)  # task-averaged mean = sum_r mu_r mean_a(U_ar)
        self._u_sq = (U * U).T  # (r, n): per-task variance = sum_r var_r U_ar^2

    def posterior(self) -> Posterior:
        task_var = np.diagonal(self.cand.task_cov, axis1=1, axis2=2).copy()
        return self.cand.mean, task_var

    def round(self, j: int) -> int:
        self.post.add(self.problem.Xc[j], self.problem.Yc[j])
        mu = np.column_stack([tr.mean for tr in self.trackers])  # (m, r)
        var = np.column_stack([tr.variance for tr in self.trackers])  # (m, r)
        task_var_max = (var @ self._u_sq).max(axis=1)
        return int(np.argmax(mu @ self._u_mean + 2.0 * np.sqrt(np.maximum(task_var_max, 0.0))))

    def round_reference(self) -> int:
        """The same acquisition through the public (m, n) views (used by the tests)."""
        return int(np.argmax(ucb_scores(*self.posterior())))

    def cache_nbytes(self) -> int:
        return self.post.cache_nbytes()

    def close(self) -> None:
        for name in ("cand", "trackers", "post"):
            self.__dict__.pop(name, None)


class OursICMEigen(Implementation):
    """The cache-free ICM path (``vector_posterior(..., method="eigen")``, EigenPosterior): one
    eigen-decomposition of ``K_t`` per round shared by every direction (the Kronecker structure
    BoTorch's ``KroneckerMultiTaskGP`` also uses) and candidates in bounded chunks, so its
    memory is ``O(t^2)`` plus one ``(t, chunk)`` block whatever ``m`` and ``n``. Checked against
    the cached path like a peer."""

    key = "kernelbandits-eigen"
    family = "kernelbandits-eigen"
    label = "vector_posterior(ICM, method='eigen'), no cache"

    @classmethod
    def supports(cls, cfg: Config) -> bool:
        return cfg.n > 1

    @classmethod
    def estimate_bytes(cls, cfg: Config, rounds: int, budget_bytes: float) -> float:
        chunk = 3.0 * gp_module._CHUNK_BYTES  # the kernel block, W and W * W of one chunk
        return 8.0 * (3 * cfg.t**2 + 8 * cfg.m * cfg.n) + chunk

    @classmethod
    def estimate_seconds(cls, cfg: Config) -> float:
        t, m, n = cfg.t, cfg.m, cfg.n
        return (10.0 * t**3 + 2.0 * t * t * m + 4.0 * n * t * m) / 2e10

    def build(self) -> None:
        p, cfg = self.problem, self.cfg
        assert p.B is not None
        post = vector_posterior(ICM(_kernel(cfg), p.B), cfg.noise, cfg.d, method="eigen")
        assert isinstance(post, EigenPosterior)
        post.add_batch(p.X, p.Y)
        self.post = post
        self.view = post.track(p.Xc)

    def posterior(self) -> Posterior:
        return self.view.mean, self.view.task_var

    def round(self, j: int) -> int:
        self.post.add(self.problem.Xc[j], self.problem.Yc[j])
        return int(np.argmax(ucb_scores(self.view.mean, self.view.task_var)))

    def close(self) -> None:
        for name in ("view", "post"):
            self.__dict__.pop(name, None)
