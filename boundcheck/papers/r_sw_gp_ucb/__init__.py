"""Paper 003: Zhou & Shroff (2021), *No-Regret Algorithms for Time-Varying Bayesian Optimization* — R-GP-UCB
and SW-GP-UCB under a variation budget (Theorems 1–2).

This module is the paper's manifest (what it defines, the module of each part): it is what the
``boundcheck.papers`` entry point names, and it imports nothing heavy."""

from __future__ import annotations

from pathlib import Path

from theory.plugins import Paper, parts_in

PAPER = Paper(
    id="r_sw_gp_ucb", title="No-Regret Algorithms for Time-Varying Bayesian Optimization",
    source="Zhou & Shroff (2021), arXiv 2102.06296", file="003_002b80fa6e2b3d29.txt",
    theorems=("r_gp_ucb", "sw_gp_ucb", "r_gp_ucb_literal", "sw_gp_ucb_literal", "r_gp_ucb_compact",
              "sw_gp_ucb_compact"),
    policies=("r_gp_ucb_zs", "r_gp_ucb_zs_pseudocode", "sw_gp_ucb", "sw_gp_ucb_pseudocode", "r_gp_ucb_box",
              "sw_gp_ucb_box"),
    scenarios=("vb_rotation", "vb_rotation_p0", "vb_rotation_p1", "vb_rotation_p25", "vb_switch_p5", "vb_switch_p25",
               "vb_walk", "vb_matern", "vb_grid", "vb_rademacher", "vb_small_noise", "vb_lambda_h", "vb_budget_exceeds",
               "vb_noise_exceeds", "vb_box_switch", "vb_box_rotation"),
    parts=parts_in(__name__, "family", "policies", "scenarios", "defects", theory="theory.r_sw_gp_ucb"),
    power_dir=Path(__file__).parent / "power",
    order=3,
    reference=("Xingyu Zhou, Ness Shroff (2021). No-Regret Algorithms for Time-Varying Bayesian Optimization. "
               "arXiv preprint, arXiv:2102.06296"),
)
