"""Running a study: its chunks of runs on joblib (loky, threading) or dask.distributed, stored as they
complete, then summarised from the store.

Workers receive the :class:`~boundcheck.study.spec.StudySpec` and the theorem instance as objects; a policy
class defined in a user's file or test module is shipped by value (cloudpickle), so ``--jobs 2`` and a dask
cluster run exactly what ``--jobs 1`` runs."""

from __future__ import annotations

import contextlib
import platform
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from .. import __version__
from ..claims.budget import ErrorBudget, HolmBudget
from ..claims.families import TheoremInstance
from ..errors import BoundcheckError
from .engine import simulate
from .progress import ParentInfo, ProgressMonitor, StepReporter, watch_parent
from .spec import StudySpec
from .store import ResultStore
from .summary import settled, summarize

__all__ = ["RunOptions", "Sequential", "run_study", "run_chunk", "BACKENDS"]

BACKENDS = ("loky", "threading", "dask")


@dataclass(frozen=True)
class RunOptions:
    jobs: int = -1
    backend: str = "loky"
    scheduler: str | None = None
    progress_interval: float = 0.5  # seconds between a chunk's step-progress reports


@dataclass(frozen=True)
class Sequential:
    """``verify --until-conclusive``: add chunks of runs until every claim is settled or ``max_runs`` is
    reached, judging with anytime-valid p-values and confidence sequences after every batch of chunks."""

    max_runs: int


def run_chunk(spec: StudySpec, inst: TheoremInstance, chunk: int, run_ids: list[int],
              progress: StepReporter | None = None, parent: ParentInfo | None = None):
    """Worker: simulate one chunk of runs and evaluate every claim on it. ``progress`` reports steps;
    ``parent``: a worker process exits when that process dies (:func:`~boundcheck.study.progress.watch_parent`)."""
    watch_parent(parent)
    start = time.perf_counter()
    traj = simulate(spec.scenario, spec.policies, run_ids, spec.seed, inst, progress)
    runs, steps = spec.family.evaluate(traj, spec.scenario, inst, spec.seed, spec.main,
                                       checked=spec.checked_algorithms, skip=spec.not_applicable)
    return chunk, {"runs": runs, "steps": steps}, {"runs": [run_ids[0], run_ids[-1]],
                                                    "seconds": time.perf_counter() - start}


def _ship_by_value(spec: StudySpec) -> None:
    """Policies (and their modules) that are not part of an installed package travel by value, so that a
    worker process does not need to import the user's file or test module by name."""
    modules = {getattr(obj, "__module__", "") for p in spec.policies  # the factory and classes it is given
               for obj in (p.factory, *p.kwargs.values()) if callable(obj)}
    for name in list(modules):  # modules a user's policy file imported from its own folder
        modules.update(getattr(sys.modules.get(name), "__boundcheck_siblings__", ()))
    picklers = []
    with contextlib.suppress(ImportError):
        from joblib.externals import cloudpickle as jcp

        picklers.append(jcp)
    with contextlib.suppress(ImportError):
        import cloudpickle

        picklers.append(cloudpickle)
    for name in modules:
        mod = sys.modules.get(name)
        if mod is None or name.split(".")[0] in ("boundcheck", "theory") or name == "__main__":
            continue
        for cp in picklers:
            with contextlib.suppress(ValueError, AttributeError):
                cp.register_pickle_by_value(mod)


@contextlib.contextmanager
def _backend(options: RunOptions):
    import joblib

    if options.backend == "dask":
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise BoundcheckError("--backend dask needs dask.distributed: pip install 'boundcheck[dask]'") from None
        if options.scheduler:
            try:
                client = Client(options.scheduler, timeout="10s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise BoundcheckError(f"cannot reach the dask scheduler at {options.scheduler}: "
                                      f"{type(exc).__name__}: {exc}".splitlines()[0]) from None
            cluster = None
        else:
            n = options.jobs if options.jobs > 0 else None
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)
            client = Client(cluster)
        try:
            with joblib.parallel_config(backend="dask"):
                yield
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    elif options.backend == "loky":
        # every worker starts a watchdog first thing, so that it dies with this process even while importing
        with joblib.parallel_config(backend="loky", initializer=watch_parent, initargs=(ParentInfo.here(),)):
            yield
    elif options.backend == "threading":
        with joblib.parallel_config(backend=options.backend):
            yield
    else:
        raise BoundcheckError(f"unknown backend {options.backend!r}; choose {', '.join(BACKENDS)}")


def _batch_chunks(options: RunOptions) -> int:
    """Chunks added per look in sequential mode: one per worker."""
    if options.jobs and options.jobs > 0:
        return options.jobs
    import os

    return max(1, os.cpu_count() or 1)


def run_study(spec: StudySpec, inst: TheoremInstance, results_dir: Path, options: RunOptions, *,
              in_theory: bool, reasons: list[str], meta: dict | None = None,
              on_chunk: Callable[[int, int], None] | None = None,
              on_progress: Callable[[int, int], None] | None = None, budget: ErrorBudget | None = None,
              sequential: Sequential | None = None) -> dict:
    """Run (or resume) a study, store every chunk as it completes, and return the JSON summary.

    ``meta``: what the reports need to know about the scenario and the algorithms (labels, roles, the
    assumption rows), stored in the manifest so that a report never rebuilds a scenario. ``on_chunk(done,
    total)`` counts chunks (main thread); ``on_progress(done, total)`` counts run-steps, from a background
    thread, several times a second while chunks run. ``budget``: the false-alarm budget the claims are judged
    with (default Holm at 0.01). ``sequential``: keep adding chunks until every claim is settled (anytime-valid
    tests) or ``sequential.max_runs`` runs are stored.

    Chunk c always holds runs [c·S, (c+1)·S) ∩ [0, runs): a stored chunk is reused when it verifies (sha256)
    *and* holds exactly the runs the plan puts in it (a last, partial chunk of a smaller study is recomputed
    when the study grows).

    The results folder is locked for the whole run (a second run on it is refused). Stored chunks that fail
    verification are reported and recomputed. If this call created the folder and fails before storing any
    chunk, it removes the folder again."""
    if options.backend not in BACKENDS:
        raise BoundcheckError(f"unknown backend {options.backend!r}; choose {', '.join(BACKENDS)}")
    budget = budget or HolmBudget()
    t0 = time.perf_counter()
    store = ResultStore(results_dir)
    created = not store.root.exists()
    meta_all = {"theorem": spec.theorem.id, "scenario": spec.scenario.name, "version": __version__,
                "python": platform.python_version(), "numpy": np.__version__, **(meta or {})}
    first = spec if sequential is None else replace(spec, runs=min(spec.runs, sequential.max_runs))
    with contextlib.ExitStack() as stack:
        backend_ready = False
        if not _looks_complete(store, first):  # the backend first: an unreachable scheduler (or a dask
            stack.enter_context(_backend(options))  # cluster that cannot start) fails before anything is written
            backend_ready = True
        stack.enter_context(store.lock())
        try:
            def run(cur: StudySpec) -> None:
                nonlocal backend_ready
                manifest = store.open(cur.to_dict(), cur.key, meta_all, n_chunks=cur.n_chunks)
                verified = store.done_chunks(manifest)
                store.forget_chunks(_recorded_chunks(manifest, cur.n_chunks) - verified)
                done = {c for c in verified if _holds_planned_runs(manifest, cur, c)}
                if on_chunk:
                    on_chunk(len(done), cur.n_chunks)
                if len(done) < cur.n_chunks:
                    _ship_by_value(cur)
                    if not backend_ready:
                        stack.enter_context(_backend(options))
                        backend_ready = True
                    _run_chunks(cur, inst, store, options, done, on_chunk, on_progress)
                manifest = store.require_manifest()
                manifest["config"] = cur.to_dict()  # the runs now covered (the key does not depend on them)
                store.write_manifest(manifest)

            def finish(cur: StudySpec) -> dict:
                manifest = store.require_manifest()
                elapsed = time.perf_counter() - t0
                manifest["elapsed_s"] = elapsed  # this run's time (a resume does not add up earlier runs)
                manifest["compute_s_total"] = float(manifest.get("compute_s_total", 0.0)) + elapsed
                manifest["jobs"], manifest["backend"] = options.jobs, options.backend
                store.write_manifest(manifest)
                return summarize(store, cur, inst, in_theory=in_theory, reasons=reasons, budget=budget,
                                 sequential=sequential is not None)

            if sequential is None:
                run(spec)
                return finish(spec)
            cur = first
            step = cur.chunk_size * _batch_chunks(options)
            while True:
                run(cur)
                summary = summarize(store, cur, inst, in_theory=in_theory, reasons=reasons, budget=budget,
                                    sequential=True)
                if settled(summary) or cur.runs >= sequential.max_runs:
                    break
                whole = cur.n_chunks * cur.chunk_size  # keep chunk boundaries fixed
                cur = replace(cur, runs=min(sequential.max_runs, whole + step))
            return finish(cur)
        except BaseException:
            # still holding the lock: a folder this run created and stored nothing in goes away again
            if created and not _any_chunk_stored(store):
                shutil.rmtree(store.root, ignore_errors=True)
            raise


def _recorded_chunks(manifest: dict, n_chunks: int) -> set[int]:
    """The chunks of ``0 … n_chunks − 1`` the manifest records (chunks beyond them, of a larger study run in
    the same folder, are kept for when it grows again)."""
    return {int(c) for c in manifest.get("chunks", {}) if str(c).isdigit() and int(c) < n_chunks}


def _holds_planned_runs(manifest: dict, spec: StudySpec, chunk: int) -> bool:
    """Whether stored chunk ``chunk`` holds exactly the runs the plan puts in it."""
    ids = spec.chunk_runs(chunk)
    info = manifest["chunks"].get(str(chunk))
    return isinstance(info, dict) and info.get("runs") == [ids[0], ids[-1]]


def _run_chunks(spec: StudySpec, inst: TheoremInstance, store: ResultStore, options: RunOptions, done: set[int],
                on_chunk: Callable[[int, int], None] | None, on_progress: Callable[[int, int], None] | None) -> None:
    import joblib

    T, total = spec.horizon, spec.n_chunks
    done_units = sum(len(spec.chunk_runs(c)) for c in done) * T
    pdir = store.root / ".progress"
    parent = ParentInfo.here() if options.backend == "loky" else None
    monitor = (ProgressMonitor(pdir, spec.runs * T, T, done_units, on_progress) if on_progress
               else contextlib.nullcontext())
    with monitor:
        tasks = (joblib.delayed(run_chunk)(spec, inst, c, ids,
                                           StepReporter(pdir, c, len(ids), T, options.progress_interval)
                                           if on_progress else None, parent)
                 for c, ids in spec.chunks() if c not in done)
        par = joblib.Parallel(n_jobs=options.jobs, return_as="generator_unordered")
        for chunk, tables, info in par(tasks):
            store.write_chunk(chunk, tables, info)
            done.add(chunk)
            if on_progress:
                monitor.chunk_done(chunk, info["runs"][1] - info["runs"][0] + 1)
            if on_chunk:
                on_chunk(len(done), total)


def _looks_complete(store: ResultStore, spec: StudySpec) -> bool:
    """Whether the folder's manifest already records every chunk of ``spec`` with the runs it plans (read-only;
    verification comes later)."""
    try:
        manifest = store.read_manifest()
    except BoundcheckError:
        return False
    return bool(manifest) and all(_holds_planned_runs(manifest, spec, c) for c in range(spec.n_chunks))


def _any_chunk_stored(store: ResultStore) -> bool:
    try:
        manifest = store.read_manifest()
    except BoundcheckError:
        return True  # unreadable: leave it for the user to look at
    return bool(manifest and manifest.get("chunks"))
