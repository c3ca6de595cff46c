"""The processes a user's code starts do not outlive the command that ran it.

A user's file or policy may start processes (``subprocess.Popen(["sleep", …])``, a server) at import or inside a
call, in the import probe, in the verifying process or in a worker. None of them is boundcheck's to keep:

* the import probe runs in a session (and process group) of its own, which is killed when the probe ends
  (``boundcheck.api._import_in_child``);
* the command's own process, once a user's code is imported there, becomes a *child subreaper* (Linux,
  ``prctl(PR_SET_CHILD_SUBREAPER)``): a process whose parent ends (a worker that exits, a probe's child, one that
  daemonised itself) is re-parented to the command instead of to init, so that it stays below the command;
* when the command ends, :func:`end_descendants` ends every process below it (SIGTERM, then SIGKILL after a
  grace) except boundcheck's own long-lived helpers (:func:`spare`: loky's and multiprocessing's resource
  trackers, which must outlive it to clean up after it).

The process tree is read from ``/proc`` (Linux); where there is none, nothing is found and nothing is ended.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time

__all__ = ["parents", "children", "descendants", "watching", "become_subreaper", "spare", "end_descendants",
           "END_GRACE"]

#: seconds the processes :func:`end_descendants` sent SIGTERM have to exit before SIGKILL
END_GRACE = 0.5
_PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h

_spared: set[int] = set()  # boundcheck's own helpers (the resource trackers), never ended


def parents() -> dict[int, int]:
    """Every process this user may see, with its parent: {pid: ppid}, from ``/proc`` ({} without it)."""
    table: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return table
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                data = f.read()
            # the fields after "(comm)" (comm may hold spaces and parentheses): state, ppid, ...
            table[int(name)] = int(data.rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    return table


def children(pid: int | None = None) -> set[int]:
    """The processes whose parent is ``pid`` (default: this process)."""
    me = os.getpid() if pid is None else pid
    return {p for p, pp in parents().items() if pp == me}


def descendants(pid: int | None = None, table: dict[int, int] | None = None) -> set[int]:
    """Every process below ``pid`` (default: this process): its children, theirs, and so on."""
    table = parents() if table is None else table
    below: dict[int, list[int]] = {}
    for p, pp in table.items():
        below.setdefault(pp, []).append(p)
    found: set[int] = set()
    todo = [os.getpid() if pid is None else pid]
    while todo:
        for child in below.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


_watching: list[bool] = []  # whether become_subreaper was called: the command holds a user's code


def watching() -> bool:
    """Whether this process watches what it starts (:func:`become_subreaper` was called): boundcheck's own
    long-lived helpers started from now on are to be spared (:func:`spare`)."""
    return bool(_watching)


def become_subreaper() -> bool:
    """Make this process the *child subreaper* of its descendants (Linux): one whose parent ends is re-parented to
    this process rather than to init, so that :func:`end_descendants` still finds it. The processes it has
    already started are boundcheck's own (a user's code was not imported yet): they are spared. Whether it is
    a subreaper now."""
    import sys

    if _watching:
        return True
    _watching.append(True)
    spare(children())
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def spare(pids) -> None:
    """Never end the processes ``pids`` (boundcheck's own helpers that must outlive the command)."""
    _spared.update(int(p) for p in pids)


def _gone(pid: int) -> bool:
    """Whether ``pid`` has ended: no such process, or a zombie (never reaped here: a worker's process object
    reaps its own, and init reaps the rest when the command has exited)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in (b"Z", b"X")


def end_descendants(grace: float = END_GRACE) -> list[int]:
    """End every process below this one but the spared ones (:func:`spare`) and theirs: SIGTERM, then SIGKILL to
    those still running ``grace`` seconds later (a process that ignores SIGTERM). Descendants re-parented to
    this process while it ends others (their parent was one of them) are ended too. Returns the pids ended."""
    ended: list[int] = []
    deadline = time.monotonic() + grace
    for _ in range(8):  # a few rounds: children of ended processes come back re-parented (subreaper)
        table = parents()
        keep = set(_spared)
        for pid in _spared:
            keep |= descendants(pid, table)
        targets = sorted(p for p in descendants(None, table) - keep if not _gone(p))
        if not targets:
            break
        for pid in targets:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)
        ended += [p for p in targets if p not in ended]
        while time.monotonic() < deadline and not all(_gone(p) for p in targets):
            time.sleep(0.01)
        for pid in targets:
            if not _gone(pid):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        for pid in targets:  # dead before the next round looks for the processes re-parented meanwhile
            for _ in range(100):
                if _gone(pid):
                    break
                time.sleep(0.005)
    return ended
