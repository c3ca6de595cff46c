"""The one entry point: resolve names, files and classes to objects once, build a study, run it, report it.

``cli.py`` and ``testing.py`` are thin layers over this module. Everything resolved here crosses process
boundaries as objects (the theorem, its family, the scenario, the policies), never as names looked up again in
a worker.

>>> from boundcheck import api
>>> summary = api.verify("gp_ucb", runs=20, horizon=30, seed=1, report=False)  # doctest: +SKIP
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import theory
from theory import Theorem

from .claims.families import Family, family_for
from .errors import BoundcheckError
from .policies import PolicySpec, policy_spec
from .study.engine import ENGINE_MONITORS
from .study.runner import BACKENDS, RunOptions, run_study
from .study.spec import StudySpec
from .utils.validation import check_choice, check_int, check_positive
from .world.catalogue import get_scenario
from .world.scenario import Scenario

__all__ = ["resolve_theorem", "resolve_scenario", "resolve_policy", "build_study", "verify", "write_report",
           "DEFAULT_RUNS"]

DEFAULT_RUNS = 200

PolicyLike = str | PolicySpec | type | Callable


def resolve_theorem(theorem: str | Theorem) -> Theorem:
    """A theorem id or a :class:`theory.Theorem`."""
    try:
        return theory.get(theorem)
    except theory.UnknownTheorem as exc:
        raise BoundcheckError(exc.args[0]) from None


def resolve_scenario(scenario: str | Scenario | None, theorem: Theorem, horizon: int | None = None,
                     delta: float | None = None) -> Scenario:
    """A scenario object or a built-in name (default: the theorem's default scenario), at ``horizon``/``delta``."""
    if scenario is None:
        scenario = theorem.default_scenario
    if isinstance(scenario, Scenario):
        return scenario.at(horizon, delta)
    if isinstance(scenario, str):
        return get_scenario(scenario, horizon, delta)
    raise BoundcheckError(f"cannot use {scenario!r} as a scenario: give a name or a Scenario")


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
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # user code: one line naming the file
            sys.modules.pop(modname, None)
            raise BoundcheckError(f"policy file {target} failed to import: {type(exc).__name__}: {exc}") from None
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


def build_study(theorem: str | Theorem, scenario: str | Scenario | None = None, *, runs: int = DEFAULT_RUNS,
                horizon: int | None = None, delta: float | None = None, seed: int = 0, beta_scale: float = 1.0,
                policies: Sequence[PolicyLike] | None = None, chunk_size: int = 25) -> StudySpec:
    """Resolve everything a study needs, once. ``policies``: the algorithms to run, the checked one first
    (default: the theorem's algorithm and its baselines)."""
    th = resolve_theorem(theorem)
    fam: Family = family_for(th)
    sc = resolve_scenario(scenario, th, horizon, delta)
    specs = tuple(resolve_policy(p) for p in (policies if policies is not None else th.algorithms))
    if not specs:
        raise BoundcheckError("a study needs at least one policy")
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise BoundcheckError(f"policy names must be distinct, got {', '.join(names)}")
    main = specs[0].declared
    declared = (frozenset(main.records) | frozenset(main.final_records) | frozenset(main.monitors)
                | (ENGINE_MONITORS if getattr(main, "provides_posterior", False) else frozenset()))
    fam.check_main_policy(declared, specs[0].name)
    return StudySpec(family=fam, scenario=sc, policies=specs, runs=check_int("runs", runs), seed=check_int(
        "seed", seed, minimum=0), beta_scale=check_positive("beta scale", beta_scale),
        chunk_size=check_int("chunk size", chunk_size))


def _meta(spec: StudySpec) -> dict:
    """What the reports need about the scenario and the algorithms, stored in the manifest."""
    sc = spec.scenario
    algos = []
    for i, p in enumerate(spec.policies):
        cls = p.declared
        label = p.label or getattr(p.make(), "label", None) or p.name  # an instance knows a label set in __init__
        algos.append({"name": p.name, "label": label,
                      "role": "theorem" if i == 0 else getattr(cls, "role", "baseline"),
                      "description": getattr(cls, "description", "")})
    return {
        "main_algorithm": spec.main,
        "algorithm_info": algos,
        "scenario_info": {"name": sc.name, "description": sc.description, "n_candidates": len(sc.candidates),
                          "candidate_names": [c.name for c in sc.candidates], "truth_index": sc.truth_index,
                          "reference_index": sc.reference_index, "domain_size": sc.domain.n,
                          "notes": list(sc.notes)},
        "assumptions": spec.family.assumption_rows(sc, spec.beta_scale),
    }


def verify(theorem: str | Theorem, scenario: str | Scenario | None = None, *, runs: int = DEFAULT_RUNS,
           horizon: int | None = None, delta: float | None = None, seed: int = 0, beta_scale: float = 1.0,
           policies: Sequence[PolicyLike] | None = None, jobs: int = -1, backend: str = "loky",
           scheduler: str | None = None, out: str | Path | None = None, report: bool = True,
           on_chunk: Callable[[int, int], None] | None = None) -> dict:
    """Run (or resume) ``boundcheck verify`` and return its JSON summary.

    Results go to ``out/results`` (default ``reports/<theorem>``); with ``out=None`` and ``report=False`` they
    go to a temporary folder that is removed afterwards."""
    spec = build_study(theorem, scenario, runs=runs, horizon=horizon, delta=delta, seed=seed,
                       beta_scale=beta_scale, policies=policies)
    options = RunOptions(jobs=check_int("jobs", jobs, minimum=None), backend=check_choice("backend", backend, BACKENDS),
                         scheduler=scheduler)
    if options.jobs == 0:
        raise BoundcheckError("jobs must be a positive number of workers or -1 (all cores), got 0")
    reasons = spec.family.out_of_theory_reasons(spec.scenario, spec.beta_scale)
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta, spec.beta_scale)
    kwargs = dict(in_theory=not reasons, reasons=reasons, meta=_meta(spec), on_chunk=on_chunk)
    if out is None and not report:
        with tempfile.TemporaryDirectory(prefix="boundcheck-") as tmp:
            return run_study(spec, inst, Path(tmp) / "results", options, **kwargs)
    out = Path(out) if out is not None else Path("reports") / spec.theorem.id
    summary = run_study(spec, inst, out / "results", options, **kwargs)
    if report:
        summary["report"] = write_report(out / "results", out)
    return summary


def write_report(results_dir: str | Path, out_dir: str | Path | None = None) -> dict:
    """(Re)build the HTML and LaTeX reports of a results directory; returns their paths."""
    from .report import write_reports

    results_dir = Path(results_dir)
    out_dir = results_dir.parent if out_dir is None else Path(out_dir)
    paths = write_reports(results_dir, out_dir)
    return {"html": str(paths["html"]), "tex": str(paths["tex"])}
