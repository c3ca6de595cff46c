"""User code cannot lie or take over the verifying process.

Records are validated (finite, one per run); SystemExit / KeyboardInterrupt raised by a policy, ``os._exit`` in
``ask`` or at import, and a sleeping ``ask`` (``--policy-timeout``) are one line and exit 2; what a policy prints
goes to ``results/user-code.log``, never into ``--json``. Each case runs ``boundcheck.cli.main`` in its own
process, since the process itself is what is at stake."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# a greedy-on-the-prior-mean policy: the smallest legal ask/tell class; BODY is put at the start of ask()
POLICY = """
import os, sys, time
import numpy as np
{top}

class P:
    records = {records}

    def __init__(self, ctx):
        self.ctx = ctx

    def ask(self, t, available):
        {body}
        x = int(np.flatnonzero(available)[0])
        self.record = {{"mu": {value}, "sigma": {value}, "beta": {value}}}
        return x

    def tell(self, x, y):
        pass
"""


def _policy(tmp_path: Path, body: str = "pass", top: str = "", records: str = "()", value: str = "0.5") -> str:
    f = tmp_path / "pol.py"
    f.write_text(textwrap.dedent(POLICY).format(body=body, top=top, records=records, value=value))
    return f"{f}:P"


def _verify(tmp_path: Path, algorithm: str, *extra: str, timeout: float = 240) -> subprocess.CompletedProcess:
    code = "import sys; from boundcheck.cli import main; sys.exit(main(sys.argv[1:]))"
    args = ["verify", "--theorem", "gp_ucb", "--algorithm", algorithm, "--runs", "4", "--horizon", "5",
            "--jobs", "1", "--no-report", "--out", str(tmp_path / "out"), *extra]
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=timeout,
                          env=env, cwd=tmp_path)


def _one_line(res: subprocess.CompletedProcess) -> str:
    assert res.returncode == 2, (res.returncode, res.stdout[-2000:], res.stderr[-2000:])
    assert "Traceback" not in res.stderr, res.stderr[-3000:]
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    return "\n".join(lines)


def test_nan_records_exit_2(tmp_path):
    res = _verify(tmp_path, _policy(tmp_path, records='("mu", "sigma", "beta")', value="float('nan')"))
    msg = _one_line(res)
    assert "not a finite number" in msg and "'P'" in msg and "run 0" in msg and "step 1" in msg, msg


@pytest.mark.parametrize("body", ["sys.exit(0)", "sys.exit(1)", "raise SystemExit(3)", "raise KeyboardInterrupt"])
def test_exit_in_ask_exit_2(tmp_path, body):
    msg = _one_line(_verify(tmp_path, _policy(tmp_path, body=body)))
    assert "ask()" in msg and "'P'" in msg and ("SystemExit" in msg or "KeyboardInterrupt" in msg), msg


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_os_exit_in_ask_exit_2(tmp_path, jobs):
    msg = _one_line(_verify(tmp_path, _policy(tmp_path, body="if t == 3: os._exit(0)"), "--jobs", jobs))
    assert "ask()" in msg and "step 3" in msg and "'P'" in msg and "exit code 0" in msg, msg


@pytest.mark.parametrize("top", ["raise SystemExit(0)", "os._exit(0)"])
def test_exit_at_import_exit_2(tmp_path, top):
    msg = _one_line(_verify(tmp_path, _policy(tmp_path, top=top)))
    assert "pol.py" in msg and "import" in msg, msg


@pytest.mark.parametrize("backend", [("--jobs", "1"), ("--backend", "threading", "--jobs", "2")])
def test_print_does_not_break_json(tmp_path, backend):
    body = "print('hello from ask', t); print('oops', file=sys.stderr); os.write(1, b'below python')"
    # at import (in the verifying process): through sys.stdout, sys.__stdout__ and below Python on fd 1
    top = "print('hello at import'); sys.__stdout__.write('raw at import'); os.write(1, b'fd 1 at import')"
    res = _verify(tmp_path, _policy(tmp_path, body=body, top=top), "--json", *backend)
    assert res.returncode in (0, 1), (res.returncode, res.stderr[-2000:])
    json.loads(res.stdout)  # nothing the policy printed is mixed into it
    assert "fd 1 at import" in res.stderr and "raw at import" in res.stderr, res.stderr[-2000:]
    log = tmp_path / "out" / "results" / "user-code.log"
    assert "hello from ask" in log.read_text() and "below python" in log.read_text()


def test_sleeping_ask_times_out(tmp_path):
    res = _verify(tmp_path, _policy(tmp_path, body="if t == 2: time.sleep(600)"), "--policy-timeout", "1",
                  timeout=120)
    msg = _one_line(res)
    assert "time limit" in msg and "ask()" in msg and "step 2" in msg, msg


def test_a_call_that_blocks_the_alarm_is_stopped(tmp_path):
    """A call the SIGALRM cannot interrupt: the parent's watchdog stops its process after the limit and a grace."""
    body = "if t == 2: import signal; signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM]); time.sleep(600)"
    msg = _one_line(_verify(tmp_path, _policy(tmp_path, body=body), "--policy-timeout", "1", timeout=120))
    assert "time limit" in msg and "ask()" in msg and "step 2" in msg and "stopped" in msg, msg


def test_runs_finished_before_a_timeout_are_kept(tmp_path):
    body = "if self.ctx.run >= 25 and t == 2: time.sleep(600)"
    msg = _one_line(_verify(tmp_path, _policy(tmp_path, body=body), "--policy-timeout", "1", "--runs", "40",
                            timeout=120))
    assert "time limit" in msg and "run 25, step 2" in msg, msg
    chunks = tmp_path / "out" / "results" / "chunks"
    assert sorted(p.name for p in chunks.glob("runs-*.parquet")) == ["runs-00000.parquet"]


def test_policy_timeout_is_validated(tmp_path):
    msg = _one_line(_verify(tmp_path, _policy(tmp_path), "--policy-timeout", "0"))
    assert "policy timeout" in msg, msg


def test_nan_record_of_a_batched_policy():
    """The engine validates the records of a batched user Policy (one row per run, finite)."""
    import numpy as np

    from boundcheck.errors import UserCodeError
    from boundcheck.study.engine import _check_records

    class Pol:
        name = "mine"
        record = {"mu": np.array([0.0, np.nan])}

    with pytest.raises(UserCodeError, match=r"record 'mu' is not finite .* step 4, run 8"):
        _check_records(Pol(), 4, np.array([7, 8]))
    Pol.record = {"mu": np.zeros(3)}
    with pytest.raises(UserCodeError, match="one value per run"):
        _check_records(Pol(), 4, np.array([7, 8]))


# ------------------------------------------------------------------ what a file does to the process at import
# the broken example (β_t/20: its verdict is "violated", exit 1) with module-level code appended
BROKEN = (ROOT / "examples" / "gp_ucb_broken.py").read_text()


def _command(tmp_path: Path, top: str, *extra: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """The real executable's path (``python -m boundcheck``: cli.command, its quick exit) on the broken example
    with ``top`` run at its import."""
    f = tmp_path / "broken.py"
    f.write_text(BROKEN + "\n" + textwrap.dedent(top))
    args = ["verify", "--theorem", "gp_ucb", "--algorithm", f"{f}:NarrowGPUCB", "--runs", "20", "--horizon", "20",
            "--jobs", "1", "--no-report", "--out", str(tmp_path / "out"), *extra]
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-m", "boundcheck", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=tmp_path)


def test_an_exit_handler_registered_at_import_cannot_set_the_exit_status(tmp_path):
    """A file whose import registers ``os._exit(0)`` as an exit handler: the violated verdict still exits 1 (it
    exited 0 before the import fence: the handler ran before the command's own)."""
    res = _command(tmp_path, "import atexit\natexit.register(lambda: os._exit(0))\n"
                             "@atexit.register\ndef bye():\n    os._exit(0)\n")
    assert "theorem verdict: violated" in res.stdout, res.stdout[-1500:]
    assert res.returncode == 1, (res.returncode, res.stderr[-1500:])
    assert res.stderr.count("registered at import does not run") == 2, res.stderr[-1500:]


def test_a_thread_started_at_import_does_not_hang_the_exit(tmp_path):
    """A non-daemon thread that sleeps for an hour, started at import: the import probe and the command both end
    (the probe waited out its 120 s timeout, the command never ended)."""
    res = _command(tmp_path, "import threading, time\nthreading.Thread(target=time.sleep, args=(3600,)).start()\n",
                   timeout=60)
    assert res.returncode == 1 and "theorem verdict: violated" in res.stdout, (res.returncode, res.stderr[-1500:])
    assert "does not hold up the exit" in res.stderr, res.stderr[-1500:]


def test_signals_a_file_ignores_at_import_are_restored(tmp_path):
    """SIGINT ignored at import: the command still stops on Ctrl-C, as interrupted (exit 130), its chunks kept."""
    import signal
    import time

    f = tmp_path / "broken.py"
    f.write_text(BROKEN + "\nimport signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                 "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n")
    args = ["verify", "--theorem", "gp_ucb", "--algorithm", f"{f}:NarrowGPUCB", "--runs", "4000", "--horizon", "60",
            "--jobs", "1", "--no-report", "--out", str(tmp_path / "out")]
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen([sys.executable, "-m", "boundcheck", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    chunks = tmp_path / "out" / "results" / "chunks"
    deadline = time.monotonic() + 120
    # a chunk's own record is written last: a chunk interrupted before it is not stored (nor expected to be)
    while not any(chunks.glob("chunk-*.json")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    try:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()  # a command that ignored the Ctrl-C must not outlive the test
    assert proc.returncode == 130, (proc.returncode, out[-800:], err[-1500:])
    assert "interrupted" in err and "signal handlers set at import are restored (SIGINT, SIGTERM)" in err, err
    assert any(chunks.glob("chunk-*.json"))


def test_the_import_fence_undoes_what_an_import_did(tmp_path, monkeypatch):
    """In process: every change the fence names is undone, and code outside the user's folder (a library the
    file imports, another thread) registers as usual."""
    import atexit
    import importlib.util
    import signal
    import threading

    from boundcheck.utils.usercode import import_fence

    user = tmp_path / "user"
    user.mkdir()
    (user / "m.py").write_text(textwrap.dedent("""
        import atexit, io, os, signal, sys, threading, time
        atexit.register(os._exit, 0)
        threading.Thread(target=time.sleep, args=(0.01,), name="user-thread").start()
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)
        signal.alarm(30)
        sys.excepthook = lambda *a: None
        sys.stderr = io.StringIO()
        sys.settrace(lambda *a: None)
        os.chdir(os.path.dirname(__file__))
        import warnings
        warnings.simplefilter("ignore")
        import logging
        logging.getLogger().addHandler(logging.StreamHandler(sys.stdout))  # what basicConfig(stream=...) does
        logging.getLogger().setLevel(logging.DEBUG)
        import fence_library  # a library outside the user's folder: its handler is registered
    """))
    lib = tmp_path / "lib"
    lib.mkdir()
    kept = []
    (lib / "fence_library.py").write_text("import atexit\natexit.register(print, 'library handler')\n")
    monkeypatch.syspath_prepend(str(lib))
    real = atexit.register
    monkeypatch.setattr(atexit, "register", lambda f, *a, **k: (kept.append(f), real(f, *a, **k))[1])
    import logging
    import warnings

    before = (signal.getsignal(signal.SIGUSR1), sys.excepthook, sys.stderr, sys.gettrace(), os.getcwd(),
              list(warnings.filters), list(logging.getLogger().handlers), logging.getLogger().level)
    spec = importlib.util.spec_from_file_location("fence_user_module", user / "m.py")
    with import_fence(user) as notes:
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
    try:
        assert (signal.getsignal(signal.SIGUSR1), sys.excepthook, sys.stderr, sys.gettrace(), os.getcwd(),
                list(warnings.filters), list(logging.getLogger().handlers), logging.getLogger().level) == before
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        assert kept == [print]  # the library's, not the user's os._exit
        text = "\n".join(notes)
        for part in ("exit handler (_exit)", "'user-thread'", "SIGUSR1", "interval timer", "sys.excepthook",
                     "sys.stderr", "trace function", "logging configuration", "working directory"):
            assert part in text, (part, text)
        assert all(t.daemon for t in threading.enumerate() if t.name == "user-thread")
    finally:
        atexit.unregister(print)
        sys.modules.pop("fence_library", None)


def _module_command(tmp_path: Path, top: str, *extra: str) -> subprocess.CompletedProcess:
    """The broken example as an importable module (``brokenmod:NarrowGPUCB``, a package.module reference) with
    ``top`` run at its import, through the real executable."""
    pkg = tmp_path / "site"
    pkg.mkdir()
    (pkg / "brokenmod.py").write_text(BROKEN + "\nimport os\n" + textwrap.dedent(top))
    args = ["verify", "--theorem", "gp_ucb", "--algorithm", "brokenmod:NarrowGPUCB", "--runs", "20", "--horizon",
            "20", "--jobs", "1", "--no-report", "--out", str(tmp_path / "out"), *extra]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(pkg), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "boundcheck", *args], capture_output=True, text=True, timeout=120,
                          env=env, cwd=tmp_path)


def test_a_module_that_ends_the_process_at_import_is_one_line(tmp_path):
    """``--algorithm package.module:CLASS`` is imported in a throwaway process first, as a file is: a module whose
    import calls ``os._exit(0)`` ended the verify silently with exit 0."""
    msg = _one_line(_module_command(tmp_path, "os._exit(0)\n"))
    assert "policy module brokenmod ended the process importing it" in msg, msg


def test_a_module_that_raises_at_import_is_one_line(tmp_path):
    """An exception at a module's import is the user's error (exit 2), as for a file; it was an internal error."""
    msg = _one_line(_module_command(tmp_path, "undefined_name\n"))
    assert "policy module brokenmod failed to import: NameError" in msg, msg


def test_a_modules_import_is_fenced_too(tmp_path):
    res = _module_command(tmp_path, "import atexit\natexit.register(os._exit, 0)\nos.write(1, b'fd 1 at import')\n",
                          "--json")
    assert res.returncode == 1 and json.loads(res.stdout)["verdict"] == "violated", (res.returncode, res.stderr)
    assert "policy module brokenmod: an exit handler (_exit)" in res.stderr and "fd 1 at import" in res.stderr


def _interrupted(tmp_path: Path, signals: int) -> tuple[int, float, str]:
    """A study of a slow policy (every ask sleeps) on three workers, interrupted while two run a task or more:
    (exit status, seconds from the first Ctrl-C to the exit, stderr)."""
    import signal
    import time

    algorithm = _policy(tmp_path, body="time.sleep(0.2)")
    args = ["verify", "--theorem", "gp_ucb", "--algorithm", algorithm, "--runs", "75", "--horizon", "50",
            "--jobs", "3", "--no-report", "--out", str(tmp_path / "out")]
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    # the executable's path (python -m boundcheck): it handles Ctrl-C itself, even where SIGINT was ignored when
    # it started (a background job of a non-interactive shell)
    proc = subprocess.Popen([sys.executable, "-m", "boundcheck", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    markers = tmp_path / "out" / "results" / ".user-code"
    try:
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline and (
                not markers.is_dir() or len(list(markers.iterdir())) < 2):
            time.sleep(0.1)
        time.sleep(0.5)  # the workers inside their tasks (each takes minutes)
        start = time.monotonic()
        for _ in range(signals):
            proc.send_signal(signal.SIGINT)
            time.sleep(0.5)
        _, err = proc.communicate(timeout=60)
        return proc.returncode, time.monotonic() - start, err
    finally:
        proc.kill()


def test_an_interrupt_waits_for_the_workers_once_not_once_each(tmp_path):
    """Ctrl-C waits INTERRUPT_GRACE (5 s) in all for the tasks in flight, not 5 s per worker in turn (≥ 10 s)."""
    from boundcheck.study.runner import INTERRUPT_GRACE

    code, took, err = _interrupted(tmp_path, 1)
    assert code == 130 and "interrupted" in err, (code, err[-1500:])
    assert took < INTERRUPT_GRACE + 3, took


def test_a_second_interrupt_stops_the_wait(tmp_path):
    from boundcheck.study.runner import INTERRUPT_GRACE

    code, took, err = _interrupted(tmp_path, 2)  # the second 0.5 s after the first
    assert code == 130 and "interrupted" in err, (code, err[-1500:])
    assert took < INTERRUPT_GRACE - 0.5, took


def test_a_process_started_at_import_does_not_hold_up_the_probe(tmp_path):
    """A file that starts a long-lived process at import (a server, a daemon): that process inherits the import
    probe's descriptors, and the probe was read until they closed (the verify waited until it ended, or failed
    with the 120 s timeout). Now the probe reports through a file. (The command's output goes to files here: the
    process started by the real import holds the standard streams it inherits, as it would hold a pipe.)"""
    import time

    f = tmp_path / "broken.py"
    f.write_text(BROKEN + "\nimport subprocess\nsubprocess.Popen(['sleep', '20'])\n")
    args = ["verify", "--theorem", "gp_ucb", "--algorithm", f"{f}:NarrowGPUCB", "--runs", "20", "--horizon", "20",
            "--jobs", "1", "--no-report", "--out", str(tmp_path / "out")]
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    start = time.monotonic()
    with open(tmp_path / "stdout", "w") as out, open(tmp_path / "stderr", "w") as err:
        code = subprocess.run([sys.executable, "-m", "boundcheck", *args], stdout=out, stderr=err, timeout=60,
                              env=env, cwd=tmp_path).returncode
    took = time.monotonic() - start
    assert code == 1 and "violated" in (tmp_path / "stdout").read_text(), (tmp_path / "stderr").read_text()
    assert took < 15, took


def test_the_fence_tells_the_users_code_from_boundchecks_beside_it(monkeypatch):
    """A user's file beside a source checkout (the fence's folder holds boundcheck/ and theory/): what boundcheck's
    own modules register while the file imports them is kept, what the file registers is dropped."""
    import atexit

    from boundcheck.utils.usercode import import_fence

    kept = []
    real = atexit.register
    monkeypatch.setattr(atexit, "register", lambda f, *a, **k: (kept.append(f), real(f, *a, **k))[1])

    def ours():
        pass

    def theirs():
        pass

    with import_fence(ROOT) as notes:
        for where, f in (("boundcheck/runtime/x.py", ours), ("theory/x.py", ours), ("mine.py", theirs)):
            exec(compile("atexit.register(f)", str(ROOT / where), "exec"), {"atexit": atexit, "f": f})
    atexit.unregister(ours)
    assert kept == [ours, ours] and len(notes) == 1 and "theirs" in notes[0], (kept, notes)


@pytest.mark.parametrize("top, expected", [("raise RuntimeError('bad init')", "raised RuntimeError: bad init"),
                                           ("os._exit(0)", "the process running it ended (exit code 0")])
def test_a_batched_policys_constructor_is_user_code(tmp_path, top, expected):
    """A user's batched Policy whose constructor fails: one line naming the policy and its constructor (it was
    "the process running the policies ... ended unexpectedly (RuntimeError)", naming no call)."""
    f = tmp_path / "mine.py"
    f.write_text(textwrap.dedent(f"""
        import os
        from boundcheck.policies.gp_ucb import GPUCB

        class Mine(GPUCB):
            name = "mine"

            def __init__(self, *args, **kwargs):
                {top}
    """))
    msg = _one_line(_verify(tmp_path, f"{f}:Mine"))
    assert "policy 'mine'" in msg and "__init__()" in msg and expected in msg, msg


@pytest.mark.parametrize("body, expected", [
    ("raise RuntimeError('bad factory')", "raised RuntimeError: bad factory"),  # was an internal error, exit 4
    ("raise SystemExit(0)", "raised SystemExit(0)"),  # was exit 0, silently
    ("os._exit(0)", "or in make_mine(), the policy factory it names"),  # was exit 0, silently
])
def test_a_policy_factory_is_called_as_user_code(tmp_path, body, expected):
    """``--algorithm FILE.py:FACTORY`` (a callable, not a class): the verifying process calls it to read the policy
    it makes, so it is called there as user code, and first in the import probe."""
    f = tmp_path / "mine.py"
    f.write_text(textwrap.dedent(f"""
        import os
        from boundcheck.policies.gp_ucb import GPUCB

        def make_mine(**kwargs):
            {body}
            return GPUCB(**kwargs)
    """))
    msg = _one_line(_verify(tmp_path, f"{f}:make_mine"))
    assert expected in msg and "make_mine" in msg, msg


def test_the_real_import_has_the_probes_time_limit(tmp_path, monkeypatch):
    """A file that imports quickly in the probe but hangs when imported again in the verifying process: one line
    after the probe's limit, not a command that never ends."""
    from boundcheck.commands import usercode as api
    from boundcheck.errors import BoundcheckError

    f = tmp_path / "slow.py"
    f.write_text("import time\nif __name__ != 'boundcheck_import_probe':\n    time.sleep(600)\nclass P:\n    pass\n")
    monkeypatch.setattr(api, "IMPORT_PROBE_TIMEOUT", 1.0)
    with pytest.raises(BoundcheckError, match="did not finish importing within 1 s"):
        api._load_object(f"{f}:P")


def test_a_policy_factory_called_here_has_the_time_limit(tmp_path, monkeypatch):
    """A factory that returns at once in the import probe but hangs when the verifying process calls it: one line
    after the probe's limit (the call had no limit)."""
    from boundcheck import api
    from boundcheck.commands import usercode
    from boundcheck.errors import BoundcheckError

    f = tmp_path / "slow_factory.py"
    f.write_text("import time\ndef make_mine():\n    if __name__ == 'boundcheck_import_probe':\n        return None\n"
                 "    time.sleep(600)\n")
    monkeypatch.setattr(usercode, "IMPORT_PROBE_TIMEOUT", 1.0)
    with pytest.raises(BoundcheckError, match="make_mine did not return within its time limit"):
        api.resolve_policy(f"{f}:make_mine")
