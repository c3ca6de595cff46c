"""Power of every theorem's verification at the default run count.

For each theorem, ``boundcheck power`` at its defaults: N = 200 runs, the default scenario and horizon, every
planted defect of the library that applies, and the correct algorithm (whose rejections are false alarms).
Prints, per claim, the defects it catches (probability ≥ 0.9 that a verify of N runs calls it violated) and its
smallest detectable effect, and checks the acceptance criterion: no claim of any theorem catches nothing.

    python benchmarks/bench_power.py                # all theorems, N = 200 (about an hour on 2 cores)
    python benchmarks/bench_power.py --write        # also store the tables the HTML reports show by default
    python benchmarks/bench_power.py --theorem gp_ts --runs 60 --horizon 60   # a quick look

The stored tables (``boundcheck/papers/<slug>/power/<theorem>.json``, the theorem's paper's ``power_dir``)
are the "precomputed" sensitivity tables
of the reports; ``boundcheck power --theorem X`` next to a report folder replaces them with a fresh measurement.
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from boundcheck import api  # noqa: E402
from boundcheck.cli.power import _render_power  # noqa: E402

THEOREMS = ("pe_gp_ucb", "gp_ucb", "igp_ucb_confidence", "igp_ucb", "gp_ts")
#: paper 001: (scenario, horizon, runs) of the shipped tables — the fast 20×20 variants at T = 200 and
#: N = 50 (the default 30×30 grid at T = 400 and N = 200 would take hours on 2 cores); --runs/--horizon override
PAPER001 = {"et_gp_ucb": ("tv_grid20_eps003", 200, 50), "et_r_gp_ucb": ("tv_grid20_eps003", 200, 50),
            "tv_gp_ucb": ("tv_grid20_eps003", 200, 50), "et_trigger": ("tv_grid20_static", 200, 50)}
#: paper 002: the Bayesian-regret theorems at N = 50, T = 50 on their default scenarios (top-2 of 10
#: available out of 20 arms; 10 fresh contexts per round, top-2); f is redrawn every run, so N = 50 runs are 50
#: functions
PAPER002 = {th: (sc, 50, 50) for th, sc in (
    ("comb_gp_ucb", "comb_topk"), ("comb_gp_bucb", "comb_topk"), ("comb_gp_ts", "comb_topk"),
    ("comb_gp_ucb_infinite", "comb_rff"), ("comb_gp_bucb_infinite", "comb_rff"), ("comb_gp_ts_infinite", "comb_rff"))}
#: paper 003: the restored R-/SW-GP-UCB theorems on their default scenario at T = 200, N = 50 (the
#: default T = 1000, N = 200 takes tens of minutes per defect on 2 cores)
PAPER003 = {th: ("vb_rotation", 200, 50) for th in ("r_gp_ucb", "sw_gp_ucb")}
SETTINGS = {**PAPER001, **PAPER002, **PAPER003}
THEOREMS = THEOREMS + tuple(PAPER001) + tuple(PAPER002) + tuple(PAPER003)


def _power_dir(theorem_id: str) -> Path:
    """Where the theorem's paper keeps its power tables (its manifest's ``power_dir``)."""
    from theory import plugins

    return plugins.paper_of_theorem(theorem_id).power_dir


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--theorem", action="append", choices=THEOREMS)
    ap.add_argument("--runs", type=int, help=f"default {api.DEFAULT_RUNS} (papers 001, 002: see SETTINGS)")
    ap.add_argument("--horizon", type=int)
    ap.add_argument("--jobs", type=int, default=-1)
    ap.add_argument("--subsets", type=int, default=200)
    ap.add_argument("--out", help="keep the defect studies here (default: a temporary folder)")
    ap.add_argument("--write", action="store_true",
                    help="store the tables in each theorem's paper (boundcheck/papers/<slug>/power/)")
    args = ap.parse_args()
    tmp = None
    out = Path(args.out) if args.out else Path(tmp := tempfile.mkdtemp(prefix="bench-power-"))
    empty = {}
    try:
        for th in args.theorem or THEOREMS:
            t0 = time.perf_counter()
            scenario, horizon, runs = SETTINGS.get(th, (None, None, api.DEFAULT_RUNS))
            table = api.power(th, scenario, runs=args.runs or runs, horizon=args.horizon or horizon, jobs=args.jobs,
                              subsets=args.subsets, out=out / th)
            table.pop("path", None)
            table["machine"] = f"{platform.node()} ({platform.machine()}), Python {platform.python_version()}"
            table["date"] = time.strftime("%Y-%m-%d")
            table["seconds"] = round(time.perf_counter() - t0, 1)
            _render_power(table)
            empty[th] = [c for c, info in table["claims"].items() if not info["catches"]]
            print(f"{th}: {table['seconds']} s; claims that catch nothing: {empty[th] or 'none'}\n")
            if args.write:
                data = _power_dir(th)
                data.mkdir(parents=True, exist_ok=True)
                (data / f"{th}.json").write_text(json.dumps(table, indent=1, default=float) + "\n")
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    bad = {th: cs for th, cs in empty.items() if cs}
    print("ACCEPTANCE (every claim catches some defect):", "PASS" if not bad else f"FAIL {bad}")
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
