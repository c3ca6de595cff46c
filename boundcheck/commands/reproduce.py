"""``boundcheck reproduce``: run a paper's experiments and judge its empirical claims (paired tests inside one
false-alarm budget); panels side by side on the pool (:func:`_run_panels`), the explored settings confirmed."""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from .. import __version__
from ..errors import BoundcheckError
from ..utils.settings import SettingsKeywords, VerifySettings, settings_from
from .resolve import build_study
from .session import _capped_jobs
from .verify import _meta

if TYPE_CHECKING:
    from typing import Unpack

    from ..study.runner import RunOptions
    from ..study.spec import StudySpec


REPRODUCE_FALSE_ALARM = 0.05


# ------------------------------------------------------------------------------------------------ reproduce
_STEP_COLUMNS = ["run", "algorithm", "t", "cum_regret", "prior"]


def _run_spec(spec: StudySpec, results_dir: Path, options: RunOptions,
              on_chunk: Callable[[int, int], None] | None = None) -> dict:
    """Run (or resume) one study into ``results_dir``, exactly as ``verify`` does."""
    from ..study.runner import run_study

    reasons = spec.family.out_of_theory_reasons(spec.scenario, spec.beta_scale)
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta, spec.beta_scale)
    return run_study(spec, inst, results_dir, options, in_theory=not reasons, reasons=reasons, meta=_meta(spec),
                     on_chunk=on_chunk)


def _panel_cost(spec: StudySpec) -> float:
    """A panel's simulation cost, relative to the others: runs × T × |D|. At the papers' sizes (|D| ≤ 300, a few
    dozen runs per batch) a step costs per-call overhead plus O(|D|) per run more than O(|D|²) (paper 004 at
    T = 30 000: |D| = 100, 200, 300 cost 1 : 2.1 : 3.1, docs/performance.md)."""
    n = getattr(getattr(spec.scenario, "domain", None), "n", None) or 1
    return float(spec.runs) * float(spec.horizon) * float(n)


def _run_panels(items: list[tuple[StudySpec, Path, Callable[[int, int], None] | None]], options: RunOptions,
                max_memory: float | None = None) -> list[dict]:
    """Run (or resume) the studies of a reproduce, each into its folder; their summaries, in order.

    With loky and more than one process, whole panels go to the processes when they are balanced enough
    (no panel costs more than a process's share, :func:`_panel_cost`) and at least as many as the processes:
    each panel is then one study on one process (``--jobs 1``: one batch of its runs), the parent among them,
    the costliest first (longest processing time first). A batch of 25 runs costs about 1.4× one of 13 where a
    step's per-call overhead dominates (|D| = 100), so two panels side by side beat each panel split in two
    (paper 004's Figs 1–3 at T = 30 000). Otherwise every panel is split into chunks over all processes in turn,
    as ``verify`` does. Results do not depend on which process ran a study, nor on its batches (stored chunks
    are bit-identical for any ``--jobs``). A panel's error is raised as it is, after the panels finished before
    it are stored; an interruption stops the workers (the chunks stored so far are kept: a rerun resumes)."""
    import threading
    from collections import deque

    from .. import runtime
    from ..study.preflight import estimate_study_memory
    from ..utils.resources import MemoryEstimate, check_memory

    # no more processes than cores (as _capped_jobs): --jobs far above the machine starts no idle workers
    workers = min(runtime.pool_workers(options.jobs), (os.cpu_count() or 1) - 1) if options.backend == "loky" else 0
    costs = [_panel_cost(spec) for spec, _, _ in items]
    one = replace(options, jobs=1)
    side_by_side = workers >= 1 and len(items) > workers and max(costs) <= sum(costs) / (workers + 1)
    if side_by_side:
        # as many panels at once as processes: the largest of them must fit together
        sizes = sorted((estimate_study_memory(spec, one).total for spec, _, _ in items), reverse=True)
        try:
            check_memory(MemoryEstimate("panels side by side", sum(sizes[:workers + 1])), max_memory)
        except BoundcheckError:
            side_by_side = False  # each panel over all processes in turn: its own estimate was checked
    if not side_by_side:
        return [_run_spec(spec, path, options, on_chunk) for spec, path, on_chunk in items]
    queue = deque(sorted(range(len(items)), key=lambda i: -costs[i]))
    take, stop = threading.Lock(), threading.Event()
    summaries: dict[int, dict] = {}
    errors: list[BaseException] = []
    executor = runtime.pool(workers)

    def feed() -> None:
        while not stop.is_set():
            with take:
                if not queue:
                    return
                i = queue.popleft()
            spec, path, on_chunk = items[i]
            try:
                summaries[i] = executor.submit(_run_spec, spec, path, one).result()
            except BaseException as exc:  # noqa: BLE001 - handed to the main thread, which raises it
                errors.append(exc)
                stop.set()
                return
            if on_chunk:  # a worker's panel reports when it is done (its progress stays in the worker)
                on_chunk(spec.n_chunks, spec.n_chunks)

    feeders = [threading.Thread(target=feed, name=f"boundcheck-panels-{k}", daemon=True) for k in range(workers)]
    for th in feeders:
        th.start()
    try:
        while not stop.is_set():
            with take:
                if not queue:
                    break
                i = queue.popleft()
            spec, path, on_chunk = items[i]
            summaries[i] = _run_spec(spec, path, one, on_chunk)
    except BaseException:
        stop.set()  # the feeders send nothing more
        runtime.shutdown()  # a panel in a worker takes minutes: stop it (its stored chunks stay)
        raise
    for th in feeders:
        th.join()
    if errors:
        raise errors[0]
    return [summaries[i] for i in range(len(items))]


def _panel_data(results_dir: Path, spec: StudySpec):
    """The stored tables an empirical claim reads (runs; steps: cumulative regret and the prior used)."""
    from ..claims.empirical import PanelData
    from ..study.store import ResultStore

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

    from ..claims.empirical import RegretOnlyFamily
    from ..study.runner import RunOptions

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
    # no more workers than cores and cells (as the grid's preflight assumes): more would only start idle processes
    cores = os.cpu_count() or 1
    jobs = max(1, min(cores if options.jobs < 0 else options.jobs, cores, len(tasks)))
    out = []
    if on_done:
        on_done(0, len(tasks))
    if backend == "loky" and jobs > 1:
        return _run_cells_on_pool(tasks, jobs, on_done)
    with joblib.parallel_config(backend=backend):
        for data in joblib.Parallel(n_jobs=jobs, return_as="generator")(
                joblib.delayed(_run_cell)(*task) for task in tasks):
            out.append(data)
            if on_done:
                on_done(len(out), len(tasks))
    return out


def _run_cells_on_pool(tasks: list[tuple], jobs: int, on_done: Callable[[int, int], None] | None) -> list:
    """The cells on the runtime's pool of ``jobs`` workers (the one ``--jobs`` warmed; its workers die with this
    process, and no array goes through /dev/shm), the parent waiting. Results in the tasks' order; the first
    error is raised after the cells not started are cancelled (the stored cells stay: a rerun reads them)."""
    from concurrent.futures import as_completed

    from .. import runtime

    with warnings.catch_warnings():  # a pool warmed for jobs − 1 processes grows by one: not the user's concern
        warnings.filterwarnings("ignore", message="Trying to resize an executor")
        executor = runtime.pool(jobs)
    futures = [executor.submit(_run_cell, *task) for task in tasks]
    try:
        for n, fut in enumerate(as_completed(futures), start=1):
            fut.result()  # raises the cell's error here
            if on_done:
                on_done(n, len(tasks))
    finally:
        for fut in futures:
            fut.cancel()  # no-op for the cells done or running
    return [fut.result() for fut in futures]


def _confirm(grid, panel, algos: list[str], cells: list[dict], per_claim: dict, by_id: dict, root: Path,
             screen_runs: int, seed: int, false_alarm: float, options: RunOptions, progress, exp_name: str,
             experiment_claims: list) -> tuple[int, int, dict | None]:
    """The confirmation stage of an explored grid: for each claim, the cells most favourable to it in the screen
    are re-run on seeds independent of the screen, with more runs, and tested again (Holm over all of them)."""
    import numpy as np

    from ..claims.empirical import cell_tests, judge_empirical
    from ..utils.hashing import fingerprint

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


#: beyond this horizon a reproduce panel stores its steps table every T/1000 steps, cumulative regret (and the
#: prior used) only: what the replication figures and the empirical claims read (25 runs × 30 000 steps × 6
#: algorithms of every record would be ~1 GB per panel); the claims are judged on every step all the same
LONG_HORIZON = 1000
STEPS_KEPT = 1000


def _long_horizon(spec: StudySpec) -> StudySpec:
    """``spec`` with its family's stored steps table thinned (:data:`LONG_HORIZON`), on a copy of the family."""
    import copy

    import numpy as np

    T = int(spec.horizon)
    if T <= LONG_HORIZON:
        return spec
    every = max(1, T // STEPS_KEPT)
    fam = copy.copy(spec.family)
    fam.steps_at = np.unique(np.concatenate([[1], np.arange(every, T + 1, every), [T]]))
    return replace(spec, family=fam)


#: the settings reproduce does not read: each panel has its own horizon, δ and β scale (see settings_from)
_REPRODUCE_UNUSED = ("horizon", "delta", "beta_scale", "until_conclusive", "max_runs", "conformance",
                     "allow_out_of_theory")


def _stand_in_rows(exp, scenario) -> list[dict]:
    """The stand-in's measured properties beside what the paper reports about its real data (one row each)."""
    from ..world.stand_in import STAND_IN_ROWS, stand_in_properties

    ours = stand_in_properties(scenario, exp.stand_in_data)
    paper = dict(exp.stand_in_paper)
    return [{"property": label, "paper": paper.get(key, "not reported"), "ours": ours[key]}
            for key, label in STAND_IN_ROWS]


#: ``reproduce --quick``: the runs per panel (the fewest a paired test takes) and the cap on a panel's horizon
QUICK_RUNS, QUICK_MAX_HORIZON = 5, 2000


def reproduce(paper: str, experiment: str | None = None, *, settings: VerifySettings | None = None,
              explore: bool = False, explore_runs: int | None = None, quick: bool = False,
              on_progress: Callable[[str, int, int], None] | None = None,
              **keywords: Unpack[SettingsKeywords]) -> dict:
    """Run (or resume) the experiments of a paper and judge its empirical claims: ``boundcheck reproduce``.

    Every experiment (or only ``experiment``) runs its panels as studies, stored resumably under
    ``out/<experiment>/<panel>-n<runs>-s<seed>/results`` (``out`` default ``reports/reproduce/<paper>``); the
    claims of all of them are judged inside one family-wise false-alarm budget (Holm; ``false_alarm`` default
    :data:`REPRODUCE_FALSE_ALARM`). ``settings`` or its fields as keywords: see :func:`verify` (of them,
    reproduce reads runs, seed, jobs, backend, scheduler, false_alarm, report and out; ``runs`` default: each
    experiment's own). With ``explore``, the claims that did not reproduce are re-tested on the experiment's grid
    of unstated settings (``explore_runs`` per setting). ``quick``: a smaller run, not the paper's settings — each
    experiment's own smaller form where it declares one
    (:meth:`~boundcheck.study.experiments.Experiment.at_quick`: paper 004's Figs 1–3 at T = 200 with 50 / 30 runs
    instead of the paper's T = 30 000), else :data:`QUICK_RUNS` runs per panel (unless ``runs`` says otherwise);
    every horizon capped at :data:`QUICK_MAX_HORIZON`; stored apart (``…-quick``), and every page of its report
    says so. Returns the JSON summary (also written to ``out/reproduce.json``).

    Sized before anything runs: each panel's memory estimate, and with ``explore`` each grid's
    (:func:`~boundcheck.study.preflight.estimate_grid_memory`: every cell and every confirmation, as if no claim
    reproduced), within ``max_memory`` (default: the memory available)."""
    import math

    from theory.empirical import empirical_claims

    from .. import __version__
    from ..claims.budget import HolmBudget
    from ..claims.empirical import MIN_RUNS, describe_region, explore_claim, judge_empirical, printed_beside_ours
    from ..study.experiments import experiments_of, get_experiment, get_paper
    from ..study.needs import with_needs
    from ..study.preflight import estimate_grid_memory, estimate_study_memory, run_options
    from ..utils.hashing import fingerprint
    from ..utils.io import atomic_write_json
    from ..utils.resources import check_memory
    from ..utils.validation import check_int, check_output_dir

    s = settings_from(settings, keywords, caller="reproduce", unused=_REPRODUCE_UNUSED)
    runs, seed, report = s.runs, s.seed, s.report
    false_alarm = REPRODUCE_FALSE_ALARM if s.false_alarm is None else s.false_alarm
    t0 = time.perf_counter()
    pap = get_paper(paper)
    chosen = [get_experiment(pap.id, experiment)] if experiment is not None else experiments_of(pap.id)
    own_quick = sorted(e.name for e in chosen if e.quick is not None)  # experiments with their own quick form
    if quick:
        chosen = [e.at_quick() for e in chosen]
    for name, value in (("runs", runs), ("explore runs", explore_runs)):
        if value is not None and check_int(name, value, minimum=None) < MIN_RUNS:
            raise BoundcheckError(f"{name} must be at least {MIN_RUNS} for a paired test to say anything, got {value}")
    budget = HolmBudget(false_alarm)  # the budget verify uses
    options = run_options(s)
    out = s.out if s.out is not None else check_output_dir("--out", Path("reports") / "reproduce" / pap.id)

    def progress(label: str):
        return None if on_progress is None else (lambda done, total: on_progress(label, done, total))

    # ----------------------------------------------------------------------------- the experiments' studies
    # every panel is built and sized before the first one runs: a refusal leaves nothing behind
    planned, stand_ins = [], {}
    for exp in chosen:
        if not exp.runnable:
            continue
        n = (runs if runs is not None else QUICK_RUNS if quick and exp.name not in own_quick
             else exp.default_runs)
        for panel in exp.panels:
            sc = panel.scenario()
            horizon = exp.horizon if exp.horizon is not None else (sc.horizon if quick else None)
            if quick and horizon is not None:
                horizon = min(horizon, QUICK_MAX_HORIZON)
            spec = build_study(panel.theorem, sc, runs=n, horizon=horizon, seed=seed, policies=panel.algorithms,
                               beta_scale=panel.beta_scale, chunk_size=exp.chunk_size)
            if exp.horizon is not None:  # an experiment at a paper's own long horizon (its figures read R_t only)
                spec = _long_horizon(spec)
            spec = with_needs(spec, exp.needs)  # only what the experiment measures (stop at its event, ...)
            if exp.stand_in and exp.name not in stand_ins:  # the first panel's scenario stands for the data
                stand_ins[exp.name] = _stand_in_rows(exp, spec.scenario)
            check_memory(estimate_study_memory(spec, _capped_jobs(options, spec)[0]), s.max_memory,
                         hint=f"{exp.name}/{panel.name}: lower --runs or --jobs, or set --max-memory if you know "
                              f"better")
            planned.append((exp, n, panel, spec))
    if explore:  # the grids too, as if every claim failed: the screen and confirmation run only after the panels
        for exp, _, panel, spec in planned:
            grid = exp.explore
            if grid is None or panel.name != grid.panel:
                continue
            n_cell = explore_runs if explore_runs is not None else grid.runs
            n_cells = math.prod(len(a.levels) for a in grid.axes)
            check_memory(estimate_grid_memory(
                replace(spec, runs=n_cell), options, n_cells, confirm_cells=grid.confirm * len(exp.claims),
                confirm_runs=max(grid.confirm_runs, n_cell), what=f"{exp.name}: --explore"), s.max_memory,
                hint="lower --explore-runs or --jobs, or set --max-memory if you know better")
    data, panels_json, specs = {}, {}, {}
    rels = [Path(exp.name) / ((f"{panel.name}-n{n}-s{seed}" if exp.horizon is None else
                               f"{panel.name}-n{n}-T{exp.horizon}-s{seed}") + ("-quick" if quick else ""))
            for exp, n, panel, _ in planned]
    summaries = _run_panels([(spec, out / rel / "results", progress(f"{exp.name}/{panel.name}"))
                             for (exp, _, panel, spec), rel in zip(planned, rels, strict=True)], options,
                            s.max_memory)
    for (exp, _, panel, spec), rel, summary in zip(planned, rels, summaries, strict=True):
        data[(exp.name, panel.name)] = _panel_data(out / rel / "results", spec)
        specs[(exp.name, panel.name)] = spec
        panels_json.setdefault(exp.name, []).append({
            "name": panel.name, "title": panel.title, "results": str(rel / "results"), "theorem": spec.theorem.id,
            "scenario": spec.scenario.name, "scenario_description": spec.scenario.description,
            "runs": spec.runs, "horizon": spec.horizon, "delta": spec.delta, "beta_scale": spec.beta_scale,
            "algorithms": list(spec.algorithms), "truth_index": spec.scenario.truth_index,
            "candidate_names": [c.name for c in spec.scenario.candidates],
            "in_theory": summary["in_theory"], "out_of_theory_reasons": summary["out_of_theory_reasons"],
            # a study that stops its runs at an event checks none of the theorem's claims (boundcheck.study.needs)
            "theorem_verdict": summary["verdict"] if spec.needs is None else "not checked (runs stop at their event)",
            "regret": summary["regret"],
            # R-GP-UCB's period N of a time-varying scenario (the stopping-time figure's reference line)
            "reset_period": getattr(spec.scenario, "period", None)})
    claims = [c for exp in chosen for c in empirical_claims(pap.id, exp.name)]
    results = judge_empirical(claims, data, budget)
    printed = {exp.name: printed_beside_ours(exp.printed, {p: d for (e, p), d in data.items() if e == exp.name})
               for exp in chosen if exp.printed and exp.runnable}

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
        "paper": pap.to_json(), "experiments": [e.to_json() | {"panel_results": panels_json.get(e.name, []),
                                                               "printed_results": printed.get(e.name, []),
                                                               "stand_in_rows": stand_ins.get(e.name, [])}
                                                for e in chosen],
        "seed": seed, "runs": runs, "false_alarm": false_alarm,
        "budget": (f"family-wise {false_alarm:g} over the {2 * (len(results) - counts['not run'])} one-sided tests "
                   "of this run (two per claim: 'the claim is false', 'the claim is true'), Holm step-down"),
        "claims": [r.to_json() for r in results], "counts": counts, "explore": explored,
        "elapsed_s": time.perf_counter() - t0, "version": __version__, "report": {"html": None, "tex": None},
        "quick": ({"runs": runs if runs is not None else QUICK_RUNS, "max_horizon": QUICK_MAX_HORIZON,
                   "own_form": own_quick} if quick else None),
    }
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_json(out / "reproduce.json", summary, default=str)
    if report:
        from ..report.reproduce import write_reports as write_replication_reports

        paths = write_replication_reports(out)
        summary["report"] = {"html": str(paths["html"]), "tex": str(paths["tex"])}
        atomic_write_json(out / "reproduce.json", summary, default=str)
    from ..results import ReproduceResult

    return ReproduceResult(summary, out)


def reproduce_all(*, settings: VerifySettings | None = None, quick: bool = False,
                  on_progress: Callable[[str, int, int], None] | None = None,
                  **keywords: Unpack[SettingsKeywords]) -> dict:
    """Every experiment of every paper (:func:`reproduce` on each paper id in turn, ``out/<paper>``), and one
    index page ``out/index.html`` with every claim's verdict: ``boundcheck reproduce --all``.

    Each paper runs at its own settings (``runs`` default: each experiment's own) inside its own family-wise
    budget, as ``reproduce PAPER`` would; ``quick`` as in :func:`reproduce`. ``out`` default
    ``reports/reproduce``. Returns the summary (also ``out/reproduce_all.json``): per paper its counts, claims
    (id, experiment, reading, verdict, effect) and time, the summed counts and the total wall time."""

    from ..report.reproduce.model import effect_text, quick_text
    from ..study.experiments import get_paper, paper_ids
    from ..utils.io import atomic_write_json
    from ..utils.validation import check_output_dir

    s = settings_from(settings, keywords, caller="reproduce", unused=_REPRODUCE_UNUSED)
    out = s.out if s.out is not None else check_output_dir("--out", Path("reports") / "reproduce")
    t0 = time.perf_counter()
    papers = []
    for pid in paper_ids():
        summ = reproduce(pid, settings=s.replace(out=Path(out) / pid), quick=quick, on_progress=on_progress)
        pap = get_paper(pid)
        papers.append({
            "id": pid, "title": getattr(pap, "title", ""), "source": getattr(pap, "source", ""),
            "counts": summ["counts"], "elapsed_s": summ["elapsed_s"], "report": summ["report"],
            "claims": [{"id": c["id"], "experiment": c["experiment"], "reading": c.get("reading", ""),
                        "verdict": c["verdict"], "effect": effect_text(c, short=True),
                        "details": {"resolution": (c.get("details") or {}).get("resolution")}}
                       for c in summ["claims"]]})
    counts = {v: sum(p["counts"].get(v, 0) for p in papers) for v in ("reproduced", "not reproduced",
                                                                      "inconclusive", "not run")}
    summary = {"papers": papers, "counts": counts, "seed": s.seed, "runs": s.runs, "elapsed_s": 0.0,
               "quick": ({"runs": s.runs or QUICK_RUNS, "max_horizon": QUICK_MAX_HORIZON} if quick else None),
               "version": __version__, "index": None}
    summary["quick_text"] = quick_text(summary)
    summary["elapsed_s"] = time.perf_counter() - t0
    Path(out).mkdir(parents=True, exist_ok=True)
    if s.report:
        from ..report.reproduce import write_index as write_reproduce_index

        summary["index"] = str(write_reproduce_index(summary, Path(out)))
    atomic_write_json(Path(out) / "reproduce_all.json", summary, default=str)
    return summary


def reproducible_papers() -> list[dict]:
    """The papers ``reproduce`` takes: id, title and the names of their experiments (``reproduce --help``)."""
    from ..study.experiments import experiments_of, get_paper, paper_ids

    return [{"id": pid, "title": getattr(get_paper(pid), "title", ""),
             "experiments": [e.name for e in experiments_of(pid)]} for pid in paper_ids()]
