"""Where each regret bound of a theorem bites on a scenario, without a verify (``boundcheck show``).

For every bound claim of the theorem: is it vacuous at the scenario's horizon (the same rules as a verify: the
family's a-priori r_max·T, else the largest regret any algorithm could incur on the runs, Σ_t (max − min f_t)), and
from which horizon would it bite (:mod:`boundcheck.claims.horizon`)? Where the family gives no a-priori r_max, the
runs' per-step range is estimated from a short pilot of random search (:data:`PILOT_RUNS` runs at the scenario's
horizon; the truth's range does not depend on the algorithm), so the figure is an estimate (≈) that a verify of the
scenario refines.
"""

from __future__ import annotations

import math

import numpy as np

from ..claims.families.instance_cache import instantiate
from ..claims.horizon import CAP, Bite, Horizons, bites_from, describe, first_crossing

__all__ = ["theorem_bites", "PILOT_RUNS"]

#: runs of the pilot that estimates the per-step range of f where the family gives no a-priori r_max
PILOT_RUNS = 16


def _pilot_range(family, scenario, inst, runs: int, seed: int) -> np.ndarray | None:
    """(runs,) Σ_t (max − min f_t over X_t) per run of a pilot of random search (None: no random search here)."""
    from ..policies import policy_names, policy_spec
    from ..world.box_scenario import is_box
    from .continuum import simulate_box
    from .engine import simulate
    from .needs import StudyNeeds

    sim = simulate_box if is_box(scenario) else simulate

    names = [a for a in family.theorem.algorithms if "random" in a] or [
        n for n in ("random", "comb_random") if n in policy_names()]
    for name in names:
        try:
            traj = sim(scenario, [policy_spec(name)], list(range(runs)), seed, inst,
                            needs=StudyNeeds(monitors=False))
        except Exception:  # noqa: BLE001 - a random search that does not fit this scenario's actions: the next
            continue
        if traj.f_range is not None and np.isfinite(traj.f_range).any():
            return np.nansum(traj.f_range, axis=1)
    return None


def theorem_bites(family, scenario, *, horizon: int | None = None, delta: float | None = None,
                  runs: int = PILOT_RUNS, seed: int = 0, cap: int = CAP) -> dict:
    """{"scenario", "horizon", "claims": {claim id: {"vacuous": bool, "bites_from_T", "message", …}}} for every
    bound claim of ``family``'s theorem on ``scenario`` at ``horizon`` (default the scenario's)."""
    T0 = int(horizon or scenario.horizon)
    d = float(delta if delta is not None else scenario.delta)
    inst = instantiate(family, scenario, T0, d)
    h = Horizons(family, scenario, inst, cap=cap)
    rm = family.max_step_regret(scenario, inst)
    a_priori = set(family.vacuous_claims(scenario, inst)) if rm is not None else set()
    sums = None
    out: dict[str, dict] = {}
    for spec in family.claims:
        if spec.bound is None:
            continue
        b0, why = h.claim_bound(spec, inst)
        entry: dict = {"kind": spec.kind}
        if b0 is None:
            bite = Bite(spec.id, T0, None, None, cap, None, "", reason=why)
            out[spec.id] = entry | {"vacuous": None, **_json(bite, describe(bite))}
            continue
        if spec.id in a_priori:  # the family's rule: Bound(T) ≥ r_max·T at the horizon, r_max a bound on every r_t
            bite = bites_from(h, spec, None)
            out[spec.id] = entry | {"vacuous": True, "r_max": bite.r_max, "r_max_source": bite.r_source,
                                    **_json(bite, bite.message)}
            continue
        if sums is None:  # the runs' rule: Σ_t (max − min f_t), estimated on a pilot of random search
            sums = _pilot_range(family, scenario, inst, runs, seed)
        if sums is not None:
            s = sums / T0
            r = float(s.mean() if spec.kind == "expectation" else s.max())
            source = (f"r_max ≈ {r:.4g} per step: the {'mean' if spec.kind == 'expectation' else 'largest'} over "
                      f"{sums.size} runs of random search of Σ_t (max − min f_t)/T")
        elif rm is not None:
            r, source = None, f"r_max = {rm[0]:.4g} per step, {rm[1]}"
        else:
            bite = Bite(spec.id, T0, None, None, cap, None, "",
                        reason="no a-priori bound on the per-step regret and no random search to estimate it")
            out[spec.id] = entry | {"vacuous": None, **_json(bite, describe(bite))}
            continue
        vacuous = r is not None and b0 >= r * T0
        if vacuous:
            bite = bites_from(h, spec, r, r_source=source)
            message = bite.message
        else:  # tested at this horizon already: from where (searched from T = 1 with the study's own γ)
            bite = _judged_from(h, spec, r, source, T0)
            message = f"tested at T = {T0} (bites from T ≈ {bite.T})"
        out[spec.id] = entry | {"vacuous": bool(vacuous), "r_max": bite.r_max, "r_max_source": source,
                                **_json(bite, message)}
    return {"scenario": scenario.name, "horizon": T0, "delta": d, "claims": out}


def _judged_from(h: Horizons, spec, r: float | None, source: str, T0: int) -> Bite:
    """A bound that bites at ``T0`` already: the smallest T ≤ T0 where it does (γ of the study's curve)."""
    def margin(T: int) -> float:
        b, _ = h.claim_bound(spec, h.at(T, "up", force=T != T0))
        rr = r if r is not None else h.r_max(T)
        return (b if b is not None else math.inf) - (rr if rr is not None else math.inf) * T

    try:
        first = first_crossing(margin, 1, T0) if margin(1) >= 0 else 1
    except Exception:  # noqa: BLE001 - a horizon the family refuses (a window above T): not computed
        first = None
    first = first if first is not None else T0
    b = Bite(spec.id, T0, first, first, h.cap, r if r is not None else h.r_max(T0), source)
    return b


def _json(bite: Bite, message: str) -> dict:
    return {"bites_from_T": bite.T, "not_before_T": bite.not_before, "gamma": bite.gamma, "reason": bite.reason,
            "message": message}
