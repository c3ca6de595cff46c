"""Srinivas, Krause, Kakade, Seeger (2010), *Gaussian Process Optimization in the Bandit Setting: No Regret
and Experimental Design* — GP-UCB on a finite domain (Theorem 1) and on a compact box (Theorem 2).

This module is the paper's manifest (what it defines, the module of each part): it is what the
``boundcheck.papers`` entry point names, and it imports nothing heavy."""

from __future__ import annotations

from pathlib import Path

from theory.plugins import Paper, parts_in

PAPER = Paper(
    id="srinivas", title="Gaussian Process Optimization in the Bandit Setting: No Regret and Experimental Design",
    source="Srinivas, Krause, Kakade, Seeger (2010), ICML, arXiv 0912.3995", file="",
    theorems=("gp_ucb", "gp_ucb_compact", "gp_ucb_rkhs_compact"),
    policies=(),
    scenarios=("gp_sample_matern", "gp_sample_se", "gp_sample_se_box", "gp_sample_se_box2",
               "rkhs_se_box_bounded"),
    parts=parts_in(__name__, "family", "scenarios", "defects", theory="theory.srinivas"),
    power_dir=Path(__file__).parent / "power",
    order=1,
    reference=("Niranjan Srinivas, Andreas Krause, Sham M. Kakade, Matthias Seeger (2010). Gaussian Process "
               "Optimization in the Bandit Setting: No Regret and Experimental Design. ICML 2010, "
               "arXiv:0912.3995"),
)
