"""What a study sends to worker processes, and what a worker that ran user code leaves behind.

A policy from a user's file travels by value (:func:`ship_by_value`), and one that cannot travel is refused here in
one line naming the object that fails (:func:`check_picklable`). While workers run user code, one stuck where
SIGALRM cannot reach it is stopped (:func:`stop_stuck`), and a worker's death becomes one
:class:`~boundcheck.errors.UserCodeError` naming the call it ended in (:func:`death`). The runner
(:mod:`boundcheck.study.runner`) calls them."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path

from ..errors import UserCodeError
from ..utils import usercode
from .spec import StudySpec

__all__ = ["ship_by_value", "by_value", "check_picklable", "holds_user_code", "stop_stuck", "death", "STUCK_GRACE"]


def ship_by_value(spec: StudySpec) -> None:
    """Policies (and their modules) that are not part of an installed package travel by value, so that a
    worker process does not need to import the user's file or test module by name."""
    modules = {getattr(obj, "__module__", "") for p in spec.policies  # the factory and classes it is given
               for obj in (p.factory, *p.kwargs.values()) if callable(obj)}
    for name in list(modules):  # modules a user's policy file imported from its own folder
        modules.update(getattr(sys.modules.get(name), "__boundcheck_siblings__", ()))
    from ..policies import _cloudpickle

    picklers = [_cloudpickle()]  # the one policies' specs, dask and :func:`by_value` pickle with
    for name in modules:
        mod = sys.modules.get(name)
        if mod is None or name.split(".")[0] in ("boundcheck", "theory") or name == "__main__":
            continue
        file = getattr(mod, "__file__", None)
        if isinstance(file, str) and usercode.installed(file) and usercode.importable(name, file):
            continue  # an installed package: imported by name there (a user's file below a prefix still travels)
        for cp in picklers:
            with contextlib.suppress(ValueError, AttributeError):
                cp.register_pickle_by_value(mod)


class by_value:  # noqa: N801 - used like a function at the submit call
    """``obj`` sent to a loky worker as cloudpickle bytes, unpickled there as ``obj`` itself. loky pickles with
    joblib's private copy of cloudpickle, which knows nothing of the user modules :func:`ship_by_value`
    registered with the public package: the bytes carry them."""

    __slots__ = ("data",)

    def __init__(self, obj) -> None:
        from ..policies import _cloudpickle

        self.data = _cloudpickle().dumps(obj)  # once, however many tasks it goes with

    def __reduce__(self):
        return (_from_bytes, (self.data,))


def _from_bytes(data: bytes):
    from ..policies import _cloudpickle

    return _cloudpickle().loads(data)


def check_picklable(spec: StudySpec) -> None:
    """Pickle here, as sending them to a worker process does, the policies of the study that hold user code: one
    that cannot travel (its class refers to a lock, an open file, a module too deep to copy) is one line naming
    the policy and the object that failed, in this process (exit 2), never a worker that "ended unexpectedly"."""
    from ..policies import _cloudpickle

    dumps = _cloudpickle().dumps
    for p in spec.policies:
        users = [obj for obj in (p.factory, *p.kwargs.values())
                 if callable(obj) and getattr(obj, "__module__", "").split(".")[0] not in ("boundcheck", "theory")]
        if not users:
            continue
        try:
            dumps(p)
        except (Exception, RecursionError) as exc:  # noqa: BLE001 - whatever the pickler raised: named, one line
            detail = f"{type(exc).__name__}: {exc}".splitlines()[0]
            part = next(filter(None, (_unpicklable_part(obj, dumps) for obj in users)), "")
            raise UserCodeError(f"policy {p.name!r} cannot be sent to the worker processes: pickling it failed in "
                                f"this process ({detail}){f'; the object that fails: {part}' if part else ''}"
                                ) from None


def _unpicklable_part(obj, dumps, depth: int = 3) -> str:
    """The innermost part of a user's class, function or module ``obj`` that fails to pickle on its own (an
    attribute, or a global a function refers to), as ``P.ask → global _LOCK (a lock)``; "" when none is found."""
    import inspect
    import types

    def failing(value) -> bool:
        try:
            dumps(value)
        except (Exception, RecursionError):  # noqa: BLE001 - any failure counts
            return True
        return False

    if depth == 0 or not failing(obj):
        return ""
    parts: list[tuple[str, object]] = []
    if isinstance(obj, types.ModuleType):
        parts = [(f"{obj.__name__}.{k}", v) for k, v in vars(obj).items() if not k.startswith("__")]
    else:
        members = vars(obj).items() if isinstance(obj, type) else [(getattr(obj, "__name__", "?"), obj)]
        for key, value in members:
            fn = getattr(value, "__func__", value)  # staticmethod, classmethod
            label = f"{obj.__qualname__}.{key}" if isinstance(obj, type) else getattr(obj, "__qualname__", key)
            if inspect.isfunction(fn):
                names = set(fn.__code__.co_names)
                names.update(n for c in fn.__code__.co_consts if inspect.iscode(c) for n in c.co_names)
                parts += [(f"{label} → global {n}", fn.__globals__[n]) for n in sorted(names) if n in fn.__globals__]
            elif isinstance(obj, type) and not key.startswith("__"):
                parts.append((label, value))
    for label, value in parts:
        if value is obj or not failing(value):
            continue
        if isinstance(value, type | types.FunctionType | types.ModuleType):
            inner = _unpicklable_part(value, dumps, depth - 1)
            if inner:
                return f"{label} → {inner}"
        return f"{label} (a {type(value).__module__}.{type(value).__qualname__})"
    return ""


def holds_user_code(spec: StudySpec) -> bool:
    """Whether a policy of the study is code from outside boundcheck (a user's file or module): its calls are
    then sandboxed (:mod:`boundcheck.utils.usercode`) and, on loky, run in child processes only."""
    for p in spec.policies:
        for obj in (p.factory, *p.kwargs.values()):
            if callable(obj) and getattr(obj, "__module__", "").split(".")[0] not in ("boundcheck", "theory"):
                return True
    return False


STUCK_GRACE = 5.0  # seconds past the time limit after which a call that ignores SIGALRM has its process stopped


def stop_stuck(executor, sandbox: usercode.SandboxConfig, stuck: list[str]) -> None:
    """Stop (SIGKILL) a worker whose marker has named the same user call for longer than the time limit plus
    :data:`STUCK_GRACE`: a call stuck where SIGALRM cannot interrupt it (inside one C routine, or one that
    ignores the signal). Only the executor's own processes are ever stopped."""
    if not sandbox.timeout or not sandbox.markers or stuck:
        return
    import multiprocessing
    import signal

    # this process's children (public API; the loky workers among them): a marker names a worker's pid
    pids = {p.pid for p in multiprocessing.active_children()}
    now = time.time()
    for pid in pids:
        f = Path(sandbox.markers) / str(pid)
        try:
            if now - f.stat().st_mtime <= sandbox.timeout + STUCK_GRACE:
                continue
            text = f.read_bytes().decode("utf-8", "replace").strip()
        except OSError:
            continue
        if text:
            stuck.append(text)
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            return


def death(spec: StudySpec, sandbox: usercode.SandboxConfig, exc: BaseException) -> UserCodeError:
    """The one line for a worker that ran user code and died (or failed outside a user call)."""
    import re

    where = usercode.last_call(sandbox.markers) if sandbox.markers else None
    codes = re.search(r"exit codes? of the workers (?:are|is) \{([^}]*)\}", str(exc))  # loky's wording
    how = "exit code " + re.sub(r"EXIT\((-?\d+)\)", r"\1", codes.group(1)) if codes else type(exc).__name__
    if where is None:
        names = ", ".join(repr(p.name) for p in spec.policies)
        if type(exc).__name__ == "PicklingError":  # failed here, sending the task: no process ended
            cause = [ln for ln in str(exc.__cause__ or "").splitlines()  # loky: the pickler's traceback, as text
                     if ln.strip() and ln.strip() != '"""']
            detail = cause[-1] if cause else f"{type(exc).__name__}: {exc}".splitlines()[0]
            return UserCodeError(f"the policies ({names}) could not be sent to the worker processes: pickling "
                                 f"failed in this process ({detail})")
        return UserCodeError(f"the process running the policies ({names}) ended unexpectedly ({how})")
    return UserCodeError(f"{where}: the process running it ended ({how}: os._exit, a crash or a signal in the "
                         "policy's code)")
