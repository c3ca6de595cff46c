"""Shared pieces of the benchmarks: one BLAS thread on every side, repeated timings, machine facts, JSON.

Every benchmark prints ratios of timings taken in the same run (the machine is shared: absolute seconds are
noisy, ratios much less so) and the minimum and median of its repeats."""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import scipy.linalg  # noqa: F401 - load scipy's own OpenBLAS before limiting it
from threadpoolctl import threadpool_info, threadpool_limits

_LIMIT = threadpool_limits(limits=1, user_api="blas")  # both sides of every comparison: one BLAS thread


def blas_threads() -> list[int]:
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


def machine() -> dict:
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(), "numpy": np.__version__,
            "blas_threads": blas_threads(), "date": _dt.date.today().isoformat(),
            "load_1min": os.getloadavg()[0] if hasattr(os, "getloadavg") else None}


def timed(fn: Callable[[], object], repeat: int = 3, budget_s: float | None = None,
          clock: Callable[[], float] = time.process_time) -> tuple[list[float], object]:
    """Run ``fn`` ``repeat`` times (fewer when one run exceeds ``budget_s``); times and the last result.

    The default clock is this process's CPU time: with BLAS on one thread a single-process benchmark is one
    thread, and CPU time does not count the time other engineers' jobs hold the core (wall time does). Parallel
    benchmarks pass ``clock=time.perf_counter``."""
    times, out = [], None
    for _ in range(max(1, repeat)):
        t0 = clock()
        out = fn()
        times.append(clock() - t0)
        if budget_s is not None and times[-1] > budget_s:
            break
    return times, out


def summary(times: list[float]) -> dict:
    return {"min": min(times), "median": statistics.median(times), "n": len(times)}


def write_json(path: str | None, payload: dict) -> None:
    if path:
        Path(path).write_text(json.dumps(payload, indent=1, default=float))
