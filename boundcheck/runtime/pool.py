"""The loky worker pool: started on demand with BLAS on one thread, reused for every task of a command, and
stopped without a traceback and without leaving a worker behind. Public joblib/loky API only.

With ``--jobs J`` the parent simulates beside J − 1 workers; where they are loky's fresh interpreters (not forked,
:mod:`boundcheck.runtime.forking`) :func:`prewarm` starts them as soon as the input is validated, so that their
imports overlap the parent's set-up. The pool is the one this module started (never read back from loky's
globals): :func:`idle_pool` and :func:`shutdown` never start one and never see another's. This module imports
nothing heavy itself (the CLI calls it before the engine).

Stopping: :func:`shutdown` cancels what has not started, asks loky for an orderly shutdown (``kill_workers``
raced loky's manager thread into a ``KeyError`` traceback), and removes the *stop token*, a folder every
worker's watchdog looks at (:func:`watch_parent`): a busy worker exits within :data:`POLL` seconds; one still
starting (no watchdog yet) is killed after :data:`STOP_GRACE` seconds. The same watchdog ends a worker whose
parent died (SIGTERM, SIGKILL: no exit handler runs there).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from typing import TYPE_CHECKING

from ..utils import processes
from .watchdog import POLL, ParentInfo, watch_parent

if TYPE_CHECKING:
    from collections.abc import Callable
    from concurrent.futures import Future

__all__ = ["ONE_THREAD", "NO_MEMMAP", "IDLE_TIMEOUT", "tracker_log", "POLL", "ParentInfo", "watch_parent",
           "pool_workers", "pool", "pool_config", "prewarm", "preload", "submit_to_each_worker", "idle_pool",
           "pool_size", "spare_workers", "shutdown"]

#: set in every worker before any module loads: BLAS and OpenMP on one thread (the parallelism is over tasks;
#: a threaded BLAS would fight the other workers for cores and round differently from the serial one)
ONE_THREAD = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                                     "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")}
IDLE_TIMEOUT = 300  # seconds an idle worker waits for the next task before it exits
#: joblib's memmapping options for the pool: arrays travel pickled, never through files in /dev/shm. joblib's
#: executor would dump every array over 1 MB to a temporary folder whose files it only cleans when joblib's own
#: ``Parallel`` ends (a private call): tasks submitted directly left them to loky's resource tracker, which
#: warned of "leaked file objects" at exit, and a killed parent left the folder behind. The arrays
#: a task carries (a study's instance: kernel roots of ≤ a few MB) cost milliseconds to pickle, against seconds
#: per chunk; with two to a few workers a shared read-only copy saves nothing worth the files.
NO_MEMMAP = {"max_nbytes": None}
STOP_GRACE = 1.0  # seconds shutdown() gives the workers to exit by themselves (≈ 0.3 s: their own exit) before it
#                   kills them

_lock = threading.RLock()
_executor = None  # the pool this module started (None: none running)
_size = 0  # its worker processes
_token: str | None = None  # the stop token of the running pool: a folder that exists while the pool may run
_futures: list[Future] = []  # warm-ups sent to the pool and not known to be done (cancelled on shutdown)


# workers die with their parent: boundcheck.runtime.watchdog (re-exported here)

# ------------------------------------------------------------------------------------------------- the pool
def pool_workers(jobs: int | None) -> int:
    """Worker processes for ``--jobs`` (−1: every core): one fewer than the jobs, the parent being one of them."""
    n = (os.cpu_count() or 1) if jobs is None or jobs < 0 else jobs
    return max(0, n - 1)


def pool_config() -> dict:
    """``initializer``, ``initargs`` and the memmapping options (:data:`NO_MEMMAP`) of the pool's workers: every
    worker starts :func:`watch_parent` first thing, so that it dies with this process even while importing.
    Given to joblib's loky backend (``joblib.parallel_config(backend="loky", **pool_config())``), a ``Parallel``
    call's workers do the same. (Such a call starts its own executor, replacing the pool: the study runner and
    the explored grids submit to :func:`pool` directly.)"""
    global _token
    import atexit
    import shutil
    import tempfile

    with _lock:
        if _token is None or not os.path.isdir(_token):
            _token = tempfile.mkdtemp(prefix="boundcheck-pool-")
            # removed by shutdown(); this only covers a process that never calls it (a library caller)
            atexit.register(shutil.rmtree, _token, ignore_errors=True)
        return {"initializer": watch_parent, "initargs": (ParentInfo.here(), _token), **NO_MEMMAP}


def pool(workers: int):
    """The reusable loky executor with ``workers`` processes (started, or resized, on demand). The same
    arguments every time, so loky reuses the pool."""
    global _executor, _size
    # joblib's factory, not loky's: the pool is then one that joblib's own loky backend can reuse or replace
    # (it expects its temporary-folder manager on it); no array is memory-mapped (NO_MEMMAP, in pool_config)
    from joblib.executor import get_memmapping_executor

    with _lock:
        cfg = pool_config()
        with _stderr_on_tracker_log():  # loky's resource tracker starts with the executor's first semaphore
            _executor = get_memmapping_executor(workers, timeout=IDLE_TIMEOUT, env=ONE_THREAD, **cfg)
        _size = workers
        return _executor


TRACKER_LOG = "resource-tracker.log"  # in $BOUNDCHECK_LOG_DIR, else <tmp>/boundcheck-logs (as the crash logs)
_tracker_routed = False


def tracker_log() -> str:
    """The file the pool's resource tracker writes to (:func:`_stderr_on_tracker_log`)."""
    import tempfile

    folder = os.environ.get("BOUNDCHECK_LOG_DIR") or os.path.join(tempfile.gettempdir(), "boundcheck-logs")
    return os.path.join(folder, TRACKER_LOG)


@contextlib.contextmanager
def _stderr_on_tracker_log():
    """File descriptor 2 on :func:`tracker_log` (appended to) while the first pool of this process is made.

    Why: the resource trackers (loky's, started with the pool's first semaphore, and multiprocessing's, started
    here) are processes of their own that inherit fd 2 and outlive a parent killed by SIGKILL; a tracker then
    removes what the parent registered and reports each as "leaked" on that stderr, i.e. on the user's terminal
    after the command has gone. Started with fd 2 on the log, they report there (tests/runtime/test_pool_exit.py reads
    it). Public API only: the trackers start as loky and multiprocessing start them; one already running is left
    as it is; if the log cannot be opened, nothing changes. The workers start later (on the first task), with the
    real stderr."""
    global _tracker_routed
    if _tracker_routed or os.name != "posix":
        yield
        return
    _tracker_routed = True
    import sys

    try:
        os.makedirs(os.path.dirname(tracker_log()), mode=0o700, exist_ok=True)
        fd = os.open(tracker_log(), os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
    except OSError:
        yield
        return
    try:
        saved = os.dup(2)
    except OSError:  # no stderr at all (a daemon): nothing to keep the tracker off
        os.close(fd)
        yield
        return
    # the tracker must outlive the command: never ended with the processes a user's code left behind
    before = processes.children() if processes.watching() else None
    try:
        with contextlib.suppress(Exception):
            sys.stderr.flush()
        os.dup2(fd, 2)
        with contextlib.suppress(Exception):  # multiprocessing's, which the workers' start would start later
            from multiprocessing import resource_tracker

            resource_tracker.ensure_running()
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(fd)
        if before is not None:
            processes.spare(processes.children() - before)


def _track(fut: Future) -> None:
    with _lock:
        _futures[:] = [f for f in _futures if not f.done()]
        _futures.append(fut)


def prewarm(jobs: int, backend: str = "loky") -> None:
    """Start the ``jobs − 1`` loky workers now, without waiting (no-op unless the loky backend runs with more than
    one job): their interpreters start while this process sets the study up."""
    n = pool_workers(jobs)
    if backend != "loky" or n < 1:
        return
    with contextlib.suppress(Exception):  # a head start only: the study starts (and reports) the pool itself
        pool(n)


def submit_to_each_worker(fn: Callable, *args) -> None:
    """``fn(*args)`` once per worker of the running pool (no-op without one), not waited for: a head start only."""
    executor = _executor
    if executor is None:
        return
    with contextlib.suppress(Exception):
        for _ in range(pool_size(executor)):
            _track(executor.submit(fn, *args))


def _identity(obj) -> None:
    return None


def preload(obj) -> None:
    """Send ``obj`` (a pickled study's user classes, shipped by value) to every idle worker once, not waited
    for: their first task then finds the classes defined and starts at once. No-op without a pool."""
    submit_to_each_worker(_identity, obj)


def idle_pool():
    """The pool :func:`pool` started, if it is still running, else the executor of forked children a study used
    (:mod:`boundcheck.runtime.forking`), else None (never starts one: a report written outside a parallel study
    draws its figures in process rather than pay a pool's start). A pool that broke since refuses work on
    ``submit``; callers fall back to this process then."""
    if _executor is not None:
        return _executor
    from . import forking

    return forking.current()


def pool_size(executor=None) -> int:
    """Worker processes of ``executor`` (default: the running pool) if it is the pool :func:`pool` started,
    else 0 (nothing is known about an executor started elsewhere)."""
    with _lock:
        if _executor is not None and (executor is None or executor is _executor):
            return _size
    from . import forking

    fork = forking.current()
    return fork.max_workers if fork is not None and (executor is None or executor is fork) else 0


def spare_workers(executor=None) -> int:
    """How many of the pool's workers can work while the parent works: one per core beyond the parent's."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(0, min(pool_size(executor), cores - 1))


def shutdown() -> None:
    """Stop the pool :func:`pool` started (no-op without one; never starts one) without waiting for its tasks:
    warm-ups not started are cancelled, loky shuts the executor down in order, every worker exits within
    :data:`POLL` seconds, busy or not (its stop token is removed), and one that has not after :data:`STOP_GRACE`
    seconds is killed; forked children still running (:mod:`boundcheck.runtime.forking`) are killed. Returns when
    no worker is left. Safe from any thread and more than once."""
    global _executor, _size, _token
    with _lock:
        executor, token, futures = _executor, _token, list(_futures)
        _executor, _size, _token = None, 0, None
        _futures.clear()
    for fut in futures:
        fut.cancel()  # not started yet: it never will be
    if executor is not None:
        with contextlib.suppress(Exception):  # already shut down or broken: nothing left to stop
            executor.shutdown(wait=False)
    if token is not None:
        import shutil

        shutil.rmtree(token, ignore_errors=True)
    if executor is not None:
        _reap_workers(STOP_GRACE)
    from . import forking

    forking.shutdown()  # forked children still running (an interrupted study): killed and reaped


def _reap_workers(grace: float) -> None:
    """Kill the loky worker processes of this process that are still alive ``grace`` seconds from now. A worker
    still starting (a fresh interpreter: seconds on a loaded machine) has no watchdog yet to see the stop token,
    and it holds loky's resource tracker open; the others are gone within :data:`POLL` seconds and are not
    waited for beyond that. Public API only: ``multiprocessing.active_children`` lists loky's workers too."""
    import multiprocessing
    from multiprocessing.connection import wait

    with contextlib.suppress(Exception):  # a clean-up: whatever is left dies with this process (watch_parent)
        workers = [p for p in multiprocessing.active_children() if type(p).__name__ == _LOKY_PROCESS]
        deadline = time.monotonic() + grace
        while workers and time.monotonic() < deadline:
            wait([p.sentinel for p in workers], timeout=max(0.0, deadline - time.monotonic()))
            workers = [p for p in workers if p.is_alive()]
        for p in workers:
            p.kill()


_LOKY_PROCESS = "LokyProcess"  # the class of loky's worker processes (by name: its module is joblib's own)
