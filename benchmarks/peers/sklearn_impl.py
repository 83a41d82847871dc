"""scikit-learn peer (single task only): ``GaussianProcessRegressor`` with the kernel
``ConstantKernel(variance, "fixed") * RBF(lengthscale, "fixed")``, ``alpha = noise``,
``optimizer=None``, ``normalize_y=False``. A round refits on the t + 1 points (one Cholesky) and
calls ``predict(Xc, return_std=True)`` (chunked when the ``t x m`` working set would exceed half
the memory budget)."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel

from benchmarks.peers.contract import Config, Implementation, Posterior, chunk_rows

_NUMPY_RATE = 2e10  # effective flop / s of the cost model (fitted), only to skip hopeless cells


class SklearnGPR(Implementation):
    key = "sklearn"
    family = "sklearn"
    label = "GaussianProcessRegressor, refit"

    @classmethod
    def supports(cls, cfg: Config) -> bool:
        return cfg.n == 1

    @classmethod
    def _row_bytes(cls, cfg: Config) -> float:
        return 8.0 * 3 * cfg.t  # K(Xc, X), L^{-1} K(X, Xc) and the squared sum

    @classmethod
    def estimate_bytes(cls, cfg: Config, rounds: int, budget_bytes: float) -> float:
        rows = chunk_rows(cfg.m, cls._row_bytes(cfg), budget_bytes / 2)
        return 8.0 * 3 * cfg.t**2 + rows * cls._row_bytes(cfg)

    @classmethod
    def estimate_seconds(cls, cfg: Config) -> float:
        t, m = cfg.t, cfg.m
        return (t**3 / 3 + t * t * m + 20.0 * t * m) / _NUMPY_RATE

    def build(self) -> None:
        self.X = self.problem.X.copy()
        self.y = self.problem.Y[:, 0].copy()
        self._last: Posterior | None = None

    def _fit_predict(self) -> tuple[np.ndarray, np.ndarray]:
        cfg = self.cfg
        kernel = ConstantKernel(cfg.variance, "fixed") * RBF(cfg.lengthscale, "fixed")
        gpr = GaussianProcessRegressor(
            kernel=kernel, alpha=cfg.noise, optimizer=None, normalize_y=False, copy_X_train=False
        )
        gpr.fit(self.X, self.y)
        Xc, step = self.problem.Xc, chunk_rows(cfg.m, self._row_bytes(cfg), self.budget_bytes / 2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "predicted variances smaller than 0" (clipped)
            parts = [gpr.predict(Xc[s : s + step], return_std=True) for s in range(0, cfg.m, step)]
        mean = np.concatenate([p[0] for p in parts])
        sd = np.concatenate([p[1] for p in parts])
        return mean, sd

    def posterior(self) -> Posterior:
        mean, sd = self._fit_predict()
        return mean[:, None], (sd * sd)[:, None]

    def round(self, j: int) -> int:
        self.X = np.vstack([self.X, self.problem.Xc[j]])
        self.y = np.append(self.y, self.problem.Yc[j, 0])
        mean, sd = self._fit_predict()
        self._last = (mean, sd)
        return int(np.argmax(mean + 2.0 * sd))

    def last_posterior(self) -> Posterior:
        if self._last is None:
            return self.posterior()
        mean, sd = self._last
        return mean[:, None], (sd * sd)[:, None]

    def close(self) -> None:
        self._last = None
