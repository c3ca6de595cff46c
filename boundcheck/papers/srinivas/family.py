"""GP-UCB on a finite domain (Srinivas et al. 2010, Theorem 1), checked by the kernelized family it shares with
paper 004: the claim table, and which schedule of the theorem checked is GP-UCB's width."""

from __future__ import annotations

from boundcheck.claims.families.continuum import BoxEvaluator, BoxFamily
from boundcheck.claims.families.kernelized import INFO_NEEDS, UCB_NEEDS, KernelEvaluator, KernelizedFamily
from boundcheck.claims.table import ClaimSpec, bound_anytime, bound_at_horizon
from theory import srinivas


def claims(c) -> list[ClaimSpec]:
    """Theorem 1's claims: the regret bound, the confidence event of Lemma 5.1, the chain of Lemmas 5.2–5.4 and
    the calibration of the innovations under the true prior."""
    E = KernelEvaluator
    return [
        ClaimSpec(c("regret_bound"), E.regret_bound, bound=bound_at_horizon),
        ClaimSpec(c("regret_bound_anytime"), E.regret_bound_anytime, bound=bound_anytime),
        ClaimSpec(c("confidence_event"), E.confidence_event, frozenset({"z_all"})),
        ClaimSpec(c("D1_optimism"), E.ucb_optimism, UCB_NEEDS),
        ClaimSpec(c("D2_intermediate"), E.srinivas_intermediate, UCB_NEEDS),
        ClaimSpec(c("D3_information"), E.information, INFO_NEEDS),
        ClaimSpec(c("K1_calibration"), None, frozenset({"innov"}), sample="innov"),
    ]


#: GP-UCB runs with the width √β_t of the theorem checked (``width_t``): Theorem 1's, or that of a theorem of your
#: own checked like it; the confidence event and Lemmas 5.2–5.4 read the same width
SCHEDULES = {"gp_ucb": "width_t"}


#: Theorem 2 on a compact box: the continuum engine's family (boundcheck.claims.families.continuum)
def rkhs_compact_claims(c) -> list[ClaimSpec]:
    """Theorem 3 on a box: the regret, Theorem 6's confidence bound at the chosen points, the optimism step at x_t
    and x* (the certified maximiser), the optimiser's use of the argmax and the chain rule."""
    B = BoxEvaluator
    return [
        ClaimSpec(c("regret_bound"), B.regret_bound_rkhs, bound=bound_at_horizon),
        ClaimSpec(c("regret_bound_anytime"), B.regret_bound_anytime_rkhs, bound=bound_anytime),
        ClaimSpec(c("confidence_chosen"), B.confidence_chosen),
        ClaimSpec(c("D1_optimism"), B.igp_optimism),
        ClaimSpec(c("optimiser_gap"), B.optimiser_gap),
        ClaimSpec(c("D3_information"), B.information),
    ]


FAMILIES = (KernelizedFamily(srinivas.THEOREM, claims, SCHEDULES), BoxFamily(srinivas.COMPACT_THEOREM),
            BoxFamily(srinivas.RKHS_THEOREM, rkhs_compact_claims))
