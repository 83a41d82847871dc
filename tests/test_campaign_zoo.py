"""Every policy of the package runs a campaign on a mixed search space (ask/tell on a user's
objective), and pending asks are either hallucinated (policies with a posterior) or refused."""

from __future__ import annotations

import math

import pytest

from kernelbandits.campaign import Campaign
from kernelbandits.space import Categorical, Float, Int, SearchSpace
from policy_zoo import CAMPAIGN_POLICIES, POLICY_FACTORIES

SPACE = SearchSpace(
    [Float("lr", 1e-3, 1.0, log=True), Int("width", 1, 9), Categorical("kind", ["a", "b"])]
)


def objective(config: dict) -> float:
    return (
        -((math.log10(config["lr"]) + 1.5) ** 2)
        - 0.05 * (config["width"] - 6) ** 2
        + (0.3 if config["kind"] == "b" else 0.0)
    )


@pytest.mark.parametrize("name", sorted(CAMPAIGN_POLICIES))
def test_every_policy_runs_a_campaign_over_a_mixed_space(name: str) -> None:
    campaign = Campaign(SPACE, POLICY_FACTORIES[name], seed=3, n_init=3)
    for _ in range(8):
        trial = campaign.ask()
        SPACE.encode(trial.params)  # a valid configuration of the space
        campaign.tell(trial, objective(trial.params))
    assert len(campaign.trials) == 8 and campaign.best is not None
    # pending asks: hallucinated with the posterior mean, or refused with a clear error
    first = campaign.ask()
    if hasattr(POLICY_FACTORIES[name](SPACE.domain(), 0), "mean_sd"):
        second = campaign.ask()
        assert second.number == first.number + 1 and second.pending
    else:
        with pytest.raises(ValueError, match="pending"):
            campaign.ask()
    # either way nothing was lost: the 8 completed trials are intact
    assert sum(not t.pending for t in campaign.trials) == 8
