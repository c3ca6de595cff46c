"""IGP-UCB and GP-TS (paper 004, Theorems 2–4), checked by the kernelized family it shares with Srinivas et al.'s
GP-UCB: each theorem's claim table, the width schedules of the paper's algorithms (and of Srinivas' GP-UCB as its
RKHS baseline, Theorem 3 there), and the paper's own rate γ_t (§6, used in its replication mode)."""

from __future__ import annotations

from boundcheck.claims.families.continuum import BoxEvaluator, BoxFamily
from boundcheck.claims.families.kernelized import (
    INFO_NEEDS,
    TS_DRAW_RECORDS,
    TS_DRAWS,
    UCB_NEEDS,
    KernelEvaluator,
    KernelizedFamily,
)
from boundcheck.claims.table import ClaimSpec, bound_anytime, bound_at_horizon
from theory import igp_ucb_gp_ts

from .ts_box_family import TSBoxFamily

_RATES = (igp_ucb_gp_ts.PAPER_GAMMA_RATES, igp_ucb_gp_ts.RATE_SYMBOLS)
_BY_ID = {th.id: th for th in igp_ucb_gp_ts.THEOREMS}
E = KernelEvaluator


def _regret(c) -> list[ClaimSpec]:
    return [ClaimSpec(c("regret_bound"), E.regret_bound, bound=bound_at_horizon),
            ClaimSpec(c("regret_bound_anytime"), E.regret_bound_anytime, bound=bound_anytime)]


def confidence_claims(c) -> list[ClaimSpec]:
    """Theorem 2 (the confidence bound) with Theorem 1's self-normalised bound and the decomposition behind it."""
    return [
        ClaimSpec(c("confidence_event"), E.confidence_event, frozenset({"z_all"})),
        ClaimSpec(c("confidence_data_dependent"), E.confidence_data_dependent, frozenset({"z_all"})),
        ClaimSpec(c("self_normalized"), E.self_normalized),
        ClaimSpec(c("self_normalized_ay"), E.self_normalized_ay),
        ClaimSpec(c("D1_decomposition"), E.decomposition, frozenset({"mu_final", "var_final"})),
        ClaimSpec(c("D2_information"), E.information, INFO_NEEDS),
        ClaimSpec(c("S1_noise_cauchy_schwarz"), E.noise_cauchy_schwarz),
        ClaimSpec(c("S2_lemma4"), E.lemma4, INFO_NEEDS),
    ]


def igp_ucb_claims(c) -> list[ClaimSpec]:
    """Theorem 3 (IGP-UCB's regret) and the chain of its proof."""
    return _regret(c) + [
        ClaimSpec(c("confidence_event"), E.confidence_event, frozenset({"z_all"})),
        ClaimSpec(c("self_normalized"), E.self_normalized),
        ClaimSpec(c("D1_optimism"), E.ucb_optimism, UCB_NEEDS),
        ClaimSpec(c("D2_intermediate"), E.igp_intermediate, UCB_NEEDS),
        ClaimSpec(c("D3_information"), E.information, INFO_NEEDS),
        ClaimSpec(c("S1_lemma4"), E.lemma4, INFO_NEEDS),
    ]


def gp_ts_claims(c) -> list[ClaimSpec]:
    """Theorem 4 (GP-TS's regret) and Lemmas 5–13, measured on the algorithm's own draws."""
    ts = frozenset({"z_all", "draw_dev"})
    return _regret(c) + [
        ClaimSpec(c("confidence_event"), E.ts_confidence_event, frozenset({"z_all"})),
        ClaimSpec(c("self_normalized"), E.self_normalized),
        ClaimSpec(c("ts_sample_calibration"), None, TS_DRAW_RECORDS, sample=TS_DRAWS),
        ClaimSpec(c("ts_sample_concentration"), E.ts_sample_concentration, ts),
        ClaimSpec(c("ts_anticoncentration"), E.ts_anticoncentration, ts | {"anti_hit"}),
        ClaimSpec(c("D2_ts_step"), E.ts_step, ts | {"lemma10_rhs"}),
        ClaimSpec(c("S1_ts_supermartingale"), E.ts_supermartingale, ts | {"sigma"}),
        ClaimSpec(c("S2_ts_triangle"), E.ts_triangle, ts | {"fdev"}),
        ClaimSpec(c("D3_information"), E.information, INFO_NEEDS),
    ]


def igp_ucb_compact_claims(c) -> list[ClaimSpec]:
    """Theorem 3 on a box: the regret, the confidence bound at the chosen points (over the whole box it cannot be
    observed), Theorem 1's self-normalised bound, and the chain of Appendix D on what the continuum engine saw."""
    B = BoxEvaluator
    return [
        ClaimSpec(c("regret_bound"), B.regret_bound_rkhs, bound=bound_at_horizon),
        ClaimSpec(c("regret_bound_anytime"), B.regret_bound_anytime_rkhs, bound=bound_anytime),
        ClaimSpec(c("confidence_chosen"), B.confidence_chosen),
        ClaimSpec(c("self_normalized"), B.self_normalized),
        ClaimSpec(c("D1_optimism"), B.igp_optimism),
        ClaimSpec(c("optimiser_gap"), B.optimiser_gap),
        ClaimSpec(c("D2_intermediate"), B.igp_intermediate),
        ClaimSpec(c("D3_information"), B.information),
        ClaimSpec(c("S1_lemma4"), B.lemma4),
    ]


def schedules(theorem_id: str) -> dict[str, str | tuple]:
    """The width of every algorithm the paper compares, by policy name: IGP-UCB's β_t (Algorithm 1), GP-TS's v_t
    (Algorithm 2) and c̃_t (Definition 1), and Srinivas' β̃_t of GP-UCB as the RKHS baseline (Theorem 3 there).

    The theorem checked gives its own algorithm's width and what its claims read (a name: read from the theorem the
    family holds, a theorem of your own checked like this one included): β_t for Theorems 2 and 3, v_t and c̃_t
    (Lemmas 5–13 standardise GP-TS's draws with them) for Theorem 4. The baselines run with the widths the paper's
    other theorem states (a (theorem, name) pair): whatever a theorem of your own says, IGP-UCB beside GP-TS is
    Algorithm 1 as printed, and GP-TS beside IGP-UCB is Algorithm 2."""
    cg, ts = _BY_ID["igp_ucb"], _BY_ID["gp_ts"]
    if theorem_id == "gp_ts":
        return {"gp_ts": "v_t", "gp_ts_ctilde": "ctilde_t", "igp_ucb": (cg, "beta_t"), "gp_ucb": (cg, "beta_gp_ucb_t")}
    return {"igp_ucb": "beta_t", "gp_ucb": (cg, "beta_gp_ucb_t"), "gp_ts": (ts, "v_t"),
            "gp_ts_ctilde": (ts, "ctilde_t")}


_CLAIMS = {"igp_ucb_confidence": confidence_claims, "igp_ucb": igp_ucb_claims, "gp_ts": gp_ts_claims}
#: Theorem 3 on a box runs on the continuum engine: its family reads IGP-UCB's β_t as the width (it multiplies σ)
FAMILIES = tuple(KernelizedFamily(th, _CLAIMS[th.id], schedules(th.id), gamma_rates=_RATES)
                 for th in igp_ucb_gp_ts.THEOREMS if th.id not in ("igp_ucb_compact", "gp_ts_compact")) + (
    BoxFamily(igp_ucb_gp_ts.COMPACT_THEOREM, igp_ucb_compact_claims, width="beta_t"),
    # Theorem 4 on a box: GP-TS's v_t, its grids D_t and eq. (7) on the realised f (boundcheck/papers/…/ts_box_family)
    TSBoxFamily(igp_ucb_gp_ts.TS_COMPACT_THEOREM),)
