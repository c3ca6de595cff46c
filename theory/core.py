"""Types shared by every theorem module: Theorem, Claim, Assumption, Correction, and common schedules.

This layer is pure sympy. It holds no numerical state and imports nothing from ``boundcheck``: the engine
turns the expressions into numbers with :func:`sympy.lambdify`, and the reports print the very same
expressions, so what is checked and what is shown cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

import sympy as sp

__all__ = [
    "S",
    "Claim",
    "Assumption",
    "Correction",
    "Theorem",
    "Domain",
    "STANDARD_DOMAINS",
    "symbol_domain",
    "ClaimKind",
    "GuaranteeKind",
    "srinivas_C",
]

ClaimKind = Literal["probability", "expectation", "deterministic", "calibration", "identity", "equality"]
GuaranteeKind = Literal["high_probability", "expectation", "deterministic"]


class _Symbols:
    """Shared symbols. Names are the ones users pass to ``boundcheck bound --set NAME=VALUE``."""

    T = sp.Symbol("T", positive=True)  # horizon
    t = sp.Symbol("t", positive=True)  # step
    delta = sp.Symbol("delta", positive=True)  # confidence parameter
    R = sp.Symbol("R", positive=True)  # noise standard deviation
    n_X = sp.Symbol("n_X", positive=True)  # |X|, size of the finite domain
    n_U = sp.Symbol("n_U", positive=True)  # |U|, number of candidate priors
    gamma_T = sp.Symbol("gamma_T", nonnegative=True)  # (certified upper bound on) max information gain
    mu_max = sp.Symbol("mu_max", nonnegative=True)  # max_{x,t} |mu^{p*}(x,t)|
    kappa = sp.Symbol("kappa", positive=True)  # sup_x k(x,x)
    # per-step information gains, bound to a whole curve by the engine (never ``--set`` by users):
    gamma_t = sp.Symbol("gamma_t", nonnegative=True)  # γ_t at step t, in anytime bounds Bound_T(t)
    gamma_tm1 = sp.Symbol("gamma_tm1", nonnegative=True)  # γ_{t−1}, in schedules such as IGP-UCB's β_t


S = _Symbols()


@dataclass(frozen=True)
class Domain:
    """Where a bound symbol may take values: the interval the theorem's hypotheses allow, and whether the
    symbol counts something (an integer). ``boundcheck bound`` refuses values outside it, so a bound is never
    evaluated where the theorem says nothing (a negative B, a fractional horizon)."""

    lower: float | None = None
    upper: float | None = None
    lower_open: bool = False
    upper_open: bool = False
    integer: bool = False

    def contains(self, value: float) -> bool:
        v = float(value)
        if v != v or (self.integer and not (abs(v) < float("inf") and v.is_integer())):
            return False
        if self.lower is not None and (v < self.lower or (self.lower_open and v == self.lower)):
            return False
        return not (self.upper is not None and (v > self.upper or (self.upper_open and v == self.upper)))

    def describe(self) -> str:
        """``an integer ≥ 1``, ``a number in (0, 1)``, ``a number > 0``, ``a number ≥ 0``."""
        what = "an integer" if self.integer else "a number"
        lo, hi = self.lower, self.upper
        if lo is not None and hi is not None:
            return f"{what} in {'(' if self.lower_open else '['}{lo:g}, {hi:g}{')' if self.upper_open else ']'}"
        if lo is not None:
            return f"{what} {'>' if self.lower_open else '≥'} {lo:g}"
        if hi is not None:
            return f"{what} {'<' if self.upper_open else '≤'} {hi:g}"
        return what


#: domains of the shared symbols that their sympy assumptions cannot express (counts, δ)
STANDARD_DOMAINS: dict[sp.Symbol, Domain] = {
    S.T: Domain(1, integer=True),
    S.t: Domain(1, integer=True),
    S.n_X: Domain(1, integer=True),
    S.n_U: Domain(1, integer=True),
    S.delta: Domain(0, 1, lower_open=True, upper_open=True),
}


def symbol_domain(symbol: sp.Symbol) -> Domain:
    """A symbol's domain: :data:`STANDARD_DOMAINS`, else its sympy assumptions (``integer``, ``positive``,
    ``nonnegative``); a symbol declared with none of them may be any real number."""
    if symbol in STANDARD_DOMAINS:
        return STANDARD_DOMAINS[symbol]
    integer = bool(symbol.is_integer)
    if symbol.is_positive:
        return Domain(1 if integer else 0, lower_open=not integer, integer=integer)
    if symbol.is_nonnegative:
        return Domain(0, integer=integer)
    return Domain(integer=integer)


_ONE = sp.Integer(1)


def _ieee(fn: Callable[..., object], args: list) -> object:
    """``fn(*args)`` for a lambdified expression. Where Python floats raise instead of following IEEE arithmetic
    (x/0, a power that overflows), the same call in numpy floats, which give ±inf or NaN: a bound or schedule that
    is not a finite number at some value is then refused by the caller with the term and the step that make it so
    (``boundcheck.claims.families.base.check_bound``), instead of an exception from inside the expression."""
    try:
        return fn(*args)
    except (ZeroDivisionError, OverflowError):
        import numpy as np  # only here: this layer is sympy, the numbers are the caller's

        with np.errstate(all="ignore"):
            return fn(*[np.float64(a) if isinstance(a, int | float) else a for a in args])


def srinivas_C(R: sp.Expr = S.R, kappa: sp.Expr = _ONE) -> sp.Expr:
    """C(κ) = 2κ / log(1 + κ R⁻²): s² ≤ C/2 · log(1 + R⁻² s²) for s² ∈ [0, κ] (Srinivas et al., Lemma 5.4)."""
    return 2 * kappa / sp.log(1 + kappa / R**2)


@dataclass(frozen=True)
class Claim:
    """A statement a proof rests on (or the theorem's conclusion), checked on every run.

    ``kind`` and the one number that goes with it:

    * ``probability``: an event that fails with probability at most ``alpha`` (a sympy expression in the
      bound symbols, e.g. δ/2);
    * ``expectation``: E[X] ≤ ``expectation_bound``;
    * ``deterministic``: an implication that must hold in every run where its premise holds;
    * ``calibration``: a distributional identity (innovations i.i.d. N(0, 1));
    * ``identity``: a sanity identity true by construction (no planted defect can move it), shown outside
      the verdict;
    * ``equality``: a stochastic identity E[X] = c (the statistic is X − c per run): a two-sided test, violated
      when rejected, holds otherwise (e.g. Lemma A.4 of paper 002: it fails when the posterior is not the law
      of f).

    How large a test's error may be (its share of the false-alarm budget) is not a property of the claim:
    the verification layer's error budget decides it (``boundcheck.claims.budget``).
    """

    id: str
    kind: ClaimKind
    statement: str
    source: str
    alpha: sp.Expr | float | None = None  # probability claims: allowed failure probability
    main: bool = False  # the theorem's own conclusion (as opposed to a lemma)
    expectation_bound: sp.Expr | float | None = None  # expectation claims: E[X] ≤ this

    def __post_init__(self) -> None:
        if (self.kind == "probability") != (self.alpha is not None):
            raise ValueError(f"claim {self.id}: a probability claim needs alpha (and only it has one)")
        if (self.kind == "expectation") != (self.expectation_bound is not None):
            raise ValueError(f"claim {self.id}: an expectation claim needs expectation_bound (and only it)")


@dataclass(frozen=True)
class Assumption:
    """A hypothesis of the theorem. ``predicate`` names the check (``boundcheck.world.assumptions``) that
    answers it for a scenario *and* the algorithm's configuration (the models it is given, β scaling); a
    verify whose scenario breaks one is "not applicable" unless run explicitly outside the theorem."""

    text: str
    predicate: str  # name of the engine predicate that checks a scenario against it


@dataclass(frozen=True)
class Correction:
    """A paper typo or gap, and what boundcheck implements instead."""

    id: str
    location: str
    paper: str
    implemented: str
    reason: str
    changes_computation: bool = True


@dataclass(frozen=True)
class Theorem:
    """Everything the engine, the checks and the reports need to know about one theorem."""

    id: str
    title: str
    paper: str  # its paper: the text file of a built-in paper (outside the repository), else a citation
    source: str  # e.g. "Ziomek et al. 2024, Theorem 4.1"
    guarantee: GuaranteeKind
    symbols: Mapping[str, tuple[sp.Symbol, str]]  # bound symbol name -> (symbol, meaning)
    bound_terms: Mapping[str, sp.Expr]  # named terms; the explicit bound is their sum
    printed: str  # the paper's printed form (LaTeX), for display only
    schedules: Mapping[str, sp.Expr]  # beta_t, xi_t, B, C ...: functions of t and the bound symbols
    assumptions: tuple[Assumption, ...]
    claims: tuple[Claim, ...]
    corrections: tuple[Correction, ...]
    default_scenario: str
    scenarios: tuple[str, ...]  # built-in scenarios that satisfy every assumption
    algorithms: tuple[str, ...]  # the theorem's own algorithm first, then the baselines compared with it
    anytime_terms: Mapping[str, sp.Expr] | None = None  # Bound_T(t): symbol t, gamma_T read as gamma_t
    anytime_note: str = ""
    notes: tuple[str, ...] = ()
    controls: tuple[str, ...] = ()  # negative-control scenarios: break an assumption (--allow-out-of-theory)
    constraints: tuple[sp.Basic, ...] = ()  # relations the bound symbols must satisfy (e.g. H ≤ T), beyond their
    # sympy assumptions (positive, nonnegative, integer); checked on user input by ``boundcheck bound``
    domains: Mapping[str, Domain] = field(default_factory=dict)  # overrides of symbol_domain, by symbol name
    #: a theorem without a family of its own (a user's bound in a file, docs/extending.md) names the theorem whose
    #: family checks it: it is checked like that theorem, with its own bound, schedules, claims and assumptions
    family: str = ""
    #: the full reference (authors (year), title, venue, arXiv id) where it is not the one of the paper manifest that
    #: declares the theorem (theory.plugins.Paper.reference), e.g. a cited paper's theorem checked beside a paper's
    #: own; display only (compare=False: not part of a study's resume key)
    reference: str = field(default="", compare=False)
    # not an __init__ argument: dataclasses.replace(theorem, …) must not share the lambdified functions of another
    # bound (a twin with another bound would evaluate the original one)
    _cache: dict = field(default_factory=dict, init=False, compare=False, repr=False)

    @property
    def algorithm(self) -> str:
        """The algorithm the theorem is about (the first of ``algorithms``)."""
        return self.algorithms[0]

    def __getstate__(self) -> dict:  # lambdified functions stay behind: workers rebuild them on demand
        state = {f: getattr(self, f) for f in self.__dataclass_fields__ if f != "_cache"}
        return state

    def __setstate__(self, state: dict) -> None:
        for k, v in state.items():
            object.__setattr__(self, k, v)
        object.__setattr__(self, "_cache", {})

    def __fingerprint__(self) -> dict:
        fp = {"id": self.id, "bound": str(self.bound), "schedules": {k: str(v) for k, v in self.schedules.items()},
              "claims": [(c.id, c.kind, str(c.alpha), str(c.expectation_bound)) for c in self.claims]}
        if self.family:  # only when set: the resume keys of the theorems with a family of their own stay as they were
            fp["family"] = self.family
        return fp

    # ----------------------------------------------------------------- expressions
    @property
    def bound(self) -> sp.Expr:
        """The explicit bound at the horizon: the sum of ``bound_terms``."""
        return sp.Add(*self.bound_terms.values())

    @property
    def free_names(self) -> list[str]:
        return list(self.symbols)

    def domain(self, name: str) -> Domain:
        """Where the bound symbol ``name`` may take values (``domains`` entry, else :func:`symbol_domain`)."""
        return self.domains[name] if name in self.domains else symbol_domain(self.symbols[name][0])

    def _lambdified(self, key: str, exprs: Mapping[str, sp.Expr], extra: tuple[sp.Symbol, ...] = ()):
        if key not in self._cache:
            syms = [s for s, _ in self.symbols.values()] + list(extra)
            self._cache[key] = {name: sp.lambdify(syms, e, "numpy") for name, e in exprs.items()}
        return self._cache[key]

    def evaluate(self, values: Mapping[str, float]) -> dict[str, float | dict[str, float]]:
        """Numerical value of the explicit bound and of each term (numpy arrays broadcast)."""
        missing = [n for n in self.symbols if n not in values]
        if missing:
            raise KeyError(f"missing values for {', '.join(missing)}")
        fns = self._lambdified("bound", self.bound_terms)
        args = [values[n] for n in self.symbols]
        terms = {name: _ieee(fn, args) for name, fn in fns.items()}
        return {"value": sum(terms.values()), "terms": terms}

    def evaluate_anytime(self, values: Mapping[str, float], t, gamma_t) -> dict[str, object]:
        """Bound_T(t) for arrays ``t`` (steps) and ``gamma_t`` (certified γ upper bound at each t).

        Anytime terms that contain the symbol ``S.gamma_t`` get the curve there and keep ``gamma_T`` as the
        horizon's value (e.g. an Azuma threshold fixed at T); terms written with ``gamma_T`` only read it as
        γ_t (the original convention)."""
        if self.anytime_terms is None:
            raise NotImplementedError(f"{self.id} has no anytime form")
        terms_expr = self.anytime_terms
        fns = self._lambdified("anytime", terms_expr, extra=(S.t, S.gamma_t))
        vals = dict(values)
        if not any(S.gamma_t in sp.sympify(e).free_symbols for e in terms_expr.values()):
            vals["gamma_T"] = gamma_t
        args = [vals[n] for n in self.symbols] + [t, gamma_t]
        terms = {name: _ieee(fn, args) for name, fn in fns.items()}
        return {"value": sum(terms.values()), "terms": terms}

    def schedule(self, name: str) -> Callable[..., object]:
        """A schedule (e.g. ``beta_t``) as a numpy function of (``t``, *bound symbols in order*, ``gamma_tm1``)."""
        key = f"sched:{name}"
        if key not in self._cache:
            syms = [S.t] + [s for s, _ in self.symbols.values()] + [S.gamma_tm1]
            self._cache[key] = sp.lambdify(syms, self.schedules[name], "numpy")
        return self._cache[key]

    def schedule_values(self, name: str, t, values: Mapping[str, float], gamma_tm1=None):
        """Schedule values at steps ``t``. Schedules that use γ_{t−1} (``S.gamma_tm1``) take it from
        ``gamma_tm1`` (an array aligned with ``t``); without it they read ``values["gamma_T"]`` (an upper
        bound on γ_{t−1} for every t ≤ T + 1, the form papers print)."""
        fn = self.schedule(name)
        g = values.get("gamma_T", 0.0) if gamma_tm1 is None else gamma_tm1
        return _ieee(fn, [t, *[values.get(n, 0.0) for n in self.symbols], g])

    def claim(self, claim_id: str) -> Claim:
        for c in self.claims:
            if c.id == claim_id:
                return c
        raise KeyError(claim_id)
