"""Paper 002's algorithms: combinatorial GP-UCB, GP-BUCB and GP-TS (Algorithm 1; :mod:`.comb_gp` its loop and
Algorithm 2's rectified oracle), the experiments' independent-Bayesian baselines and a random super arm. Each lives
in its own module; this one declares them."""

from __future__ import annotations

from .comb_bi import CombBI
from .comb_gp import COMB_MONITORS, INFINITE_MONITORS, rectified_mean
from .comb_gp_ts import CombGPTS, CombGPTSIndependent
from .comb_gp_ucb import CombGPUCB
from .comb_random import CombRandom

__all__ = ["CombGPUCB", "CombGPTS", "CombGPTSIndependent", "CombBI", "CombRandom", "COMB_MONITORS", "INFINITE_MONITORS",
           "rectified_mean", "POLICIES"]

#: (name, factory, kwargs): the paper's policies (its manifest's ``policies`` part)
POLICIES = (
    ("comb_gp_ucb", CombGPUCB, {"name": "comb_gp_ucb", "label": "GP-UCB"}),
    ("comb_gp_bucb", CombGPUCB, {"name": "comb_gp_bucb", "label": "GP-BUCB"}),
    ("comb_gp_ts", CombGPTS, {"joint": True}),
    ("comb_gp_ts_independent", CombGPTSIndependent, {}),
    ("comb_bi_ucb", CombBI, {"index": "ucb"}),
    ("comb_bi_bucb", CombBI, {"index": "bucb"}),
    ("comb_bi_ts", CombBI, {"index": "ts"}),
    ("comb_random", CombRandom, {}),
    # the paper's experiments (§4): Algorithm 2's rectified indices and Dijkstra, unmonitored, outside the theorems;
    # their β_t (ω = 1, ξ ∈ {1, 0.5}; UCB scaled by 0.5) come from the family's schedules under these names
    *((f"{n}_alg2", cls, {**kw, "name": f"{n}_alg2", "label": lab, "rectify": True, "monitored": False})
      for n, cls, kw, lab in (
          ("comb_gp_ucb", CombGPUCB, {}, "GP-UCB (Alg. 2)"),
          ("comb_gp_bucb", CombGPUCB, {}, "GP-BUCB ω=1, ξ=1 (Alg. 2)"),
          ("comb_gp_bucb_half", CombGPUCB, {}, "GP-BUCB ω=1, ξ=0.5 (Alg. 2)"),
          ("comb_gp_ucb_half", CombGPUCB, {}, "GP-UCB β×0.5 (Alg. 2)"),
          ("comb_gp_ts", CombGPTSIndependent, {}, "GP-TS per edge (Alg. 2)"),
          ("comb_bi_ucb", CombBI, {"index": "ucb"}, "BI-UCB (Alg. 2)"),
          ("comb_bi_bucb", CombBI, {"index": "bucb"}, "BI-BUCB (Alg. 2)"),
          ("comb_bi_ts", CombBI, {"index": "ts"}, "BI-TS (Alg. 2)"))),
)
