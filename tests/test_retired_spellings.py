"""The call forms the model layer retired (issue 34) still work for one release, each with a
``DeprecationWarning`` naming the new spelling, and give what the new spelling gives.

The first case is a user's script from the previous guide (``docs/guide/index.md``, "Your own
policy"), run as it was written."""

from __future__ import annotations

import numpy as np
import pytest

from kernelbandits import Box, Grid
from kernelbandits.acquisition import (
    ExpectedImprovement,
    SobolSearch,
    ThompsonSampling,
    UpperConfidenceBound,
    argmax_random_tie,
    maximize_acquisition,
    maximize_on_domain,
    maximize_score,
)
from kernelbandits.kernels import RBF
from kernelbandits.policies import EnvGP, Policy, PolicyTags, check_policy
from kernelbandits.regression import GPPosterior, NystromPosterior

GRID = Grid.linspace(0.0, 1.0, 21)
RNG = np.random.default_rng(0)
X = RNG.uniform(size=(6, 1))
Y = np.sin(6 * X[:, 0])


def _gp() -> GPPosterior:
    post = GPPosterior(RBF(0.2), 0.01, input_dim=1)
    post.add_batch(X, Y)
    return post


def test_the_previous_guides_own_policy_still_runs_and_passes_the_contract() -> None:
    class NearestNeighbourUCB(Policy):  # verbatim from the guide before issue 34
        capabilities = PolicyTags(posterior=True)

        def mean_sd(self, X):
            X = np.atleast_2d(X)
            if not self._X:
                return np.zeros(len(X)), np.ones(len(X))
            dist = np.linalg.norm(X[:, None, :] - self.X_observed[None, :, :], axis=2)
            nearest = dist.argmin(axis=1)
            return self.y_observed[nearest], dist[np.arange(len(X)), nearest]

        def _propose(self):
            acq = UpperConfidenceBound(2.0)
            return maximize_on_domain(self.domain, lambda X: acq(*self.mean_sd(X)), self.rng)

        def _update(self, x, y):
            pass

    with pytest.warns(DeprecationWarning, match="UpperConfidenceBound"):
        checks = check_policy(lambda domain, seed: NearestNeighbourUCB(domain, seed=seed))
    assert checks  # every check passed


def test_unbound_acquisitions_score_marginals_as_before() -> None:
    mu, sd = np.array([0.0, 1.0, 2.0]), np.array([1.0, 0.5, 0.1])
    with pytest.warns(DeprecationWarning, match=r"UpperConfidenceBound\(posterior, width\)"):
        ucb = UpperConfidenceBound(2.0)
    with pytest.warns(DeprecationWarning, match=r"acquisition.score\(mu, sd\)"):
        np.testing.assert_array_equal(ucb(mu, sd), mu + 2.0 * sd)
    with pytest.warns(DeprecationWarning, match="ExpectedImprovement"):
        ei = ExpectedImprovement(0.5, 0.1)
    bound = ExpectedImprovement(_gp(), 0.5, 0.1)
    assert (ei.incumbent, ei.xi) == (bound.incumbent, bound.xi)
    with pytest.warns(DeprecationWarning, match=r"\.transformed\(\)"):
        np.testing.assert_array_equal(ei.with_gradient(mu, sd)[0], bound.transformed(mu, sd)[0])


def test_thompson_propose_is_the_bound_samplers_choice() -> None:
    post = _gp()
    with pytest.warns(DeprecationWarning, match=r"ThompsonSampling\(posterior"):
        old = ThompsonSampling()
    with pytest.warns(DeprecationWarning, match="maximize_acquisition"):
        x_old = old.propose(
            GRID, lambda Z: post.sample(Z, 1, rng_a)[0], rng_a := np.random.default_rng(3)
        )
    x_new = maximize_acquisition(ThompsonSampling(post), GRID, np.random.default_rng(3))
    np.testing.assert_array_equal(x_old, x_new)


def test_renamed_posterior_methods_warn_and_agree() -> None:
    post = _gp()
    tracked = post.track(GRID.points)
    sketch = NystromPosterior(RBF(0.2), 0.01, X, X, Y)
    pairs = [
        (lambda: post.var(GRID.points), lambda: post.variance(GRID.points)),
        (lambda: post.cov(GRID.points), lambda: post.covariance(GRID.points)),
        (lambda: tracked.var, lambda: tracked.variance),
        (lambda: tracked.cov(), lambda: tracked.covariance()),
        (lambda: sketch.mean_and_variance(GRID.points), lambda: sketch.predict(GRID.points)),
    ]
    for old, new in pairs:
        with pytest.warns(DeprecationWarning, match="deprecated"):
            got = old()
        np.testing.assert_array_equal(np.asarray(got), np.asarray(new()))


def test_retired_domain_methods_and_maximize_on_domain_warn_and_agree() -> None:
    values = np.cos(np.arange(len(GRID)))
    with pytest.warns(DeprecationWarning, match="argmax_random_tie"):
        j = GRID.argmax(values, np.random.default_rng(1))
    assert j == argmax_random_tie(values, np.random.default_rng(1))
    score = lambda Z: -np.sum((Z - 0.3) ** 2, axis=1)  # noqa: E731
    box = Box([0.0, 0.0], [1.0, 1.0])
    with pytest.warns(DeprecationWarning, match="maximize_score"):
        x_old = box.maximize(score, np.random.default_rng(2))
    x_new = SobolSearch().maximize(score, box, np.random.default_rng(2))
    np.testing.assert_array_equal(x_old, x_new)
    with pytest.warns(DeprecationWarning, match="maximize_on_domain"):
        g_old = maximize_on_domain(GRID, lambda Z: Z[:, 0], np.random.default_rng(0))
    np.testing.assert_array_equal(g_old, maximize_score(GRID, lambda Z: Z[:, 0], None))


def test_mean_sd_without_points_is_the_grid_and_warns() -> None:
    source = (X, Y, 0.01)
    policy = EnvGP(GRID, RBF(0.2), source, 0.01, 2.0, seed=0)
    policy.tell(GRID.points[3], 0.2)
    with pytest.warns(DeprecationWarning, match=r"mean_sd\(grid.points\)"):
        mu, sd = policy.mean_sd()
    np.testing.assert_allclose(mu, policy.mean_sd(GRID.points)[0], atol=1e-12)
    np.testing.assert_allclose(sd, policy.mean_sd(GRID.points)[1], atol=1e-12)


def test_a_box_with_a_search_budget_warns_and_searches_as_the_policys_optimizer_does() -> None:
    """``Box(lower, upper, n_candidates, n_refine)`` (the budget on the domain, before domains
    became geometry only) proposes what ``optimizer=SobolSearch(n_candidates, n_refine)`` on a
    plain box proposes; the budget really is used (another budget proposes elsewhere)."""
    from kernelbandits.policies import GPUCB

    def proposals(box: Box, **options: object) -> np.ndarray:
        policy = GPUCB(box, RBF(0.3), 0.01, seed=4, **options)  # type: ignore[arg-type]
        for _ in range(4):
            x = policy.ask()
            policy.tell(x, float(np.sin(5 * x[0]) * np.cos(3 * x[1])))
        return policy.X_observed

    with pytest.warns(DeprecationWarning, match=r"SobolSearch\(n_candidates, n_refine\)"):
        old_box = Box([0.0, 0.0], [1.0, 1.0], n_candidates=16, n_refine=0)
    plain = Box([0.0, 0.0], [1.0, 1.0])
    old = proposals(old_box)
    np.testing.assert_array_equal(old, proposals(plain, optimizer=SobolSearch(16, 0)))
    assert not np.array_equal(old, proposals(plain))  # the default budget searches elsewhere
