"""The batch-scheduler configuration of docs/clusters.md, tested without a cluster.

``examples/slurm_cluster.py`` builds dask-jobqueue's ``SLURMCluster`` (a scheduler in this process; nothing is
submitted) with the settings docs/clusters.md prints; the job script it would hand to ``sbatch`` is checked
line by line: the resources asked for, one thread per worker process, BLAS on one thread, glibc's allocation
thresholds, the environment activated before the worker starts, and the worker pointed at this scheduler. The
LocalCluster ``--backend dask`` starts leaves MALLOC_TRIM_THRESHOLD_ unset in its workers. dask-jobqueue is a
test extra (CI installs ``.[test]``): this is not skipped.
"""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "clusters.md"


@pytest.fixture(scope="module")
def example():
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import slurm_cluster
    finally:
        sys.path.remove(str(ROOT / "examples"))
    return slurm_cluster


def _sbatch(script: str) -> dict[str, str]:
    """{option: value} of the ``#SBATCH`` lines (``-p normal`` -> {"-p": "normal"}, ``--mem=4G`` -> {"--mem": "4G"})."""
    out = {}
    for line in script.splitlines():
        if line.startswith("#SBATCH "):
            opt = line[len("#SBATCH "):].strip()
            key, _, value = opt.partition("=") if opt.startswith("--") else opt.partition(" ")
            out[key] = value.strip()
    return out


def test_slurm_job_script(example):
    cluster = example.slurm_cluster("myproject", "compute", processes=4, memory_per_process_gb=2,
                                    walltime="02:30:00", venv="/opt/venvs/boundcheck")
    try:
        script = cluster.job_script()
        address = cluster.scheduler_address
    finally:
        cluster.close()
    lines = [ln for ln in script.splitlines() if ln.strip()]
    assert lines[0] == "#!/usr/bin/env bash"
    opts = _sbatch(script)
    assert opts["-A"] == "myproject" and opts["-p"] == "compute"
    assert opts["-n"] == "1" and opts["--cpus-per-task"] == "4"  # one task holding one core per worker process
    assert opts["-t"] == "02:30:00"
    assert re.fullmatch(r"[78]G", opts["--mem"])  # 4 × 2 GB, as SLURM's GiB (rounded down)
    body = [ln for ln in lines[1:] if not ln.startswith("#")]
    # the environment first (boundcheck and its exact version on the node), BLAS single-threaded, then the worker
    assert body[0] == "source /opt/venvs/boundcheck/bin/activate"
    assert body[1] == "export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1"
    # glibc's thresholds fixed before the nanny starts (it would set a trim threshold of 64 KiB otherwise)
    assert body[2] == "export MALLOC_TRIM_THRESHOLD_=134217728 MALLOC_MMAP_THRESHOLD_=33554432"
    worker = body[3].split()
    assert worker[:3] == ["python", "-m", "distributed.cli.dask_worker"]
    assert worker[3] == address  # the scheduler of this process: the address verify's --scheduler gets
    assert worker[worker.index("--nthreads") + 1] == "1"  # a chunk of runs is one thread
    assert worker[worker.index("--nworkers") + 1] == "4"
    assert len(body) == 4


def test_slurm_defaults_leave_the_site_defaults(example):
    """Without an account or a partition the script asks for neither (the site's defaults apply)."""
    cluster = example.slurm_cluster()
    try:
        opts = _sbatch(cluster.job_script())
    finally:
        cluster.close()
    assert "-A" not in opts and "-p" not in opts
    assert opts["--cpus-per-task"] == str(example.PROCESSES)


def test_docs_show_the_tested_configuration(example):
    """docs/clusters.md prints the configuration tested here, as it is in examples/slurm_cluster.py."""
    text = DOC.read_text()
    assert inspect.getsource(example.slurm_cluster) in text
    assert "examples/slurm_cluster.py" in text and "tests/runtime/test_clusters.py" in text
