"""Benchmark: paper 001's Table 2 on the continuum [0,1]² against its grid form, in the same run.

Times two whole commands, wall clock, one after the other on the same machine, each into a fresh folder:

    boundcheck reproduce et_gp_ucb --experiment table2_continuous   (ET-GP-UCB maximised on [0,1]², δ_B = 0.1,
                                                                     ε = 0.01 / 0.03 / 0.05, 50 runs, T = 400)
    boundcheck reproduce et_gp_ucb --experiment table2_fine         (the same rows on the 59 × 59 grid)

and prints each one's wall and CPU time (user + sys of the command and its workers), their ratio, the target
(the continuum form ≤ 15 min on 2 cores) and each row's R_400 and resets beside the paper's. ``--quick``: 5 runs per
panel (``reproduce --quick``), a smoke test of the bench, not its figures.

Usage: python benchmarks/bench_table2_continuous.py [--quick] [--jobs N] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_S = 15 * 60


def _cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def reproduce(experiment: str, quick: bool, jobs: int | None) -> dict:
    """Wall and CPU seconds of one ``reproduce`` command and its rows (R_400 and resets, ours and the paper's)."""
    with tempfile.TemporaryDirectory(prefix="bench-t2c-") as tmp:
        cmd = [sys.executable, "-m", "boundcheck", "reproduce", "et_gp_ucb", "--experiment", experiment, "--json",
               "--no-report", "--out", str(Path(tmp) / "out")] + (["--quick"] if quick else [])
        cmd += ["--jobs", str(jobs)] if jobs else []
        cpu0, t0 = _cpu_children(), time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
        wall, cpu = time.perf_counter() - t0, _cpu_children() - cpu0
    if p.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stderr[-3000:]}")
    out = json.loads(p.stdout[p.stdout.index("{"):])
    rows = [{k: r[k] for k in ("label", "paper", "ours", "se", "runs", "z")}
            for e in out.get("experiments", []) for r in e.get("printed_results", [])]
    return {"wall_s": wall, "cpu_s": cpu, "rows": rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="5 runs per panel (a smoke test)")
    ap.add_argument("--jobs", type=int, default=None, help="reproduce's --jobs (default: its own, every core)")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args()
    load0 = os.getloadavg()[0]
    res = {"quick": args.quick, "cores": os.cpu_count(), "load_1min_start": load0}
    for name, experiment in (("continuous", "table2_continuous"), ("grid59", "table2_fine")):
        r = reproduce(experiment, args.quick, args.jobs)
        res[name] = r
        print(f"{experiment:18} {r['wall_s']:7.1f} s wall {r['cpu_s']:7.1f} s CPU", flush=True)
        for row in r["rows"]:
            print(f"    {row['label']}: paper {row['paper']:g}, ours {row['ours']:.4g} ± {row['se']:.2g} SE "
                  f"({row['runs']} runs)", flush=True)
    res["load_1min_end"] = os.getloadavg()[0]
    res["ratio"] = res["continuous"]["wall_s"] / res["grid59"]["wall_s"]
    res["target_s"], res["met"] = TARGET_S, res["continuous"]["wall_s"] <= TARGET_S
    print(f"Table 2 on the continuum: {res['continuous']['wall_s']:.0f} s wall, {res['ratio']:.2f}× the 59 × 59 grid "
          f"form ({res['grid59']['wall_s']:.0f} s); target ≤ {TARGET_S // 60} min on 2 cores: "
          f"{'met' if res['met'] else 'not met'} ({os.cpu_count()} cores, load {load0:.1f} → "
          f"{res['load_1min_end']:.1f})")
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
