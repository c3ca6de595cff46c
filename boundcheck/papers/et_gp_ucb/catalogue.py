"""Scenarios of paper 001 (ET-GP-UCB; Sec. 5, docs/papers/et_gp_ucb.md): the within-model comparison on [0,1]², its fast
20×20 variant, the misspecified-ε panel (Fig. 2 d), the static settings of Lemma 3 with their negative controls,
and small 1-d settings for tests.

The paper does not say how it discretised [0,1]² (Sec. 5): every scenario here is a regular grid with
an exact argmax [PROPOSED], 30×30 for the paper's settings (it reproduces Table 2: docs/papers/et_gp_ucb.md).
Scenarios ending in ``_paper`` run the experiments' practical β_t = 0.4 log(4t) for every algorithm (Table 4); the
others run each algorithm's theoretical β (what the regret theorems need).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache

import numpy as np

from boundcheck.model.domains import grid
from boundcheck.model.kernels import RBF
from boundcheck.model.priors import GPPrior
from boundcheck.papers.et_gp_ucb.world import FactoredGPPrior, TVScenario, assumption3_se, check_grid_size
from boundcheck.utils.validation import check_int, check_positive, check_unit_interval
from boundcheck.world.actions import AlwaysAvailable

__all__ = ["tv_grid", "SCENARIOS"]


@cache
def _prior(points_per_axis: int, dim: int, lengthscale: float, eps: float) -> GPPrior:
    X = grid(points_per_axis, dim).points
    K = RBF(lengthscale).gram(X)
    return FactoredGPPrior(f"GP(0, SE ℓ = {lengthscale:g}), ε = {eps:g}", np.zeros(X.shape[0]), K, eps)


def tv_grid(name: str, *, points_per_axis: int = 30, dim: int = 2, lengthscale: float = 0.2,
            noise_var: float = 0.02, eps: float = 0.03, horizon: int = 400, delta: float = 0.1,
            beta_rule: str = "theory", c1: float = 0.4, c2: float = 4.0, delta_B: float = 0.1,
            reset_N: int | None = None, tv_eps: float | None = None, truth_lengthscale: float | None = None,
            data_noise_var: float | None = None, description: str = "", steps_detail: str = "full") -> TVScenario:
    """A scenario of paper 001 on the regular ``points_per_axis^dim`` grid in [0,1]^dim.

    The truth is the ε chain of GP(0, SE ℓ) (``truth_lengthscale`` makes it rougher than the model: out of theory)
    and the data noise is N(0, ``noise_var``) (``data_noise_var`` makes it differ from the model's: out of
    theory). Every algorithm knows the model's kernel and noise (within-model comparison)."""
    n_axis = check_int("grid points per axis", points_per_axis)
    dim = check_int("dimension", dim, maximum=3)
    n = check_grid_size(n_axis**dim)
    eps = check_unit_interval("eps", eps)
    noise_var = check_positive("noise variance", noise_var)
    model = _prior(n_axis, dim, float(lengthscale), eps)
    truth, truth_index, reasons = model, 0, []
    if truth_lengthscale is not None and truth_lengthscale != lengthscale:
        truth, truth_index = _prior(n_axis, dim, float(truth_lengthscale), eps), None
        reasons.append(f"the truth has lengthscale {truth_lengthscale:g}, the model {lengthscale:g}")
    noise_law = "gaussian"
    if data_noise_var is not None and check_positive("data noise", data_noise_var) != noise_var:
        # the data's noise law scaled (boundcheck.model.noise); every model keeps σ_n² = noise_var
        noise_law = f"gaussian:{math.sqrt(data_noise_var / noise_var)!r}"
        reasons.append(f"the data noise variance is {data_noise_var:g}, the model's {noise_var:g}")
    beta_text = ("each algorithm's theoretical β_t" if beta_rule == "theory"
                 else f"the practical β_t = {c1:g} log({c2:g} t) for every algorithm")
    base = (f"[0,1]^{dim} on a {n_axis}^{dim} grid (M = {n}), f_t the ε = {eps:g} chain of GP(0, SE ℓ = "
            f"{lengthscale:g}), σ_n² = {noise_var:g}, T = {horizon}; {beta_text}; δ_B = {delta_B:g}.")
    return TVScenario(
        name=name, description=(description + " " + base).strip(), domain=grid(n_axis, dim),
        availability=AlwaysAvailable(n), candidates=(model,), truth=truth, truth_index=truth_index,
        noise=math.sqrt(noise_var), noise_law=noise_law, horizon=check_int("horizon", horizon), delta=delta,
        reference_index=None if truth_index == 0 else 0, in_theory=not reasons,
        out_of_theory_reason="; ".join(reasons),
        notes=("grid discretisation with exact argmax [PROPOSED]: the paper does not state its own",
               "common random numbers: every algorithm sees the same f path and noise [PROPOSED]"),
        beta_rule=beta_rule, c1=c1, c2=c2, delta_B=delta_B, reset_N=reset_N, tv_eps=tv_eps,
        dim=dim, side=1.0, steps_detail=steps_detail,
        **assumption3_se(float(lengthscale), dim, n),
    )


_PAPER = "Paper 001, within-model comparison (Fig. 2 a–c, Table 2/4)."
_LEMMA3 = "Lemma 3's setting (no change)."

SCENARIOS: dict[str, Callable[[], TVScenario]] = {
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
