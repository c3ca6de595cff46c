"""Benchmark: whole studies through the command line — parallel scaling, fixed costs, memory — in one run.

* **parallel**: ``verify --theorem pe_gp_ucb --runs 400 --no-report`` with ``--jobs 1`` and ``--jobs 2``,
  interleaved (1, 2, 1, 2, …) so that both see the same machine load; wall-clock min and median, and the
  speed-up of ``--jobs 2`` (target ≥ 1.8× on 2 cores). The raw stored tables of the two are compared bit for bit.
* **fixed costs**: ``boundcheck list`` (target ≤ 0.3 s); a default ``verify --theorem pe_gp_ucb`` (200 runs,
  T = 200; target ≤ 10 s on 2 cores) with the share of its wall time spent writing the reports (target ≤ 15 %).
* **memory** (``--memory``): peak resident memory of the largest process and of the whole process tree
  (sampled every 0.2 s; target < 1 GiB) of a 10 000-run × T = 400 ``pe_gp_ucb`` verify. With ``--memory full``
  the whole study runs (≈ 6 CPU-minutes); with ``--memory replicated`` (the default) a 400-run study runs with the
  batch size the 10 000-run study uses (so its simulation peak is the same), its stored chunks are replicated
  25 times under new run ids, and the summary and the reports of the resulting 10 000-run store are built and
  measured in their own process (what grows with runs × T).

* **start-up pieces** (``--startup``, alone): a default verify with every kept start-up piece and without each
  (``BOUNDCHECK_STARTUP_OFF``), rounds interleaved; prints docs/performance.md's table.

    python benchmarks/bench_study.py [--repeat 3] [--memory] [--startup] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import _common  # noqa: E402
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _tree_rss(pid: int) -> tuple[int, int]:
    """(largest single RSS, sum of RSS) over ``pid`` and its descendants, in bytes (Linux /proc)."""
    kids: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            kids.setdefault(ppid, []).append(int(d.name))
            for line in (d / "status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    rss[int(d.name)] = int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            continue
    todo, seen = [pid], []
    while todo:
        p = todo.pop()
        seen.append(p)
        todo += kids.get(p, [])
    vals = [rss.get(p, 0) for p in seen]
    return max(vals, default=0), sum(vals)


def run_cli(args: list[str], sample_memory: bool = False, env: dict | None = None) -> dict:
    """Run ``python -m boundcheck ARGS``; wall time, CPU time of the tree, peak memory when sampled."""
    t0 = time.perf_counter()
    r0 = os.times()
    proc = subprocess.Popen([sys.executable, "-m", "boundcheck", *args], env=env or ENV, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = [0, 0]
    if sample_memory:
        def sample():
            while proc.poll() is None:
                one, tot = _tree_rss(proc.pid)
                peak[0], peak[1] = max(peak[0], one), max(peak[1], tot)
                time.sleep(0.2)
        th = threading.Thread(target=sample, daemon=True)
        th.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    r1 = os.times()
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"boundcheck {' '.join(args)} failed ({proc.returncode}): {err.strip()[-500:]}")
    return {"wall": wall, "cpu": (r1.children_user - r0.children_user) + (r1.children_system - r0.children_system),
            "peak_process": peak[0], "peak_tree": peak[1], "stdout": out}


def _tables(results: Path) -> dict:
    import pandas as pd

    out = {}
    for t in ("runs", "steps"):
        df = pd.concat([pd.read_parquet(f) for f in sorted((results / "chunks").glob(f"{t}-*.parquet"))],
                       ignore_index=True)
        keys = ["run", "algorithm"] + (["t"] if "t" in df else [])
        df["algorithm"] = df["algorithm"].astype(str)
        out[t] = df.sort_values(keys, kind="stable", ignore_index=True)
    return out


def parallel(repeat: int, tmp: Path) -> dict:
    print("\n## --jobs 2 against --jobs 1: verify --theorem pe_gp_ucb --runs 400 --no-report (interleaved)")
    times = {1: [], 2: []}
    cpu = {1: [], 2: []}
    sim = {1: [], 2: []}  # the simulation phase (manifest timing.simulate_s: first task sent to last chunk stored)
    chunk_cpu = []
    for i in range(repeat):
        for j in (1, 2):
            out = tmp / f"par{j}-{i}"
            r = run_cli(["verify", "--theorem", "pe_gp_ucb", "--runs", "400", "--no-report", "--jobs", str(j),
                         "--out", str(out), "--json"])
            times[j].append(r["wall"])
            cpu[j].append(r["cpu"])
            m = json.loads((out / "results" / "manifest.json").read_text())
            sim[j].append(float(m.get("timing", {}).get("simulate_s", float("nan"))))
            if j == 1:
                chunk_cpu.append(sum(c.get("cpu_seconds", 0.0) for c in m["chunks"].values()))
            print(f"  jobs {j}: {r['wall']:6.2f} s wall, {r['cpu']:6.2f} s CPU, simulation {sim[j][-1]:5.2f} s",
                  flush=True)
    a, b = _tables(tmp / "par1-0" / "results"), _tables(tmp / "par2-0" / "results")
    identical = all(a[t][c].equals(b[t][c]) for t in a for c in a[t].columns)
    # Amdahl from the --jobs 1 CPU accounting: the chunks are the parallel part, the rest is serial
    k = int(np.argmin(cpu[1]))
    par, serial = chunk_cpu[k], cpu[1][k] - chunk_cpu[k]
    res = {"jobs1": _common.summary(times[1]), "jobs2": _common.summary(times[2]),
           "cpu_jobs1": _common.summary(cpu[1]), "cpu_jobs2": _common.summary(cpu[2]),
           "speedup_min": min(times[1]) / min(times[2]),
           "speedup_median": float(np.median(times[1]) / np.median(times[2])), "bit_identical": identical,
           "simulate_jobs1": _common.summary(sim[1]), "simulate_jobs2": _common.summary(sim[2]),
           "simulate_speedup_min": min(sim[1]) / min(sim[2]),
           "simulate_speedup_median": float(np.median(sim[1]) / np.median(sim[2])),
           "serial_cpu": serial, "parallel_cpu": par, "amdahl_2": (serial + par) / (serial + par / 2),
           "cpu_only_2": min(cpu[1]) / (min(cpu[2]) / 2)}
    print(f"  speed-up of --jobs 2: simulation phase {res['simulate_speedup_min']:.2f}× (min), "
          f"{res['simulate_speedup_median']:.2f}× (median) ({min(sim[1]):.2f} s → {min(sim[2]):.2f} s); whole command "
          f"{res['speedup_min']:.2f}× (min), {res['speedup_median']:.2f}× (median); raw tables bit-identical: "
          f"{identical}")
    print(f"  CPU: --jobs 1 {min(cpu[1]):.2f} s (chunks {par:.2f} s, the rest {serial:.2f} s serial), --jobs 2 "
          f"{min(cpu[2]):.2f} s; on two idle cores at best {res['amdahl_2']:.2f}× (Amdahl) and "
          f"{res['cpu_only_2']:.2f}× (CPU of --jobs 2 spread evenly)")
    return res


def fixed_costs(repeat: int, tmp: Path) -> dict:
    print("\n## fixed costs")
    lists = [run_cli(["list"])["wall"] for _ in range(max(3, repeat))]
    print(f"  boundcheck list: {min(lists):.3f} s (min), {np.median(lists):.3f} s (median)")
    verifies = []
    for i in range(repeat):
        out = tmp / f"default-{i}"
        r = run_cli(["verify", "--theorem", "pe_gp_ucb", "--out", str(out), "--json"])
        summary = json.loads(r["stdout"])
        timing = json.loads((out / "results" / "manifest.json").read_text()).get("timing", {})
        rep = timing.get("report_s")
        verifies.append({"wall": r["wall"], "cpu": r["cpu"], "report_s": rep,
                         "share": None if rep is None else rep / r["wall"], "verdict": summary["verdict"]})
        print(f"  default verify: {r['wall']:6.2f} s wall, {r['cpu']:6.2f} s CPU (all processes)"
              + ("" if rep is None else f", reports {rep:.2f} s = {100 * rep / r['wall']:.0f} %"), flush=True)
    walls = [v["wall"] for v in verifies]
    shares = [v["share"] for v in verifies if v["share"] is not None]
    res = {"list": _common.summary(lists), "verify": _common.summary(walls),
           "verify_cpu": _common.summary([v["cpu"] for v in verifies]),
           "report_share": _common.summary(shares) if shares else None}
    print(f"  default verify: {min(walls):.2f} s (min), {np.median(walls):.2f} s (median) wall"
          + (f"; reports {100 * min(shares):.0f} % (min) / {100 * np.median(shares):.0f} % (median)" if shares
             else ""))
    return res


#: what each start-up piece does (the pieces boundcheck.utils.switches.STARTUP_PIECES names)
PIECES = {
    "fork": "the study's worker share in children forked from the warm parent (else loky's fresh interpreters)",
    "drawing": "the report's figures split between the parent and the idle worker",
}


def startup(repeat: int, tmp: Path) -> dict:
    """A default ``verify --theorem pe_gp_ucb`` with every start-up piece, and with each piece switched off
    (``BOUNDCHECK_STARTUP_OFF``), interleaved round by round so that every variant sees the same load."""
    from boundcheck.utils.switches import STARTUP_PIECES

    print("\n## start-up pieces: default verify --theorem pe_gp_ucb, with each piece and without it (interleaved)")
    variants = ["", *STARTUP_PIECES]
    walls: dict[str, list[float]] = {v: [] for v in variants}
    cpus: dict[str, list[float]] = {v: [] for v in variants}
    for i in range(repeat):
        order = variants[i % len(variants):] + variants[:i % len(variants)]  # each variant first in turn
        for v in order:
            out = tmp / f"startup-{v or 'all'}-{i}"
            env = {**ENV, "BOUNDCHECK_STARTUP_OFF": v}
            r = run_cli(["verify", "--theorem", "pe_gp_ucb", "--out", str(out), "--json"], env=env)
            walls[v].append(r["wall"])
            cpus[v].append(r["cpu"])
        print(f"  round {i + 1}: " + ", ".join(f"{v or 'all'} {walls[v][-1]:.2f}" for v in variants), flush=True)
    base = walls[""]
    med = float(np.median(base))
    q1, q3 = np.percentile(base, [25, 75])
    rows = []
    print(f"\n  every piece on: median {med:.2f} s, min {min(base):.2f} s, interquartile range {q1:.2f}–{q3:.2f} s "
          f"({repeat} runs)")
    print("\n| piece | what it does | wall with (median) | without (median) | saving | kept (≥ 10 %) | CPU with / "
          "without |")
    print("|---|---|---|---|---|---|---|")
    for p in STARTUP_PIECES:
        without = float(np.median(walls[p]))
        saving = (without - med) / without
        cpu = (float(np.median(cpus[""])), float(np.median(cpus[p])))
        rows.append({"piece": p, "with": med, "without": without, "saving": saving, "runs": walls[p], "cpu": cpu})
        print(f"| {p} | {PIECES.get(p, '')} | {med:.2f} s | {without:.2f} s | {100 * saving:+.0f} % | "
              f"{'yes' if saving >= 0.10 else 'no'} | {cpu[0]:.2f} / {cpu[1]:.2f} s |")
    return {"all": _common.summary(base), "pieces": rows, "repeat": repeat}


REPLICATE = r"""
import json, shutil, sys, time
from pathlib import Path
import pandas as pd
from boundcheck import api
from boundcheck.study.store import ResultStore
from boundcheck.study.summary import summarize
src, dst = Path(sys.argv[1]), Path(sys.argv[2])
copies, runs, horizon = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
dst.mkdir(parents=True)
manifest = json.loads((src / "manifest.json").read_text())
chunks = sorted(int(c) for c in manifest["chunks"])
per = runs // copies
store = ResultStore(dst)  # written through the store: every replicated chunk with its sha256, verified on read
manifest.update(chunks={}, files={}, n_chunks=copies * len(chunks))
manifest["config"]["runs"] = per * copies
store.write_manifest(manifest)
k = 0
for c in range(copies):
    for ch in chunks:
        tables = {}
        for t in ("runs", "steps"):
            df = pd.read_parquet(src / "chunks" / f"{t}-{ch:05d}.parquet")
            df["run"] += c * per
            tables[t] = df
        store.write_chunk(k, tables, {"runs": [int(tables["runs"]["run"].min()), int(tables["runs"]["run"].max())]})
        k += 1
print("READY", flush=True)
sys.stdin.readline()  # the parent starts sampling this process's memory now
spec = api.build_study("pe_gp_ucb", runs=per * copies, horizon=horizon, seed=0)
inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta)
t0 = time.perf_counter()
summarize(ResultStore(dst), spec, inst, in_theory=True, reasons=[])
t1 = time.perf_counter()
api.write_report(dst, dst.parent / "report")
print(json.dumps({"summary_s": t1 - t0, "report_s": time.perf_counter() - t1}))
"""


def memory(tmp: Path, runs: int, horizon: int, mode: str) -> dict:
    if mode == "full":
        print(f"\n## memory: verify --theorem pe_gp_ucb --runs {runs} --horizon {horizon}")
        r = run_cli(["verify", "--theorem", "pe_gp_ucb", "--runs", str(runs), "--horizon", str(horizon),
                     "--out", str(tmp / "mem"), "--json"], sample_memory=True)
        res = {"mode": mode, "runs": runs, "horizon": horizon, "wall": r["wall"], "cpu": r["cpu"],
               "peak_process_mib": r["peak_process"] / 2**20, "peak_tree_mib": r["peak_tree"] / 2**20}
        print(f"  {r['wall']:.0f} s wall; peak RSS: largest process {res['peak_process_mib']:.0f} MiB, whole tree "
              f"{res['peak_tree_mib']:.0f} MiB (target < 1024 MiB)")
        return res
    from boundcheck import api
    from boundcheck.study.runner import task_runs

    spec = api.build_study("pe_gp_ucb", runs=runs, horizon=horizon)
    size = task_runs(spec, runs, 2)  # runs per worker batch (memory-bound here, as in the 400-run study)
    small = 400 if runs % 400 == 0 else runs
    print(f"\n## memory of a {runs}-run × T = {horizon} pe_gp_ucb verify (replicated): a {small}-run study with "
          f"the {runs}-run batch size ({size}), then the summary and reports of its chunks × {runs // small}")
    study = run_cli(["verify", "--theorem", "pe_gp_ucb", "--runs", str(small), "--horizon", str(horizon),
                     "--jobs", "2", "--no-report", "--out", str(tmp / "mem"), "--json"], sample_memory=True)
    print(f"  study ({small} runs, batches of {size}): peak RSS largest process {study['peak_process'] / 2**20:.0f} "
          f"MiB, whole tree {study['peak_tree'] / 2**20:.0f} MiB", flush=True)
    argv = [str(tmp / "mem" / "results"), str(tmp / "big" / "results"), str(runs // small), str(runs), str(horizon)]
    proc = subprocess.Popen([sys.executable, "-c", REPLICATE, *argv], env=ENV, cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "READY"
    base = _tree_rss(proc.pid)[0]
    proc.stdin.write("\n")
    proc.stdin.flush()
    peak = 0
    while proc.poll() is None:
        peak = max(peak, _tree_rss(proc.pid)[0])
        time.sleep(0.2)
    out, err = proc.communicate()
    if proc.returncode:
        raise RuntimeError(err[-800:])
    timing = json.loads(out.strip().splitlines()[-1])
    res = {"mode": mode, "runs": runs, "horizon": horizon, "chunk_size": size,
           "study_peak_process_mib": study["peak_process"] / 2**20, "study_peak_tree_mib": study["peak_tree"] / 2**20,
           "post_peak_mib": peak / 2**20, "post_base_mib": base / 2**20, **timing}
    res["peak_process_mib"] = max(res["study_peak_process_mib"], res["post_peak_mib"])
    res["peak_tree_mib"] = max(res["study_peak_tree_mib"], res["post_peak_mib"])
    print(f"  summary + reports of {runs} runs: peak RSS {res['post_peak_mib']:.0f} MiB "
          f"(summary {timing['summary_s']:.1f} s, reports {timing['report_s']:.1f} s); target < 1024 MiB")
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--memory", nargs="?", const="replicated", choices=["replicated", "full"],
                    help="also the 10 000-run memory study (replicated: default; full: the whole study)")
    ap.add_argument("--memory-runs", type=int, default=10_000)
    ap.add_argument("--skip", nargs="*", default=[], choices=["parallel", "fixed"])
    ap.add_argument("--startup", action="store_true",
                    help="only the start-up pieces: a default verify with and without each (--repeat rounds)")
    ap.add_argument("--json")
    args = ap.parse_args()
    info = _common.machine()
    print(f"# whole studies — {info['cpu']}, {info['cores']} cores, {info['date']}, load {info['load_1min']:.1f}")
    out: dict = {"machine": info}
    with tempfile.TemporaryDirectory(prefix="bench-study-") as tmp:
        tmp = Path(tmp)
        if args.startup:
            out["startup"] = startup(args.repeat, tmp)
            args.skip = ["parallel", "fixed"]
        if "parallel" not in args.skip:
            out["parallel"] = parallel(args.repeat, tmp)
        if "fixed" not in args.skip:
            out["fixed"] = fixed_costs(args.repeat, tmp)
        if args.memory:
            out["memory"] = memory(tmp, args.memory_runs, 400, args.memory)
    _common.write_json(args.json, out)


if __name__ == "__main__":
    main()
