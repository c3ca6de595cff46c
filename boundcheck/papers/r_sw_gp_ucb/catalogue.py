"""Scenarios of Zhou & Shroff (2021) (paper 003): drifting RKHS functions with an exact norm and an exact variation
budget (docs/papers/r_sw_gp_ucb.md). The paper has no experiments; these are boundcheck's
[PROPOSED] ones: 100-point 1-d grid and 20×20 grid, SE and Matérn-5/2 (ℓ = 0.2), B ∈ {1, 3}, R ∈ {0.01, 0.1},
δ = 0.1, P_T ∈ {0, 1, 5, 25}, Gaussian and Rademacher noise, λ ∈ {1, 1 + 2/H}, H = w from Remark (2).

Every scenario records max_t ‖f_t‖_k and the budget exactly (the sequence's design; the realised budget of each
run lands in the runs table); the algorithms are given B = max_t ‖f_t‖_k and the theorem P_T.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

from boundcheck.model.domains import grid
from boundcheck.model.kernels import RBF, Matern
from boundcheck.model.noise import describe_noise_law
from boundcheck.model.priors import GPPrior
from boundcheck.model.variation import VariationBudgetSequence, remark_window
from boundcheck.world.actions import AlwaysAvailable
from boundcheck.world.scenario import Scenario

HORIZON = 1000
_KERNELS = {"se": (RBF(0.2), "SE ℓ = 0.2"), "matern": (Matern(2.5, 0.2), "Matérn-5/2 ℓ = 0.2")}


@cache
def _domain(which: str):
    """The domain and its anchors z_i (spread about one length scale apart, so that K_Z is well conditioned)."""
    if which == "line100":
        dom = grid(100, 1)
        anchors = np.round(np.linspace(0, 99, 8)).astype(np.int64)
    else:  # grid20x20
        dom = grid(20, 2)
        ax = np.round(np.linspace(0, 19, 5)).astype(np.int64)
        anchors = (ax[:, None] * 20 + ax[None, :]).ravel()
    return dom, anchors


@cache
def _gram(kernel: str, which: str) -> np.ndarray:
    dom, _ = _domain(which)
    K = _KERNELS[kernel][0].gram(dom.points)
    K.setflags(write=False)
    return K


def vb_scenario(name: str, kind: str, P_T: float, *, kernel: str = "se", where: str = "line100", B: float = 1.0,
                R: float = 0.1, noise_law: str = "gaussian", lam: str = "1", given_P_T: float | None = None,
                horizon: int = HORIZON, note: str = "", in_theory: bool = True, reason: str = "") -> Scenario:
    """A variation-budget scenario: ``kind`` ∈ {rotation, switch, random_walk}, budget ``P_T`` over ``horizon``,
    ``kernel`` ∈ {se, matern}, ``where`` ∈ {line100, grid20x20}, ‖f_t‖_k = ``B``, noise ``R`` with ``noise_law``,
    λ rule ``lam`` ∈ {"1", "1+2/H"}, ``given_P_T``: the budget the theorem is told (default the true one).
    Parameter sweeps (P_T, T, B, R, …) build their scenarios with this function."""
    dom, anchors = _domain(where)
    K = _gram(kernel, where)
    seq = VariationBudgetSequence(f"{kind} (P_T = {P_T:g})", K, kind, B, P_T, horizon, anchors=anchors)
    model = GPPrior(f"GP(0, {_KERNELS[kernel][1]})", np.zeros(dom.n), K, 0.0)
    theorem_P = P_T if given_P_T is None else given_P_T
    window = remark_window(K, horizon, theorem_P)
    where_text = "100 points on a regular grid of [0,1]" if where == "line100" else "20×20 regular grid of [0,1]²"
    lam_text = "λ = 1" if lam == "1" else "λ = 1 + 2/H"
    desc = (f"Drifting f_t on {where_text}, k = {_KERNELS[kernel][1]}: {seq.describe()}; a fresh sequence per run "
            f"(random directions); noise {describe_noise_law(noise_law, R)}; B = {B:g} and P_T = {theorem_P:g} "
            f"given; H = w = {window} (Remark (2), γ̄_T at λ = 1); {lam_text}.")
    if note:
        desc += " " + note
    return Scenario(
        name=name, description=desc, domain=dom, availability=AlwaysAvailable(dom.n), candidates=(model,),
        truth=seq, truth_index=None, reference_index=0, noise=R, horizon=horizon, delta=0.1, B=B,
        model_noise=lam, gamma_rule="certified", noise_law=noise_law, P_T=given_P_T, window=window,
        window_rule="remark", in_theory=in_theory, out_of_theory_reason=reason,
        notes=(f"anchors: {anchors.size} domain points; f_t = Φθ_t with ‖f_t‖_k = ‖θ_t‖ exactly (eigenbasis of K_Z)",
               "H and w follow the horizon: re-derived by Remark (2) when T changes"))


SCENARIOS: dict[str, Callable[[], Scenario]] = {
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
