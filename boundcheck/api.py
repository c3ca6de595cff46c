"""The one entry point: resolve names, files and classes to objects once, build a study, run it, report it.

``cli.py`` and ``testing.py`` are thin layers over this module. Everything resolved here crosses process
boundaries as objects (the theorem, its family, the scenario, the policies), never as names looked up again in
a worker.

>>> from boundcheck import api
>>> summary = api.verify("gp_ucb", runs=20, horizon=30, seed=1, report=False)  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import theory
from theory import Theorem

from .claims.budget import DEFAULT_FALSE_ALARM, HolmBudget
from .claims.defects import Defect, defects_for, get_defect
from .claims.families import Family, family_for
from .claims.table import not_applicable as not_applicable_claims
from .errors import BoundcheckError
from .policies import PolicySpec, policy_spec
from .runtime import prewarm
from .study.engine import ENGINE_MONITORS
from .study.power import apply_defects, defect_instance, run_power
from .study.preflight import check_applicable, check_run_settings, preflight
from .study.runner import RunOptions, Sequential, preload_workers, run_study
from .study.spec import StudySpec
from .study.sweep import Axis, parse_vary
from .utils.io import atomic_write_json
from .utils.validation import check_int, check_output_dir, check_positive, check_probability, check_seed
from .world.assumptions import Conditions
from .world.catalogue import get_scenario
from .world.scenario import Scenario
from .world.scenario_files import load_scenario

__all__ = ["resolve_theorem", "resolve_scenario", "resolve_policy", "resolve_defects", "build_study", "verify",
           "power", "applicability", "write_report", "sweep", "reproduce", "DEFAULT_RUNS", "DEFAULT_MAX_RUNS",
           "DEFAULT_FALSE_ALARM"]

DEFAULT_RUNS = 200
DEFAULT_MAX_RUNS = 2000  # verify --until-conclusive stops here if a claim is still undecided

PolicyLike = str | PolicySpec | type | Callable


def resolve_theorem(theorem: str | Theorem) -> Theorem:
    """A theorem id or a :class:`theory.Theorem`."""
    try:
        return theory.get(theorem)
    except theory.UnknownTheorem as exc:
        raise BoundcheckError(exc.args[0]) from None


def resolve_scenario(scenario: str | Path | Scenario | None, theorem: Theorem, horizon: int | None = None,
                     delta: float | None = None) -> Scenario:
    """A scenario object, a built-in name or a scenario file (``FILE.toml``; default: the theorem's default
    scenario), at ``horizon``/``delta``."""
    if scenario is None:
        scenario = theorem.default_scenario
    if isinstance(scenario, Scenario):
        return scenario.at(horizon, delta)
    if isinstance(scenario, Path) or (isinstance(scenario, str) and _is_scenario_file(scenario)):
        return load_scenario(scenario).at(horizon, delta)
    if isinstance(scenario, str):
        return get_scenario(scenario, horizon, delta)
    raise BoundcheckError(f"cannot use {scenario!r} as a scenario: give a name, a scenario file or a Scenario")


def _is_scenario_file(ref: str) -> bool:
    """A scenario reference that names a file (``.toml``, or a path that exists) rather than a built-in."""
    return ref.endswith(".toml") or "/" in ref or "\\" in ref or Path(ref).is_file()


def _load_object(ref: str):
    """``pkg.module:Name`` or ``path/to/file.py:Name``."""
    target, sep, attr = ref.rpartition(":")
    if not sep or not target or not attr:
        raise BoundcheckError(f"malformed policy reference {ref!r}: expected FILE.py:CLASS or package.module:CLASS")
    if target.endswith(".py"):
        path = Path(target)
        if not path.is_file():
            raise BoundcheckError(f"policy file {target} not found")
        # a name that is the same in every process (the resume key holds it: hash() of a str is salted per process)
        digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:8]
        modname = f"boundcheck_user_{path.stem}_{digest}"
        spec = importlib.util.spec_from_file_location(modname, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[modname] = module
        folder = str(path.resolve().parent)
        before = set(sys.modules)
        sys.path.insert(0, folder)  # the file may import its siblings, as when run as a script
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # user code: one line naming the file
            sys.modules.pop(modname, None)
            raise BoundcheckError(f"policy file {target} failed to import: {type(exc).__name__}: {exc}") from None
        finally:
            sys.path.remove(folder)
        # siblings it imported travel to worker processes by value with it (they are not importable there)
        module.__boundcheck_siblings__ = [
            m for m in set(sys.modules) - before
            if str(getattr(sys.modules[m], "__file__", "") or "").startswith(folder + "/")]
    else:
        try:
            module = importlib.import_module(target)
        except ImportError as exc:
            raise BoundcheckError(f"cannot import {target!r} for policy {ref!r}: {exc}") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise BoundcheckError(f"{target} has no {attr!r}") from None


def resolve_policy(policy: PolicyLike) -> PolicySpec:
    """A registered name, a ``FILE.py:CLASS`` / ``pkg.mod:CLASS`` reference, a class, a factory or a spec."""
    if isinstance(policy, str) and ":" in policy:
        return policy_spec(_load_object(policy))
    return policy_spec(policy)


def recorded_by(spec: PolicySpec, scenario: Scenario) -> frozenset[str]:
    """What a study will hold about a policy: its declared per-step and final records, its own truth-side
    monitors, and the engine's monitors (through its posterior, or the engine's reference posterior when it
    exposes none; not for uninformed references, nor when the scenario names no reference prior)."""
    d = spec.declared
    have = frozenset(d.records) | frozenset(d.final_records) | frozenset(d.monitors)
    monitored = getattr(d, "provides_posterior", False) or getattr(d, "role", "baseline") != "uninformed"
    if monitored and (scenario.truth_index is not None or scenario.reference_index is not None):
        have |= ENGINE_MONITORS if scenario.actions.K == 1 else frozenset({"z_all"})
    return have


def _as_sequence(x) -> list:
    if x is None:
        return []
    return list(x) if isinstance(x, list | tuple) else [x]


def build_study(theorem: str | Theorem, scenario: str | Scenario | None = None, *, runs: int | None = None,
                horizon: int | None = None, delta: float | None = None, seed: int = 0, beta_scale: float = 1.0,
                policies: Sequence[PolicyLike] | None = None, chunk_size: int = 25,
                algorithm: PolicyLike | Sequence[PolicyLike] | None = None) -> StudySpec:
    """Resolve everything a study needs, once.

    ``policies``: the algorithms to run, the checked one first (default: the theorem's algorithm and its
    baselines). ``algorithm``: one or several user algorithms (classes, ``FILE.py:CLASS`` references, specs) that
    take the role of the theorem's algorithm: their claims are checked, and ``policies`` run alongside as paired
    baselines on the same functions and noise, each keeping the random stream it has without them.
    ``runs``: default the scenario's ``runs`` (scenario files), else :data:`DEFAULT_RUNS`."""
    th = resolve_theorem(theorem)
    fam: Family = family_for(th)
    sc = resolve_scenario(scenario, th, horizon, delta)
    fam.check_scenario(sc)
    specs = tuple(resolve_policy(p) for p in (policies if policies is not None else th.algorithms))
    users = tuple(resolve_policy(a) for a in _as_sequence(algorithm))
    checked: tuple[str, ...] = ()
    if users:  # baselines keep the streams of a study without the user's algorithms; users get the next ones
        specs = tuple(replace(s, stream=j) for j, s in enumerate(specs))
        users = tuple(replace(u, stream=len(specs) + k) for k, u in enumerate(users))
        specs = users + specs
        checked = tuple(u.name for u in users)
    if not specs:
        raise BoundcheckError("a study needs at least one policy")
    names = [s.name for s in specs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise BoundcheckError(f"policy names must be distinct, got {', '.join(names)} ({', '.join(dup)} twice; give "
                              "a user policy class a `name` attribute)")
    not_applicable = {}
    for s in (users or specs[:1]):
        have = recorded_by(s, sc)
        missing = sorted(fam.requires - have)
        if missing:
            raise BoundcheckError(f"the checks of {th.id} read {', '.join(missing)} for every claim, which policy "
                                  f"{s.name!r} does not record: implement the batched Policy protocol with these "
                                  "records (see docs/architecture.md)")
        not_applicable[s.name] = not_applicable_claims(fam.claims, have)
    runs = runs if runs is not None else (sc.default_runs or DEFAULT_RUNS)
    return StudySpec(family=fam, scenario=sc, policies=specs, runs=check_int("runs", runs), seed=check_seed(
        "seed", seed), beta_scale=check_positive("beta scale", beta_scale),
        chunk_size=check_int("chunk size", chunk_size), checked=checked,
        not_applicable={k: v for k, v in not_applicable.items() if v})


def resolve_defects(theorem: Theorem, defects: Sequence[str | Defect] | None) -> list[Defect]:
    """Defect names or objects, each checked to apply to the theorem (one-line error otherwise)."""
    out = []
    for d in defects or ():
        d = d if isinstance(d, Defect) else get_defect(str(d))
        if not d.applies(theorem.id):
            raise BoundcheckError(f"defect {d.name!r} does not apply to {theorem.id}; its defects: "
                                  f"{', '.join(x.name for x in defects_for(theorem.id))}")
        out.append(d)
    return out


def applicability(theorem: str | Theorem, scenario: str | Scenario | None = None, *, horizon: int | None = None,
                  delta: float | None = None) -> list[str]:
    """Why ``theorem`` does not apply to ``scenario`` (empty: every assumption holds)."""
    th = resolve_theorem(theorem)
    sc = resolve_scenario(scenario, th, horizon, delta)
    return family_for(th).unmet_assumptions(sc, Conditions())


def _meta(spec: StudySpec) -> dict:
    """What the reports need about the scenario and the algorithms, stored in the manifest."""
    sc = spec.scenario
    algos = []
    checked = set(spec.checked_algorithms)
    for i, p in enumerate(spec.policies):
        cls = p.declared
        role = "theorem" if i == 0 else ("checked" if p.name in checked else getattr(cls, "role", "baseline"))
        label = p.label or getattr(p.make(), "label", None) or p.name  # an instance knows a label set in __init__
        algos.append({"name": p.name, "label": label, "role": role,
                      "description": getattr(cls, "description", "")})
    return {
        "main_algorithm": spec.main,
        "checked_algorithms": list(spec.checked_algorithms),
        "not_applicable": {k: dict(v) for k, v in spec.not_applicable.items()},
        "algorithm_info": algos,
        "scenario_info": {"name": sc.name, "description": sc.description, "n_candidates": len(sc.candidates),
                          "candidate_names": [c.name for c in sc.candidates], "truth_index": sc.truth_index,
                          "reference_index": sc.reference_index, "domain_size": sc.domain.n,
                          "notes": list(sc.notes)},
        "assumptions": spec.family.assumption_rows(sc, spec.beta_scale),
    }


def verify(theorem: str | Theorem, scenario: str | Scenario | None = None, *, runs: int | None = None,
           horizon: int | None = None, delta: float | None = None, seed: int = 0, beta_scale: float = 1.0,
           policies: Sequence[PolicyLike] | None = None, jobs: int = -1, backend: str = "loky",
           scheduler: str | None = None, out: str | Path | None = None, report: bool = True,
           on_chunk: Callable[[int, int], None] | None = None,
           on_progress: Callable[[int, int], None] | None = None,
           max_memory: int | str | None = None,
           algorithm: PolicyLike | Sequence[PolicyLike] | None = None, false_alarm: float = DEFAULT_FALSE_ALARM,
           until_conclusive: bool = False, max_runs: int | None = None, allow_out_of_theory: bool = False,
           defects: Sequence[str | Defect] | None = None) -> dict:
    """Run (or resume) ``boundcheck verify`` and return its JSON summary.

    ``false_alarm``: the probability that a verify of a correct theorem on correct code calls any claim
    violated is at most this (Holm across the stochastic claims). ``until_conclusive``: add chunks of runs
    until every claim is settled or ``max_runs`` (anytime-valid tests). A scenario that breaks an assumption of
    the theorem raises :class:`~boundcheck.errors.NotApplicable` (nothing is simulated) unless
    ``allow_out_of_theory`` or the study is an explicit negative control (``beta_scale`` ≠ 1, ``defects``).

    Results go to ``out/results`` (default ``reports/<theorem>``); with ``out=None`` and ``report=False`` they
    go to a temporary folder that is removed afterwards. Every input is validated, and the memory estimate
    checked against ``max_memory`` (bytes or ``"4G"``; default: the memory available), before anything is
    written; an error leaves no results folder behind. ``on_chunk(done, total)`` counts chunks,
    ``on_progress(done, total)`` run-steps (from a background thread, several times a second). ``algorithm``: the
    user's implementation(s) checked in the role of the theorem's algorithm (see :func:`build_study`); ``scenario``:
    a name, a :class:`~boundcheck.world.scenario.Scenario` or a scenario file (``.toml``)."""
    options, out_path, limit = check_run_settings(jobs=jobs, backend=backend, scheduler=scheduler, out=out,
                                                  max_memory=max_memory)
    options = replace(options, report=report)  # the parent may import the reports' libraries while workers run
    if report:
        from . import report as _report  # noqa: F401 - registers what the reports import (boundcheck.runtime.warmup)
    spec = build_study(theorem, scenario, runs=runs, horizon=horizon, delta=delta, seed=seed,
                       beta_scale=beta_scale, policies=policies, algorithm=algorithm)
    budget = HolmBudget(check_probability("false-alarm budget", false_alarm))
    prewarm(options.jobs, options.backend)  # workers start importing the engine while the theorem is set up
    planted = resolve_defects(spec.theorem, defects)
    sequential = None
    if until_conclusive:
        most = DEFAULT_MAX_RUNS if max_runs is None else check_int("max runs", max_runs)
        if most < spec.chunk_size:
            raise BoundcheckError(f"--max-runs {most} is smaller than one chunk ({spec.chunk_size} runs)")
        sequential = Sequential(max_runs=most)
    elif max_runs is not None:
        raise BoundcheckError("--max-runs needs --until-conclusive")
    cond = Conditions(beta_scale=spec.beta_scale, defects=tuple(d.name for d in planted))
    temporary = out_path is None and not report
    if out_path is None and not temporary:
        out_path = check_output_dir("--out", Path("reports") / spec.theorem.id)
    largest = spec if sequential is None else replace(spec, runs=sequential.max_runs)  # memory at the most runs
    preflight(largest, options, None if temporary else out_path / "results", limit, conditions=cond,
              allow_out_of_theory=allow_out_of_theory)
    spec = apply_defects(spec, planted)
    # labels from what is actually run: a defect that changes the world breaks assumptions of its own
    reasons = spec.family.out_of_theory_reasons(spec.scenario, spec.beta_scale, cond)
    inst = defect_instance(spec.family.instantiate(spec.scenario, spec.horizon, spec.delta, spec.beta_scale),
                           planted)
    preload_workers(spec, inst)  # the workers unpickle the study (and import what it needs) before their first task
    meta = _meta(spec)
    meta["assumptions"] = spec.family.assumption_rows(spec.scenario, conditions=cond)
    meta["defects"] = [{"name": d.name, "description": d.description} for d in planted]
    kwargs = dict(in_theory=not reasons, reasons=reasons, meta=meta, on_chunk=on_chunk, on_progress=on_progress,
                  budget=budget, sequential=sequential)
    if temporary:
        with tempfile.TemporaryDirectory(prefix="boundcheck-") as tmp:
            return run_study(spec, inst, Path(tmp) / "results", options, **kwargs)
    created = _missing_parents(out_path)
    try:
        summary = run_study(spec, inst, out_path / "results", options, **kwargs)
    except BaseException:
        for d in created:  # folders this call created and left empty (run_study removes an empty study)
            with contextlib.suppress(OSError):
                d.rmdir()
        raise
    if report:
        import time

        from .study.store import ResultStore

        t0 = time.perf_counter()
        summary["report"] = write_report(out_path / "results", out_path)
        store = ResultStore(out_path / "results")  # how long the reports took (benchmarks/bench_study.py reads it)
        manifest = store.require_manifest()
        manifest.setdefault("timing", {})["report_s"] = time.perf_counter() - t0
        store.write_manifest(manifest)
    return summary


def power(theorem: str | Theorem, scenario: str | Scenario | None = None, *, runs: int = DEFAULT_RUNS,
          horizon: int | None = None, delta: float | None = None, seed: int = 0,
          defects: Sequence[str | Defect] | None = None, jobs: int = -1, backend: str = "loky",
          scheduler: str | None = None, out: str | Path | None = None, false_alarm: float = DEFAULT_FALSE_ALARM,
          pool: int = 2, subsets: int = 200, allow_out_of_theory: bool = False,
          on_study: Callable[[str, int, int], None] | None = None) -> dict:
    """``boundcheck power``: the theorem's claims against planted defects (default: every defect of the library
    that applies), with the probability that a verify of ``runs`` runs catches each, and each claim's smallest
    detectable effect. Writes ``out/power.json`` (default ``reports/<theorem>/power``) and returns it. Validated
    like ``verify`` (one pass, nothing written on an error; not applicable: exit 3)."""
    options, out_path, _ = check_run_settings(jobs=jobs, backend=backend, scheduler=scheduler, out=out,
                                              max_memory=None)
    th = resolve_theorem(theorem)
    planted = resolve_defects(th, defects) if defects else defects_for(th.id)
    spec = build_study(th, scenario, runs=runs, horizon=horizon, delta=delta, seed=seed)
    budget = HolmBudget(check_probability("false-alarm budget", false_alarm))
    check_int("pool", pool)
    check_int("subsets", subsets)
    out_path = out_path if out_path is not None else check_output_dir("--out", Path("reports") / th.id / "power")
    check_applicable(spec, Conditions(), allow_out_of_theory)  # in the order of the preflight
    spec.family.bound_values(spec.scenario, spec.horizon, spec.delta)
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta, spec.beta_scale)
    table = run_power(spec, inst, planted, out_path, options, budget=budget, pool=pool, subsets=subsets, seed=seed,
                      on_study=on_study)
    atomic_write_json(out_path / "power.json", table, default=float)
    table["path"] = str(out_path / "power.json")
    return table


def _missing_parents(path: Path) -> list[Path]:
    """``path`` and its ancestors that do not exist yet, deepest first."""
    missing, p = [], path.absolute()
    while not p.exists():
        missing.append(p)
        p = p.parent
    return missing


def write_report(results_dir: str | Path, out_dir: str | Path | None = None) -> dict:
    """(Re)build the HTML and LaTeX reports of a results directory; returns their paths."""
    from .report import write_reports

    results_dir = Path(results_dir)
    out_dir = results_dir.parent if out_dir is None else Path(out_dir)
    paths = write_reports(results_dir, out_dir)
    return {"html": str(paths["html"]), "tex": str(paths["tex"])}


def sweep(theorem: str | Theorem, vary: Sequence[str | Axis], scenario: str | Path | Scenario | None = None, *,
          runs: int | None = None, horizon: int | None = None, delta: float | None = None, seed: int = 0,
          beta_scale: float = 1.0, policies: Sequence[PolicyLike] | None = None,
          algorithm: PolicyLike | Sequence[PolicyLike] | None = None, jobs: int = -1, backend: str = "loky",
          scheduler: str | None = None, out: str | Path | None = None, page: bool = True,
          on_cell: Callable[[int, int, str, dict | None], None] | None = None,
          false_alarm: float = DEFAULT_FALSE_ALARM, allow_out_of_theory: bool = False) -> dict:
    """Run (or resume) a sweep: one study per cell of the grid of ``vary`` (``"NAME=V1,V2"`` or :class:`Axis`).

    Each cell is stored in ``out/cells/<cell>/results`` (resumable, chunk by chunk); the tidy table goes to
    ``out/sweep.parquet`` (one row per cell × claim, columns in :data:`boundcheck.study.sweep.COLUMNS`), the
    configuration and the cells' verdicts to ``out/sweep.json``, the page to ``out/index.html``. Returns the
    content of ``sweep.json`` with the paths. ``on_cell(done, total, cell, summary)`` is called before each cell
    (summary None) and after it. Each cell is a verify with its own false-alarm budget ``false_alarm``; a cell
    where the theorem does not apply refuses the whole sweep before any cell runs (exit 3) unless
    ``allow_out_of_theory``."""
    from .study.sweep import cell_id, cells, sweep_table, vary_scenario
    from .utils.io import atomic_write_json

    th = resolve_theorem(theorem)
    axes = [a if isinstance(a, Axis) else parse_vary(a) for a in vary]
    if not axes:
        raise BoundcheckError("a sweep needs at least one --vary NAME=V1,V2,...")
    base = resolve_scenario(scenario, th)
    grid = cells(axes)
    # user files are imported once, not once per cell
    algorithm = [resolve_policy(a) for a in _as_sequence(algorithm)] or None
    policies = None if policies is None else [resolve_policy(p) for p in policies]
    out = Path(out) if out is not None else Path("reports") / f"{th.id}-sweep"
    fixed = {"runs": runs, "horizon": horizon, "delta": delta, "seed": seed, "beta_scale": beta_scale}
    # resolve every cell before running any: a bad value fails at once, with nothing written
    plan = []
    for params in grid:
        sc = vary_scenario(base, params)
        kw = {**fixed, **{k: v for k, v in params.items() if k in fixed}}
        spec = build_study(th, sc, runs=kw["runs"], horizon=kw["horizon"], delta=kw["delta"], seed=kw["seed"],
                           beta_scale=kw["beta_scale"], policies=policies, algorithm=algorithm)
        check_applicable(spec, Conditions(beta_scale=spec.beta_scale), allow_out_of_theory)
        spec.family.bound_values(spec.scenario, spec.horizon, spec.delta)
        plan.append((cell_id(params), params, sc, kw, spec))
    check_probability("false-alarm budget", false_alarm)
    uninformed = next((p.name for p in plan[0][4].policies if getattr(p.declared, "role", "") == "uninformed"), None)
    rows, info = [], []
    for i, (cid, params, sc, kw, _) in enumerate(plan):
        if on_cell:
            on_cell(i, len(plan), cid, None)
        summary = verify(th, sc, runs=kw["runs"], horizon=kw["horizon"], delta=kw["delta"], seed=kw["seed"],
                         beta_scale=kw["beta_scale"], policies=policies, algorithm=algorithm, jobs=jobs,
                         backend=backend, scheduler=scheduler, out=out / "cells" / cid, report=False,
                         false_alarm=false_alarm, allow_out_of_theory=allow_out_of_theory)
        rows.append((cid, params, summary))
        info.append({"cell": cid, "params": params, "verdict": summary["verdict"], "in_theory": summary["in_theory"],
                     "results": str(out / "cells" / cid / "results")})
        if on_cell:
            on_cell(i + 1, len(plan), cid, summary)
    table = sweep_table(rows, uninformed)
    out.mkdir(parents=True, exist_ok=True)
    from .utils.io import atomic_write

    atomic_write(out / "sweep.parquet", lambda tmp: table.to_parquet(tmp, index=False), mode=None)
    result = {"theorem": th.id, "scenario": rows[0][2]["scenario"], "vary": [{"name": a.name, "values": list(a.values)}
                                                                           for a in axes],
              "fixed": fixed, "cells": info, "table": str(out / "sweep.parquet"), "page": None,
              "verdict": ("violated" if any(c["verdict"] == "violated" for c in info) else
                          "holds" if all(c["verdict"] == "holds" for c in info) else "inconclusive")}
    if page:
        from .report.sweep import write_sweep_page

        result["page"] = str(write_sweep_page(table, result, out))
    atomic_write_json(out / "sweep.json", result, default=str)
    return result


# ------------------------------------------------------------------------------------------------ reproduce
REPRODUCE_FALSE_ALARM = 0.05
_STEP_COLUMNS = ["run", "algorithm", "t", "cum_regret", "prior"]


def _run_spec(spec: StudySpec, results_dir: Path, options: RunOptions,
              on_chunk: Callable[[int, int], None] | None = None) -> dict:
    """Run (or resume) one study into ``results_dir``, exactly as ``verify`` does."""
    reasons = spec.family.out_of_theory_reasons(spec.scenario, spec.beta_scale)
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta, spec.beta_scale)
    return run_study(spec, inst, results_dir, options, in_theory=not reasons, reasons=reasons, meta=_meta(spec),
                     on_chunk=on_chunk)


def _panel_data(results_dir: Path, spec: StudySpec):
    """The stored tables an empirical claim reads (runs; steps: cumulative regret and the prior used)."""
    from .claims.empirical import PanelData
    from .study.store import ResultStore

    store = ResultStore(results_dir)
    runs = store.read_table("runs")
    runs["algorithm"] = runs["algorithm"].astype(str)
    steps = store.read_table("steps")
    steps = steps[[c for c in _STEP_COLUMNS if c in steps]]
    sc = spec.scenario
    return PanelData(runs=runs, steps=steps, horizon=spec.horizon, truth_index=sc.truth_index,
                     n_candidates=len(sc.candidates))


def _run_cell(build: Callable, cell: dict, theorem: str, algorithms: list[str], runs: int, seed: int,
              results_dir: Path):
    """One cell of an explored grid, in a worker: build its scenario, run (or resume) it with the theorem's
    family stripped of its claims, and return the data the empirical claims read."""
    from dataclasses import replace

    from .claims.empirical import RegretOnlyFamily

    scenario, beta_scale = build(cell)
    spec = build_study(theorem, scenario, runs=runs, seed=seed, policies=algorithms, beta_scale=beta_scale,
                       chunk_size=runs)
    spec = replace(spec, family=RegretOnlyFamily(spec.family))
    _run_spec(spec, results_dir, RunOptions(jobs=1, backend="threading"))
    return _panel_data(results_dir, spec)


def _run_cells(tasks: list[tuple], options: RunOptions, on_done: Callable[[int, int], None] | None) -> list:
    """Run many small studies (the cells of an explored grid), one worker per cell: cheaper than splitting each
    small study into chunks. Stored cells are read back, not recomputed. Returns their data, in order."""
    import joblib

    backend = options.backend if options.backend in ("loky", "threading") else "loky"
    out = []
    if on_done:
        on_done(0, len(tasks))
    with joblib.parallel_config(backend=backend):
        for data in joblib.Parallel(n_jobs=options.jobs, return_as="generator")(
                joblib.delayed(_run_cell)(*task) for task in tasks):
            out.append(data)
            if on_done:
                on_done(len(out), len(tasks))
    return out


def _confirm(grid, panel, algos: list[str], cells: list[dict], per_claim: dict, by_id: dict, root: Path,
             screen_runs: int, seed: int, false_alarm: float, options: RunOptions, progress, exp_name: str,
             experiment_claims: list) -> tuple[int, int, dict | None]:
    """The confirmation stage of an explored grid: for each claim, the cells most favourable to it in the screen
    are re-run on seeds independent of the screen, with more runs, and tested again (Holm over all of them)."""
    import numpy as np

    from .claims.empirical import cell_tests, judge_empirical
    from .utils.hashing import fingerprint

    picks = {cid: [i for i in sorted(range(len(cells)), key=lambda i, b=b: b["cells"][i]["p_reproduced"])
                   if b["cells"][i]["favourable"]][:grid.confirm] for cid, b in per_claim.items()}
    chosen = sorted({i for v in picks.values() for i in v})
    n_conf = max(grid.confirm_runs, screen_runs)
    seed_conf = int(np.random.SeedSequence([seed, 1]).generate_state(1)[0])  # independent of the screen's runs
    tasks = [(grid.build, cells[i], panel.theorem, algos, n_conf, seed_conf,
              root / "confirm" / f"cell{i:03d}-{fingerprint(cells[i], 8)}-n{n_conf}-s{seed_conf}" / "results")
             for i in chosen]
    data = dict(zip(chosen, _run_cells(tasks, options, progress(f"{panel.name}: confirm")), strict=True))
    pairs = [(cid, i) for cid, v in picks.items() for i in v]
    for (cid, i), row in zip(pairs, cell_tests([(by_id[cid], data[i]) for cid, i in pairs], false_alarm),
                             strict=True):
        per_claim[cid].setdefault("confirmed", []).append({"cell": i, "settings": cells[i], **row})
    for b in per_claim.values():
        conf = b.setdefault("confirmed", [])
        ok = [c for c in conf if c["reproduces"]]
        if not conf:
            b["confirmation"] = "no setting of the grid favours it in mean: nothing to confirm"
            continue
        text = f"confirmed in {len(ok)} of its {len(conf)} most favourable settings, re-run with {n_conf} fresh runs"
        if ok:
            text += ": " + "; ".join(", ".join(f"{k} = {v}" for k, v in c["settings"].items())
                                     + f" (effect {c['estimate']:+.3g}"
                                     + (f", {c['relative']:+.0%}" if c.get("relative") is not None else "") + ")"
                                     for c in ok)
        b["confirmation"] = text
    # the setting that confirms the most claims: every claim of the experiment judged there (descriptive: the
    # setting was chosen with these data)
    score = {i: sum(any(c["cell"] == i and c["reproduces"] for c in b["confirmed"]) for b in per_claim.values())
             for i in chosen}
    best = None
    if score and max(score.values()) > 0:
        i = max(chosen, key=lambda i: (score[i], -sum(c["p_adj_reproduced"] for b in per_claim.values()
                                                      for c in b["confirmed"] if c["cell"] == i)))
        exp_claims = [c for c in experiment_claims if (not c.panels or list(c.panels) == [panel.name])
                      and set(c.algorithms) <= set(algos)]
        judged = judge_empirical(exp_claims, {(exp_name, panel.name): data[i]}, false_alarm)
        best = {"cell": i, "settings": cells[i], "runs": n_conf, "confirms": score[i],
                "claims": [r.to_json() for r in judged],
                "counts": {v: sum(r.verdict == v for r in judged) for v in ("reproduced", "not reproduced",
                                                                            "inconclusive")}}
    return n_conf, seed_conf, best


def reproduce(paper: str, experiment: str | None = None, *, runs: int | None = None, seed: int = 0,
              jobs: int = -1, backend: str = "loky", scheduler: str | None = None, out: str | Path | None = None,
              false_alarm: float = REPRODUCE_FALSE_ALARM, explore: bool = False, explore_runs: int | None = None,
              report: bool = True, on_progress: Callable[[str, int, int], None] | None = None) -> dict:
    """Run (or resume) the experiments of a paper and judge its empirical claims: ``boundcheck reproduce``.

    Every experiment (or only ``experiment``) runs its panels as studies, stored resumably under
    ``out/<experiment>/<panel>-n<runs>-s<seed>/results``; the claims of all of them are judged inside one
    family-wise false-alarm budget (Holm). With ``explore``, the claims that did not reproduce are re-tested on
    the experiment's grid of unstated settings. Returns the JSON summary (also written to ``out/reproduce.json``)."""
    import time

    from theory.empirical import empirical_claims

    from . import __version__
    from .claims.empirical import MIN_RUNS, describe_region, explore_claim, judge_empirical
    from .study.experiments import experiments_of, get_experiment, get_paper
    from .utils.hashing import fingerprint
    from .utils.io import atomic_write_json

    t0 = time.perf_counter()
    pap = get_paper(paper)
    chosen = [get_experiment(pap.id, experiment)] if experiment is not None else experiments_of(pap.id)
    for name, value in (("runs", runs), ("explore runs", explore_runs)):
        if value is not None and check_int(name, value, minimum=None) < MIN_RUNS:
            raise BoundcheckError(f"{name} must be at least {MIN_RUNS} for a paired test to say anything, got {value}")
    budget = HolmBudget(check_probability("false-alarm budget", false_alarm))  # the budget verify uses
    seed = check_seed("seed", seed)
    options, out, _ = check_run_settings(jobs=jobs, backend=backend, scheduler=scheduler, out=out, max_memory=None)
    out = out if out is not None else check_output_dir("--out", Path("reports") / "reproduce" / pap.id)

    def progress(label: str):
        return None if on_progress is None else (lambda done, total: on_progress(label, done, total))

    # ----------------------------------------------------------------------------- the experiments' studies
    data, panels_json, specs = {}, {}, {}
    for exp in chosen:
        if not exp.runnable:
            continue
        n = runs if runs is not None else exp.default_runs
        for panel in exp.panels:
            spec = build_study(panel.theorem, panel.scenario(), runs=n, seed=seed, policies=panel.algorithms,
                               beta_scale=panel.beta_scale)
            rel = Path(exp.name) / f"{panel.name}-n{n}-s{seed}"
            summary = _run_spec(spec, out / rel / "results", options, progress(f"{exp.name}/{panel.name}"))
            data[(exp.name, panel.name)] = _panel_data(out / rel / "results", spec)
            specs[(exp.name, panel.name)] = spec
            panels_json.setdefault(exp.name, []).append({
                "name": panel.name, "title": panel.title, "results": str(rel / "results"), "theorem": spec.theorem.id,
                "scenario": spec.scenario.name, "scenario_description": spec.scenario.description,
                "runs": spec.runs, "horizon": spec.horizon, "delta": spec.delta, "beta_scale": spec.beta_scale,
                "algorithms": list(spec.algorithms), "truth_index": spec.scenario.truth_index,
                "candidate_names": [c.name for c in spec.scenario.candidates],
                "in_theory": summary["in_theory"], "out_of_theory_reasons": summary["out_of_theory_reasons"],
                "theorem_verdict": summary["verdict"], "regret": summary["regret"],
                # R-GP-UCB's period N of a time-varying scenario (the stopping-time figure's reference line)
                "reset_period": getattr(spec.scenario, "period", None)})
    claims = [c for exp in chosen for c in empirical_claims(pap.id, exp.name)]
    results = judge_empirical(claims, data, budget)

    # ----------------------------------------------------------------------------- explore the unstated settings
    explored: dict = {}
    if explore:
        for exp in chosen:
            todo = [r for r in results if r.experiment == exp.name and r.verdict in ("not reproduced", "inconclusive")]
            if not exp.runnable or not todo:
                continue
            if exp.explore is None:
                explored[exp.name] = {"note": "no grid of unstated settings is defined for this experiment"}
                continue
            grid, panel = exp.explore, exp.panel(exp.explore.panel)
            todo = [r for r in todo if r.panels == [panel.name]]
            by_id = {c.id: c for c in claims}
            algos = list(dict.fromkeys([panel.algorithms[0]] + [a for r in todo for a in by_id[r.id].algorithms]))
            n_cell = explore_runs if explore_runs is not None else grid.runs
            cells = grid.cells()
            tasks = [(grid.build, cell, panel.theorem, algos, n_cell, seed,
                      out / exp.name / "explore" / f"cell{i:03d}-{fingerprint(cell, 8)}-n{n_cell}-s{seed}" / "results")
                     for i, cell in enumerate(cells)]
            cell_data = _run_cells(tasks, options, progress(f"{exp.name}: explore"))
            axes = {a.name: list(a.levels) for a in grid.axes}
            per_claim = {}
            for r in todo:
                rows = explore_claim(by_id[r.id], cell_data, false_alarm)
                per_claim[r.id] = {
                    "cells": rows, "where": describe_region(axes, cells, [x["reproduces"] for x in rows]),
                    "favourable_where": describe_region(axes, cells, [x["favourable"] for x in rows]),
                    "reversed_where": describe_region(axes, cells, [x["reversed"] for x in rows])}
            n_conf, seed_conf, best = _confirm(grid, panel, algos, cells, per_claim, by_id,
                                               out / exp.name / "explore", explore_runs or n_cell, seed, false_alarm,
                                               options, progress, exp.name, exp.claims)
            explored[exp.name] = {
                "panel": panel.name, "runs": n_cell, "algorithms": algos, "note": grid.note,
                "axes": [{"name": a.name, "label": a.label, "levels": list(a.levels), "meaning": a.meaning}
                         for a in grid.axes],
                "cells": cells, "claims": per_claim, "confirm_runs": n_conf, "confirm_seed": seed_conf,
                "best_setting": best}

    counts = {v: sum(r.verdict == v for r in results) for v in ("reproduced", "not reproduced", "inconclusive",
                                                                "not run")}
    summary = {
        "paper": pap.to_json(), "experiments": [e.to_json() | {"panel_results": panels_json.get(e.name, [])}
                                                for e in chosen],
        "seed": seed, "runs": runs, "false_alarm": false_alarm,
        "budget": (f"family-wise {false_alarm:g} over the {2 * (len(results) - counts['not run'])} one-sided tests "
                   "of this run (two per claim: 'the claim is false', 'the claim is true'), Holm step-down"),
        "claims": [r.to_json() for r in results], "counts": counts, "explore": explored,
        "elapsed_s": time.perf_counter() - t0, "version": __version__, "report": {"html": None, "tex": None},
    }
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_json(out / "reproduce.json", summary, default=str)
    if report:
        from .report.replication_reports import write_replication_reports

        paths = write_replication_reports(out)
        summary["report"] = {"html": str(paths["html"]), "tex": str(paths["tex"])}
        atomic_write_json(out / "reproduce.json", summary, default=str)
    return summary
