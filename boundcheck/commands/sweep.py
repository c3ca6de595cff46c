"""``boundcheck sweep``: one verify per cell of a grid of parameter values, a tidy table and a page."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import BoundcheckError
from ..utils.settings import DEFAULT_MAX_RUNS, SettingsKeywords, VerifySettings, settings_from
from .resolve import (
    PolicyLike,
    _as_sequence,
    build_study,
    resolve_defects,
    resolve_policy,
    resolve_scenario,
    resolve_theorem,
)
from .session import _capped_jobs
from .verify import verify

if TYPE_CHECKING:
    from typing import Unpack

    from theory import Theorem

    from ..study.spec import StudySpec
    from ..study.sweep import Axis
    from ..world.scenario import Scenario


MAX_SWEEP_CELLS = 10_000  # a sweep runs its cells one after another: more is a mistake (1000 × 1000)


def sweep(theorem: str | Theorem, vary: Sequence[str | Axis], scenario: str | Path | Scenario | None = None, *,
          settings: VerifySettings | None = None, policies: Sequence[PolicyLike] | None = None,
          algorithm: PolicyLike | Sequence[PolicyLike] | None = None, page: bool | None = None,
          on_cell: Callable[[int, int, str, dict | None], None] | None = None,
          defects: Sequence[str] | None = None, on_setup: Callable[[int, int], None] | None = None,
          **keywords: Unpack[SettingsKeywords]) -> dict:
    """Run (or resume) a sweep: one study per cell of the grid of ``vary`` (``"NAME=V1,V2"`` or :class:`Axis`).

    ``settings`` or its fields as keywords: see :func:`verify`; a varied runs, horizon, delta, seed or beta_scale
    replaces the setting in its cells. Each cell is stored in ``out/cells/<cell>/results`` (resumable, chunk by
    chunk; ``out`` default ``reports/<theorem>-sweep``); the tidy table goes to ``out/sweep.parquet`` (one row
    per cell × claim, columns in :data:`boundcheck.study.sweep.COLUMNS`), the configuration and the cells'
    verdicts to ``out/sweep.json``, the page to ``out/index.html`` (unless ``report`` is false; ``page`` is its
    older name). Returns the content of ``sweep.json`` with the paths. ``on_cell(done, total, cell, summary)`` is
    called before each cell (summary None) and after it; ``on_setup(checked, total)`` while the cells are checked
    before the first one runs (first ``(0, total)``, before any cell is resolved, then after each cell). Each cell is
    a verify with its own false-alarm budget ``false_alarm``; a cell where the theorem does not apply refuses the
    whole sweep before any cell runs (exit 3) unless ``allow_out_of_theory``. ``defects``: planted in every cell
    (a negative control, as in verify).

    Sized before any cell runs: at most :data:`MAX_SWEEP_CELLS` cells (counted from the values, before any of them
    is read), and each cell's memory estimate within ``max_memory`` (default: the memory available). The checks
    cost one pass over the cells: a scenario, a study and the theorem's instance are made once per distinct
    combination of the values they depend on (a sweep over seeds checks one), not once per cell."""
    import math

    from ..study.preflight import check_applicable, estimate_study_memory, run_options
    from ..study.sweep import Axis, cell_id, cells, parse_vary, sweep_table, vary_scenario
    from ..utils.io import atomic_write_json
    from ..utils.resources import check_memory
    from ..world.assumptions import Conditions

    if page is not None:
        keywords = {**keywords, "report": page}
    s = settings_from(settings, keywords, caller="sweep")
    th = resolve_theorem(theorem)
    if not vary:
        raise BoundcheckError("a sweep needs at least one --vary NAME=V1,V2,...")
    # the cap first, from the number of values alone (a value is read only when the sweep is small enough)
    sizes = [len(a.values) if isinstance(a, Axis) else str(a).partition("=")[2].count(",") + 1 for a in vary]
    count = math.prod(sizes)
    if count > MAX_SWEEP_CELLS:
        raise BoundcheckError(f"a sweep of {count} cells ({' × '.join(map(str, sizes))}) is more "
                              f"than {MAX_SWEEP_CELLS}; split it into several sweeps")
    if on_setup:
        on_setup(0, count)
    axes = [a if isinstance(a, Axis) else parse_vary(a) for a in vary]
    planted = resolve_defects(th, defects) if defects else []
    base = resolve_scenario(scenario, th)
    grid = cells(axes)
    # user files are imported once, not once per cell
    algorithm = [resolve_policy(a) for a in _as_sequence(algorithm)] or None
    policies = None if policies is None else [resolve_policy(p) for p in policies]
    out = s.out if s.out is not None else Path("reports") / f"{th.id}-sweep"
    if s.report:
        from ..utils.validation import check_report_dir

        check_report_dir(out)  # its index.html is the sweep's page: never someone else's, overwritten
    fixed = {"runs": s.runs, "horizon": s.horizon, "delta": s.delta, "seed": s.seed, "beta_scale": s.beta_scale}
    # resolve every cell before running any: a bad value fails at once, with nothing written. What is checked
    # depends on the scenario's values and on runs, horizon, δ, β scale (never on the seed): each distinct
    # combination is checked once, so the pass is linear in the cells and a sweep over seeds checks one study
    scenario_keys = [a.name for a in axes if a.name not in fixed]
    scenarios: dict[tuple, Scenario] = {}
    settings_of: dict[tuple, VerifySettings] = {}
    checked: dict[tuple, StudySpec] = {}
    conditions = Conditions(beta_scale=s.beta_scale, defects=tuple(d.name for d in planted))
    plan = []
    for i, params in enumerate(grid):
        skey = tuple(repr(params[k]) for k in scenario_keys)
        if skey not in scenarios:
            scenarios[skey] = vary_scenario(base, params)
        sc = scenarios[skey]
        study = {k: v for k, v in params.items() if k in fixed}
        vkey = tuple(repr(v) for v in study.values())
        if vkey not in settings_of:  # validated without its folder (the cell's own is set when it runs)
            settings_of[vkey] = s.replace(**study, out=None, report=False)
        cell = settings_of[vkey]
        ckey = (skey, cell.runs, cell.horizon, cell.delta, cell.beta_scale)
        if ckey not in checked:
            spec = build_study(th, sc, runs=cell.runs, horizon=cell.horizon, delta=cell.delta, seed=cell.seed,
                               beta_scale=cell.beta_scale, policies=policies, algorithm=algorithm)
            check_applicable(spec, replace(conditions, beta_scale=spec.beta_scale), s.allow_out_of_theory)
            spec.family.bound_values(spec.scenario, spec.horizon, spec.delta)
            # the bound and β_t finite in every cell (a non-finite one is refused before the first cell runs)
            spec.family.instantiate(spec.scenario, spec.horizon, spec.delta, spec.beta_scale)
            largest = spec if not cell.until_conclusive else replace(
                spec, runs=DEFAULT_MAX_RUNS if cell.max_runs is None else cell.max_runs)
            check_memory(estimate_study_memory(largest, _capped_jobs(run_options(cell), largest)[0]),
                         cell.max_memory, hint=f"cell {cell_id(params)}: lower --runs, --horizon or --jobs, or set "
                                               f"--max-memory if you know better")
            checked[ckey] = spec
        plan.append((cell_id(params), params, sc, cell, checked[ckey]))
        if on_setup:
            on_setup(i + 1, count)
    uninformed = next((p.name for p in plan[0][4].policies if getattr(p.declared, "role", "") == "uninformed"), None)
    rows, info = [], []
    for i, (cid, params, sc, cell, _) in enumerate(plan):
        if on_cell:
            on_cell(i, len(plan), cid, None)
        cell = cell.replace(out=out / "cells" / cid)
        summary = verify(th, sc, settings=cell, policies=policies, algorithm=algorithm, defects=planted)
        rows.append((cid, params, summary))
        info.append({"cell": cid, "params": params, "verdict": summary["verdict"], "in_theory": summary["in_theory"],
                     "results": str(out / "cells" / cid / "results")})
        if on_cell:
            on_cell(i + 1, len(plan), cid, summary)
    table = sweep_table(rows, uninformed)
    out.mkdir(parents=True, exist_ok=True)
    from ..utils.io import atomic_write

    atomic_write(out / "sweep.parquet", lambda tmp: table.to_parquet(tmp, index=False), mode=None)
    result = {"theorem": th.id, "scenario": rows[0][2]["scenario"], "vary": [{"name": a.name, "values": list(a.values)}
                                                                           for a in axes],
              "fixed": fixed, "cells": info, "table": str(out / "sweep.parquet"), "page": None,
              "verdict": ("violated" if any(c["verdict"] == "violated" for c in info) else
                          "holds" if all(c["verdict"] == "holds" for c in info) else "inconclusive")}
    if s.report:
        from ..report.sweep import write_sweep_page

        result["page"] = str(write_sweep_page(table, result, out))
    atomic_write_json(out / "sweep.json", result, default=str)
    from ..results import SweepResult

    return SweepResult(result, out)
