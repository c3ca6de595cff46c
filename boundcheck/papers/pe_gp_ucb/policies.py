"""Paper 000's algorithms: PE-GP-UCB (Algorithm 1) and the baselines of its §7 — the prior-selection rules MLE and
fully Bayesian, and regret balancing (both readings of Appendix D)."""

from __future__ import annotations

from .pe_gp_ucb import PEGPUCB
from .prior_selection import MLE, FullyBayesian
from .regret_balancing import RegretBalancing

#: (name, factory, kwargs): the paper's policies (its manifest's ``policies`` part)
POLICIES = (
    ("pe_gp_ucb", PEGPUCB, {}),
    ("mle", MLE, {}),
    ("fully_bayesian", FullyBayesian, {}),
    ("regret_balancing", RegretBalancing, {}),
    ("regret_balancing_literal", RegretBalancing, {"reading": "i", "label": "regret balancing (literal reading)"}),
)
