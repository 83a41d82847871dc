"""``check_policy``: the ask/tell contract every policy must keep, as scikit-learn's
``check_estimator`` is for estimators.

A policy declares what it can do in :class:`~kernelbandits.policies.base.PolicyTags`
(:meth:`Policy.tags`); the checks that
apply to those capabilities run on a small random Grid and, if the policy works on boxes, on a
Box, each with a few noisy rounds of a smooth objective:

* ``ask_in_domain``: ``ask()`` returns a ``(d,)`` point of the domain and changes no data;
* ``reproducible``: the same seed gives the same trajectory; with ``seed_sensitive``, another
  seed gives another one;
* ``bad_tell``: a NaN or infinite value, a value of the wrong shape, a point of the wrong
  dimension, a NaN point and a point outside the domain each raise ``ValueError`` naming
  ``x`` or ``y``, leave the data as it was, and change nothing the next ``ask`` depends on
  (a twin that never saw the bad call asks the same point);
* ``foreign_points`` (``any_point``): points the policy did not ask for are accepted;
* ``tell_many`` (``any_point``): ``tell_many(X, y)`` records what ``n`` calls of ``tell`` record
  and, with ``posterior``, gives the same posterior;
* ``posterior`` (``posterior``): ``mean_sd(X)`` gives finite ``(m,)`` means and non-negative
  ``(m,)`` standard deviations.

Use it on your own policy::

    from kernelbandits.policies import check_policy
    check_policy(lambda domain, seed: MyPolicy(domain, seed=seed))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from kernelbandits._validation import FloatArray, check_count
from kernelbandits.domains import Box, Domain, Grid
from kernelbandits.policies.base import Policy, PolicyFactory, PolicyTags

__all__ = ["PolicyTags", "check_policy"]


class PolicyCheckError(AssertionError):
    """A policy broke the contract: the message names the policy, the check and the domain."""


def check_policy(
    factory: PolicyFactory,
    *,
    dim: int = 2,
    rounds: int = 6,
    checks: tuple[str, ...] | None = None,
) -> list[str]:
    """Run every check that applies to the policy's tags; raise :class:`PolicyCheckError`
    (an ``AssertionError``) at the first failure. Returns the names of the checks run, as
    ``"check@grid"`` / ``"check@box"``.

    Parameters
    ----------
    factory : ``(domain, seed) -> Policy`` on a ``dim``-dimensional Grid or Box.
    dim : the dimension of the test domains (the Grid: 40 random points of ``[0, 1]^dim``; the
        Box: ``[0, 1] x [-1, 1]^(dim - 1)``).
    rounds : the observations made before each check.
    checks : run only these (default: all that apply).
    """
    dim, rounds = check_count(dim, "dim"), check_count(rounds, "rounds")
    if checks is not None and (unknown := sorted(set(checks) - set(_CHECKS))):
        raise ValueError(f"checks: unknown {unknown}; the checks are {sorted(_CHECKS)}")
    if not callable(factory):
        raise ValueError("factory must be a callable (domain, seed) -> Policy")
    done: list[str] = []
    probe = factory(_domain("grid", dim), 0)
    tags = probe.tags()
    for kind in tags.domains:
        for name, check in _CHECKS.items():
            if checks is not None and name not in checks:
                continue
            if not _applies(name, tags):
                continue
            context = _Context(factory, kind, dim, rounds, tags)
            try:
                check(context)
            except PolicyCheckError:
                raise
            except Exception as exc:  # the policy raised where the contract says it must not
                raise PolicyCheckError(
                    f"{type(probe).__name__} on a {kind}: {name}: {type(exc).__name__}: {exc}"
                ) from exc
            done.append(f"{name}@{kind}")
    return done


def _applies(name: str, tags: PolicyTags) -> bool:
    if name in ("foreign_points", "tell_many"):
        return tags.any_point
    if name == "posterior":
        return tags.posterior
    return True


def _domain(kind: str, dim: int) -> Domain:
    if kind == "grid":
        return Grid(np.random.default_rng(12345).random((40, dim)))
    return Box([0.0] + [-1.0] * (dim - 1), [1.0] * dim)


def objective(X: FloatArray) -> FloatArray:
    """The smooth test objective ``sum_i sin(3 x_i)`` at ``X (m, d)``, shape ``(m,)``."""
    return np.sin(3.0 * np.atleast_2d(X)).sum(axis=1)


@dataclass
class _Context:
    factory: PolicyFactory
    kind: str
    dim: int
    rounds: int
    tags: PolicyTags

    def fail(self, policy: Policy, check: str, message: str) -> PolicyCheckError:
        return PolicyCheckError(f"{type(policy).__name__} on a {self.kind}: {check}: {message}")

    def new(self, seed: int) -> Policy:
        policy = self.factory(_domain(self.kind, self.dim), seed)
        if not isinstance(policy, Policy):
            raise PolicyCheckError(f"the factory returned {type(policy).__name__}, not a Policy")
        return policy

    def value(self, x: FloatArray, noise: np.random.Generator) -> float | FloatArray:
        f = float(objective(x[None, :])[0]) + 0.1 * float(noise.standard_normal())
        if self.tags.n_tasks is None:
            return f
        return f * np.linspace(1.0, 0.5, self.tags.n_tasks)  # n correlated outputs

    def play(self, policy: Policy, seed: int, rounds: int | None = None) -> Policy:
        noise = np.random.default_rng(1000 + seed)
        for _ in range(self.rounds if rounds is None else rounds):
            x = policy.ask()
            policy.tell(x, self.value(x, noise))
        return policy


def _data(policy: Policy) -> tuple[FloatArray, FloatArray]:
    return policy.X_observed.copy(), policy.y_observed.copy()


def _check_ask_in_domain(c: _Context) -> None:
    policy = c.play(c.new(0), 0)
    before = _data(policy)
    x = policy.ask()
    if not isinstance(x, np.ndarray) or x.shape != (c.dim,):
        raise c.fail(policy, "ask_in_domain", f"ask() returned {x!r}, not a ({c.dim},) array")
    try:
        policy.domain.validate(x)
    except ValueError as exc:
        raise c.fail(policy, "ask_in_domain", f"ask() left the domain: {exc}") from None
    after = _data(policy)
    if not all(np.array_equal(a, b) for a, b in zip(before, after, strict=True)):
        raise c.fail(policy, "ask_in_domain", "ask() changed the observed data")
    if policy.n_observations != c.rounds:
        raise c.fail(policy, "ask_in_domain", f"n_observations is {policy.n_observations}")


def _check_reproducible(c: _Context) -> None:
    a, b = c.play(c.new(3), 3), c.play(c.new(3), 3)
    if not np.array_equal(a.X_observed, b.X_observed):
        raise c.fail(a, "reproducible", "the same seed gave two trajectories")
    if c.tags.seed_sensitive:
        other = c.play(c.new(4), 3)
        if np.array_equal(a.X_observed, other.X_observed):
            raise c.fail(a, "reproducible", "seeds 3 and 4 gave the same trajectory")


def _bad_tells(c: _Context, x: FloatArray) -> list[tuple[str, FloatArray, object, str]]:
    """``(label, x, y, the argument the error must name)``."""
    n = c.tags.n_tasks
    good: object = 1.0 if n is None else np.ones(n)
    nan_y: object = np.nan if n is None else np.r_[np.nan, np.ones(n - 1)]
    inf_y: object = np.inf if n is None else np.full(n, np.inf)
    shaped_y: object = [1.0, 2.0] if n is None else np.ones(n + 1)
    outside = x.copy()
    outside[0] = 5.0
    return [
        ("nan y", x, nan_y, "y"),
        ("inf y", x, inf_y, "y"),
        ("wrong-shaped y", x, shaped_y, "y"),
        ("wrong dimension", np.append(x, 0.5), good, "x"),
        ("nan x", np.r_[np.nan, x[1:]], good, "x"),
        ("outside", outside, good, "x"),
    ]


def _check_bad_tell(c: _Context) -> None:
    policy, twin = c.play(c.new(0), 0, c.rounds // 2), c.play(c.new(0), 0, c.rounds // 2)
    before = _data(policy)
    x, _ = policy.ask(), twin.ask()
    for label, bad_x, bad_y, arg in _bad_tells(c, x):
        try:
            policy.tell(bad_x, bad_y)  # type: ignore[arg-type]
        except ValueError as exc:
            if arg not in str(exc):
                message = f"{label}: the error does not name {arg!r}: {exc}"
                raise c.fail(policy, "bad_tell", message) from exc
        else:
            raise c.fail(policy, "bad_tell", f"{label} was accepted")
        after = _data(policy)
        if not all(np.array_equal(a, b) for a, b in zip(before, after, strict=True)):
            raise c.fail(policy, "bad_tell", f"{label} changed the observed data")
    if not np.array_equal(policy.ask(), twin.ask()):
        raise c.fail(policy, "bad_tell", "after the rejected calls the next ask differs")
    noise = np.random.default_rng(7)
    policy.tell(x, c.value(x, noise))  # and it keeps working
    if policy.n_observations != len(before[1]) + 1:
        raise c.fail(policy, "bad_tell", "a good tell after rejected ones was not recorded")


def _check_foreign_points(c: _Context) -> None:
    policy = c.new(0)
    noise = np.random.default_rng(9)
    for x in policy.domain.sample(3, np.random.default_rng(9)):
        policy.tell(x, c.value(x, noise))
    if policy.n_observations != 3:
        raise c.fail(policy, "foreign_points", f"recorded {policy.n_observations} of 3")
    policy.domain.validate(policy.ask())


def _check_tell_many(c: _Context) -> None:
    X, y = _data(c.play(c.new(0), 0))
    one_by_one, batch = c.new(0), c.new(0)  # told the same rows, without asks in between
    _tell_rows(one_by_one, X, y)
    batch.tell_many(X, y)
    for got, want, name in zip(_data(batch), (X, y), ("X_observed", "y_observed"), strict=True):
        if not np.array_equal(got, want):
            raise c.fail(batch, "tell_many", f"{name} differs from n calls of tell")
    if c.tags.posterior:
        Q = one_by_one.domain.sample(5, np.random.default_rng(5))
        for a, b in zip(_mean_sd(one_by_one, Q), _mean_sd(batch, Q), strict=True):
            if not np.allclose(a, b, rtol=1e-7, atol=1e-9):
                raise c.fail(batch, "tell_many", "the posterior differs from n calls of tell")


def _tell_rows(policy: Policy, X: FloatArray, Y: FloatArray) -> None:
    for x, y in zip(X, Y, strict=True):
        policy.tell(x, y)


def _mean_sd(policy: Policy, X: FloatArray) -> tuple[FloatArray, FloatArray]:
    mean_sd = policy.mean_sd  # type: ignore[attr-defined]
    mu, sd = mean_sd(X)
    return np.asarray(mu, dtype=float), np.asarray(sd, dtype=float)


def _check_posterior(c: _Context) -> None:
    policy = c.play(c.new(0), 0)
    X = policy.domain.sample(7, np.random.default_rng(3))
    mu, sd = _mean_sd(policy, X)
    if mu.shape != (7,) or sd.shape != (7,):
        raise c.fail(policy, "posterior", f"mean_sd gave shapes {mu.shape}, {sd.shape}")
    if not (np.all(np.isfinite(mu)) and np.all(np.isfinite(sd)) and np.all(sd >= 0)):
        raise c.fail(policy, "posterior", f"mean_sd gave mu={mu}, sd={sd}")


_CHECKS: dict[str, Callable[[_Context], None]] = {
    "ask_in_domain": _check_ask_in_domain,
    "reproducible": _check_reproducible,
    "bad_tell": _check_bad_tell,
    "foreign_points": _check_foreign_points,
    "tell_many": _check_tell_many,
    "posterior": _check_posterior,
}
