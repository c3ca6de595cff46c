"""Running a study: its chunks of runs on joblib (loky, threading) or dask.distributed, stored as they
complete, then summarised from the store.

Workers receive the :class:`~boundcheck.study.spec.StudySpec` and the theorem instance as objects; a policy
from a user's file travels by value (:mod:`boundcheck.study.shipping`), so ``--jobs 2`` and a dask cluster run
exactly what ``--jobs 1`` runs.

Storage and work are planned separately. Chunk c always holds runs [c·S, (c+1)·S) (S = ``spec.chunk_size``): the
unit that is stored (with its sha256), resumed and looked at by the sequential tests. A *task* is several
consecutive chunks simulated as one vectorised batch (:func:`plan_tasks` sizes them from the runs left, the
workers and memory); the worker encodes each chunk as parquet, the parent only hashes and writes the bytes. A
run's results do not depend on its batch (:func:`~boundcheck.model.sampling.rows_matmul`), so stored chunks are
bit-identical for any ``--jobs``, backend or batching. The reference arithmetic
(:func:`~boundcheck.model.posterior.use_arithmetic`, the regression pins) simulates one chunk per task."""

from __future__ import annotations

import contextlib
import errno
import os
import platform
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from .. import __version__, runtime
from ..claims.budget import ErrorBudget, HolmBudget
from ..claims.families import TheoremInstance
from ..errors import BoundcheckError, UserCodeError
from ..runtime import ParentInfo, watch_parent
from ..utils import usercode
from ..world.box_scenario import is_box
from .continuum import simulate_box
from .engine import simulate
from .progress import ProgressMonitor, StepReporter
from .shipping import by_value, check_picklable, holds_user_code, ship_by_value, stop_stuck
from .shipping import death as _death
from .spec import StudySpec
from .store import ResultStore, parquet_bytes
from .summary import settled, summarize

__all__ = ["RunOptions", "Sequential", "run_study", "run_chunk", "run_task", "plan_tasks", "task_runs", "BACKENDS",
           "choose_chunk_size", "single_threaded_blas", "preload_workers"]

BACKENDS = ("loky", "threading", "dask")


@dataclass(frozen=True)
class RunOptions:
    jobs: int = -1
    backend: str = "loky"
    scheduler: str | None = None
    progress_interval: float = 0.5  # seconds between a chunk's step-progress reports
    report: bool = False  # reports follow the study (the api says so; the run itself does not change)
    policy_timeout: float | None = None  # seconds per call into user code (None: utils.usercode's default)


@dataclass(frozen=True)
class Sequential:
    """``verify --until-conclusive``: add chunks of runs until every claim is settled or ``max_runs`` is
    reached, judging with anytime-valid p-values and confidence sequences after every batch of chunks."""

    max_runs: int


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


def run_chunk(spec: StudySpec, inst: TheoremInstance, chunk: int, run_ids: list[int],
              progress: StepReporter | None = None, parent: ParentInfo | None = None,
              sandbox: usercode.SandboxConfig | None = None):
    """Simulate a batch of consecutive runs and evaluate every claim on it (BLAS on one thread): (chunk,
    {"runs": df, "steps": df}, info). ``progress`` reports steps; ``parent``: a worker process exits when that
    process dies (:func:`~boundcheck.runtime.watch_parent`); ``sandbox``: how calls into user code are
    run (time limit, output log, markers: :mod:`boundcheck.utils.usercode`)."""
    watch_parent(parent)
    # CPU of this thread only: a process's other threads (a dask worker's event loop, the loky parent's feeders,
    # progress monitor and background imports) are not the task's work (benchmarks/bench_clusters.py compares it)
    start, cpu = time.perf_counter(), time.thread_time()
    with single_threaded_blas(), usercode.sandbox(sandbox):
        sim = simulate_box if is_box(spec.scenario) else simulate  # a compact box: its own engine
        traj = sim(spec.scenario, spec.policies, run_ids, spec.seed, inst, progress, needs=spec.needs)
        runs, steps = spec.family.evaluate(traj, spec.scenario, inst, spec.seed, spec.main,
                                           checked=spec.checked_algorithms, skip=spec.not_applicable)
    return chunk, {"runs": runs, "steps": steps}, {"runs": [run_ids[0], run_ids[-1]],
                                                    "seconds": time.perf_counter() - start,
                                                    "cpu_seconds": time.thread_time() - cpu, "pid": os.getpid()}


def run_task(spec: StudySpec, inst: TheoremInstance, chunks: list[tuple[int, list[int]]],
             progress: StepReporter | None = None, parent: ParentInfo | None = None,
             sandbox: usercode.SandboxConfig | None = None) -> list[tuple[int, dict, dict]]:
    """Worker task: consecutive ``chunks`` simulated as one batch (:func:`run_chunk`), its tables split back
    into the chunks and encoded as parquet files here, in the worker (the parent receives compressed bytes and
    only hashes and writes them). Returns ``[(chunk, {"runs": bytes, "steps": bytes}, info), ...]``."""
    cpu = time.thread_time()  # this thread's: see run_chunk
    ids = [r for _, rs in chunks for r in rs]
    _, tables, info = run_chunk(spec, inst, chunks[0][0], ids, progress, parent, sandbox)
    out = []
    for c, rs in chunks:
        encoded = {}
        for name, df in tables.items():
            part = df if len(chunks) == 1 else df[df["run"].between(rs[0], rs[-1])]
            encoded[name] = parquet_bytes(part.reset_index(drop=True))
        out.append((c, encoded, {"runs": [rs[0], rs[-1]], "pid": info["pid"]}))
    cpu = time.thread_time() - cpu  # simulation, claims and encoding: the task's whole cost
    for (_, rs), (_, _, rec) in zip(chunks, out, strict=True):  # shared by its chunks in proportion to runs
        share = len(rs) / len(ids)
        rec["seconds"], rec["cpu_seconds"] = info["seconds"] * share, cpu * share
        if len(chunks) > 1:
            rec["task"] = [chunks[0][0], chunks[-1][0]]
    return out


# ---------------------------------------------------------------------------------------- tasks (batches of chunks)
CHUNK_MEMORY = 224 * 2**20  # bytes of simulation state of the one batch a process holds at a time
MAX_CHUNK = 256  # runs per task: bounds a worker's batch and what an interruption loses
MIN_SPLIT = 128  # runs: tasks are not split below this for balance alone (a batch's overhead is per step)


def _bytes_per_run(spec: StudySpec) -> int:
    """Rough upper bound of one run's memory in a chunk: every policy's posterior in the grid form (n² per
    kernel group), trajectories and the steps table (≈ 400 bytes per step and algorithm)."""
    sc = spec.scenario
    n, T, A = sc.domain.n, spec.horizon, len(spec.policies)
    groups = len({p.kernel_key for p in sc.candidates}) or 1
    post = 8 * n * n
    if spec.needs is not None:
        # a study that measures less (boundcheck.study.needs: Table 3 of paper 001) sizes its batches by the
        # representation the posteriors' factory picks for T·K observations (data space: factor and V, (T+n)·T),
        # so that its batches are large enough to retire runs from
        from ..model.dataspace import choose_representation

        d = T * sc.actions.K
        if choose_representation(n, max_data=d) == "dataspace":
            post = min(post, 8 * d * (n + d + 2))
    return int(A * (post * groups + 400 * T * sc.actions.K))


#: dask configuration of the LocalCluster ``--backend dask`` starts. dask's nannies set MALLOC_TRIM_THRESHOLD_ in
#: every worker (65536 by default), which turns off glibc's adaptive mmap threshold: each of a batch's large
#: temporaries is then mapped and unmapped afresh, and the same task costs 1.4–1.5× the CPU (20× the page faults;
#: benchmarks/bench_clusters.py). Left unset, the workers allocate as loky's do (docs/clusters.md gives the
#: equivalent for a batch scheduler's workers)
DASK_WORKER_CONFIG = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}
#: seconds an interrupted study waits, in all, for the workers' running tasks before stopping them (one deadline
#: for every worker: waited for in turn, J workers took up to J times as long)
INTERRUPT_GRACE = 5.0
RELEASE_WORKERS_ABOVE = 2**30  # bytes a study's runs would take at once: beyond it, workers are not kept warm


def effective_workers(options: RunOptions) -> int:
    import joblib

    if options.backend == "dask":
        return max(1, options.jobs) if options.jobs > 0 else max(1, os.cpu_count() or 1)
    return max(1, joblib.effective_n_jobs(options.jobs))


def choose_chunk_size(runs: int, workers: int, bytes_per_run: int, memory: int = CHUNK_MEMORY,
                      most: int = MAX_CHUNK) -> int:
    """Most runs per task (one batch of consecutive chunks): few, large batches (per-step overhead is paid once
    per batch, so the batched kernels get long vectors), each process's batch within the memory budget, and a
    whole number of tasks per worker so that the workers finish together — two per worker when the halves are
    still large (:data:`MIN_SPLIT` runs), one otherwise. Results do not depend on it."""
    cap = _cap(bytes_per_run, memory, most)
    n_tasks = -(-runs // cap)
    if workers > 1:
        n_tasks = max(n_tasks, 2 * workers if runs >= 2 * workers * MIN_SPLIT else workers)
        n_tasks = -(-n_tasks // workers) * workers  # balanced: every worker gets as many
    return max(1, -(-runs // n_tasks))


def _cap(bytes_per_run: int, memory: int = CHUNK_MEMORY, most: int = MAX_CHUNK) -> int:
    """Most runs one process may hold in a batch: within ``memory`` and at most ``most``."""
    return max(1, min(most, memory // max(1, bytes_per_run)))


def task_runs(spec: StudySpec, runs_left: int, workers: int) -> int:
    """Most runs one task simulates at once: a whole number of chunks (at least one), the nearest to
    :func:`choose_chunk_size` that stays within its memory cap."""
    from ..model.posterior import arithmetic

    if arithmetic() == "reference":  # the pinned results depend on the first engine's one chunk per batch
        return spec.chunk_size
    per_run = _bytes_per_run(spec)
    size = choose_chunk_size(runs_left, workers, per_run)
    chunks = max(1, round(size / spec.chunk_size))
    while chunks > 1 and chunks * spec.chunk_size > _cap(per_run):
        chunks -= 1
    return chunks * spec.chunk_size


def plan_tasks(spec: StudySpec, todo: list[int], workers: int) -> list[list[tuple[int, list[int]]]]:
    """The chunks still to compute (``todo``, ascending) grouped into tasks: each stretch of consecutive chunks
    (a batch's runs are consecutive) split into as few tasks of at most :func:`task_runs` runs as possible, of
    equal size (± one chunk), so that no task is a small remainder."""
    runs_left = sum(len(spec.chunk_runs(c)) for c in todo)
    per = max(1, task_runs(spec, runs_left, workers) // spec.chunk_size)
    stretches: list[list[int]] = []
    for c in todo:
        if stretches and stretches[-1][-1] == c - 1:
            stretches[-1].append(c)
        else:
            stretches.append([c])
    tasks: list[list[tuple[int, list[int]]]] = []
    for stretch in stretches:
        k = -(-len(stretch) // per)  # tasks in this stretch
        base, extra = divmod(len(stretch), k)
        i = 0
        for j in range(k):
            size = base + (1 if j < extra else 0)
            tasks.append([(c, spec.chunk_runs(c)) for c in stretch[i:i + size]])
            i += size
    return tasks


def forks_workers(spec: StudySpec, options: RunOptions) -> bool:
    """Whether the study's worker share runs in children forked from this process
    (:mod:`boundcheck.runtime.forking`) rather than in loky's pool: the loky backend with more than one process,
    no user code (a user's policy runs in loky's sandboxed workers only, :func:`_simulate_in_children`), and
    fork enabled here. Then no pool is started ahead of the study: nothing needs warming."""
    return (options.backend == "loky" and effective_workers(options) > 1 and not holds_user_code(spec)
            and runtime.forking.enabled())


def preload_workers(spec: StudySpec, inst: TheoremInstance) -> None:
    """Send the study to the idle loky workers ahead of their first task (:func:`~boundcheck.runtime.preload`):
    unpickling it imports the theorem's and the scenario's modules and defines a user's classes there while this
    process still prepares. User classes are registered to travel by value first."""
    ship_by_value(spec)
    try:
        shipped = by_value((spec, inst))
    except Exception:  # noqa: BLE001 - what cannot travel is named in one line before any task (check_picklable)
        return
    runtime.preload(shipped)


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
            import dask

            n = options.jobs if options.jobs > 0 else None
            with dask.config.set(DASK_WORKER_CONFIG):
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
        with joblib.parallel_config(backend="loky", **runtime.pool_config()):
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
    return max(1, os.cpu_count() or 1)


def run_study(spec: StudySpec, inst: TheoremInstance, results_dir: Path, options: RunOptions, *,
              in_theory: bool, reasons: list[str], meta: dict | None = None,
              on_chunk: Callable[[int, int], None] | None = None,
              on_progress: Callable[[int, int], None] | None = None, budget: ErrorBudget | None = None,
              sequential: Sequential | None = None, started: float | None = None) -> dict:
    """Run (or resume) a study, store every chunk as it completes, and return the JSON summary.

    ``meta``: what the reports need to know about the scenario and the algorithms (labels, roles, the
    assumption rows), stored in the manifest so that a report never rebuilds a scenario. ``on_chunk(done,
    total)`` counts chunks (main thread); ``on_progress(done, total)`` counts run-steps, from a background
    thread, several times a second while chunks run. ``budget``: the false-alarm budget the claims are judged
    with (default Holm at 0.01). ``sequential``: keep adding chunks until every claim is settled (anytime-valid
    tests) or ``sequential.max_runs`` runs are stored. ``started``: when the command's work began
    (``time.perf_counter()``; default: now): the summary's ``elapsed_s`` is the wall time from then to the
    judged summary, the one "time taken" the console and the reports show. A run that computes no chunk (a resume
    of a complete study) keeps the time of the run that computed the results, and adds nothing to
    ``compute_s_total``; the manifest's ``timing.recomputed`` says whether this run computed any chunk.

    Chunk c always holds runs [c·S, (c+1)·S) ∩ [0, runs): a stored chunk is reused when it verifies (sha256)
    *and* holds exactly the runs the plan puts in it (a last, partial chunk of a smaller study is recomputed
    when the study grows). The chunks still to compute go to the workers in tasks of consecutive chunks
    (:func:`plan_tasks`); BLAS runs on one thread throughout (:func:`single_threaded_blas`).

    The results folder is locked for the whole run (a second run on it is refused). Stored chunks that fail
    verification are reported and recomputed. If this call created the folder and fails before storing any
    chunk, it removes the folder again (a full disk then is a one-line error saying so: nothing was kept)."""
    if options.backend not in BACKENDS:
        raise BoundcheckError(f"unknown backend {options.backend!r}; choose {', '.join(BACKENDS)}")
    budget = budget or HolmBudget()
    t0 = time.perf_counter() if started is None else started
    computed = []  # the chunks this call computes (none: the stored results are shown as they are)
    store = ResultStore(results_dir)
    created = not store.root.exists()
    meta_all = {"theorem": spec.theorem.id, "scenario": spec.scenario.name, "version": __version__,
                "python": platform.python_version(), "numpy": np.__version__, **(meta or {})}
    first = spec if sequential is None else replace(spec, runs=min(spec.runs, sequential.max_runs))
    with contextlib.ExitStack() as stack:
        stack.enter_context(single_threaded_blas())  # in this process too (--jobs 1 runs chunks here)
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
                    ship_by_value(cur)
                    check_picklable(cur)  # user code runs in worker processes on every backend
                    if not backend_ready:
                        stack.enter_context(_backend(options))
                        backend_ready = True
                    computed.append(cur.n_chunks - len(done))
                    _run_chunks(cur, inst, store, options, done, on_chunk, on_progress)
                manifest = store.require_manifest()
                manifest["config"] = cur.to_dict()  # the runs now covered (the key does not depend on them)
                store.write_manifest(manifest)

            def finish(cur: StudySpec) -> dict:
                manifest = store.require_manifest()
                elapsed = time.perf_counter() - t0
                if computed or "elapsed_s" not in manifest:  # this run's time (a resume does not add up earlier
                    manifest["elapsed_s"] = elapsed  # runs); nothing computed: the time of the stored results
                    manifest["compute_s_total"] = float(manifest.get("compute_s_total", 0.0)) + elapsed
                manifest.setdefault("timing", {})["recomputed"] = bool(computed)
                manifest["jobs"], manifest["backend"] = options.jobs, options.backend
                manifest["workers"] = effective_workers(options)  # --jobs -1 resolved: the report prints it
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
        except BaseException as exc:
            # still holding the lock: a folder this run created and stored nothing in goes away again
            if created and not _any_chunk_stored(store):
                shutil.rmtree(store.root, ignore_errors=True)
                if isinstance(exc, OSError) and exc.errno in DISK_FULL:  # say so: there is nothing to keep
                    raise BoundcheckError(
                        f"no space left on the device writing into {store.root} ({os.strerror(exc.errno)}) before "
                        f"any chunk was stored: nothing was completed, and the folder this run created was removed "
                        f"— free some space and re-run the same command") from exc
            raise


#: the errors of a full disk or quota (the CLI's message for them says what the store kept)
DISK_FULL = (errno.ENOSPC, errno.EDQUOT)


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
    T, total = spec.horizon, spec.n_chunks
    done_units = sum(len(spec.chunk_runs(c)) for c in done) * T
    pdir = store.root / ".progress"
    parent = ParentInfo.here() if options.backend == "loky" else None
    workers = effective_workers(options)
    plan = plan_tasks(spec, [c for c in range(total) if c not in done], workers)
    runs_left = sum(len(ids) for task in plan for _, ids in task)
    big = runs_left * _bytes_per_run(spec) > RELEASE_WORKERS_ABOVE
    monitor = (ProgressMonitor(pdir, spec.runs * T, T, done_units, on_progress) if on_progress
               else contextlib.nullcontext())
    lock = threading.Lock()

    def reporter(task):
        return (StepReporter(pdir, task[0][0], sum(len(ids) for _, ids in task), T, options.progress_interval)
                if on_progress else None)

    closed = False

    def record(results: list[tuple[int, dict, dict]]) -> None:
        """Store one task's chunks (each recorded with its sha256 once written): from any thread, one at a time,
        and never after this function has returned (the folder's lock is released then)."""
        with lock:
            if closed:
                return
            store.write_chunks(results)
            done.update(chunk for chunk, _, _ in results)
            if on_chunk:
                on_chunk(len(done), total)
            if on_progress:
                monitor.chunk_done(results[0][0], sum(info["runs"][1] - info["runs"][0] + 1 for _, _, info in results))

    start = time.perf_counter()
    user = holds_user_code(spec)
    sandbox = None
    if user:  # user code: a time limit per call, its output to a log, markers naming the call a death ends
        # one chunk per task, so that a failure keeps every chunk finished before it (a run's numbers do not
        # depend on its batch; per-run user code gains little from large batches)
        plan = [[chunk] for task in plan for chunk in task]
        timeout = usercode.DEFAULT_TIMEOUT if options.policy_timeout is None else options.policy_timeout
        sandbox = usercode.SandboxConfig(timeout=timeout, log=str(store.root / usercode.LOG_NAME),
                                         markers=str(store.root / usercode.MARKER_DIR))
        shutil.rmtree(sandbox.markers, ignore_errors=True)  # an earlier run's markers name no process of this one
        usercode.threads_to_log(sandbox.log)  # the command line's process: its user threads' output, from now on
    try:
        with monitor:
            if user and options.backend in ("loky", "threading"):
                # never in this process (not in its threads either): user code must not be able to end it
                _simulate_in_children(spec, inst, plan, workers, parent, reporter, record, sandbox)
            elif options.backend == "loky" and workers > 1:
                _simulate_beside_pool(spec, inst, plan, workers, parent, reporter, record)
            else:  # dask: the tasks run in the cluster's worker processes, whose output goes to the log too
                sandbox = replace(sandbox, capture_fds=True) if sandbox is not None else None
                _simulate_with_joblib(spec, inst, plan, options, workers, parent, reporter, record, sandbox)
    finally:
        with lock:
            closed = True
    manifest = store.require_manifest()
    manifest.setdefault("timing", {})["simulate_s"] = time.perf_counter() - start  # this run's simulation phase
    store.write_manifest(manifest)
    if options.backend == "loky" and big and workers > 1:  # (a study on one process has no workers to stop; the
        # pool may be running other studies: api._run_panels)
        runtime.shutdown()  # a big study: give the workers' memory back before the summary and reports


def _simulate_with_joblib(spec, inst, plan, options: RunOptions, workers: int, parent, reporter, record,
                          sandbox: usercode.SandboxConfig | None = None) -> None:
    """The tasks on joblib's backend (threads, a dask cluster, or this process alone with ``--jobs 1``)."""
    import joblib

    tasks = (joblib.delayed(run_task)(spec, inst, task, reporter(task), parent, sandbox) for task in plan)
    # an int pre_dispatch: joblib evaluates its default ("2*n_jobs") with ast.parse, and two threads parsing at
    # once can crash CPython 3.11 ("AST constructor recursion depth mismatch"; matplotlib's import parses)
    par = joblib.Parallel(n_jobs=options.jobs, return_as="generator_unordered", pre_dispatch=2 * workers)
    for results in par(tasks):
        record(results)


def _simulate_beside_pool(spec, inst, plan, workers: int, parent, reporter, record) -> None:
    """The tasks on ``workers − 1`` loky processes *and* this one: the pool takes tasks from the front of the plan,
    this process from the back, until none is left (a warm parent saves a worker's start-up and imports, and no
    core idles while the parent only waits). One feeder thread per worker submits a task, waits for it and
    stores its chunks; this thread simulates in process and stores its own. A worker's error is raised here as
    it is (a one-line error for the command line); every task finished before an error or an interruption is
    stored first.

    Results do not depend on who simulates which runs in which batch."""
    from collections import deque

    todo = deque(plan)
    take = threading.Lock()
    errors: list[BaseException] = []
    stop = threading.Event()
    # children forked from this warm process start at once; loky's fresh workers were started by the api's
    # prewarm and may still be importing (their first task then waits for them)
    if runtime.forking.enabled():
        from ..policies import _cloudpickle

        executor = runtime.forking.executor(workers - 1, _cloudpickle().dumps)  # a study holds lambdas
        shipped = (spec, inst)
    else:
        executor = runtime.pool(workers - 1)
        shipped = (by_value(spec), by_value(inst))

    def feed() -> None:
        while not stop.is_set():
            with take:
                if not todo:
                    return
                task = todo.popleft()
            try:
                results = executor.submit(run_task, *shipped, task, reporter(task), parent).result()
                record(results)
            except BaseException as exc:  # noqa: BLE001 - handed to the main thread, which raises it
                errors.append(exc)
                stop.set()
                return

    feeders = [threading.Thread(target=feed, name=f"boundcheck-feed-{i}", daemon=True) for i in range(workers - 1)]
    for th in feeders:
        th.start()
    try:
        while not stop.is_set():
            with take:
                if not todo:
                    break
                task = todo.pop()
            record(run_task(spec, inst, task, reporter(task)))
    except BaseException:
        stop.set()  # the feeders submit nothing more; a task a worker finishes soon is still stored
        deadline = time.monotonic() + INTERRUPT_GRACE
        with contextlib.suppress(KeyboardInterrupt):  # a second Ctrl-C: stop waiting
            for th in feeders:
                th.join(timeout=max(0.0, deadline - time.monotonic()))
        if any(th.is_alive() for th in feeders):  # a long task: stop it rather than keep the user waiting
            runtime.shutdown()
        raise
    for th in feeders:
        th.join()
    if errors:
        raise errors[0]


def _simulate_in_children(spec, inst, plan, workers: int, parent, reporter, record,
                          sandbox: usercode.SandboxConfig) -> None:
    """The tasks of a study that holds user code, on ``workers`` loky processes (one with ``--jobs 1``) and never
    in this one: a policy that calls ``os._exit``, crashes its interpreter or is killed ends a worker, not the
    check. Such a death is one :class:`~boundcheck.errors.UserCodeError` naming the call it ended in (the dead
    worker's marker); every task finished before it, or before any other error, is stored first (``record``)."""
    import warnings
    from concurrent.futures import FIRST_COMPLETED, wait

    with warnings.catch_warnings():  # a pool warmed for workers − 1 processes grows by one: not the user's concern
        warnings.filterwarnings("ignore", message="Trying to resize an executor")
        executor = runtime.pool(max(1, workers))
    todo = list(plan)
    shipped = (by_value(spec), by_value(inst))  # pickled once, with the user's modules by value
    running: dict = {}
    stuck: list[str] = []  # the call of a worker stopped by the watchdog
    child = replace(sandbox, capture_fds=True)  # in a worker, even output below Python goes to the log
    try:
        while todo or running:
            while todo and len(running) < max(1, workers):
                task = todo.pop(0)
                running[executor.submit(run_task, *shipped, task, reporter(task), parent, child)] = task
            done, _ = wait(running, timeout=WATCH_EVERY, return_when=FIRST_COMPLETED)
            if not done:
                stop_stuck(executor, sandbox, stuck)
                continue
            for fut in done:
                running.pop(fut)
                exc = fut.exception()
                if exc is None:
                    record(fut.result())
                    continue
                if isinstance(exc, BoundcheckError):
                    raise exc
                if stuck:
                    raise UserCodeError(f"{stuck[0]}: did not return within the time limit of {sandbox.timeout:g} s "
                                        "(--policy-timeout; its process was stopped)")
                raise _death(spec, sandbox, exc) from None
    except BaseException:
        for fut in running:
            fut.cancel()
        deadline = time.monotonic() + INTERRUPT_GRACE
        with contextlib.suppress(KeyboardInterrupt):  # a second Ctrl-C: stop waiting
            for fut in list(running):  # what the other workers finish soon is still stored
                with contextlib.suppress(Exception):  # failed, or not done in time: not stored
                    record(fut.result(timeout=max(0.0, deadline - time.monotonic())))
        raise


WATCH_EVERY = 1.0  # seconds between the parent's looks at the workers' markers


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
