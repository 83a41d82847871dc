"""Every deprecated spelling still works for one release: a call with the old keyword warns
with a ``DeprecationWarning`` that names the new spelling, and returns what the call with the
new spelling returns (the same object state, the same numbers).

The shims are not listed by hand: ``renamed_parameters`` and ``replaced_parameters``
(``kernelbandits._deprecation``) register every keyword they wrap in ``SHIMS`` when the module
is imported; this file imports every module of the package and needs one case per registered
shim, so a new shim without a case fails :func:`test_every_shim_has_a_case` (today 51 old
keywords on 40 functions). The glossary's "Retired spellings" table lists the same set
(:func:`test_the_glossary_lists_every_shim_and_says_when_it_goes`).
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import kernelbandits
import kernelbandits.outcome
from _repo import ROOT
from kernelbandits._deprecation import SHIMS
from kernelbandits.domains import Grid
from kernelbandits.kernels import ICM, RBF, CosineFeatures1D
from kernelbandits.kernels.multitask import check_task_matrix
from kernelbandits.metalearning import BaseKernels, FMetaKGL, MetaKGL
from kernelbandits.metalearning.kgl import fit_group_lasso, group_lasso, meta_loss
from kernelbandits.metalearning.solver import BlockDesign, solve_group_lasso
from kernelbandits.policies import ITBKB, ITKB, MOBO, MTBKB, MTKB, QGPUCB, LinUCB, QLinUCB
from kernelbandits.policies.beta import IGPUCBBeta
from kernelbandits.policies.bkb import BKBBeta
from kernelbandits.policies.gp import GPUCB
from kernelbandits.policies.transfer import DeltaBO
from kernelbandits.problems import FunctionProblem, VectorProblem
from kernelbandits.quantum import BernoulliReward
from kernelbandits.regression import GPPosterior
from kernelbandits.regression.likelihood import HyperPrior
from kernelbandits.regression.multitask import (
    BlockPosterior,
    DecoupledPosterior,
    EigenPosterior,
    VectorPosterior,
    batch_posterior,
    log_det_gain,
    vector_posterior,
)
from kernelbandits.regression.multitask_nystrom import (
    BlockNystromPosterior,
    NystromVectorPosterior,
    nystrom_vector_posterior,
)
from kernelbandits.regression.rff import RandomFourierFeatures
from kernelbandits.scalarization import (
    ChebyshevScalarization,
    ExpectedScalarization,
    LinearScalarization,
)


def _import_everything() -> None:
    """Import every module of the package, so that every decorator has registered its shims
    (optional extras that are not installed leave their modules out)."""
    for module in pkgutil.walk_packages(kernelbandits.__path__, "kernelbandits."):
        try:
            importlib.import_module(module.name)
        except ImportError:  # pragma: no cover - an extra that is not installed
            continue


_import_everything()

GRID = Grid.lattice([0.0, 0.0], [1.0, 1.0], 4)  # 16 points
LINE = Grid.linspace(0.0, 1.0, 9)
ICM2 = ICM.evgeniou(RBF(0.3), 2, omega=0.4)
CHEB = ChebyshevScalarization([-1.0, -1.0])
BASE = BaseKernels(CosineFeatures1D(3))
TASKS = [
    (np.linspace(0.0, 1.0, 6)[:, None], np.cos(np.pi * np.linspace(0.0, 1.0, 6))),
    (np.linspace(0.1, 0.9, 5)[:, None], np.cos(2 * np.pi * np.linspace(0.1, 0.9, 5))),
]
X4 = GRID.points[[0, 5, 10, 15]]
Y4 = np.column_stack([np.sin(X4.sum(axis=1)), np.cos(X4[:, 0])])
DESIGN = BlockDesign([np.eye(4)[:, :3] + 0.1], [np.array([1.0, -0.5, 0.2, 0.3])], [1, 2])
SOURCE = (GRID.points[:5], np.sin(GRID.points[:5]).sum(axis=1), 0.01)


def _arm(x: Any) -> BernoulliReward:
    return BernoulliReward(0.5)


def _fresh_gp() -> GPPosterior:
    gp = GPPosterior(RBF(0.3), 0.01, input_dim=2)
    gp.add_batch(X4, Y4[:, 0])
    return gp


def _bare_init(cls: type, init: Callable[..., Any], *args: Any, **kw: Any) -> Any:
    """An abstract base's own ``__init__`` (its subclasses pass ``lam`` on by position, so only
    a direct call reaches the base class's shim), run on a bare instance of ``cls``."""
    obj = object.__new__(cls)
    init(obj, *args, **kw)
    return obj


def _nystrom() -> NystromVectorPosterior:
    return nystrom_vector_posterior(ICM2, 0.1, X4[:2], None, X4, Y4)


@dataclass(frozen=True)
class Case:
    """``call(**{keyword: value})`` with the old keyword and with the new one."""

    call: Callable[..., Any]
    value: Any


def _vp(**kw: Any) -> Any:
    return VectorProblem(lambda X: np.column_stack([X[:, 0], -X[:, 1]]), GRID, **kw,
                         utility=ExpectedScalarization(LinearScalarization(), [[0.5, 0.5]]))  # fmt: skip


P = "kernelbandits."
CASES: dict[str, Case] = {
    # beta schedules
    P + "policies.beta.IGPUCBBeta.__init__(B=)": Case(lambda **kw: IGPUCBBeta(**kw), 2.5),
    P + "policies.beta.IGPUCBBeta.__init__(R=)": Case(lambda **kw: IGPUCBBeta(**kw), 0.3),
    P + "policies.bkb.BKBBeta.__init__(F=)": Case(lambda **kw: BKBBeta(**kw), 2.5),
    # kernels
    P + "kernels.multitask.check_task_matrix(B=)": Case(
        lambda **kw: check_task_matrix(**kw), [[1.0, 0.3], [0.3, 1.0]]
    ),
    P + "kernels.multitask.ICM.__init__(B=)": Case(
        lambda **kw: ICM(RBF(0.2), **kw), [[1.0, 0.3], [0.3, 1.0]]
    ),
    # posteriors
    P + "regression.gp.GPPosterior.sample(seed=)": Case(
        lambda **kw: _fresh_gp().sample(GRID.points, 3, **kw), 7
    ),
    P + "regression.multitask.log_det_gain(eta=)": Case(
        lambda **kw: log_det_gain(np.array([[2.0, 0.5], [0.5, 1.0]]), **kw), 0.3
    ),
    P + "regression.multitask.VectorPosterior.__init__(eta=)": Case(
        lambda **kw: _bare_init(BlockPosterior, VectorPosterior.__init__, ICM2, input_dim=2, **kw),
        0.3,
    ),
    P + "regression.multitask.VectorPosterior.sample(seed=)": Case(
        lambda **kw: vector_posterior(ICM2, 0.1, 2).sample(GRID.points, 2, **kw), 7
    ),
    P + "regression.multitask.BlockPosterior.__init__(eta=)": Case(
        lambda **kw: BlockPosterior(ICM2, input_dim=2, **kw), 0.3
    ),
    P + "regression.multitask.DecoupledPosterior.__init__(eta=)": Case(
        lambda **kw: DecoupledPosterior(ICM.evgeniou(RBF(0.3), 2, omega=1.0), input_dim=2, **kw),
        0.3,
    ),
    P + "regression.multitask.EigenPosterior.__init__(eta=)": Case(
        lambda **kw: EigenPosterior(ICM2, input_dim=2, **kw), 0.3
    ),
    P + "regression.multitask.vector_posterior(eta=)": Case(
        lambda **kw: vector_posterior(ICM2, input_dim=2, **kw), 0.3
    ),
    P + "regression.multitask.batch_posterior(eta=)": Case(
        lambda **kw: batch_posterior(ICM2, X=X4, Y=Y4, Xq=GRID.points, **kw), 0.3
    ),
    P + "regression.multitask_nystrom.NystromVectorPosterior.__init__(eta=)": Case(
        lambda **kw: _bare_init(
            BlockNystromPosterior,
            NystromVectorPosterior.__init__,
            ICM2,
            dictionary=X4[:2],
            weights=None,
            X=X4,
            Y=Y4,
            **kw,
        ),
        0.3,
    ),
    P + "regression.multitask_nystrom.NystromVectorPosterior.sample(seed=)": Case(
        lambda **kw: _nystrom().sample(GRID.points, 2, **kw), 7
    ),
    P + "regression.multitask_nystrom.nystrom_vector_posterior(eta=)": Case(
        lambda **kw: nystrom_vector_posterior(
            ICM2, dictionary=X4[:2], weights=None, X=X4, Y=Y4, **kw
        ),
        0.3,
    ),
    P + "regression.rff.RandomFourierFeatures.__init__(rng=)": Case(
        lambda **kw: RandomFourierFeatures(RBF(0.2), 16, dim=2, **kw), 5
    ),
    # GP policies: the former hyperparameter flags
    P + "policies.gp.GPPolicy.__init__(fit_hyperparameters=)": Case(
        lambda **kw: GPUCB(GRID, RBF(0.3), seed=0, **kw), True
    ),
    P + "policies.gp.GPPolicy.__init__(fit_noise=)": Case(
        lambda **kw: GPUCB(GRID, RBF(0.3), seed=0, **kw), True
    ),
    P + "policies.gp.GPPolicy.__init__(refit_every=)": Case(
        lambda **kw: GPUCB(GRID, RBF(0.3), seed=0, **kw), 5
    ),
    P + "policies.gp.GPPolicy.__init__(hyper_prior=)": Case(
        lambda **kw: GPUCB(GRID, RBF(0.3), seed=0, **kw), HyperPrior()
    ),
    # meta-learning
    P + "metalearning.solver.BlockDesign.objective(lam=)": Case(
        lambda **kw: DESIGN.objective(np.full(DESIGN.shape, 0.1), **kw), 0.4
    ),
    P + "metalearning.solver.BlockDesign.gap(lam=)": Case(
        lambda **kw: DESIGN.gap(np.full(DESIGN.shape, 0.1), **kw), 0.4
    ),
    P + "metalearning.solver.solve_group_lasso(lam=)": Case(
        lambda **kw: solve_group_lasso(DESIGN, **kw), 0.4
    ),
    P + "metalearning.kgl.fit_group_lasso(lam=)": Case(
        lambda **kw: fit_group_lasso(BASE, TASKS, **kw), 0.2
    ),
    P + "metalearning.kgl.group_lasso(lam=)": Case(
        lambda **kw: group_lasso(BASE, TASKS, **kw), 0.2
    ),
    P + "metalearning.kgl.meta_loss(lam=)": Case(
        lambda **kw: meta_loss(BASE, TASKS, group_lasso(BASE, TASKS, 0.2), **kw), 0.2
    ),
    P + "metalearning.kgl.MetaKGL.__init__(lam=)": Case(
        lambda **kw: MetaKGL(BASE, omega=0.25, **kw).fit(TASKS), 0.2
    ),
    P + "metalearning.kgl.FMetaKGL.__init__(lam=)": Case(
        lambda **kw: FMetaKGL(BASE, omega=0.25, alpha=0.5, **kw), 0.2
    ),
    # bandit policies
    P + "policies.linucb.LinUCB.__init__(S=)": Case(lambda **kw: LinUCB(GRID, seed=0, **kw), 2.5),
    **{
        f"{P}policies.mtbkb.{cls.__name__}.__init__({old}=)": Case(call, value)
        for cls, call in (
            (MTBKB, lambda **kw: MTBKB(GRID, ICM2, CHEB, horizon=20, seed=0, **kw)),
            (ITBKB, lambda **kw: ITBKB(GRID, RBF(0.3), 2, CHEB, horizon=20, seed=0, **kw)),
        )
        for old, value in (("eta", 0.3), ("b", 2.5), ("q", 2.0))
    },
    **{
        f"{P}policies.multitask.{cls.__name__}.__init__({old}=)": Case(call, value)
        for cls, call in (
            (MTKB, lambda **kw: MTKB(GRID, ICM2, CHEB, seed=0, **kw)),
            (ITKB, lambda **kw: ITKB(GRID, RBF(0.3), 2, CHEB, seed=0, **kw)),
        )
        for old, value in (("eta", 0.3), ("b", 2.5))
    },
    P + "policies.multitask.MOBO.__init__(eta=)": Case(
        lambda **kw: MOBO(GRID, RBF(0.3), 2, CHEB, seed=0, **kw), 0.3
    ),
    P + "policies.quantum.QGPUCB.__init__(B=)": Case(
        lambda **kw: QGPUCB(GRID, RBF(0.3), _arm, seed=0, **kw), 2.5
    ),
    P + "policies.quantum.QLinUCB.__init__(S=)": Case(
        lambda **kw: QLinUCB(GRID, _arm, seed=0, **kw), 2.5
    ),
    P + "policies.quantum.QLinUCB.__init__(radius=)": Case(
        lambda **kw: QLinUCB(GRID, _arm, seed=0, **kw), 1.5
    ),
    P + "policies.transfer._TransferUCB.__init__(beta_t=)": Case(
        lambda **kw: DeltaBO(GRID, SOURCE, RBF(0.4), RBF(0.3, variance=0.1), 0.01, seed=0, **kw),
        4.0,
    ),
    # problems, the runner, campaigns, Optuna
    P + "problems.multiobjective.VectorProblem.__init__(n_outputs=)": Case(_vp, 2),
    P + "experiments.runner.run(T=)": Case(
        lambda **kw: (
            kernelbandits.run(
                lambda p, s: GPUCB(LINE, RBF(0.2), seed=s),
                FunctionProblem(lambda X: np.sin(3 * X[:, 0]), LINE, noise_std=0.1),
                seed=0,
                **kw,
            ).y
        ),
        6,
    ),
    P + "outcome.yeo_johnson(lam=)": Case(
        lambda **kw: kernelbandits.outcome.yeo_johnson(np.array([-2.0, 0.0, 0.5, 3.0]), **kw),
        0.7,
    ),
    P + "campaign.Campaign.__init__(n_initial=)": Case(
        lambda **kw: _campaign_trials(**kw),
        3,
    ),
}

#: shims whose call cannot work as registered; each names the change that settles it
KNOWN_BROKEN: set[str] = set()
OPTIONAL = {  # shims of modules that need an extra (their case is skipped without it)
    P + "integrations.optuna._libo.LIBOSampler.__init__(lam=)": "optuna",
}


def _campaign_trials(**kw: Any) -> list[tuple[float, ...]]:
    """The first five configurations of a seeded campaign (``n_init`` random ones, then GP)."""
    from kernelbandits.campaign import Campaign
    from kernelbandits.space import Float, SearchSpace

    campaign = Campaign(SearchSpace([Float("x", 0.0, 1.0)]), seed=0, **kw)
    out = []
    for _ in range(5):
        trial = campaign.ask()
        campaign.tell(trial, float(np.sin(6 * trial.params["x"])))
        out.append((trial.params["x"],))
    return out


def _libo(**kw: Any) -> Any:
    from kernelbandits.integrations.optuna import LIBOSampler

    return LIBOSampler("f", storage="sqlite:///:memory:", seed=0, n_trials=5, **kw)


CASES[P + "integrations.optuna._libo.LIBOSampler.__init__(lam=)"] = Case(_libo, 0.3)


def same(a: Any, b: Any, depth: int = 0) -> bool:
    """Whether ``a`` and ``b`` hold the same state: arrays equal (NaN included), generators in
    the same state, objects of one type with the same attributes, recursively."""
    if depth > 12:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True))
    if isinstance(a, np.random.Generator):
        return isinstance(b, np.random.Generator) and (
            a.bit_generator.state == b.bit_generator.state
        )
    if type(a) is not type(b):
        return False
    if type(a).__module__ in ("_thread", "threading"):  # a lock holds no result
        return True
    if isinstance(a, float):
        return a == b or (np.isnan(a) and np.isnan(b))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y, depth + 1) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], depth + 1) for k in a)
    if callable(a) and not hasattr(a, "__dict__"):
        return a is b or a == b
    if hasattr(a, "__dict__") and not isinstance(a, type):
        return same(vars(a), vars(b), depth + 1)
    return bool(a == b)


SHIM_BY_KEY = {shim.key: shim for shim in SHIMS}


def test_every_shim_has_a_case() -> None:
    registered = set(SHIM_BY_KEY) - KNOWN_BROKEN
    assert len(SHIM_BY_KEY) >= 50, "the decorators registered fewer shims than the package has"
    assert not registered - set(CASES), "shims without a case: add them to CASES"
    missing_extra = {k for k, extra in OPTIONAL.items() if importlib.util.find_spec(extra) is None}
    stale = set(CASES) - set(SHIM_BY_KEY) - missing_extra
    assert not stale, f"cases for shims that no longer exist: {sorted(stale)}"


@pytest.mark.parametrize("key", sorted(set(SHIM_BY_KEY) - KNOWN_BROKEN))
def test_the_old_spelling_warns_and_equals_the_new(key: str) -> None:
    if key in OPTIONAL:
        pytest.importorskip(OPTIONAL[key])
    shim, case = SHIM_BY_KEY[key], CASES[key]
    new_value = case.value if shim.convert is None else shim.convert(case.value)
    message = f"{shim.old}= is deprecated"
    with pytest.warns(DeprecationWarning, match=re.escape(shim.spelled)) as caught:
        old = case.call(**{shim.old: case.value})
    assert any(
        shim.old in str(w.message) and issubclass(w.category, DeprecationWarning) for w in caught
    ), message
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # the new spelling does not warn
        new = case.call(**{shim.new: new_value})
    assert same(old, new), f"{key}: the old spelling gave another result than {shim.spelled}"


def test_giving_both_spellings_is_a_type_error() -> None:
    shim = SHIM_BY_KEY[P + "policies.linucb.LinUCB.__init__(S=)"]
    with pytest.raises(TypeError, match="norm_bound= only"):
        LinUCB(GRID, **{shim.old: 1.0, shim.new: 2.0})


#: where the glossary names a shim on a private class: the public classes that inherit it
PUBLIC_OWNER = {"_TransferUCB": "DeltaBO", "GPPolicy": "GPUCB", "_GPFactory": "Campaign"}


def test_the_glossary_lists_every_shim_and_says_when_it_goes() -> None:
    """The glossary's "Retired spellings" table has, for every registered shim, a row whose
    old cell lists the old keyword, whose new cell names the new one and whose where cell names
    the object (class, ``Class.method`` or function); its text says they go in the next
    release; and it lists no old keyword that has no shim."""
    page = (ROOT / "docs" / "guide" / "glossary.md").read_text(encoding="utf-8")
    section = page.split("## Retired spellings", 1)[1].split("\n## ", 1)[0]
    assert "removed in the next release" in section
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`"):
            rows.append((set(re.findall(r"`(\w+)`", cells[0])), cells[1], cells[2]))
    for shim in SHIMS:
        *_, outer, name = shim.function.split(".")  # module.Class.method or module.function
        if name == "__init__":
            owner = PUBLIC_OWNER.get(outer, outer)
        else:
            owner = f"{outer}.{name}" if outer[0].isupper() else name
        assert any(
            shim.old in olds and f"`{shim.new}" in new and re.search(rf"`(\w+\.)*{owner}`", where)
            for olds, new, where in rows
        ), f"no glossary row says {shim.old}= is now {shim.new}= in {owner}"
    listed = set().union(*(olds for olds, _, _ in rows))
    assert listed == {shim.old for shim in SHIMS}, listed ^ {shim.old for shim in SHIMS}
