"""Paper 001's algorithms: ET-GP-UCB (Algorithm 1), R-GP-UCB with its two readings of "reset every N", and
Bogunovic et al.'s TV-GP-UCB (with the oracle variant told the true prior, the reference curve of paper 000)."""

from __future__ import annotations

from .et_gp_ucb import ETGPUCB
from .et_gp_ucb_box import ETGPUCBBox
from .r_gp_ucb import RGPUCB, RGPUCBAfter
from .tv_gp_ucb import TVGPUCB, OracleTVGPUCB
from .tv_gp_ucb_box import TVGPUCBBox

#: (name, factory, kwargs): the paper's policies (its manifest's ``policies`` part)
POLICIES = (
    ("et_gp_ucb", ETGPUCB, {}),
    ("r_gp_ucb_tv", RGPUCB, {}),
    ("r_gp_ucb_after", RGPUCBAfter, {}),
    ("tv_gp_ucb", TVGPUCB, {}),
    ("oracle_tv_gp_ucb", OracleTVGPUCB, {}),
    # on the continuum [0,1]² with Table 4's practical β_t = 0.4 log(4t) (Table 2 as the paper ran it)
    ("et_gp_ucb_box", ETGPUCBBox, {"c1": 0.4, "c2": 4.0}),
    # on the continuum with Theorem 1's β_t (the study's width): et_gp_ucb_compact's algorithm
    ("et_gp_ucb_box_theory", ETGPUCBBox, {"name": "et_gp_ucb_box_theory", "label": "ET-GP-UCB"}),
    # TV-GP-UCB on the continuum, told the scenario's ε (tv_gp_ucb_compact)
    ("tv_gp_ucb_box", TVGPUCBBox, {}),
)
