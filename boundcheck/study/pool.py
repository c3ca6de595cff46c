"""Starting the worker pool early: workers spawn and import the engine while the parent is still busy.

A loky worker is a fresh interpreter that imports numpy, scipy, pandas, sympy and the engine (≈ 0.7 s of CPU)
before its first chunk. :func:`prewarm` starts the pool and that import in a background thread as soon as a
command knows it will run in parallel, so it overlaps the parent's own imports and the theorem's instantiation;
:func:`~boundcheck.study.runner.run_study` waits for it and joblib reuses the same workers for every chunk.
This module imports nothing heavy itself (the CLI calls it before importing the engine).
"""

from __future__ import annotations

import contextlib
import os
import threading

__all__ = ["prewarm", "wait_prewarmed", "import_in_background", "idle_executor", "import_in_workers",
           "stop_workers"]

_thread: threading.Thread | None = None


def _warm() -> int:
    import boundcheck.study.runner  # noqa: F401 - the import is the point

    return os.getpid()


def prewarm(jobs: int, backend: str = "loky") -> None:
    """Start ``jobs`` loky workers and import the engine in them, in the background (no-op otherwise)."""
    global _thread
    if backend != "loky" or jobs == 1 or _thread is not None:
        return

    # imported here, not in the thread (the same CPython 3.11 race where a module is compiled, see below)
    from .progress import ParentInfo, watch_parent

    parent = ParentInfo.here()

    def go() -> None:
        import joblib

        n = joblib.effective_n_jobs(jobs)
        if n <= 1:
            return
        # the very configuration run_study's loky backend uses (workers watch this process), so that joblib
        # reuses this pool instead of replacing it
        with joblib.parallel_config(backend="loky", initializer=watch_parent, initargs=(parent,)):
            # pre_dispatch="all": the default ("2*n_jobs") is evaluated with ast.parse, and parsing in two threads
            # at once can crash CPython 3.11 ("AST constructor recursion depth mismatch") while the main thread
            # parses too (inspect.getsource for the study's fingerprints, pytest's assertion rewriting)
            joblib.Parallel(n_jobs=jobs, pre_dispatch="all")(joblib.delayed(_warm)() for _ in range(n))

    _thread = threading.Thread(target=go, name="boundcheck-prewarm", daemon=True)
    _thread.start()


def wait_prewarmed() -> None:
    """Block until a :func:`prewarm` started in this process has finished (before using the pool)."""
    global _thread
    if _thread is not None:
        _thread.join()
        _thread = None


def stop_workers() -> None:
    """Terminate the idle loky workers without waiting for them to exit (the command line, just before its
    process exits: loky's exit handler would otherwise wait ≈ 0.3 s for them). Never starts a pool, and leaves
    a pool alone while :func:`prewarm` is still starting it (an early error: loky's own exit handler then)."""
    import sys

    if _thread is not None or "joblib.externals.loky.reusable_executor" not in sys.modules:
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
    import importlib

    def go() -> None:
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001, S110 - a warm-up only: the real import reports any problem
                pass

    th = threading.Thread(target=go, name="boundcheck-imports", daemon=True)
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
    then draw part of their figures in them (:func:`boundcheck.report.figures.make_figures`)."""
    executor = idle_executor()
    if executor is None:
        return
    with contextlib.suppress(Exception):  # a warm-up only
        for _ in range(executor._max_workers):
            executor.submit(_import_modules, modules)
