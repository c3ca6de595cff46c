"""The one entry point: resolve names, files and classes to objects once, build a study, run it, report it.

``cli.py`` and ``testing.py`` are thin layers over this module. Everything resolved here crosses process
boundaries as objects (the theorem, its family, the scenario, the policies), never as names looked up again in
a worker.

>>> from boundcheck import api
>>> summary = api.verify("gp_ucb", runs=20, horizon=30, seed=1, report=False)  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import theory
from theory import Theorem

from .claims.families import Family, family_for
from .claims.table import not_applicable as not_applicable_claims
from .errors import BoundcheckError
from .policies import PolicySpec, policy_spec
from .study.engine import ENGINE_MONITORS
from .study.preflight import check_run_settings, preflight
from .study.runner import run_study
from .study.spec import StudySpec
from .study.sweep import Axis, parse_vary
from .utils.validation import check_int, check_output_dir, check_positive, check_seed
from .world.catalogue import get_scenario
from .world.scenario import Scenario
from .world.scenario_files import load_scenario

__all__ = ["resolve_theorem", "resolve_scenario", "resolve_policy", "build_study", "verify", "write_report",
           "sweep", "DEFAULT_RUNS"]

DEFAULT_RUNS = 200

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
        modname = f"boundcheck_user_{path.stem}_{abs(hash(str(path.resolve()))) % 10**8}"
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
           algorithm: PolicyLike | Sequence[PolicyLike] | None = None) -> dict:
    """Run (or resume) ``boundcheck verify`` and return its JSON summary.

    Results go to ``out/results`` (default ``reports/<theorem>``); with ``out=None`` and ``report=False`` they
    go to a temporary folder that is removed afterwards. Every input is validated, and the memory estimate
    checked against ``max_memory`` (bytes or ``"4G"``; default: the memory available), before anything is
    written; an error leaves no results folder behind. ``on_chunk(done, total)`` counts chunks,
    ``on_progress(done, total)`` run-steps (from a background thread, several times a second). ``algorithm``: the
    user's implementation(s) checked in the role of the theorem's algorithm (see :func:`build_study`); ``scenario``:
    a name, a :class:`~boundcheck.world.scenario.Scenario` or a scenario file (``.toml``)."""
    options, out_path, limit = check_run_settings(jobs=jobs, backend=backend, scheduler=scheduler, out=out,
                                                  max_memory=max_memory)
    spec = build_study(theorem, scenario, runs=runs, horizon=horizon, delta=delta, seed=seed,
                       beta_scale=beta_scale, policies=policies, algorithm=algorithm)
    temporary = out_path is None and not report
    if out_path is None and not temporary:
        out_path = check_output_dir("--out", Path("reports") / spec.theorem.id)
    preflight(spec, options, None if temporary else out_path / "results", limit)
    reasons = spec.family.out_of_theory_reasons(spec.scenario, spec.beta_scale)
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta, spec.beta_scale)
    kwargs = dict(in_theory=not reasons, reasons=reasons, meta=_meta(spec), on_chunk=on_chunk,
                  on_progress=on_progress)
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
        summary["report"] = write_report(out_path / "results", out_path)
    return summary


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
          on_cell: Callable[[int, int, str, dict | None], None] | None = None) -> dict:
    """Run (or resume) a sweep: one study per cell of the grid of ``vary`` (``"NAME=V1,V2"`` or :class:`Axis`).

    Each cell is stored in ``out/cells/<cell>/results`` (resumable, chunk by chunk); the tidy table goes to
    ``out/sweep.parquet`` (one row per cell × claim, columns in :data:`boundcheck.study.sweep.COLUMNS`), the
    configuration and the cells' verdicts to ``out/sweep.json``, the page to ``out/index.html``. Returns the
    content of ``sweep.json`` with the paths. ``on_cell(done, total, cell, summary)`` is called before each cell
    (summary None) and after it."""
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
        plan.append((cell_id(params), params, sc, kw, spec))
    uninformed = next((p.name for p in plan[0][4].policies if getattr(p.declared, "role", "") == "uninformed"), None)
    rows, info = [], []
    for i, (cid, params, sc, kw, _) in enumerate(plan):
        if on_cell:
            on_cell(i, len(plan), cid, None)
        summary = verify(th, sc, runs=kw["runs"], horizon=kw["horizon"], delta=kw["delta"], seed=kw["seed"],
                         beta_scale=kw["beta_scale"], policies=policies, algorithm=algorithm, jobs=jobs,
                         backend=backend, scheduler=scheduler, out=out / "cells" / cid, report=False)
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
