"""The command line terminates its idle loky workers before exiting instead of waiting for loky's exit handler;
a caller of ``cli.main(argv)`` in the same process keeps its warm pool."""

from __future__ import annotations

import subprocess
import sys


def test_stop_workers_terminates_an_idle_pool_and_never_starts_one():
    code = """
import sys, time
from boundcheck.study import pool
pool.stop_workers()  # no pool: nothing happens, nothing imported
assert "joblib.externals.loky.reusable_executor" not in sys.modules
import joblib
pids = set(joblib.Parallel(n_jobs=2)(joblib.delayed(pool._warm)() for _ in range(2)))
from joblib.externals.loky import reusable_executor
procs = list(reusable_executor._executor._processes.values())
pool.stop_workers()
deadline = time.time() + 20
while any(p.is_alive() for p in procs) and time.time() < deadline:
    time.sleep(0.05)
assert not any(p.is_alive() for p in procs), pids
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok" and "Traceback" not in out.stderr
