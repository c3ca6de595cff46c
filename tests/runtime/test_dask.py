"""The dask.distributed backend, tested in CI (``distributed`` is a test extra: this is not skipped).

A verify on a ``LocalCluster`` of two worker processes, reached through its scheduler address as an existing
cluster would be (``--backend dask --scheduler tcp://HOST:8786``), stores runs and steps tables bit-identical to
loky's, with a user's ask/tell policy from a file shipped to the workers by value."""

from pathlib import Path

import pandas as pd
from dask.distributed import LocalCluster

from boundcheck.study.store import ResultStore
from boundcheck.testing import run_check

ROOT = Path(__file__).resolve().parents[2]
GOOD = str(ROOT / "examples" / "gp_ucb.py") + ":MyGPUCB"


def _tables(out: Path) -> dict[str, pd.DataFrame]:
    store = ResultStore(out / "results")
    return {t: store.read_table(t).astype({"algorithm": str}) for t in ("runs", "steps")}


def test_verify_on_a_local_cluster_matches_loky_bit_for_bit(tmp_path):
    kw = dict(runs=30, horizon=10, seed=9, jobs=2, algorithm=GOOD)  # 2 chunks of runs, one per worker
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        a = run_check("gp_ucb", backend="dask", scheduler=cluster.scheduler_address, out=tmp_path / "dask", **kw)
        workers = len(cluster.scheduler_info["workers"])
    b = run_check("gp_ucb", backend="loky", out=tmp_path / "loky", **kw)
    assert workers == 2
    assert a["claims"] == b["claims"] and a["regret"] == b["regret"]
    ta, tb = _tables(tmp_path / "dask"), _tables(tmp_path / "loky")
    for t in ("runs", "steps"):
        pd.testing.assert_frame_equal(ta[t], tb[t], check_exact=True)
    assert set(ta["runs"]["algorithm"]) == {"MyGPUCB", "gp_ucb", "gp_ei", "gp_pi", "random"}
