"""Paper 001: Brunzema, von Rohr, Solowjow, Trimpe (2022), *Event-Triggered Time-Varying Bayesian Optimization* —
ET-GP-UCB (Theorems 1–2, the trigger's Lemma), Bogunovic et al.'s TV-GP-UCB, R-GP-UCB, the ε-chain
scenarios and the §5 experiments.

This module is the paper's manifest (what it defines, the module of each part): it is what the
``boundcheck.papers`` entry point names, and it imports nothing heavy."""

from __future__ import annotations

from pathlib import Path

from theory.plugins import Paper, parts_in

PAPER = Paper(
    id="et_gp_ucb", title="Event-Triggered Time-Varying Bayesian Optimization",
    source="Brunzema, von Rohr, Solowjow, Trimpe (2022), arXiv 2208.10790 (early version), §5, App. B",
    file="001_5b9a9c576ac10a30.txt",
    theorems=("et_gp_ucb", "et_r_gp_ucb", "tv_gp_ucb", "et_trigger", "et_gp_ucb_compact", "tv_gp_ucb_compact"),
    notes=("Table 2 is the only table with numbers; Figs. 2 and 4 show curves and histograms: their claims are "
           "orderings and trends read off the figures and the text.",
           "Hyper-parameters from Table 4 (σ_n² = 0.02, β_t = 0.4 log(4t)); the text's 0.05 and 0.8 conflict with "
           "the tables.",
           "The temperature, policy-search and Deng et al. experiments need data or code the seed does not give "
           "(Sec. 5, Fig. 3; App. A): not run."),
    policies=("et_gp_ucb", "r_gp_ucb_tv", "r_gp_ucb_after", "tv_gp_ucb", "oracle_tv_gp_ucb", "et_gp_ucb_box",
              "et_gp_ucb_box_theory", "tv_gp_ucb_box"),
    scenarios=("tv_grid2d_eps001", "tv_grid2d_eps003", "tv_grid2d_eps005", "tv_grid2d_static", "tv_grid20_eps003",
               "tv_grid20_static", "tv_grid20_static_lengthscale", "tv_grid20_static_noise", "tv_line_static",
               "tv_line_eps003", "tv_grid2d_eps001_paper", "tv_grid2d_eps003_paper", "tv_grid2d_eps005_paper",
               "tv_grid2d_misspecified_paper", "tv_grid20_eps003_paper",
               "et_box_line_static", "et_box_line_eps003", "tv_box_eps002"),
    parts=parts_in(__name__, "family", "policies", "scenarios", "defects", "experiments", "figures",
                   theory="theory.et_gp_ucb"),
    power_dir=Path(__file__).parent / "power",
    order=4,
    reference=("Paul Brunzema, Alexander von Rohr, Friedrich Solowjow, Sebastian Trimpe (2022). Event-Triggered "
               "Time-Varying Bayesian Optimization. arXiv preprint, arXiv:2208.10790 (an early version)"),
)
