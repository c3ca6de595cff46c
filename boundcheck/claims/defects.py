"""Planted defects: the library a verification is shown to catch (``boundcheck power``, ``verify --defect``).

A defect is a *wrapper*, never a switch inside an algorithm: it wraps the checked algorithm's
:class:`~boundcheck.policies.PolicySpec` (the context it is told, or a model it exposes through
:meth:`~boundcheck.policies.Policy.models`), transforms the scenario (the truth or the data's noise), or
transforms the theorem instance (a defect of the verification itself). Running a theorem's claims against every
defect measures which claims catch what, with what probability: the power of the verification.

This module holds the generic defects, which act through declared interfaces only. Each needs one *hook*
(:data:`HOOKS`) and applies to the theorems whose paper declares that hook for them: a paper's ``defects`` part
defines ``HOOKS`` (theorem id -> the hooks its algorithm and family offer) and ``DEFECTS``, its own defects. The
defects that change the world make the study fall outside the theorem, which is what a negative control is.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

import numpy as np

from theory import plugins

from ..errors import BoundcheckError
from ..model.noise import parse_noise_law
from ..model.priors import GPPrior, RKHSFamily
from ..policies import Policy, PolicySpec
from ..world.scenario import Scenario
from .families.base import TheoremInstance

__all__ = ["Defect", "DEFECTS", "HOOKS", "GENERIC", "get_defect", "defects_for", "hooks_of", "wrap_policy",
           "patch_start", "after_start", "register_defect"]

#: the hooks a generic defect may need, and what a theorem offering one promises
HOOKS = {
    "width": "the checked algorithm reads its width (β_t, √β_t or GP-TS's v_t) from the context's schedules",
    "likelihood": "its model uses the context's likelihood variance λ",
    "update": "it learns from the (action, y) pairs given to update() (any algorithm)",
    "conditioning": "it exposes the model it conditions on the data (the ``posterior`` role, else ``block``)",
    "prediction": "its exposed ``posterior`` runs a prediction step between steps (the ε chain's Kalman predict)",
    "gp_truth": "the theorem's f is drawn from a GP prior (a truth outside the model is a different GP)",
    "rkhs_norm": "the theorem's f is an RKHS function whose norm the study knows (and can make 3× too large)",
    "data_noise": "the data's noise law is the scenario's (any study)",
    "oracle": "the algorithm chooses through the action set's oracle (a sign error there picks its worst action)",
    "bound": "the claims compare the regret with the explicit bound of the theorem instance",
    "box_conditioning": "a box policy conditions the ContinuousPosterior it exposes as ``posterior`` on its data",
    "box_prior": "a box policy's model uses the context's kernel (its lengthscale)",
    "box_optimiser": "a box policy maximises its acquisition from the candidates of ``_candidates``",
    "box_truth": "the theorem's f is a GP sample path on a box (BoxScenario: its truth's lengthscale and scale)",
}


@dataclass(frozen=True)
class Defect:
    """One planted defect: ``policy`` wraps the checked algorithm's spec, ``scenario`` transforms the scenario,
    ``instance`` transforms the theorem instance (the bound's evaluation).

    Where it applies is declared: ``theorems``, the ids a paper's own defect names; ``needs``, the hook
    (:data:`HOOKS`) of a generic defect, which applies to every theorem whose paper declares that hook.
    ``after``: the generic defect this one follows in a theorem's list (None: after all of them); the power
    tables draw each defect's subsets from a stream keyed by its position, so the order is part of the
    results."""

    name: str
    description: str
    theorems: tuple[str, ...] = ()
    policy: Callable[[PolicySpec], PolicySpec] | None = None
    scenario: Callable[[Scenario], Scenario] | None = None
    instance: Callable[[TheoremInstance], TheoremInstance] | None = None
    needs: str | None = None
    after: str | None = None

    def __post_init__(self) -> None:
        if self.needs is not None and self.needs not in HOOKS:
            raise ValueError(f"defect {self.name!r}: unknown hook {self.needs!r} (known: {', '.join(HOOKS)})")

    def applies(self, theorem_id: str) -> bool:
        return theorem_id in self.theorems or (self.needs is not None and self.needs in hooks_of(theorem_id))

    @property
    def applies_to(self) -> tuple[str, ...]:
        """Every theorem the defect applies to (reads every paper's declarations)."""
        _load()
        ids = list(self.theorems) + [t for t, hooks in _HOOKS_OF.items() if self.needs in hooks]
        return tuple(dict.fromkeys(ids))


# ------------------------------------------------------------------------------------ policy wrappers
def patch_start(pol: Policy, change: Callable) -> None:
    """Run the policy's own start on a changed context ``change(pol, ctx)`` (what the algorithm is told)."""
    start = pol.start

    def patched(ctx):
        start(change(pol, ctx))

    pol.start = patched


def after_start(pol: Policy, then: Callable[[Policy], None]) -> None:
    """Run ``then(pol)`` right after the policy's own start (its models exist then)."""
    start = pol.start

    def patched(ctx):
        start(ctx)
        then(pol)

    pol.start = patched


def _beta_scaled(pol: Policy, factor: float) -> None:
    def change(p, ctx):
        sched = dict(ctx.schedules)
        if p.name in sched:
            sched[p.name] = np.asarray(sched[p.name]) * factor
        return replace(ctx, beta=np.asarray(ctx.beta) * factor, schedules=sched)

    patch_start(pol, change)


def _noise_var_scaled(pol: Policy, factor: float) -> None:
    patch_start(pol, lambda p, ctx: replace(ctx, noise_var=ctx.noise_var * factor))


def _wrong_prior(pol: Policy, factor: float = 1.0, shift: float = 0.0) -> None:
    """The algorithm's model is told the prior GP(μ + ``shift``, ``factor``·K) (a wrong prior: over- or
    underconfident, or biased), while f is drawn from GP(μ, K) and the checks read the algorithm's own posterior."""
    def change(p, ctx):
        return replace(ctx, candidates=tuple(replace(c, mean=c.mean + shift, K=factor * c.K)
                                             for c in ctx.candidates))

    patch_start(pol, change)


def _no_prediction_step(pol: Policy) -> None:
    def then(p):
        p.models()["posterior"].propagate = lambda: None  # the ε Kalman predict never runs

    after_start(pol, then)


def _skip_conditioning(pol: Policy, t: int, update: Callable, action, y) -> None:
    """Call ``update`` while the model the policy conditions (and a pathwise sampler) ignore the observation."""
    models = pol.models()
    post, method = models.get("posterior"), "condition_batch"
    if post is None:  # a block posterior (event-triggered and restarted GP-UCB) conditions one point at a time
        post, method = models["block"], "condition"
    setattr(post, method, lambda *a, **k: None)
    paths = models.get("paths")
    if paths is not None:
        paths.observe = lambda *a, **k: None
    try:
        update(t, action, y)
    finally:
        delattr(post, method)
        if paths is not None:
            del paths.observe


def _dropped_observation(pol: Policy, every: int) -> None:
    update = pol.update

    def patched(t, action, y):
        if t % every == 0:
            _skip_conditioning(pol, t, update, action, y)
        else:
            update(t, action, y)

    pol.update = patched


def _stale_action(pol: Policy) -> None:
    """Off-by-one in t: y_t is conditioned at the previous step's point x_{t−1}."""
    update = pol.update
    prev: dict = {}

    def patched(t, action, y):
        a = prev.get("a", action)
        prev["a"] = np.array(action, copy=True)
        update(t, a, y)

    pol.update = patched


class _ArgminActions:
    """An action set whose oracle maximises −score: the algorithm picks its worst action (a sign error)."""

    def __init__(self, inner) -> None:
        self._inner = inner

    def __getattr__(self, name: str):
        return getattr(self._inner, name)

    def oracle(self, score: np.ndarray, available: np.ndarray) -> np.ndarray:
        return self._inner.oracle(-np.asarray(score), available)


def _argmin(pol: Policy) -> None:
    patch_start(pol, lambda p, ctx: replace(ctx, actions=_ArgminActions(ctx.actions)))


def _box_dropped_observation(pol, every: int) -> None:
    """A box policy whose every ``every``-th observation never reaches its posterior."""
    update = pol.update

    def patched(t, X, y):
        if t % every:
            return update(t, X, y)
        cond = pol.posterior.condition
        pol.posterior.condition = lambda *a, **k: None
        try:
            update(t, X, y)
        finally:
            pol.posterior.condition = cond

    pol.update = patched


def _box_prior_lengthscale(pol, factor: float) -> None:
    """A box policy told the SE prior with lengthscale × ``factor`` (a wrong prior) while f has the scenario's."""
    patch_start(pol, lambda p, ctx: replace(ctx, kernel=replace(ctx.kernel,
                                                                lengthscale=ctx.kernel.lengthscale * factor)))


def _box_crude_optimiser(pol, candidates: int = 4) -> None:
    """A box policy whose acquisition optimiser starts only from ``candidates`` Sobol points (no faces, corners or
    data): it settles in local maxima of the UCB (what a careless ``optimize_acqf`` call does)."""
    def then(p):
        p._candidates = lambda: p.sobol.draw(candidates)
        p.n_starts = 1

    after_start(pol, then)


def _box_argmin(pol) -> None:
    """A box policy that maximises −UCB: its acquisition and the gradient negated (a sign error: its worst point
    every step)."""
    def then(p):
        acquisition = p.acquisition

        def negated(t):
            acq = acquisition(t)

            def neg(X, rows, grad=True):
                v, g = acq(X, rows, grad)
                return -v, (None if g is None else -g)

            return neg

        p.acquisition = negated

    after_start(pol, then)


_WRAPPERS: dict[str, Callable] = {
    "beta_scaled": _beta_scaled, "noise_var_scaled": _noise_var_scaled, "no_prediction_step": _no_prediction_step,
    "dropped_observation": _dropped_observation, "stale_action": _stale_action, "argmin": _argmin,
    "wrong_prior": _wrong_prior, "box_dropped_observation": _box_dropped_observation,
    "box_prior_lengthscale": _box_prior_lengthscale, "box_crude_optimiser": _box_crude_optimiser,
    "box_argmin": _box_argmin,
}


def _build(base: PolicySpec, hook: str | Callable | tuple, params: tuple) -> Policy:
    """Build the base policy, then wrap the instance (module-level: picklable into worker processes)."""
    pol = base.make()
    for h in hook if isinstance(hook, tuple) else (hook,):
        (_WRAPPERS[h] if isinstance(h, str) else h)(pol, **dict(params))
    return pol


def wrap_policy(hook: str | Callable | tuple, **params) -> Callable[[PolicySpec], PolicySpec]:
    """A transform of the checked algorithm's spec that applies the wrapper ``hook`` to each instance: the name of
    a generic wrapper of this module, or a module-level function ``hook(pol, **params)`` (a paper's own, picklable
    by its name), or a tuple of them applied in order with the same ``params``."""
    def transform(spec: PolicySpec) -> PolicySpec:
        factory = functools.partial(_build, spec, hook, tuple(sorted(params.items())))
        return PolicySpec(spec.name, factory, {}, spec.label)

    return transform


# ------------------------------------------------------------------------------------ scenario transforms
def _truth_outside_model(sc: Scenario) -> Scenario:
    """f drawn from GP(μ^{p*}, 9k): a prior outside the candidates (k(x,x) = 9: f three times as large)."""
    if not isinstance(sc.truth, GPPrior):
        raise BoundcheckError(f"defect truth_outside_model needs a GP truth; {sc.name} has an RKHS truth")
    t = sc.truth
    truth = GPPrior(f"{t.name} with kernel ×9", t.mean, 9.0 * t.K, t.eps)
    return replace(sc, truth=truth, truth_index=None, reference_index=sc.monitor_index)


def _data_noise_doubled(sc: Scenario) -> Scenario:
    """The data's noise law scaled by 2 (``"gaussian"`` → ``"gaussian:2"``): the models still use R."""
    base, scale = parse_noise_law(sc.noise_law)
    return replace(sc, noise_law=f"{base}:{2.0 * scale!r}")


def _rkhs_norm_tripled(sc: Scenario) -> Scenario:
    if getattr(sc, "rkhs_norm", None) is not None:  # a box scenario's RKHS truth: drawn with three times the norm
        return replace(sc, rkhs_norm=3.0 * sc.rkhs_norm)
    fam = sc.truth
    if not isinstance(fam, RKHSFamily) or fam.generator == "values":
        raise BoundcheckError(f"defect rkhs_norm_tripled needs an RKHS truth with exact norms; {sc.name} has none")
    if fam.scale_to is not None:
        fam3 = replace(fam, scale_to=3.0 * fam.scale_to)
    elif fam.generator == "fixed":
        fam3 = replace(fam, alpha=3.0 * fam.alpha)
    else:
        raise BoundcheckError("defect rkhs_norm_tripled needs members of a known norm")
    return replace(sc, truth=fam3)


def _box_truth_rougher(sc: Scenario) -> Scenario:
    """A box scenario whose f is drawn with half the lengthscale (rougher than the algorithms' prior)."""
    if getattr(sc, "box", None) is None:
        raise BoundcheckError(f"defect box_truth_rougher needs a box scenario; {sc.name} is finite")
    from ..world.box_scenario import rescaled_truth

    return rescaled_truth(sc, lengthscale_factor=0.5)


def _box_truth_amplified(sc: Scenario) -> Scenario:
    """A box scenario whose f is five times a draw of the prior (derivatives 5×: beyond the proof's Lipschitz level)."""
    if getattr(sc, "box", None) is None:
        raise BoundcheckError(f"defect truth_amplified needs a box scenario; {sc.name} is finite")
    from ..world.box_scenario import rescaled_truth

    return rescaled_truth(sc, amplitude=5.0)


# ------------------------------------------------------------------------------------ instance transforms
def _bound_understated(inst: TheoremInstance, factor: float = 0.01) -> TheoremInstance:
    extra = {k: (v * factor if k.startswith("bound") else v) for k, v in inst.extra.items()}
    terms = {k: v * factor for k, v in inst.bound_terms.items()}  # the bound is the sum of its terms
    return replace(inst, bound_T=inst.bound_T * factor, anytime=inst.anytime * factor, extra=extra,
                   bound_terms=terms)


#: the generic defects, in the order every theorem's list starts with (a paper's own defects follow the one
#: they name in ``after``, else come last)
GENERIC: tuple[Defect, ...] = (
    Defect("beta_small", "the algorithm uses 0.1·β_t (its width, or GP-TS's v_t) while the checks use the theorem's",
           policy=wrap_policy("beta_scaled", factor=0.1), needs="width"),
    Defect("noise_var_small", "the model's likelihood variance λ is 4× too small (an overconfident posterior)",
           policy=wrap_policy("noise_var_scaled", factor=0.25), needs="likelihood"),
    Defect("stale_action", "off-by-one in t: each observation y_t is conditioned at the previous point x_{t−1}",
           policy=wrap_policy("stale_action"), needs="update"),
    Defect("dropped_observation", "every 5th observation never reaches the posterior",
           policy=wrap_policy("dropped_observation", every=5), needs="conditioning"),
    Defect("no_prediction_step", "the posterior skips the ε prediction step (Kalman predict) between steps",
           policy=wrap_policy("no_prediction_step"), needs="prediction"),
    Defect("truth_outside_model", "f is drawn from GP(μ^{p*}, 9k): a prior not among the algorithm's models",
           scenario=_truth_outside_model, needs="gp_truth"),
    Defect("noise_doubled", "the data's noise is twice as large (N(0, (2R)²)) while every model assumes R",
           scenario=_data_noise_doubled, needs="data_noise"),
    Defect("rkhs_norm_tripled", "‖f‖_k = 3B while the algorithms are given B", scenario=_rkhs_norm_tripled,
           needs="rkhs_norm"),
    Defect("argmin", "a sign error: the algorithm maximises −score, picking its worst action every step",
           policy=wrap_policy("argmin"), needs="oracle"),
    Defect("dropped_observation_box", "every 5th observation never reaches the box policy's posterior",
           policy=wrap_policy("box_dropped_observation", every=5), needs="box_conditioning"),
    Defect("prior_lengthscale_wrong", "the box policy's prior has the lengthscale ×2.5 (too smooth) while f has "
           "the scenario's", policy=wrap_policy("box_prior_lengthscale", factor=2.5), needs="box_prior"),
    Defect("crude_optimiser", "the acquisition maximised from 4 Sobol starts only: local maxima, not the argmax "
           "the theorem assumes", policy=wrap_policy("box_crude_optimiser", candidates=4), needs="box_optimiser"),
    Defect("truth_rougher", "f is drawn with half the prior's lengthscale (a rougher GP than the model)",
           scenario=_box_truth_rougher, needs="box_truth"),
    Defect("truth_amplified", "f is five times a draw of the prior (GP(0, 25k)): its derivatives beyond the proof's "
           "Lipschitz level", scenario=_box_truth_amplified, needs="box_truth"),
    Defect("bound_understated", "the explicit bound evaluated 100× too small (a constant lost in the theory module): "
           "a defect of the verification itself, which the bound checks must see", instance=_bound_understated,
           needs="bound"),
)

_GENERIC_ORDER = {d.name: i for i, d in enumerate(GENERIC)}
_HOOKS_OF: dict[str, frozenset[str]] = {}  # theorem id -> the hooks its paper declares


def _install(module) -> None:
    for tid, hooks in getattr(module, "HOOKS", {}).items():
        unknown = set(hooks) - set(HOOKS)
        if unknown:
            raise BoundcheckError(f"{module.__name__}: unknown defect hook(s) {', '.join(sorted(unknown))} for {tid}")
        _HOOKS_OF[tid] = frozenset(hooks)
    for d in getattr(module, "DEFECTS", ()):
        register_defect(d)


# the papers' ``defects`` parts (``HOOKS``, ``DEFECTS``), read on the first look-up of a defect
_REGISTRY = plugins.registry(
    "defects", _install, lambda name: BoundcheckError(f"a defect named {name!r} is already registered"))
for _d in GENERIC:
    _REGISTRY.add(_d.name, _d)


def register_defect(defect: Defect, *, replace: bool = False) -> Defect:
    """Add a defect to the library (a paper's ``DEFECTS`` are added when its ``defects`` part is read)."""
    if defect.after is not None and defect.after not in _GENERIC_ORDER:
        raise BoundcheckError(f"defect {defect.name!r}: 'after' must name a generic defect, not {defect.after!r}")
    return _REGISTRY.add(defect.name, defect, replace=replace)


def _load() -> dict[str, Defect]:
    return _REGISTRY.load()


def _library() -> dict[str, Defect]:
    """Every defect, in the order of the lists: each generic defect followed by the papers' defects that name it
    in ``after``, then the papers' other defects (registration order within each group)."""
    items = list(_load().values())
    slot = {d.name: (_GENERIC_ORDER[d.name], 0) if d.name in _GENERIC_ORDER
            else (_GENERIC_ORDER.get(d.after, len(GENERIC)), 1) for d in items}
    order = sorted(range(len(items)), key=lambda i: (*slot[items[i].name], i))
    return {items[i].name: items[i] for i in order}


class _Library(Mapping):
    """``DEFECTS``: the library by name, read lazily (the papers' defects parts are imported on first use)."""

    def __getitem__(self, name: str) -> Defect:
        return _library()[name]

    def __iter__(self):
        return iter(_library())

    def __len__(self) -> int:
        return len(_library())


DEFECTS: Mapping[str, Defect] = _Library()


def hooks_of(theorem_id: str) -> frozenset[str]:
    """The defect hooks the theorem's paper declares for it (none for a theorem no paper declares)."""
    _load()
    return _HOOKS_OF.get(theorem_id, frozenset())


def get_defect(name: str) -> Defect:
    found = _load().get(name)
    if found is None:
        raise BoundcheckError(f"unknown defect {name!r}; known: {', '.join(DEFECTS)}")
    return found


def defects_for(theorem_id: str) -> list[Defect]:
    """Every defect of the library that applies to the theorem, in the library's order."""
    return [d for d in _library().values() if d.applies(theorem_id)]
