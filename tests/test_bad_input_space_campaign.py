"""The bad-input table of search spaces (:mod:`kernelbandits.space`) and of the ask/tell
:class:`~kernelbandits.campaign.Campaign` with its policy factories (issue 23, item 1).

Each case is one mistake a user might make (:class:`tests._bad_input.Bad`): the error type, a
one-line message naming the argument and what is allowed, and, for a campaign method, a campaign
that behaves afterwards exactly like an untouched twin (same trials, same next ask).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from _bad_input import Bad, Subject, assert_rejected, params
from _repo import promised_cases
from kernelbandits._random import policy_seed
from kernelbandits.campaign import Campaign, Trial
from kernelbandits.outcome import standardize, warp_values
from kernelbandits.policies import RandomPolicy
from kernelbandits.recipes import bkb, deltabo, gp, gp_ucb, libo
from kernelbandits.space import Categorical, Float, Int, SearchSpace

NAN, INF = float("nan"), float("inf")
RNG = np.random.default_rng(0)
SPACE = SearchSpace(
    [Float("lr", 1e-4, 1.0, log=True), Int("depth", 1, 8), Categorical("act", ["relu", "tanh"])]
)  # encodes to dim 4
GOOD = {"lr": 0.01, "depth": 3, "act": "relu"}
ALLOWED_SEED = r"integer >= 0"
FINITE_POSITIVE = r"finite positive number"


def _b(id: str, call: Any, name: str, allowed: str, error: Any = ValueError) -> Bad:
    """A constructor or function case: ``call()`` takes no subject."""
    return Bad(id, lambda _: call(), name, allowed, error)


def _config(**changes: Any) -> dict[str, Any]:
    return GOOD | changes


# -- search spaces ----------------------------------------------------------------------------
def _space(*p: Any) -> SearchSpace:
    return SearchSpace(list(p))


SPACES = [
    _b("float-reversed", lambda: _space(Float("x", 1.0, 0.0)), "low", r"< high"),
    _b("float-equal-bounds", lambda: _space(Float("x", 1.0, 1.0)), "low", r"< high"),
    _b("float-low-str", lambda: _space(Float("x", "0", 1.0)), "low", "finite number"),
    _b("float-high-str", lambda: _space(Float("x", 0.0, "1")), "high", "finite number"),
    _b("float-low-nan", lambda: _space(Float("x", NAN, 1.0)), "low", "finite number"),
    _b("float-high-inf", lambda: _space(Float("x", 0.0, INF)), "high", "finite number"),
    _b("float-low-none", lambda: _space(Float("x", None, 1.0)), "low", "finite number"),
    _b("float-low-bool", lambda: _space(Float("x", False, 1.0)), "low", "finite number"),
    _b("float-log-zero-low", lambda: _space(Float("x", 0.0, 1.0, log=True)), "low", "low > 0"),
    _b(
        "float-log-negative-low",
        lambda: _space(Float("x", -1.0, 1.0, log=True)),
        "low",
        "low > 0",
    ),
    _b("float-log-str", lambda: _space(Float("x", 0.1, 1.0, log="yes")), "log", "True or False"),
    _b("float-name-empty", lambda: _space(Float("", 0.0, 1.0)), "name", "non-empty string"),
    _b("float-name-int", lambda: _space(Float(3, 0.0, 1.0)), "name", "non-empty string"),
    _b("int-reversed", lambda: _space(Int("n", 5, 4)), "low", r"<= high"),
    _b("int-low-float", lambda: _space(Int("n", 0.5, 4)), "low", "an integer"),
    _b("int-high-float", lambda: _space(Int("n", 0, 4.0)), "high", "an integer"),
    _b("int-low-str", lambda: _space(Int("n", "0", 4)), "low", "an integer"),
    _b("int-low-bool", lambda: _space(Int("n", True, 4)), "low", "an integer"),
    _b("int-log-zero-low", lambda: _space(Int("n", 0, 4, log=True)), "low", "low > 0"),
    _b("int-log-int", lambda: _space(Int("n", 1, 4, log=1)), "log", "True or False"),
    _b("categorical-empty", lambda: _space(Categorical("c", [])), "choices", "non-empty"),
    _b("categorical-str", lambda: Categorical("c", "abc"), "choices", r"sequence \(list or tuple"),
    _b("categorical-none", lambda: Categorical("c", None), "choices", "sequence"),
    _b(
        "categorical-duplicate", lambda: _space(Categorical("c", ["a", "a"])), "choices", "distinct"
    ),
    _b(
        "categorical-name-none",
        lambda: _space(Categorical(None, ["a"])),
        "name",
        "non-empty string",
    ),
    _b("space-empty", lambda: SearchSpace([]), "params", "at least one parameter"),
    _b("space-not-a-sequence", lambda: SearchSpace(Float("x", 0, 1)), "params", "sequence of"),
    _b("space-none", lambda: SearchSpace(None), "params", "sequence of"),
    _b("space-str", lambda: SearchSpace("x"), "params", "sequence of"),
    _b("space-dict", lambda: SearchSpace({"x": (0, 1)}), "params", "sequence of"),
    _b("space-tuple-param", lambda: SearchSpace([("x", 0, 1)]), "params", "Float, Int or Categ"),
    _b(
        "space-duplicate-names",
        lambda: _space(Float("x", 0, 1), Int("x", 0, 3)),
        "names",
        "distinct",
    ),
    # encode
    _b("encode-not-a-mapping", lambda: SPACE.encode([0.01, 3, "relu"]), "config", "mapping"),
    _b("encode-missing", lambda: SPACE.encode({"lr": 0.01}), "config", r"missing \['depth'"),
    _b("encode-unknown", lambda: SPACE.encode(_config(width=3)), "config", r"unknown \['width'"),
    _b("encode-float-str", lambda: SPACE.encode(_config(lr="0.01")), "'lr'", "a number in"),
    _b("encode-float-nan", lambda: SPACE.encode(_config(lr=NAN)), "'lr'", "finite"),
    _b("encode-float-outside", lambda: SPACE.encode(_config(lr=2.0)), "'lr'", r"outside \[0.0001"),
    _b("encode-float-none", lambda: SPACE.encode(_config(lr=None)), "'lr'", "a number in"),
    _b("encode-int-fraction", lambda: SPACE.encode(_config(depth=2.5)), "'depth'", "an integer"),
    _b("encode-int-str", lambda: SPACE.encode(_config(depth="2")), "'depth'", "an integer in"),
    _b("encode-int-bool", lambda: SPACE.encode(_config(depth=True)), "'depth'", "an integer in"),
    _b(
        "encode-int-outside", lambda: SPACE.encode(_config(depth=9)), "'depth'", r"outside \[1, 8\]"
    ),
    _b(
        "encode-unknown-choice",
        lambda: SPACE.encode(_config(act="selu")),
        "'act'",
        r"choices are \['relu', 'tanh'\]",
    ),
    # decode / snap / snap_rows
    _b("decode-wrong-length", lambda: SPACE.decode(np.zeros(3)), "u", r"shape \(4,\)"),
    _b("decode-nan", lambda: SPACE.decode([0.5, NAN, 0.5, 0.5]), "u", "finite"),
    _b("decode-str", lambda: SPACE.decode(["0.5"] * 4), "u", "a point of 4 numbers"),
    _b("decode-ragged", lambda: SPACE.decode([[0.5, 0.5], [0.5]]), "u", "a point of 4 numbers"),
    _b("decode-none", lambda: SPACE.decode(None), "u", r"shape \(4,\)"),
    _b("snap-wrong-length", lambda: SPACE.snap(np.zeros(5)), "u", r"shape \(4,\)"),
    _b("snap-inf", lambda: SPACE.snap([0.5, 0.5, INF, 0.5]), "u", "finite"),
    _b("snap-rows-1d", lambda: SPACE.snap_rows(np.zeros(4)), "U", r"shape \(m, 4\)"),
    _b("snap-rows-columns", lambda: SPACE.snap_rows(np.zeros((2, 3))), "U", r"shape \(m, 4\)"),
    _b("snap-rows-nan", lambda: SPACE.snap_rows(np.full((2, 4), NAN)), "U", "finite"),
    _b("snap-rows-str", lambda: SPACE.snap_rows([["a"] * 4]), "U", "array of numbers"),
    # sample
    _b("sample-negative", lambda: SPACE.sample(-1, RNG), "n", "integer >= 0"),
    _b("sample-str", lambda: SPACE.sample("3", RNG), "n", "integer >= 0"),
    _b("sample-float", lambda: SPACE.sample(2.5, RNG), "n", "integer >= 0"),
    _b("sample-bool", lambda: SPACE.sample(True, RNG), "n", "integer >= 0"),
    _b("sample-rng-int", lambda: SPACE.sample(2, 0), "rng", "numpy Generator"),
    _b("sample-rng-none", lambda: SPACE.sample(2, None), "rng", "numpy Generator"),
]

# -- the campaign's constructor and its policy factories --------------------------------------
CONSTRUCTORS = [
    _b("campaign-space-str", lambda: Campaign("lr in [0, 1]"), "space", "SearchSpace"),
    _b("campaign-space-list", lambda: Campaign([Float("x", 0, 1)]), "space", "SearchSpace"),
    _b("campaign-seed-negative", lambda: Campaign(SPACE, seed=-1), "seed", ALLOWED_SEED),
    _b("campaign-seed-str", lambda: Campaign(SPACE, seed="abc"), "seed", ALLOWED_SEED),
    _b("campaign-seed-float", lambda: Campaign(SPACE, seed=2.0), "seed", ALLOWED_SEED),
    _b("campaign-seed-bool", lambda: Campaign(SPACE, seed=True), "seed", ALLOWED_SEED),
    _b("campaign-seed-list", lambda: Campaign(SPACE, seed=[1]), "seed", ALLOWED_SEED),
    _b("campaign-seed-none", lambda: Campaign(SPACE, seed=None), "seed", ALLOWED_SEED),
    _b(
        "campaign-direction",
        lambda: Campaign(SPACE, direction="max"),
        "direction",
        "'maximize' or 'minimize'",
    ),
    _b(
        "campaign-direction-int",
        lambda: Campaign(SPACE, direction=1),
        "direction",
        "'maximize' or 'minimize'",
    ),
    _b("campaign-n-init-negative", lambda: Campaign(SPACE, n_init=-1), "n_init", "integer >= 0"),
    _b("campaign-n-init-str", lambda: Campaign(SPACE, n_init="5"), "n_init", "integer >= 0"),
    _b("campaign-n-init-float", lambda: Campaign(SPACE, n_init=2.5), "n_init", "integer >= 0"),
    _b("campaign-n-init-bool", lambda: Campaign(SPACE, n_init=True), "n_init", "integer >= 0"),
    _b(
        "campaign-pending",
        lambda: Campaign(SPACE, pending="wait"),
        "pending",
        "'hallucinate' or 'refuse'",
    ),
    _b("campaign-policy-str", lambda: Campaign(SPACE, "gp"), "policy", r"callable \(domain, seed"),
    _b(
        "campaign-unknown-option",
        lambda: Campaign(SPACE, n_initial_trials=3),
        "n_initial_trials",
        "unexpected keyword",
        TypeError,
    ),
    _b("gp-space-str", lambda: gp("space"), "space", "SearchSpace"),
    _b("gp-acquisition", lambda: gp(SPACE, "pi"), "acquisition", r"'ucb', 'ei', 'ts'"),
    _b("gp-beta-str", lambda: gp(SPACE, beta="3"), "beta", "positive number or 'theory'"),
    _b("gp-beta-zero", lambda: gp(SPACE, beta=0.0), "beta", FINITE_POSITIVE),
    _b("gp-beta-nan", lambda: gp(SPACE, beta=NAN), "beta", FINITE_POSITIVE),
    _b("gp-lengthscale-str", lambda: gp(SPACE, lengthscale="0.2"), "lengthscale", "positive"),
    _b("gp-lengthscale-0", lambda: gp(SPACE, lengthscale=0.0), "lengthscale", FINITE_POSITIVE),
    _b("gp-noise-negative", lambda: gp(SPACE, noise_var=-1e-3), "noise_var", FINITE_POSITIVE),
    _b("gp-noise-inf", lambda: gp(SPACE, noise_var=INF), "noise_var", FINITE_POSITIVE),
    _b(
        "gp-hyperparameters",
        lambda: gp(SPACE, hyperparameters="ml"),
        "hyperparameters",
        "'fixed' or 'map'",
    ),
    _b(
        "gp-output-warping-str",
        lambda: gp(SPACE, output_warping="no"),
        "output_warping",
        "True or False",
    ),
    _b("gp-prior", lambda: gp(SPACE, prior={"lengthscale": 0.3}), "prior", "HyperPrior or None"),
    _b("gp-ucb-beta-negative", lambda: gp_ucb(SPACE, beta=-2.0), "beta", FINITE_POSITIVE),
    _b("gp-ucb-beta-word", lambda: gp_ucb(SPACE, beta="huge"), "beta", "'theory'"),
    _b("gp-ucb-space-none", lambda: gp_ucb(None), "space", "SearchSpace"),
    _b("bkb-space-dict", lambda: bkb({"x": (0, 1)}), "space", "SearchSpace"),
    _b("bkb-qbar-0", lambda: bkb(SPACE, qbar=0.0), "qbar", FINITE_POSITIVE),
    _b("bkb-qbar-str", lambda: bkb(SPACE, qbar="4"), "qbar", "positive"),
    _b("bkb-noise-0", lambda: bkb(SPACE, noise_var=0.0), "noise_var", FINITE_POSITIVE),
    _b(
        "bkb-hyperparameters", lambda: bkb(SPACE, hyperparameters="MAP"), "hyperparameters", "'map'"
    ),
    _b("bkb-beta-str", lambda: bkb(SPACE, beta="2"), "beta", "positive number or 'theory'"),
    _b("standardize-str", lambda: standardize(["1.0", "2.0"]), "values", "numbers"),
    _b("standardize-nan", lambda: standardize([1.0, NAN]), "values", "finite"),
    _b("warp-values-inf", lambda: warp_values([1.0, 2.0, INF]), "values", "finite"),
    _b("policy-seed-negative", lambda: policy_seed(-1, 3), "seed", ALLOWED_SEED),
    _b("policy-seed-str", lambda: policy_seed("0", 3), "seed", ALLOWED_SEED),
    _b("policy-seed-n-trials", lambda: policy_seed(0, -1), "n_trials", "integer >= 0"),
    _b("deltabo-source-str", lambda: deltabo(SPACE, "old"), "source", "Campaign, a sequence"),
    _b("deltabo-source-empty", lambda: deltabo(SPACE, []), "source", "no completed"),
    _b("deltabo-tau-0", lambda: deltabo(SPACE, _SOURCE, tau=0.0), "tau", FINITE_POSITIVE),
    _b("deltabo-model", lambda: deltabo(SPACE, _SOURCE, model="alg1"), "model", "'joint'"),
    _b("libo-studies-str", lambda: libo(SPACE, "old"), "previous_studies", "sequence"),
    _b("libo-penalty-0", lambda: libo(SPACE, [], penalty=0.0), "penalty", FINITE_POSITIVE),
    _b("libo-model", lambda: libo(SPACE, [], model="kernel"), "model", "'meta-prior'"),
    _b("libo-beta-word", lambda: libo(SPACE, [], beta="big"), "beta", "'theory'"),
    _b(
        "libo-theory-fixed",
        lambda: libo(SPACE, [], beta="theory", hyperparameters="fixed"),
        "beta",
        "needs hyperparameters='map'",
    ),
]


# -- the campaign's methods -------------------------------------------------------------------
def _source() -> list[Trial]:
    rng = np.random.default_rng(0)
    return [Trial(i, SPACE.sample(1, rng)[0], float(i)) for i in range(3)]


_SOURCE = _source()


def _campaign(**options: Any) -> Campaign:
    """A campaign with random initial asks (no model: fast) after three asks, the first two
    told: trial 2 is pending."""
    campaign = Campaign(SPACE, seed=3, n_init=5, **options)
    for k in range(3):
        trial = campaign.ask()
        if k < 2:
            campaign.tell(trial, float(k))
    return campaign


def _observe(campaign: Campaign) -> Any:
    return [(t.number, t.params, t.value) for t in campaign.trials], campaign.ask().params


PLAYED = Subject(_campaign, _observe)


def _random(domain: Any, seed: int) -> RandomPolicy:
    return RandomPolicy(domain, seed=seed)


def _refusing() -> Campaign:
    """Past its initial asks, with trial 2 pending and ``pending="refuse"``."""
    campaign = Campaign(SPACE, _random, seed=3, n_init=2, pending="refuse")
    for k in range(3):
        trial = campaign.ask()
        if k < 2:
            campaign.tell(trial, float(k))
    return campaign


def _after_telling_the_pending(campaign: Campaign) -> Any:
    campaign.tell(2, 0.5)
    return _observe(campaign)


REFUSING = Subject(_refusing, _after_telling_the_pending)


def _m(id: str, call: Any, name: str, allowed: str, subject: Subject = PLAYED) -> Bad:
    return Bad(id, call, name, allowed, ValueError, subject)


def _pending(c: Campaign) -> Trial:
    return c.trials[2]


METHODS = [
    _m("tell-value-nan", lambda c: c.tell(2, NAN), "value", "finite number"),
    _m("tell-value-inf", lambda c: c.tell(_pending(c), -INF), "value", "finite number"),
    _m("tell-value-str", lambda c: c.tell(2, "1.0"), "value", "finite number"),
    _m("tell-value-vector", lambda c: c.tell(2, [1.0, 2.0]), "value", "finite number"),
    _m("tell-value-none", lambda c: c.tell(2, None), "value", "finite number"),
    _m("tell-unknown-number", lambda c: c.tell(17, 1.0), "trial", r"trial numbers 0\.\.2"),
    _m("tell-negative-number", lambda c: c.tell(-1, 1.0), "trial", r"trial numbers 0\.\.2"),
    _m("tell-twice", lambda c: c.tell(0, 5.0), "trial", "only a pending trial can be told"),
    _m("tell-number-str", lambda c: c.tell("2", 1.0), "trial", "a Trial or a trial number"),
    _m("tell-number-bool", lambda c: c.tell(True, 1.0), "trial", "a Trial or a trial number"),
    _m("tell-number-float", lambda c: c.tell(2.0, 1.0), "trial", "a Trial or a trial number"),
    _m(
        "tell-trial-other-params",
        lambda c: c.tell(Trial(2, GOOD, None), 1.0),
        "params",
        "was asked with",
    ),
    _m(
        "tell-trial-never-asked",
        lambda c: c.tell(Trial(3, GOOD, None), 1.0),
        "trial",
        r"trial numbers 0\.\.2",
    ),
    _m("add-outside", lambda c: c.add(_config(depth=12), 1.0), "'depth'", r"outside \[1, 8\]"),
    _m("add-missing", lambda c: c.add({"lr": 0.01}, 1.0), "config", "missing"),
    _m("add-not-a-mapping", lambda c: c.add([0.01, 3, "relu"], 1.0), "config", "mapping"),
    _m("add-value-nan", lambda c: c.add(GOOD, NAN), "value", "finite number"),
    _m("add-value-str", lambda c: c.add(GOOD, "0.3"), "value", "finite number"),
    _m("add-unknown-choice", lambda c: c.add(_config(act="gelu"), 1.0), "'act'", "choices are"),
    Bad(
        "ask-while-pending-refused",
        lambda c: c.ask(),
        "pending",
        r"tell their values first",
        ValueError,
        REFUSING,
    ),
    _b(
        "from-trials-not-trials",
        lambda: Campaign.from_trials(SPACE, [GOOD]),
        "trials",
        "Trial objects",
    ),
    _b(
        "from-trials-none",
        lambda: Campaign.from_trials(SPACE, None),
        "trials",
        "a sequence of Trial",
    ),
    _b(
        "from-trials-duplicate",
        lambda: Campaign.from_trials(SPACE, [Trial(0, GOOD, 1.0), Trial(0, GOOD, 2.0)]),
        "trial numbers",
        "distinct and >= 0",
    ),
    _b(
        "from-trials-negative",
        lambda: Campaign.from_trials(SPACE, [Trial(-1, GOOD, 1.0)]),
        "trial numbers",
        "distinct and >= 0",
    ),
    _b(
        "from-trials-number-str",
        lambda: Campaign.from_trials(SPACE, [Trial("0", GOOD, 1.0)]),
        "trial numbers",
        "integers",
    ),
    _b(
        "from-trials-value-nan",
        lambda: Campaign.from_trials(SPACE, [Trial(0, GOOD, NAN)]),
        "value",
        "finite number",
    ),
    _b(
        "from-trials-outside",
        lambda: Campaign.from_trials(SPACE, [Trial(0, _config(lr=5.0), 1.0)]),
        "'lr'",
        "outside",
    ),
    _b(
        "from-trials-seed",
        lambda: Campaign.from_trials(SPACE, [Trial(0, GOOD, 1.0)], seed=-3),
        "seed",
        ALLOWED_SEED,
    ),
]

TABLE = SPACES + CONSTRUCTORS + METHODS


@pytest.mark.parametrize("case", params(TABLE))
def test_a_bad_input_is_a_clear_error_and_changes_nothing(case: Bad) -> None:
    assert_rejected(case)


def test_the_subjects_are_live() -> None:
    """The state checks can fail: a call that is accepted changes what is observed."""
    a, b = _campaign(), _campaign()
    a.tell(2, 1.0)
    assert _observe(a) != _observe(b)
    a, b = _refusing(), _refusing()
    with pytest.raises(ValueError):
        a.ask()
    assert _after_telling_the_pending(a) == _after_telling_the_pending(b)


def test_the_table_is_as_large_as_promised() -> None:
    assert len(TABLE) == promised_cases("tests/test_bad_input_space_campaign.py")
