"""A study's worker share in child processes forked from the warm parent (Linux).

Why: a loky worker is a fresh interpreter that imports numpy, scipy, pandas, pyarrow, sympy and the engine and
unpickles the study before its first task (≈ 1 s of CPU), and workers may start only once every input is
validated; a child forked when the study starts has all of that already (docs/performance.md measures it).
:class:`ForkExecutor` is the part of ``concurrent.futures.Executor`` the study runner uses: ``submit(fn, *args)
-> Future`` on children forked when it is made, tasks and results pickled through one pipe per child, as to loky's
workers; results never depend on which process computed them (tests/runtime/test_forking.py,
tests/study/test_parallel.py).
A child ignores SIGINT (the parent stops it), writes Python-level output to ``os.devnull``, records its tasks'
warnings (re-issued in the parent), dies with the parent (:func:`~boundcheck.runtime.watchdog.watch_parent`)
and leaves with ``os._exit``; one that dies without a result fails its task with :class:`WorkerLost`.
Only where fork is safe and cheap: Linux, not with ``BOUNDCHECK_START_METHOD=spawn``, and never for a study
that runs a user's code (loky's sandboxed workers).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from typing import TYPE_CHECKING

from ..utils.switches import EnvSwitch

if TYPE_CHECKING:
    from collections.abc import Callable
    from concurrent.futures import Future

__all__ = ["START_METHODS", "start_method", "ForkExecutor", "WorkerLost", "enabled", "executor", "current",
           "shutdown"]

START_METHODS = ("fork", "spawn")
_switch: EnvSwitch | None = None


def start_method() -> EnvSwitch:
    """How a study's worker processes start: "fork" (children of the warm parent, on Linux) or "spawn" (loky's
    fresh interpreters, warmed up by :func:`~boundcheck.runtime.pool.prewarm`), from ``BOUNDCHECK_START_METHOD``
    (read at the first call, which refuses an unknown value in one line: ``api.check_environment`` makes it
    before anything starts)."""
    global _switch
    if _switch is None:
        _switch = EnvSwitch("BOUNDCHECK_START_METHOD", START_METHODS, "fork", "worker start method")
    return _switch

_lock = threading.Lock()
_fork_lock = threading.Lock()  # one fork at a time: a child must not copy another fork's half-made pipe
_executor: ForkExecutor | None = None


class WorkerLost(RuntimeError):
    """A forked child ended without sending its result back (killed, out of memory, a crash below Python)."""


def enabled() -> bool:
    """Whether study tasks run in forked children here: Linux, fork available, not switched off."""
    import multiprocessing

    from ..utils.switches import startup_off

    return (start_method().value == "fork" and not startup_off("fork") and sys.platform.startswith("linux")
            and "fork" in multiprocessing.get_all_start_methods())


def executor(workers: int, dumps: Callable[[object], bytes] | None = None) -> ForkExecutor:
    """The process's fork executor with at least ``workers`` children (forked now when it has fewer: call it from a
    quiescent point, see :class:`ForkExecutor`); ``dumps`` pickles its tasks (default :func:`pickle.dumps`)."""
    global _executor
    with _lock:
        if _executor is None or _executor.closed or not _executor.children():
            if _executor is not None:
                _executor.shutdown(wait=True, cancel_futures=True)
            _executor = ForkExecutor(workers, dumps)
        else:
            _executor.resize(workers)
            if dumps is not None:
                _executor.dumps = dumps
        return _executor


def current() -> ForkExecutor | None:
    """The executor :func:`executor` made, if it has not been shut down; never makes one."""
    with _lock:
        return _executor if _executor is not None and not _executor.closed else None


def shutdown() -> None:
    """Shut the executor down (if any): tasks not started are cancelled, running children are killed and
    reaped. Returns when none is left. Safe from any thread and more than once."""
    global _executor
    with _lock:
        ex, _executor = _executor, None
    if ex is not None:
        ex.shutdown(wait=True, cancel_futures=True)


class ForkExecutor:
    """``submit(fn, *args, **kwargs) -> Future`` on ``workers`` children forked from this process when the executor
    is made (see the module's docstring), each running one task at a time, for as long as the executor lives.

    Make it from a quiescent point: the thread that forks should hold no lock a task needs, and no other thread
    should be importing (a lock held at the fork stays held in the child). The study runner makes it on its main
    thread before it simulates or starts a feeder thread. Tasks travel pickled by ``dumps`` (the runner gives
    cloudpickle's: a study holds lambdas), results by :mod:`pickle`, through one pipe per child."""

    def __init__(self, workers: int, dumps: Callable[[object], bytes] | None = None) -> None:
        self.closed = False
        self._cond = threading.Condition()
        self._queue: list[tuple[Future, Callable, tuple, dict]] = []
        self._children: list[_Child] = []
        if dumps is None:
            import pickle

            dumps = pickle.dumps
        self.dumps = dumps
        self._add(max(1, int(workers)))

    def _add(self, n: int) -> None:
        import multiprocessing
        import warnings

        from .watchdog import ParentInfo

        ctx = multiprocessing.get_context("fork")
        for _ in range(n):
            mine, theirs = ctx.Pipe(duplex=True)
            others = [c.conn for c in self._children]  # the other children's pipes: closed in the new child
            proc = ctx.Process(target=_child_main, args=(theirs, mine, others, ParentInfo.here()), daemon=True,
                               name="boundcheck-forked")
            with _fork_lock, warnings.catch_warnings():
                # Python ≥ 3.12 warns at every fork of a process with threads; see the class's docstring
                warnings.filterwarnings("ignore", message=r".*multi-threaded.*fork", category=DeprecationWarning)
                proc.start()
            theirs.close()
            child = _Child(proc, mine)
            self._children.append(child)
            threading.Thread(target=self._dispatch, args=(child,), name="boundcheck-fork-feed", daemon=True).start()

    def resize(self, workers: int) -> None:
        """Fork more children up to ``workers`` (never fewer: an idle child costs nothing)."""
        self._add(max(0, int(workers) - self.max_workers))

    @property
    def max_workers(self) -> int:
        """The children alive: how many tasks run at once."""
        return len(self._alive())

    def _alive(self) -> list[_Child]:
        return [c for c in self._children if not c.dead]

    def children(self) -> list[int]:
        return [c.proc.pid for c in self._alive()]

    def submit(self, fn: Callable, /, *args, **kwargs) -> Future:
        from concurrent.futures import Future  # here: importing the runtime imports nothing heavy

        fut: Future = Future()
        with self._cond:
            if self.closed:
                raise RuntimeError("cannot schedule new futures after shutdown")
            if not self._alive():
                raise WorkerLost("every worker process of this executor has ended")
            self._queue.append((fut, fn, args, kwargs))
            self._cond.notify()
        return fut

    def _dispatch(self, child: _Child) -> None:
        """One child's feeder: the next task to it, its answer to the task's future; on its death the task fails
        with :class:`WorkerLost` (and, when no child is left, every waiting task too)."""
        while True:
            with self._cond:
                while not self._queue and not self.closed:
                    self._cond.wait()
                if self.closed:
                    return
                fut, fn, args, kwargs = self._queue.pop(0)
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                if not self._serve(child, fut, fn, args, kwargs):
                    return
            except BaseException as exc:  # noqa: BLE001 - never leave a task's future unresolved
                if not fut.done():
                    fut.set_exception(exc)

    def _serve(self, child: _Child, fut: Future, fn, args, kwargs) -> bool:
        """One task on ``child``; False when the child is gone."""
        import pickle
        import warnings

        try:
            data = self.dumps((fn, args, kwargs))
        except Exception as exc:  # noqa: BLE001 - the task does not pickle: its own error
            fut.set_exception(exc)
            return True
        from multiprocessing.connection import wait

        child.busy = True
        msg = None
        try:
            child.conn.send_bytes(data)
            ready = wait([child.conn, child.proc.sentinel])
            if child.conn in ready or child.conn.poll():
                msg = pickle.loads(child.conn.recv_bytes())
        except (EOFError, OSError):
            msg = None
        finally:
            child.busy = False
        if msg is None:
            child.dead = True
            child.proc.join(timeout=1)
            fut.set_exception(WorkerLost(f"a worker process ended without its result (exit code "
                                         f"{child.proc.exitcode})"))
            with self._cond:
                if not self._alive():
                    for f, *_ in self._queue:
                        f.set_exception(WorkerLost("every worker process of this executor has ended"))
                    self._queue.clear()
            return False
        if msg[0] == "ok":
            for text, category in msg[2]:
                warnings.warn(text, category, stacklevel=1)
            fut.set_result(msg[1])
        else:
            fut.set_exception(msg[1])
        return True

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        """Refuse new tasks, cancel the waiting ones (``cancel_futures``; else they fail), let idle children leave
        (their pipe closes: they ``os._exit``) and kill busy ones; ``wait``: return once every child is gone."""
        with self._cond:
            self.closed = True
            queued, self._queue = self._queue, []
            self._cond.notify_all()
        for fut, *_ in queued:
            if not fut.cancel() and not fut.done():
                fut.set_exception(RuntimeError("the executor was shut down"))
        for c in self._children:
            if c.busy:
                with contextlib.suppress(Exception):
                    c.proc.kill()
            with contextlib.suppress(Exception):
                c.conn.close()
        if wait:
            for c in self._children:
                with contextlib.suppress(Exception):
                    c.proc.join(timeout=2)
                    if c.proc.is_alive():
                        c.proc.kill()
                        c.proc.join()


class _Child:
    def __init__(self, proc, conn) -> None:
        self.proc, self.conn = proc, conn
        self.busy = False
        self.dead = False


def _child_main(conn, parents_end, others, parent) -> None:
    """A forked child: tasks from ``conn`` until it closes, then ``os._exit(0)`` (see the module's docstring)."""
    import pickle
    import signal
    import warnings

    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        for c in (parents_end, *others):  # the parent's ends: the pipes must close when the parent closes them
            c.close()
        devnull = open(os.devnull, "w")  # noqa: SIM115 - this process ends with os._exit
        sys.stdout = sys.stderr = devnull
        from .watchdog import watch_parent

        watch_parent(parent)
    except BaseException:  # noqa: BLE001 - cannot serve: the parent sees the pipe close
        os._exit(1)
    while True:
        try:
            data = conn.recv_bytes()
        except (EOFError, OSError):
            os._exit(0)
        try:
            fn, args, kwargs = pickle.loads(data)
            with warnings.catch_warnings(record=True) as caught:
                result = fn(*args, **kwargs)
            notes = list(dict.fromkeys((str(w.message), w.category) for w in caught))
            msg = ("ok", result, notes)
        except BaseException as exc:  # noqa: BLE001 - sent back: the parent raises it
            msg = ("error", exc)
        try:
            out = pickle.dumps(msg)
        except BaseException as exc:  # noqa: BLE001 - the result or the exception does not pickle
            out = pickle.dumps(("error", RuntimeError(f"a worker's result could not be sent back: "
                                                           f"{type(exc).__name__}: {exc}".splitlines()[0])))
        try:
            conn.send_bytes(out)
        except (OSError, ValueError):
            os._exit(0)
