"""Algorithms behind one batched policy protocol (:class:`Policy`), and their registry.

A :class:`PolicySpec` is the picklable description of a policy (a class or factory and its keyword
arguments): it is what crosses process boundaries and what the resume key hashes. :func:`register` adds a
named policy; :func:`policy_spec` resolves a name, a class or a spec."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import BoundcheckError
from .base import Policy, RunContext, masked_argmax
from .combinatorial import REGISTRATIONS as _COMBINATORIAL
from .gp_ts import GPTS
from .gp_ucb import GPUCB
from .improvement import GPEI, GPPI
from .pe_gp_ucb import PEGPUCB
from .prior_selection import MLE, FullyBayesian
from .random_search import RandomSearch
from .regret_balancing import RegretBalancing
from .restart_gp_ucb import RestartGPUCB
from .sw_gp_ucb import SlidingWindowGPUCB
from .tv_gp_ucb import OracleTVGPUCB

__all__ = ["Policy", "RunContext", "masked_argmax", "PolicySpec", "register", "policy_spec", "make_policy",
           "policy_names"]


@dataclass(frozen=True)
class PolicySpec:
    """A policy as data: ``factory(**kwargs)`` builds a fresh instance named ``name``."""

    name: str
    factory: Callable[..., Policy]
    kwargs: dict = field(default_factory=dict)
    label: str | None = None

    def make(self) -> Policy:
        policy = self.factory(**self.kwargs)
        policy.name = self.name
        if self.label is not None:
            policy.label = self.label
        return policy

    @property
    def declared(self) -> type:
        """The policy class (for reading the declared records without building an instance)."""
        f = self.factory
        return f if isinstance(f, type) else type(self.make())


_REGISTRY: dict[str, PolicySpec] = {}


def register(name: str, factory: Callable[..., Policy], kwargs: dict | None = None, *, label: str | None = None,
             replace: bool = False) -> PolicySpec:
    """Register ``factory(**kwargs)`` under ``name``; returns its spec."""
    if name in _REGISTRY and not replace:
        raise BoundcheckError(f"a policy named {name!r} is already registered")
    spec = PolicySpec(name, factory, dict(kwargs or {}), label)
    _REGISTRY[name] = spec
    return spec


for _name, _factory, _kw in (
    ("pe_gp_ucb", PEGPUCB, {}),
    ("oracle_tv_gp_ucb", OracleTVGPUCB, {}),
    ("mle", MLE, {}),
    ("fully_bayesian", FullyBayesian, {}),
    ("regret_balancing", RegretBalancing, {}),
    ("regret_balancing_literal", RegretBalancing, {"reading": "i", "label": "regret balancing (literal reading)"}),
    ("random", RandomSearch, {}),
    ("gp_ucb", GPUCB, {"name": "gp_ucb", "label": "GP-UCB"}),
    ("igp_ucb", GPUCB, {"name": "igp_ucb", "label": "IGP-UCB"}),
    ("gp_ts", GPTS, {}),
    ("gp_ei", GPEI, {}),
    ("gp_pi", GPPI, {}),
    ("r_gp_ucb_zs", RestartGPUCB, {}),
    ("r_gp_ucb_zs_pseudocode", RestartGPUCB, {"name": "r_gp_ucb_zs_pseudocode", "label": "R-GP-UCB (pseudocode β)"}),
    ("sw_gp_ucb", SlidingWindowGPUCB, {}),
    ("sw_gp_ucb_pseudocode", SlidingWindowGPUCB, {"name": "sw_gp_ucb_pseudocode", "label": "SW-GP-UCB (pseudocode β)"}),
    *_COMBINATORIAL,
):
    register(_name, _factory, _kw)


def policy_names() -> list[str]:
    return list(_REGISTRY)


def policy_spec(policy: str | PolicySpec | type | Callable[..., Policy]) -> PolicySpec:
    """A registered name, a spec, a Policy subclass or a zero-argument factory, as a :class:`PolicySpec`."""
    if isinstance(policy, PolicySpec):
        return policy
    if isinstance(policy, str):
        try:
            return _REGISTRY[policy]
        except KeyError:
            raise BoundcheckError(f"unknown algorithm {policy!r}; known: {', '.join(_REGISTRY)}") from None
    if callable(policy):
        name = getattr(policy, "name", None)
        if not isinstance(name, str) or name in ("policy", ""):
            name = getattr(policy, "__name__", "user_policy")
        return PolicySpec(name, policy, {}, getattr(policy, "label", None) if isinstance(policy, type) else None)
    raise BoundcheckError(f"cannot use {policy!r} as a policy: give a name, a Policy class or a factory")


def make_policy(name: str) -> Policy:
    return policy_spec(name).make()
