"""The toy paper's family: how its theorems are checked on simulated runs.

It is the paper's own class. It reuses the core's kernelized family (the certified γ bracket, the bound values
T, δ, R, |D| from the scenario, and the claim statistics of :class:`KernelEvaluator`: the regret against the
bound, the confidence event from the engine's monitor max_x |f − μ_{t−1}|/σ_{t−1}, the optimism step, the
information chain rule) and says what is the toy paper's own: which claims its theorems have, and the widths
the algorithms use (the theorem's fixed √β for the toy algorithm, Srinivas et al.'s √β_t for the GP-UCB
baseline run beside it).
"""

from __future__ import annotations

import numpy as np

from boundcheck.claims.families.kernelized import UCB_NEEDS, KernelEvaluator, KernelizedFamily
from boundcheck.claims.table import ClaimSpec

from .theorems import THEOREMS


def claims(c) -> list[ClaimSpec]:
    """The toy theorems' claims (``c(id)`` is the theorem's Claim), each with the statistic that checks it."""
    E = KernelEvaluator
    return [
        ClaimSpec(c("regret_bound"), E.regret_bound),
        ClaimSpec(c("regret_bound_anytime"), E.regret_bound_anytime),
        ClaimSpec(c("confidence_event"), E.confidence_event, frozenset({"z_all"})),
        ClaimSpec(c("D1_optimism"), E.ucb_optimism, UCB_NEEDS),
        ClaimSpec(c("D3_information"), E.information, frozenset({"sigma"})),
    ]


#: the widths by policy name: the toy algorithm's fixed √β of Lemma 1 is the schedule ``width_t`` of the theorem
#: checked (it becomes the study's β; a theorem of your own checked like toy_ucb runs its own), and the GP-UCB
#: baseline runs with its own anytime width as the paper states it, whatever the theorem checked says
SCHEDULES = {"toy_ucb": "width_t", "gp_ucb": (THEOREMS[0], "gp_ucb_width_t")}


class ToyFamily(KernelizedFamily):
    """Known-horizon GP-UCB (the toy paper, Theorem 1 and its overstated twin)."""

    def baseline_columns(self, ev: KernelEvaluator, name: str) -> dict[str, np.ndarray]:
        """The baselines' regret, tightness and confidence events (their own self-normalised bound is not one
        of the toy paper's claims)."""
        d = {"regret": ev.traj.algorithms[name].regret.sum(axis=1)}
        d["tightness"] = d["regret"] / ev.inst.bound_T
        conf = ev.conf_fail(name)
        if conf is not None:
            d["fail_confidence_event"] = conf
        return d


FAMILIES = tuple(ToyFamily(th, claims, SCHEDULES) for th in THEOREMS)
