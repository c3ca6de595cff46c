"""Algorithms behind one batched policy protocol (:class:`Policy`), and their registry.

A :class:`PolicySpec` is the picklable description of a policy (a class or factory and its keyword
arguments): it is what crosses process boundaries and what the resume key hashes. :func:`register` adds a
named policy; :func:`policy_spec` resolves a name, a class or a spec."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from theory import plugins

from ..errors import BoundcheckError
from .asktell import AskTellAdapter, AskTellContext, AskTellPolicy, is_ask_tell, remember_origin, user_policy_name
from .base import Policy, RunContext, masked_argmax
from .box_asktell import BoxAskTellAdapter, BoxAskTellContext, BoxAskTellPolicy, is_box_ask_tell
from .gp_ts import GPTS
from .gp_ucb import GPUCB
from .improvement import GPEI, GPPI
from .random_search import RandomSearch

__all__ = ["Policy", "RunContext", "masked_argmax", "PolicySpec", "register", "policy_spec", "make_policy",
           "policy_names", "AskTellPolicy", "AskTellContext", "AskTellAdapter", "is_ask_tell",
           "BoxAskTellPolicy", "BoxAskTellContext", "BoxAskTellAdapter", "is_box_ask_tell"]


@dataclass(frozen=True)
class PolicySpec:
    """A policy as data: ``factory(**kwargs)`` builds a fresh instance named ``name``.

    ``stream``: the index of the policy's random stream in every run (None: its position in the study), so
    that adding a policy to a study never changes the streams of the others (``api.build_study`` gives
    user algorithms the streams after the theorem's own algorithms)."""

    name: str
    factory: Callable[..., Policy]
    kwargs: dict = field(default_factory=dict)
    label: str | None = None
    stream: int | None = field(default=None, compare=False)

    def __reduce__(self):
        """A policy defined outside boundcheck (a user's file or test module) travels by value on every backend:
        its spec is pickled as cloudpickle bytes, so that a serializer that tries plain pickle first (dask)
        never pickles the user's class by a module name the workers cannot import."""
        state = (self.name, self.factory, self.kwargs, self.label, self.stream)
        if all(_is_ours(obj) for obj in (self.factory, *self.kwargs.values())):
            return (_spec_from_state, (state,))
        return (_spec_from_bytes, (_cloudpickle().dumps(state),))

    def make(self) -> Policy:
        policy = self.factory(**self.kwargs)
        policy.name = self.name
        if self.label is not None:
            policy.label = self.label
        return policy

    @property
    def declared(self) -> type:
        """The policy class, for reading the declared records (``records``, ``final_records``, ``monitors``,
        ``provides_posterior``, ``role``, ``label``, ``description``) without starting it; an unstarted instance
        for classes whose arguments decide the records (``declared_by_instance``, e.g. :class:`AskTellAdapter`)."""
        f = self.factory
        if isinstance(f, type):
            return self.make() if getattr(f, "declared_by_instance", False) else f
        return type(self.make())


def _is_ours(obj) -> bool:
    """Plain data, or code from boundcheck or theory (importable by name in every worker)."""
    if not callable(obj):
        return True
    return str(getattr(obj, "__module__", "")).split(".")[0] in ("boundcheck", "theory", "builtins", "functools")


def _cloudpickle():
    """The cloudpickle package (a declared dependency; joblib's vendored copy is private to it)."""
    import cloudpickle

    return cloudpickle


def _spec_from_state(state: tuple) -> PolicySpec:
    name, factory, kwargs, label, stream = state
    return PolicySpec(name, factory, kwargs, label, stream)


def _spec_from_bytes(data: bytes) -> PolicySpec:
    import pickle

    return _spec_from_state(pickle.loads(data))


def _box_policies():
    """The compact-domain policies (:mod:`boundcheck.policies.box`), imported here so that their names resolve."""
    from .box import POLICIES as BOX

    return BOX


def _install(module) -> None:
    for name, factory, kwargs in module.POLICIES:
        register(name, factory, kwargs)


# the algorithms several papers share are registered below; a paper's own come from its ``policies`` part
# (``POLICIES``: (name, factory, kwargs) triples), imported on the first look-up of one of its names
_REGISTRY = plugins.registry(
    "policies", _install, lambda name: BoundcheckError(f"a policy named {name!r} is already registered"))


def register(name: str, factory: Callable[..., Policy], kwargs: dict | None = None, *, label: str | None = None,
             replace: bool = False) -> PolicySpec:
    """Register ``factory(**kwargs)`` under ``name``; returns its spec."""
    return _REGISTRY.add(name, PolicySpec(name, factory, dict(kwargs or {}), label), replace=replace)


POLICIES = (
    ("random", RandomSearch, {}),
    ("gp_ucb", GPUCB, {"name": "gp_ucb", "label": "GP-UCB"}),
    ("igp_ucb", GPUCB, {"name": "igp_ucb", "label": "IGP-UCB"}),
    ("gp_ts", GPTS, {}),
    ("gp_ei", GPEI, {}),
    ("gp_pi", GPPI, {}),
)
for _name, _factory, _kw in POLICIES:
    register(_name, _factory, _kw)
for _name, _factory, _kw in _box_policies():
    register(_name, _factory, _kw)


def policy_names() -> list[str]:
    return list(_REGISTRY.load())


def policy_spec(policy: str | PolicySpec | type | Callable[..., Policy]) -> PolicySpec:
    """A registered name, a spec, a Policy subclass or a zero-argument factory, as a :class:`PolicySpec`."""
    if isinstance(policy, PolicySpec):
        return policy
    if isinstance(policy, str):
        found = _REGISTRY.find(policy)  # only the paper that declares the name
        if found is None:
            raise BoundcheckError(f"unknown algorithm {policy!r}; known: {', '.join(policy_names())}")
        return found
    if is_box_ask_tell(policy):  # the per-run form on a compact box
        remember_origin(policy)
        return PolicySpec(user_policy_name(policy), BoxAskTellAdapter, {"user": policy},
                          getattr(policy, "label", None))
    if is_ask_tell(policy):  # the per-run form: run through the adapter
        remember_origin(policy)
        return PolicySpec(user_policy_name(policy), AskTellAdapter, {"user": policy},
                          getattr(policy, "label", None))
    if callable(policy):
        name = getattr(policy, "name", None)
        if not isinstance(name, str) or name in ("policy", ""):
            name = getattr(policy, "__name__", "user_policy")
        return PolicySpec(name, policy, {}, getattr(policy, "label", None) if isinstance(policy, type) else None)
    raise BoundcheckError(f"cannot use {policy!r} as a policy: give a name, a Policy class, an ask/tell class "
                          "or a factory")


def make_policy(name: str) -> Policy:
    return policy_spec(name).make()
