"""Paper 003's algorithms: R-GP-UCB (Algorithm 1) and SW-GP-UCB (Algorithm 2), each with the β of its theorem and
with the β of the paper's pseudocode."""

from __future__ import annotations

from .compact import RestartGPUCBBox, SlidingWindowGPUCBBox
from .restart_gp_ucb import RestartGPUCB
from .sw_gp_ucb import SlidingWindowGPUCB

#: (name, factory, kwargs): the paper's policies (its manifest's ``policies`` part)
POLICIES = (
    ("r_gp_ucb_zs", RestartGPUCB, {}),
    ("r_gp_ucb_zs_pseudocode", RestartGPUCB, {"name": "r_gp_ucb_zs_pseudocode", "label": "R-GP-UCB (pseudocode β)"}),
    ("sw_gp_ucb", SlidingWindowGPUCB, {}),
    ("sw_gp_ucb_pseudocode", SlidingWindowGPUCB, {"name": "sw_gp_ucb_pseudocode", "label": "SW-GP-UCB (pseudocode β)"}),
    ("r_gp_ucb_box", RestartGPUCBBox, {}),  # the compact theorems' algorithms on the box (.compact)
    ("sw_gp_ucb_box", SlidingWindowGPUCBBox, {}),
)
