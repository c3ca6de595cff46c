"""``boundcheck verify``: run (or resume) a study, judge its claims, write its report (rewritten only when the
stored results changed)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from .. import __version__
from ..errors import BoundcheckError
from ..utils.settings import DEFAULT_FALSE_ALARM, DEFAULT_MAX_RUNS, SettingsKeywords, VerifySettings, settings_from
from .report import write_report
from .resolve import PolicyLike, build_study, conformance_shadows, default_out, resolve_defects
from .session import _capped_jobs, prewarm

if TYPE_CHECKING:
    from typing import Unpack

    from theory import Theorem

    from ..claims.defects import Defect
    from ..study.spec import StudySpec
    from ..world.scenario import Scenario


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


def verify(theorem: str | Theorem, scenario: str | Scenario | None = None, *, settings: VerifySettings | None = None,
           policies: Sequence[PolicyLike] | None = None, algorithm: PolicyLike | Sequence[PolicyLike] | None = None,
           defects: Sequence[str | Defect] | None = None, on_chunk: Callable[[int, int], None] | None = None,
           on_progress: Callable[[int, int], None] | None = None, **keywords: Unpack[SettingsKeywords]) -> dict:
    """Run (or resume) ``boundcheck verify`` and return its JSON summary.

    How it runs is ``settings`` (a :class:`VerifySettings`: runs, horizon, δ, seed, jobs, backend, false-alarm
    budget, β scale, memory limit, output, ...), or its fields given as keywords (``runs=40, seed=1``); a keyword
    that contradicts a ``settings`` object given with it is an error. What it checks: ``theorem``; ``scenario`` (a
    name, a :class:`~boundcheck.world.scenario.Scenario` or a scenario file, ``.toml``; default: the theorem's);
    ``policies`` (the algorithms run, the checked one first; default: the theorem's and its baselines);
    ``algorithm``: the user's implementation(s) checked in the role of the theorem's algorithm (see
    :func:`build_study`); ``defects``: planted defects (a negative control).

    ``false_alarm`` (default 0.01): the probability that a verify of a correct theorem on correct code calls any
    claim violated is at most this (Holm across the stochastic claims). ``until_conclusive``: add chunks of runs
    until every claim is settled or ``max_runs`` (anytime-valid tests). A scenario that breaks an assumption of
    the theorem raises :class:`~boundcheck.errors.NotApplicable` (nothing is simulated) unless
    ``allow_out_of_theory`` or the study is an explicit negative control (``beta_scale`` ≠ 1, ``defects``).

    Results go to ``out/results`` (default: :func:`default_out`, ``reports/<theorem>`` for the theorem's own
    algorithm on its default scenario, a folder below it per checked algorithm or other scenario); with
    ``out=None`` and ``report=False`` they go to a temporary folder, removed when the returned result is. Every
    input is validated, and the memory estimate checked against ``max_memory`` (default: the memory available),
    before anything is written; an error leaves no results folder behind. ``on_chunk(done, total)`` counts
    chunks, ``on_progress(done, total)`` run-steps (from a background thread, several times a second). Returns a
    :class:`~boundcheck.results.VerifyResult`: the JSON summary (a dict) with its tables as DataFrames, and
    ``recomputed`` (False: a rerun that found every chunk stored and computed none)."""
    from ..claims.budget import HolmBudget
    from ..claims.conformance import OUT_OF_THEORY
    from ..results import VerifyResult
    from ..study.power import apply_defects, defect_instance
    from ..study.preflight import preflight, run_options
    from ..study.runner import Sequential, forks_workers, preload_workers, run_study
    from ..utils.validation import check_output_dir, check_report_dir
    from ..world.assumptions import Conditions

    started = time.perf_counter()  # the verify's "time taken" runs from here to its judged summary
    s = settings_from(settings, keywords, caller="verify")
    options = replace(run_options(s), report=s.report)  # the parent may import the reports' libraries meanwhile
    out_path, limit, report = s.out, s.max_memory, s.report
    spec = build_study(theorem, scenario, runs=s.runs, horizon=s.horizon, delta=s.delta, seed=s.seed,
                       beta_scale=s.beta_scale, policies=policies, algorithm=algorithm)
    spec, _ = conformance_shadows(spec, s.conformance)  # before the preflight: the key it checks holds them
    budget = HolmBudget(DEFAULT_FALSE_ALARM if s.false_alarm is None else s.false_alarm)
    planted = resolve_defects(spec.theorem, defects)
    sequential = None
    if s.until_conclusive:  # (max_runs without until_conclusive: refused by VerifySettings)
        most = DEFAULT_MAX_RUNS if s.max_runs is None else s.max_runs
        if most < spec.chunk_size:
            raise BoundcheckError(f"--max-runs {most} is smaller than one chunk ({spec.chunk_size} runs)")
        sequential = Sequential(max_runs=most)
    cond = Conditions(beta_scale=spec.beta_scale, defects=tuple(d.name for d in planted))
    temporary = out_path is None and not report
    if out_path is None and not temporary:
        out_path = check_output_dir("--out", default_out(spec.theorem, scenario, algorithm))
    largest = spec if sequential is None else replace(spec, runs=sequential.max_runs)  # memory at the most runs
    options, note = _capped_jobs(options, largest)
    preflight(largest, options, None if temporary else out_path / "results", limit, conditions=cond,
              allow_out_of_theory=s.allow_out_of_theory)
    if report and not temporary:
        check_report_dir(out_path)
    spec = apply_defects(spec, planted)
    spec, shadows = conformance_shadows(spec, s.conformance)  # after the defects: a wrapped algorithm is checked
    # labels from what is actually run: a defect that changes the world breaks assumptions of its own
    reasons = spec.family.out_of_theory_reasons(spec.scenario, spec.beta_scale, cond)
    if not s.conformance:
        reasons.append(OUT_OF_THEORY)
    from ..claims.families.instance_cache import instantiate  # read from disk when computed before

    inst = defect_instance(instantiate(spec.family, spec.scenario, spec.horizon, spec.delta, spec.beta_scale),
                           planted)
    inst = replace(inst, shadows=shadows)
    if note:
        warnings.warn(note, stacklevel=2)
    # only now, with every input validated and the theorem instantiated, do worker processes start;
    # children forked from this process when the study sends them tasks need no warm-up (runtime.forking)
    if not forks_workers(spec, options):
        prewarm(options.jobs, options.backend)
        preload_workers(spec, inst)  # the workers unpickle the study (and import what it needs) before their first task
    meta = _meta(spec)
    meta["assumptions"] = spec.family.assumption_rows(spec.scenario, conditions=cond)
    meta["defects"] = [{"name": d.name, "description": d.description} for d in planted]
    kwargs = dict(in_theory=not reasons, reasons=reasons, meta=meta, on_chunk=on_chunk, on_progress=on_progress,
                  budget=budget, sequential=sequential, started=started)
    if temporary:  # the result keeps the folder (its tables) until the result itself goes (boundcheck.results)
        tmp = tempfile.TemporaryDirectory(prefix="boundcheck-")
        try:
            summary = run_study(spec, inst, Path(tmp.name) / "results", options, **kwargs)
        except BaseException:
            tmp.cleanup()
            raise
        return VerifyResult(summary, Path(tmp.name) / "results", keep=tmp)
    created = _missing_parents(out_path)
    try:
        summary = run_study(spec, inst, out_path / "results", options, **kwargs)
    except BaseException:
        for d in created:  # folders this call created and left empty (run_study removes an empty study)
            with contextlib.suppress(OSError):
                d.rmdir()
        raise
    if report:
        summary["report"] = _write_report_if_stale(summary, out_path)
    result = VerifyResult(summary, out_path / "results")
    result.recomputed = _recomputed(out_path / "results")
    return result


def _recomputed(results: Path) -> bool:
    """Whether the verify that just stored ``results`` computed any chunk (False: a resume of complete results)."""
    from ..study.store import ResultStore

    timing = ResultStore(results).require_manifest().get("timing") or {}
    return bool(timing.get("recomputed", True)) if isinstance(timing, dict) else True


#: the manifest's record of the reports last written from the results: the digest of what they show and each
#: file's sha256 (a resume that changes nothing they show, with the files as written, leaves them as they are)
REPORTS_WRITTEN = "reports_written"


def _reports_digest(summary: dict, manifest: dict) -> str:
    """A digest of everything a verify's reports are drawn from: the summary and the manifest (the chunks'
    sha256s, the configuration, the labels) less what only accounts for running them (the cumulative compute
    time, timings, this record itself), and the code that draws them (boundcheck's version, the report
    package's and the papers' figure modules' sources)."""
    root = Path(__file__).parent
    h = hashlib.sha256(__version__.encode())
    for src in sorted([*(root / "report").glob("*.py"), *(root / "papers").glob("*/figures.py")]):
        h.update(str(src.relative_to(root)).encode() + b"\0" + src.read_bytes())
    shown = {"summary": {k: v for k, v in summary.items() if k not in ("report", "compute_s_total")},
             "manifest": {k: v for k, v in manifest.items()
                          if k not in ("timing", "compute_s_total", REPORTS_WRITTEN)}}
    h.update(json.dumps(shown, sort_keys=True, default=str).encode())
    return h.hexdigest()


def _report_files(out: Path) -> dict[str, str]:
    """sha256 of each file a verify's reports consist of (index.html, report.tex, figures/, tables/)."""
    files = [out / "index.html", out / "report.tex", *sorted((out / "figures").glob("*")),
             *sorted((out / "tables").glob("*"))]
    return {str(f.relative_to(out)): hashlib.sha256(f.read_bytes()).hexdigest() for f in files if f.is_file()}


def _write_report_if_stale(summary: dict, out: Path) -> dict:
    """Write the reports of ``out/results`` into ``out`` unless the ones there are current: drawn from the same
    summary and results by the same code (:func:`_reports_digest`), every file as it was written. A resume that
    recomputes nothing thus rewrites nothing (the figures are most of a default verify's time);
    ``boundcheck report DIR`` rebuilds them regardless. Records the time the reports took
    (``timing.report_s``: benchmarks/bench_study.py reads it) and what was written."""
    from ..study.store import ResultStore

    store = ResultStore(out / "results")
    manifest = store.require_manifest()
    digest = _reports_digest(summary, manifest)
    written = manifest.get(REPORTS_WRITTEN)
    paths = {"html": str(out / "index.html"), "tex": str(out / "report.tex")}
    if isinstance(written, dict) and written.get("digest") == digest and written.get("files"):
        with contextlib.suppress(OSError):
            if _report_files(out) == written["files"]:
                return paths
    t0 = time.perf_counter()
    paths = write_report(out / "results", out)
    manifest = store.require_manifest()
    manifest.setdefault("timing", {})["report_s"] = time.perf_counter() - t0
    manifest[REPORTS_WRITTEN] = {"digest": digest, "files": _report_files(out)}
    store.write_manifest(manifest)
    return paths


def _missing_parents(path: Path) -> list[Path]:
    """``path`` and its ancestors that do not exist yet, deepest first."""
    missing, p = [], path.absolute()
    while not p.exists():
        missing.append(p)
        p = p.parent
    return missing
