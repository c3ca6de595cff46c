"""Raw stored tables are bit-identical for any batching, chunk size, number of workers and backend; BLAS on one
thread.

Chunks (fixed, ``chunk_size`` runs each) are what is stored and hashed; a worker simulates several consecutive
chunks as one batch (``runner.plan_tasks``). A run's results must not depend on either grouping."""

import sys
from pathlib import Path

import numpy as np
import pytest

from boundcheck import api
from boundcheck.model.sampling import rows_matmul
from boundcheck.study import runner
from boundcheck.study.runner import RunOptions, choose_chunk_size, plan_tasks, run_study, single_threaded_blas
from boundcheck.study.store import ResultStore

sys.path.insert(0, str(Path(__file__).parent))
from regression_pins import _table  # noqa: E402


def _run(tmp, theorem, chunk_size=25, jobs=1, backend="loky", runs=19, horizon=12, seed=4, scenario=None):
    spec = api.build_study(theorem, scenario, runs=runs, horizon=horizon, seed=seed, chunk_size=chunk_size)
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta)
    run_study(spec, inst, Path(tmp), RunOptions(jobs=jobs, backend=backend), in_theory=True, reasons=[])
    return {t: _table(Path(tmp), t) for t in ("runs", "steps")}


def _hashes(tmp) -> dict:
    """sha256 of every stored chunk file, from the manifest."""
    chunks = ResultStore(tmp).read_manifest()["chunks"]
    return {c: {t: f["sha256"] for t, f in info["files"].items()} for c, info in chunks.items()}


def _assert_identical(a, b):
    for t in a:
        assert list(a[t].columns) == list(b[t].columns)
        for c in a[t].columns:
            assert a[t][c].equals(b[t][c]), f"{t}.{c} differs"


# ε-chain sampler; RKHS sampler + pathwise draws; variation-budget sampler, restarts and the window replay
@pytest.mark.parametrize("theorem", ["pe_gp_ucb", "gp_ts", "r_gp_ucb"])
def test_results_do_not_depend_on_chunking(tmp_path, theorem):
    ref = _run(tmp_path / "a", theorem, chunk_size=19)
    for size in (5, 8, 13):
        _assert_identical(ref, _run(tmp_path / f"c{size}", theorem, chunk_size=size))


def test_batches_do_not_change_a_stored_byte(tmp_path, monkeypatch):
    """The same 25-run chunks simulated in batches of one chunk, of several chunks and of all of them: every
    stored file has the same sha256."""
    want = None
    for most in (25, 50, 256):
        monkeypatch.setattr(runner, "MAX_CHUNK", most)
        _run(tmp_path / f"b{most}", "pe_gp_ucb", runs=60, horizon=10)
        got = _hashes(tmp_path / f"b{most}")
        assert len(got) == 3
        assert want is None or got == want, f"batches of at most {most} runs changed a stored chunk"
        want = got


def test_user_policy_and_engine_reference_posterior_do_not_depend_on_batching(tmp_path, monkeypatch):
    """An ask/tell policy (no posterior of its own: the engine's reference posterior, built by make_posterior,
    monitors it) gives the same stored chunks in any batch."""
    from boundcheck.testing import run_check

    examples = Path(__file__).resolve().parents[2] / "examples"
    hashes = []
    for most in (25, 256):
        monkeypatch.setattr(runner, "MAX_CHUNK", most)
        out = tmp_path / f"u{most}"
        run_check("gp_ucb", runs=50, horizon=10, seed=3, jobs=1, out=out, algorithm=f"{examples / 'gp_ucb.py'}:MyGPUCB")
        hashes.append(_hashes(out / "results"))
    assert hashes[0] == hashes[1]


def test_jobs_and_backends_bit_identical(tmp_path):
    """--jobs 1 (in process) against --jobs 2 on loky — its workers forked from this process (the default on
    Linux) and fresh interpreters (``BOUNDCHECK_START_METHOD=spawn``) — and on threads: every stored chunk, byte for
    byte (the chain-rule diagnostic used to differ in its last bits: a multi-threaded Cholesky in the parent)."""
    from boundcheck import runtime

    one = _run(tmp_path / "one", "pe_gp_ucb", jobs=1, runs=60, horizon=15)
    _assert_identical(one, _run(tmp_path / "loky", "pe_gp_ucb", jobs=2, runs=60, horizon=15))
    with runtime.forking.start_method().use("spawn"):
        _assert_identical(one, _run(tmp_path / "spawn", "pe_gp_ucb", jobs=2, runs=60, horizon=15))
    runtime.shutdown()
    _assert_identical(one, _run(tmp_path / "thr", "pe_gp_ucb", jobs=2, backend="threading", runs=60, horizon=15))
    assert (_hashes(tmp_path / "one") == _hashes(tmp_path / "loky") == _hashes(tmp_path / "spawn")
            == _hashes(tmp_path / "thr"))
    manifests = {name: ResultStore(tmp_path / name).read_manifest()["chunks"] for name in ("loky", "spawn")}
    import os

    for name, chunks in manifests.items():  # the worker share ran in another process in both
        assert {c["pid"] for c in chunks.values()} - {os.getpid()}, name


def test_resume_with_other_workers_reuses_chunks(tmp_path):
    """The batches are chosen from the workers, but a resume keeps the stored chunks (they do not depend on it)."""
    spec = api.build_study("gp_ucb", runs=40, horizon=8, seed=1)
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta)
    run_study(spec, inst, tmp_path, RunOptions(jobs=1), in_theory=True, reasons=[])
    before = ResultStore(tmp_path).read_manifest()
    run_study(spec, inst, tmp_path, RunOptions(jobs=4, backend="threading"), in_theory=True, reasons=[])
    after = ResultStore(tmp_path).read_manifest()
    assert after["chunks"] == before["chunks"] and after["config"]["chunk_size"] == before["config"]["chunk_size"]


def test_batch_size_choice():
    assert choose_chunk_size(200, 1, 10**5) == 200  # one worker: one batch (within memory)
    assert choose_chunk_size(200, 2, 10**5) == 100  # one per worker: halves would be small
    assert choose_chunk_size(1000, 2, 10**5) == 250  # two per worker
    assert choose_chunk_size(400, 2, 10**7) == 23  # memory-bound: 224 MiB per process / 10 MB per run
    assert choose_chunk_size(10_000, 2, 10**5) <= 256
    spec = api.build_study("gp_ucb", runs=210)
    plan = plan_tasks(spec, list(range(spec.n_chunks)), 1)  # 9 chunks of 25 (the last of 10)
    assert [c for task in plan for c, _ in task] == list(range(9))
    assert all(len(task) * 25 <= 256 for task in plan) and max(len(task) for task in plan) > 1
    for task in plan:  # a batch is consecutive chunks, holding exactly their runs
        ids = [r for _, rs in task for r in rs]
        assert ids == list(range(ids[0], ids[-1] + 1))
    # holes (chunks already stored) split batches: a batch's runs stay consecutive
    plan = plan_tasks(spec, [0, 1, 3, 4, 8], 1)
    assert [[c for c, _ in task] for task in plan] == [[0, 1], [3, 4], [8]]


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


@pytest.mark.parametrize("law", ["gaussian", "gaussian:3", "rademacher"])
def test_noise_drawn_in_blocks_equals_per_step_draws(law):
    from boundcheck.model.noise import NoiseDraws, draw_noise

    def streams():
        return [np.random.default_rng(s) for s in range(5)]

    blocks, per_step = NoiseDraws(law, 0.2, streams(), 3, steps=4), streams()
    for _ in range(11):
        np.testing.assert_array_equal(blocks.next(), draw_noise(law, 0.2, per_step, 3))
