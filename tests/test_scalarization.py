"""Scalarizations, weight priors, expected scalarization and Bayes regret.

Chowdhury & Gopalan (2021), Sec. 2, 5 and App. E; Paria et al. (2020).
"""

from __future__ import annotations

import numpy as np
import pytest

from kernelbandits.scalarization import (
    MAX_BLOCK_FLOATS,
    ChebyshevScalarization,
    ExpectedScalarization,
    LinearScalarization,
    Scalarization,
    _block_sizes,
    bayes_regret,
    check_weights,
    reference_point_below,
)

N = 3
Z = np.array([-1.0, -2.0, -0.5])

KINDS: list[Scalarization] = [LinearScalarization(), ChebyshevScalarization(Z)]
IDS = ["linear", "chebyshev"]


def _loop_value(s: Scalarization, y: np.ndarray, lam: np.ndarray) -> float:
    """s_lambda(y) written out with a Python loop over the outputs."""
    if s.kind == "linear":
        return sum(lam[i] * y[i] for i in range(len(y)))
    assert isinstance(s, ChebyshevScalarization)
    return min(lam[i] * (y[i] - s.reference[i]) for i in range(len(y)))


def _simplex(rng: np.random.Generator, size: int, n: int = N) -> np.ndarray:
    w = rng.random((size, n)) + 0.05
    return w / w.sum(axis=1, keepdims=True)


# ----------------------------------------------------------------------------------------------
# values and Lipschitz constants
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("s", KINDS, ids=IDS)
def test_values_match_explicit_loops(s: Scalarization):
    rng = np.random.default_rng(0)
    Y = rng.normal(size=(7, N))
    W = _simplex(rng, 5)
    out = s(Y, W)
    assert out.shape == (5, 7)
    ref = np.array([[_loop_value(s, Y[j], W[k]) for j in range(7)] for k in range(5)])
    np.testing.assert_allclose(out, ref, rtol=1e-13, atol=1e-14)
    one = s(Y, W[2])
    assert one.shape == (7,)
    np.testing.assert_allclose(one, ref[2], rtol=1e-13, atol=1e-14)
    # a single output vector of length n is one row
    np.testing.assert_allclose(s(Y[4], W[2]), [ref[2, 4]], rtol=1e-13)


def test_closed_forms_on_a_hand_example():
    y = np.array([[2.0, 0.0, 1.0]])
    lam = np.array([0.5, 0.25, 0.25])
    assert LinearScalarization()(y, lam)[0] == pytest.approx(1.25)
    # lambda * (y - z) = (1.5, 0.5, 0.375)
    assert ChebyshevScalarization(Z)(y, lam)[0] == pytest.approx(0.375)


@pytest.mark.parametrize("s", KINDS, ids=IDS)
def test_lipschitz_inequality_on_random_pairs(s: Scalarization):
    rng = np.random.default_rng(1)
    W = s.sample_weights(N, 50, rng)
    L = s.lipschitz(W)
    assert isinstance(L, np.ndarray) and L.shape == (50,)
    expected = np.linalg.norm(W, axis=1) if s.kind == "linear" else W.max(axis=1)
    np.testing.assert_allclose(L, expected, rtol=1e-14)
    assert s.lipschitz_bound == 1.0
    assert np.all(L <= 1.0)
    U = rng.normal(scale=3.0, size=(200, N))
    V = U + rng.normal(scale=rng.uniform(0.01, 2.0, (200, 1)), size=(200, N))
    gap = np.abs(s(U, W) - s(V, W))  # (S, pairs)
    dist = np.linalg.norm(U - V, axis=1)
    assert np.all(gap <= L[:, None] * dist[None, :] * (1 + 1e-12) + 1e-12)
    assert isinstance(s.lipschitz(W[0]), float)


def test_lipschitz_is_tight_for_linear_near_a_vertex():
    s = LinearScalarization()
    lam = np.array([1 - 2e-3, 1e-3, 1e-3])
    L = s.lipschitz(lam)
    np.testing.assert_allclose(L, np.linalg.norm(lam), rtol=1e-14)
    assert 0.99 < L <= 1.0
    u = np.array([0.3, -1.0, 2.0])
    v = u + 0.7 * lam / np.linalg.norm(lam)  # u - v parallel to lambda: Cauchy-Schwarz equality
    gap = abs(s(u, lam)[0] - s(v, lam)[0])
    assert gap == pytest.approx(L * np.linalg.norm(u - v), rel=1e-12)


def test_lipschitz_is_tight_for_chebyshev():
    s = ChebyshevScalarization(np.zeros(3))
    lam = np.array([0.2, 0.5, 0.3])
    u = np.array([10.0, 0.1, 10.0])  # the min is attained at i = argmax lambda = 1
    v = u + np.array([0.0, 0.05, 0.0])
    gap = abs(s(u, lam)[0] - s(v, lam)[0])
    assert gap == pytest.approx(s.lipschitz(lam) * np.linalg.norm(u - v), rel=1e-12)


# ----------------------------------------------------------------------------------------------
# weight priors
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("s", KINDS, ids=IDS)
def test_prior_draws_are_on_the_simplex_and_reproducible(s: Scalarization):
    W = s.sample_weights(N, 1000, 5)
    assert W.shape == (1000, N)
    assert np.all(W > 0)
    np.testing.assert_allclose(W.sum(axis=1), 1.0, atol=1e-12)
    check_weights(W, N)  # accepted as is
    np.testing.assert_array_equal(W, s.sample_weights(N, 1000, np.random.default_rng(5)))
    assert not np.allclose(W, s.sample_weights(N, 1000, 6))
    one = s.sample_weights(N, 1, np.random.default_rng(3))[0]  # a random scalarization's lambda_t
    assert one.shape == (N,) and one.sum() == pytest.approx(1.0)


def test_linear_prior_has_mean_one_over_n():
    n, size = 4, 20000
    W = LinearScalarization().sample_weights(n, size, 11)
    se = W.std(axis=0, ddof=1) / np.sqrt(size)
    assert np.all(np.abs(W.mean(axis=0) - 1 / n) < 4 * se)


def test_linear_prior_matches_its_formula():
    W = LinearScalarization().sample_weights(N, 50, np.random.default_rng(2))
    u = 1.0 - np.random.default_rng(2).random((50, N))
    np.testing.assert_allclose(W, u / u.sum(axis=1, keepdims=True), rtol=1e-14)


def test_chebyshev_prior_matches_the_alpha_formula():
    W = ChebyshevScalarization(Z).sample_weights(N, 50, np.random.default_rng(4))
    u = 1.0 - np.random.default_rng(4).random((50, N))  # the same U(0, 1] draw
    lam = np.empty_like(u)
    for k in range(50):
        alpha = np.array([u[k].sum() / u[k, i] for i in range(N)])  # alpha_i = ||u||_1 / u_i
        lam[k] = alpha / alpha.sum()
    np.testing.assert_allclose(W, lam, rtol=1e-13)


# ----------------------------------------------------------------------------------------------
# expected scalarization
# ----------------------------------------------------------------------------------------------


def _brute_expected(s: Scalarization, Y: np.ndarray, W: np.ndarray) -> np.ndarray:
    return np.mean([[_loop_value(s, y, lam) for y in Y] for lam in W], axis=0)


@pytest.mark.parametrize("s", KINDS, ids=IDS)
@pytest.mark.parametrize("budget", [MAX_BLOCK_FLOATS, 30, 7, 1])
def test_expected_scalarization_equals_brute_force(s: Scalarization, budget: int):
    rng = np.random.default_rng(7)
    Y = rng.normal(size=(11, N))
    W = s.sample_weights(N, 13, rng)
    es = ExpectedScalarization(s, W, max_block_floats=budget)
    out = es(Y)
    assert out.shape == (11,)
    np.testing.assert_allclose(out, _brute_expected(s, Y, W), rtol=1e-12, atol=1e-13)
    assert es.kind == s.kind and es.n_outputs == N and es.n_samples == 13


def test_expected_chebyshev_with_default_chunking():
    n, S, m = 10, 500, 1000  # S * m * n = 5e6 floats > MAX_BLOCK_FLOATS
    s_block, _ = _block_sizes(S, m, n, MAX_BLOCK_FLOATS)
    assert s_block < S  # the blocked path is really taken
    rng = np.random.default_rng(8)
    s = ChebyshevScalarization(-np.ones(n))
    es = ExpectedScalarization.from_prior(s, n, S, rng)
    Y = rng.normal(size=(m, n))
    ref = np.zeros(m)
    for lam in es.weights:
        ref += np.min(lam * (Y - s.reference), axis=1)
    np.testing.assert_allclose(es(Y), ref / S, rtol=1e-12)


def test_expected_linear_is_the_mean_weight_and_from_prior_is_reproducible():
    s = LinearScalarization()
    es = ExpectedScalarization.from_prior(s, N, 100, seed=9)
    np.testing.assert_array_equal(es.weights, s.sample_weights(N, 100, 9))
    Y = np.random.default_rng(0).normal(size=(4, N))
    np.testing.assert_allclose(es(Y), Y @ es.weights.mean(axis=0), rtol=1e-14)
    assert not es.weights.flags.writeable


# ----------------------------------------------------------------------------------------------
# Bayes regret
# ----------------------------------------------------------------------------------------------


def _brute_regret(s: Scalarization, A: np.ndarray, C: np.ndarray, W: np.ndarray) -> np.ndarray:
    out = np.zeros(len(C))
    for t in range(1, len(C) + 1):
        total = 0.0
        for lam in W:
            best = max(_loop_value(s, a, lam) for a in A)
            got = max(_loop_value(s, c, lam) for c in C[:t])
            total += best - got
        out[t - 1] = total / len(W)
    return out


@pytest.mark.parametrize("s", KINDS, ids=IDS)
@pytest.mark.parametrize("budget", [MAX_BLOCK_FLOATS, 10, 1])
def test_bayes_regret_equals_brute_force(s: Scalarization, budget: int):
    rng = np.random.default_rng(10)
    A = rng.normal(size=(9, N))
    C = A[rng.integers(0, 9, size=6)]
    W = s.sample_weights(N, 8, rng)
    R = bayes_regret(A, C, s, W, max_block_floats=budget)
    assert R.shape == (6,)
    np.testing.assert_allclose(R, _brute_regret(s, A, C, W), rtol=1e-12, atol=1e-13)
    assert np.all(np.diff(R) <= 1e-15)  # non-increasing
    assert np.all(R >= -1e-13)  # chosen values are rows of all_values


@pytest.mark.parametrize("s", KINDS, ids=IDS)
def test_bayes_regret_vanishes_once_every_maximiser_is_chosen(s: Scalarization):
    rng = np.random.default_rng(12)
    A = rng.normal(size=(30, N))
    W = s.sample_weights(N, 40, rng)
    maximisers = np.unique(np.argmax(s(A, W), axis=1))
    others = np.setdiff1d(np.arange(30), maximisers)[:5]
    order = np.concatenate([others, maximisers, others[:2]])
    R = bayes_regret(A, A[order], s, W)
    k = len(others) + len(maximisers)  # first prefix holding every maximiser
    assert np.all(R[: k - 1] > 0)
    np.testing.assert_allclose(R[k - 1 :], 0.0, atol=1e-13)
    assert np.all(np.diff(R) <= 1e-15)


def test_bayes_regret_single_weight_and_empty_history():
    s = LinearScalarization()
    A = np.array([[1.0, 0.0], [0.0, 1.0], [0.4, 0.4]])
    lam = np.array([0.25, 0.75])
    R = bayes_regret(A, A[[2, 0, 1]], s, lam)
    np.testing.assert_allclose(R, [0.75 - 0.4, 0.75 - 0.4, 0.0])
    assert bayes_regret(A, np.zeros((0, 2)), s, lam).shape == (0,)


# ----------------------------------------------------------------------------------------------
# reference point
# ----------------------------------------------------------------------------------------------


def test_reference_point_below():
    Y = np.array([[0.0, 5.0, 2.0], [1.0, 3.0, 2.0], [4.0, 4.0, 2.0]])
    z = reference_point_below(Y, margin=0.25)
    np.testing.assert_allclose(z, [0.0 - 0.25 * 4.0, 3.0 - 0.25 * 2.0, 2.0 - 0.25])
    assert np.all(Y - z > 0)
    s = ChebyshevScalarization(z)
    W = s.sample_weights(3, 20, 0)
    assert np.all(s(Y, W) > 0)  # positive scalarization
    np.testing.assert_allclose(reference_point_below(Y), Y.min(0) - 0.1 * np.array([4, 2, 1]))


# ----------------------------------------------------------------------------------------------
# validation and repr
# ----------------------------------------------------------------------------------------------


def test_check_weights_accepts_and_copies():
    w = np.array([0.2, 0.3, 0.5])
    out = check_weights(w, 3)
    assert out.shape == (3,) and out is not w
    assert check_weights([[0.5, 0.5]], None).shape == (1, 2)
    assert check_weights(np.array([0.2, 0.3, 0.5 + 5e-9]), 3).shape == (3,)


@pytest.mark.parametrize(
    ("weights", "n", "match"),
    [
        (np.ones((2, 2, 2)) / 2, 2, "shape"),
        (np.float64(1.0), 1, "shape"),
        (np.array([0.5, 0.5]), 3, "shape"),
        (np.full((4, 2), 1 / 3), 3, "shape"),
        (np.zeros((0, 3)), 3, "at least one"),
        (np.array([0.5, np.nan, 0.5]), 3, "NaN or inf"),
        (np.array([0.5, np.inf, 0.5]), 3, "NaN or inf"),
        (np.array([0.0, 0.5, 0.5]), 3, "strictly positive"),
        (np.array([-0.1, 0.6, 0.5]), 3, "strictly positive"),
        (np.array([0.2, 0.3, 0.6]), 3, "off the simplex"),
        (np.array([[0.2, 0.3, 0.5], [0.2, 0.3, 0.5 + 2e-8]]), 3, "off the simplex"),
    ],
)
def test_check_weights_errors(weights: np.ndarray, n: int, match: str):
    with pytest.raises(ValueError, match=f"lam_arg.*{match}|{match}.*lam_arg") as exc:
        check_weights(weights, n, name="lam_arg")
    assert "lam_arg" in str(exc.value)


@pytest.mark.parametrize("s", KINDS, ids=IDS)
def test_value_and_weight_errors_name_the_argument(s: Scalarization):
    W = s.sample_weights(N, 4, 0)
    with pytest.raises(ValueError, match="values"):
        s(np.ones((5, N + 1)), W)
    with pytest.raises(ValueError, match="values"):
        s(np.ones(N + 1), W[0])
    with pytest.raises(ValueError, match=r"values.*NaN"):
        s(np.full((2, N), np.nan), W)
    with pytest.raises(ValueError, match=r"weights.*off the simplex"):
        s(np.ones((5, N)), 2 * W)
    es = ExpectedScalarization(s, W)
    with pytest.raises(ValueError, match="values"):
        es(np.ones((5, N - 1)))
    with pytest.raises(ValueError, match="weights"):
        ExpectedScalarization(s, W[:, :2] / W[:, :2].sum(1, keepdims=True) + 0.1)
    A = np.ones((4, N))
    with pytest.raises(ValueError, match="all_values"):
        bayes_regret(np.ones((4, N + 1)), A, s, W)
    with pytest.raises(ValueError, match="all_values"):
        bayes_regret(np.zeros((0, N)), A, s, W)
    with pytest.raises(ValueError, match="chosen_values"):
        bayes_regret(A, np.ones((2, N - 1)), s, W)
    with pytest.raises(ValueError, match=r"weights.*strictly positive"):
        bayes_regret(A, A, s, np.array([1.0, 0.0, 0.0]))
    with pytest.raises(ValueError, match="max_block_floats"):
        ExpectedScalarization(s, W, max_block_floats=0)
    with pytest.raises(ValueError, match="size"):
        s.sample_weights(N, 0)
    with pytest.raises(ValueError, match="n must"):
        s.sample_weights(0, 3)
    with pytest.raises(ValueError, match="n_samples"):
        ExpectedScalarization.from_prior(s, N, 0)


def test_chebyshev_reference_fixes_n():
    s = ChebyshevScalarization(Z)
    assert s.n_outputs == N and LinearScalarization().n_outputs is None
    two = np.array([0.5, 0.5])
    with pytest.raises(ValueError, match="weights"):
        s(np.ones((2, 2)), two)
    with pytest.raises(ValueError, match="weights"):
        s.lipschitz(two)
    with pytest.raises(ValueError, match="weights"):
        ExpectedScalarization(s, two)
    with pytest.raises(ValueError, match="weights"):
        bayes_regret(np.ones((2, 2)), np.ones((1, 2)), s, two)
    with pytest.raises(ValueError, match="n must equal"):
        s.sample_weights(2, 5)
    # the linear kind adapts to the weights, so it is the values that are wrong
    with pytest.raises(ValueError, match="values"):
        LinearScalarization()(np.ones((2, N)), two)


@pytest.mark.parametrize(
    ("reference", "match"),
    [
        ([0.0, np.nan], "NaN or inf"),
        ([np.inf, 0.0], "NaN or inf"),
        ([[0.0, 1.0], [1.0, 2.0]], "vector"),
        ([], "at least one"),
    ],
)
def test_chebyshev_reference_errors(reference: list, match: str):
    with pytest.raises(ValueError, match=f"reference.*{match}|{match}"):
        ChebyshevScalarization(reference)
    with pytest.raises(ValueError, match="reference"):
        ChebyshevScalarization(reference)


def test_reference_point_below_errors():
    with pytest.raises(ValueError, match="margin"):
        reference_point_below(np.ones((3, 2)), margin=0.0)
    with pytest.raises(ValueError, match="values"):
        reference_point_below(np.zeros((0, 2)))
    with pytest.raises(ValueError, match="values"):
        reference_point_below(np.array([[0.0, np.nan]]))


def test_scalarization_argument_is_checked():
    with pytest.raises(ValueError, match="scalarization"):
        ExpectedScalarization("linear", np.array([0.5, 0.5]))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="scalarization"):
        bayes_regret(np.ones((2, 2)), np.ones((1, 2)), "linear", np.array([0.5, 0.5]))  # type: ignore[arg-type]


def test_kind_and_repr():
    lin, cheb = LinearScalarization(), ChebyshevScalarization([0.0, -1.5])
    assert (lin.kind, cheb.kind) == ("linear", "chebyshev")
    assert repr(lin) == "LinearScalarization()"
    assert repr(cheb) == "ChebyshevScalarization(reference=[0, -1.5])"
    es = ExpectedScalarization(cheb, [[0.5, 0.5], [0.25, 0.75]])
    assert repr(es).startswith("ExpectedScalarization(kind='chebyshev', n=2, S=2,")
    assert not cheb.reference.flags.writeable
