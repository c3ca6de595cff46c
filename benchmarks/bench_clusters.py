"""Benchmark: the same study on loky and on a dask ``LocalCluster`` with the same number of workers.

``verify --theorem pe_gp_ucb --runs 400 --no-report --jobs W`` (default W = 2) through the command line, three
ways, interleaved (loky, dask, dask-warm, loky, …) so that all see the same machine load:

* **loky**: the default backend; the parent simulates beside W − 1 loky workers (W simulating processes).
* **dask**: ``--backend dask`` without a scheduler: the command starts a ``LocalCluster`` of W single-threaded
  worker processes and closes it again (what a user without a cluster gets); the parent only submits.
* **dask, running cluster**: ``--backend dask --scheduler ADDR`` on a ``LocalCluster`` of W single-threaded
  worker processes (configured as the command's own: ``runner.DASK_WORKER_CONFIG``) started by this script
  once, and warmed by a small study (not timed) before the first measured one (what a user of a real cluster
  gets: its workers are up and have imported the engine).

Each gets the command's wall time and its simulation phase (the manifest's ``timing.simulate_s``: first task sent
to last chunk stored). The **work** of a study is the CPU time of its tasks' threads (the manifest's
``cpu_seconds``, summed): the backends must do the same work within 10 % (the same tasks, in other processes: a
fresh worker's first task also pays the imports a loky worker paid before it, while the parent set up), and
their stored runs and steps tables must be bit-identical; both are checked and reported.

    python benchmarks/bench_clusters.py [--runs 400] [--workers 2] [--repeat 2] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import _common  # noqa: E402
import numpy as np  # noqa: E402
from bench_study import _tables, run_cli  # noqa: E402

WORK_TOLERANCE = 0.10  # the backends' chunk CPU may differ by this fraction (same tasks, other processes)
MODES = ("loky", "dask", "dask_running")


def _study(mode: str, out: Path, runs: int, workers: int, scheduler: str | None, *extra: str) -> dict:
    args = ["verify", "--theorem", "pe_gp_ucb", "--runs", str(runs), "--no-report", "--jobs", str(workers),
            "--out", str(out), "--json", *extra]
    if mode != "loky":
        args += ["--backend", "dask"] + (["--scheduler", scheduler] if mode == "dask_running" else [])
    r = run_cli(args)
    m = json.loads((out / "results" / "manifest.json").read_text())
    return {"wall": r["wall"], "simulate": float(m.get("timing", {}).get("simulate_s", float("nan"))),
            "work": sum(float(c.get("cpu_seconds", 0.0)) for c in m["chunks"].values())}


def compare(runs: int, workers: int, repeat: int, tmp: Path) -> dict:
    import dask
    from dask.distributed import LocalCluster

    from boundcheck.study.runner import DASK_WORKER_CONFIG

    print(f"\n## loky against dask: verify --theorem pe_gp_ucb --runs {runs} --no-report --jobs {workers} "
          "(interleaved)")
    rows: dict[str, list[dict]] = {m: [] for m in MODES}
    with dask.config.set(DASK_WORKER_CONFIG):  # the workers boundcheck's own LocalCluster starts
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
    with cluster:
        # a running cluster's workers have imported the engine before (a small study, not timed): its first
        # measured study is then what a user of a real cluster sees after the first one
        _study("dask_running", tmp / "warm-up", 25 * workers, workers, cluster.scheduler_address, "--horizon", "20")
        for i in range(repeat):
            for mode in MODES:
                r = _study(mode, tmp / f"{mode}-{i}", runs, workers, cluster.scheduler_address)
                rows[mode].append(r)
                print(f"  {mode:13s} {r['wall']:6.2f} s wall, simulation {r['simulate']:5.2f} s, work (chunk CPU) "
                      f"{r['work']:5.2f} s", flush=True)
        n_workers = len(cluster.scheduler_info["workers"])
    ref = _tables(tmp / "loky-0" / "results")
    identical = {}
    for mode in MODES[1:]:
        other = _tables(tmp / f"{mode}-0" / "results")
        identical[mode] = all(ref[t][c].equals(other[t][c]) for t in ref for c in ref[t].columns)
    res: dict = {"runs": runs, "workers": workers, "cluster_workers": n_workers, "bit_identical": identical}
    for mode in MODES:
        rs = rows[mode]
        res[mode] = {"wall": _common.summary([r["wall"] for r in rs]),
                     "simulate": _common.summary([r["simulate"] for r in rs]),
                     "work": _common.summary([r["work"] for r in rs])}
    base = res["loky"]["work"]["median"]
    for mode in MODES[1:]:
        d = res[mode]
        d["work_ratio"] = d["work"]["median"] / base
        d["equal_work"] = abs(d["work_ratio"] - 1.0) <= WORK_TOLERANCE
        d["wall_ratio"] = d["wall"]["min"] / res["loky"]["wall"]["min"]
        d["simulate_ratio"] = d["simulate"]["min"] / res["loky"]["simulate"]["min"]
        print(f"  {mode}: wall {d['wall_ratio']:.2f}× loky's, simulation {d['simulate_ratio']:.2f}× loky's (min); "
              f"work {d['work_ratio']:.2f}× loky's (equal within {100 * WORK_TOLERANCE:.0f} %: {d['equal_work']}); "
              f"tables bit-identical: {identical[mode]}")
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=400)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--json")
    args = ap.parse_args()
    info = _common.machine()
    print(f"# clusters — {info['cpu']}, {info['cores']} cores, {info['date']}, load {info['load_1min']:.1f}")
    try:
        import dask.distributed  # noqa: F401 - the optional extra
    except ImportError:
        print("  skipped: dask.distributed is not installed (pip install 'boundcheck[dask]')")
        _common.write_json(args.json, {"machine": info, "clusters": {"skipped": "dask.distributed not installed"}})
        return
    with tempfile.TemporaryDirectory(prefix="bench-clusters-") as tmp:
        out = {"machine": info, "clusters": compare(args.runs, args.workers, args.repeat, Path(tmp))}
    out["machine"]["load_1min_after"] = float(np.round(_common.machine()["load_1min"], 2))
    _common.write_json(args.json, out)


if __name__ == "__main__":
    main()
