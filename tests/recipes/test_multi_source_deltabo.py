"""DeltaBO from several sources: the evidence of a source's model against an independent joint
Gaussian computation, the decision rule on a helpful and a misleading source and on sources
that each saw half the domain (the pool), the pooled sources and their consensus first trial,
and the single-source special case."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from kernelbandits.domains import Box, Grid
from kernelbandits.recipes import MultiSourceDeltaBORecipe, Observations, deltabo
from kernelbandits.recipes import multi_source_deltabo as msd
from kernelbandits.recipes.deltabo import pooled_sources
from kernelbandits.space import Float, SearchSpace

SPACE = SearchSpace([Float("x", 0.0, 1.0)])


def f(x: np.ndarray) -> np.ndarray:  # the target, largest near 0.27 on [0, 1]
    return np.sin(6.0 * x) * np.exp(-((x - 0.7) ** 2))


def observations(xs: np.ndarray, values: np.ndarray, name: str) -> Observations:
    return Observations(tuple({"x": float(x)} for x in xs), np.asarray(values, float), name=name)


XS = np.linspace(0.0, 1.0, 15)
HELPFUL = observations(XS, 2.0 * f(XS) + 1.0, "helpful")  # the same landscape, rescaled
MISLEADING = observations(XS, -f(XS), "misleading")  # the opposite ranking
X_T = np.array([[0.1], [0.35], [0.6], [0.8], [0.95], [0.5]])
V_T = f(X_T[:, 0])


@pytest.mark.parametrize("hyperparameters", ["fixed", "map"])
def test_log_evidence_equals_the_joint_gaussian_conditional(hyperparameters: str) -> None:
    """log p(v_target | source data) from the joint Gaussian of (source, target) values, minus
    log p(source), with the Jacobian of the target's change of scale."""
    recipe = deltabo(SPACE, HELPFUL, hyperparameters=hyperparameters)  # type: ignore[arg-type]
    model = recipe.fit(X_T, V_T, 0)
    Xs, ys = recipe.X_source, recipe.y_source
    u = (V_T - recipe.m_source) / recipe.sd_source / model.rho
    kg = model.source_kernel
    n_s, n = len(ys), len(u)
    joint = np.block(
        [
            [kg(Xs) + model.source_noise_var * np.eye(n_s), kg(Xs, X_T)],
            [kg(X_T, Xs), kg(X_T) + model.delta_kernel(X_T) + model.noise_var * np.eye(n)],
        ]
    )
    log_joint = multivariate_normal(np.zeros(n_s + n), joint).logpdf(np.concatenate([ys, u]))
    log_source = multivariate_normal(np.zeros(n_s), joint[:n_s, :n_s]).logpdf(ys)
    expected = log_joint - log_source - n * np.log(model.rho) - n * np.log(recipe.sd_source)
    assert recipe.log_evidence(X_T, V_T, 0) == pytest.approx(expected, rel=1e-6, abs=1e-6)
    assert recipe.log_evidence(np.zeros((0, 1)), np.zeros(0), 0) == 0.0


def test_the_helpful_source_is_chosen_whatever_its_position() -> None:
    for sources, helpful_at in (([HELPFUL, MISLEADING], 0), ([MISLEADING, HELPFUL], 1)):
        recipe = msd(SPACE, sources)
        scores = recipe.log_evidences(X_T, V_T, 0)
        assert scores[helpful_at] > max(scores[1 - helpful_at], scores[2]) + 1.0
        assert recipe.choose(X_T, V_T, 0) == helpful_at


def _matern52(a: np.ndarray, b: np.ndarray, lengthscale: float) -> np.ndarray:
    r = np.sqrt(5.0) * np.abs(a[:, None] - b[None, :]) / lengthscale
    return (1.0 + r + r * r / 3.0) * np.exp(-r)


def test_the_pool_standardises_each_source_then_takes_the_mean_scale() -> None:
    """Pooled value = mean(m_k) + mean(sd_k) (v - m_k) / sd_k, larger is better, one row per
    source observation; a source in other units does not dominate."""
    big = Observations(HELPFUL.params, 1000.0 * f(XS) + 50.0, "minimize", "big, minimised")
    pooled = pooled_sources([HELPFUL, big])
    z = [(v - v.mean()) / v.std() for v in (HELPFUL.values, -big.values)]
    m = np.mean([HELPFUL.values.mean(), -big.values.mean()])
    sd = np.mean([HELPFUL.values.std(), big.values.std()])
    np.testing.assert_allclose(pooled.values, m + sd * np.concatenate(z), rtol=1e-12)
    assert pooled.direction == "maximize" and pooled.params == HELPFUL.params + big.params
    with pytest.raises(ValueError, match="at least one source"):
        pooled_sources([])


def test_before_any_target_trial_the_sources_agree_on_the_first_source() -> None:
    """No evidence yet: the source whose best configuration the sources' models rate highest
    on average (two sources share a landscape, the third is its opposite), checked against
    the GP posterior means written out by hand (Matern-5/2, lengthscale 0.2, noise 1e-2); the
    first trial is that source's best configuration."""
    other = observations(XS, 0.5 * f(XS) - 3.0, "other")  # HELPFUL's landscape, other units
    recipe = msd(SPACE, [MISLEADING, HELPFUL, other])
    assert recipe.pooled is not None and recipe.candidates[-1] is recipe.pooled
    bests = np.array([r.X_source[np.argmax(r.y_source), 0] for r in recipe.recipes])
    by_hand = np.mean(
        [
            _matern52(bests, r.X_source[:, 0], 0.2)
            @ np.linalg.solve(
                _matern52(r.X_source[:, 0], r.X_source[:, 0], 0.2) + 1e-2 * np.eye(len(XS)),
                r.y_source,
            )
            for r in recipe.recipes
        ],
        axis=0,
    )
    np.testing.assert_allclose(recipe.consensus_scores(), by_hand, rtol=1e-8, atol=1e-10)
    assert np.argmax(by_hand) in (1, 2) and by_hand[0] < min(by_hand[1:])
    assert recipe.choose(np.zeros((0, 1)), np.zeros(0), 0) == int(np.argmax(by_hand))
    first = recipe(Box([0.0], [1.0]), 0).ask()
    assert first[0] == pytest.approx(bests[int(np.argmax(by_hand))], abs=1e-12)


def test_the_pool_wins_when_each_source_errs_somewhere_else() -> None:
    """Two earlier studies of the target's landscape, each with a spurious bump of its own (at
    0.1 and at 0.85) and each observed on every other point: the pool halves both bumps and
    sees every point, and explains the target's trials better than either source; the pool's
    policy is then the single-source policy on the pooled observations."""

    def bump(x: np.ndarray, at: float) -> np.ndarray:
        return 0.5 * np.exp(-0.5 * ((x - at) / 0.08) ** 2)

    a, b = XS[::2], XS[1::2]
    halves = [observations(a, f(a) + bump(a, 0.1), "a"), observations(b, f(b) + bump(b, 0.85), "b")]
    recipe = msd(SPACE, halves)
    scores = recipe.log_evidences(X_T, V_T, 0)
    assert scores.shape == (3,) and scores[2] > max(scores[:2]) + 1.0
    assert recipe.choose(X_T, V_T, 0) == 2
    grid = Grid(np.linspace(0.0, 1.0, 41)[:, None])
    a = recipe.prepare(X_T, V_T, 3).factory(grid, 5)
    b = deltabo(SPACE, pooled_sources(halves)).prepare(X_T, V_T, 3).factory(grid, 5)
    for p in (a, b):
        p.tell_many(X_T, recipe.prepare(X_T, V_T, 3).values)
    np.testing.assert_array_equal(a.mean_sd(grid.points)[0], b.mean_sd(grid.points)[0])


def test_evidence_is_a_density_of_the_values_in_their_own_units() -> None:
    """Source and target both in units c times larger: the same model on the source's
    standardised scale, so the density of the values changes by the Jacobian, -n log c."""
    c = 250.0
    scaled = observations(XS, c * HELPFUL.values, "scaled")
    a = deltabo(SPACE, HELPFUL, hyperparameters="fixed").log_evidence(X_T, V_T, 0)
    b = deltabo(SPACE, scaled, hyperparameters="fixed").log_evidence(X_T, c * V_T, 0)
    assert b == pytest.approx(a - len(V_T) * np.log(c), rel=1e-9)


def test_the_chosen_sources_policy_is_the_single_source_policy() -> None:
    grid = Grid(np.linspace(0.0, 1.0, 41)[:, None])
    many = msd(SPACE, [MISLEADING, HELPFUL]).prepare(X_T, V_T, 3)
    one = deltabo(SPACE, HELPFUL).prepare(X_T, V_T, 3)
    np.testing.assert_array_equal(many.values, one.values)
    a, b = many.factory(grid, 5), one.factory(grid, 5)
    for p in (a, b):
        p.tell_many(X_T, many.values)
    np.testing.assert_array_equal(a.ask(), b.ask())
    np.testing.assert_array_equal(a.mean_sd(grid.points)[0], b.mean_sd(grid.points)[0])


def test_one_source_is_deltabo_exactly() -> None:
    grid = Grid(np.linspace(0.0, 1.0, 41)[:, None])
    many = msd(SPACE, [HELPFUL])
    assert isinstance(many, MultiSourceDeltaBORecipe) and many.choose(X_T, V_T, 0) == 0
    a, b = (
        many.prepare(X_T, V_T, 1).factory(grid, 2),
        deltabo(SPACE, HELPFUL).prepare(X_T, V_T, 1).factory(grid, 2),
    )
    np.testing.assert_array_equal(a.ask(), b.ask())


def test_expected_improvement_is_maximised_on_the_same_model() -> None:
    """acquisition="ei" (the default): the proposal on a grid is the argmax of the closed-form EI, written
    out here from the policy's posterior mean and sd, with the incumbent the largest posterior
    mean at the observed points (EI's argmax does not change under the campaign's affine map
    of the values); UCB on the same model proposes elsewhere."""
    from scipy.stats import norm

    grid = Grid(np.linspace(0.0, 1.0, 41)[:, None])
    X, v = X_T[:3], V_T[:3]  # three trials: here EI and UCB (width 2) part ways
    prepared = deltabo(SPACE, HELPFUL).prepare(X, v, 3)  # EI, the default
    policy = prepared.factory(grid, 5)
    policy.tell_many(X, prepared.values)
    mean, sd = policy.mean_sd(grid.points)
    best = policy.mean_sd(X)[0].max()
    z = (mean - best) / sd
    ei = (mean - best) * norm.cdf(z) + sd * norm.pdf(z)
    np.testing.assert_array_equal(policy.ask(), grid.points[int(np.argmax(ei))])
    ucb = deltabo(SPACE, HELPFUL, acquisition="ucb").prepare(X, v, 3).factory(grid, 5)
    ucb.tell_many(X, prepared.values)
    assert not np.array_equal(ucb.ask(), policy.ask())
    with pytest.raises(ValueError, match="acquisition must be 'ucb' or 'ei'"):
        deltabo(SPACE, HELPFUL, acquisition="pi")  # type: ignore[arg-type]


def test_bad_sources() -> None:
    with pytest.raises(ValueError, match="non-empty sequence"):
        msd(SPACE, [])
    with pytest.raises(ValueError, match="non-empty sequence"):
        msd(SPACE, HELPFUL)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no completed evaluation"):
        msd(SPACE, [HELPFUL, observations(np.zeros(0), np.zeros(0), "empty")])
