"""A theorem checked by another theorem's family: a researcher's own bound, written as a :class:`theory.Theorem`
in a file, that declares ``family="gp_ucb"`` ("check me like theorem gp_ucb"; docs/extending/theorem.md).

The family of the named theorem (the *reference*) does all the work: it instantiates the scenario, runs the
algorithms and computes every claim statistic. What comes from the user's theorem is its content: the explicit
bound and its anytime form, the schedules (β_t, …), the claims it lists (a subset of the reference's, each with its
own level), the assumptions, the algorithms and the scenarios. A family reads that content from the theorem it
holds; the family classes also dispatch on the theorem's id (which claim table, which schedule), so the
reference family is copied with a theorem that has the user's content under the *reference's* id, and this
wrapper presents the user's theorem (its own id: summaries, reports, resume keys) to the rest of boundcheck.

Everything is an object: the wrapper, the copied family and both theorems are pickled into worker processes
(a :class:`theory.Theorem` holds sympy expressions and its lambdified functions are rebuilt on demand).
"""

from __future__ import annotations

import copy
import dataclasses

import sympy as sp

from theory import S, Theorem

from ...errors import BoundcheckError
from ..conformance import CONFORMANCE
from .base import Family

__all__ = ["CheckedAs", "check_like"]

#: symbols the engine binds itself, beyond a theorem's declared bound symbols: the step t and γ_t in anytime
#: terms (Theorem.evaluate_anytime), t and γ_{t−1} in schedules (Theorem.schedule)
_ANYTIME_EXTRA = frozenset({S.t, S.gamma_t})
_SCHEDULE_EXTRA = frozenset({S.t, S.gamma_tm1})


def _names(items) -> str:
    return ", ".join(items) or "none"


def check_like(theorem: Theorem, reference: Family) -> None:
    """Refuse, with one line, a theorem that the reference family cannot check: a claim the family has no
    statistic for (or of another kind), a bound symbol the family does not supply, an expression in a symbol
    the theorem does not declare or that is sympy's ``zoo`` (complex infinity: x/0, log(0)) whatever the values,
    a schedule the family reads and the theorem lacks, an unknown assumption.

    The schedules a theorem must define are the reference family's :attr:`~.base.Family.schedules_read`: the width
    the theorem's algorithm runs with (``width_t`` for gp_ucb, ``beta_t`` for igp_ucb, ``v_t`` for gp_ts), and
    every schedule a claim reads or the instantiation evaluates (GP-TS's c̃_t, PE-GP-UCB's ξ_t, B, C, …). Each of
    them is read from the theorem checked, never from the reference's paper, so each is used: the study runs
    the theorem's own width and judges its claims with its own thresholds. The other schedules a theorem
    defines are shown (``boundcheck show``, ``bound``), not run; the baselines run beside the algorithm keep the
    widths their own papers state."""
    ref = reference.theorem
    who = f"theorem {theorem.id!r} (checked like {ref.id})"
    table = {c.id: c for c in reference.claims}
    ids = [c.id for c in theorem.claims]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise BoundcheckError(f"{who}: claim(s) {', '.join(dup)} listed twice")
    if not ids:
        raise BoundcheckError(f"{who} lists no claims; the family's claims: {_names(table)}")
    missing = [i for i in ids if i not in table]
    if missing:
        raise BoundcheckError(f"{who}: claim(s) {', '.join(missing)} do not exist in the family of {ref.id}; "
                              f"its claims: {_names(table)}")
    for c in theorem.claims:
        if c.kind != table[c.id].kind:
            raise BoundcheckError(f"{who}: claim {c.id} is a {c.kind} claim, the family of {ref.id} checks it as "
                                  f"a {table[c.id].kind} claim")
    extra = [n for n in theorem.symbols if n not in ref.symbols]
    if extra:
        raise BoundcheckError(f"{who}: bound symbol(s) {', '.join(extra)} are not supplied by the family of "
                              f"{ref.id}; its symbols: {_names(ref.symbols)}")
    declared = frozenset(sym for sym, _ in theorem.symbols.values())
    exprs = [(f"bound term {k}", e, declared) for k, e in theorem.bound_terms.items()]
    exprs += [(f"anytime term {k}", e, declared | _ANYTIME_EXTRA) for k, e in (theorem.anytime_terms or {}).items()]
    exprs += [(f"schedule {k}", e, declared | _SCHEDULE_EXTRA) for k, e in theorem.schedules.items()]
    for what, expr, allowed in exprs:
        if sp.sympify(expr).has(sp.zoo):  # it cannot even be turned into a function: refused before any number
            raise BoundcheckError(f"{who}: the {what} is zoo (complex infinity, e.g. x/0 or log(0)) at every t, "
                                  f"for every value of its symbols: {expr}")
        free = sp.sympify(expr).free_symbols - allowed
        if free:
            raise BoundcheckError(f"{who}: the {what} uses {_names(sorted(map(str, free)))}, which it does not "
                                  f"declare in `symbols` (declared: {_names(theorem.symbols)}; the step and the "
                                  "per-step γ are theory.S.t, S.gamma_t, S.gamma_tm1)")
    lacking = [k for k in reference.schedules_read if k not in theorem.schedules]
    if lacking:
        raise BoundcheckError(f"{who}: the family of {ref.id} reads the schedule(s) {', '.join(lacking)}, which "
                              f"the theorem does not define (its schedules: {_names(theorem.schedules)})")
    from ...world.assumptions import PREDICATES

    known = set(PREDICATES) | {a.predicate for a in ref.assumptions}
    unknown = [a.predicate for a in theorem.assumptions if a.predicate not in known]
    if unknown:
        raise BoundcheckError(f"{who}: unknown assumption predicate(s) {', '.join(unknown)}; known: "
                              f"{_names(sorted(known))}")
    if not theorem.algorithms:
        raise BoundcheckError(f"{who} names no algorithm (theorem.algorithms: the checked one first)")


class CheckedAs:
    """The family of ``reference`` checking ``theorem`` (see the module docstring). Every attribute but
    ``theorem`` is the copied reference family's: its claim table restricted to the theorem's claims, in the
    theorem's order, each joined with the theorem's own :class:`~theory.Claim` (statement, level)."""

    def __init__(self, reference: Family, theorem: Theorem) -> None:
        if isinstance(reference, CheckedAs):
            raise BoundcheckError(f"theorem {theorem.id!r} is checked like {reference.theorem.id}, which is itself "
                                  f"checked like {reference.inner.theorem.id}: name {reference.inner.theorem.id}")
        check_like(theorem, reference)
        inner = copy.copy(reference)
        # the user's content under the reference's id: the family class dispatches on the id
        inner.theorem = dataclasses.replace(theorem, id=reference.theorem.id, family="")
        inner.shown_id = theorem.id  # what its messages name (the bound refused, a width not finite)
        table = {c.id: c for c in reference.claims}
        inner.claims = tuple(dataclasses.replace(table[c.id], claim=c) for c in theorem.claims)
        if CONFORMANCE in table and CONFORMANCE not in {c.id for c in theorem.claims}:
            inner.claims = (*inner.claims, table[CONFORMANCE])  # the generic claim comes with the algorithm
        self.inner = inner
        self.theorem = theorem

    def __getattr__(self, name: str):
        if name.startswith("__") or name in ("inner", "theorem"):  # unpickling: nothing to delegate yet
            raise AttributeError(name)
        return getattr(self.inner, name)

    def __repr__(self) -> str:
        return f"CheckedAs({type(self.inner).__name__} of {self.inner.theorem.id}, {self.theorem.id!r})"
