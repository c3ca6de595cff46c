"""Raw stored tables are bit-identical for any chunking, number of workers and backend; BLAS on one thread."""

import sys
from pathlib import Path

import numpy as np
import pytest

from boundcheck import api
from boundcheck.model.sampling import ROW_BLOCK, rows_matmul
from boundcheck.study.runner import RunOptions, choose_chunk_size, run_study, single_threaded_blas

sys.path.insert(0, str(Path(__file__).parent))
from regression_pins import _table  # noqa: E402


def _run(tmp, theorem, chunk_size=None, jobs=1, backend="loky", runs=19, horizon=12, seed=4):
    spec = api.build_study(theorem, runs=runs, horizon=horizon, seed=seed, chunk_size=chunk_size)
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta)
    run_study(spec, inst, Path(tmp), RunOptions(jobs=jobs, backend=backend), in_theory=True, reasons=[])
    return {t: _table(Path(tmp), t) for t in ("runs", "steps")}


def _assert_identical(a, b):
    for t in a:
        assert list(a[t].columns) == list(b[t].columns)
        for c in a[t].columns:
            assert a[t][c].equals(b[t][c]), f"{t}.{c} differs"


@pytest.mark.parametrize("theorem", ["pe_gp_ucb", "gp_ts"])  # ε-chain sampler; RKHS sampler + pathwise draws
def test_results_do_not_depend_on_chunking(tmp_path, theorem):
    ref = _run(tmp_path / "a", theorem, chunk_size=19)
    for size in (5, 8, 13):
        _assert_identical(ref, _run(tmp_path / f"c{size}", theorem, chunk_size=size))


def test_jobs_and_backends_bit_identical(tmp_path):
    """--jobs 1 (in process) against --jobs 2 on loky and on threads: every stored column, bit for bit (the
    chain-rule diagnostic used to differ in its last bits: a multi-threaded Cholesky in the parent process)."""
    one = _run(tmp_path / "one", "pe_gp_ucb", jobs=1, runs=24, horizon=15)
    _assert_identical(one, _run(tmp_path / "loky", "pe_gp_ucb", jobs=2, runs=24, horizon=15))
    _assert_identical(one, _run(tmp_path / "thr", "pe_gp_ucb", jobs=2, backend="threading", runs=24, horizon=15))


def test_resume_with_other_workers_reuses_chunks(tmp_path):
    """The chunking is chosen from the workers, but a resume keeps the stored chunks (the resume key does not
    depend on it)."""
    spec = api.build_study("gp_ucb", runs=40, horizon=8, seed=1)
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta)
    run_study(spec, inst, tmp_path, RunOptions(jobs=1), in_theory=True, reasons=[])
    from boundcheck.study.store import ResultStore

    before = ResultStore(tmp_path).read_manifest()
    run_study(spec, inst, tmp_path, RunOptions(jobs=4, backend="threading"), in_theory=True, reasons=[])
    after = ResultStore(tmp_path).read_manifest()
    assert after["chunks"] == before["chunks"] and after["config"]["chunk_size"] == before["config"]["chunk_size"]


def test_chunk_size_choice():
    assert choose_chunk_size(200, 1, 10**5) == 200  # one worker: one chunk (within memory)
    assert choose_chunk_size(200, 2, 10**5) == 100  # one per worker: halves would be small
    assert choose_chunk_size(1000, 2, 10**5) == 250  # two per worker
    assert choose_chunk_size(400, 2, 10**7) == 11  # memory-bound: 224 MiB over two workers / 10 MB per run
    assert choose_chunk_size(10_000, 2, 10**5) <= 256
    spec = api.build_study("gp_ucb", runs=50, chunk_size=20)
    sizes = [len(ids) for _, ids in spec.chunks()]
    assert sum(sizes) == 50 and max(sizes) <= 24 and all(ids[0] % ROW_BLOCK == 0 for _, ids in spec.chunks())


def test_rows_matmul_is_position_exact():
    rng = np.random.default_rng(0)
    Z, M = rng.normal(size=(21, 300)), rng.normal(size=(300, 300))
    full = rows_matmul(Z, M, first_row=0)
    np.testing.assert_allclose(full, Z @ M, rtol=1e-12)
    for start in (1, 8, 13):
        np.testing.assert_array_equal(rows_matmul(Z[start:], M, first_row=start), full[start:])


def test_single_threaded_blas_restores():
    from threadpoolctl import threadpool_info

    before = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]
    with single_threaded_blas():
        assert all(i["num_threads"] == 1 for i in threadpool_info() if i["user_api"] == "blas")
    assert [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"] == before
