"""Running a study: its chunks of runs on joblib (loky, threading) or dask.distributed, stored as they
complete, then summarised from the store.

Workers receive the :class:`~boundcheck.study.spec.StudySpec` and the theorem instance as objects; a policy
class defined in a user's file or test module is shipped by value (cloudpickle), so ``--jobs 2`` and a dask
cluster run exactly what ``--jobs 1`` runs."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import platform
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import __version__
from ..claims.families import TheoremInstance
from ..errors import BoundcheckError
from .engine import simulate
from .pool import import_in_background, wait_prewarmed
from .spec import LEGACY_CHUNK_SIZE, StudySpec
from .store import ResultStore
from .summary import summarize

__all__ = ["RunOptions", "run_study", "run_chunk", "BACKENDS", "choose_chunk_size", "single_threaded_blas"]

BACKENDS = ("loky", "threading", "dask")


@dataclass(frozen=True)
class RunOptions:
    jobs: int = -1
    backend: str = "loky"
    scheduler: str | None = None
    report: bool = False  # reports follow the study: the parent may import their libraries while workers run


# --------------------------------------------------------------------------------------------- BLAS threads
_controller_lock = threading.Lock()


@contextlib.contextmanager
def single_threaded_blas():
    """BLAS (OpenBLAS, MKL, …) on one thread inside the block.

    Every chunk runs inside it, in whatever process or thread it lands: the parallelism is over chunks, and a
    multi-threaded BLAS both fights the pool for cores and rounds differently (a threaded Cholesky is not the
    serial one), which made ``--jobs 1`` (in process, BLAS on all cores) differ from ``--jobs 2`` (loky
    workers limited to one thread) in the last bits of a diagnostic. :func:`run_study` holds it around the
    whole study, so nested uses by threads (``--backend threading``) always restore one thread.

    The libraries are looked up at every entry (≈ 1 ms): a BLAS loaded after a cached lookup (scipy ships its
    own OpenBLAS, loaded with ``scipy.linalg``) would otherwise keep all its threads."""
    import scipy.linalg  # noqa: F401 - load scipy's own BLAS before limiting
    from threadpoolctl import threadpool_limits

    with _controller_lock:
        limiter = threadpool_limits(limits=1, user_api="blas")
    try:
        yield
    finally:
        with _controller_lock:
            limiter.restore_original_limits()


def run_chunk(spec: StudySpec, inst: TheoremInstance, chunk: int, run_ids: list[int]):
    """Simulate one chunk of runs and evaluate every claim on it (BLAS on one thread): (chunk, {"runs": df,
    "steps": df}, info)."""
    start, cpu = time.perf_counter(), time.process_time()
    with single_threaded_blas():
        traj = simulate(spec.scenario, spec.policies, run_ids, spec.seed, inst)
        runs, steps = spec.family.evaluate(traj, spec.scenario, inst, spec.seed, spec.main)
    return chunk, {"runs": runs, "steps": steps}, {"runs": [run_ids[0], run_ids[-1]],
                                                    "seconds": time.perf_counter() - start,
                                                    "cpu_seconds": time.process_time() - cpu, "pid": os.getpid()}


def _run_chunk_encoded(spec: StudySpec, inst: TheoremInstance, chunk: int, run_ids: list[int]):
    """Worker task: :func:`run_chunk` with its tables encoded as parquet files here, in the worker (the parent
    receives compressed bytes and only writes them)."""
    cpu = time.process_time()
    chunk, tables, info = run_chunk(spec, inst, chunk, run_ids)
    encoded = {name: df.to_parquet(index=False) for name, df in tables.items()}
    info["cpu_seconds"] = time.process_time() - cpu  # simulation, claims and encoding: the chunk's whole cost
    return chunk, encoded, info


# ------------------------------------------------------------------------------------------------ chunking
CHUNK_MEMORY = 224 * 2**20  # bytes of simulation state of all chunks in flight (shared by the workers)
MAX_CHUNK = 256  # runs: bounds what an interruption loses and the size of each stored chunk
MIN_SPLIT = 128  # runs: chunks are not split below this for balance alone (a chunk's overhead is per step)


def _bytes_per_run(spec: StudySpec) -> int:
    """Rough upper bound of one run's memory in a chunk: every policy's posterior in the grid form (n² per
    kernel group), trajectories and the steps table (≈ 400 bytes per step and algorithm)."""
    sc = spec.scenario
    n, T, A = sc.domain.n, spec.horizon, len(spec.policies)
    groups = len({p.kernel_key for p in sc.candidates}) or 1
    return int(A * (8 * n * n * groups + 400 * T * sc.actions.K))


RELEASE_WORKERS_ABOVE = 2**30  # bytes a study's runs would take at once: beyond it, workers are not kept warm


def _release_loky_workers() -> None:
    with contextlib.suppress(Exception):
        from joblib.externals.loky import reusable_executor

        executor = reusable_executor._executor  # the pool joblib reuses, if one is running (never start one)
        if executor is not None:
            executor.shutdown(wait=True)


def effective_workers(options: RunOptions) -> int:
    import joblib

    if options.backend == "dask":
        return max(1, options.jobs) if options.jobs > 0 else max(1, os.cpu_count() or 1)
    return max(1, joblib.effective_n_jobs(options.jobs))


def choose_chunk_size(runs: int, workers: int, bytes_per_run: int, memory: int = CHUNK_MEMORY,
                      most: int = MAX_CHUNK) -> int:
    """Most runs per chunk: few, large chunks (per-step overhead is paid once per chunk, so the batched
    kernels get long vectors), at least two per worker so that workers stay busy to the end, and the chunks
    in flight (one per worker) within the memory budget. Results do not depend on it."""
    cap = max(1, min(most, memory // max(1, workers) // max(1, bytes_per_run)))
    n_chunks = -(-runs // cap)
    if workers > 1:  # two chunks per worker keep them busy to the end, unless that makes chunks small
        n_chunks = max(n_chunks, min(2 * workers, max(workers, runs // MIN_SPLIT)))
    return max(1, -(-runs // n_chunks))


def _ship_by_value(spec: StudySpec) -> None:
    """Policies (and their modules) that are not part of an installed package travel by value, so that a
    worker process does not need to import the user's file or test module by name."""
    modules = {getattr(p.factory, "__module__", "") for p in spec.policies}
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
            client = Client(options.scheduler)
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
    elif options.backend in ("loky", "threading"):
        with joblib.parallel_config(backend=options.backend):
            yield
    else:
        raise BoundcheckError(f"unknown backend {options.backend!r}; choose {', '.join(BACKENDS)}")


def run_study(spec: StudySpec, inst: TheoremInstance, results_dir: Path, options: RunOptions, *,
              in_theory: bool, reasons: list[str], meta: dict | None = None,
              on_chunk: Callable[[int, int], None] | None = None) -> dict:
    """Run (or resume) a study, store every chunk as it completes, and return the JSON summary.

    ``meta``: what the reports need to know about the scenario and the algorithms (labels, roles, the
    assumption rows), stored in the manifest so that a report never rebuilds a scenario."""
    import joblib

    if options.backend not in BACKENDS:
        raise BoundcheckError(f"unknown backend {options.backend!r}; choose {', '.join(BACKENDS)}")
    t0 = time.perf_counter()
    store = ResultStore(results_dir)
    if spec.chunk_size is None:  # a resumed study keeps its chunks; a new one chooses them
        stored = (store.read_manifest() or {}).get("config", {}).get("chunk_size")
        if stored is None:
            from ..model.posterior import arithmetic

            stored = LEGACY_CHUNK_SIZE if arithmetic() == "reference" else choose_chunk_size(
                spec.runs, effective_workers(options), _bytes_per_run(spec))
        spec = dataclasses.replace(spec, chunk_size=int(stored))
    manifest = store.open(spec.to_dict(), spec.key, {
        "theorem": spec.theorem.id, "scenario": spec.scenario.name, "version": __version__,
        "python": platform.python_version(), "numpy": np.__version__, **(meta or {}),
    })
    done = store.done_chunks()
    todo = [(c, ids) for c, ids in spec.chunks() if c not in done]
    total = len(spec.chunks())
    if on_chunk:
        on_chunk(len(done), total)
    wait_prewarmed()  # a pool started early (boundcheck.study.pool) must be up before joblib reuses it
    if todo:
        _ship_by_value(spec)
        big = spec.runs * _bytes_per_run(spec) > RELEASE_WORKERS_ABOVE
        if effective_workers(options) > 1 and options.backend != "threading" and not big:
            # the parent only collects results meanwhile: pay the summary's and the reports' imports now (not
            # in a big study: there they are negligible, and the workers' memory is what matters)
            later = ["scipy.stats", "pyarrow.parquet"]
            if options.report:
                later += ["matplotlib.figure", "matplotlib.backends.backend_agg", "sympy.printing.mathml"]
            import_in_background(*later)
        with single_threaded_blas(), _backend(options):
            par = joblib.Parallel(n_jobs=options.jobs, return_as="generator_unordered")
            for chunk, tables, info in par(joblib.delayed(_run_chunk_encoded)(spec, inst, c, ids) for c, ids in todo):
                store.write_chunk(chunk, tables, info)
                done.add(chunk)
                if on_chunk:
                    on_chunk(len(done), total)
        if options.backend == "loky" and big:
            _release_loky_workers()  # a big study: give the workers' memory back before the summary and reports
    manifest = store.read_manifest() or manifest
    manifest["elapsed_s"] = manifest.get("elapsed_s", 0.0) + (time.perf_counter() - t0)
    manifest["jobs"], manifest["backend"] = options.jobs, options.backend
    store.write_manifest(manifest)
    return summarize(store, spec, inst, in_theory=in_theory, reasons=reasons)
