"""Run every performance benchmark and regenerate the measured part of docs/performance.md (``make bench``).

Each benchmark writes JSON; this script renders one markdown section from them and replaces the text between
``<!-- bench:start -->`` and ``<!-- bench:end -->`` in docs/performance.md (with the machine, its load and the
date); the rest of that page is written by hand.

    python benchmarks/run_all.py [--quick] [--no-memory] [--doc docs/performance.md]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
START, END = "<!-- bench:start -->", "<!-- bench:end -->"


def run(script: str, out: Path, *args: str) -> dict:
    cmd = [sys.executable, str(HERE / script), "--json", str(out), *args]
    print("$", " ".join(cmd[1:]), flush=True)
    subprocess.run(cmd, check=True)
    return json.loads(out.read_text())


def render(post: dict, kern: dict, study: dict, clusters: dict | None = None, long: dict | None = None,
           botorch: dict | None = None) -> str:
    m = post["machine"]
    L = [f"Measured by `make bench` on {m['date']}: {m['cpu']}, {m['cores']} cores shared with other users "
         f"(1-min load {m['load_1min']:.1f}), Python {m['python']}, numpy {m['numpy']}, BLAS on one thread on "
         "every side. Single-process timings are CPU time (min of repeats); ratios are taken in the same run.", ""]
    L += ["**The engine against references written as a careful user would** (`benchmarks/bench_posterior.py`; "
          "reference ÷ engine per run, engine batched over "
          f"{post['rows'][0]['runs']} runs; every side chose the same points at every step, asserted):", ""]
    ns = sorted({r["n"] for r in post["rows"]})
    Ts = sorted({r["T"] for r in post["rows"]})
    L.append("| workload | reference | " + " | ".join(f"n = {n}" for n in ns) + " |")
    L.append("|---|---|" + "---|" * len(ns))
    for eps, refs in ((0.0, ("refit", "sherman_morrison")), (0.01, ("refit",))):
        for ref in refs:
            name = {"refit": "refit, one triangular solve", "sherman_morrison": "Sherman–Morrison features"}[ref]
            for T in Ts:
                cells = []
                for n in ns:
                    r = next((r for r in post["rows"] if r["eps"] == eps and r["n"] == n and r["T"] == T), None)
                    cells.append("—" if r is None or f"ratio_{ref}" not in r else
                                 f"{r[f'ratio_{ref}']['batched']:.1f}× ({r['representation']})")
                wl = "GP-UCB" if eps == 0 else f"TV-GP-UCB ε={eps}"
                L.append(f"| {wl}, T = {T} | {name} | " + " | ".join(cells) + " |")
    L.append("")
    L += ["**The update kernel at the machine's limit** (`benchmarks/bench_kernels.py`; condition + propagate, "
          "grid state, one core):", "",
          "| n | kernel | µs / run-step | GFLOP/s | % of matmul | × bandwidth bound |", "|---|---|---|---|---|---|"]
    for r in kern["condition"]:
        L.append(f"| {r['n']} | {r['kernel']} | {r['us_per_run_step']:.1f} | {r['gflops']:.2f} | "
                 f"{r['pct_matmul']:.0f} % | {r['x_bw_bound']:.2f}× |")
    yard = kern["yardsticks"]
    eng = [r for r in kern["condition"] if r["kernel"].startswith("engine")]
    L.append("")
    L.append("Folding rank-one rows every `block` observations reads and writes the n×n state once per block, so "
             "the step is compute-bound and the matmul criterion applies: " + ", ".join(
                 f"{r['pct_matmul']:.0f} % of one core's matmul at n = {r['n']}" for r in eng)
             + " (target ≥ 30 %); the first engine's kernel ran at 1–2 %.")
    L.append("")
    L.append("Yardsticks in the same run: " + "; ".join(
        f"n = {n}: matmul {v['matmul_gflops']:.0f} GFLOP/s, stream {v['stream_gbs']:.0f} GB/s"
        for n, v in yard.items()) + ". Sliding window (data space): " + ", ".join(
        f"n = {r['n']}, w = {r['w']}: {r['us_per_run_step']:.0f} µs" for r in kern["window"]) +
        " per run-step (O(n·w)).")
    L.append("")
    L.append("**Whole studies** (`benchmarks/bench_study.py`, wall clock on the shared machine):")
    L.append("")
    if "parallel" in study:
        p = study["parallel"]
        sim = (f"simulation phase {p['simulate_speedup_min']:.2f}× (min), {p['simulate_speedup_median']:.2f}× "
               f"(median) ({p['simulate_jobs1']['min']:.2f} s → {p['simulate_jobs2']['min']:.2f} s); whole command "
               if "simulate_speedup_min" in p else "")
        L.append(f"* `--jobs 2` vs `--jobs 1`, 400 runs of `pe_gp_ucb`: {sim}{p['speedup_min']:.2f}× (min), "
                 f"{p['speedup_median']:.2f}× (median) ({p['jobs1']['min']:.1f} s → {p['jobs2']['min']:.1f} s); "
                 f"raw tables bit-identical: {p['bit_identical']}."
                 + (f" CPU: {p['cpu_jobs1']['min']:.1f} s (`--jobs 1`: {p['parallel_cpu']:.1f} s in chunks, "
                    f"{p['serial_cpu']:.1f} s serial: imports, scenario, γ, summary) against "
                    f"{p['cpu_jobs2']['min']:.1f} s (`--jobs 2`: the parent simulates beside one worker, forked from "
                    f"it on Linux); on two idle cores Amdahl allows {p['amdahl_2']:.2f}× for the whole "
                    f"command." if "amdahl_2" in p else ""))
    if "fixed" in study:
        f = study["fixed"]
        L.append(f"* `boundcheck list`: {f['list']['min']:.2f} s; default `verify --theorem pe_gp_ucb` (200 runs, "
                 f"T = 200): {f['verify']['min']:.1f} s wall (min), {f['verify_cpu']['min']:.1f} s CPU (all processes; "
                 f"spread evenly over {m['cores']} idle cores, no schedule of that work ends before "
                 f"{f['verify_cpu']['min'] / m['cores']:.1f} s)"
                 + (f"; reports {100 * f['report_share']['min']:.0f} % of it" if f.get("report_share") else "")
                 + ".")
    if "memory" in study:
        mm = study["memory"]
        if mm["mode"] == "full":
            L.append(f"* {mm['runs']} runs × T = {mm['horizon']} `pe_gp_ucb`: peak RSS {mm['peak_process_mib']:.0f} "
                     f"MiB (largest process), {mm['peak_tree_mib']:.0f} MiB (all processes).")
        else:
            L.append(f"* {mm['runs']} runs × T = {mm['horizon']} `pe_gp_ucb` (replicated chunks): simulation peak "
                     f"{mm['study_peak_process_mib']:.0f} MiB per process, {mm['study_peak_tree_mib']:.0f} MiB for "
                     f"the parent and its worker (batches of {mm['chunk_size']} runs); summary and reports of the "
                     f"{mm['runs']} runs: {mm['post_peak_mib']:.0f} MiB peak.")
    if clusters:
        L.append(_clusters_line(clusters["clusters"]))
    if botorch:
        L.append(_botorch_line(botorch))
    if long:
        L += ["", "**The papers' full workloads** (wall clock of the whole command with `--jobs 2`):", ""]
        L += _long_lines(long)
    return "\n".join(L)


def _long_lines(long: dict) -> list[str]:
    """Paper 004's Figs 1–3 at T = 30 000 (``bench_long_horizon.py``) and paper 001's Table 3 (``bench_et.py
    --table3``), with their targets."""
    L = []
    p = long.get("p004")
    if p:
        T = p["panels"][0]["horizon"] if p.get("panels") else "?"
        per = ", ".join(f"{q['experiment']}/{q['panel']} (n = {q['n']}) {q['cpu_s']:.0f} s"
                        for q in p["panels"] if q["horizon"] == T)
        cache = "warm runtime cache" if p.get("warm_cache") else "empty runtime cache: a first run, γ brackets computed"
        L.append(f"* Paper 004, `reproduce igp_ucb_gp_ts` (Figs 1–3 at T = {T}, 25 trials, six algorithms; Fig. 4 at "
                 f"T = 200; report included): **{p['wall_s']:.0f} s wall ({p['wall_s'] / 60:.1f} min)**, "
                 f"{p['cpu_s']:.0f} s CPU ({cache}; load {p['load_1min_start']:.1f} at the start); target ≤ 10 min: "
                 f"{'met' if p['wall_s'] <= 600 else 'not met'}. CPU per panel: {per}.")
    c = long.get("table2_continuous")
    if c:
        rows = "; ".join(f"{r['label']}: {r['ours']:.4g} ± {r['se']:.2g} (paper {r['paper']:g})"
                         for r in c["continuous"]["rows"])
        L.append(f"* Paper 001, `reproduce et_gp_ucb --experiment table2_continuous` (Table 2 on [0,1]², 50 runs, "
                 f"T = 400, three ε; `benchmarks/bench_table2_continuous.py`): **{c['continuous']['wall_s']:.0f} s "
                 f"wall**, {c['continuous']['cpu_s']:.0f} s CPU, {c['ratio']:.2f}× the 59 × 59 grid form "
                 f"({c['grid59']['wall_s']:.0f} s) in the same run; target ≤ 15 min: "
                 f"{'met' if c['met'] else 'not met'} (load {c['load_1min_start']:.1f}). {rows}.")
    t = long.get("table3")
    if t:
        taus = "; ".join(f"{k}: E[τ] = {v['mean']:.2f} ± {v['se']:.2f}" for k, v in t["taus"].items())
        L.append(f"* Paper 001, `reproduce et_gp_ucb --experiment table3` ({t['runs']} runs per ε, T = 200): "
                 f"**{t['wall_s']:.1f} s wall**, {t['cpu_s']:.1f} s CPU; against the {t['baseline_s'] // 60} min "
                 f"{t['baseline_s'] % 60} s baseline: {t['speedup']:.1f}× faster; target ≤ 180 s: "
                 f"{'met' if t['projected_wall_s'] <= 180 else 'not met'} ({taus}).")
    return L


def _botorch_line(b: dict) -> str:
    """The batched BoTorch adapter against the built-in GP-UCB (``benchmarks/bench_botorch.py``)."""
    if "skipped" in b:
        return f"* BoTorch adapter (`benchmarks/bench_botorch.py`): skipped ({b['skipped']})."
    w = {k: min(r["wall_s"] for r in v) for k, v in b["rows"].items()}
    return (f"* `verify --theorem gp_ucb`, {b['runs']} runs × T = {b['horizon']}, the batched BoTorch UCB adapter "
            f"(examples/botorch_ucb_batched.py) against the built-in GP-UCB (`benchmarks/bench_botorch.py`): "
            f"{w['batched']:.1f} s against {w['builtin']:.1f} s wall, **{b['ratio']:.1f}×** (target ≤ 3×: "
            f"{'met' if b['ratio'] <= b['target'] else 'not met'}; load {b['load_1min_start']:.1f}).")


def _clusters_line(c: dict) -> str:
    """The loky-against-dask row (``benchmarks/bench_clusters.py``)."""
    if "skipped" in c:
        return f"* loky against dask (`benchmarks/bench_clusters.py`): skipped ({c['skipped']})."
    def one(mode: str, what: str) -> str:
        d = c[mode]
        return (f"{what}: {d['wall']['min']:.1f} s wall ({d['wall_ratio']:.2f}× loky's), simulation "
                f"{d['simulate']['min']:.2f} s ({d['simulate_ratio']:.2f}×), work {d['work_ratio']:.2f}× loky's "
                f"(equal within 10 %: {d['equal_work']}), tables bit-identical: {c['bit_identical'][mode]}")
    lo = c["loky"]
    return (f"* loky against dask (`benchmarks/bench_clusters.py`), {c['runs']} runs of `pe_gp_ucb`, {c['workers']} "
            f"workers each: loky {lo['wall']['min']:.1f} s wall, simulation {lo['simulate']['min']:.2f} s, work "
            f"(the tasks' CPU) {lo['work']['median']:.2f} s; " + one("dask", "a `LocalCluster` the command starts")
            + "; " + one("dask_running", "a running `LocalCluster` (`--scheduler`)") + ".")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-memory", action="store_true", help="skip the 10 000-run memory study")
    ap.add_argument("--memory", default="replicated", choices=["replicated", "full"])
    ap.add_argument("--doc", "--readme", dest="doc", default=str(HERE.parent / "docs" / "performance.md"),
                    help="the markdown file whose bench:start/bench:end section is rewritten (--readme: old name)")
    ap.add_argument("--from-json", metavar="DIR", help="render posterior.json, kernels.json, study.json (and "
                    "clusters.json, long.json, table3.json, botorch.json, when there) from DIR (written by the "
                    "benchmarks' --json) instead of running them")
    ap.add_argument("--keep", metavar="DIR", help="write the benchmarks' JSON files to DIR (kept; render them again "
                    "with --from-json DIR) instead of a temporary folder")
    ap.add_argument("--no-clusters", action="store_true", help="skip loky against dask (bench_clusters.py)")
    ap.add_argument("--no-botorch", action="store_true", help="skip the batched BoTorch adapter against the built-in "
                    "GP-UCB (bench_botorch.py)")
    ap.add_argument("--no-long", action="store_true", help="skip the papers' full workloads: paper 004's Figs 1–3 at "
                    "T = 30 000 "
                    "(benchmarks/bench_long_horizon.py: ≈ 8 min of 2 idle cores; --quick runs it at T = 2000), "
                    "paper 001's Table 3 (bench_et.py --table3: ≈ 2 min; --quick: 3000 runs) and Table 2 on the "
                    "continuum against its 59 × 59 grid form (bench_table2_continuous.py: ≈ 20 min; --quick: 5 runs)")
    args = ap.parse_args()
    if args.from_json:
        d = Path(args.from_json)
        post, kern, study = (json.loads((d / f"{k}.json").read_text()) for k in ("posterior", "kernels", "study"))
        clusters = json.loads((d / "clusters.json").read_text()) if (d / "clusters.json").exists() else None
        long = {k: json.loads((d / f).read_text()) for k, f in (("p004", "long.json"), ("table3", "table3.json"),
                                                                ("table2_continuous", "table2_continuous.json"))
                if (d / f).exists()}
        botorch = json.loads((d / "botorch.json").read_text()) if (d / "botorch.json").exists() else None
        return _write(args.doc, render(post, kern, study, clusters, long or None, botorch))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(args.keep) if args.keep else Path(tmp)
        tmp.mkdir(parents=True, exist_ok=True)
        quick = ["--quick"] if args.quick else []
        post = run("bench_posterior.py", tmp / "posterior.json", *quick)
        kern = run("bench_kernels.py", tmp / "kernels.json", *quick)
        study_args = ["--repeat", "2" if args.quick else "3"] + ([] if args.no_memory else ["--memory", args.memory])
        study = run("bench_study.py", tmp / "study.json", *study_args)
        clusters = None if args.no_clusters else run("bench_clusters.py", tmp / "clusters.json",
                                                     "--repeat", "1" if args.quick else "2")
        botorch = None if args.no_botorch else run("bench_botorch.py", tmp / "botorch.json", *quick)
        long = None
        if not args.no_long:  # each prints its own summary line (wall, user+sys CPU, load)
            long = {"p004": run("bench_long_horizon.py", tmp / "long.json",
                                *(["--horizon", "2000"] if args.quick else []))}
            # paper 001's Table 3 (30 000 runs per ε) against its 21 min 25 s before runs stopped at their event
            cmd = [sys.executable, str(HERE / "bench_et.py"), "--table3", *(["3000"] if args.quick else []),
                   "--json", str(tmp / "table3.json")]
            print("$", " ".join(cmd[1:]), flush=True)
            subprocess.run(cmd, check=True)
            long["table3"] = json.loads((tmp / "table3.json").read_text())
            # paper 001's Table 2 on the continuum against its 59 × 59 grid form
            long["table2_continuous"] = run("bench_table2_continuous.py", tmp / "table2_continuous.json", *quick)
    _write(args.doc, render(post, kern, study, clusters, long, botorch))


def _write(doc_path: str, section: str) -> None:
    doc = Path(doc_path)
    text = doc.read_text() if doc.exists() else "# Performance\n"
    if START in text and END in text:
        head, rest = text.split(START, 1)
        _, tail = rest.split(END, 1)
        text = f"{head}{START}\n{section}\n{END}{tail}"
    else:
        text += f"\n## Measured by `make bench`\n\n{START}\n{section}\n{END}\n"
    doc.write_text(text)
    print(f"\nupdated {doc}")
    print(section)


if __name__ == "__main__":
    main()
