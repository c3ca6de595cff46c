"""User code cannot lie or take over the verifying process (issue 24, item 3).

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

ROOT = Path(__file__).resolve().parents[1]

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
    res = _verify(tmp_path, _policy(tmp_path, body=body, top="print('hello at import')"), "--json", *backend)
    assert res.returncode in (0, 1), (res.returncode, res.stderr[-2000:])
    json.loads(res.stdout)  # nothing the policy printed is mixed into it
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
