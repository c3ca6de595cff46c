"""IGP-UCB and GP-TS (paper 004, Theorems 2–4), checked by the kernelized family it shares with Srinivas et al.'s
GP-UCB; the paper's own rate γ_t (§6, used in its replication mode) comes with them."""

from __future__ import annotations

from boundcheck.claims.families.kernelized import KernelizedFamily
from theory import igp_ucb_gp_ts

_RATES = (igp_ucb_gp_ts.PAPER_GAMMA_RATES, igp_ucb_gp_ts.RATE_SYMBOLS)
FAMILIES = tuple(KernelizedFamily(th, gamma_rates=_RATES) for th in igp_ucb_gp_ts.THEOREMS)
