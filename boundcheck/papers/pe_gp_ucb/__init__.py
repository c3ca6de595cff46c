"""Paper 000: Ziomek, Adachi, Osborne (2024), *Time-Varying Gaussian Process Bandits with Unknown Prior* —
PE-GP-UCB (Theorem 4.1), its prior-selection baselines and the §7 experiments.

This module is the paper's manifest (what it defines, the module of each part): it is what the
``boundcheck.papers`` entry point names, and it imports nothing heavy."""

from __future__ import annotations

from pathlib import Path

from theory.plugins import Paper, parts_in

PAPER = Paper(
    id="pe_gp_ucb", title="Time-Varying Gaussian Process Bandits with Unknown Prior",
    source="Ziomek, Adachi, Osborne (2024), arXiv 2402.01632 (v3), §7", file="000_406ec6f9f83fdadd.txt",
    theorems=("pe_gp_ucb",),
    notes=("The paper prints no numbers and no hyperparameters ('see our code', which is not linked): every "
           "numeric setting of both experiments is a guess, documented per experiment below.",
           "Baselines as the paper describes them (§7, Appendix D); β and ξ 'in the same way as for PE-GP-UCB' "
           "(the theoretical schedules), ties to the lowest index (corrections ledger C35/C37).",
           "The oracle (TV-GP-UCB told the true prior) is not in the paper: it is boundcheck's reference curve."),
    policies=("pe_gp_ucb", "mle", "fully_bayesian", "regret_balancing", "regret_balancing_literal"),
    scenarios=("pe_sensors", "pe_sensors_misspecified", "pe_toy", "pe_toy_tv"),
    parts=parts_in(__name__, "family", "policies", "scenarios", "defects", "experiments", theory="theory.pe_gp_ucb"),
    power_dir=Path(__file__).parent / "power",
    order=0,
    reference=("Juliusz Ziomek, Masaki Adachi, Michael A. Osborne (2024). Time-Varying Gaussian Process Bandits "
               "with Unknown Prior. arXiv preprint, arXiv:2402.01632 (v3)"),
)
