"""``boundcheck list``, ``show``, ``bound``, ``gamma``: what boundcheck knows about theorems, as data (the CLI
renders it). Each function imports what it needs, so that ``list`` and ``--help`` stay fast."""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .. import __version__
from ..errors import BoundcheckError
from .resolve import resolve_scenario, resolve_theorem

if TYPE_CHECKING:

    from theory import Theorem

    from ..world.scenario import Scenario


def list_theorems() -> list[dict]:
    """id, paper, guarantee and default scenario of every installed theorem (``boundcheck list``).

    The theory modules are sympy (≈ 0.3 s to import); the rows are kept in the runtime's cache (``theorems``,
    :mod:`boundcheck.runtime.cache`) under a key made of the theory sources' names, sizes and modification times,
    the installed paper plugins (:func:`boundcheck.utils.discovery.installed_papers_key`) and the package version,
    so ``boundcheck list`` answers without importing sympy unless a theory module or a plugin changed."""

    from ..runtime import cache as runtime_cache
    from ..utils.discovery import installed_papers_key

    rows = None
    key = None
    store = runtime_cache("theorems", entries=16)
    spec = importlib.util.find_spec("theory")  # locates the package without importing it
    if spec is not None and spec.origin:
        root = Path(spec.origin).parent
        h = hashlib.sha1(__version__.encode())
        for f in sorted(root.glob("*.py")):
            st = f.stat()
            h.update(f"{f.name}:{st.st_size}:{st.st_mtime_ns};".encode())
        h.update(installed_papers_key().encode())  # a paper installed, removed or edited outside theory/
        key = f"list-{h.hexdigest()[:16]}"
        rows = store.read(key, ".json", lambda path: json.loads(path.read_text()))
    if rows is None:
        import theory

        rows = [{"id": th.id, "paper": th.source, "guarantee": th.guarantee,
                 "default_scenario": th.default_scenario} for th in theory.all_theorems()]
        if key is not None:  # a read-only or full disk: no cache, still correct
            store.write(key, ".json", lambda tmp: Path(tmp).write_text(json.dumps(rows)))
    return rows


def theorem_scenarios() -> list[tuple[str, str, list[str]]]:
    """(id, default scenario, its other scenarios) of every built-in theorem (``verify --help``)."""
    import theory

    return [(th.id, th.default_scenario, [sc for sc in th.scenarios if sc != th.default_scenario])
            for th in theory.all_theorems()]


def _claim_level(c) -> str | None:
    """A claim's own threshold: its allowed failure probability, or its expectation bound."""
    v = c.alpha if c.kind == "probability" else c.expectation_bound
    return None if v is None else str(v)


def theorem_reference(theorem: str | Theorem) -> str:
    """The full reference of the paper a theorem comes from (authors (year), title, venue, arXiv id): the
    theorem's own ``reference``, else that of the paper manifest declaring it, else its ``paper`` field where that
    is a citation (a theorem of your own) rather than a file name; "" when none is known. Never a path: the papers'
    texts are not part of the repository."""
    from theory import plugins

    th = resolve_theorem(theorem)
    if th.reference:
        return th.reference
    paper = plugins.paper_of_theorem(th.id)
    if paper is not None and paper.reference:
        return paper.reference
    text = str(th.paper or "").strip()
    return "" if not text or text.endswith(".txt") or "/" in text else text


def show_theorem(theorem: str | Theorem) -> dict:
    """Everything ``boundcheck show`` prints about a theorem, as JSON: the paper's reference
    (:func:`theorem_reference`), statement, explicit bound and its terms (sympy's ``str``, and LaTeX), schedules,
    symbols and their domains, assumptions, claims, corrections, scenarios, controls and algorithms."""
    import sympy as sp

    th = resolve_theorem(theorem)
    return {
        "id": th.id, "title": th.title, "source": th.source, "reference": theorem_reference(th),
        "guarantee": th.guarantee,
        "symbols": {k: meaning for k, (_, meaning) in th.symbols.items()},
        "domains": {k: th.domain(k).describe() for k in th.symbols},
        "bound": str(th.bound), "bound_terms": {k: str(v) for k, v in th.bound_terms.items()},
        "bound_latex": sp.latex(th.bound), "printed": th.printed,
        "schedules": {k: str(v) for k, v in th.schedules.items()},
        "assumptions": [a.text for a in th.assumptions],
        "claims": [{"id": c.id, "kind": c.kind, "level": _claim_level(c), "statement": c.statement,
                    "source": c.source} for c in th.claims],
        "corrections": [c.__dict__ for c in th.corrections],
        "default_scenario": th.default_scenario, "scenarios": list(th.scenarios),
        "controls": list(th.controls), "algorithms": list(th.algorithms),
        "bites_from": bound_horizons(th),
    }


def bound_horizons(theorem: str | Theorem, scenario: str | Scenario | None = None, *,
                   horizon: int | None = None) -> dict | None:
    """Where each regret bound of the theorem bites on a scenario (default its default scenario and horizon):
    vacuous there or not, and the smallest horizon at which it could be violated
    (:func:`boundcheck.study.bites.theorem_bites`); None for a theorem without a bound claim. Never raises: a
    failure is reported as {"error": …} (``boundcheck show`` stays a description)."""
    from ..claims.families import family_for
    from ..study.bites import theorem_bites

    th = resolve_theorem(theorem)
    try:
        fam = family_for(th)
        if not any(s.bound is not None for s in fam.claims):
            return None
        sc = resolve_scenario(scenario, th, horizon)
        return theorem_bites(fam, sc, horizon=horizon)
    except Exception as e:  # noqa: BLE001 - advisory
        return {"error": f"{type(e).__name__}: {e}"}


def _finite_result(th, what: str, value) -> float:
    from ..claims.families.base import not_a_number

    problem = not_a_number(value)
    if problem is not None:
        raise BoundcheckError(f"theorem {th.id!r}: the {what} is not finite at these values: it is {problem}")
    return float(value.real if isinstance(value, complex) else value)


def evaluate_bound(theorem: str | Theorem, values: dict[str, float]) -> dict:
    """``boundcheck bound``: the explicit bound, its terms and the schedules at t = T, at ``values`` of every
    bound symbol of the theorem (each in its domain: B > 0, γ_T ≥ 0, counts integral ≥ 1, δ ∈ (0, 1); the
    relations between symbols, e.g. H ≤ T, hold). One-line error on anything else, or on overflow."""

    import numpy as np

    from ..utils.validation import check_symbol_values

    th = resolve_theorem(theorem)
    unknown = [n for n in values if n not in th.symbols]
    if unknown:
        raise BoundcheckError(f"unknown symbol(s) {', '.join(unknown)} for {th.id}; "
                              f"symbols: {', '.join(th.symbols)}")
    missing = [n for n in th.symbols if n not in values]
    if missing:
        raise BoundcheckError(f"missing --set for {', '.join(missing)} (see `boundcheck show {th.id}`)")
    for name, v in values.items():  # each symbol in the domain its theorem gives it
        dom = th.domain(name)
        if not dom.contains(v):
            raise BoundcheckError(f"--set {name}={v:g}: {name} ({th.symbols[name][1]}) must be {dom.describe()} "
                                  f"for {th.id}")
    check_symbol_values(th, values)  # relations between symbols (e.g. H ≤ T)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            res = th.evaluate(values)
            schedules = {k: th.schedule_values(k, values.get("T", 1.0), values) for k in th.schedules}
        except (OverflowError, ZeroDivisionError, FloatingPointError):
            raise BoundcheckError(f"{th.id}: the bound cannot be evaluated at these values: they are too large "
                                  f"(overflow)") from None
    from ..claims.families.base import check_bound

    # the validation verify's instantiation applies too (NaN, ±∞, complex, negative, 0 where positive), at t = T
    T = float(values["T"]) if "T" in values else None
    check_bound(th.id, res["terms"], None if T is None else [T], horizon=T, positive=bool(th.bound.is_positive))
    return {"theorem": th.id, "values": values, "value": _finite_result(th, "explicit bound", res["value"]),
            "terms": {k: _finite_result(th, f"bound term {k}", v) for k, v in res["terms"].items()},
            "schedules": {k: _finite_result(th, f"schedule {k} (at t = T)", v) for k, v in schedules.items()}}


# ------------------------------------------------------------------------------------------------ gamma
MAX_NOISE = 1e100  # boundcheck gamma --noise R: R² is the noise variance


def gamma(kernel: str, horizon: int, *, lengthscale: float = 0.2, grid: int = 20, dim: int = 1, noise: float = 0.1,
          eps: float = 0.0, batch: int = 1, max_memory: int | str | None = None,
          status: Callable[[str], contextlib.AbstractContextManager] | None = None) -> dict:
    """``boundcheck gamma``: a certified bracket on the maximum information gain γ_T of ``kernel`` on a regular
    grid of ``grid``^``dim`` points in [0, 1]^dim, noise R (λ = R²), time variation ``eps`` ∈ [0, 1), ``batch``
    observations per round. Refused (one line) if its memory estimate exceeds ``max_memory`` (default: the memory
    available). ``status(text)``: a context manager shown while it computes (large brackets take minutes).
    Returns the bracket as JSON (lower, upper, methods)."""
    import math

    from ..model.kernels import check_lengthscale
    from ..model.mig import gamma_for_grid
    from ..utils.resources import MemoryEstimate, check_memory, gamma_memory, parse_size
    from ..utils.validation import check_int, check_positive, check_unit_interval

    check_lengthscale(lengthscale, "--lengthscale")
    if check_positive("--noise", noise) > MAX_NOISE:  # R² overflows beyond ≈ 1e154
        raise BoundcheckError(f"--noise {noise!r} is too large: at most {MAX_NOISE:g} (R² must be a finite number)")
    grid, dim = check_int("--grid", grid), check_int("--dim", dim)
    horizon, batch = check_int("--horizon", horizon), check_int("--batch", batch)
    if check_unit_interval("--eps", eps) == 1.0:
        raise BoundcheckError("--eps must be below 1 (ε = 1 forgets everything at every step)")
    limit = None if max_memory is None else parse_size(max_memory)
    n = grid**dim if dim * math.log10(max(grid, 1)) < 30 else 10**30
    check_memory(MemoryEstimate(f"the γ bracket (|X| = {grid}^{dim}, T·K = {horizon * batch})",
                                gamma_memory(n, horizon * batch)), limit,
                 hint="lower --horizon, --grid or --dim, or set --max-memory if you know better")
    with status(f"certified γ_T bracket: |X| = {grid}^{dim}, T = {horizon}, K = {batch}") if status else \
            contextlib.nullcontext():
        br = gamma_for_grid(kernel, lengthscale, grid, dim, noise, horizon, eps=eps, batch=batch)
    return br.to_dict()


def gamma_rate(kernel: str, dim: int) -> tuple[str, str]:
    """The asymptotic rate of γ_T for ``kernel`` in ``dim`` dimensions, and the note that says where it is from."""
    from theory.information_gain import NOTE, rate

    return rate(kernel, dim), NOTE
