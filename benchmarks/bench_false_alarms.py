"""False alarms of verify on correct theorems and correct code.

Part 1, real verifies: every theorem, on every scenario it lists, over many seeds at small settings, run
exactly as ``boundcheck verify --algorithm`` runs them (one false-alarm budget). The checked code is the
theorem's algorithm behind a factory of the benchmark's own, so that boundcheck treats it as user code: a shadow
of the theorem's algorithm runs beside it and the conformance claim (boundcheck.claims.conformance; a p-value in
the budget for GP-TS) is judged with the others; the copy keeps the random stream of a plain verify, so every
other claim sees the same runs. ``--plain`` runs the theorem's algorithm itself (conformance is then a sanity
identity). Prints the fraction of verifies that call any claim violated and its Clopper–Pearson upper end
(one-sided 95 %), which must not exceed the budget.

Part 2, the verdict layer alone: each theorem's claim table judged on synthetic runs in which every stochastic
claim is true and *at its boundary* (failure rate = level, mean = bound, exact N(0,1) samples), the worst case
for false alarms; 10⁴ verdicts per theorem.

    python benchmarks/bench_false_alarms.py                  # 600 verifies + 5×10⁴ null verdicts
    python benchmarks/bench_false_alarms.py --seeds 20 --null 2000   # a quick look
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import theory  # noqa: E402
from boundcheck import api  # noqa: E402
from boundcheck.claims.budget import HolmBudget  # noqa: E402
from boundcheck.claims.families import family_for  # noqa: E402
from boundcheck.claims.table import judge, level_of  # noqa: E402
from boundcheck.policies import PolicySpec  # noqa: E402

THEOREMS = ("pe_gp_ucb", "gp_ucb", "igp_ucb_confidence", "igp_ucb", "gp_ts")


def upper95(k: int, n: int) -> float:
    """One-sided 95 % Clopper–Pearson upper end for k of n."""
    return 1.0 if k == n else float(stats.beta.ppf(0.95, k + 1, n - k))


def _make(factory, kwargs: dict):
    """Builds the theorem's algorithm (a module-level factory of the benchmark's own: not the theorem's spec)."""
    return factory(**kwargs)


def checked_copy(algorithm: str) -> PolicySpec:
    """The theorem's algorithm as user code: the same class, built by a factory that is not the theorem's."""
    import functools

    own = api.resolve_policy(algorithm)
    return PolicySpec(own.name, functools.partial(_make, own.factory, dict(own.kwargs)), {}, own.label)


def real_verifies(seeds: int, runs: int, horizon: int, budget: float, jobs: int,
                  plain: bool = False) -> tuple[int, int]:
    total = hits = 0
    for th_id in THEOREMS:
        th = theory.get(th_id)
        t0, th_hits = time.perf_counter(), 0
        for seed in range(seeds):
            sc = th.scenarios[seed % len(th.scenarios)]
            who = {"policies": [th.algorithm]} if plain else {"policies": [], "algorithm": checked_copy(th.algorithm)}
            s = api.verify(th, sc, runs=runs, horizon=horizon, seed=1000 + seed, **who,
                           jobs=jobs, report=False, false_alarm=budget)
            bad = [c["id"] for c in s["claims"] if c["verdict"] == "violated"]
            if bad:
                th_hits += 1
                print(f"  {th_id} on {sc}, seed {1000 + seed}: violated {bad}")
        total, hits = total + seeds, hits + th_hits
        print(f"{th_id:20s} {th_hits}/{seeds} verifies with a violated claim  ({time.perf_counter() - t0:.0f} s)")
    return hits, total


def null_verdicts(reps: int, budget: float, runs: int, rng: np.random.Generator) -> dict[str, tuple[int, int]]:
    out = {}
    for th_id in THEOREMS:
        fam = family_for(theory.get(th_id))
        specs = [s for s in fam.claims if s.kind in ("probability", "expectation", "calibration")]
        hits = 0
        for _ in range(reps):
            cols = {}
            for s in specs:
                if s.kind == "probability":
                    cols[f"fail_{s.id}"] = rng.random(runs) < level_of(s.claim.alpha, 0.1)
                elif s.kind == "expectation":
                    cols[f"value_{s.id}"] = rng.normal(level_of(s.claim.expectation_bound, 0.1), 1.0, runs)
            samples = {col: rng.standard_normal((runs, 20)) for s in specs for col in s.samples}
            res = judge(specs, pd.DataFrame(cols), samples.__getitem__, HolmBudget(budget), 0.1)
            hits += any(r.verdict == "violated" for r in res)
        out[th_id] = (hits, reps)
        print(f"{th_id:20s} {hits}/{reps} null verdicts with a violated claim ({len(specs)} stochastic claims)")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=120, help="verifies per theorem (default 120: 600 in all)")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--horizon", type=int, default=30)
    ap.add_argument("--budget", type=float, default=0.01)
    ap.add_argument("--null", type=int, default=10_000, help="null verdicts per theorem")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--plain", action="store_true",
                    help="verify the theorem's algorithm itself (no shadow: conformance is a sanity identity)")
    args = ap.parse_args()
    print(f"# {time.strftime('%Y-%m-%d')}, {platform.node()}, Python {platform.python_version()}; "
          f"false-alarm budget {args.budget}")
    print(f"## real verifies: {args.seeds} seeds × {len(THEOREMS)} theorems, {args.runs} runs, T = {args.horizon}")
    hits, total = real_verifies(args.seeds, args.runs, args.horizon, args.budget, args.jobs, args.plain)
    up = upper95(hits, total)
    print(f"REAL: {hits}/{total} = {hits / total:.4f} verifies with any violated claim; "
          f"Clopper–Pearson 95 % upper end {up:.4f} (budget {args.budget})")
    print(f"## the verdict layer at the null boundary: {args.null} verdicts per theorem, {args.runs} runs")
    nulls = null_verdicts(args.null, args.budget, args.runs, np.random.default_rng(2024))
    nh, nt = sum(h for h, _ in nulls.values()), sum(t for _, t in nulls.values())
    nup = upper95(nh, nt)
    nlo = 0.0 if nh == 0 else float(stats.beta.ppf(0.05, nh, nt - nh + 1))
    print(f"NULL: {nh}/{nt} = {nh / nt:.4f}; Clopper–Pearson 95 % interval [{nlo:.4f}, {nup:.4f}] "
          f"(budget {args.budget}; at the boundary the rate may come close to the budget, so the check is that "
          "the lower end stays below it)")
    ok = up <= args.budget and nlo <= args.budget
    print("ACCEPTANCE (real verifies: upper end ≤ budget; null boundary: lower end ≤ budget):",
          "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
