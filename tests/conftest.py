"""Suite-wide settings."""

import pytest
from threadpoolctl import threadpool_limits


@pytest.fixture(scope="session", autouse=True)
def _one_blas_thread():
    """The test matrices are small (at most about 1,000 x 1,000): a multi-threaded BLAS only adds
    overhead, and on a loaded machine its spinning threads make numerical tests ~10x slower.
    Speed is measured in ``benchmarks/``, never here."""
    with threadpool_limits(limits=1, user_api="blas"):
        yield
