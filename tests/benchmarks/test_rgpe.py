"""RGPE (benchmarks/harness/rgpe.py): its math against independent references, and the Optuna
sampler on small studies."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pytest

if TYPE_CHECKING:
    from optuna import Study, Trial

optuna = pytest.importorskip("optuna")

from benchmarks.harness.rgpe import (  # noqa: E402
    RankingWeightedEnsemble,
    RGPESampler,
    diluted,
    ensemble_mean_variance,
    fit_gp,
    loo_predictions,
    ranking_loss,
    rgpe_weights,
    sample_losses,
)

from kernelbandits.kernels import Matern  # noqa: E402
from kernelbandits.regression import GPPosterior  # noqa: E402

optuna.logging.set_verbosity(optuna.logging.WARNING)


def _gp(X: np.ndarray, y: np.ndarray, lengthscale: float = 0.3, noise: float = 1e-2) -> GPPosterior:
    gp = GPPosterior(Matern(lengthscale, 1.0, nu=2.5), noise, input_dim=X.shape[1])
    gp.add_batch(X, y)
    return gp


# -- the math -------------------------------------------------------------------------------------
def test_ranking_loss_matches_a_brute_force_double_loop() -> None:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 4, size=9).astype(float)  # ties in y
    F = rng.integers(0, 4, size=(6, 9)).astype(float)  # ties in the predictions
    F[0] = y  # a perfect ranking
    F[1] = -y  # the reversed one

    def brute(f: np.ndarray) -> int:
        return sum(
            int((f[j] < f[k]) != (y[j] < y[k])) for j in range(y.size) for k in range(y.size)
        )

    expected = [brute(f) for f in F]
    assert ranking_loss(F, y).tolist() == expected
    assert expected[0] == 0 and expected[1] > 0
    assert int(ranking_loss(F[2], y)) == expected[2]  # one prediction vector: a scalar


def test_loo_predictions_match_refitting_without_the_point() -> None:
    rng = np.random.default_rng(1)
    X = rng.random((8, 2))
    y = np.sin(4.0 * X[:, 0]) + X[:, 1] + 0.05 * rng.standard_normal(8)
    gp = _gp(X, y, noise=0.05)
    mean, var = loo_predictions(gp)
    for j in range(8):
        rest = np.arange(8) != j
        m_j, v_j = _gp(X[rest], y[rest], noise=0.05).predict(X[j : j + 1])
        assert mean[j] == pytest.approx(m_j[0], rel=1e-8, abs=1e-10)
        assert var[j] == pytest.approx(v_j[0], rel=1e-7, abs=1e-10)  # the latent f's variance


def test_ensemble_mean_and_variance_match_the_formulas() -> None:
    rng = np.random.default_rng(2)
    models = [_gp(rng.random((5, 2)), rng.standard_normal(5)) for _ in range(3)]
    weights = np.array([0.5, 0.0, 0.3])
    Xq = rng.random((7, 2))
    stats = [m.predict(Xq) for m in models]
    mean = sum(w * s[0] for w, s in zip(weights, stats, strict=True))
    var = sum(w**2 * s[1] for w, s in zip(weights, stats, strict=True))
    got_mean, got_var = ensemble_mean_variance(
        np.array([s[0] for s in stats]), np.array([s[1] for s in stats]), weights
    )
    np.testing.assert_allclose(got_mean, mean, rtol=1e-12)
    np.testing.assert_allclose(got_var, var, rtol=1e-12)
    ensemble = RankingWeightedEnsemble(models, weights)
    np.testing.assert_allclose(ensemble.predict(Xq)[0], mean, rtol=1e-12)
    np.testing.assert_allclose(ensemble.predict(Xq)[1], var, rtol=1e-12)
    # the gradients the box optimiser follows, against central differences
    m0, v0, dm, dv = ensemble.predict_with_gradient(Xq)
    np.testing.assert_allclose(m0, mean, rtol=1e-12)
    np.testing.assert_allclose(v0, var, rtol=1e-12)
    h = 1e-6
    for k in range(2):
        step = np.zeros(2)
        step[k] = h
        up, down = ensemble.predict(Xq + step), ensemble.predict(Xq - step)
        np.testing.assert_allclose(dm[:, k], (up[0] - down[0]) / (2 * h), atol=1e-6)
        np.testing.assert_allclose(dv[:, k], (up[1] - down[1]) / (2 * h), atol=1e-6)


def test_weights_are_the_fraction_of_draws_won_with_ties_split_evenly() -> None:
    losses = np.array(
        [
            [0, 2, 1, 5],  # source 0
            [0, 1, 1, 5],  # source 1
            [1, 1, 3, 0],  # target
        ]
    )
    # draws 0 and 2: sources 0 and 1 tie; draw 1: source 1 and the target tie; draw 3: the target
    expected = np.array([0.5 + 0.5, 0.5 + 0.5 + 0.5, 0.5 + 1.0]) / 4
    np.testing.assert_allclose(rgpe_weights(losses, dilution=False), expected)
    # no pair to rank (fewer than two target points): every loss is 0, every weight equal
    np.testing.assert_allclose(rgpe_weights(np.zeros((4, 16))), np.full(4, 0.25))


def test_dilution_discards_a_source_whose_median_loss_exceeds_the_targets_95th_percentile() -> None:
    # the source wins half of the draws (loss 0) but its median loss, 50, is above every target
    # loss (10): the rule of the paper discards it despite its wins
    source = np.array([0] * 50 + [100] * 50)
    good = np.full(100, 5)  # a source that always beats the target
    target = np.full(100, 10)
    losses = np.vstack([source, good, target])
    assert diluted(losses).tolist() == [True, False]
    np.testing.assert_allclose(rgpe_weights(losses, dilution=False), [0.5, 0.5, 0.0])
    np.testing.assert_allclose(rgpe_weights(losses), [0.0, 1.0, 0.0])  # renormalised
    # every source discarded and the target never best: the target model gets everything
    np.testing.assert_allclose(rgpe_weights(np.vstack([source, target])), [0.0, 1.0])


def test_a_source_equal_to_the_target_gets_the_weight_and_a_reversed_one_is_diluted() -> None:
    rng = np.random.default_rng(3)

    def f(x: np.ndarray) -> np.ndarray:
        return np.sin(6.0 * x[:, 0]) + 0.5 * x[:, 0]

    X_src = rng.random((25, 1))
    same = fit_gp(X_src, f(X_src), seed=0, history=False)
    reversed_ = fit_gp(X_src, -f(X_src), seed=0, history=False)
    X_t = rng.random((10, 1))
    target = fit_gp(X_t, f(X_t), seed=0, history=True)
    losses = sample_losses([same, reversed_], target, f(X_t), 256, np.random.default_rng(4))
    assert losses.shape == (3, 256)
    weights = rgpe_weights(losses)
    assert weights[0] > 0.9
    assert weights[1] == 0.0
    assert diluted(losses).tolist() == [False, True]
    assert weights.sum() == pytest.approx(1.0)


# -- the Optuna sampler ---------------------------------------------------------------------------
def _bowl(a: int, b: int, shift: float = 0.0) -> float:
    return (a / 9 - 0.3 - shift) ** 2 + (b / 9 - 0.6) ** 2


def _grid_source() -> Study:
    """A similar source: the target's bowl shifted a little, on another scale and offset."""
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=1))
    study.optimize(
        lambda t: 5 + 3 * _bowl(t.suggest_int("a", 0, 9), t.suggest_int("b", 0, 9), 0.05),
        n_trials=20,
    )
    return study


def _grid_run(source: Study, seed: int, n_trials: int = 12) -> tuple[list, RGPESampler]:
    sampler = RGPESampler([source], seed=seed)
    study = optuna.create_study(sampler=sampler)
    study.optimize(lambda t: _bowl(t.suggest_int("a", 0, 9), t.suggest_int("b", 0, 9)), n_trials)
    return [(t.params["a"], t.params["b"]) for t in study.trials], sampler


def test_a_short_study_on_an_integer_grid_never_repeats_and_is_reproducible() -> None:
    source = _grid_source()
    configs, sampler = _grid_run(source, seed=0)
    assert len(configs) == 12
    assert len(set(configs)) == 12  # never the same configuration twice
    assert all(0 <= a <= 9 and 0 <= b <= 9 for a, b in configs)
    assert sampler.last_weights is not None and sampler.last_weights.sum() == pytest.approx(1.0)
    assert _grid_run(source, seed=0)[0] == configs  # same seed, same proposals
    assert _grid_run(source, seed=1)[0] != configs


def test_before_two_target_points_every_model_gets_the_same_weight() -> None:
    source = _grid_source()
    sampler = RGPESampler([source], seed=0, n_startup_trials=0)
    study = optuna.create_study(sampler=sampler)
    seen = []
    for _ in range(3):
        trial = study.ask()
        a, b = trial.suggest_int("a", 0, 9), trial.suggest_int("b", 0, 9)
        study.tell(trial, _bowl(a, b))
        assert sampler.last_weights is not None and sampler.last_losses is not None
        seen.append((sampler.last_weights.copy(), int(sampler.last_losses.max())))
    np.testing.assert_allclose(seen[0][0], [0.5, 0.5])  # no target point
    np.testing.assert_allclose(seen[1][0], [0.5, 0.5])  # one target point
    assert seen[0][1] == seen[1][1] == 0
    assert seen[2][1] > 0  # two points: a pair is ranked


def test_floats_on_a_log_scale_and_a_maximised_study() -> None:
    def value(t: Trial, shift: float) -> float:
        lr = t.suggest_float("lr", 1e-4, 1.0, log=True)
        x = t.suggest_float("x", -1.0, 1.0)
        return -((np.log10(lr) + 2.0 + shift) ** 2) - (x - 0.3) ** 2

    source = optuna.create_study(
        direction="maximize", sampler=optuna.samplers.RandomSampler(seed=2)
    )
    source.optimize(lambda t: value(t, 0.2), n_trials=15)

    def run() -> tuple[list[tuple[float, float]], RGPESampler]:
        sampler = RGPESampler([source], seed=5)
        study = optuna.create_study(direction="maximize", sampler=sampler)
        study.optimize(lambda t: value(t, 0.0), n_trials=6)
        return [(t.params["lr"], t.params["x"]) for t in study.trials], sampler

    params, sampler = run()
    assert all(1e-4 <= lr <= 1.0 and -1.0 <= x <= 1.0 for lr, x in params)
    assert len(set(params)) == 6
    assert run()[0] == params
    # both studies maximise nearly the same function: the source ranks the target's trials
    # about right and keeps a good share of the weight (either study read as minimised, it
    # would rank them backwards and be discarded)
    assert sampler.last_weights is not None and sampler.last_weights[0] > 0.2
