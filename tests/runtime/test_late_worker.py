"""Issue 26 item 3: with ``--jobs 2`` a worker that is still starting (importing, unpickling the study) when the
parent is well into its own batch hands part of its first batch back, and every worker still gets a batch
(boundcheck.study.runner._simulate_beside_pool). Simulated with threads and sleeps: the real split only changes
who simulates which runs, and results do not depend on that (tests/test_parallel.py)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from boundcheck.study import runner

CHUNK_S = 0.3  # seconds one chunk takes in the fake task


def _run(monkeypatch, warm_after: float) -> dict[str, list[int]]:
    """Who simulated which chunks of 2 batches of 4, with the worker warm ``warm_after`` s after the start."""
    start = time.monotonic()
    monkeypatch.setattr(runner.runtime, "wait_warm",
                        lambda timeout=None: time.sleep(timeout or 0) or time.monotonic() - start >= warm_after)
    pool = ThreadPoolExecutor(1, thread_name_prefix="worker")
    monkeypatch.setattr(runner.runtime, "pool", lambda n: pool)
    monkeypatch.setattr(runner.runtime.forking, "enabled", lambda: False)  # loky's workers: they can be late

    def fake_task(spec, inst, task, progress=None, parent=None):
        time.sleep(CHUNK_S * len(task))
        who = "worker" if threading.current_thread().name.startswith("worker") else "parent"
        return [(c, {}, {"who": who}) for c, _ in task]

    monkeypatch.setattr(runner, "run_task", fake_task)
    done: dict[str, list[int]] = {"parent": [], "worker": []}
    lock = threading.Lock()

    def record(results):
        with lock:
            for c, _, info in results:
                done[info["who"]].append(c)

    plan = [[(c, [c]) for c in range(4)], [(c, [c]) for c in range(4, 8)]]
    try:
        runner._simulate_beside_pool(None, None, plan, 2, None, lambda task: None, record, [])
    finally:
        pool.shutdown()
    return {k: sorted(v) for k, v in done.items()}


def test_a_late_worker_hands_back_a_quarter_of_its_first_batch(monkeypatch):
    # the parent's batch takes 1.2 s; the worker is warm 0.6 s in (later than LATE_AFTER = 0.3 s)
    done = _run(monkeypatch, warm_after=0.6)
    assert done == {"parent": [3, 4, 5, 6, 7], "worker": [0, 1, 2]}


def test_a_warm_worker_keeps_its_batch(monkeypatch):
    done = _run(monkeypatch, warm_after=0.0)
    assert done == {"parent": [4, 5, 6, 7], "worker": [0, 1, 2, 3]}
