"""What a user's code does to the command's process, and what becomes of the command's output, through the real
executable (``python -m boundcheck``: cli.command, its quick exit): a user's threads cannot write into stdout
(``--json`` stays one document, their output goes to the study's log); processes it starts (at import, in ``ask``,
in the import probe) do not outlive the command; an import that hangs says so while it waits and is refused
within a minute; ``--policy-timeout`` is bounded; an output encoding that cannot print every character, a reader
that stops reading (``| head``), a closed or a full standard output each end as documented.

Every command here runs with an environment variable that every process it starts inherits: after each test, no
process that holds it may be left (Linux: read from ``/proc``)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from boundcheck.errors import BoundcheckError
from boundcheck.utils.settings import VerifySettings

ROOT = Path(__file__).resolve().parents[2]
#: the broken example (β_t/20: "violated" with enough runs) with module-level code appended
BROKEN = (ROOT / "examples" / "gp_ucb_broken.py").read_text()
#: inherited by every process a command of this module starts: none may outlive its test
TOKEN = f"BOUNDCHECK_TEST_PROCESSES={uuid.uuid4().hex}"
SMALL = ["--runs", "4", "--horizon", "5", "--jobs", "1", "--no-report"]


def _env(**extra: str) -> dict[str, str]:
    name, _, value = TOKEN.partition("=")
    return {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), name: value,
            **extra}


def _boundcheck(*args: str, cwd: Path, env: dict | None = None, timeout: float = 120,
                **kwargs) -> subprocess.CompletedProcess:
    kwargs.setdefault("capture_output", True)
    return subprocess.run([sys.executable, "-m", "boundcheck", *args], env=env or _env(), cwd=cwd, timeout=timeout,
                          **kwargs)


def _holders() -> list[str]:
    """The running processes (not zombies) that hold :data:`TOKEN` in their environment: pid and command line."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            environ = Path(f"/proc/{name}/environ").read_bytes().split(b"\0")
            if TOKEN.encode() not in environ:
                continue
            state = Path(f"/proc/{name}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
            cmd = Path(f"/proc/{name}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError):
            continue
        if state not in (b"Z", b"X"):
            found.append(f"{name}: {cmd[:200]}")
    return found


@pytest.fixture(autouse=True)
def _nothing_left_behind():
    """After each test, no process its commands started is running (loky's resource trackers leave within a
    moment of the command: they are waited for)."""
    yield
    if not os.path.isdir("/proc/self"):
        return
    deadline = time.monotonic() + 10
    left = _holders()
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = _holders()
    assert not left, left


def _user_file(tmp_path: Path, top: str) -> str:
    f = tmp_path / "broken.py"
    f.write_text(BROKEN + "\n" + textwrap.dedent(top))
    return f"{f}:NarrowGPUCB"


# ------------------------------------------------------------------------------------ the user's threads
def test_a_thread_the_users_file_starts_cannot_write_into_the_json_output(tmp_path):
    """A daemon thread started at import that prints every 0.05 s (and writes below Python, on file descriptor 1):
    stdout holds the JSON document only; what the thread wrote during the study is in the study's log."""
    algorithm = _user_file(tmp_path, """
        import os, sys, threading, time

        def chatter():
            while True:
                print("junk from a thread")
                os.write(1, b"junk below python\\n")
                time.sleep(0.05)

        threading.Thread(target=chatter, daemon=True).start()
        """)
    res = _boundcheck("verify", "--theorem", "gp_ucb", "--algorithm", algorithm, *SMALL, "--out",
                      str(tmp_path / "out"), "--json", cwd=tmp_path, text=True)
    assert res.returncode in (0, 1), res.stderr[-2000:]
    assert "junk" not in res.stdout
    assert json.loads(res.stdout)["verdict"]
    log = (tmp_path / "out" / "results" / "user-code.log").read_text()
    assert "junk from a thread" in log and "junk below python" in log, log[-2000:]


# ------------------------------------------------------------------------------------ the user's processes
def test_processes_the_users_code_starts_do_not_outlive_the_command(tmp_path):
    """``subprocess.Popen(["sleep", …])`` at import (run twice: in the import probe and in the verifying process)
    and in the first ``ask`` of each worker: each is ended with the command (the fixture checks that no process
    of the command is left; the files say the processes were started)."""
    marks = tmp_path / "started"
    marks.mkdir()
    algorithm = _user_file(tmp_path, f"""
        import os, subprocess

        def _spawn(where):
            p = subprocess.Popen(["sleep", "300"])
            open(os.path.join({str(marks)!r}, f"{{where}}-{{p.pid}}"), "w").close()

        _spawn("import")
        _SPAWNED = []
        _ask = NarrowGPUCB.ask

        class Spawning(NarrowGPUCB):
            def ask(self, t, available):
                if not _SPAWNED:
                    _SPAWNED.append(1)
                    _spawn("ask")
                return _ask(self, t, available)
        """).replace(":NarrowGPUCB", ":Spawning")
    res = _boundcheck("verify", "--theorem", "gp_ucb", "--algorithm", algorithm, *SMALL, "--jobs", "2", "--out",
                      str(tmp_path / "out"), cwd=tmp_path)
    assert res.returncode in (0, 1), res.stderr[-2000:]
    started = sorted(p.name.split("-")[0] for p in marks.iterdir())
    assert started.count("import") == 2 and "ask" in started, started
    pids = [int(p.name.split("-")[1]) for p in marks.iterdir()]
    assert not [p for p in pids if _running(p)], pids


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except (OSError, IndexError):
        return False


def test_an_import_that_hangs_says_so_while_it_waits_and_an_interrupt_ends_its_probe(tmp_path):
    """``while True`` at import (after starting a process): within seconds stderr says what the command waits
    for and how long it may; Ctrl-C then ends the command (130) and the probe with what it started."""
    algorithm = _user_file(tmp_path, """
        import subprocess
        subprocess.Popen(["sleep", "300"])
        while True:
            pass
        """)
    args = ["verify", "--theorem", "gp_ucb", "--algorithm", algorithm, *SMALL, "--out", str(tmp_path / "out")]
    proc = subprocess.Popen([sys.executable, "-m", "boundcheck", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=_env(), cwd=tmp_path)
    try:
        line = proc.stderr.readline()  # the notice comes ≈ 2 s into the probe
        assert "importing policy file" in line and "broken.py" in line and "(limit 60 s)" in line, line
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 130, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_import_limit_is_at_most_a_minute_and_an_import_over_it_is_refused(tmp_path, monkeypatch, capfd):
    from boundcheck.commands import usercode as loading

    assert loading.IMPORT_PROBE_TIMEOUT <= 60
    f = tmp_path / "loop.py"
    f.write_text("import subprocess\nsubprocess.Popen(['sleep', '300'])\nwhile True:\n    pass\n")
    monkeypatch.setattr(loading, "IMPORT_PROBE_TIMEOUT", 2.0)
    monkeypatch.setattr(loading, "IMPORT_NOTICE_AFTER", 0.5)
    name, _, value = TOKEN.partition("=")
    monkeypatch.setenv(name, value)  # the probe and its sleep: the fixture checks that they are gone
    start = time.monotonic()
    with pytest.raises(BoundcheckError, match=r"policy file loop.py did not finish importing within 2 s"):
        loading._import_in_child("file", str(f), "policy file loop.py")
    assert time.monotonic() - start < 10
    assert "boundcheck: importing policy file loop.py (limit 2 s)" in capfd.readouterr().err


# ------------------------------------------------------------------------------------ numeric options
@pytest.mark.parametrize("seconds", [1e30, 86_401, 1e-300, 0.0009])
def test_the_policy_timeout_is_bounded(seconds):
    with pytest.raises(BoundcheckError, match=r"policy timeout must lie in \[0.001, 86400\]"):
        VerifySettings(policy_timeout=seconds)


def test_a_policy_timeout_beyond_a_day_is_one_line_exit_2(tmp_path):
    res = _boundcheck("verify", "--theorem", "gp_ucb", *SMALL, "--policy-timeout", "1e30", "--out",
                      str(tmp_path / "out"), cwd=tmp_path, text=True)
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1 and "policy timeout" in lines[0], res.stderr
    assert VerifySettings(policy_timeout=86_400).policy_timeout == 86_400


@pytest.mark.parametrize(("option", "fragment"), [("--lengthscale", "lengthscale"), ("--noise", "noise")])
def test_gammas_real_options_are_bounded(option, fragment, capsys):
    from boundcheck.cli import main

    assert main(["gamma", "--kernel", "rbf", "--horizon", "10", option, "1e308"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and fragment in err[0] and "too large" in err[0], err


# ------------------------------------------------------------------------------------ the command's output
@pytest.fixture(scope="module")
def ascii_verify(tmp_path_factory):
    """A small verify of a built-in theorem with an output encoding that cannot print its characters (≈, —, box
    drawing): its results folder is resumed by the tests below (nothing recomputed)."""
    folder = tmp_path_factory.mktemp("ascii")
    res = _boundcheck("verify", "--theorem", "gp_ucb", *SMALL, "--out", str(folder / "out"), cwd=folder,
                      env=_env(PYTHONIOENCODING="ascii"))
    return folder, res


def test_an_output_encoding_that_cannot_print_it_is_replaced_not_an_internal_error(ascii_verify):
    folder, res = ascii_verify
    assert res.returncode == 0 and b"verdict" in res.stdout, res.stderr[-2000:]
    res.stdout.decode("ascii")  # what could not be encoded was replaced
    shown = _boundcheck("show", "gp_ucb", cwd=folder, env=_env(PYTHONIOENCODING="ascii"))
    assert shown.returncode == 0 and b"gp_ucb" in shown.stdout, shown.stderr[-2000:]


def _into_a_closed_pipe(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``args`` with stdout a pipe whose reader has gone (``| head`` after its line): the first write fails."""
    r, w = os.pipe()
    os.close(r)
    try:
        return _boundcheck(*args, cwd=cwd, stdout=w, stderr=subprocess.PIPE, capture_output=False, text=True)
    finally:
        os.close(w)


@pytest.mark.parametrize("args", [("list",), ("--help",), ("verify", "--theorem", "gp_ucb", *SMALL),
                                  ("verify", "--theorem", "gp_ucb", *SMALL, "--json")],
                         ids=["list", "help", "verify", "verify-json"])
def test_a_reader_that_stops_reading_is_exit_141(ascii_verify, args):
    folder, _ = ascii_verify
    extra = ("--out", str(folder / "out")) if args[0] == "verify" else ()
    res = _into_a_closed_pipe(*args, *extra, cwd=folder)
    assert res.returncode == 141 and "Traceback" not in res.stderr, (res.returncode, res.stderr[-2000:])


def test_a_closed_stdout_is_one_line_exit_2(tmp_path):
    res = subprocess.run(["sh", "-c", 'exec "$0" -m boundcheck list >&-', sys.executable], capture_output=True,
                         text=True, env=_env(), cwd=tmp_path, timeout=60)
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1, res.stderr
    assert lines[0].startswith("boundcheck: error: the standard output is closed"), lines


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("args", [("list", "--json"), ("verify", "--theorem", "gp_ucb", *SMALL, "--json")],
                         ids=["list", "verify"])
def test_a_full_stdout_is_named_not_the_output_folder(ascii_verify, args):
    folder, _ = ascii_verify
    extra = ("--out", str(folder / "out")) if args[0] == "verify" else ()
    with open("/dev/full", "w") as full:
        res = _boundcheck(*args, *extra, cwd=folder, stdout=full, stderr=subprocess.PIPE, capture_output=False,
                          text=True)
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1, res.stderr
    assert "standard output" in lines[0] and "output folder" not in lines[0], lines


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the process tree is read from /proc")
def test_the_end_of_the_users_processes_spares_the_pools_resource_trackers(tmp_path):
    """The resource trackers must outlive the command (they clean up after it): the processes a user's code left
    are ended, the trackers the pool started after the user's code was imported are not."""
    code = textwrap.dedent("""
        import os, subprocess
        from pathlib import Path
        from boundcheck import runtime
        from boundcheck.utils import processes

        processes.become_subreaper()  # as when a user's code is imported in the command's process
        runtime.pool(1).submit(os.getpid).result()
        trackers = {p for p in processes.children() if b"resource_tracker" in Path(f"/proc/{p}/cmdline").read_bytes()}
        user = subprocess.Popen(["sleep", "300"])
        runtime.shutdown()
        ended = processes.end_descendants()
        print(len(trackers), sorted(trackers & set(ended)), user.pid in ended)
        """)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), cwd=tmp_path,
                         timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.split() == ["2", "[]", "True"], res.stdout
