"""Paper 004's Figs 1–3 at the paper's settings (T = 30 000, 25 trials, six algorithms): ``boundcheck reproduce
igp_ucb_gp_ts`` for the three experiments, timed (target ≤ 10 min on 2 cores).

Prints the wall time of the whole command and its CPU time (this process's rusage, which includes the chunks it
simulates itself, plus the CPU seconds of the chunks simulated by the loky workers, as the chunks' records store
them: the workers outlive the command, so their rusage never reaches this process), the time of each panel, the
machine's load, and every empirical claim's verdict.

    python benchmarks/bench_long_horizon.py [--horizon T] [--runs N] [--jobs J] [--experiment NAME] [--json FILE]

``--horizon`` smaller than 30 000 gives a scaled-down run of the same workload (for a quick look); the results
folder is a fresh temporary one (nothing is resumed).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, write_json  # noqa: E402

EXPERIMENTS = ("fig1_rkhs", "fig2_gp", "fig3_benchmarks")


def _chunk_cpu(results: Path, only_workers: bool = False) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of the chunks stored under ``results`` (their records); ``only_workers``: only
    those simulated in another process (with loky the parent simulates chunks too: its rusage counts them)."""
    cpu = wall = 0.0
    for f in results.rglob("chunks/chunk-*.json"):
        rec = json.loads(f.read_text()).get("record", {})
        if only_workers and rec.get("pid") == os.getpid():
            continue
        cpu += float(rec.get("cpu_seconds", 0.0))
        wall += float(rec.get("seconds", 0.0))
    return cpu, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--horizon", type=int, default=None, help="T (default: the paper's 30 000)")
    ap.add_argument("--runs", type=int, default=None, help="trials per panel (default: the paper's 25)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--experiment", default=None,
                    help="one experiment (default: all of the paper's, as `reproduce igp_ucb_gp_ts` runs them: Figs "
                         "1–3 at the paper's horizon, Fig. 4a at T = 200)")
    ap.add_argument("--out", default=None, help="results folder (default: a fresh temporary one)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--warm-cache", action="store_true",
                    help="use the user's runtime cache (γ brackets, theorem instances) as it is; default: a fresh, "
                         "empty cache folder, so that the time is a first run's (the γ brackets at T computed)")
    args = ap.parse_args()
    if not args.warm_cache:  # before boundcheck is imported; the loky workers inherit the environment
        os.environ["BOUNDCHECK_CACHE"] = tempfile.mkdtemp(prefix="bench_long_cache_")

    t_import = time.perf_counter()
    from boundcheck import api
    from boundcheck.study import experiments as registry

    names = [args.experiment] if args.experiment else list(EXPERIMENTS)
    if args.horizon is not None:  # a scaled-down run of the same experiments
        for name in names:
            exp = registry.get_experiment("igp_ucb_gp_ts", name)
            registry.register_experiment(replace(exp, horizon=args.horizon), replace=True)
    out = Path(args.out or tempfile.mkdtemp(prefix="bench_long_"))
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    summary = api.reproduce("igp_ucb_gp_ts", args.experiment, runs=args.runs, jobs=args.jobs, out=out, report=True)
    wall = time.perf_counter() - t0
    ru = resource.getrusage(resource.RUSAGE_SELF)
    parent_cpu = ru.ru_utime + ru.ru_stime
    chunk_cpu, _ = _chunk_cpu(out, only_workers=True)  # the parent's own chunks are in its rusage
    panels = [{"experiment": e["name"], "panel": p["name"], "horizon": p["horizon"], "runs": p["runs"],
               "n": registry.get_experiment("igp_ucb_gp_ts", e["name"]).panel(p["name"]).scenario().domain.n,
               **dict(zip(("cpu_s", "chunk_wall_s"),
                                                          _chunk_cpu(out / p["results"]), strict=True))}
              for e in summary["experiments"] for p in e.get("panel_results", [])]
    result = {"machine": machine(), "load_1min_start": load0, "wall_s": wall, "cpu_s": parent_cpu + chunk_cpu,
              "parent_cpu_s": parent_cpu, "chunk_cpu_s": chunk_cpu, "import_to_start_s": t0 - t_import,
              "jobs": args.jobs, "warm_cache": args.warm_cache, "panels": panels, "counts": summary["counts"],
              "claims": [(c["id"], c["verdict"]) for c in summary["claims"]], "report": summary["report"]}
    for p in panels:
        print(f"{p['experiment']}/{p['panel']}: n = {p['n']}, T = {p['horizon']}, {p['runs']} runs: "
              f"{p['cpu_s']:.0f} s CPU in its chunks")
    for cid, verdict in result["claims"]:
        print(f"  {cid}: {verdict}")
    print(f"paper 004 Figs 1–3 at T = {panels[0]['horizon'] if panels else '?'}: wall {wall:.0f} s "
          f"({wall / 60:.1f} min), CPU {result['cpu_s']:.0f} s (user+sys: this process {parent_cpu:.0f} s, its own "
          f"chunks included, + the workers' chunks {chunk_cpu:.0f} s) with --jobs {args.jobs}; load {load0:.1f} at "
          f"the start, {os.getloadavg()[0]:.1f} at the end; runtime cache "
          f"{'as the user has it' if args.warm_cache else 'empty at the start (a first run)'}")
    if args.json:
        write_json(args.json, result)


if __name__ == "__main__":
    main()
