"""The command's process from start to exit: signal handling (SIGINT/SIGTERM raised where they cannot break the
worker pool's bookkeeping), the boundary that turns every exception into its exit code and one line on stderr
(a crash's traceback into a log file), and the quick exit without the interpreter's teardown."""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import signal
import sys
import tempfile
import time
import traceback
import warnings
from pathlib import Path

from .. import api
from ..errors import BoundcheckError, ExitCode, NotApplicable
from . import render


def _log_dir() -> Path:
    return Path(os.environ.get("BOUNDCHECK_LOG_DIR") or Path(tempfile.gettempdir()) / "boundcheck-logs")


def _crash_log(argv: list[str] | None, exc: BaseException) -> str:
    """Write the traceback of an unexpected exception to a log file; its path, or why there is none."""
    try:
        d = _log_dir()
        d.mkdir(parents=True, exist_ok=True)
        path = d / f"crash-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
        path.write_text(f"boundcheck {api.__version__}, python {sys.version.split()[0]}\n"
                        f"argv: {sys.argv[:1] + list(argv if argv is not None else sys.argv[1:])}\n\n"
                        + "".join(traceback.format_exception(exc)))
        return f"traceback in {path}"
    except OSError as err:
        return f"the traceback could not be written ({err})"


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    text = " ".join(str(message).split())
    print(f"boundcheck: warning: {text}", file=sys.stderr)


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread wherever the command is: it stops as an interrupt does (completed
    chunks kept, the worker pool stopped in order, no resource left to loky's resource tracker to report)."""


_signals: list[int] = []  # the signals the command received (SIGINT, SIGTERM)
_held: list[float] = []  # when the signal being held back (see _must_not_raise_in) first arrived
HOLD_AT_MOST = 2.0  # seconds a signal is held back at most: then it is raised wherever the command is
#: bookkeeping of the worker pool that an exception must not cut in two: loky registers each semaphore with its
#: resource tracker (loky/backend/*resource_tracker.py) and only then attaches the finaliser that unregisters it
#: at exit (loky/backend/synchronize.py, SemLock.__init__; the finalisers are multiprocessing/util.py's). An
#: interrupt raised in between leaves a semaphore registered that nothing unregisters: the tracker reports it as
#: "leaked" when the command exits (1 SIGTERM in 100, landing while the pool was being built).
_POOL_BOOKKEEPING = (f"{os.sep}loky{os.sep}backend{os.sep}", f"{os.sep}multiprocessing{os.sep}util.py",
                     f"{os.sep}multiprocessing{os.sep}synchronize.py",
                     f"{os.sep}multiprocessing{os.sep}resource_tracker.py")


def _must_not_raise_in(frame) -> bool:
    """Whether an exception raised in ``frame`` (where the main thread was when the signal came) would be lost or
    would break bookkeeping that has to finish: the import system's weakref callbacks and finalisers print it and
    drop it; in the pool's bookkeeping (:data:`_POOL_BOOKKEEPING`, anywhere in the innermost frames) it leaves a
    resource that the resource tracker reports at exit."""
    code = getattr(frame, "f_code", None)
    if code is None:
        return False
    if code.co_filename.startswith("<frozen importlib") or code.co_name == "__del__":
        return True
    for _ in range(16):  # the bookkeeping is a few calls deep (register -> _send -> ensure_running -> spawn)
        if frame is None:
            return False
        if any(part in frame.f_code.co_filename for part in _POOL_BOOKKEEPING):
            return True
        frame = frame.f_back
    return False


def _on_signal(signum, frame) -> None:
    _signals.append(signum)
    now = time.monotonic()
    if _must_not_raise_in(frame) and (not _held or now - _held[0] < HOLD_AT_MOST):
        # the signal is sent again once this frame is (most likely) left; the bookkeeping takes microseconds, so
        # the command still stops at once
        import threading

        _held[:1] = _held[:1] or [now]
        threading.Timer(0.05, os.kill, (os.getpid(), signum)).start()
        return
    _held.clear()
    raise _Terminated if signum == signal.SIGTERM else KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """The ``boundcheck`` command (``argv``: its arguments, default ``sys.argv[1:]``)."""
    if argv is None:  # the command itself (a caller in the same process keeps its own signal handling)
        with contextlib.suppress(ValueError, OSError):  # ValueError: not the main thread
            signal.signal(signal.SIGTERM, _on_signal)
            signal.signal(signal.SIGINT, _on_signal)
    try:
        return int(_main(argv))
    finally:
        if argv is None:  # the command itself, not a caller in the same process: the process exits next
            api.stop_workers()


def command() -> int:
    """The ``boundcheck`` executable and ``python -m boundcheck``: :func:`main` on the process's arguments, after
    which the process exits with its status without the interpreter's teardown (:func:`_leave_at_once`). A script
    or a test that calls :func:`main` keeps its own exit."""
    code = main()
    _LEAVE_WITH[:] = [code]
    return code


#: the exit status :func:`_leave_at_once` leaves with: set by :func:`command` when the command returns (never for
#: a caller of :func:`main`, nor when an exception escapes: those exit the usual way)
_LEAVE_WITH: list[int] = []


def _leave_at_once() -> None:
    """The command's last exit handler: flush the standard streams and ``os._exit`` with the command's status.

    Why: after :func:`main` returns, a normal interpreter exit tears down every module the command imported
    (sympy, pandas, pyarrow, matplotlib, scipy): 0.3 s of a 3.5 s default verify, measured, with nothing left to
    do. Exit handlers run last-registered first and this one is registered when the command's module is
    imported, before anything else of the command is, so every handler the command's imports register (joblib,
    loky, multiprocessing, tempfile, weakref finalizers) has run when it runs, and so have the joins of
    non-daemon threads (which precede all exit handlers); every file the command writes is closed by then
    (atomic writes). It is registered only where no exit handler was registered before it (so one of a tool
    that runs the command, such as coverage's, is never skipped)."""
    if not _LEAVE_WITH:
        return
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed pipe (| head): nothing more can be written anyway
            stream.flush()
    os._exit(_LEAVE_WITH[0])


def _arm_quick_exit() -> None:
    # atexit._ncallbacks (CPython): how many handlers are registered; without it, the interpreter's usual exit
    count = getattr(atexit, "_ncallbacks", None)
    if count is not None and count() == 0:
        atexit.register(_leave_at_once)


_arm_quick_exit()


#: errors of a full disk or quota: not a bug, the store keeps what it completed (its writes are atomic)
_DISK_FULL = (errno.ENOSPC, errno.EDQUOT)


def _main(argv: list[str] | None) -> int:
    if argv is not None:  # called in-process: the command starts now (else: when this module was imported)
        render.STARTED[0] = time.monotonic()
    from . import build_parser  # the command table (imports every command's module)

    parser = build_parser()
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning  # every warning is one line with the one prefix
        try:
            if argv is None:  # the command line's own process: its standard output checked and made its own
                api.command_started()
            args = parser.parse_args(argv)
            if getattr(args, "computes", False):
                api.check_environment()  # the commands that compute: environment variables first
            code = int(args.func(args))
            if _signals:
                # a signal whose exception was lost: one that lands while a C extension is being imported can be
                # raised inside the extension's own nested evaluation, which clears it; the command still ends
                # as interrupted
                raise _Terminated if _signals[-1] == int(signal.SIGTERM) else KeyboardInterrupt
            if sys.stdout is not None:
                sys.stdout.flush()  # a broken pipe or a full disk behind stdout is reported here, not lost at exit
            return code
        except NotApplicable as exc:  # not an error of the user's input: the theorem does not cover the scenario
            msg = " ".join(str(exc.args[0] if exc.args else exc).split())
            print(f"boundcheck: {msg}", file=sys.stderr)
            return ExitCode.NOT_APPLICABLE
        except KeyboardInterrupt as exc:
            what, code = (("terminated", ExitCode.TERMINATED) if isinstance(exc, _Terminated)
                          else ("interrupted", ExitCode.INTERRUPTED))
            print(f"boundcheck: error: {what}; completed chunks are stored — re-run the same command to resume",
                  file=sys.stderr)
            return code
        except SystemExit as exc:  # --help; rich's answer to a broken pipe (SystemExit(1), raised while handling it)
            with contextlib.suppress(OSError, ValueError):  # the help's last lines, still buffered
                if sys.stdout is not None:
                    sys.stdout.flush()
            # argparse swallows a write error: the command's stdout remembers it (api.command_started)
            if isinstance(exc.__context__, BrokenPipeError) or isinstance(getattr(sys.stdout, "failed", None),
                                                                          BrokenPipeError):
                return ExitCode.BROKEN_PIPE
            return exc.code if isinstance(exc.code, int) else ExitCode.OK
        except BrokenPipeError:  # output piped into a command that stopped reading (| head)
            with contextlib.suppress(OSError, ValueError, AttributeError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return ExitCode.BROKEN_PIPE
        except Exception as exc:  # noqa: BLE001 - the boundary: bad input exit 2, else one line + a log (exit 4)
            th = sys.modules.get("theory")  # imported lazily: only commands that use it can raise its errors
            if isinstance(exc, BoundcheckError) or (th is not None and isinstance(exc, th.UnknownTheorem)):
                msg = " ".join(str(exc.args[0] if exc.args else exc).split())
                print(f"boundcheck: error: {msg}", file=sys.stderr)
                return ExitCode.BAD_INPUT
            if isinstance(exc, OSError) and exc.errno in _DISK_FULL and getattr(exc, "boundcheck_stream", None):
                print(f"boundcheck: error: no space left on the device of {exc.boundcheck_stream} "
                      f"({os.strerror(exc.errno)}): the output is cut short; what the command stores (a verify's "
                      f"results) is kept — re-run it with the output elsewhere", file=sys.stderr)
                return ExitCode.BAD_INPUT
            if isinstance(exc, OSError) and exc.errno in _DISK_FULL:
                where = Path(exc.filename).parent if exc.filename else "the output folder"
                print(f"boundcheck: error: no space left on the device writing into {where} "
                      f"({os.strerror(exc.errno)}); every chunk completed before is kept there — free some space "
                      f"and re-run the same command to resume", file=sys.stderr)
                return ExitCode.BAD_INPUT
            if isinstance(exc, MemoryError):
                print(f"boundcheck: error: out of memory despite the estimate; lower --runs, --horizon or --jobs "
                      f"({_crash_log(argv, exc)})", file=sys.stderr)
                return ExitCode.INTERNAL_ERROR
            what = " ".join(str(exc).split())[:200]
            print(f"boundcheck: error: internal error ({type(exc).__name__}: {what}); this is a bug in boundcheck "
                  f"or in code it ran — {_crash_log(argv, exc)}", file=sys.stderr)
            return ExitCode.INTERNAL_ERROR


