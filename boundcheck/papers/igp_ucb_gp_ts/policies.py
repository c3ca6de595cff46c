"""Paper 004's own box policy: GP-TS on Theorem 4's grids D_t (the compact form, ``gp_ts_compact``). IGP-UCB on the
box is the shared ``igp_ucb_box`` (:mod:`boundcheck.policies.box`); the finite ``gp_ts`` is a library policy."""

from __future__ import annotations

from .gp_ts_box import GPTSBox

#: (name, factory, kwargs): the paper's policies (its manifest's ``policies`` part)
POLICIES = (
    ("gp_ts_box", GPTSBox, {}),
)
