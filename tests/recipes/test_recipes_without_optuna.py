"""The practitioners' recipes run in a Campaign with Optuna hidden, and use their earlier data."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import builtins, math, sys
    real_import = builtins.__import__

    def no_optuna(name, *args, **kwargs):
        if name == "optuna" or name.startswith("optuna."):
            raise ImportError("optuna is hidden by this test")
        return real_import(name, *args, **kwargs)

    builtins.__import__ = no_optuna
    for name in [m for m in sys.modules if m == "optuna" or m.startswith("optuna.")]:
        del sys.modules[name]

    from kernelbandits.campaign import Campaign
    from kernelbandits.recipes import deltabo, gp, libo
    from kernelbandits.space import Float, SearchSpace

    assert "optuna" not in sys.modules
    space = SearchSpace([Float("x", 0.0, 1.0), Float("y", 0.0, 1.0)])

    def target(p):  # maximised at (0.8, 0.2)
        return -((p["x"] - 0.8) ** 2 + (p["y"] - 0.2) ** 2)

    def source_f(p):  # the same landscape, shifted and scaled: an informative source
        return 3.0 * target(p) + 1.0

    source = Campaign(space, seed=11, n_init=40)  # 40 random evaluations: the whole box seen
    for _ in range(40):
        t = source.ask()
        source.tell(t, source_f(t.params))

    def run(recipe, n_init):
        camp = Campaign(space, recipe, seed=0, n_init=n_init)
        for _ in range(4):
            t = camp.ask()
            camp.tell(t, target(t.params))
        return camp

    plain = run(gp(space), 1)
    transfer = run(deltabo(space, source=source), 0)
    print("plain", plain.best.value, "transfer", transfer.best.value)
    assert transfer.best.value > plain.best.value  # the source pins down the optimum at once
    first = transfer.trials[0].params
    assert math.hypot(first["x"] - 0.8, first["y"] - 0.2) < 0.15, first

    recipe = libo(space, previous_studies=[source, source.trials])
    assert recipe.meta.estimate is not None  # META-KGL learnt from the earlier studies
    lifelong = run(recipe, 1)
    unlearnt = libo(space, previous_studies=[])
    assert unlearnt.meta.estimate is None
    assert [t.params for t in lifelong.trials] != [t.params for t in run(unlearnt, 1).trials]
    assert "optuna" not in sys.modules
    print("ok")
    """
)


@pytest.mark.slow
def test_deltabo_and_libo_recipes_run_in_a_campaign_without_optuna():
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("ok")
