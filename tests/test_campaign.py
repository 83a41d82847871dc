"""Campaign: ask/tell on user objectives, replayed from its history."""

import math

import numpy as np
import pytest

from kernelbandits._random import policy_seed
from kernelbandits.campaign import Campaign, Trial
from kernelbandits.policies.base import RandomPolicy
from kernelbandits.recipes import bkb, gp_ucb
from kernelbandits.space import Categorical, Float, Int, SearchSpace

LINE = SearchSpace([Float("x", 0.0, 1.0)])


def parabola(params):
    return -((params["x"] - 0.3) ** 2)


def run(campaign, objective, n):
    for _ in range(n):
        trial = campaign.ask()
        campaign.tell(trial, objective(trial.params))
    return campaign


def test_same_seed_same_asks_different_seed_different_asks():
    a = run(Campaign(LINE, seed=1), parabola, 12).trials
    b = run(Campaign(LINE, seed=1), parabola, 12).trials
    c = run(Campaign(LINE, seed=2), parabola, 12).trials
    assert a == b
    assert [t.params for t in a] != [t.params for t in c]
    assert [t.number for t in a] == list(range(12))


def test_initial_asks_are_random_then_the_policy_takes_over():
    c = Campaign(LINE, seed=0, n_init=3)
    first = [c.ask() for _ in range(3)]  # random asks never refuse, even with pending trials
    assert all(t.value is None for t in c.trials)
    for t in first:
        c.tell(t, parabola(t.params))
    assert len({t.params["x"] for t in first}) == 3


def test_restore_from_partial_history_gives_the_same_next_ask():
    full = Campaign(LINE, seed=5, n_init=4)
    run(full, parabola, 9)
    history = full.trials
    pending = full.ask()  # leave one pending, to restore it too
    expected = full.ask()
    restored = Campaign.from_trials(LINE, [*history, pending], seed=5, n_init=4)
    assert restored.trials == [*history, pending]
    assert restored.ask() == expected
    # from the completed history alone, in any order
    again = Campaign.from_trials(LINE, history[::-1], seed=5, n_init=4)
    full_again = run(Campaign(LINE, seed=5, n_init=4), parabola, 9)
    assert again.ask() == full_again.ask()


def test_gp_ucb_finds_the_maximum_and_beats_random_search():
    """30 asks on -(x - 0.3)^2: within 0.02 of 0.3 on every seed; better than the best of 30
    uniform draws on at least 9 of 10 seeds (measured: 10 of 10, distances < 0.002)."""
    wins = 0
    for seed in range(10):
        c = run(Campaign(LINE, seed=seed), parabola, 30)
        best = c.best
        assert best is not None
        assert abs(best.params["x"] - 0.3) < 0.02
        rs = LINE.sample(30, np.random.default_rng(1000 + seed))
        wins += best.value > max(parabola(p) for p in rs)
    assert wins >= 9


def test_minimize_direction():
    c = run(Campaign(LINE, seed=0, direction="minimize"), lambda p: 10.0 + (p["x"] - 0.7) ** 2, 25)
    assert abs(c.best.params["x"] - 0.7) < 0.02
    assert c.best.value == min(t.value for t in c.trials)
    # standardised values: minimising f is maximising -f, mean 0 and sd 1
    y, mean, sd = c.standardized_values()
    np.testing.assert_allclose([np.mean(y), np.std(y)], [0.0, 1.0], atol=1e-12)
    assert mean < -10.0 and sd > 0


def test_hallucinated_pending_point_is_told_its_posterior_mean():
    # the policy by hand below is this one (no fit, no warping: it is told standardised values)
    factory = gp_ucb(LINE, hyperparameters="fixed", output_warping=False)
    c = Campaign(LINE, factory, seed=3, n_init=4)
    run(c, parabola, 4)
    first = c.ask()
    second = c.ask()
    assert first.params != second.params
    assert abs(first.params["x"] - second.params["x"]) > 1e-3
    # by hand: the policy of the 6th ask, told the data and mu(first) at the first point
    policy = factory(LINE.domain(), policy_seed(3, 5))
    y, _, _ = c.standardized_values()
    policy.tell_many(np.array([LINE.encode(t.params) for t in c.trials[:4]]), y)
    x1 = LINE.encode(first.params)
    mu, _ = policy.mean_sd(x1[None, :])
    policy.tell(x1, mu[0])
    assert LINE.decode(LINE.snap(policy.ask())) == second.params
    # the hallucination shrank the variance at the first point, kept the mean
    mu_after, sd_after = c.rebuild_policy().mean_sd(x1[None, :])
    assert mu_after[0] == pytest.approx(mu[0], abs=1e-9)
    assert sd_after[0] < 0.05


def test_refuse_raises_on_pending_and_records_nothing():
    c = Campaign(LINE, seed=0, n_init=2, pending="refuse")
    run(c, parabola, 3)
    c.ask()
    before = c.trials
    with pytest.raises(ValueError, match=r"pending.*tell"):
        c.ask()
    assert c.trials == before


def test_policy_without_posterior_mean_refuses_pending():
    c = Campaign(LINE, lambda dom, seed: RandomPolicy(dom, seed), seed=0, n_init=0)
    c.ask()
    with pytest.raises(ValueError, match="mean_sd"):
        c.ask()
    assert len(c.trials) == 1


def test_bad_tells_raise_and_change_nothing():
    c = Campaign(LINE, seed=0)
    done = c.ask()
    c.tell(done, 1.0)
    open_ = c.ask()
    before = c.trials
    for bad in (math.nan, math.inf, -math.inf, "abc", [1.0, 2.0]):
        with pytest.raises(ValueError, match="value"):
            c.tell(open_, bad)
    with pytest.raises(ValueError, match="already completed"):
        c.tell(done, 2.0)
    with pytest.raises(ValueError, match="unknown trial"):
        c.tell(17, 2.0)
    with pytest.raises(ValueError, match="asked with params"):
        c.tell(Trial(open_.number, {"x": 0.123456}, None), 2.0)
    with pytest.raises(ValueError, match="'x'"):
        c.add({"x": 2.0}, 1.0)
    with pytest.raises(ValueError, match="value"):
        c.add({"x": 0.5}, math.nan)
    assert c.trials == before
    c.tell(open_.number, 3.0)  # still completable by number
    assert c.best.number == open_.number


def test_trials_are_copies():
    c = Campaign(LINE, seed=0)
    t = c.ask()
    t.params["x"] = 99.0
    c.trials[0].params["x"] = 99.0
    assert c.trials[0].params["x"] != 99.0


def test_add_warm_starts_the_policy():
    c = Campaign(LINE, seed=0, n_init=3)
    for x in (0.0, 0.5, 1.0):
        c.add({"x": x}, parabola({"x": x}))
    t = c.ask()  # three trials already: the policy answers
    assert t.number == 3 and t.value is None
    assert c.best.params == {"x": 0.5}


def test_bad_options_raise():
    with pytest.raises(ValueError, match="direction"):
        Campaign(LINE, direction="up")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="pending"):
        Campaign(LINE, pending="ignore")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed"):
        Campaign(LINE, seed=-1)
    with pytest.raises(ValueError, match="n_init"):
        Campaign(LINE, n_init=-1)
    with pytest.raises(ValueError, match="beta"):
        gp_ucb(LINE, beta="huge")
    with pytest.raises(ValueError, match="distinct"):
        Campaign.from_trials(LINE, [Trial(0, {"x": 0.1}, 1.0), Trial(0, {"x": 0.2}, 1.0)])
    with pytest.raises(ValueError, match="'x'"):
        Campaign.from_trials(LINE, [Trial(0, {"x": 3.0}, 1.0)])


def test_mixed_space_end_to_end_with_batches():
    space = SearchSpace(
        [
            Float("lr", 1e-4, 1.0, log=True),
            Int("depth", 1, 6),
            Categorical("kind", ["a", "b", "c"]),
        ]
    )

    def objective(p):  # best at lr = 1e-2, depth = 4, kind = "b"
        return (
            -((math.log10(p["lr"]) + 2.0) ** 2)
            - 0.5 * (p["depth"] - 4) ** 2
            + (1.0 if p["kind"] == "b" else 0.0)
        )

    c = Campaign(space, seed=0, n_init=6)
    for _ in range(8):  # batches of 3 asks before telling
        batch = [c.ask() for _ in range(3)]
        assert len({tuple(sorted(t.params.items())) for t in batch}) == 3
        for t in batch:
            assert isinstance(t.params["depth"], int) and t.params["kind"] in ("a", "b", "c")
            c.tell(t, objective(t.params))
    best = c.best
    assert best.params["kind"] == "b" and best.params["depth"] == 4
    assert abs(math.log10(best.params["lr"]) + 2.0) < 0.3
    restored = Campaign.from_trials(space, c.trials, seed=0, n_init=6)
    assert restored.ask() == c.ask()


@pytest.mark.parametrize("beta", [2.0, "theory"])
def test_bkb_and_theory_width_factories(beta):
    c = run(Campaign(LINE, bkb(LINE, beta=beta), seed=0), parabola, 20)
    assert abs(c.best.params["x"] - 0.3) < 0.05
    d = run(Campaign(LINE, gp_ucb(LINE, beta=beta), seed=0), parabola, 20)
    assert abs(d.best.params["x"] - 0.3) < 0.05
    a, b = c.ask(), c.ask()  # BKB has mean_sd: batches are hallucinated too
    assert a.params != b.params


def test_factory_checks_the_dimension():
    other = SearchSpace([Float("x", 0, 1), Float("y", 0, 1)])
    c = Campaign(LINE, gp_ucb(other), n_init=0)
    with pytest.raises(ValueError, match="dimension"):
        c.ask()
    assert c.trials == []


@pytest.mark.parametrize("huge", [1e308, -1e308, 1e-310])
def test_extreme_values_never_break_a_study(huge) -> None:
    """Values near the largest (or in the subnormal range of the) double are told and the
    campaign goes on proposing: the standardisation scales before it sums."""
    campaign = Campaign(LINE, seed=0, n_init=2)
    for value in (huge, huge, 0.5 * huge, 0.0, huge):
        trial = campaign.ask()
        campaign.tell(trial, value)
    z, mean, sd = campaign.standardized_values()
    assert np.all(np.isfinite(z)) and np.isfinite(mean) and np.isfinite(sd)
    for _ in range(3):  # every later ask still works
        trial = campaign.ask()
        assert 0.0 <= trial.params["x"] <= 1.0
        campaign.tell(trial, huge)


def test_standardize_is_exact_in_range_and_scales_outside_it() -> None:
    from kernelbandits.outcome import standardize

    y = np.array([3.0, -1.0, 2.5, 7.0])
    z, mean, sd = standardize(y)
    assert mean == float(np.mean(y)) and sd == float(np.std(y))  # the direct formula, bit for bit
    np.testing.assert_array_equal(z, (y - np.mean(y)) / np.std(y))
    big = y * 1e300  # the squares of the deviations would overflow
    zb, mb, sb = standardize(big)
    np.testing.assert_allclose(zb, z, rtol=1e-12)
    assert mb == pytest.approx(mean * 1e300, rel=1e-12) and sb == pytest.approx(sd * 1e300)
    with pytest.raises(ValueError, match="finite"):
        standardize([1.0, np.inf])


def test_n_initial_is_the_deprecated_spelling_of_n_init():
    from kernelbandits.space import Float, SearchSpace

    space = SearchSpace([Float("x", 0.0, 1.0)])
    with pytest.warns(DeprecationWarning, match="n_init="):
        campaign = Campaign(space, n_initial=3)
    assert campaign.n_init == 3
    with pytest.raises(TypeError, match="n_init= only"):
        Campaign(space, n_init=2, n_initial=3)


@pytest.mark.parametrize(
    "name",
    [
        "gp",
        "gp_ucb",
        "bkb",
        "map_fit",
        "check_beta",
        "standardize",
        "warp_values",
        "yeo_johnson",
        "yeo_johnson_lambda",
        "fit_key",
        "memoised",
        "policy_seed",
        "PolicyFactory",
    ],
)
def test_moved_names_stay_importable_from_campaign_with_a_warning(name):
    import importlib

    import kernelbandits.campaign as campaign_module

    where = campaign_module._MOVED[name]
    with pytest.warns(DeprecationWarning, match=f"moved to {where}"):
        old = getattr(campaign_module, name)
    assert old is getattr(importlib.import_module(where), name)
