"""Loading a user's code (a policy, a factory, a theorem named ``FILE.py:NAME`` or ``package.module:NAME``).

A user's file is first imported in a throwaway process (:data:`_IMPORT_PROBE`) so that an import that hangs or
kills its process is one line, exit 2; then here, fenced (:func:`_user_code_here`: what its module-level code
does to the process is undone, what it prints goes to stderr). The fencing itself is
:mod:`boundcheck.utils.usercode`."""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import json
import os
import signal
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import BoundcheckError
from ..utils import usercode

if TYPE_CHECKING:


    pass


_IMPORT_PROBE = """
import importlib, importlib.util, json, os, sys
kind, target, factory = sys.argv[1], sys.argv[2], sys.argv[5]
sys.path[:] = json.loads(sys.argv[3])  # the verifying process's, so that the same module is found
try:
    if kind == "file":
        sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
        spec = importlib.util.spec_from_file_location("boundcheck_import_probe", target)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(target)
    obj = getattr(module, factory, None) if factory else None
    if callable(obj) and not isinstance(obj, type):  # a policy factory: the verifying process will call it
        obj()
except BaseException:
    pass
open(sys.argv[4], "w").close()  # the import (and the factory's call) returned
os._exit(0)  # at once: a non-daemon thread the file started must not hold this process up until the timeout
"""
IMPORT_PROBE_TIMEOUT = 60.0  # seconds a user file may take to import in the throwaway process (and here)
IMPORT_NOTICE_AFTER = 2.0  # seconds of an import probe after which the command says what it waits for



_SIBLINGS: dict[str, str] = {}  # a user file's own modules, by name: the folder they came from

def _import_in_child(kind: str, target: str, label: str, factory: str = "") -> None:
    """Import a user's file (``kind`` "file") or module ("module") first in a throwaway Python process, and call
    its attribute ``factory`` there when that is a policy factory (a callable, not a class: this process calls it
    to read the policy it makes): code that ends its process while being imported or called (``os._exit``, a crash,
    a signal) or never finishes is then one line naming ``label`` instead of the end of this one (whose exit status
    it would set). An ordinary exception (or SystemExit) is left to the real import or call, which words it.

    An import that takes more than :data:`IMPORT_NOTICE_AFTER` seconds says so on stderr, with its time limit.
    The probe runs in a session (and process group) of its own, ended with everything in it when the probe ends,
    however it ends (a process the file starts at import does not outlive it; nor does the probe outlive an
    interrupt of the command)."""
    import subprocess

    # no pipes: a process the file starts at import inherits the probe's descriptors, and one that lives on would
    # hold a pipe open (the probe was waited for until it ended); the probe says it returned with a file
    quiet = subprocess.DEVNULL
    with tempfile.TemporaryDirectory(prefix="boundcheck-probe-") as folder:
        returned = os.path.join(folder, "returned")
        proc = subprocess.Popen([sys.executable, "-c", _IMPORT_PROBE, kind, target, json.dumps(sys.path), returned,
                                 factory], stdin=quiet, stdout=quiet, stderr=quiet, cwd=os.getcwd(),
                                start_new_session=True)
        try:
            ended = _wait_unreaped(proc, IMPORT_NOTICE_AFTER)
            if not ended:
                print(f"boundcheck: importing {label} (limit {IMPORT_PROBE_TIMEOUT:g} s)…", file=sys.stderr,
                      flush=True)
                ended = _wait_unreaped(proc, IMPORT_PROBE_TIMEOUT - IMPORT_NOTICE_AFTER)
        finally:  # the probe's group: what the file started, and the probe itself when it did not end
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if not ended:
            raise BoundcheckError(f"{label} did not finish importing within {IMPORT_PROBE_TIMEOUT:g} s")
        if not os.path.exists(returned):
            raise BoundcheckError(f"{label} ended the process importing it (exit code {proc.returncode}: "
                                  "os._exit, a crash or a signal at import"
                                  + (f", or in {factory}(), the policy factory it names)" if factory else ")"))


def _wait_unreaped(proc, timeout: float) -> bool:
    """Wait at most ``timeout`` seconds for the process ``proc`` to end, without reaping it where the platform
    allows (``os.waitid``): its pid, its process group's id, stays taken until :meth:`~subprocess.Popen.wait`, so
    the group can still be killed safely. Whether it ended."""
    import subprocess

    if not hasattr(os, "waitid"):
        try:
            proc.wait(timeout=timeout)
            return True
        except subprocess.TimeoutExpired:
            return False
    deadline = time.monotonic() + timeout
    pause = 0.001
    while True:
        try:
            if os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG) is not None:
                return True
        except ChildProcessError:  # reaped already
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(pause)
        pause = min(2 * pause, 0.02)


def _code_root(target: str) -> str:
    """Where the code of the module ``target`` lives, for :func:`~boundcheck.utils.usercode.import_fence`: its
    top-level package's folder, or the file of a top-level module (the current folder when it cannot be found)."""
    with contextlib.suppress(ImportError, ValueError, AttributeError):
        found = importlib.util.find_spec(target.split(".")[0])
        if found is not None and found.submodule_search_locations:
            return list(found.submodule_search_locations)[0]
        if found is not None and found.origin and os.path.isfile(found.origin):
            return found.origin
    return os.getcwd()


def _load_object(ref: str, what: str = "policy"):
    """``pkg.module:Name`` or ``path/to/file.py:Name`` (``what``: a policy or a theorem, for the messages)."""
    target, sep, attr = ref.rpartition(":")
    if not sep or not target or not attr:
        name = "CLASS" if what == "policy" else "NAME"
        raise BoundcheckError(f"malformed {what} reference {ref!r}: expected FILE.py:{name} or package.module:{name}")
    if target.endswith(".py"):
        path = Path(target)
        if not path.is_file():
            raise BoundcheckError(f"{what} file {target} not found")
        # a name that is the same in every process (the resume key holds it: hash() of a str is salted per process)
        digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:8]
        modname = f"boundcheck_user_{path.stem}_{digest}"
        # a file that ends the process at import ends a throwaway one
        _import_in_child("file", str(path), f"{what} file {target}", attr if what == "policy" else "")
        spec = importlib.util.spec_from_file_location(modname, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[modname] = module
        folder = str(path.resolve().parent)
        # another user file's siblings of the same name (helpers.py in two project folders) are not this file's:
        # hidden while it imports, back afterwards unless this file imported its own
        hidden = {name: sys.modules.pop(name) for name, home in list(_SIBLINGS.items())
                  if home != folder and name in sys.modules}
        before = set(sys.modules)
        sys.path.insert(0, folder)  # the file may import its siblings, as when run as a script
        try:
            with _user_code_here(folder, f"{what} file {target}"):
                spec.loader.exec_module(module)
        except usercode.PolicyTimeout:  # the probe's import took less: this one may not hang the command either
            sys.modules.pop(modname, None)
            raise BoundcheckError(f"{what} file {target} did not finish importing within "
                                  f"{IMPORT_PROBE_TIMEOUT:g} s") from None
        except (Exception, SystemExit, KeyboardInterrupt, GeneratorExit) as exc:  # user code: one line, the file
            sys.modules.pop(modname, None)
            detail = f"{type(exc).__name__}({exc.code!r})" if isinstance(exc, SystemExit) else \
                f"{type(exc).__name__}: {exc}".splitlines()[0]
            raise BoundcheckError(f"{what} file {target} failed to import: {detail}") from None
        finally:
            sys.path.remove(folder)
            for name, mod in hidden.items():
                sys.modules.setdefault(name, mod)
        # siblings it imported travel to worker processes by value with it (they are not importable there); an
        # installed package, even in a virtual environment inside the folder (project/.venv), never does
        module.__boundcheck_siblings__ = usercode.own_modules(set(sys.modules) - before, folder)
        _SIBLINGS.update(dict.fromkeys(module.__boundcheck_siblings__, folder))
    else:
        try:
            if target in sys.modules or _ours(target):
                module = importlib.import_module(target)  # imported before (nothing runs now), or ours
            else:  # a user's module, as for a file: first in a throwaway process, then fenced
                _import_in_child("module", target, f"{what} module {target}", attr if what == "policy" else "")
                with _user_code_here(_code_root(target), f"{what} module {target}"):
                    module = importlib.import_module(target)
        except usercode.PolicyTimeout:
            sys.modules.pop(target, None)
            raise BoundcheckError(f"{what} module {target} did not finish importing within "
                                  f"{IMPORT_PROBE_TIMEOUT:g} s") from None
        except ImportError as exc:
            raise BoundcheckError(f"cannot import {target!r} for {what} {ref!r}: {exc}") from None
        except (SystemExit, KeyboardInterrupt, GeneratorExit) as exc:  # user code may not end this process
            raise BoundcheckError(f"importing {target!r} for {what} {ref!r} raised {type(exc).__name__}"
                                  f"{f'({exc.code!r})' if isinstance(exc, SystemExit) else ''}") from None
        except Exception as exc:  # noqa: BLE001 - the user's module failed at import: one line, exit 2
            detail = f"{type(exc).__name__}: {exc}".splitlines()[0]
            raise BoundcheckError(f"{what} module {target} failed to import: {detail}") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise BoundcheckError(f"{target} has no {attr!r}") from None


def _ours(module: str) -> bool:
    """Whether the module named ``module`` is boundcheck's or theory's (not a user's code)."""
    return module.split(".")[0] in ("boundcheck", "theory")


@contextlib.contextmanager
def _user_code_here(where: str, label: str):
    """A user's import or call in this process (``where``: its code's folder or file, ``label``: for the messages):
    what it does to the process is undone after it (:func:`~boundcheck.utils.usercode.import_fence`, each undone
    change one warning), what it writes to stdout goes to stderr (verify --json prints one JSON document there),
    and it may take at most :data:`IMPORT_PROBE_TIMEOUT` seconds (:class:`~boundcheck.utils.usercode.PolicyTimeout`).
    In the command line's own process, the user's threads and processes are contained from then on
    (:func:`~boundcheck.utils.usercode.contain`)."""
    usercode.contain()
    with usercode.import_fence(where) as notes, usercode.stdout_to_stderr(), usercode.time_limit(IMPORT_PROBE_TIMEOUT):
        yield
    for note in notes:
        warnings.warn(f"{label}: {note}", stacklevel=4)


def _call_factory(ref: str, factory) -> None:
    """Call a user's policy factory once as user code, here: this process calls it again to read the policy it
    makes (its class, records, label), so an exception or an exit in it is one line now (exit 2), never an
    internal error or this process's exit status (``os._exit`` in it was caught by the import probe)."""
    code = getattr(factory, "__code__", None)  # where its code lives (the fence's user folder)
    where = os.path.dirname(os.path.abspath(code.co_filename)) if code is not None else os.getcwd()
    try:
        with _user_code_here(where, f"policy factory {ref}"):
            usercode.call(f"policy factory {ref}", factory)
    except usercode.UserCallFailed as exc:  # SystemExit, KeyboardInterrupt, the time limit
        raise BoundcheckError(f"policy factory {ref} {exc.detail}") from None
    except Exception as exc:  # noqa: BLE001 - the user's code: one line, exit 2
        detail = f"{type(exc).__name__}: {exc}".splitlines()[0]
        raise BoundcheckError(f"policy factory {ref} raised {detail}") from None


def _check_policy_protocol(ref: str, obj) -> None:
    """A class named by ``FILE.py:CLASS`` follows one of the two protocols (docs/extending.md): the per-run
    ask/tell form (methods ``ask`` and ``tell``) or a batched :class:`~boundcheck.policies.base.Policy`; a
    factory (any other callable) is checked when it is called. Refused at once, before any study starts."""
    from ..policies.asktell import is_ask_tell
    from ..policies.base import Policy
    from ..policies.box import BoxPolicy

    if isinstance(obj, type):
        if not (is_ask_tell(obj) or issubclass(obj, Policy | BoxPolicy)):
            raise BoundcheckError(f"{ref}: {obj.__name__} follows neither policy protocol: an ask/tell class needs "
                                  f"methods ask(self) and tell(self, x, y), a batched policy subclasses "
                                  f"boundcheck.policies.base.Policy (on a compact box: "
                                  f"boundcheck.policies.box.BoxPolicy)")
    elif not callable(obj):
        raise BoundcheckError(f"{ref}: {type(obj).__name__} {obj!r} is not a policy class or factory")


def user_code_log(results: str | os.PathLike) -> Path:
    """The log of what the checked code wrote and warned in a study's workers (``results/user-code.log``)."""
    return Path(results) / usercode.LOG_NAME


def user_code_warnings(log: str | os.PathLike) -> list[dict]:
    """The warnings the checked code raised, one dict per kind (category, message, where, count), from its log."""
    return usercode.warnings_in_log(log)
