"""Running a study: its chunks of runs on joblib (loky, threading) or dask.distributed, stored as they
complete, then summarised from the store.

Workers receive the :class:`~boundcheck.study.spec.StudySpec` and the theorem instance as objects; a policy
class defined in a user's file or test module is shipped by value (cloudpickle), so ``--jobs 2`` and a dask
cluster run exactly what ``--jobs 1`` runs."""

from __future__ import annotations

import contextlib
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import __version__
from ..claims.families import TheoremInstance
from ..errors import BoundcheckError
from .engine import simulate
from .spec import StudySpec
from .store import ResultStore
from .summary import summarize

__all__ = ["RunOptions", "run_study", "run_chunk", "BACKENDS"]

BACKENDS = ("loky", "threading", "dask")


@dataclass(frozen=True)
class RunOptions:
    jobs: int = -1
    backend: str = "loky"
    scheduler: str | None = None


def run_chunk(spec: StudySpec, inst: TheoremInstance, chunk: int, run_ids: list[int]):
    """Worker: simulate one chunk of runs and evaluate every claim on it."""
    start = time.perf_counter()
    traj = simulate(spec.scenario, spec.policies, run_ids, spec.seed, inst)
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
    manifest = store.open(spec.to_dict(), spec.key, {
        "theorem": spec.theorem.id, "scenario": spec.scenario.name, "version": __version__,
        "python": platform.python_version(), "numpy": np.__version__, **(meta or {}),
    })
    done = store.done_chunks()
    todo = [(c, ids) for c, ids in spec.chunks() if c not in done]
    total = len(spec.chunks())
    if on_chunk:
        on_chunk(len(done), total)
    if todo:
        _ship_by_value(spec)
        with _backend(options):
            par = joblib.Parallel(n_jobs=options.jobs, return_as="generator_unordered")
            for chunk, tables, info in par(joblib.delayed(run_chunk)(spec, inst, c, ids) for c, ids in todo):
                store.write_chunk(chunk, tables, info)
                done.add(chunk)
                if on_chunk:
                    on_chunk(len(done), total)
    manifest = store.read_manifest() or manifest
    manifest["elapsed_s"] = manifest.get("elapsed_s", 0.0) + (time.perf_counter() - t0)
    manifest["jobs"], manifest["backend"] = options.jobs, options.backend
    store.write_manifest(manifest)
    return summarize(store, spec, inst, in_theory=in_theory, reasons=reasons)
