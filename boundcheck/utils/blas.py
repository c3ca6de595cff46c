"""BLAS thread counts that do not come from the environment.

A multi-threaded BLAS (OpenBLAS, MKL) splits a factorisation or a product differently for every thread count, so
its result differs in the last bits with ``OMP_NUM_THREADS``/``OPENBLAS_NUM_THREADS`` and with the machine's cores.
Every computation that feeds a stored result therefore fixes the count itself: simulation, claims and summaries
run on one thread (:func:`boundcheck.study.runner.single_threaded_blas`), γ too (:mod:`boundcheck.model.mig`),
and building a scenario (its generators: projections, seeded layouts) runs on :data:`SCENARIO_BLAS_THREADS`
threads (:func:`scenario_blas`)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

__all__ = ["SCENARIO_BLAS_THREADS", "scenario_blas"]

#: BLAS threads a scenario is built with. Two, not one: the built-in scenarios' recorded values
#: (tests/scenario_pins.py, tests/regression_pins.py) were made by a two-thread OpenBLAS, and one thread changes
#: the last bits of the hartmann3 and rosenbrock projections (``B = ‖P f‖``); any fixed count makes a scenario
#: independent of the environment, and this one keeps every recorded scenario and result. The matrices are small
#: (≤ a few hundred points), so a second thread costs nothing worth measuring, even on one core.
SCENARIO_BLAS_THREADS = 2

_lock = threading.Lock()


@contextlib.contextmanager
def scenario_blas() -> Iterator[None]:
    """BLAS on :data:`SCENARIO_BLAS_THREADS` threads inside the block (restored afterwards), whatever the
    environment set. The libraries are looked up at every entry: scipy loads its own OpenBLAS with
    ``scipy.linalg``, which a cached look-up made before it would miss."""
    import scipy.linalg  # noqa: F401 - load scipy's own BLAS before limiting
    from threadpoolctl import threadpool_limits

    with _lock:
        limiter = threadpool_limits(limits=SCENARIO_BLAS_THREADS, user_api="blas")
    try:
        yield
    finally:
        with _lock:
            limiter.restore_original_limits()
