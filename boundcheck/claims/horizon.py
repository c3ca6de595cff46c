"""Where a vacuous bound would bite: for a regret-bound claim that is a sanity identity at the study's settings
(its bound at least the largest regret any algorithm could incur), the smallest horizon T* with
Bound(T*) < r_max(T*)·T*, from which a verify would test the theorem's bound.

The search doubles from the study's horizon, then bisects between the last two doubling points, up to
:data:`CAP` (10⁷ rounds); the figure is advisory (≈). Bound(T) is the claim's bound evaluated from the theorem's
sympy expression at the values a study at T would use (checked to reproduce the study's own bound first);
r_max is what the identity rule compared with. Beyond the study's horizon γ_T is computed by instantiating the
family at powers of two (:data:`EXACT_HORIZON`, :data:`EXACT_WORK`, :data:`EXACT_FACTOR`), then bracketed soundly
(lower end held; upper end by subadditivity and, for stationary kernels, the eigenvalue bound): ``T`` is where the
upper end bites, ``not_before`` where the lower end could.

What each quantity is and the measured horizons of every built-in theorem: docs/verdicts.md, "Where a vacuous
bound would bite".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from types import SimpleNamespace

import numpy as np

from ..errors import BoundcheckError
from .table import ClaimSpec

__all__ = ["CAP", "Bite", "Horizons", "bites_from", "first_crossing", "runs_to_hold", "describe", "attach",
           "per_step_regret", "messages"]

#: the largest horizon searched: a bound that does not bite below it "does not bite below T = 10^7"
CAP = 10**7
#: beyond the study's horizon the family is instantiated at the powers of two up to this horizon (the γ it certifies
#: there, and every other number), as far as the search needs and the domain allows: n² b H ≤ EXACT_WORK (n: the
#: domain's size, b: points per round; an eighth of it for a time-varying kernel), i.e. to T = 4096 for 100 points
EXACT_HORIZON = 2**12
EXACT_WORK = 2**12 * 100**2
#: … and to at most this many times the study's horizon (what it costs grows with what the study cost)
EXACT_FACTOR = 8
#: ``bound_values`` is computed at the powers of two up to here (and interpolated in log T between them)
ANCHOR_TOP = 2**12
_RTOL = 1e-6  # the evaluation must reproduce the study's bound at its horizon to this relative tolerance
#: claims whose bound reads more than the instance (the checked algorithm's own widths): their theorem's bound
_FALLBACK = frozenset({"regret_bound", "regret_bound_anytime", "bayes_regret", "bayes_regret_anytime"})


@dataclass(frozen=True)
class Bite:
    """Where one vacuous bound claim would bite (see the module docstring)."""

    claim: str
    horizon: int  # the study's T
    T: int | None  # smallest T with Bound(T) < r_max·T, γ at its upper end (None: not below ``cap``)
    not_before: int | None  # the same with γ at its lower end: the bound cannot bite earlier
    cap: int
    r_max: float | None  # at the study's horizon
    r_source: str
    gamma: str = ""  # how γ beyond the computed horizons was bracketed ("" where γ was computed)
    runs: int | None = None  # runs with which a failure-free study at T would call the claim holds
    held: tuple[str, ...] = ()  # symbols held at the study's values
    reason: str = ""  # why no horizon was computed (then T and not_before are None)
    message: str = ""

    def to_json(self) -> dict:
        return {"T": self.T, "not_before_T": self.not_before, "cap": self.cap, "horizon": self.horizon,
                "r_max": self.r_max, "r_max_source": self.r_source, "gamma": self.gamma, "runs": self.runs,
                "held": list(self.held), "reason": self.reason, "message": self.message}


# ------------------------------------------------------------------------------------------------ the search
def first_crossing(margin: Callable[[int], float], start: int, cap: int = CAP) -> int | None:
    """The smallest integer T in (start, cap] with ``margin(T) < 0``, ``margin(start) ≥ 0`` assumed: doubling from
    ``start`` (cap included), then bisection between the last point where margin ≥ 0 and the first where it is < 0
    (exact where the margin changes sign once there). None: margin ≥ 0 at every doubling point up to ``cap``."""
    lo, T = int(start), int(start)
    while True:
        T = min(2 * T, cap) if T < cap else cap + 1
        if T > cap:
            return None
        if margin(T) < 0:
            break
        lo = T
    hi = T
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if margin(mid) < 0:
            hi = mid
        else:
            lo = mid
    return hi


def runs_to_hold(alpha: float, share: float) -> int:
    """Runs n with which 0 failures make a probability claim at level α hold at a budget share a: the one-sided
    Clopper–Pearson upper end 1 − a^{1/n} is ≤ α, i.e. n ≥ log a / log(1 − α)."""
    return int(math.ceil(math.log(share) / math.log1p(-alpha) - 1e-12))


def per_step_regret(bound_T: float, vacuity: np.ndarray, horizon: int, kind: str) -> float | None:
    """The per-step regret the runs-based identity rule compared a bound with: Σ_t (max − min f_t) / T per run
    (Bound(T) / vacuity, exact for a bound on R_T, an upper estimate for a curve), its maximum over the runs for a
    claim on each run, its mean for an expectation claim (the rule of each kind, :mod:`boundcheck.claims.table`)."""
    v = np.asarray(vacuity, dtype=np.float64)
    v = v[np.isfinite(v) & (v > 0)]
    if not v.size or not np.isfinite(bound_T) or bound_T <= 0:
        return None
    s = bound_T / v / float(horizon)
    return float(s.mean() if kind == "expectation" else s.max())


class _Reads(dict):
    """A dict that records the keys read (which of an instance's ``extra`` constants a claim's bound reads)."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.read: set[str] = set()

    def __getitem__(self, key):
        self.read.add(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        self.read.add(key)
        return super().get(key, default)


def _subadditive(curve: np.ndarray, T: int) -> float:
    """γ_T ≤ q·γ_H + γ_r (T = qH + r) from a subadditive curve of length H (γ_0 = 0)."""
    H = curve.size
    q, r = divmod(int(T), H)
    return float(q * curve[-1] + (curve[r - 1] if r else 0.0))


# ------------------------------------------------------------------------------------------------ the evaluation
class Horizons:
    """The theorem's bounds, γ and r_max at any horizon T on one scenario, from a study's instance ``inst`` (see the
    module docstring). ``instantiate(T)``: the family's instance at T (default: through the instance cache)."""

    def __init__(self, family, scenario, inst, *, beta_scale: float = 1.0, cap: int = CAP,
                 instantiate: Callable[[int], object] | None = None, exact_horizon: int = EXACT_HORIZON,
                 exact_work: int = EXACT_WORK) -> None:
        self.fam, self.sc, self.inst, self.th = family, scenario, inst, family.theorem
        self.exact_horizon, self.exact_work = int(exact_horizon), int(exact_work)
        self.T0, self.delta, self.cap = int(inst.horizon), float(inst.delta), int(cap)
        self.beta_scale = float(beta_scale)
        self._instantiate = instantiate
        self.exact: dict[int, object] = {self.T0: inst}
        self.uses_gamma = "gamma_T" in self.th.symbols
        self._scen: dict[int, dict[str, float]] = {}
        self._eig: list[tuple[np.ndarray, float]] | None = None
        self.mode = "held"  # γ beyond the study's horizon: held (from the study's) | exact (the family's instances)
        self.refined = False
        try:
            scen0 = self.scenario_values(self.T0)
        except Exception:  # noqa: BLE001 - a family that cannot evaluate its values at T: held at the study's
            scen0 = {}
        self.held = tuple(sorted(n for n in self.th.symbols if n in inst.values and n not in scen0
                                 and n not in ("T", "gamma_T")))
        self.B_rule = False
        if "B" in self.th.schedules and np.isfinite(inst.B):
            try:
                b = float(self.th.schedule_values("B", 1.0, inst.values))
                self.B_rule = math.isclose(b, float(inst.B), rel_tol=1e-9, abs_tol=1e-12)
            except Exception:  # noqa: BLE001
                self.B_rule = False

    # ---------------------------------------------------------------- values of the scenario's symbols at T
    def _direct(self, T: int) -> dict[str, float]:
        if T not in self._scen:
            vals = self.fam.bound_values(self.sc, int(T), self.delta)
            self._scen[T] = {k: float(v) for k, v in vals.items()
                             if k in self.th.symbols and k not in ("T", "gamma_T") and np.isfinite(float(v))}
        return self._scen[T]

    def scenario_values(self, T: int) -> dict[str, float]:
        """The family's ``bound_values`` at T: computed at the study's horizon, the computed instances' and the
        powers of two; between those interpolated linearly in log T (exact for a + b log T, the form of the β_T
        that varies with T), beyond :data:`ANCHOR_TOP` extrapolated so."""
        T = int(T)
        if T in self.exact or T in self._scen or T < 2:
            return self._direct(T)
        lo = 2 ** min(int(math.floor(math.log2(T))), int(math.log2(ANCHOR_TOP)) - 1)
        hi = 2 * lo
        if lo == T:
            return self._direct(T)
        if lo < self.T0 < T:  # the study's horizon is an anchor too (and inside the family's range, e.g. H ≤ T)
            lo = self.T0
        elif T < self.T0 < hi:
            hi = self.T0
        a, b = self._direct(lo), self._direct(hi)
        w = (math.log(T) - math.log(lo)) / (math.log(hi) - math.log(lo))  # > 1 beyond ANCHOR_TOP: extrapolated
        return {k: (a[k] if a[k] == b.get(k) else a[k] + w * (b.get(k, a[k]) - a[k])) for k in a}

    # ---------------------------------------------------------------- γ_T
    def _base(self, T: int):
        """The computed instance whose γ curve covers T (the smallest horizon ≥ T), else the largest; in exact mode
        the family's instances at the powers of two are computed as far as T needs (up to :data:`EXACT_HORIZON`)."""
        if self.mode == "exact":  # on the powers of two (instances shared through the cache by every horizon)
            while max(self.exact) < T and 2 ** (int(math.log2(max(self.exact))) + 1) <= self.exact_horizon:
                H = 2 ** (int(math.log2(max(self.exact))) + 1)
                inst = self._instance(H)
                if inst is None:
                    self.mode = "held"  # the family refuses that horizon: held and extended from what there is
                    break
                self.exact[H] = inst
        above = [H for H in self.exact if H >= T]
        return self.exact[min(above)] if above else self.exact[max(self.exact)]

    def _curve(self, inst) -> np.ndarray:
        g = inst.gamma_used if inst.gamma_used is not None else inst.gamma_upper
        return np.asarray(g, dtype=np.float64)

    def gamma(self, T: int, side: str) -> float:
        """γ_T at its lower (``side="lo"``) or upper (``"up"``) end; exact up to the computed horizons."""
        T = int(T)
        base = self._base(T)
        curve = self._curve(base)
        if T <= curve.size:
            return float(curve[T - 1])
        held = np.asarray(base.gamma_lower, dtype=np.float64)
        lo = float(held[-1]) if held.size == curve.size and np.isfinite(held[-1]) else float(curve[-1])
        up = min(_subadditive(curve, T), self._eigen_bound(T))
        return lo if side == "lo" else max(up, lo)

    def _eigen_bound(self, T: int) -> float:
        """½ Σ_i log(1 + T b λ_i(K)/s²) (b points a round), max over the kernel groups, all stationary; inf else."""
        if not self._eig:
            return math.inf
        return max(0.5 * float(np.sum(np.log1p(T * lam / s2))) for lam, s2 in self._eig)

    def refine(self) -> None:
        """Compute γ beyond the study's horizon (once): the family's own instances at the powers of two, computed as
        the search reaches them, up to :data:`EXACT_HORIZON` where the domain allows (:data:`EXACT_WORK`); and, for
        stationary kernel groups whose greedy lower end the study's reproduces (its batch known), the eigenvalue
        bound on γ at every T."""
        if self.refined or not self.uses_gamma:
            self.refined = True
            return
        self.refined = True
        n, batch, tv = self._groups()
        work = self.exact_work // (8 if tv else 1)  # a time-varying kernel's certified bracket costs more
        H = min(self.exact_horizon, self.cap, EXACT_FACTOR * self.T0,
                work // max(n * n * batch, 1) if n else self.exact_horizon)
        self.exact_horizon = H
        if H >= 2 * self.T0:
            self.mode = "exact"

    def _groups(self) -> tuple[int, int, bool]:
        """(n, b, tv): the largest kernel group's domain size, the points per round of the family's γ and whether a
        group is time-varying ((0, 1, False) where the family has no kernel groups); sets the eigenvalue bound
        where every group is stationary and the study's greedy lower end is that of these groups, b per round."""
        try:
            groups = self.fam.gamma_groups(self.sc)
            s2 = float(self.fam.gamma_noise_var(self.sc))
            n = max(np.asarray(K).shape[0] for K, _ in groups.values())
            tv = any(float(eps) > 0 for _, eps in groups.values())
        except Exception:  # noqa: BLE001 - a family without kernel groups (finite features, a window's γ)
            return 0, 1, False
        inst = self.inst
        k = inst.extra.get("K") if isinstance(inst.extra, Mapping) else None
        batches = [1] + ([int(k)] if isinstance(k, int | float) and float(k).is_integer() and int(k) > 1 else [])
        used, upper = self._curve(inst), np.asarray(inst.gamma_upper, dtype=np.float64)
        study_lower = np.asarray(inst.gamma_lower, dtype=np.float64)
        if tv or used.shape != upper.shape or not np.allclose(used, upper, rtol=1e-12, atol=0.0):
            return n, batches[-1], tv  # time-varying, or the paper's rate: no eigenvalue bound
        from ..model.mig import gamma_bracket

        for b in batches:
            try:
                lower = np.max([gamma_bracket(K, self.T0, noise_var=s2, batch=b, methods=["greedy_submodular"]).lower
                                for K, _ in groups.values()], axis=0)
            except (BoundcheckError, ValueError, np.linalg.LinAlgError, MemoryError):
                continue
            if lower.shape == study_lower.shape and np.allclose(lower, study_lower, rtol=1e-9, atol=1e-12):
                self._eig = [(np.clip(np.linalg.eigvalsh(np.asarray(K, dtype=np.float64)), 0.0, None), s2 / b)
                             for K, _ in groups.values()]
                return n, b, tv
        return n, batches[-1], tv

    @property
    def gamma_note(self) -> str:
        """How γ_T beyond the study's horizon was bracketed (for the message)."""
        H = max(self.exact)
        what = "instantiating the family" if self.mode == "exact" and H > self.T0 else "the study's"
        how = "subadditivity" + (" and the eigenvalue bound" if self._eig else "")
        return f"γ_T to T = {_fmt_T(H)} ({what}), beyond its upper end by {how}"

    def _instance(self, T: int):
        try:
            if self._instantiate is not None:
                return self._instantiate(T)
            from .families.instance_cache import instantiate

            # β's scale changes no number read here (bound, γ, B, r_max): the instances of every scale are shared
            return instantiate(self.fam, self.sc, T, self.delta, 1.0)
        except Exception:  # noqa: BLE001 - a horizon the family refuses (e.g. a window above T): stop there
            return None

    # ---------------------------------------------------------------- the instance at T
    def at(self, T: int, side: str = "up", *, force: bool = False):
        """A light instance at horizon T: the study's (or the closest computed) instance with the values, γ_T, the
        bound, B and the family's ``extra_constants`` of horizon T (a computed instance itself at its horizon,
        unless ``force``)."""
        T = int(T)
        base = self._base(T)
        if T == base.horizon and not force:
            return base
        v = {k: float(base.values[k]) for k in self.th.symbols if k in base.values}
        v.update(self.scenario_values(T))
        v["T"] = float(T)
        if self.uses_gamma:
            v["gamma_T"] = self.gamma(T, side)
        with np.errstate(all="ignore"):
            bound = float(np.asarray(self.th.evaluate(v)["value"], dtype=np.float64))
            extra = {**base.extra, **self._fresh_extra(base.extra, v, T)}
            B = float(self.th.schedule_values("B", 1.0, v)) if self.B_rule else base.B
        return replace(base, horizon=T, values=v, bound_T=bound, extra=extra, B=B,
                       anytime=np.asarray([bound], dtype=np.float64))

    def _fresh_extra(self, extra: Mapping, values: Mapping, T: int) -> dict:
        """The constants of ``extra`` recomputed at horizon T: those that are schedules of the theorem (a tight or
        printed form of the bound, evaluated at t = T) and the family's ``extra_constants``."""
        v = {k: float(values[k]) for k in self.th.symbols if k in values}
        out = {k: float(np.asarray(self.th.schedule_values(k, float(T), v), dtype=np.float64))
               for k in extra if k in self.th.schedules and np.isscalar(extra[k])}
        return {**out, **self.fam.extra_constants(dict(v))}

    def claim_bound(self, spec: ClaimSpec, inst) -> tuple[float | None, str]:
        """The claim's bound on the instance (a curve's end), and "" or why it cannot be read from the instance."""
        extra = _Reads(inst.extra)
        view = SimpleNamespace(inst=replace(inst, extra=extra), T=int(inst.horizon), m=1)
        try:
            b = np.asarray(spec.bound(view), dtype=np.float64)
        except (AttributeError, KeyError, TypeError, IndexError):
            if spec.id not in _FALLBACK:
                return None, "its bound is computed from each run's data, not from the theorem's expression"
            b = np.asarray(inst.bound_T, dtype=np.float64)
        if b.ndim == 2 or (b.ndim == 1 and b.size != inst.horizon and b.size != 1):
            return None, "its bound is computed from each run's data"
        fresh = set(self._fresh_extra(inst.extra, inst.values, inst.horizon)) if extra.read else set()
        stale = sorted(extra.read - fresh)
        if stale and not any(inst is e for e in self.exact.values()):
            return None, f"its bound reads {', '.join(stale)}, a constant the family computes only at the study's T"
        return float(b.reshape(-1)[-1]), ""

    def r_max(self, T: int, side: str = "up") -> float | None:
        """The family's bound on every step's regret at horizon T (None: it gives none)."""
        rm = self.fam.max_step_regret(self.sc, self.at(T, side))
        return None if rm is None else float(rm[0])


# ------------------------------------------------------------------------------------------------ one claim
def bites_from(horizons: Horizons, spec: ClaimSpec, r_max: float | None = None, *, start: int | None = None,
               kind: str | None = None, r_source: str = "") -> Bite:
    """Where the claim ``spec``'s bound first falls below r_max·T (see the module docstring). ``r_max``: a per-step
    regret held constant in T (the runs-based rule), None for the family's ``max_step_regret`` at each T.
    ``start``: where the search starts (default the study's horizon; the margin there must be ≥ 0)."""
    h, cap = horizons, horizons.cap
    T0 = int(start or h.T0)
    kind = kind or spec.kind
    b0, why = h.claim_bound(spec, h.inst)
    if b0 is not None:  # the evaluation from the theorem's expression must reproduce the study's bound at its horizon
        try:
            b1, why = h.claim_bound(spec, h.at(h.T0, force=True))
        except Exception as e:  # noqa: BLE001
            b1, why = None, f"the theorem's bound cannot be evaluated at the study's values ({type(e).__name__})"
        if b1 is None:
            b0 = None
        elif not math.isclose(b1, b0, rel_tol=_RTOL):
            b0, why = None, ("its anytime curve does not end at the explicit bound" if spec.id.endswith("anytime")
                             else "the theorem's expression at the study's values does not give the claim's bound")
    if r_max is None:
        rm = h.fam.max_step_regret(h.sc, h.inst)
        r0 = None if rm is None else float(rm[0])
        r_source = r_source or (f"r_max = {r0:.4g} per step, {rm[1]}" if rm else "")
    else:
        r0 = float(r_max)
    if b0 is None or r0 is None or not np.isfinite(r0) or r0 <= 0:
        reason = why or "no bound on the per-step regret to compare with"
        return _finish(Bite(spec.id, h.T0, None, None, cap, r0, r_source, held=h.held, reason=reason))

    def margin(T: int, side: str) -> float:
        inst = h.at(T, side)
        b, _ = h.claim_bound(spec, inst)
        if b is None:
            raise _Stale
        r = r0 if r_max is not None else h.r_max(T, side)
        return b - (r if r is not None else math.inf) * T

    def search() -> tuple[int | None, int | None]:
        """(late, early): the first crossing with γ at its upper end and at its lower end. The upper end's margin
        is ≥ the lower end's, so it crosses no earlier: from the lower end's crossing on (where it may already be
        negative, e.g. where γ was computed and both ends agree)."""
        early = first_crossing(lambda T: margin(T, "lo"), T0, cap)
        if early is None:
            return None, None
        if margin(early, "up") < 0:
            return early, early
        return first_crossing(lambda T: margin(T, "up"), early, cap), early

    try:
        late, early = search()
        if h.uses_gamma and early != late and not h.refined:
            h.refine()
            late, early = search()
    except _Stale:
        return _finish(Bite(spec.id, h.T0, None, None, cap, r0, r_source, held=h.held,
                            reason="its bound reads a constant the family computes only at the study's horizon"))
    note = h.gamma_note if early != late else ""
    return _finish(Bite(spec.id, h.T0, late, early, cap, r0, r_source, gamma=note, held=h.held))


class _Stale(Exception):
    pass


def _fmt_T(T: int) -> str:
    return f"{T:,}".replace(",", " ")


def describe(b: Bite) -> str:
    """The one-line note shown beside the identity: "bites from T ≈ …; rerun with --horizon …" or why not."""
    cap = "10^7" if b.cap == CAP else _fmt_T(b.cap)
    if b.reason:
        return f"bites from: not computed ({b.reason})"
    if b.T is None:
        out = f"does not bite below T = {cap}"
        if b.not_before is not None:
            out += f" ({b.gamma}; at the lower end of γ_T's bracket it could from T ≈ {_fmt_T(b.not_before)})"
        return out
    out = f"bites from T ≈ {_fmt_T(b.T)}; rerun with --horizon {b.T}"
    if b.runs is not None:
        out += f" --runs {b.runs}"
    if b.not_before is not None and b.not_before < b.T:
        out += f" ({b.gamma}; at the lower end of γ_T's bracket not before T ≈ {_fmt_T(b.not_before)})"
    return out


def _finish(b: Bite) -> Bite:
    return replace(b, message=describe(b))


# ------------------------------------------------------------------------------------------------ a study's claims
def attach(results: Sequence, family, scenario, inst, main_runs, budget=None, *, beta_scale: float = 1.0,
           delta: float | None = None, cap: int = CAP) -> dict[str, Bite]:
    """For every bound claim judged as a vacuous sanity identity in ``results`` (``details["vacuous"]``), where its
    bound would bite: ``details["bites_from_T"]`` (an int, or None: not below ``cap``) and ``details["bites_from"]``
    (:meth:`Bite.to_json`, with the message). ``main_runs``: the checked algorithm's runs (its ``vacuity_<id>``
    columns); ``budget``: the verify's error budget (the runs that would judge a probability claim). Never raises:
    a claim whose horizon cannot be computed says why."""
    specs = {s.id: s for s in family.claims}
    todo = [r for r in results if r.kind == "identity" and (r.details or {}).get("vacuous")
            and r.id in specs and specs[r.id].bound is not None]
    if not todo:
        return {}
    out: dict[str, Bite] = {}
    try:
        h = Horizons(family, scenario, inst, beta_scale=beta_scale, cap=cap)
        a_priori = set(family.vacuous_claims(scenario, inst)) if family.max_step_regret(scenario, inst) else set()
    except Exception as e:  # noqa: BLE001 - advisory: never breaks a verify
        for r in todo:
            b = _finish(Bite(r.id, int(inst.horizon), None, None, cap, None, "",
                             reason=f"{type(e).__name__}: {e}"))
            _store(r, b)
            out[r.id] = b
        return out
    n_stoch = sum(1 for r in results if r.kind in ("probability", "expectation", "calibration", "equality"))
    for r in todo:
        spec = specs[r.id]
        kind = (r.details or {}).get("claimed_kind") or spec.kind
        try:
            if r.id in a_priori:
                b = bites_from(h, spec, None, kind=kind)
            else:
                col = f"vacuity_{r.id}"
                b0, why = h.claim_bound(spec, inst)
                if col not in main_runs or b0 is None:
                    b = _finish(Bite(r.id, h.T0, None, None, cap, None, "", held=h.held,
                                     reason=why or "no vacuity recorded on the runs"))
                else:
                    rbar = per_step_regret(b0, main_runs[col].to_numpy(dtype=np.float64), h.T0, kind)
                    src = (f"r_max = {rbar:.4g} per step: the {'mean' if kind == 'expectation' else 'largest'} over "
                           "the runs of Σ_t (max − min f_t)/T" if rbar is not None else "")
                    b = bites_from(h, spec, rbar, kind=kind, r_source=src) if rbar is not None else _finish(
                        Bite(r.id, h.T0, None, None, cap, None, "", reason="no positive vacuity on the runs"))
            if b.T is not None and kind == "probability" and budget is not None:
                level = r.level if r.level is not None else None
                if level is None:
                    from .table import level_of

                    level = level_of(spec.claim.alpha, float(delta if delta is not None else inst.delta))
                if level and 0 < level < 1:
                    b = _finish(replace(b, runs=runs_to_hold(level, budget.tuning_share(n_stoch + 1))))
        except Exception as e:  # noqa: BLE001 - advisory: never breaks a verify
            b = _finish(Bite(r.id, int(inst.horizon), None, None, cap, None, "", reason=f"{type(e).__name__}: {e}"))
        _store(r, b)
        out[r.id] = b
    return out


def _store(result, b: Bite) -> None:
    result.details["bites_from_T"] = b.T
    result.details["bites_from"] = b.to_json()


def messages(claims: Sequence[Mapping]) -> dict[str, str]:
    """Claim id -> the "bites from" note, for the claims of a summary's JSON that have one."""
    return {c["id"]: (c.get("details") or {})["bites_from"]["message"] for c in claims
            if isinstance((c.get("details") or {}).get("bites_from"), Mapping)}


