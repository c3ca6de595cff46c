"""Calling a user's code so that it can neither end nor hijack the verifying process.

Every call into a user's policy goes through :func:`call`: ``SystemExit``, ``KeyboardInterrupt`` and
``GeneratorExit`` raised in it become :class:`UserCallFailed` (the caller's one-line
:class:`~boundcheck.errors.UserCodeError`); it has a time limit (:class:`PolicyTimeout`, a SIGALRM timer; a call
stuck in C is ended by the parent's watchdog); what it prints goes to ``results/user-code.log`` and its warnings
are counted there (:func:`warnings_in_log`); a marker file names the call in flight, so that the parent can name
it when the process dies (:func:`last_call`). Only the user's own modules travel to workers by value
(:func:`own_modules`, :func:`installed`). Importing a user's file here is fenced (:func:`import_fence`: exit
handlers, threads, signal handlers, streams, hooks and the working directory it changes are undone); in the
command line's own process, the user's threads cannot write into stdout (:func:`take_stdout`) and every process
the user's code started ends with the command (:func:`contain`, :func:`end_processes`). The settings hold for the
block of :func:`sandbox`; a study holding user code runs its tasks in worker processes only
(:func:`boundcheck.study.runner.holds_user_code`). Built-in policies never come here.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SandboxConfig", "UserCallFailed", "PolicyTimeout", "sandbox", "call", "last_call", "import_fence",
           "stdout_to_stderr", "time_limit", "installed", "install_locations", "importable", "own_modules",
           "warnings_in_log", "take_stdout", "contain", "threads_to_log", "end_processes", "DEFAULT_TIMEOUT",
           "MAX_TIMEOUT", "MIN_TIMEOUT", "LOG_NAME", "WARNINGS_TAG", "MARKER_DIR", "STREAM_ATTR"]

#: seconds one call into user code may take by default (``--policy-timeout``)
DEFAULT_TIMEOUT = 60.0
#: the range of ``--policy-timeout``: a day at most (a timer far beyond it overflows the platform's time: every
#: call then failed with "timestamp out of range", blamed on the user's code), a millisecond at least (a shorter
#: one rounds to no timer at all)
MIN_TIMEOUT, MAX_TIMEOUT = 1e-3, 86_400.0
#: the log of what user code printed, in the results folder
LOG_NAME = "user-code.log"
#: the log's line that counts the warnings user calls raised in one task (JSON follows it)
WARNINGS_TAG = "#boundcheck-warnings "
#: the folder of per-process markers, in the results folder
MARKER_DIR = ".user-code"
_MARK_WIDTH = 512  # bytes of a marker (rewritten in place: one pwrite per call)


class PolicyTimeout(BaseException):
    """Raised by the SIGALRM handler inside a user call that overran its time limit (a ``BaseException``, so
    that the user's own ``except Exception`` does not swallow it)."""


class UserCallFailed(Exception):
    """A user call ended the way no ordinary exception does (SystemExit, KeyboardInterrupt, GeneratorExit, the
    time limit): ``detail`` says how, for the caller's one-line message."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


@dataclass(frozen=True)
class SandboxConfig:
    """How user code is run in a task: ``timeout`` seconds per call (None: no limit), ``log``: the file its
    output is appended to (None: it goes to stderr), ``markers``: the folder of per-process markers (None: none),
    ``capture_fds``: for the task, file descriptors 1 and 2 point to the log too (output written below Python, by
    C code or ``os.write``; only in a worker process, never in the one that prints the command's output)."""

    timeout: float | None = DEFAULT_TIMEOUT
    log: str | None = None
    markers: str | None = None
    capture_fds: bool = False


class _State(threading.local):
    """Per thread (``--backend threading`` runs tasks in threads): the settings of the enclosing sandbox."""

    def __init__(self) -> None:
        self.timeout: float | None = None
        self.out = None  # the log, in the main thread only: sys.stdout is one for all threads
        self.marker: int | None = None  # file descriptor
        self.active = False  # inside a timed call (the alarm raises only then)
        self.calling = False  # inside a call into user code (its warnings are counted: :func:`_counted_warnings`)


_state = _State()


def _on_alarm(signum, frame) -> None:  # noqa: ARG001 - the signal module's signature
    if _state.active:
        _state.active = False
        raise PolicyTimeout


@contextlib.contextmanager
def sandbox(config: SandboxConfig | None):
    """Apply ``config`` to every :func:`call` inside the block (this process; restored on exit)."""
    if config is None:
        yield
        return
    prev = (_state.timeout, _state.out, _state.marker)
    main = threading.current_thread() is threading.main_thread()
    old_handler = None
    with contextlib.ExitStack() as stack:
        out = None
        # a process that cannot reach the results folder (a remote dask worker) runs without log and markers
        with contextlib.suppress(OSError):
            if config.log is not None:
                out = stack.enter_context(open(config.log, "a", encoding="utf-8", buffering=1))  # noqa: SIM115
        marker = None
        with contextlib.suppress(OSError):
            if config.markers is not None:
                Path(config.markers).mkdir(parents=True, exist_ok=True)
                marker = os.open(Path(config.markers) / str(os.getpid()), os.O_RDWR | os.O_CREAT | os.O_TRUNC,
                                 0o644)
                stack.callback(os.close, marker)
        if out is not None and config.capture_fds:
            sys.stdout.flush()
            sys.stderr.flush()
            saved = [os.dup(1), os.dup(2)]
            for fd in (1, 2):
                os.dup2(out.fileno(), fd)

            def restore() -> None:
                for fd, old in zip((1, 2), saved, strict=True):
                    os.dup2(old, fd)
                    os.close(old)

            stack.callback(restore)
        if out is not None and main:  # the warnings user calls raise: counted, the first of each kind logged
            stack.enter_context(_counted_warnings(out))
        timeout = config.timeout if main and config.timeout else None
        if timeout is not None:
            old_handler = signal.signal(signal.SIGALRM, _on_alarm)
        _state.timeout, _state.out, _state.marker = timeout, out if main else None, marker
        try:
            yield
        finally:
            _state.timeout, _state.out, _state.marker = prev
            if old_handler is not None:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, old_handler)


@contextlib.contextmanager
def _counted_warnings(out):
    """Inside the block (a task's sandbox, in a process's main thread), every warning a user call raises is
    counted by kind (its category and the line that raised it) and the first of each kind is written to the log
    ``out``; at the end one line :data:`WARNINGS_TAG` + JSON gives the counts (:func:`warnings_in_log` adds them
    up; ``verify`` prints them). A warning outside a user call is shown as before, once per place and task."""
    counts: dict[tuple[str, str], list] = {}
    seen: set = set()
    real = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        if not _state.calling:  # boundcheck's own code in the task
            key = (category, str(message), filename, lineno)
            if key not in seen:
                seen.add(key)
                real(message, category, filename, lineno, file, line)
            return
        kind = (getattr(category, "__name__", str(category)), f"{os.path.basename(str(filename))}:{lineno}")
        if kind in counts:
            counts[kind][1] += 1
            return
        counts[kind] = [" ".join(str(message).split())[:300], 1, _source_file(filename, lineno)]
        with contextlib.suppress(Exception):  # the log may be gone (a remote worker): counting goes on
            out.write(warnings.formatwarning(message, category, counts[kind][2] or filename, lineno, line))

    with warnings.catch_warnings():
        warnings.simplefilter("always", append=True)  # counted every time, not once per place and process
        warnings.showwarning = show
        try:
            yield
        finally:
            if counts:
                import json

                rows = [{"category": c, "where": f"{src}:{w.rpartition(':')[2]}" if src else w, "message": m,
                         "count": n} for (c, w), (m, n, src) in counts.items()]
                with contextlib.suppress(Exception):
                    out.write(WARNINGS_TAG + json.dumps(rows) + "\n")


def _source_file(filename, lineno) -> str:
    """The file name of a warning raised in code that travelled by value (its functions' file is
    ``<dynamic-code>``): the ``__file__`` of the frame that raised it, found on the stack; "" when not needed."""
    if not str(filename).startswith("<"):
        return ""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename == filename and frame.f_lineno == lineno:
            return os.path.basename(str(frame.f_globals.get("__file__") or ""))
        frame = frame.f_back
    return ""


def warnings_in_log(log: str | os.PathLike) -> list[dict]:
    """The warnings the checked code raised, from the log of a study (:data:`LOG_NAME`): one dict per kind
    (``category``, ``where``: file:line, ``message``: the first one's text, ``count``: over every task), in the
    order they first appeared; [] when the log is missing or holds none."""
    import json

    kinds: dict[tuple[str, str], dict] = {}
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            lines = [ln for ln in f if ln.startswith(WARNINGS_TAG)]
    except OSError:
        return []
    for ln in lines:
        try:
            rows = json.loads(ln[len(WARNINGS_TAG):])
        except ValueError:
            continue
        for r in rows if isinstance(rows, list) else []:
            if not isinstance(r, dict) or not isinstance(r.get("count"), int):
                continue
            key = (str(r.get("category")), str(r.get("where")))
            if key in kinds:
                kinds[key]["count"] += r["count"]
            else:
                kinds[key] = {"category": key[0], "where": key[1], "message": str(r.get("message", "")),
                              "count": r["count"]}
    return list(kinds.values())


def _mark(text: str) -> None:
    data = text.encode("utf-8", "replace")[:_MARK_WIDTH].ljust(_MARK_WIDTH)
    os.pwrite(_state.marker, data, 0)


def call(where: str, fn, *args):
    """``fn(*args)`` as a user call: ``where`` (e.g. ``"policy 'P' (p.py:P) ask(), run 3, step 7"``) is what a
    marker says while it runs. SystemExit/KeyboardInterrupt/GeneratorExit and an overrun of the time limit are
    :class:`UserCallFailed`; any other exception propagates as it is (the caller words it)."""
    st = _state
    if st.marker is not None:
        _mark(where)
    redirect = st.out is not None
    if redirect:
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = st.out
    elif st.marker is not None and threading.current_thread() is threading.main_thread():
        # a worker without a log: its output must still not reach the parent's stdout
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr
        redirect = True
    timed = st.timeout is not None
    calling, st.calling = st.calling, True
    try:
        if timed:
            st.active = True
            signal.setitimer(signal.ITIMER_REAL, st.timeout)
        return fn(*args)
    except PolicyTimeout:  # the sandbox's limit, or an enclosing time_limit's
        limit = f"the time limit of {st.timeout:g} s (--policy-timeout)" if timed else "its time limit"
        raise UserCallFailed(f"did not return within {limit}") from None
    except SystemExit as exc:
        raise UserCallFailed(f"raised SystemExit({exc.code!r}) (it may not end the verifying process)") from None
    except (KeyboardInterrupt, GeneratorExit) as exc:
        raise UserCallFailed(f"raised {type(exc).__name__}") from None
    finally:
        st.calling = calling
        if timed:
            st.active = False
            signal.setitimer(signal.ITIMER_REAL, 0)
        if redirect:
            sys.stdout, sys.stderr = saved
        if st.marker is not None:
            _mark("")


def last_call(markers: str | Path, alive: set[int] | None = None) -> str | None:
    """The call a dead process was in: the non-blank marker of a process that no longer runs (or is not among
    ``alive``), else None."""
    folder = Path(markers)
    if not folder.is_dir():
        return None
    found = []
    for f in folder.iterdir():
        try:
            pid = int(f.name)
            text = f.read_bytes().decode("utf-8", "replace").strip()
        except (ValueError, OSError):
            continue
        if text and not _running(pid, alive):
            found.append(text)
    return found[0] if found else None


def _running(pid: int, alive: set[int] | None) -> bool:
    if alive is not None:
        return pid in alive
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    # a zombie (not yet reaped) still answers: look at its state where /proc exists
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][:1] != "Z"
    return True


# ------------------------------------------------------------------------------------------ import fence
#: boundcheck's and theory's own code, never the user's (a user's file beside a source checkout of boundcheck
#: may import parts of it for the first time: their exit handlers are kept)
_OURS = tuple(os.path.join(str(Path(__file__).resolve().parents[k] / name), "")
              for k, name in ((1, ""), (2, "theory")))

#: folder names that hold installed packages wherever they are (a virtual environment inside the user's folder)
_PACKAGE_DIRS = frozenset({"site-packages", "dist-packages"})


def install_locations() -> tuple[str, ...]:
    """The folders installed packages live in, each ending in a separator: the interpreter's prefixes and the
    site-packages folders the :mod:`site` module names (the user's too)."""
    import site

    places = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]
    with contextlib.suppress(AttributeError):  # a virtualenv's old site.py may lack them
        places += site.getsitepackages()
    with contextlib.suppress(AttributeError):
        places.append(site.getusersitepackages())
    return tuple(sorted({os.path.join(os.path.abspath(p), "") for p in places if p}))


def installed(path: str | os.PathLike, root: str | os.PathLike = "") -> bool:
    """Whether the file ``path`` belongs to an installed package rather than to the user's code at ``root`` (its
    folder, or a module's file): it lies below a ``site-packages`` or ``dist-packages`` folder (below ``root``:
    the user's code may itself be installed), or below one of :func:`install_locations` that does not hold
    ``root`` (a project inside an environment's prefix is still the user's). A virtual environment inside the
    user's folder (``project/.venv`` beside ``project/policy.py``) is installed code, never the user's."""
    name = os.path.abspath(path)
    base = os.path.abspath(root) if root else ""
    rel = name[len(base):] if base and name.startswith(base) else name
    if _PACKAGE_DIRS.intersection(Path(rel).parts[:-1]):
        return True
    return any(name.startswith(p) and not (base and os.path.join(base, "").startswith(p))
               for p in install_locations())


def _same_place(spec, file: str) -> bool:
    """Whether the module ``spec`` describes is the one at ``file`` (its package's folder, or its own file)."""
    here = os.path.realpath(file)
    places = list(spec.submodule_search_locations or ()) or [spec.origin or ""]
    return any(p and (here == os.path.realpath(p) or here.startswith(os.path.join(os.path.realpath(p), "")))
               for p in places)


def importable(name: str, file: str, path: list[str] | None = None) -> bool:
    """Whether the module ``name`` (whose file is ``file``) is found by its name on ``path`` (default:
    ``sys.path``) at that same file: a worker process then imports it by name rather than receive it by value."""
    import importlib.machinery

    top = name.split(".")[0]
    top_file = getattr(sys.modules.get(top), "__file__", None) or file
    try:
        found = importlib.machinery.PathFinder.find_spec(top, sys.path if path is None else path)
    except (ImportError, ValueError, OSError):
        return False
    return found is not None and _same_place(found, top_file)


def own_modules(names, folder: str | os.PathLike) -> list[str]:
    """Of the modules ``names`` that a user's file in ``folder`` imported for the first time, those that are the
    user's own code, which travel to worker processes by value with the file (the workers cannot import them by
    name): a module whose file lies below ``folder``, is not :func:`installed`, and cannot be imported by its name
    without ``folder`` on ``sys.path`` (:func:`importable`). Everything else (an installed library, even one in a
    virtual environment inside ``folder``) is imported by name in the workers, as anywhere."""
    root = os.path.join(os.path.abspath(folder), "")
    path = [p for p in sys.path if os.path.join(os.path.abspath(p or os.curdir), "") != root]
    elsewhere: dict[str, bool] = {}
    own = []
    for name in sorted(names):
        file = getattr(sys.modules.get(name), "__file__", None)
        if not isinstance(file, str) or not os.path.abspath(file).startswith(root) or installed(file, root):
            continue
        top = name.split(".")[0]
        if top not in elsewhere:
            elsewhere[top] = importable(name, file, path)
        if not elsewhere[top]:
            own.append(name)
    return own


def _from_user(frame, folder: str, prefixes: tuple[str, ...]) -> bool:
    """Whether ``frame`` (a caller) runs code from the user's folder (not an installed library inside it, nor
    boundcheck's own code). A frame of no file (``<frozen importlib._bootstrap>``: a C extension that registers an
    exit handler while it is imported, e.g. a pybind11 module) is not the user's code: ``abspath`` would put it in
    the working directory."""
    code = frame.f_code.co_filename if frame is not None else ""
    if not code or code.startswith("<"):
        return False
    name = os.path.abspath(code)
    return name.startswith(folder) and not name.startswith(prefixes) and not installed(name, folder)


@contextlib.contextmanager
def import_fence(where: str | os.PathLike):
    """Import a user's code inside this block: its module-level code may not change the verifying process.

    What the import does to the process is undone or defused when the block ends, and each is named in the list
    the block yields (one line each, for a warning): the user's code runs in workers, never here, so none of it
    has anything to do in this process after the import.

    * exit handlers (``atexit.register``) registered from the user's code (``where``: its folder, or a module's
      file) are not registered: one calling ``os._exit(0)`` would set the exit status of a violated verdict; a
      library the file imports for the first time keeps its own handlers;
    * threads started by the import are made daemon threads: a non-daemon thread would hold up the exit forever;
    * signal handlers, the signal mask and an interval timer (``signal.alarm``) are restored: an ignored SIGINT
      would make Ctrl-C do nothing, a timer would end the process later;
    * ``sys.stdout``/``stderr``/``stdin``, the exception, display and unraisable hooks, a trace or profile
      function, the warning filters, the root logger's handlers and level (``logging.basicConfig``) and the
      working directory are restored.

    Only the importing thread's calls are fenced (another thread of this process registers and starts as usual).
    What the fence cannot undo: changes to other modules' state (a user's code that patches boundcheck's own
    functions is outside any sandbox; the checked code is not assumed hostile, only wrong)."""
    folder = os.path.abspath(where)
    if os.path.isdir(folder):
        folder = os.path.join(folder, "")
    # an installed library inside the user's folder (a virtual environment) is not the user's code, unless the
    # user's code is itself installed there
    prefixes = tuple(p for p in {os.path.join(os.path.abspath(q), "") for q in (sys.prefix, sys.base_prefix,
                                                                              sys.exec_prefix)}
                     if not folder.startswith(p)) + _OURS
    me = threading.get_ident()
    notes: list[str] = []
    real_register = atexit.register
    real_start = threading.Thread.start

    def register(func, *args, **kwargs):
        if threading.get_ident() == me and _from_user(sys._getframe(1), folder, prefixes):
            notes.append(f"an exit handler ({getattr(func, '__qualname__', repr(func))}) registered at import does "
                         "not run in the verifying process")
            return func  # atexit.register's value, so that it still works as a decorator
        return real_register(func, *args, **kwargs)

    def start(thread):
        if threading.get_ident() == me and not thread.daemon:
            thread.daemon = True  # allowed before start: the exit no longer waits for it
            notes.append(f"the thread {thread.name!r} started at import does not hold up the exit (made a daemon)")
        return real_start(thread)

    signals = {}
    for sig in signal.valid_signals():
        with contextlib.suppress(OSError, ValueError, RuntimeError):
            signals[sig] = signal.getsignal(sig)
    main = threading.current_thread() is threading.main_thread()
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, []) if main and hasattr(signal, "pthread_sigmask") else None
    timer = signal.getitimer(signal.ITIMER_REAL) if hasattr(signal, "getitimer") else None  # POSIX only
    hooks = {name: getattr(sys, name) for name in ("stdout", "stderr", "stdin", "excepthook", "displayhook",
                                                    "unraisablehook")}
    trace, profile = sys.gettrace(), sys.getprofile()
    cwd = os.getcwd()
    filters = list(warnings.filters)
    import logging  # here: importing it registers an exit handler, and the command's quick exit is armed only
    #                 where none was registered before boundcheck.cli (boundcheck.cli.lifetime._arm_quick_exit)

    root = logging.getLogger()  # logging.basicConfig(stream=sys.stdout) would send libraries' logs into --json
    logs = (list(root.handlers), root.level, logging.root.manager.disable)
    atexit.register = register
    threading.Thread.start = start
    try:
        yield notes
    finally:
        atexit.register = real_register
        threading.Thread.start = real_start
        changed = []
        for sig, handler in signals.items():
            with contextlib.suppress(OSError, ValueError, RuntimeError):
                if handler is not None and signal.getsignal(sig) != handler and main:
                    signal.signal(sig, handler)
                    changed.append(signal.Signals(sig).name)
        if changed:
            notes.append(f"signal handlers set at import are restored ({', '.join(changed)})")
        if mask is not None and signal.pthread_sigmask(signal.SIG_SETMASK, mask) != mask:
            notes.append("the signal mask set at import is restored")
        if timer == (0.0, 0.0) and signal.getitimer(signal.ITIMER_REAL) != timer:
            signal.setitimer(signal.ITIMER_REAL, 0)
            notes.append("an interval timer (signal.alarm/setitimer) set at import is cancelled")
        for name, value in hooks.items():
            if getattr(sys, name) is not value:
                setattr(sys, name, value)
                notes.append(f"sys.{name} replaced at import is restored")
        if sys.gettrace() is not trace:
            sys.settrace(trace)
            notes.append("a trace function set at import is removed")
        if sys.getprofile() is not profile:
            sys.setprofile(profile)
            notes.append("a profile function set at import is removed")
        if warnings.filters != filters:  # "ignore" everything would hide this process's own warnings (and these)
            warnings.resetwarnings()  # silently: a library imported for the first time may add its own
            warnings.filters.extend(filters)
        if (list(root.handlers), root.level, logging.root.manager.disable) != logs:
            root.handlers[:], disabled = logs[0], logs[2]
            root.setLevel(logs[1])
            logging.disable(disabled)
            notes.append("the logging configuration set at import (the root logger's handlers and level) is "
                         "restored")
        with contextlib.suppress(OSError):
            if os.getcwd() != cwd:
                os.chdir(cwd)
                notes.append("the working directory changed at import is restored")


@contextlib.contextmanager
def stdout_to_stderr():
    """What user code writes to the standard output inside the block goes to the standard error: through
    ``sys.stdout``, ``sys.__stdout__`` or below Python on file descriptor 1 (``os.write(1, …)``, C code). The
    command's own output is on stdout (``verify --json`` prints one JSON document there)."""
    for stream in (sys.stdout, sys.__stdout__):
        with contextlib.suppress(AttributeError, OSError, ValueError):
            stream.flush()
    saved: int | None = None
    with contextlib.suppress(OSError):  # no file descriptor 1 or 2: Python-level redirection only
        saved = os.dup(1)
        try:
            os.dup2(2, 1)
        except OSError:
            os.close(saved)
            saved = None
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        if saved is not None:
            for stream in (sys.stdout, sys.__stdout__):  # what was buffered inside goes out to stderr, not later
                with contextlib.suppress(AttributeError, OSError, ValueError):
                    stream.flush()
            os.dup2(saved, 1)
            os.close(saved)


@contextlib.contextmanager
def time_limit(seconds: float):
    """The block may take at most ``seconds``: then :class:`PolicyTimeout` is raised inside it (SIGALRM, so only in
    the main thread and where the platform has it; elsewhere no limit). For user code outside :func:`call` (a
    file's import in the verifying process, after the import probe took less)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def overrun(signum, frame) -> None:  # noqa: ARG001 - the signal module's signature
        raise PolicyTimeout

    old = signal.signal(signal.SIGALRM, overrun)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# ----------------------------------------------------------------------------- the command's own process
#: the attribute set on an OSError raised writing the command's standard output (a full disk behind ``> FILE``,
#: a closed pipe): its value names the stream, for the command line's message
STREAM_ATTR = "boundcheck_stream"


class _CommandOutput:
    """``sys.stdout`` of the command line's own process (:func:`take_stdout`): the command's output, written by
    its main thread to ``own``. Once a user's code was imported here (:func:`contain`), what any other thread
    writes there (a thread the user's code started at import, printing every 0.1 s) goes elsewhere: to the
    study's log once one is open (:func:`threads_to_log`), else to the standard error; so does what a child
    process forked from this one writes. An OSError from ``own`` carries :data:`STREAM_ATTR`, and the last one
    is ``failed`` (a caller that swallows it, argparse printing a help, cannot hide a broken pipe)."""

    def __init__(self, own) -> None:
        self._own = own
        self._pid = os.getpid()
        self._routed = False
        self._log = None
        self.failed: OSError | None = None

    def _target(self):
        if self._routed and (threading.current_thread() is not threading.main_thread() or os.getpid() != self._pid):
            return self._log or sys.stderr or sys.__stderr__
        return self._own

    def _mine(self, name: str, *args):
        target = self._target()
        if target is not self._own:
            return getattr(target, name)(*args)
        try:
            return getattr(target, name)(*args)
        except OSError as exc:
            with contextlib.suppress(AttributeError):
                setattr(exc, STREAM_ATTR, "the standard output")
            self.failed = exc
            raise

    def write(self, text):
        return self._mine("write", text)

    def writelines(self, lines):
        return self._mine("writelines", lines)

    def flush(self):
        return self._mine("flush")

    def __getattr__(self, name):
        return getattr(self._target(), name)


_command: dict = {"stdout": None, "contained": False, "fd1": False}


def take_stdout() -> None:
    """For the command line's own process (never a caller of :func:`boundcheck.cli.main` in its own process):
    ``sys.stdout`` becomes the command's output (:class:`_CommandOutput`), so that a user's code imported later
    cannot write into it from another thread (:func:`contain`) and a write error on it is known to be the
    standard output's; characters the standard output or error cannot encode (``PYTHONIOENCODING=ascii``) are
    replaced or escaped rather than end the command."""
    for stream, errors in ((sys.stdout, "replace"), (sys.stderr, "backslashreplace")):
        if getattr(stream, "errors", None) == "strict":
            with contextlib.suppress(AttributeError, ValueError, OSError):
                stream.reconfigure(errors=errors)
    if sys.stdout is not None and _command["stdout"] is None:
        _command["stdout"] = sys.stdout = _CommandOutput(sys.stdout)


def contain() -> None:
    """Before a user's code is first imported in the command's own process (:func:`take_stdout` was called; else
    nothing happens): from now on the command's output is written to a duplicate of the original standard
    output, file descriptor 1 points at the standard error (what the user's threads, C code or child processes
    write below Python: ``os.write(1, …)``, a ``Popen`` that inherits it), other threads' ``sys.stdout`` goes
    elsewhere (:class:`_CommandOutput`), and this process becomes the child subreaper of what it starts
    (:func:`boundcheck.utils.processes.become_subreaper`), so that :func:`end_processes` finds every process the
    user's code started, wherever its parent went."""
    out = _command["stdout"]
    if out is None or _command["contained"]:
        return
    _command["contained"] = True
    from . import processes

    processes.become_subreaper()
    own = out._own
    with contextlib.suppress(AttributeError, OSError, ValueError):
        own.flush()
    out._routed = True
    try:
        dup = os.dup(own.fileno())
    except (AttributeError, OSError, ValueError):  # not a real file (a test's capture): Python-level routing only
        return
    out._own = open(dup, "w", encoding=getattr(own, "encoding", None), errors=getattr(own, "errors", None),  # noqa: SIM115
                    buffering=1 if getattr(own, "line_buffering", False) else -1)
    try:
        os.dup2(2, 1)  # below Python, what the user's code writes to stdout goes to stderr
    except OSError:  # no standard error: below Python, the user's output goes nowhere
        with contextlib.suppress(OSError):
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.close(null)
    _command["fd1"] = True


def threads_to_log(log: str | os.PathLike) -> None:
    """In the command's own process, once a user's code was imported there (:func:`contain`): what other threads
    write to ``sys.stdout`` and what anything writes below Python on file descriptor 1 go to the study's
    ``log`` from now on (nothing happens otherwise)."""
    out = _command["stdout"]
    if out is None or not out._routed:
        return
    try:
        f = open(log, "a", encoding="utf-8", buffering=1)  # noqa: SIM115 - kept open until the process ends
    except OSError:
        return
    if _command["fd1"]:
        with contextlib.suppress(OSError):
            os.dup2(f.fileno(), 1)
    out._log = f


def end_processes() -> list[int]:
    """At the end of the command (its own process, after its workers were stopped): end every process a user's
    code started and left running (:func:`boundcheck.utils.processes.end_descendants`); nothing unless a user's
    code was imported in this command (:func:`contain`). Returns the pids ended."""
    if not _command["contained"]:
        return []
    from . import processes

    try:
        return processes.end_descendants()
    except KeyboardInterrupt:  # a second Ctrl-C: no grace for what is left
        return processes.end_descendants(grace=0.0)
