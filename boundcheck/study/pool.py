"""The loky worker pool: started early, with BLAS on one thread, and reused for every task of a command.

With ``--jobs J`` (loky) the parent process simulates too (:func:`~boundcheck.study.runner.run_study`), beside
J − 1 worker processes: a worker is a fresh interpreter that imports numpy, scipy, pandas, sympy and the
engine (≈ 0.7 s of CPU) before its first task, which the parent, already warm, does not pay. :func:`prewarm`
starts the pool and has the workers import the engine as soon as a command knows it will run in parallel (not
waited for: it overlaps the parent's own imports and the theorem's instantiation); :func:`loky_pool` returns
that same pool to the study. This module imports nothing heavy itself (the CLI calls it before the engine).
"""

from __future__ import annotations

import contextlib
import os
import threading

__all__ = ["prewarm", "loky_pool", "pool_workers", "preload", "import_in_background", "idle_executor",
           "import_in_workers", "stop_workers", "ONE_THREAD"]

#: set in every worker before any module loads: BLAS and OpenMP on one thread (the parallelism is over tasks;
#: a threaded BLAS would fight the other workers for cores and round differently from the serial one)
ONE_THREAD = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                                     "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")}
IDLE_TIMEOUT = 300  # seconds an idle worker waits for the next task before it exits

_lock = threading.Lock()


def pool_workers(jobs: int) -> int:
    """Worker processes for ``--jobs`` (−1: every core): one fewer than the jobs, the parent being one of them."""
    n = (os.cpu_count() or 1) if jobs is None or jobs < 0 else jobs
    return max(0, n - 1)


def _warm() -> int:
    import pyarrow.parquet  # noqa: F401 - a task's last step encodes its tables

    import boundcheck.study.runner  # noqa: F401 - the imports are the point

    return os.getpid()


def loky_pool(workers: int, parent=None):
    """The reusable loky executor with ``workers`` processes (started, or resized, on demand). ``parent``
    (:class:`~boundcheck.study.progress.ParentInfo`): every worker starts a watchdog first thing, so that it
    dies with this process even while importing. The same arguments every time, so loky reuses the pool."""
    # joblib's factory, not loky's: the pool is then one that joblib's own loky backend can reuse or replace
    # (it expects its temporary-folder manager on it), and large arrays travel memory-mapped as with joblib
    from joblib.executor import get_memmapping_executor

    from .progress import ParentInfo, watch_parent

    with _lock:
        return get_memmapping_executor(workers, timeout=IDLE_TIMEOUT, initializer=watch_parent,
                                       initargs=(parent or ParentInfo.here(),), env=ONE_THREAD)


def prewarm(jobs: int, backend: str = "loky") -> None:
    """Start the ``jobs − 1`` loky workers and have each import the engine, without waiting (no-op unless the
    loky backend runs with more than one job)."""
    n = pool_workers(jobs)
    if backend != "loky" or n < 1:
        return
    with contextlib.suppress(Exception):  # a warm-up only: the study starts (and reports) the pool itself
        executor = loky_pool(n)
        for _ in range(n):
            executor.submit(_warm)


def preload(obj) -> None:
    """Send ``obj`` (a pickled study's user classes, shipped by value) to every idle worker once, not waited
    for: their first task then finds the classes defined and starts at once. No-op without a pool."""
    _submit_to_each_worker(_identity, obj)


def _submit_to_each_worker(fn, *args) -> None:
    """``fn(*args)`` once per worker of the running pool (no-op without one), not waited for: a warm-up only."""
    executor = idle_executor()
    if executor is None:
        return
    with contextlib.suppress(Exception):
        for _ in range(executor._max_workers):
            executor.submit(fn, *args)


def _identity(obj) -> None:
    return None


def stop_workers() -> None:
    """Terminate the idle loky workers without waiting for them to exit (the command line, just before its
    process exits: loky's exit handler would otherwise wait ≈ 0.3 s for them). Never starts a pool."""
    import sys

    if "joblib.externals.loky.reusable_executor" not in sys.modules:
        return
    try:
        from joblib.externals.loky import reusable_executor

        executor = reusable_executor._executor  # the pool joblib reuses, if one is running
        if executor is not None:
            executor.shutdown(wait=False, kill_workers=True)
    except Exception:  # noqa: BLE001, S110 - an optimisation only: loky's exit handler still shuts the pool down
        pass


def import_in_background(*modules: str) -> threading.Thread:
    """Import ``modules`` in a daemon thread of this process (the parent is idle while workers simulate: the
    summary's and the reports' imports are then paid before the study ends, not after)."""
    th = threading.Thread(target=_import_modules, args=(modules,), name="boundcheck-imports", daemon=True)
    th.start()
    return th


def idle_executor():
    """The loky pool that joblib reuses, if one is running in this process and usable, else None (never starts
    one: a report written outside a parallel study draws its figures in process rather than pay a pool's start)."""
    try:
        from joblib.externals.loky import reusable_executor
    except Exception:  # noqa: BLE001 - no loky, no pool
        return None
    executor = reusable_executor._executor  # the module's pool, as study.runner._release_loky_workers reads it
    flags = getattr(executor, "_flags", None)
    if executor is None or flags is None or flags.shutdown or flags.broken:
        return None
    return executor


def _import_modules(modules: tuple[str, ...]) -> int:
    import importlib

    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001, S110 - a warm-up only: the real import reports any problem
            pass
    return os.getpid()


def import_in_workers(*modules: str) -> None:
    """Have the idle workers of the running loky pool import ``modules`` (one task per worker, not waited for):
    after a study's simulation the parent computes the summary while the workers would idle, and the reports
    then draw part of their figures in them (:mod:`boundcheck.report.drawing`)."""
    _submit_to_each_worker(_import_modules, modules)
