"""Paper 002: Sandberg, Åkerblom, Chehreghani (2025), *Bayesian Analysis of Combinatorial Gaussian Process
Bandits* — combinatorial GP-UCB, GP-BUCB and GP-TS (Theorem 3.1, finite and infinite cases), super-arm
action sets, road networks and the §4 experiments.

This module is the paper's manifest (what it defines, the module of each part): it is what the
``boundcheck.papers`` entry point names, and it imports nothing heavy."""

from __future__ import annotations

from pathlib import Path

from theory.plugins import Paper, parts_in

PAPER = Paper(
    id="combinatorial", title="Bayesian Analysis of Combinatorial Gaussian Process Bandits",
    source="Sandberg, Åkerblom, Chehreghani (2025), ICLR, arXiv 2312.12676, §4", file="002_a9367e40936ada03.txt",
    theorems=("comb_gp_ucb", "comb_gp_bucb", "comb_gp_ts", "comb_gp_ucb_infinite", "comb_gp_bucb_infinite",
              "comb_gp_ts_infinite"),
    notes=("The paper prints no numbers: every claim is an ordering read off its cumulative-regret plots (mean ± "
           "one standard error over 5 runs per route).",
           "The paper's methods run Algorithm 2 (rectified indices, Dijkstra) with ω = 1 BUCB and per-edge TS: "
           "outside the theorems. Each panel also checks Theorem 3.1's GP-UCB (exact oracle) on the same route.",
           "The real road networks (LuST, MoST, the Luxembourg DEM) cannot be used offline: a synthetic network "
           "with the paper's energy model and kernel stands in (boundcheck/papers/combinatorial/catalogue.py)."),
    policies=("comb_gp_ucb", "comb_gp_bucb", "comb_gp_ts", "comb_gp_ts_independent", "comb_bi_ucb", "comb_bi_bucb",
              "comb_bi_ts", "comb_random", "comb_gp_ucb_alg2", "comb_gp_bucb_alg2", "comb_gp_bucb_half_alg2",
              "comb_gp_ucb_half_alg2", "comb_gp_ts_alg2", "comb_bi_ucb_alg2", "comb_bi_bucb_alg2", "comb_bi_ts_alg2"),
    scenarios=("comb_topk", "comb_topk_k1", "comb_topk_k2", "comb_topk_k4", "comb_topk_k8", "comb_topk_n100",
               "comb_topk_smooth", "comb_grid", "comb_grid_open", "comb_rff", "comb_topk_noise", "comb_rff_noise",
               "comb_topk_rough", "comb_road_1", "comb_road_2", "comb_road_3", "comb_road_4"),
    parts=parts_in(__name__, "family", "policies", "scenarios", "defects", "experiments", "figures",
                   theory="theory.combinatorial"),
    power_dir=Path(__file__).parent / "power",
    order=5,
    reference=("Jack Sandberg, Niklas Åkerblom, Morteza Haghir Chehreghani (2025). Bayesian Analysis of "
               "Combinatorial Gaussian Process Bandits. ICLR 2025, arXiv:2312.12676"),
)
