"""The generic defect hooks GP-UCB's Theorem 1 (Srinivas et al. 2010) offers (:mod:`boundcheck.claims.defects`);
the paper plants no defect of its own."""

from __future__ import annotations

from dataclasses import replace

from boundcheck.claims.defects import Defect, wrap_policy

#: Theorem 1: a width √β_t, the posterior of the true prior, f drawn from a GP prior, the oracle's argmax, an
#: explicit bound
HOOKS = {"gp_ucb": frozenset({"width", "likelihood", "update", "conditioning", "gp_truth", "data_noise", "oracle",
                              "bound"}),
         "gp_ucb_compact": frozenset({"width", "likelihood", "update", "data_noise", "bound", "box_conditioning",
                                      "box_prior", "box_optimiser", "box_truth"}),
         "gp_ucb_rkhs_compact": frozenset({"width", "likelihood", "update", "data_noise", "bound", "rkhs_norm",
                                           "box_conditioning", "box_prior", "box_optimiser"})}
def _rkhs_norm_1000x(sc):
    """The box's RKHS truth drawn with 1000 times its norm (the algorithm is still given B)."""
    return replace(sc, rkhs_norm=1000.0 * sc.rkhs_norm)


#: Theorem 3's β_t = 2B² + 300γ_t ln³(t/δ) is so wide (√β_t ≈ 10²–10³ at these horizons) that the library's 3×
#: norm and 0.1× width leave every check true: these two are large enough to break its confidence bound and its
#: optimism step, which shows the checks can fail at all
DEFECTS = (
    Defect("rkhs_norm_1000x", "‖f‖_k = 1000·B while the algorithm is given B (beyond even Theorem 3's wide β_t)",
           ("gp_ucb_rkhs_compact",), scenario=_rkhs_norm_1000x, after="rkhs_norm_tripled"),
    Defect("width_1e-4", "the algorithm uses 10⁻⁴·√β_t (it exploits) while the checks use the theorem's",
           ("gp_ucb_rkhs_compact",), policy=wrap_policy("beta_scaled", factor=1e-4), after="beta_small"),
)
