"""Paper 004: Chowdhury & Gopalan (2017), *On Kernelized Multi-armed Bandits* — IGP-UCB and GP-TS
(Theorems 2–4) and the §6 experiments.

This module is the paper's manifest (what it defines, the module of each part): it is what the
``boundcheck.papers`` entry point names, and it imports nothing heavy."""

from __future__ import annotations

from pathlib import Path

from theory.plugins import Paper, parts_in

PAPER = Paper(
    id="igp_ucb_gp_ts", title="On Kernelized Multi-armed Bandits",
    source="Chowdhury & Gopalan (2017), ICML, arXiv 1704.00445, §6", file="004_f7ea69f20c9ee7c4.txt",
    theorems=("igp_ucb_confidence", "igp_ucb", "gp_ts", "igp_ucb_compact", "gp_ts_compact"),
    notes=("The paper prints no numbers: every claim is an ordering read off its cumulative-regret plots (mean ± "
           "one standard deviation).",
           "All panels run in the paper's replication mode (λ = R², rate γ_t, the paper's B): outside Theorems 2–4, "
           "as the paper's own experiments are (ledger CG3).",
           "GP-EI and GP-PI have no formulas in the paper: boundcheck's (incumbent = best posterior mean at a "
           "queried point, ξ = 0.01) are a guess (correction CG18).",
           "Random search is not in the paper: it is run as boundcheck's reference curve."),
    policies=("gp_ts_box",),
    scenarios=("hartmann3", "hartmann3_replication", "rkhs_norm_exceeds", "rkhs_paper", "rkhs_paper_matern",
               "rkhs_paper_matern_replication", "rkhs_paper_replication", "rkhs_se_box", "rkhs_se_box5",
               "rkhs_se_box_ts", "rosenbrock", "rosenbrock_replication",
               "sensors_004", "sensors_004_replication", "sensors_004_light_replication"),
    parts=parts_in(__name__, "family", "policies", "scenarios", "defects", "experiments",
                   theory="theory.igp_ucb_gp_ts"),
    power_dir=Path(__file__).parent / "power",
    order=2,
    reference=("Sayak Ray Chowdhury, Aditya Gopalan (2017). On Kernelized Multi-armed Bandits. ICML 2017 (PMLR "
               "70), arXiv:1704.00445"),
)
