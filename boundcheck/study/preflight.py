"""The one validation pass a study goes through before anything is written.

:class:`~boundcheck.utils.settings.VerifySettings` has checked the scalar settings (types and ranges, backend
availability, ``scheduler`` only with the dask backend, the output folder; :func:`run_options` turns them into
the engine's options); :func:`preflight` checks the resolved study: the theorem can
be computed on the scenario (else exit 2), its assumptions hold on the scenario and the algorithm's
configuration (else :class:`~boundcheck.errors.NotApplicable`, exit 3, unless the study runs explicitly outside
the theorem), the results folder is usable by this configuration, and the memory estimate
(:func:`estimate_study_memory`) fits. Only then does :func:`~boundcheck.study.runner.run_study` open the store.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import BoundcheckError, NotApplicable
from ..model.posterior import PATHWISE_MAX_HORIZON
from ..utils.resources import MemoryEstimate, check_memory, gamma_memory
from ..utils.settings import VerifySettings
from ..world.assumptions import Conditions
from .runner import RunOptions, task_runs
from .spec import StudySpec
from .store import ResultStore

__all__ = ["run_options", "check_applicable", "check_actions", "estimate_study_memory", "estimate_grid_memory",
           "preflight"]

_MB = 1024**2
_INTERPRETER = 300 * _MB  # python + numpy/scipy/pandas/sympy, the parent
_WORKER = 200 * _MB  # a loky / dask worker process with boundcheck imported, before any data
_IDLE_WORKER = 50 * _MB  # a worker that never gets a chunk (python + loky only)
_STEP_COLUMNS = 24  # float64 columns of the tidy steps table (monitors, records, β, regret, ...)
_PANEL_COLUMNS = 6  # 8-byte columns of the steps a panel's empirical claims keep (run, algorithm, t, regret, prior)


def run_options(settings: VerifySettings) -> RunOptions:
    """The engine's options for validated settings (the report flag is the caller's to set)."""
    return RunOptions(jobs=settings.jobs, backend=settings.backend, scheduler=settings.scheduler,
                      policy_timeout=settings.policy_timeout)


def _workers(options: RunOptions) -> int:
    return (os.cpu_count() or 1) if options.jobs == -1 else options.jobs


def estimate_study_memory(spec: StudySpec, options: RunOptions) -> MemoryEstimate:
    """Peak memory of a study on this machine: the parent's certified γ brackets, the batches in flight (each
    worker holds one batch of consecutive chunks, :func:`~boundcheck.study.runner.task_runs`: posteriors,
    trajectories, the T×T Gram matrices of the claims that recompute information gains, its tidy tables), and
    the summary and reports, which stream the ``steps`` table chunk by chunk (the runs table, one (runs × T)
    steps column or one (runs × T) regret matrix per algorithm, one chunk's tables).
    Generous by design: measured peaks of the built-in theorems are 50–90 % of it (tests/study/test_resources.py)."""
    sc = spec.scenario
    T, n, K, P = spec.horizon, sc.domain.n, sc.actions.K, len(spec.policies)
    m = min(spec.runs, task_runs(spec, spec.runs, max(1, _workers(options))))
    C = max(len(sc.candidates), 1)
    G = len({getattr(c, "kernel_key", i) for i, c in enumerate(sc.candidates)}) or 1
    posterior = P * m * (2 * G * n * n + 6 * C * n) * 8
    # joint posterior draws (Thompson sampling): data-space gains up to PATHWISE_MAX_HORIZON, a square-root
    # factor of Σ_t beyond (m n r ≤ m n², plus its pending columns)
    pathwise = 2 * m * n * T * 8 if T <= PATHWISE_MAX_HORIZON else 2 * m * n * n * 8
    trajectories = P * m * T * (3 * K + _STEP_COLUMNS) * 8 + m * T * K * 8
    kept = T if spec.family.steps_at is None else len(spec.family.steps_at)  # a long horizon's thinned steps
    tables = 2 * P * m * (T * (3 + P) + kept * _STEP_COLUMNS) * 8 if kept < T else 2 * P * m * T * _STEP_COLUMNS * 8
    # one run's T×T Gram of its queries and its Cholesky factors (information-gain claims); beyond
    # the family's grid horizon (``claims_on_grid``) the same statistics come from grid chains of every algorithm's
    # runs at once
    on_grid = getattr(spec.family, "claims_on_grid", None)
    gram = (P + 2) * m * (2 * n * n + 4 * T) * 8 if on_grid is not None and on_grid(T) else 6 * T * T * 8
    chunk = posterior + pathwise + trajectories + tables + gram + 8 * m * n * 8
    workers = _workers(options)
    busy = min(workers, -(-spec.runs // m))  # batches run at once
    # --jobs 1 runs in this process; loky starts J − 1 worker processes beside this one (which simulates too), a
    # LocalCluster J (this process only waits)
    if workers > 1 and options.backend == "loky":
        procs, busy_procs = workers - 1, busy - 1
    elif workers > 1 and options.backend == "dask" and not options.scheduler:
        procs, busy_procs = workers, busy
    else:
        procs = busy_procs = 0
    in_flight = busy * chunk + busy_procs * _WORKER + (procs - busy_procs) * _IDLE_WORKER
    if options.backend == "dask" and options.scheduler:
        in_flight = 0  # on the cluster's machines, not this one
    gamma = gamma_memory(n, T * K) + 16 * T * 8
    one_chunk = 2 * min(spec.chunk_size, spec.runs) * P * kept * _STEP_COLUMNS * 8
    summary = spec.runs * P * 64 * 8 + max(4 * spec.runs * T, P * spec.runs * T) * 8 + one_chunk
    return MemoryEstimate(f"this study ({spec.runs} runs × T = {T}, {P} algorithms, |X| = {n})",
                          _INTERPRETER + max(gamma, in_flight, summary),
                          {"summary tables": summary, "chunks in flight": in_flight, "certified γ bracket": gamma,
                           "interpreter": _INTERPRETER})


def _panel_bytes(spec: StudySpec, runs: int) -> int:
    """What the parent keeps of one explored cell of ``runs`` runs until the claims are judged: the runs table and
    the steps the empirical claims read (``PanelData``: run, algorithm, t, cumulative regret, prior)."""
    P = len(spec.policies)
    return runs * P * (spec.horizon * _PANEL_COLUMNS + 64) * 8


def estimate_grid_memory(spec: StudySpec, options: RunOptions, cells: int, confirm_cells: int = 0,
                         confirm_runs: int = 0, what: str = "") -> MemoryEstimate:
    """Peak memory of an explored grid (``reproduce --explore``): a screen of ``cells`` small studies shaped
    like ``spec`` (its domain, candidates, horizon and algorithms; ``spec.runs`` runs each), then a confirmation
    of up to ``confirm_cells`` of them with ``confirm_runs`` runs each.

    Each cell runs whole in one worker (``--jobs`` cells at once: loky worker processes, or threads of this
    process), and the parent keeps every cell's panel data (:func:`_panel_bytes`) until the claims are judged,
    the screen's still held while the confirmation runs; the grid's work is ``cells × runs × T × |X|``.
    Generous like :func:`estimate_study_memory`, which sizes each cell."""
    from dataclasses import replace

    alone = RunOptions(jobs=1, backend="threading")  # how a cell runs inside its worker

    def stage(n_cells: int, runs: int) -> tuple[int, int]:
        """(bytes in flight, bytes kept) of ``n_cells`` cells of ``runs`` runs."""
        if n_cells < 1 or runs < 1:
            return 0, 0
        one = estimate_study_memory(replace(spec, runs=runs, chunk_size=runs), alone).total - _INTERPRETER
        busy = min(max(1, min(_workers(options), os.cpu_count() or 1)), n_cells)
        per = one + (_WORKER if options.backend != "threading" else 0)
        return busy * per, n_cells * _panel_bytes(spec, runs)

    screen_flight, screen_kept = stage(cells, spec.runs)
    confirm_flight, confirm_kept = stage(min(confirm_cells, cells), confirm_runs)
    peak = max(screen_flight + screen_kept, screen_kept + confirm_flight + confirm_kept)
    work = (f"{cells} cells × {spec.runs} runs × T = {spec.horizon}, |X| = {spec.scenario.domain.n}, "
            f"{len(spec.policies)} algorithms")
    if confirm_cells and confirm_runs:
        work += f", then up to {min(confirm_cells, cells)} cells × {confirm_runs} runs to confirm"
    return MemoryEstimate(f"{what or 'the explored grid'} ({work})", _INTERPRETER + peak,
                          {"cells in flight": max(screen_flight, confirm_flight),
                           "cells' data kept": screen_kept + confirm_kept, "interpreter": _INTERPRETER})


def _one_arm_class(p) -> type | None:
    """The built-in policy class of ``p`` when it chooses one point per round (``Policy.one_arm``), else None;
    read from the class (or a partial of it) without building the policy: a user's factory is not called."""
    f = p.factory
    cls = f if isinstance(f, type) else getattr(f, "func", None)
    return cls if isinstance(cls, type) and getattr(cls, "one_arm", False) else None


def check_actions(spec: StudySpec) -> None:
    """Refuse (exit 2, whatever ``--allow-out-of-theory`` says) a study whose scenario's rounds are super arms of
    K > 1 base arms when one of its algorithms chooses one point per round: it cannot act on them at all (run
    anyway, it would stop at its first step, as if its code were wrong)."""
    actions = spec.scenario.actions
    K = int(actions.K)
    if K <= 1:
        return
    single = list(dict.fromkeys(p.name for p in spec.policies if _one_arm_class(p) is not None))
    if not single:
        return
    alg = getattr(spec.theorem, "algorithm", None)
    if alg in single:
        others = [x for x in single if x != alg]
        who = f"the theorem's algorithm {alg}" + (f" (and {', '.join(others)})" if others else "") + " chooses"
    else:
        who = f"{', '.join(single)} choose" + ("s" if len(single) == 1 else "")
    raise BoundcheckError(f"{spec.theorem.id} on {spec.scenario.name}: {who} one point per round and cannot act on "
                          f"the scenario's super arms of K = {K} base arms ({actions.describe()}); choose a scenario "
                          f"whose rounds are single points")


def check_applicable(spec: StudySpec, conditions: Conditions | None = None,
                     allow_out_of_theory: bool = False) -> list[str]:
    """The study's out-of-theory reasons. Raises :class:`~boundcheck.errors.NotApplicable` (exit 3) when an
    assumption of the theorem fails on the scenario or the algorithm's configuration and the study is neither run
    explicitly outside the theorem (``allow_out_of_theory``) nor a negative control (β scaled, a planted defect:
    ``conditions``); first, a :class:`~boundcheck.errors.BoundcheckError` (exit 2) when the study cannot run at
    all (:func:`check_actions`)."""
    check_actions(spec)
    cond = conditions if conditions is not None else Conditions(beta_scale=spec.beta_scale)
    unmet = spec.family.unmet_assumptions(spec.scenario, cond)
    explicit = cond.beta_scale != 1.0 or bool(cond.defects)
    if unmet and not (allow_out_of_theory or explicit):
        raise NotApplicable(f"not applicable: {spec.theorem.id} on {spec.scenario.name}: " + "; ".join(unmet)
                            + " (run it anyway with --allow-out-of-theory)", unmet)
    return spec.family.out_of_theory_reasons(spec.scenario, spec.beta_scale, cond)


def preflight(spec: StudySpec, options: RunOptions, results_dir: Path | None, max_memory: int | None, *,
              conditions: Conditions | None = None, allow_out_of_theory: bool = False) -> None:
    """Everything that can be known to fail before a study writes anything, checked in that order: the claims
    can be computed on the scenario's kind of truth (exit 2), the theorem applies (:func:`check_applicable`,
    exit 3), the bound can be evaluated (run outside the theorem, a scenario may lack e.g. B: exit 2), the
    results folder fits this configuration, the memory estimate fits."""
    spec.family.check_scenario(spec.scenario)
    check_applicable(spec, conditions, allow_out_of_theory)  # "why not" first: an RKHS theorem on a GP sample
    spec.family.bound_values(spec.scenario, spec.horizon, spec.delta)  # run anyway, it may not even have a B
    if results_dir is not None:
        ResultStore(results_dir).check_compatible(spec.key, spec.to_dict())
    check_memory(estimate_study_memory(spec, options), max_memory,
                 hint="lower --runs, --horizon or --jobs, or set --max-memory if you know better")
