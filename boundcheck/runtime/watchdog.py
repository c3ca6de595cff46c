"""Workers die with their parent: the watchdog thread every worker process starts first thing (loky's workers by
the pool's initializer, forked children and dask workers on the parent's machine by the task), and the quick exit
of a pool worker. Imported by :mod:`boundcheck.runtime.pool` and :mod:`boundcheck.runtime.forking`."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time

__all__ = ["POLL", "ParentInfo", "watch_parent"]

POLL = 0.1  # seconds between a worker watchdog's looks at its parent and the stop token


# ------------------------------------------------------------------------------ workers die with their parent
class ParentInfo(tuple):
    """(pid, host) of the process that runs the study."""

    @classmethod
    def here(cls) -> ParentInfo:
        return cls((os.getpid(), socket.gethostname()))


_watchdog: threading.Thread | None = None


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs. A zombie does not: a parent killed by SIGKILL stays a zombie until whoever
    started it reaps it, and a caller such as ``subprocess.run(capture_output=True)`` reaps it only once every
    holder of its pipes has exited, the workers included (they would wait for their idle timeout)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]  # the field after "(comm)": comm may hold spaces
    except (OSError, IndexError):
        return True  # no /proc here: the pid exists
    return state not in (b"Z", b"X")


def watch_parent(parent: ParentInfo | None, token: str | None = None, poll: float = POLL) -> None:
    """In a worker process on the parent's machine: exit within ``poll`` seconds of the parent's death (its pid
    gone, or this process re-parented; status 1) or of the removal of the pool's stop ``token`` (a folder;
    status 0). Does nothing in the parent itself, on another host, or when a watchdog already runs here.

    ``os._exit``: the worker may be anywhere (importing, simulating); an orderly exit could wait for either."""
    global _watchdog
    if parent is None or _watchdog is not None:
        return
    pid, host = parent
    if pid == os.getpid() or host != socket.gethostname():
        return
    ppid = os.getppid()

    def loop() -> None:
        while True:
            time.sleep(poll)
            if os.getppid() != ppid or not _alive(pid):
                os._exit(1)
            if token is not None and not os.path.isdir(token):
                os._exit(0)

    _watchdog = threading.Thread(target=loop, name="boundcheck-parent-watchdog", daemon=True)
    _watchdog.start()
    if token is not None:  # a worker of the pool (the initializer): its normal exit skips the interpreter's teardown
        import atexit

        atexit.register(_exit_at_once)


def _exit_at_once() -> None:
    """A pool worker's exit handler, registered by its initializer before any task imports anything (exit handlers
    run last-registered first, so those of the tasks' imports run before it): flush the standard streams and leave
    with ``os._exit(0)``. Why: a worker leaves loky's loop when the parent shuts the pool down,
    and a normal interpreter exit then tears down every module it imported (numpy, scipy, pandas, sympy,
    matplotlib: ≈ 0.25 s, measured), during which its watchdog thread no longer runs; :func:`shutdown` waits for
    that, at the end of every parallel command. Nothing of the worker's needs the teardown: its results went
    back through loky's queues before its loop ended (multiprocessing's own exit function, which joins the
    queues' feeder threads, has run by then), and no file is left open for writing (the parent stores the
    chunks)."""
    import sys

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)
