"""Study tasks in children forked from the warm parent (boundcheck.runtime.forking, the default on Linux): what
comes back is what the task returned or raised, warnings reach the parent, a child that dies fails its task with
WorkerLost instead of hanging, and no child outlives the executor's shutdown or its parent (SIGKILL included).
That the stored results do not depend on it: tests/test_parallel.py; interrupts and terminations of a
``verify --jobs 2``, which now runs its worker share in a forked child: tests/test_pool_exit.py."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from boundcheck.runtime import forking

sys.path.insert(0, str(Path(__file__).parent))
from early_exits import gone as _gone  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

pytestmark = pytest.mark.skipif(not forking.enabled(), reason="tasks run in forked children on Linux only")


def _warn_and_square(x):
    warnings.warn("a warning from the child", RuntimeWarning, stacklevel=1)
    return x * x


def _square(x):
    return x * x


class Planted(ValueError):
    pass


def _raise():
    raise Planted("planted in the child")


def test_results_exceptions_and_warnings_come_back():
    from boundcheck.policies import _cloudpickle

    ex = forking.ForkExecutor(2, dumps=_cloudpickle().dumps)
    try:
        assert len(ex.children()) == 2 and os.getpid() not in ex.children()
        scale = 3.0
        fut = ex.submit(lambda v: (os.getpid(), v * scale), 2.0)  # a closure: sent with cloudpickle
        pid, value = fut.result(timeout=30)
        assert value == 6.0 and pid in ex.children()
        with pytest.warns(RuntimeWarning, match="a warning from the child"):
            assert ex.submit(_warn_and_square, 7).result(timeout=30) == 49
        with pytest.raises(Planted, match="planted in the child"):
            ex.submit(_raise).result(timeout=30)
        assert sorted(f.result(timeout=30) for f in [ex.submit(_square, i) for i in range(6)]) == [0, 1, 4, 9, 16, 25]
    finally:
        pids = ex.children()
        ex.shutdown()
    assert _gone(pids)
    with pytest.raises(RuntimeError, match="after shutdown"):
        ex.submit(_raise)


def test_a_child_that_dies_fails_its_task_and_the_others_go_on():
    ex = forking.ForkExecutor(2)
    try:
        with pytest.raises(forking.WorkerLost, match="ended without its result"):
            ex.submit(os._exit, 3).result(timeout=30)
        assert len(ex.children()) == 1
        assert ex.submit(_square, 3).result(timeout=30) == 9  # the other child serves
        with pytest.raises(forking.WorkerLost):
            ex.submit(os._exit, 4).result(timeout=30)
        with pytest.raises(forking.WorkerLost, match="every worker process"):
            ex.submit(_square, 3)
    finally:
        ex.shutdown()


def test_shutdown_kills_a_busy_child_at_once():
    ex = forking.ForkExecutor(1)
    fut = ex.submit(time.sleep, 60)
    waiting = ex.submit(time.sleep, 60)  # queued behind it: cancelled
    deadline = time.monotonic() + 10
    while not fut.running() and time.monotonic() < deadline:
        time.sleep(0.01)
    pids = ex.children()
    t0 = time.perf_counter()
    ex.shutdown(wait=True, cancel_futures=True)
    assert time.perf_counter() - t0 < 5 and _gone(pids, 1.0)
    assert waiting.cancelled()
    with pytest.raises(forking.WorkerLost):
        fut.result(timeout=10)


def test_children_die_with_a_parent_killed_by_sigkill_and_print_nothing():
    code = """
import os, sys, time, signal
from boundcheck.runtime import forking
ex = forking.executor(2)
futs = [ex.submit(time.sleep, 60) for _ in range(2)]
time.sleep(0.5)
print(" ".join(map(str, ex.children())), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=ENV)
    assert out.returncode == -9
    pids = [int(p) for p in out.stdout.split()]
    assert len(pids) == 2 and _gone(pids)
    assert out.stderr == ""


def test_the_start_method_is_checked_before_anything_starts(tmp_path):
    env = {**ENV, "BOUNDCHECK_START_METHOD": "vfork"}
    out = subprocess.run([sys.executable, "-m", "boundcheck.cli", "verify", "--theorem", "gp_ucb", "--runs", "4",
                          "--horizon", "5", "--out", str(tmp_path / "out")], capture_output=True, text=True,
                         timeout=120, env=env)
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip().count("\n") == 0 and "BOUNDCHECK_START_METHOD" in out.stderr
    assert "Traceback" not in out.stderr and not (tmp_path / "out").exists()
