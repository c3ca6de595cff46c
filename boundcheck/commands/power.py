"""``boundcheck power``: which claims catch which planted defect, with what probability at N runs."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..utils.settings import DEFAULT_FALSE_ALARM, SettingsKeywords, VerifySettings, settings_from
from .resolve import DEFAULT_RUNS, _shadow_of, build_study, resolve_defects, resolve_theorem
from .session import _capped_jobs

if TYPE_CHECKING:
    from typing import Unpack

    from theory import Theorem

    from ..claims.defects import Defect
    from ..world.scenario import Scenario


#: the settings power does not read (a keyword among them is refused; see settings_from)
_POWER_UNUSED = ("beta_scale", "until_conclusive", "max_runs", "report", "conformance")


def power(theorem: str | Theorem, scenario: str | Scenario | None = None, *, settings: VerifySettings | None = None,
          defects: Sequence[str | Defect] | None = None, pool: int = 2, subsets: int = 200,
          on_study: Callable[[str, int, int], None] | None = None, **keywords: Unpack[SettingsKeywords]) -> dict:
    """``boundcheck power``: the theorem's claims against planted defects (default: every defect of the library
    that applies), with the probability that a verify of ``runs`` runs (default :data:`DEFAULT_RUNS`) catches
    each, and each claim's smallest detectable effect. Writes ``out/power.json`` (default
    ``reports/<theorem>/power``) and returns it. ``settings`` or its fields as keywords: see :func:`verify` (of
    them, power reads runs, horizon, delta, seed, jobs, backend, scheduler, false_alarm, allow_out_of_theory,
    max_memory and out). Validated like ``verify`` (one pass, nothing written on an error; not applicable: exit 3),
    and sized like it: the pool of ``pool`` × N runs each defect study simulates is estimated and refused above
    ``max_memory`` (default: the memory available) before anything runs."""
    from ..claims.budget import HolmBudget
    from ..claims.defects import defects_for
    from ..study.power import run_power
    from ..study.preflight import check_applicable, estimate_study_memory, run_options
    from ..utils.io import atomic_write_json
    from ..utils.resources import check_memory
    from ..utils.validation import check_int, check_output_dir
    from ..world.assumptions import Conditions

    s = settings_from(settings, keywords, caller="power", unused=_POWER_UNUSED)
    options = run_options(s)
    th = resolve_theorem(theorem)
    planted = resolve_defects(th, defects) if defects else defects_for(th.id)
    spec = build_study(th, scenario, runs=DEFAULT_RUNS if s.runs is None else s.runs, horizon=s.horizon,
                       delta=s.delta, seed=s.seed)
    budget = HolmBudget(DEFAULT_FALSE_ALARM if s.false_alarm is None else s.false_alarm)
    check_int("pool", pool)
    check_int("subsets", subsets)
    out_path = s.out if s.out is not None else check_output_dir("--out", Path("reports") / th.id / "power")
    check_applicable(spec, Conditions(), s.allow_out_of_theory)  # in the order of the preflight
    spec.family.bound_values(spec.scenario, spec.horizon, spec.delta)
    # each defect study simulates a pool of pool × N runs of the checked algorithm (study/power.py: run_power)
    pooled = replace(spec, policies=spec.policies[:1], runs=spec.runs * pool)
    options, note = _capped_jobs(options, pooled)
    est = estimate_study_memory(pooled, options)
    est.parts["subsets judged"] = 8 * subsets * spec.runs * 4
    est.total += est.parts["subsets judged"]
    check_memory(est, s.max_memory, hint="lower --runs, --horizon, --subsets or --jobs, or set --max-memory if "
                                         "you know better")
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta, spec.beta_scale)
    if note:
        warnings.warn(note, stacklevel=2)
    # every defect study runs beside a shadow of the correct algorithm, as a verify of that code would: the table
    # then says which defects the conformance claim catches (and its false alarms, on the correct algorithm)
    table = run_power(spec, inst, planted, out_path, options, budget=budget, pool=pool, subsets=subsets,
                      seed=s.seed, on_study=on_study, shadow=_shadow_of(th))
    atomic_write_json(out_path / "power.json", table, default=float)
    table["path"] = str(out_path / "power.json")
    from ..results import PowerResult

    return PowerResult(table, out_path)
