"""The Python builders the built-in scenarios of papers 001, 002 and 003 had before they became scenario files,
kept as the reference ``tests/world/test_scenario_files.py`` builds next to each file and compares field by
field, array by array (the builders themselves stay in the papers' catalogues: sweeps and benchmarks use them)."""

from __future__ import annotations

from collections.abc import Callable

from boundcheck.papers.combinatorial.catalogue import _contextual, _grid, _noisy, _rough, _topk, road_scenario
from boundcheck.papers.et_gp_ucb.catalogue import tv_grid
from boundcheck.papers.et_gp_ucb.world import TVScenario
from boundcheck.papers.r_sw_gp_ucb.catalogue import vb_scenario
from boundcheck.world.scenario import Scenario

_PAPER = "Paper 001, within-model comparison (Fig. 2 a–c, Table 2/4)."
_LEMMA3 = "Lemma 3's setting (no change)."

ET_GP_UCB: dict[str, Callable[[], TVScenario]] = {
    # the regret theorems (theoretical β)
    "tv_grid2d_eps001": lambda: tv_grid("tv_grid2d_eps001", eps=0.01),
    "tv_grid2d_eps003": lambda: tv_grid("tv_grid2d_eps003", eps=0.03),
    "tv_grid2d_eps005": lambda: tv_grid("tv_grid2d_eps005", eps=0.05),
    "tv_grid2d_static": lambda: tv_grid("tv_grid2d_static", eps=0.0, description=_LEMMA3),
    "tv_grid20_eps003": lambda: tv_grid("tv_grid20_eps003", points_per_axis=20, eps=0.03,
                                        description="Fast 20×20 variant."),
    "tv_grid20_static": lambda: tv_grid("tv_grid20_static", points_per_axis=20, eps=0.0, horizon=200,
                                        description="Fast 20×20 variant; " + _LEMMA3),
    # negative controls of Lemma 3 (its premise broken, robustness): out of theory
    "tv_grid20_static_lengthscale": lambda: tv_grid(
        "tv_grid20_static_lengthscale", points_per_axis=20, eps=0.0, horizon=200, truth_lengthscale=0.1,
        description="Negative control: the truth is rougher (ℓ = 0.1) than the model (ℓ = 0.2)."),
    "tv_grid20_static_noise": lambda: tv_grid(
        "tv_grid20_static_noise", points_per_axis=20, eps=0.0, horizon=200, data_noise_var=0.08,
        description="Negative control: the data noise variance is 0.08, the model’s 0.02."),
    # small 1-d settings (tests, quick looks)
    "tv_line_static": lambda: tv_grid("tv_line_static", points_per_axis=40, dim=1, eps=0.0, horizon=100),
    "tv_line_eps003": lambda: tv_grid("tv_line_eps003", points_per_axis=40, dim=1, eps=0.03, horizon=100),
    # the paper's experiments (practical β for every algorithm: the regret bounds do not apply)
    "tv_grid2d_eps001_paper": lambda: tv_grid("tv_grid2d_eps001_paper", eps=0.01, beta_rule="practical",
                                              description=_PAPER),
    "tv_grid2d_eps003_paper": lambda: tv_grid("tv_grid2d_eps003_paper", eps=0.03, beta_rule="practical",
                                              description=_PAPER),
    "tv_grid2d_eps005_paper": lambda: tv_grid("tv_grid2d_eps005_paper", eps=0.05, beta_rule="practical",
                                              description=_PAPER),
    "tv_grid2d_misspecified_paper": lambda: tv_grid(
        "tv_grid2d_misspecified_paper", eps=0.05, beta_rule="practical", tv_eps=0.001, reset_N=68,
        description="Paper 001, Fig. 2 (d): TV-GP-UCB told ε = 0.001, R-GP-UCB with N = 68; the true ε = 0.05 "
                    "is not stated in the paper [PROPOSED]."),
    "tv_grid20_eps003_paper": lambda: tv_grid("tv_grid20_eps003_paper", points_per_axis=20, eps=0.03,
                                              beta_rule="practical", description="Fast 20×20 variant. " + _PAPER),
}

R_SW_GP_UCB: dict[str, Callable[[], Scenario]] = {
    "vb_rotation": lambda: vb_scenario("vb_rotation", "rotation", 5.0),
    "vb_rotation_p0": lambda: vb_scenario("vb_rotation_p0", "rotation", 0.0, note="P_T = 0: a static f, H = w = T."),
    "vb_rotation_p1": lambda: vb_scenario("vb_rotation_p1", "rotation", 1.0),
    "vb_rotation_p25": lambda: vb_scenario("vb_rotation_p25", "rotation", 25.0),
    "vb_switch_p5": lambda: vb_scenario("vb_switch_p5", "switch", 5.0, B=3.0),
    "vb_switch_p25": lambda: vb_scenario("vb_switch_p25", "switch", 25.0, B=3.0),
    "vb_walk": lambda: vb_scenario("vb_walk", "random_walk", 5.0,
                           note="The realised budget of each run (at most P_T) is in the runs table."),
    "vb_matern": lambda: vb_scenario("vb_matern", "rotation", 5.0, kernel="matern"),
    "vb_grid": lambda: vb_scenario("vb_grid", "rotation", 5.0, where="grid20x20"),
    "vb_rademacher": lambda: vb_scenario("vb_rademacher", "rotation", 5.0, noise_law="rademacher"),
    "vb_small_noise": lambda: vb_scenario("vb_small_noise", "rotation", 5.0, B=3.0, R=0.01),
    "vb_lambda_h": lambda: vb_scenario("vb_lambda_h", "rotation", 5.0, lam="1+2/H"),
    # negative controls: the theorems' assumptions fail (the predicates say so even if a scenario claims otherwise)
    "vb_budget_exceeds": lambda: vb_scenario(
        "vb_budget_exceeds", "rotation", 25.0, given_P_T=5.0, in_theory=False,
        reason="the realised variation budget (25) exceeds the P_T = 5 given to the theorem",
        note="Negative control: the theorem is told P_T = 5."),
    "vb_noise_exceeds": lambda: vb_scenario(
        "vb_noise_exceeds", "rotation", 5.0, noise_law="gaussian:3", in_theory=False,
        reason="the data noise has standard deviation 3R: not R-sub-Gaussian with the R the algorithms use",
        note="Negative control (wrong noise)."),
}


COMBINATORIAL: dict[str, Callable[[], Scenario]] = {
    "comb_topk": lambda: _topk("comb_topk"),
    "comb_topk_k1": lambda: _topk("comb_topk_k1", k=1),
    "comb_topk_k2": lambda: _topk("comb_topk_k2", k=2),
    "comb_topk_k4": lambda: _topk("comb_topk_k4", k=4),
    "comb_topk_k8": lambda: _topk("comb_topk_k8", k=8, size=12),
    "comb_topk_n100": lambda: _topk("comb_topk_n100", n=100, k=4, size=30, lengthscale=0.2, noise=0.1),
    # strongly correlated arms: where sampling each arm independently visibly breaks the TS identity
    "comb_topk_smooth": lambda: _topk("comb_topk_smooth", lengthscale=1.0),
    "comb_grid": lambda: _grid("comb_grid"),
    "comb_grid_open": lambda: _grid("comb_grid_open", p_close=0.0),
    "comb_rff": lambda: _contextual("comb_rff"),
    # negative controls (theorems' ``controls``): outside the theorems, each claim's checks must see it
    "comb_topk_noise": lambda: _noisy(_topk("comb_topk_noise")),
    "comb_rff_noise": lambda: _noisy(_contextual("comb_rff_noise")),
    "comb_topk_rough": lambda: _rough(_topk("comb_topk_rough")),
    **{f"comb_road_{i}": (lambda i=i: road_scenario(i)) for i in range(1, 5)},
}


#: every table of reference builders, by paper
TABLES = (ET_GP_UCB, R_SW_GP_UCB, COMBINATORIAL)
