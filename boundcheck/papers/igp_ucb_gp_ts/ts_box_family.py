"""Theorem 4 (GP-TS) on a compact box, ``gp_ts_compact``: the box family of :mod:`boundcheck.claims.families.
continuum` with what GP-TS adds — the width v_t (Theorem 2 at δ/2), the grids D_t (``grid_n_t``), the discretisation
of eq. (7) judged on the realised f, the choice inside D_t, and the calibration of the algorithm's own draws.

Eq. (7) needs f between the grid points: the evaluator reads each run's expansion f = Σ_j α_j k(·, c_j) from the
engine's record of it (``rkhs_centres``, ``rkhs_alpha``), the very function the run faced.
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from boundcheck.claims.families.continuum import BoxEvaluator, BoxFamily
from boundcheck.claims.table import ClaimSpec, bound_anytime, bound_at_horizon
from boundcheck.errors import BoundcheckError
from boundcheck.model.continuum.posterior import kernel_constants
from boundcheck.model.continuum.rkhs import RKHSExpansion
from boundcheck.model.kernels import RBF
from boundcheck.study.continuum import discretise

from .gp_ts_box import MAX_GRID, grid_points

__all__ = ["TSBoxEvaluator", "TSBoxFamily", "cell_sup", "gp_ts_compact_claims", "TS_BOX_DRAWS",
           "ON_GRID_TOL"]

#: the standardised draws of the sample-calibration claim (derived steps columns)
TS_BOX_DRAWS = ("z_draw_fixed", "z_draw_prev")
#: x_t is a cell centre of D_t when every coordinate is within ON_GRID_TOL·r of the centre it rounds to (the same
#: float formula as the policy's grid: equal to the bit; a centre of the grid with n/2 points per side, (2j+1)r/n, is
#: never one of D_t's, (2i+1)r/(2n), and lies ≥ r/(2n) away)
ON_GRID_TOL = 1e-12
#: √(d⁶/ds⁶ e^{−s²/2} at 0) = √15: ‖D³_v k(x, ·)‖_k for unit v and the SE kernel of lengthscale 1
_SE_SIXTH = math.sqrt(15.0)


def cell_sup(f: RKHSExpansion, bounds: np.ndarray, n: int, M3: float, k: int) -> float:
    """A certified upper bound of max over the cells of the grid (``n`` per side) of sup_{x∈cell} |f(x) − f(c)|, c the
    cell's centre, for a one-run SE expansion f with sup_{‖v‖=1} |D³f[v,v,v]| ≤ M3.

    Each cell is split into k^d sub-cells of centres s and radius ρ = √d h/(2k) (h = side/n); for x in a sub-cell,
    Taylor at s with the third-order remainder gives |f(x) − f(c)| ≤ |f(s) − f(c)| + ‖∇f(s)‖ρ + ½‖∇²f(s)‖ρ² + M3ρ³/6.
    M3 = ‖f‖_k √15/ℓ³: D³f(ξ)[v,v,v] = ⟨f, D³_v k(ξ, ·)⟩_k and ‖D³_v k(ξ, ·)‖²_k = d⁶/ds⁶ e^{−s²/(2ℓ²)} at 0 = 15/ℓ⁶.
    The sum is inflated by 1e−12 relative for the rounding of a few terms (each a few ulps)."""
    d = bounds.shape[0]
    h = (bounds[:, 1] - bounds[:, 0]) / n
    C = grid_points(bounds, n)
    off1 = ((2 * np.arange(k) + 1 - k) / (2 * k))[:, None] * h[None, :]  # (k, d) sub-centre offsets per axis
    offs = np.stack(np.meshgrid(*[off1[:, j] for j in range(d)], indexing="ij"), axis=-1).reshape(-1, d)
    S = (C[:, None, :] + offs[None]).reshape(-1, d)
    zeros = np.zeros(len(S), dtype=np.int64)
    fs, g, H = f.jet(zeros, S, hess=True)
    fc = f.jet(np.zeros(len(C), dtype=np.int64), C, hess=False)[0] if k > 1 else fs
    rho = math.sqrt(d) * 0.5 * float(np.max(h)) / k
    hn = np.abs(H[:, 0, 0]) if d == 1 else np.linalg.norm(H, 2, axis=(1, 2))
    per = np.abs(fs - np.repeat(fc, len(offs))) + np.linalg.norm(g, axis=1) * rho + 0.5 * hn * rho**2
    return float(np.max(per) + M3 * rho**3 / 6.0) * (1.0 + 1e-12)


class TSBoxEvaluator(BoxEvaluator):
    """Per-chunk statistics of ``gp_ts_compact`` (the module docstring says what each reads)."""

    def __init__(self, traj, scenario, inst, main) -> None:
        super().__init__(traj, scenario, inst, main)
        self.grid_n = np.asarray(inst.schedules["grid_n_t"], dtype=float)[1:].astype(np.int64)  # t = 1..T

    @cached_property
    def truth(self) -> list[RKHSExpansion]:
        """Each run's f, as the engine recorded it (an RKHS truth's centres and coefficients)."""
        sc, tr = self.sc, self.traj.truth
        if not getattr(sc, "rkhs", False) or "rkhs_alpha" not in tr:
            raise BoundcheckError(f"gp_ts_compact judges eq. (7) on an RKHS truth; scenario {sc.name!r} has none")
        return [RKHSExpansion(sc.truth_k, sc.box, tr["rkhs_centres"][i:i + 1], tr["rkhs_alpha"][i:i + 1])
                for i in range(self.m)]

    @cached_property
    def disc_error(self) -> np.ndarray:
        """(m, T) certified upper bounds of sup_{x∈D} |f(x) − f([x]_t)| on the theorem's grid D_t (:func:`cell_sup`
        per cell, refined 8^d- then 64^d-fold where the bound exceeds 1/t²)."""
        kern = self.sc.truth_k
        if not isinstance(kern, RBF):
            raise BoundcheckError(f"eq. (7)'s certificate is written for the SE kernel, got {kern!r}")
        bounds, d = self.sc.box.bounds, self.sc.box.dim
        out = np.empty((self.m, self.T))
        for i, f in enumerate(self.truth):
            M3 = float(f.norm[0]) * math.sqrt(kern.variance) * _SE_SIXTH / kern.lengthscale**3
            last, val = -1, 0.0
            for j in range(self.T):
                n = int(self.grid_n[j])
                if n != last:
                    if float(n) ** d > MAX_GRID:
                        raise BoundcheckError(f"eq. (7) on {n}^{d} grid points exceeds {MAX_GRID}")
                    # refined only where needed: eq. (7) is proven, so a bound above 1/t² is the certificate's slack
                    # (≤ 2 % at k = 8, far less at 64) until the finest split says otherwise
                    val = cell_sup(f, bounds, n, M3, 1)
                    for k in (8, 64):
                        if val * (j + 1) ** 2 <= 1.0:
                            break
                        val = min(val, cell_sup(f, bounds, n, M3, k))
                    last = n
                out[i, j] = val
        return out

    # ------------------------------------------------------------------------------------ claims
    def confidence_chosen(self) -> dict:
        """E^f(t) at x_t and, through eq. (7), at [x*]_t: |f(x*) − μ([x*]_t)| ≤ v_t σ([x*]_t) + 1/t²."""
        return {"fail": ~(self.chosen_event().all(axis=1) & self.disc_event().all(axis=1))}

    def discretisation(self) -> dict:
        """Eq. (7): sup_x |f(x) − f([x]_t)| ≤ 1/t² for every t (a certified upper bound of the left side)."""
        return {"fail": (self.disc_error * self.t[None] ** 2 > 1.0).any(axis=1), "premise": np.ones(self.m, bool)}

    def decision_set(self) -> dict:
        """x_t ∈ D_t: every coordinate at the centre of its cell of the theorem's grid (within ON_GRID_TOL·r)."""
        X = self.points()
        bounds, r = self.sc.box.bounds, float(self.sc.box.r)
        off = np.zeros((self.m, self.T), dtype=bool)
        for j in range(self.T):
            c = discretise(X[:, j], bounds, float(self.grid_n[j]))
            off[:, j] = (np.abs(X[:, j] - c) > ON_GRID_TOL * r).any(axis=1)
        return {"fail": off.any(axis=1), "premise": np.ones(self.m, bool)}

    def ts_draws(self) -> dict[str, np.ndarray]:
        """(m, T) (f_t(x) − μ_{t−1}(x)) / (v_t σ_{t−1}(x)) at x° and x_{t−1}, v_t the theorem's (unscaled)."""
        st, v = self.alg.steps, self.width[None]
        with np.errstate(invalid="ignore", divide="ignore"):
            return {"z_draw_fixed": (st["draw_fixed"] - st["mu_fixed"]) / (v * st["sigma_fixed"]),
                    "z_draw_prev": (st["draw_prev"] - st["mu_prev"]) / (v * st["sigma_prev"])}


def gp_ts_compact_claims(c) -> list[ClaimSpec]:
    """Theorem 4 on a box: the regret, E^f where observable, Theorem 1, eq. (7), x_t ∈ D_t, the draws, Lemma 3."""
    E = TSBoxEvaluator
    draws = frozenset({"draw_fixed", "mu_fixed", "sigma_fixed", "draw_prev", "mu_prev", "sigma_prev"})
    return [
        ClaimSpec(c("regret_bound"), E.regret_bound_rkhs, bound=bound_at_horizon),
        ClaimSpec(c("regret_bound_anytime"), E.regret_bound_anytime_rkhs, bound=bound_anytime),
        ClaimSpec(c("confidence_chosen"), E.confidence_chosen),
        ClaimSpec(c("self_normalized"), E.self_normalized),
        ClaimSpec(c("discretisation"), E.discretisation),
        ClaimSpec(c("decision_set"), E.decision_set),
        ClaimSpec(c("ts_sample_calibration"), None, draws, sample=TS_BOX_DRAWS),
        ClaimSpec(c("D3_information"), E.information),
    ]


class TSBoxFamily(BoxFamily):
    """``gp_ts_compact``: :class:`BoxFamily` with GP-TS's width v_t, its grids and the evaluator above."""

    evaluator_class = TSBoxEvaluator

    def __init__(self, theorem) -> None:
        super().__init__(theorem, gp_ts_compact_claims, width="v_t")

    @property
    def schedules_read(self) -> tuple[str, ...]:
        names = ("v_t", "ctilde_t", "c_t", "grid_n_t", "beta_t")
        return tuple(n for n in names if n in self.theorem.schedules)

    def bound_values(self, scenario, horizon: int, delta: float) -> dict[str, float]:
        values = super().bound_values(scenario, horizon, delta)
        # L = sup_j (∂²k/∂p_j∂q_j)^{1/2}, the Lipschitz constant of the canonical metric (SE: 1/ℓ; CGT2)
        values["L"] = float(kernel_constants(scenario.kernel).sd_lipschitz)
        size = values["B"] * values["L"] * values["r"] * values["d"]
        if size < 1.0:
            raise BoundcheckError(f"{self.theorem.id} needs B·L·r·d ≥ 1 (|D_t| ≤ (BLrdt²)^d, correction CGT1); "
                                  f"scenario {scenario.name!r} gives {size:.3g}")
        return values

    def derived_steps(self, ev: TSBoxEvaluator) -> dict[str, np.ndarray]:
        out = super().derived_steps(ev)
        if "draw_fixed" in ev.alg.steps:
            out.update(ev.ts_draws())
        return out

    def main_diagnostics(self, ev: TSBoxEvaluator) -> dict[str, np.ndarray]:
        out = super().main_diagnostics(ev)
        if "law_error" in ev.alg.steps:
            out["law_error"] = np.asarray(ev.alg.steps["law_error"]).max(axis=1)
        if getattr(ev.sc, "rkhs", False) and "seed" in ev.inst.extra:  # eq. (7)'s slack: max_t t² sup|f − f([·]_t)|
            out["disc_ratio"] = (ev.disc_error * ev.t[None] ** 2).max(axis=1)
        return out
