"""Progress from inside a chunk, and workers that die with their parent.

Step-level progress has to cross process boundaries (a loky worker, a dask worker, or the parent itself with
``--jobs 1``), so it goes through the one thing all of them share: the results folder. The engine calls a
:class:`StepReporter` after every step of a chunk; at most every ``interval`` seconds it replaces the small file
``results/.progress/<chunk>`` with the step reached. In the parent, a :class:`ProgressMonitor` thread adds up
the finished chunks and those files a few times a second and calls ``on_progress(done, total)`` in units of
run-steps (``runs × T`` in all), so a bar moves within seconds even when one chunk takes hours, with one
worker or many. Reporting is best effort: a worker that cannot write its file (a remote dask worker without
the shared folder) just reports nothing until its chunk completes.

:func:`watch_parent` starts, once per worker process, a thread that ends the worker within about a second of
its parent's death: loky keeps idle workers alive for reuse, and a parent killed by SIGKILL cannot stop them.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from ..runtime.pool import ParentInfo, watch_parent  # re-exported: the workers' watchdog is the runtime's

__all__ = ["StepReporter", "ProgressMonitor", "watch_parent", "ParentInfo"]


class StepReporter:
    """Called by the engine as ``reporter(t)`` after step ``t`` of a chunk of ``runs`` runs (picklable)."""

    def __init__(self, directory: str | Path, chunk: int, runs: int, horizon: int, interval: float = 0.5) -> None:
        self.path = str(Path(directory) / f"{chunk}")
        self.runs, self.horizon = int(runs), int(horizon)
        self.interval = float(interval)
        self._last = 0.0

    def __getstate__(self) -> dict:
        return {"path": self.path, "runs": self.runs, "horizon": self.horizon, "interval": self.interval,
                "_last": 0.0}

    def __call__(self, t: int) -> None:
        now = time.monotonic()
        if now - self._last < self.interval and t < self.horizon:
            return
        self._last = now
        tmp = f"{self.path}.{os.getpid()}.tmp"
        with contextlib.suppress(OSError):
            with open(tmp, "w") as fh:
                fh.write(f"{int(t)} {self.runs}")
            os.replace(tmp, self.path)


class ProgressMonitor:
    """Parent side: polls the progress folder and reports ``on_progress(done, total)`` (run-steps)."""

    def __init__(self, directory: Path, total: int, horizon: int, done: int,
                 on_progress: Callable[[int, int], None], poll: float = 0.25) -> None:
        self.dir, self.total, self.horizon = Path(directory), int(total), int(horizon)
        self.on_progress, self.poll = on_progress, float(poll)
        self._done = int(done)  # run-steps of finished chunks
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._last = -1
        self._thread = threading.Thread(target=self._loop, name="boundcheck-progress", daemon=True)

    def __enter__(self) -> ProgressMonitor:
        self.dir.mkdir(parents=True, exist_ok=True)
        for f in self.dir.iterdir():  # left by a killed run: those chunks are not running now
            with contextlib.suppress(OSError):
                f.unlink()
        self._report()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._report()
        with contextlib.suppress(OSError):
            for f in self.dir.iterdir():
                f.unlink(missing_ok=True)
            self.dir.rmdir()

    def chunk_done(self, chunk: int, runs: int) -> None:
        with self._lock:
            self._done += int(runs) * self.horizon
            with contextlib.suppress(OSError):
                (self.dir / f"{chunk}").unlink(missing_ok=True)
        self._report()

    def _partial(self) -> int:
        units = 0
        with contextlib.suppress(OSError):
            for f in self.dir.iterdir():
                if not f.name.isdigit():
                    continue
                with contextlib.suppress(OSError, ValueError):
                    t, runs = (int(v) for v in f.read_text().split())
                    units += min(t, self.horizon) * runs
        return units

    def _report(self) -> None:
        with self._lock:
            units = min(self.total, self._done + self._partial())
            if units == self._last:
                return
            self._last = units
        with contextlib.suppress(Exception):  # a display error must not stop a study
            self.on_progress(units, self.total)

    def _loop(self) -> None:
        while not self._stop.wait(self.poll):
            self._report()
