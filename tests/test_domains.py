"""Grid and Box: membership, sampling, and acquisition maximisation against brute force."""

import numpy as np
import pytest

from kernelbandits import Box, Grid
from kernelbandits.acquisition import SobolSearch, argmax_random_tie, maximize_score


def test_grid_index_and_validate():
    grid = Grid.lattice([0, 0], [1, 2], 5)
    assert len(grid) == 25 and grid.dim == 2
    j = grid.index([0.5, 1.0])
    np.testing.assert_array_equal(grid.points[j], [0.5, 1.0])
    with pytest.raises(ValueError, match="x"):
        grid.validate([0.5, 1.1])
    with pytest.raises(ValueError, match="x"):
        grid.validate([0.5])


def test_grid_indices_match_a_brute_force_search_exact_or_within_tolerance():
    rng = np.random.default_rng(1)
    grid = Grid(rng.random((200, 3)), atol=1e-9)
    picks = rng.integers(200, size=50)
    X = grid.points[picks] + rng.uniform(-1e-10, 1e-10, (50, 3)) * (np.arange(50) % 2)[:, None]
    X[0] = -0.0 * X[0] + grid.points[picks[0]]  # same values, possibly other bytes
    brute = [int(np.argmin(np.abs(grid.points - x).max(axis=1))) for x in X]
    np.testing.assert_array_equal(grid.indices(X), picks)
    np.testing.assert_array_equal(brute, picks)
    assert [grid.index(x) for x in X] == list(picks)
    with pytest.raises(ValueError, match=r"Y=\[.*\] is not a point of the grid"):
        grid.indices(np.vstack([X[:3], [[2.0, 2.0, 2.0]]]), "Y")


def test_grid_argmax_breaks_ties_uniformly():
    grid = Grid.linspace(0, 1, 4)
    values = np.array([1.0, 3.0, 3.0, 0.0])
    rng = np.random.default_rng(0)
    picks = np.bincount([argmax_random_tie(values, rng) for _ in range(4000)], minlength=4)
    assert picks[0] == picks[3] == 0
    assert abs(picks[1] / 4000 - 0.5) < 0.03
    with pytest.raises(ValueError, match="values"):
        maximize_score(grid, lambda X: values[:3], rng)


def test_grid_refuses_empty_and_nan_points():
    with pytest.raises(ValueError, match="empty"):
        Grid(np.zeros((0, 1)))
    with pytest.raises(ValueError, match="points"):
        Grid([[0.0], [np.nan]])
    with pytest.raises(ValueError, match="distinct"):
        Grid([[0.0, 1.0], [0.5, 0.5], [0.0, 1.0]])


def test_box_validation_and_sampling():
    box = Box([-1.0, 0.0], [1.0, 5.0])
    X = box.sample(1000, np.random.default_rng(0))
    assert X.shape == (1000, 2) and box.contains(X).all()
    S = box.sobol(256, np.random.default_rng(0))
    assert S.shape == (256, 2) and box.contains(S).all()
    with pytest.raises(ValueError, match="outside"):
        box.validate([0.0, 6.0])
    with pytest.raises(ValueError, match="lower"):
        Box([1.0], [0.0])
    with pytest.raises(ValueError, match="lower"):
        Box([0.0, 0.0], [1.0])


def test_box_maximize_finds_the_brute_force_maximum():
    def acq(X):
        return -np.sum((X - np.array([0.3, -0.7])) ** 2, axis=1) + 0.1 * np.cos(9 * X[:, 0])

    box = Box([-1.0, -1.0], [1.0, 1.0])
    x = SobolSearch(n_candidates=256, n_refine=3).maximize(acq, box, np.random.default_rng(0))
    lattice = Grid.lattice([-1, -1], [1, 1], 801).points
    best = acq(lattice).max()
    assert acq(x[None, :])[0] >= best - 1e-6
    assert box.contains(x[None, :]).all()


def test_box_maximize_respects_bounds_when_optimum_is_outside():
    box = Box([0.0], [1.0])
    x = SobolSearch(n_candidates=64).maximize(lambda X: X[:, 0], box, np.random.default_rng(1))
    assert x[0] == pytest.approx(1.0, abs=1e-9)


def test_domains_do_not_freeze_or_alias_the_callers_arrays():
    points = np.linspace(0, 1, 5)[:, None]
    Grid(points)
    points[0, 0] = 7.0  # still writable
    lower = np.array([0.0])
    box = Box(lower, [1.0])
    lower[0] = -5.0
    assert box.lower[0] == 0.0
