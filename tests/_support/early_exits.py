"""Early exits of ``boundcheck verify --jobs 2`` (bad input, not applicable, interrupt, SIGTERM) and of a
``reproduce --jobs 2`` whose panels run side by side (interrupt), of an interrupt sent to the whole process group
(Ctrl-C in a terminal) and of one with loky's fresh workers (``BOUNDCHECK_START_METHOD=spawn``), each in a fresh
process: the exit status, stderr without a traceback or a ``resource_tracker`` warning, and no process the command
started (its forked or loky workers, their resource tracker) alive 2 s after it exited.

Used by tests/runtime/test_pool_exit.py (a few of each kind); run as a script for the long loop::

    PYTHONPATH=. python tests/_support/early_exits.py --repeat 100          # 100 of each kind
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[2]

KINDS = {
    # kind: (arguments, expected exit status)
    "bad input": (["verify", "--theorem", "gp_ucb", "--horizon", "0", "--runs", "5"], 2),
    "not applicable": (["verify", "--theorem", "gp_ucb", "--scenario", "pe_toy_tv", "--runs", "5"], 3),
    "interrupt": (["verify", "--theorem", "gp_ucb", "--runs", "2000", "--horizon", "200", "--no-report"], 130),
    "terminate": (["verify", "--theorem", "gp_ucb", "--runs", "2000", "--horizon", "200", "--no-report"], 143),
    # whole panels side by side on the parent and a worker (api._run_panels); 200 runs per panel: ≈ 5.8 s after its
    # first worker appears (2026-11-27), so that an interrupt 0–3 s after that lands while it runs (at the quick
    # form's own 25 runs it ended ≈ 2.5 s after, and a late interrupt hit its normal exit: 5 of 30 "failures")
    "reproduce interrupt": (["reproduce", "igp_ucb_gp_ts", "--experiment", "fig1_rkhs", "--quick", "--runs", "200",
                             "--no-report"], 130),
    # Ctrl-C in a terminal: SIGINT to the whole process group, the forked worker included (which ignores it)
    "group interrupt": (["verify", "--theorem", "gp_ucb", "--runs", "2000", "--horizon", "200", "--no-report"], 130),
    # the worker share in loky's fresh interpreters instead of forked children
    "spawn interrupt": (["verify", "--theorem", "gp_ucb", "--runs", "2000", "--horizon", "200", "--no-report"], 130),
}
SIGNALS = {"interrupt": signal.SIGINT, "terminate": signal.SIGTERM, "reproduce interrupt": signal.SIGINT,
           "group interrupt": signal.SIGINT, "spawn interrupt": signal.SIGINT}
GROUP = {"group interrupt"}  # kinds whose signal goes to the command's process group
ENVS = {"spawn interrupt": {"BOUNDCHECK_START_METHOD": "spawn"}}
GRACE = 2.0  # seconds after the command's exit by which every process it started must be gone


def gone(pids, within: float = GRACE) -> bool:
    """Whether every process of ``pids`` has exited (a zombie counts as gone) within ``within`` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not any(psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE for p in pids):
            return True
        time.sleep(0.05)
    return False


def early_exit(kind: str, folder: Path, delay: float = 0.5) -> list[str]:
    """Run one early exit of ``kind`` in ``folder``; the problems found (empty: none). ``delay``: for an
    interrupt (SIGINT) or a termination (SIGTERM), seconds between the first worker's appearance and the
    signal."""
    args, want = KINDS[kind]
    out = Path(folder) / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "MPLBACKEND": "Agg", "BOUNDCHECK_LOG_DIR": str(Path(folder) / "logs"),  # the trackers' log too
           **ENVS.get(kind, {})}
    with open(Path(folder) / "stderr", "wb") as err, open(Path(folder) / "stdout", "wb") as so:
        p = subprocess.Popen([sys.executable, "-m", "boundcheck", *args, "--jobs", "2", "--out", str(out)],
                             stdout=so, stderr=err, env=env, cwd=folder, start_new_session=kind in GROUP)
        proc = psutil.Process(p.pid)
        seen: dict[int, float] = {}
        first = None
        sent = False
        deadline = time.monotonic() + 300
        while p.poll() is None and time.monotonic() < deadline:
            try:
                for c in proc.children(recursive=True):
                    seen.setdefault(c.pid, c.create_time())
            except psutil.Error:
                pass
            if seen and first is None:
                first = time.monotonic()
            if kind in SIGNALS and not sent and first is not None and time.monotonic() >= first + delay:
                if kind in GROUP:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(p.pid, SIGNALS[kind])
                else:
                    p.send_signal(SIGNALS[kind])
                sent = True
            time.sleep(0.01)
        if p.poll() is None:
            p.kill()
            p.wait()
            return [f"{kind}: still running after 300 s"]
    time.sleep(GRACE)
    problems = []
    stderr = (Path(folder) / "stderr").read_text(errors="replace")
    if p.returncode != want:
        problems.append(f"{kind}: exit {p.returncode}, expected {want}; stderr: {stderr[-2000:]}")
    for word in ("Traceback", "resource_tracker", "Exception in thread"):
        if word in stderr:
            problems.append(f"{kind}: {word!r} in stderr:\n{stderr[-3000:]}")
    tracker = Path(folder) / "logs" / "resource-tracker.log"  # what a resource tracker cleaned up after the command
    if tracker.exists() and "leaked" in tracker.read_text(errors="replace"):
        problems.append(f"{kind}: the resource trackers cleaned up after it:\n{tracker.read_text()[-3000:]}")
    for pid, created in seen.items():
        try:
            c = psutil.Process(pid)
            if c.create_time() == created and c.is_running() and c.status() != psutil.STATUS_ZOMBIE:
                problems.append(f"{kind}: process {pid} ({' '.join(c.cmdline())[:120]}) alive {GRACE} s after "
                                "the command exited")
                c.kill()
        except psutil.Error:
            pass
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=100, help="early exits of each kind (default 100)")
    ap.add_argument("--kind", choices=sorted(KINDS), action="append", help="only these kinds (default: all)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the interrupts' delays")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    failed = 0
    for kind in a.kind or list(KINDS):
        bad = 0
        t0 = time.perf_counter()
        for i in range(a.repeat):
            with tempfile.TemporaryDirectory(prefix="boundcheck-exit-") as tmp:
                problems = early_exit(kind, Path(tmp), delay=rng.uniform(0.0, 3.0))
            if problems:
                bad += 1
                print(f"[{i}] " + "\n".join(problems), flush=True)
        print(f"{kind}: {a.repeat - bad} of {a.repeat} clean ({time.perf_counter() - t0:.0f} s)", flush=True)
        failed += bad
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
