"""The family protocol: how one theorem is instantiated on a scenario and checked on simulated runs.

A :class:`Family` owns, for one theorem (a :class:`theory.Theorem` object):

* its claim table (:class:`~boundcheck.claims.table.ClaimSpec`: one owner per claim) and the per-chunk
  evaluator class whose methods compute the claims' statistics from the trajectories;
* :meth:`instantiate`: every number the chunks share (certified γ curves, schedules β_t / ξ_t, the explicit
  bound and its anytime curve), as a :class:`TheoremInstance` computed once in the parent process;
* :meth:`evaluate`: one chunk's ``runs`` and ``steps`` tables.

Families are objects, and so is everything they hold: workers receive them pickled, never a name to look up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np
import pandas as pd

from theory import Theorem

from ...errors import BoundcheckError
from ...model.priors import GPPrior, RKHSFamily
from ...world.assumptions import Conditions, evaluate
from ...world.scenario import Scenario
from ...world.trajectory import Trajectories
from ..conformance import identity_reasons, with_conformance
from ..table import ClaimSpec, claim_columns

__all__ = ["TheoremInstance", "Family", "ChunkEvaluator", "Observer", "steps_table", "gamma_curves", "check_bound",
           "check_schedule", "not_a_number"]


@runtime_checkable
class Observer(Protocol):
    """A truth-side monitor of a round that a family registers on its :class:`TheoremInstance`.

    The engine (:func:`boundcheck.study.engine.simulate`), which alone sees the truth, calls :meth:`observe` at
    every step, after the policy's choice and before its update, for every monitored policy whose
    :meth:`~boundcheck.policies.Policy.models` has the role ``needs``; what it returns is stored as that
    policy's monitors (declared by the policy in ``monitors``)."""

    #: the model role (:data:`boundcheck.policies.base.MODEL_ROLES`) a policy must expose to be observed
    needs: ClassVar[str]

    def observe(self, t: int, models: Mapping[str, object], f_t: np.ndarray, available: np.ndarray,
                action: np.ndarray, y: np.ndarray, actions, cache: dict) -> dict[str, np.ndarray]:
        """(m,) values by monitor name; ``cache`` is shared by the policies of the round (e.g. the truth's
        draw ``cache["draw"]`` and what one observer computes once for all policies)."""
        ...


@dataclass
class TheoremInstance:
    """A theorem instantiated on one scenario at one horizon and δ: the numbers every chunk shares."""

    horizon: int
    delta: float
    values: dict[str, float]  # the theorem's bound symbols
    beta: np.ndarray  # (T+1,) β_t used by the theorem's algorithm (scaled)
    xi: np.ndarray  # (T+1,)
    B: float
    C: float
    bound_T: float
    bound_terms: dict[str, float]
    anytime: np.ndarray  # (T,) Bound_T(t), t = 1..T
    gamma_upper: np.ndarray  # (T,) certified upper bound on γ_t
    gamma_lower: np.ndarray  # (T,) greedy lower end
    gamma_methods: dict[str, float]  # method -> value at T (max over kernel groups)
    group_gamma_upper: dict[str, np.ndarray] = field(default_factory=dict)  # kernel_key -> (T,)
    schedules: dict[str, np.ndarray] = field(default_factory=dict)  # further (T+1,) schedules (baselines' β, …)
    gamma_used: np.ndarray | None = None  # (T,) the γ_t the schedules and the bound use
    extra: dict[str, float] = field(default_factory=dict)  # family-specific constants (e.g. a tight bound form)
    #: truth-side monitors of a round the family registers (:class:`Observer`), called by the engine in order
    observers: tuple[Observer, ...] = ()
    #: checked algorithm -> the PolicySpec of the theorem's own algorithm that runs beside it as its shadow
    #: (:mod:`boundcheck.claims.conformance`); empty: no shadow (the checked code is the theorem's algorithm)
    shadows: dict[str, object] = field(default_factory=dict)


def gamma_curves(groups: Mapping[str, tuple[np.ndarray, float]], horizon: int, noise_var: float,
                 batch: int = 1) -> tuple[np.ndarray, np.ndarray, dict, dict]:
    """Certified γ_t bracket for t = 1..T, maximised over the distinct (K, ε) of a theorem's models."""
    from ...model.mig import gamma_bracket  # the parent instantiates; workers never need it

    uppers, lowers, methods, per_group = [], [], {}, {}
    for key, (K, eps) in groups.items():
        br = gamma_bracket(K, horizon, noise_var=noise_var, eps=eps, batch=batch)
        per_group[key] = br.upper
        uppers.append(br.upper)
        lowers.append(br.lower)
        for name, curve in br.methods.items():
            v = float(curve[-1])
            methods[name] = v if name not in methods or not np.isfinite(methods[name]) else max(methods[name], v)
    return np.max(uppers, axis=0), np.max(lowers, axis=0), methods, per_group


# ------------------------------------------------------------------------------------- the bound, validated
def not_a_number(value: object) -> str | None:
    """What keeps one value of a bound or a schedule from being a finite real number, in words (None: it is one).
    A complex value whose parts are not both finite is what sympy's ``zoo`` (complex infinity) evaluates to."""
    c = complex(value)
    if c.imag != 0:  # a NaN imaginary part too
        if not (np.isfinite(c.real) and np.isfinite(c.imag)):
            return "complex infinity (sympy's zoo), not a real number"
        return f"complex ({c.real:.6g}{c.imag:+.6g}j), not a real number"
    if c.real != c.real:
        return "NaN, not a number"
    if np.isinf(c.real):
        return (f"{'+' if c.real > 0 else '−'}∞, not a finite number: a number overflows (the values are too large "
                "for floating point) or the expression divides by 0")
    return None


def real_or_complex(value: object) -> np.ndarray:
    """A schedule's values as a float array, or as a complex one where an imaginary part is not 0 (then refused by
    :func:`check_schedule`, instead of numpy dropping the imaginary part with a warning)."""
    a = np.asarray(value)
    if np.iscomplexobj(a) or a.dtype == object:
        a = a.astype(complex)
        if (np.imag(a) != 0).any():
            return a
        return np.real(a).astype(float)
    return a.astype(float)


def _where(t: float | None, horizon: float | None) -> str:
    if t is None:
        return "these values"
    shown = f"{int(t)}" if abs(t) < 1e16 else f"{t:g}"  # a horizon set to 1e300 is not printed in 301 digits
    return f"t = T = {shown}" if horizon is not None and t == horizon else f"t = {shown}"


def check_bound(name: str, terms: Mapping[str, object], steps: Sequence[int] | np.ndarray | None = None, *,
                horizon: float | None = None, anytime: bool = False, positive: bool = False,
                form: str | None = None) -> None:
    """The one validation of a theorem's explicit bound, for every command: ``verify``, ``sweep`` and ``power``
    through the families' instantiation (:meth:`Family.check_instance`), ``boundcheck bound`` at the values set.

    ``terms``: each term's values at ``steps`` (arrays aligned with them, or scalars; None: one evaluation at
    the values given). Refused, with one line that names the theorem ``name`` (the user's own id: a family that
    checks it under the id of the theorem it is checked like says which, :attr:`Family.theorem_name`), the step
    and the term: a term that is NaN, ±∞ or complex (sympy's ``zoo`` too) at some step; a bound (the sum of its
    terms) below 0 at some step, which no regret can satisfy and so would be judged "violated" about a statement
    that says nothing; and, with ``positive`` (the theorem's bound is positive for every value of its symbols,
    by sympy's assumptions), a bound of 0 at the horizon (it underflowed). ``anytime``: the values are Bound_T(t)
    of the anytime form. 0 at t < T is allowed: a paper's rate γ_1 = 0 makes Bound(1) = 0. ``form``: another form
    of the bound that a claim compares the regret with (its ``terms`` are schedules of the theorem, by name)."""
    kind = "anytime term" if anytime else "schedule" if form else "bound term"
    form = form or ("the anytime bound Bound_T(t)" if anytime else "the explicit bound")
    at = [None] if steps is None else [float(s) for s in np.atleast_1d(np.asarray(steps))]
    vals = {}
    for k, v in terms.items():
        a = np.asarray(v)
        vals[k] = np.broadcast_to(a.astype(complex) if a.dtype == object else a, (len(at),))
    if not vals:
        return
    with np.errstate(invalid="ignore"):
        bad = np.zeros(len(at), bool)
        for a in vals.values():
            bad |= ~np.isfinite(a) | (np.imag(a) != 0)
    if bad.any():
        i = int(np.argmax(bad))  # the first step where some term is not a finite real number
        k = next(k for k, a in vals.items() if not_a_number(a[i]) is not None)
        what = not_a_number(vals[k][i])
        head = "is not a real number" if what.startswith("complex") else "is not finite"
        raise BoundcheckError(f"theorem {name!r}: {form} {head} at {_where(at[i], horizon)}: {kind} {k!r} is {what}")
    real = {k: np.real(a).astype(float) for k, a in vals.items()}
    total = np.sum(list(real.values()), axis=0)
    if (total < 0).any():
        i = int(np.argmax(total < 0))
        k = min(real, key=lambda k: real[k][i])
        raise BoundcheckError(
            f"theorem {name!r}: {form} is negative at {_where(at[i], horizon)} ({total[i]:.6g}; {kind} {k!r} = "
            f"{real[k][i]:.6g}): a regret bound below 0 holds for no algorithm, so it is not checked; the values are "
            "outside the range the theorem is stated for, or the bound is mistyped")
    if positive and total[-1] == 0 and (horizon is None or at[-1] in (None, horizon)):
        raise BoundcheckError(
            f"theorem {name!r}: {form} is 0 at {_where(at[-1], horizon)} ({kind}(s) {', '.join(map(repr, real))} all "
            "0), although its expression is positive for every value of its symbols: a term underflows at these "
            "values")


def check_schedule(name: str, values: np.ndarray, *, delta: float, beta_scale: float = 1.0,
                   label: str = "the width schedule of its algorithm") -> None:
    """A schedule the study runs with or a claim reads (t = 0..T, entry 0 unused), finite and real at every step:
    refused with one line that names the theorem ``name``, the first step and the value. A threshold that is NaN
    would make the comparison of its claim false at every step, the claim "holds" whatever happened; extreme
    inputs (δ = 5e-324, β × 1e308) overflow; a theorem of your own may divide by 0."""
    w = np.asarray(values)[1:]
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(w) | (np.imag(w) != 0)
    if bad.any():
        i = int(np.argmax(bad))
        raise BoundcheckError(f"theorem {name!r}: {label} is not finite at t = {i + 1} (T = {w.size}, "
                              f"δ = {float(delta):g}" + (f", β × {beta_scale:g}" if beta_scale != 1 else "")
                              + f"): it is {not_a_number(w[i])}; choose a larger δ or a smaller β scale")


def steps_table(traj: Trajectories, beta: np.ndarray, columns: Sequence[str],
                extra: Mapping[str, Mapping[str, np.ndarray]] | None = None, *,
                at: np.ndarray | None = None) -> pd.DataFrame:
    """The tidy ``steps`` table: one row per (run, algorithm, t), with the policy records named in
    ``columns`` (when the policy has them), every truth-side monitor and the (m, T) columns ``extra[algorithm]``
    a family derives from them. Single-arm actions store the chosen index and the noise; super arms (K > 1)
    store their size ``n_arms`` instead.

    ``at``: only the steps t in ``at`` (ascending, 1-based), with only the cumulative regret and the prior used
    (a long horizon's table reduced to what the replication figures read, :attr:`Family.steps_at`); None: every
    step and column."""
    m, T = traj.run_ids.size, traj.horizon
    single = traj.noise_arms.shape[-1] == 1
    frames = []
    if at is not None:
        at = np.asarray(at, dtype=np.int64)
        for name, tr in traj.algorithms.items():
            d = {"run": np.repeat(traj.run_ids, at.size), "algorithm": name, "t": np.tile(at, m),
                 "cum_regret": np.cumsum(tr.regret, axis=1)[:, at - 1].ravel()}
            if "prior" in tr.steps:
                d["prior"] = tr.steps["prior"][:, at - 1].ravel()
            frames.append(pd.DataFrame(d))
        steps = pd.concat(frames, ignore_index=True)
        steps["algorithm"] = steps["algorithm"].astype("category")
        return steps
    for name, tr in traj.algorithms.items():
        d = {
            "run": np.repeat(traj.run_ids, T), "algorithm": name, "t": np.tile(np.arange(1, T + 1), m),
            "idx": tr.idx.ravel(), "regret": tr.regret.ravel(),
            "cum_regret": np.cumsum(tr.regret, axis=1).ravel(), "noise": traj.noise.ravel(),
            "beta": np.tile(beta[1:], m),
        } if single else {  # super arms of K > 1 base arms (−1: padding): their size, no single index
            "run": np.repeat(traj.run_ids, T), "algorithm": name, "t": np.tile(np.arange(1, T + 1), m),
            "n_arms": (tr.actions >= 0).sum(axis=2).ravel(), "regret": tr.regret.ravel(),
            "cum_regret": np.cumsum(tr.regret, axis=1).ravel(), "beta": np.tile(beta[1:], m),
        }
        for k in columns:
            if k in tr.steps:
                d[k] = tr.steps[k].ravel()
        for source, cols in (("truth-side monitor", tr.monitors), ("derived column", (extra or {}).get(name, {}))):
            for k, v in cols.items():
                if k in d and k in tr.steps:  # a policy's record is never overwritten silently
                    raise BoundcheckError(f"algorithm {name!r}: its record {k!r} has the name of a {source}; "
                                          "rename the record")
                d[k] = np.asarray(v, dtype=float).ravel()
        frames.append(pd.DataFrame(d))
    steps = pd.concat(frames, ignore_index=True)
    steps["algorithm"] = steps["algorithm"].astype("category")
    return steps


class ChunkEvaluator:
    """Per-chunk computations shared by a family's claim statistics (subclasses add cached quantities)."""

    def __init__(self, traj: Trajectories, scenario: Scenario, inst: TheoremInstance, main: str) -> None:
        self.traj, self.sc, self.inst, self.main = traj, scenario, inst, main
        self.m, self.T = traj.run_ids.size, traj.horizon
        self.t = np.arange(1, self.T + 1, dtype=float)


class Family:
    """Base class of a theorem family (see the module docstring). Subclasses set ``evaluator_class``,
    ``claim_table`` (called once per theorem), ``step_columns`` and implement the instantiation hooks."""

    evaluator_class: type[ChunkEvaluator] = ChunkEvaluator
    step_columns: tuple[str, ...] = ()
    #: the steps t the stored steps table keeps (None: all, with every column); a long-horizon study sets it on
    #: its own copy of the family (``reproduce`` at T = 30 000: cumulative regret every T/1000 steps)
    steps_at: np.ndarray | None = None
    #: what a scenario's truth must be for this family's claims to be computable: f drawn from a GP prior
    #: (``GPPrior``) and/or a fixed RKHS function (``RKHSFamily``); see :meth:`check_scenario`
    truth_types: tuple[type, ...] = (GPPrior, RKHSFamily)
    #: records without which no claim of the family can be evaluated on a checked policy (its evaluator reads
    #: them for every claim); a checked policy lacking them is refused, others get "not applicable" claims
    requires: frozenset[str] = frozenset()
    #: the id the family's messages name, where it is not its theorem's: a theorem of your own is checked by a copy
    #: of the family of the theorem it is checked like, holding its content under that theorem's id
    #: (:class:`~boundcheck.claims.families.checked_as.CheckedAs` sets it to the user's id)
    shown_id: str | None = None
    #: the domains the family's claims are computed on: "finite" (a finite set of points, the engine of
    #: :mod:`boundcheck.study.engine`) or "box" (a compact box, :mod:`boundcheck.study.continuum`)
    domain_kind: ClassVar[str] = "finite"

    def __init__(self, theorem: Theorem) -> None:
        self.theorem = theorem
        self.claims: tuple[ClaimSpec, ...] = tuple(self.claim_table())
        ids = [c.id for c in self.claims]
        want = [c.id for c in theorem.claims]
        if ids != want:
            raise BoundcheckError(f"family of {theorem.id}: claim table {ids} does not match the theorem's {want}")
        # every theorem with a checkable algorithm also gets the generic conformance claim (claims.conformance)
        self.claims = with_conformance(self.claims, theorem)

    # ------------------------------------------------------------------ what the theorem is about
    @property
    def main(self) -> str:
        return self.theorem.algorithm

    @property
    def algorithms(self) -> tuple[str, ...]:
        return self.theorem.algorithms

    @property
    def theorem_name(self) -> str:
        """The theorem's id as the user knows it (:attr:`shown_id`, else the id of the theorem held)."""
        return self.shown_id or self.theorem.id

    @property
    def schedules_read(self) -> tuple[str, ...]:
        """The schedules of its theorem this family reads, each from the theorem it holds (never from the paper's
        module): the width of the theorem's algorithm and every schedule a claim or the bound's instantiation
        reads. A theorem checked like this one must define each
        (:func:`~boundcheck.claims.families.checked_as.check_like`), and each is used. A baseline run beside the
        theorem's algorithm may take its width from the theorem of the paper that states it; that is not read from
        the theorem checked. The base's instantiation reads β_t and ξ_t (:meth:`schedules`)."""
        return ("beta_t", "xi_t")

    def claim_table(self) -> Sequence[ClaimSpec]:  # pragma: no cover
        raise NotImplementedError

    def needs(self) -> frozenset[str]:
        """Every record of the theorem's algorithm that some claim reads."""
        return frozenset().union(*(c.needs for c in self.claims))

    def check_main_policy(self, declared: frozenset[str], policy_name: str) -> None:
        """Refuse, with one clear line, a theorem's algorithm that does not promise what the claims read."""
        missing = sorted(self.needs() - declared)
        if missing:
            raise BoundcheckError(f"policy {policy_name!r} does not record {', '.join(missing)}, which the claims "
                                  f"of {self.theorem.id} read (declare them in its `records`)")

    def check_scenario(self, scenario: Scenario) -> None:
        """Refuse, with one line, a scenario whose truth the claims cannot be computed on (a theorem of one
        family run on a scenario of another). Assumptions that merely fail are not refused here: they make
        the study out of theory."""
        box = getattr(scenario, "box", None) is not None
        if box != (self.domain_kind == "box"):
            have = "a compact box" if box else "a finite set of points"
            need = "a compact box ([domain] box)" if self.domain_kind == "box" else "a finite set of points"
            raise BoundcheckError(
                f"theorem {self.theorem.id} cannot be checked on scenario {scenario.name!r}: its domain is {have}, "
                f"the theorem is stated on {need} (scenarios for {self.theorem.id}: "
                f"{', '.join(self.theorem.scenarios)})")
        if not isinstance(scenario.truth, self.truth_types):
            kinds = {GPPrior: "f drawn from a GP prior", RKHSFamily: "a fixed function of an RKHS (known norm)"}
            have = kinds.get(type(scenario.truth), type(scenario.truth).__name__)
            need = " or ".join(kinds.get(t, t.__name__) for t in self.truth_types)
            raise BoundcheckError(
                f"theorem {self.theorem.id} cannot be checked on scenario {scenario.name!r}: its truth is {have}, "
                f"the theorem needs {need} (scenarios for {self.theorem.id}: {', '.join(self.theorem.scenarios)})")

    # ------------------------------------------------------------------ does the theorem apply?
    def assumption_rows(self, scenario: Scenario, beta_scale: float = 1.0,
                        conditions: Conditions | None = None) -> list[dict]:
        """Each assumption of the theorem with the answer of its predicate on the scenario and the algorithm's
        configuration: {text, predicate, ok, how}."""
        cond = conditions or Conditions(beta_scale=beta_scale)
        rows = []
        for a in self.theorem.assumptions:
            ok, how = evaluate(a.predicate, scenario, cond)
            rows.append({"text": a.text, "predicate": a.predicate, "ok": ok, "how": how})
        return rows

    def unmet_assumptions(self, scenario: Scenario, conditions: Conditions | None = None) -> list[str]:
        """Why the theorem does not apply to this scenario (its own label, then every assumption it breaks),
        leaving out the explicit negative-control settings (β scaling, planted defects)."""
        reasons = []
        if not scenario.in_theory and scenario.out_of_theory_reason:
            reasons.append(scenario.out_of_theory_reason)
        for row in self.assumption_rows(scenario, conditions=Conditions()):
            if row["ok"] is False:
                reasons.append(f"assumption not met: {row['text']} ({row['how']}) [predicate {row['predicate']}]")
        return reasons

    def out_of_theory_reasons(self, scenario: Scenario, beta_scale: float = 1.0,
                              conditions: Conditions | None = None) -> list[str]:
        """Why a study is outside the theorem: the scenario's own label, every theorem assumption it fails (a
        scenario cannot claim to be in theory while breaking an assumption), β scaling, planted defects."""
        cond = conditions or Conditions(beta_scale=beta_scale)
        reasons = self.unmet_assumptions(scenario, cond)
        if cond.beta_scale != 1.0:
            reasons.append(f"β scaled by {cond.beta_scale:g} (the theorem needs the theoretical β)")
        for d in cond.defects:
            reasons.append(f"planted defect: {d}")
        return reasons

    # ------------------------------------------------------------------ instantiation hooks
    def bound_values(self, scenario: Scenario, horizon: int, delta: float) -> dict[str, float]:  # pragma: no cover
        raise NotImplementedError

    def gamma_groups(self, scenario: Scenario) -> dict[str, tuple[np.ndarray, float]]:  # pragma: no cover
        raise NotImplementedError

    def gamma_noise_var(self, scenario: Scenario) -> float:  # pragma: no cover
        raise NotImplementedError

    def gamma_used(self, scenario: Scenario, gamma_upper: np.ndarray) -> np.ndarray:
        return gamma_upper

    def schedules(self, scenario: Scenario, values: dict, gamma_used: np.ndarray) -> dict[str, np.ndarray]:
        """(T+1,) schedules: ``beta`` (the theorem's algorithm's width, before --beta-scale), optionally ``xi``,
        and further schedules by name passed to every policy (a baseline's own β)."""
        T = int(values["T"])
        t = np.arange(T + 1, dtype=float)
        t[0] = 1.0
        th = self.theorem
        return {"beta": np.asarray(th.schedule_values("beta_t", t, values), dtype=float),
                "xi": np.asarray(th.schedule_values("xi_t", t, values), dtype=float)}

    def extra_constants(self, values: dict) -> dict[str, float]:
        return {}

    def check_instance(self, terms: Mapping[str, object], anytime_terms: Mapping[str, object] | None, horizon: int,
                       width: np.ndarray, delta: float, beta_scale: float = 1.0,
                       schedules: Mapping[str, np.ndarray] | None = None) -> None:
        """Every family's instantiation calls this before it builds its :class:`TheoremInstance`: the width its
        algorithm runs with and the further ``schedules`` (t = 0..T, by name: the baselines' widths, the
        thresholds its claims read) finite (:func:`check_schedule`), then the bound's ``terms`` at T and, where the
        theorem has an anytime form, ``anytime_terms`` at t = 1..T (:func:`check_bound`); each refused in one line
        naming :attr:`theorem_name`."""
        T = int(horizon)
        check_schedule(self.theorem_name, width, delta=delta, beta_scale=beta_scale)
        for key, values in (schedules or {}).items():
            check_schedule(self.theorem_name, values, delta=delta, beta_scale=beta_scale,
                           label=f"the schedule {key!r} of the study")
        check_bound(self.theorem_name, terms, [T], horizon=T, positive=self._bound_positive())
        if anytime_terms:
            check_bound(self.theorem_name, anytime_terms, np.arange(1, T + 1), horizon=T, anytime=True)

    def _bound_positive(self) -> bool:
        """Whether sympy's assumptions make the theorem's bound positive for every value of its symbols."""
        return bool(self.theorem.bound.is_positive)

    def max_step_regret(self, scenario: Scenario, inst: TheoremInstance) -> tuple[float, str] | None:
        """(r_max, why): a bound on every instantaneous regret (on the event that makes it true), or None.
        A regret-bound claim whose bound is at least r_max·t at every t it checks cannot be violated by any
        algorithm on that event: it is vacuous at these settings and is shown outside the verdict."""
        return None

    def vacuous_claims(self, scenario: Scenario, inst: TheoremInstance) -> dict[str, str]:
        """Regret-bound claims this instance makes vacuous (claim id -> the reason, for the reports)."""
        out = identity_reasons(inst)  # no shadow ran: conformance holds by construction
        rm = self.max_step_regret(scenario, inst)
        if rm is None:
            return out
        r_max, why = rm
        T = inst.horizon
        t = np.arange(1, T + 1, dtype=float)
        ids = {c.id for c in self.claims}
        trivial = r_max * T
        if "regret_bound" in ids and inst.bound_T >= trivial:
            out["regret_bound"] = (f"vacuous at these settings: Bound(T) = {inst.bound_T:.4g} ≥ {trivial:.4g} = "
                                   f"r_max·T, the largest regret any algorithm can incur {why}")
        if "regret_bound_anytime" in ids and np.all(np.asarray(inst.anytime) >= r_max * t):
            out["regret_bound_anytime"] = (f"vacuous at these settings: Bound_T(t) ≥ r_max·t for every t ≤ T "
                                           f"(r_max = {r_max:.4g}, {why})")
        tight = inst.extra.get("bound_tight")
        if "regret_bound_tight" in ids and tight is not None and tight >= trivial:
            out["regret_bound_tight"] = (f"vacuous at these settings: the tight bound {tight:.4g} ≥ {trivial:.4g} = "
                                         f"r_max·T {why}")
        return out

    def inapplicable_claims(self, scenario: Scenario, inst: TheoremInstance) -> dict[str, str]:
        """Claims whose premise this instance does not meet (claim id -> why): judged "not applicable", outside
        the budget and the verdict (unlike a vacuous claim, which is true here and shown as an identity)."""
        return {}

    def instantiate(self, scenario: Scenario, horizon: int, delta: float, beta_scale: float = 1.0) -> TheoremInstance:
        """Every number the chunks share: certified γ curves, schedules, the bound and its anytime curve."""
        th, T = self.theorem, int(horizon)
        values = self.bound_values(scenario, T, delta)
        g_up, g_lo, g_methods, per_group = gamma_curves(self.gamma_groups(scenario), T,
                                                        self.gamma_noise_var(scenario))
        g_used = np.asarray(self.gamma_used(scenario, g_up), dtype=float)
        values["gamma_T"] = float(g_used[-1])
        # extreme inputs (δ = 5e-324, β × 1e308) overflow here: refused below in one line, without numpy's warnings
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            sched = {k: real_or_complex(v) for k, v in self.schedules(scenario, values, g_used).items()}
            beta, xi = sched.pop("beta"), sched.pop("xi", np.zeros(T + 1))
            beta = beta * beta_scale
            bound = th.evaluate(values)
            anytime, anytime_terms = np.nan, None
            if th.anytime_terms is not None:
                at = th.evaluate_anytime(values, np.arange(1, T + 1, dtype=float), g_used)
                anytime, anytime_terms = at["value"], at["terms"]
        self.check_instance(bound["terms"], anytime_terms, T, beta, delta, beta_scale, {"xi": xi, **sched})

        def constant(name: str) -> float:
            return float(th.schedule_values(name, 1.0, values)) if name in th.schedules else float("nan")

        return TheoremInstance(
            horizon=T, delta=float(delta), values=values, beta=beta, xi=xi, B=constant("B"), C=constant("C"),
            bound_T=float(bound["value"]), bound_terms={k: float(v) for k, v in bound["terms"].items()},
            anytime=np.broadcast_to(np.asarray(anytime, dtype=float), (T,)).copy(),
            gamma_upper=g_up, gamma_lower=g_lo, gamma_methods=g_methods, group_gamma_upper=per_group,
            schedules=sched, gamma_used=g_used, extra=self.extra_constants(values),
        )

    # ------------------------------------------------------------------ evaluation of one chunk
    def main_diagnostics(self, ev: ChunkEvaluator) -> dict[str, np.ndarray]:
        """Per-run columns of the theorem's algorithm that are not claims (regret, tightness, …)."""
        return {}

    def derived_steps(self, ev: ChunkEvaluator) -> dict[str, np.ndarray]:
        """(m, T) steps-table columns of the checked algorithm derived from its records (e.g. GP-TS's draws
        standardised with the theorem's schedule, a calibration claim's sample)."""
        return {}

    def baseline_columns(self, ev: ChunkEvaluator, name: str) -> dict[str, np.ndarray]:
        Rr = ev.traj.algorithms[name].regret.sum(axis=1)
        return {"regret": Rr, "tightness": Rr / ev.inst.bound_T}

    def evaluate(self, traj: Trajectories, scenario: Scenario, inst: TheoremInstance, seed: int,
                 main: str | None = None, *, checked: Sequence[str] | None = None,
                 skip: Mapping[str, Mapping[str, str]] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
        """One chunk's ``runs`` table (claims of the checked algorithm ``main``, default the theorem's own, and
        the baselines' statistics) and ``steps``.

        ``checked``: several algorithms whose claims are evaluated (default ``(main,)``, e.g. two user
        implementations compared); ``skip``: algorithm -> {claim id: reason} for claims that do not apply to it."""
        main = main or self.main
        checked = tuple(checked) if checked else (main,)
        skip = skip or {}
        base = {"run": traj.run_ids, "seed": seed}
        frames, ev, extra = [], None, {}
        for name in checked:
            ev_name = self.evaluator_class(traj, scenario, inst, name)
            ev = ev or ev_name
            row = {**base, "algorithm": name, **self.main_diagnostics(ev_name),
                   **claim_columns(self.claims, ev_name, skip.get(name, {}))}
            frames.append(pd.DataFrame(row))
            extra[name] = self.derived_steps(ev_name)
        for name in traj.algorithms:
            if name not in checked:
                frames.append(pd.DataFrame({**base, "algorithm": name, **self.baseline_columns(ev, name)}))
        return pd.concat(frames, ignore_index=True), steps_table(traj, inst.beta, self.step_columns, extra,
                                                                 at=self.steps_at)
