"""Multi-task (matrix-valued) kernels ``Gamma(x, x')`` of size ``n x n``.

Chowdhury & Gopalan (2021), *No-regret algorithms for multi-task Bayesian optimization*, Sec. 2
and Sec. 5 (the kernels of the experiments); App. A.2 (the ICM eigen-structure used by the fast
path of :mod:`kernelbandits.regression.multitask`).

Every kernel here is a *sum of separable kernels* ``Gamma(x, x') = sum_j k_j(x, x') B_j`` with
scalar kernels ``k_j`` and symmetric PSD task matrices ``B_j``:

* :class:`ICM` — one term, ``k(x, x') B`` (intrinsic coregionalisation model);
  :meth:`ICM.evgeniou` builds the special case ``B = omega I + (1 - omega) 1 1^T / n``;
* :class:`IndependentTasks` — ``diag(k_1, ..., k_n)`` = ``sum_i k_i e_i e_i^T`` (no transfer);
* :class:`SeparableSum` — the general sum (not diagonalisable in one basis in general);
* :class:`TaggedTasks` — any of them read as one scalar kernel on tagged inputs ``(x, i)``, for
  data with one task per observation (Sessa et al. 2023), and :func:`interaction_task_matrix`,
  their ``A_b^{-1}``.

Notation (shapes):
    n        number of tasks (outputs)
    m, m'    numbers of input points; ``X (m, d)``, ``Y (m', d)``
    blocks   ``(m, m', n, n)``: ``blocks[i, j] = Gamma(x_i, y_j)``
    gram     ``(m n, m' n)``: the block matrix, *point-major*: row ``i n + a`` is (point ``i``,
             task ``a``), the ordering of ``G_t`` and ``Y_t = [y_1^T, ..., y_t^T]^T`` in eq. (1)

A *decoupling* ``(kernels, U)`` — scalar kernels ``kappa_r`` and orthonormal columns ``u_r`` with
``Gamma(x, x') = sum_r kappa_r(x, x') u_r u_r^T`` — turns the ``nt x nt`` problem into ``r``
scalar ones (App. A.2, eq. 4-7). ICM has one (``kappa_r = xi_r k``, ``u_r`` the eigenvectors of
``B`` with ``xi_r > 0``); independent tasks have ``kappa_i = k_i``, ``u_i = e_i``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from kernelbandits._deprecation import renamed_parameters
from kernelbandits._validation import (
    FloatArray,
    as_points,
    as_real,
    check_count,
    numeric_array,
    require_finite,
)
from kernelbandits.kernels.base import Kernel, check_kernel, check_theta

#: relative tolerance of the symmetry and PSD checks, and of dropping null eigen-directions
TASK_MATRIX_RTOL = 1e-10


@renamed_parameters(B="task_matrix")
def check_task_matrix(
    task_matrix: ArrayLike, n_tasks: int | None = None, name: str = "task_matrix"
) -> FloatArray:
    """Return the task matrix ``B`` as a symmetric PSD ``(n, n)`` float array, or raise
    ``ValueError`` naming it (``name``).

    Symmetry and PSD are checked to ``TASK_MATRIX_RTOL`` relative to the largest absolute entry;
    the returned matrix is exactly symmetric (``(B + B^T) / 2``).
    """
    arr = numeric_array(task_matrix, name, "a square matrix of numbers")
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty square matrix; got shape {arr.shape}")
    if n_tasks is not None and arr.shape[0] != n_tasks:
        raise ValueError(
            f"{name} must be {n_tasks} x {n_tasks} (one row per task); got {arr.shape}"
        )
    require_finite(arr, name)
    scale = max(float(np.abs(arr).max()), 1e-300)
    if np.abs(arr - arr.T).max() > TASK_MATRIX_RTOL * scale:
        raise ValueError(f"{name} must be symmetric")
    sym = 0.5 * (arr + arr.T)
    lowest = float(np.linalg.eigvalsh(sym)[0])
    if lowest < -TASK_MATRIX_RTOL * scale:
        raise ValueError(
            f"{name} must be positive semi-definite; its smallest eigenvalue is {lowest:.3g}"
        )
    return sym


def evgeniou_task_matrix(n_tasks: int, omega: float) -> FloatArray:
    """``B = omega I + (1 - omega) 1 1^T / n`` (Evgeniou et al. 2005; MT paper Sec. 4.2, Sec. 5).

    Eigenvalues: 1 (direction ``1/sqrt(n)``) and ``omega`` (``n - 1`` times); ``omega = 0`` makes
    all tasks identical, ``omega = 1`` independent.
    """
    n = check_count(n_tasks, "n_tasks")
    omega = as_real(omega, "omega", "a number in [0, 1]")
    if not (np.isfinite(omega) and 0.0 <= omega <= 1.0):
        raise ValueError(f"omega must lie in [0, 1]; got {omega!r}")
    return omega * np.eye(n) + (1.0 - omega) * np.ones((n, n)) / n


class SeparableSum:
    """``Gamma(x, x') = sum_j k_j(x, x') B_j`` (MT paper, App. C.4), an ``n x n`` kernel.

    Parameters
    ----------
    terms : pairs ``(k_j, B_j)`` of a scalar :class:`Kernel` and a symmetric PSD ``(n, n)``
        matrix; every ``B_j`` has the same ``n``.
    """

    def __init__(self, terms: Sequence[tuple[Kernel, ArrayLike]]) -> None:
        if len(terms) == 0:
            raise ValueError("terms must hold at least one (kernel, B) pair")
        for j, term in enumerate(terms):
            if not isinstance(term, tuple | list) or len(term) != 2:
                raise ValueError(f"terms[{j}] must be a (kernel, B) pair; got {term!r}")
        kernels = [check_kernel(k) for k, _ in terms]
        first = check_task_matrix(terms[0][1], name="B_0")
        mats = [first] + [
            check_task_matrix(B, first.shape[0], name=f"B_{j}")
            for j, (_, B) in enumerate(terms)
            if j
        ]
        dims = {k.input_dim for k in kernels if k.input_dim is not None}
        if len(dims) > 1:
            raise ValueError(f"the scalar kernels expect different input dimensions {sorted(dims)}")
        self.input_dim: int | None = dims.pop() if dims else None
        self.kernels: tuple[Kernel, ...] = tuple(kernels)
        self.task_matrices: tuple[FloatArray, ...] = tuple(mats)
        self.n_tasks = int(first.shape[0])

    # -- evaluation ---------------------------------------------------------------------------
    def blocks(self, X: ArrayLike, Y: ArrayLike | None = None) -> FloatArray:
        """``Gamma(x_i, y_j)`` for all pairs, shape ``(m, m', n, n)``."""
        Xa, Ya = self._pair(X, Y)
        out = np.zeros((Xa.shape[0], Ya.shape[0], self.n_tasks, self.n_tasks))
        for k, B in zip(self.kernels, self.task_matrices, strict=True):
            out += k(Xa, Ya)[:, :, None, None] * B
        return out

    def gram(self, X: ArrayLike, Y: ArrayLike | None = None) -> FloatArray:
        """The point-major block matrix ``[Gamma(x_i, y_j)]``, shape ``(m n, m' n)`` (eq. 1)."""
        blk = self.blocks(X, Y)
        m, mp, n, _ = blk.shape
        return blk.transpose(0, 2, 1, 3).reshape(m * n, mp * n)

    def diag_blocks(self, X: ArrayLike) -> FloatArray:
        """``Gamma(x_i, x_i)``, shape ``(m, n, n)``."""
        Xa = self._pair(X, None)[0]
        out = np.zeros((Xa.shape[0], self.n_tasks, self.n_tasks))
        for k, B in zip(self.kernels, self.task_matrices, strict=True):
            out += k.diag(Xa)[:, None, None] * B
        return out

    def decoupling(self) -> tuple[list[Kernel], FloatArray] | None:
        """Scalar kernels ``kappa_r`` and orthonormal directions ``U (n, r)`` with
        ``Gamma = sum_r kappa_r u_r u_r^T``, or ``None`` when no such basis is known."""
        return None

    def shared_decoupling(self) -> tuple[Kernel, FloatArray, FloatArray] | None:
        """``(k, xi (r,), U (n, r))`` with ``Gamma = k sum_r xi_r u_r u_r^T`` (one scalar kernel
        for every direction: what the MT-BKB fast path, App. A.2 eq. 8-9, needs), or ``None``."""
        return None

    # -- helpers ------------------------------------------------------------------------------
    def _pair(self, X: ArrayLike, Y: ArrayLike | None) -> tuple[FloatArray, FloatArray]:
        Xa = as_points(X, "X", self.input_dim)
        Ya = Xa if Y is None else as_points(Y, "Y", Xa.shape[1])
        return Xa, Ya

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n_tasks={self.n_tasks}, terms={len(self.kernels)})"


#: any multi-task kernel of this module
MultiTaskKernel = SeparableSum


class ICM(SeparableSum):
    """Intrinsic coregionalisation model ``Gamma(x, x') = k(x, x') B`` (MT paper, Sec. 3.3).

    Parameters
    ----------
    base : the scalar kernel ``k``.
    task_matrix : ``B``, the symmetric PSD task-similarity matrix, ``(n, n)`` (``B=`` is the
        deprecated spelling; the attribute stays ``B``).

    Attributes
    ----------
    eigenvalues : ``xi`` of ``B``, ascending, shape ``(n,)`` (negative round-off clipped to 0).
    eigenvectors : orthonormal ``u_i`` as columns, shape ``(n, n)``.
    """

    @renamed_parameters(B="task_matrix")
    def __init__(self, base: Kernel, task_matrix: ArrayLike) -> None:
        super().__init__([(base, check_task_matrix(task_matrix))])
        self.base = self.kernels[0]
        self.B = self.task_matrices[0]
        xi, U = np.linalg.eigh(self.B)  # App. A.2: B = sum_i xi_i u_i u_i^T, computed once
        self.eigenvalues: FloatArray = np.maximum(xi, 0.0)
        self.eigenvectors: FloatArray = U

    @classmethod
    def evgeniou(cls, base: Kernel, n_tasks: int, omega: float) -> ICM:
        """``k(x, x') (omega I + (1 - omega) 1 1^T / n)``; see :func:`evgeniou_task_matrix`."""
        return cls(base, evgeniou_task_matrix(n_tasks, omega))

    def decoupling(self) -> tuple[list[Kernel], FloatArray]:
        """``kappa_r = xi_r k`` and ``u_r`` for the eigenvalues ``xi_r > rtol * xi_max`` (eq. 6-7);
        directions with ``xi_r = 0`` carry neither mean nor variance."""
        xi = self.eigenvalues
        keep = xi > TASK_MATRIX_RTOL * max(float(xi.max()), 1e-300)
        kernels = [float(v) * self.base for v in xi[keep]]
        return kernels, self.eigenvectors[:, keep]

    def shared_decoupling(self) -> tuple[Kernel, FloatArray, FloatArray]:
        """``(k, xi_r, u_r)`` for the eigenvalues ``xi_r > rtol * xi_max``."""
        xi = self.eigenvalues
        keep = xi > TASK_MATRIX_RTOL * max(float(xi.max()), 1e-300)
        return self.base, xi[keep].copy(), self.eigenvectors[:, keep].copy()

    def __repr__(self) -> str:
        return f"ICM(base={self.base!r}, n_tasks={self.n_tasks})"


class IndependentTasks(SeparableSum):
    """``Gamma(x, x') = diag(k_1(x, x'), ..., k_n(x, x'))``: tasks learnt independently.

    Parameters
    ----------
    kernels : one scalar kernel per task, or one kernel shared by ``n_tasks`` tasks.
    n_tasks : required when a single kernel is given.
    """

    def __init__(self, kernels: Kernel | Sequence[Kernel], n_tasks: int | None = None) -> None:
        if isinstance(kernels, Kernel):
            if n_tasks is None or int(n_tasks) < 1:
                raise ValueError("n_tasks must be a positive integer when one kernel is given")
            kernel_list = [kernels] * int(n_tasks)
        else:
            kernel_list = list(kernels)
            if n_tasks is not None and int(n_tasks) != len(kernel_list):
                raise ValueError(f"n_tasks={n_tasks} but {len(kernel_list)} kernels were given")
        eye = np.eye(len(kernel_list))
        super().__init__([(k, np.outer(e, e)) for k, e in zip(kernel_list, eye, strict=True)])

    @property
    def shared_kernel(self) -> Kernel | None:
        """The kernel when every task uses the same one (then this is ``ICM(k, I)``)."""
        first = self.kernels[0]
        return first if all(k is first for k in self.kernels) else None

    def blocks(self, X: ArrayLike, Y: ArrayLike | None = None) -> FloatArray:
        Xa, Ya = self._pair(X, Y)
        out = np.zeros((Xa.shape[0], Ya.shape[0], self.n_tasks, self.n_tasks))
        shared = self.shared_kernel
        if shared is not None:  # one Gram matrix for every task
            K = shared(Xa, Ya)
            for i in range(self.n_tasks):
                out[:, :, i, i] = K
            return out
        for i, k in enumerate(self.kernels):
            out[:, :, i, i] = k(Xa, Ya)
        return out

    def decoupling(self) -> tuple[list[Kernel], FloatArray]:
        """``kappa_i = k_i``, ``u_i = e_i``."""
        return list(self.kernels), np.eye(self.n_tasks)

    def shared_decoupling(self) -> tuple[Kernel, FloatArray, FloatArray] | None:
        """``(k, 1, I)`` when every task shares one kernel ``k`` (then this is ``ICM(k, I)``)."""
        shared = self.shared_kernel
        if shared is None:
            return None
        return shared, np.ones(self.n_tasks), np.eye(self.n_tasks)

    def __repr__(self) -> str:
        return f"IndependentTasks(n_tasks={self.n_tasks}, kernels={list(self.kernels)!r})"


def check_multitask_kernel(kernel: object, dim: int | None = None) -> SeparableSum:
    """Return ``kernel`` if it is a multi-task kernel for inputs of dimension ``dim``."""
    if not isinstance(kernel, SeparableSum):
        raise ValueError(
            "kernel must be a multi-task kernel (ICM, IndependentTasks or SeparableSum); "
            f"got {type(kernel).__name__}"
        )
    if dim is not None and kernel.input_dim not in (None, dim):
        raise ValueError(f"kernel expects dimension {kernel.input_dim}; the domain has {dim}")
    return kernel


def interaction_task_matrix(n_tasks: int, interaction: float) -> FloatArray:
    """``A_b^{-1}`` for the interaction matrix ``A_b = (1 + b) I - (b / n) 1 1^T``
    (``b = interaction``) of Sessa et al.
    (NeurIPS 2023; the complete-graph case of GoB.Lin, Cesa-Bianchi et al. 2013), shape
    ``(n, n)``.

    ``A_b^{-1} = I / (1 + b) + b / (n (1 + b)) 1 1^T``: eigenvalue 1 on the tasks' mean and
    ``1 / (1 + b)`` on every deviation from it. This is :func:`evgeniou_task_matrix` with
    ``omega = 1 / (1 + b)``: ``b = 0`` is independent tasks, ``b -> inf`` one shared function.
    The RKHS norm of ``f = (f_1, ..., f_n)`` under ``k A_b^{-1}`` is
    ``sum_i ||f_i||^2 + b sum_i ||f_i - mean_j f_j||^2``.
    """
    b = as_real(interaction, "interaction", "a number >= 0")
    if not (np.isfinite(b) and b >= 0.0):
        raise ValueError(f"interaction (b) must be a finite number >= 0; got {interaction!r}")
    return evgeniou_task_matrix(n_tasks, 1.0 / (1.0 + b))


def interaction_form(task_matrix: ArrayLike) -> tuple[float, float] | None:
    """``(scale, b)`` with ``task_matrix = scale A_b^{-1}`` (:func:`interaction_task_matrix`),
    or ``None`` when the matrix is not of that form (a constant diagonal, a constant
    non-negative off-diagonal below it): e.g. Evgeniou's matrix with ``omega > 0`` is
    ``A_b^{-1}`` with ``b = 1 / omega - 1``."""
    B = check_task_matrix(task_matrix)
    n = B.shape[0]
    diagonal = float(B[0, 0])
    off = float(B[0, 1]) if n > 1 else 0.0
    tol = TASK_MATRIX_RTOL * max(abs(diagonal), 1e-300)
    expected = (diagonal - off) * np.eye(n) + off * np.ones((n, n))
    if np.abs(B - expected).max() > tol or off < -tol or diagonal - off <= tol:
        return None
    alpha, beta = diagonal - off, max(off, 0.0)  # B = alpha I + beta 1 1^T
    # A_b^{-1} has eigenvalue 1 on 1 and 1 / (1 + b) on its complement
    scale = alpha + n * beta
    return scale, n * beta / alpha


def split_tasks(
    X: ArrayLike, n_tasks: int | None = None, name: str = "X"
) -> tuple[FloatArray, NDArray[np.intp]]:
    """Tagged points ``X (m, d + 1)`` (:func:`tag_tasks`) as their points ``(m, d)`` and task
    indices ``(m,)``; ``ValueError`` naming ``name`` when a tag is not an integer in
    ``[0, n_tasks)`` (``[0, inf)`` if ``n_tasks`` is ``None``)."""
    Xa = as_points(X, name)
    if Xa.shape[1] < 2:
        raise ValueError(f"{name}: tagged points need at least one coordinate and the task index")
    tags = Xa[:, -1]
    tasks = tags.astype(np.intp)
    top = np.inf if n_tasks is None else n_tasks
    if np.any(tasks != tags) or np.any(tasks < 0) or np.any(tasks >= top):
        allowed = "an integer >= 0" if n_tasks is None else f"in 0..{n_tasks - 1}"
        raise ValueError(
            f"the last coordinate of {name} must be a task index {allowed}; got "
            f"{sorted(set(tags.tolist()))[:5]}"
        )
    return Xa[:, :-1], tasks


class TaggedTasks(Kernel):
    """A multi-task kernel read as one scalar kernel on *tagged* inputs ``(x, i)``: the last
    coordinate is the task index ``i in {0, ..., n - 1}`` and

        k((x, i), (x', j)) = Gamma(x, x')_{ij} = sum_r k_r(x, x') [B_r]_{ij}.

    The model of a setting where each observation belongs to one task (Sessa et al. 2023's
    online multi-task learning; the task-indexed GP of Bonilla et al. 2008): a
    :class:`~kernelbandits.regression.GPPosterior` under this kernel is the multi-task
    posterior with one task observed per row, updated incrementally.

    Parameters
    ----------
    multitask : the :class:`SeparableSum` ``Gamma``, e.g.
        ``ICM(k, interaction_task_matrix(n, interaction))``; its input dimension ``d`` (when
        known) makes this kernel's ``d + 1``.
    """

    def __init__(self, multitask: SeparableSum) -> None:
        if not isinstance(multitask, SeparableSum):
            raise ValueError(
                "multitask must be a multi-task kernel (ICM, IndependentTasks or SeparableSum); "
                f"got {type(multitask).__name__}"
            )
        self.multitask = multitask
        self.n_tasks = multitask.n_tasks
        self.input_dim = None if multitask.input_dim is None else multitask.input_dim + 1

    def split(self, X: ArrayLike) -> tuple[FloatArray, NDArray[np.intp]]:
        """``X (m, d + 1)`` as its points ``(m, d)`` and task indices ``(m,)``
        (:func:`split_tasks`)."""
        return split_tasks(as_points(X, "X", self.input_dim), self.n_tasks)

    def _gram(self, X: FloatArray, Y: FloatArray) -> FloatArray:
        (Xp, i), (Yp, j) = self.split(X), self.split(Y)
        K = np.zeros((Xp.shape[0], Yp.shape[0]))
        for k, B in zip(self.multitask.kernels, self.multitask.task_matrices, strict=True):
            K += k(Xp, Yp) * B[np.ix_(i, j)]
        return K

    def diag(self, X: ArrayLike) -> FloatArray:
        Xp, i = self.split(X)
        out = np.zeros(Xp.shape[0])
        for k, B in zip(self.multitask.kernels, self.multitask.task_matrices, strict=True):
            out += k.diag(Xp) * B[i, i]
        return out

    @property
    def theta(self) -> FloatArray:
        """Empty: the task matrices are fixed (fit the scalar kernels before tagging them)."""
        return np.zeros(0)

    def with_theta(self, theta: ArrayLike) -> TaggedTasks:
        check_theta(theta, 0)
        return self

    def __repr__(self) -> str:
        return f"TaggedTasks({self.multitask!r})"


def tag_tasks(X: ArrayLike, tasks: ArrayLike) -> FloatArray:
    """Points ``X (m, d)`` with their task indices ``tasks`` (``(m,)`` or one integer) as a last
    column, shape ``(m, d + 1)``: the inputs of :class:`TaggedTasks`."""
    Xa = as_points(X, "X")
    t = np.broadcast_to(np.asarray(tasks), (Xa.shape[0],))
    if not np.all(np.isfinite(t.astype(float))) or np.any(t.astype(float) != np.round(t)):
        raise ValueError("tasks must be integer task indices")
    return np.column_stack([Xa, t.astype(float)])
