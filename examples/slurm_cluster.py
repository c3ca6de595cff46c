"""A boundcheck study on a SLURM cluster: dask-jobqueue's ``SLURMCluster`` as docs/clusters.md configures it.

``slurm_cluster()`` only builds the cluster object (a dask scheduler in this process, no job submitted), so it runs
anywhere; tests/runtime/test_clusters.py builds it and checks the job script it would submit. ``main()`` submits
the jobs (``sbatch``) and runs a verify on their workers: run it on a login node of the cluster, in an environment where
boundcheck is installed the same way as on the compute nodes (``pip install 'boundcheck[slurm]'``).

    python examples/slurm_cluster.py --jobs 4 --account myproject --partition compute
"""

from __future__ import annotations

import argparse

from dask_jobqueue import SLURMCluster

#: worker processes per SLURM job: one per requested core, each single-threaded (a chunk of runs is one thread:
#: more threads per worker only oversubscribe the cores; boundcheck pins BLAS to one thread inside every task)
PROCESSES = 8


def slurm_cluster(account: str | None = None, partition: str | None = None, *, processes: int = PROCESSES,
                  memory_per_process_gb: float = 2.0, walltime: str = "01:00:00",
                  venv: str = "~/venvs/boundcheck") -> SLURMCluster:
    """The cluster object: each SLURM job is one node's share of ``processes`` single-threaded dask workers.

    Parameters
    ----------
    account, partition
        the ``#SBATCH -A`` and ``-p`` of the jobs (None: the site's defaults).
    processes
        worker processes per job, one core each.
    memory_per_process_gb
        memory per worker: a batch of at most 256 runs of pe_gp_ucb (|X| = 100, T = 200) takes < 1 GB; raise it
        for large domains or horizons (``boundcheck verify`` prints its estimate with ``--max-memory``).
    walltime
        the jobs' time limit (``#SBATCH -t``): the study must finish within it (a resumed verify recomputes only
        the chunks that were not stored).
    venv
        the virtual environment the workers activate: the same boundcheck version as here.
    """
    return SLURMCluster(
        account=account,
        queue=partition,
        cores=processes,  # cores = processes: one thread per worker process
        processes=processes,
        memory=f"{processes * memory_per_process_gb:g}GB",
        walltime=walltime,
        job_script_prologue=[
            f"source {venv}/bin/activate",
            # BLAS on one thread in every worker from its start (boundcheck also pins it inside each task)
            "export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1",
            # dask's nanny sets MALLOC_TRIM_THRESHOLD_=65536 in its workers unless the environment sets it: that
            # turns off glibc's adaptive mmap threshold and a task then costs 1.4-1.5x the CPU (every large
            # temporary mapped afresh); fixed thresholds that keep the adaptive behaviour's allocation pattern
            "export MALLOC_TRIM_THRESHOLD_=134217728 MALLOC_MMAP_THRESHOLD_=33554432",
        ],
        python="python",  # the environment's interpreter, once the prologue has activated it
        scheduler_options={"dashboard": False},  # no web dashboard on the login node
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=2, help="SLURM jobs to submit (each holds PROCESSES workers)")
    ap.add_argument("--account")
    ap.add_argument("--partition")
    ap.add_argument("--runs", type=int, default=2000)
    args = ap.parse_args()

    from dask.distributed import Client

    import boundcheck

    with slurm_cluster(args.account, args.partition) as cluster:
        cluster.scale(jobs=args.jobs)
        workers = args.jobs * PROCESSES
        with Client(cluster) as client:
            client.wait_for_workers(workers, timeout=1800)  # the jobs may wait in the queue
        # --jobs tells boundcheck how many workers to plan the tasks for (results do not depend on it)
        summary = boundcheck.verify("pe_gp_ucb", runs=args.runs, jobs=workers, backend="dask",
                                    scheduler=cluster.scheduler_address, out="reports/pe_gp_ucb-slurm")
    print(summary["verdict"])


if __name__ == "__main__":
    main()
