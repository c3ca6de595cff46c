"""Algorithms behind one policy interface (``start``, ``select``, ``update``, ``finish``)."""

from __future__ import annotations

from collections.abc import Callable

from ..errors import BoundcheckError
from .base import Policy, RunContext, masked_argmax
from .gp_ts import GPTS
from .gp_ucb import GPUCB
from .improvement import GPEI, GPPI
from .pe_gp_ucb import PEGPUCB
from .prior_selection import MLE, FullyBayesian
from .random_search import RandomSearch
from .regret_balancing import RegretBalancing
from .tv_gp_ucb import OracleTVGPUCB

__all__ = ["Policy", "RunContext", "masked_argmax", "ALGORITHMS", "make_policy"]

ALGORITHMS: dict[str, Callable[[], Policy]] = {
    "pe_gp_ucb": PEGPUCB,
    "oracle_tv_gp_ucb": OracleTVGPUCB,
    "mle": MLE,
    "fully_bayesian": FullyBayesian,
    "regret_balancing": RegretBalancing,
    "regret_balancing_literal": lambda: RegretBalancing(reading="i"),
    "random": RandomSearch,
    "gp_ucb": lambda: GPUCB("gp_ucb", "GP-UCB"),
    "igp_ucb": lambda: GPUCB("igp_ucb", "IGP-UCB"),
    "gp_ts": GPTS,
    "gp_ei": GPEI,
    "gp_pi": GPPI,
}


def make_policy(name: str) -> Policy:
    try:
        factory = ALGORITHMS[name]
    except KeyError:
        raise BoundcheckError(f"unknown algorithm {name!r}; known: {', '.join(ALGORITHMS)}") from None
    policy = factory()
    policy.name = name
    return policy
