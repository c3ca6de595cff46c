"""Bounded resources (memory estimates against measured peaks, sizes, lazy chunks), step-level
progress from inside a chunk (one worker and several), help-friendly parsing, bound-symbol domains, output
folders checked without writing."""

import argparse
import os
import time
import tracemalloc

import pytest

import theory
from boundcheck import api
from boundcheck.cli import main
from boundcheck.cli.options import integer as _integer
from boundcheck.errors import BoundcheckError
from boundcheck.model.mig import gamma_for_grid
from boundcheck.policies import PolicySpec
from boundcheck.policies.gp_ucb import GPUCB
from boundcheck.study.preflight import estimate_grid_memory, estimate_study_memory
from boundcheck.study.runner import RunOptions, run_chunk, run_study
from boundcheck.utils.resources import available_memory, check_memory, format_size, gamma_memory, parse_size
from boundcheck.utils.validation import check_output_dir


def _peak(fn) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_gamma_estimate_bounds_the_measured_peak():
    for grid, T, eps in ((40, 1200, 0.0), (30, 400, 0.05)):
        peak = _peak(lambda grid=grid, T=T, eps=eps: gamma_for_grid("rbf", 0.2, grid, 1, 0.1, T, eps=eps))
        est = gamma_memory(grid, T)
        assert peak <= est <= 8 * peak + 32 * 2**20, (grid, T, format_size(peak), format_size(est))


def test_chunk_estimate_bounds_the_measured_peak():
    """One chunk of GP-UCB and its baselines (tracemalloc sees numpy buffers)."""
    spec = api.build_study("gp_ucb", runs=2, horizon=250, seed=1)
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta)
    peak = _peak(lambda: run_chunk(spec, inst, 0, [0, 1]))
    est = estimate_study_memory(spec, RunOptions(jobs=1)).parts["chunks in flight"]
    assert peak <= est <= 10 * peak, (format_size(peak), format_size(est))


def test_memory_refusal_names_the_estimate_and_the_limit():
    spec = api.build_study("gp_ucb", runs=10**12, horizon=5)
    est = estimate_study_memory(spec, RunOptions(jobs=2))
    assert est.parts["summary tables"] > 10**15
    with pytest.raises(BoundcheckError, match=r"would need about .* TiB .* --max-memory allows 4 GiB; refusing"):
        check_memory(est, parse_size("4G"))
    assert spec.n_chunks == 4 * 10**10 and next(iter(spec.chunks()))[1] == list(range(25))  # lazy: no list
    assert available_memory() is None or available_memory() > 0


def test_an_explored_grid_is_sized_by_its_cells_runs_and_workers():
    """reproduce --explore: every cell of the grid runs whole in one worker and the parent keeps every cell's
    data, so the estimate grows with the cells, the runs and the cells in flight (--jobs), not with one panel."""
    spec = api.build_study("gp_ucb", runs=30, horizon=50)
    one = estimate_grid_memory(spec, RunOptions(jobs=1), 1)
    many = estimate_grid_memory(spec, RunOptions(jobs=1), 300)
    assert many.parts["cells' data kept"] == 300 * one.parts["cells' data kept"] > 0
    assert many.parts["cells in flight"] == one.parts["cells in flight"]  # one cell at a time with --jobs 1
    two = estimate_grid_memory(spec, RunOptions(jobs=2, backend="threading"), 300)
    busy = min(2, os.cpu_count() or 1)  # --jobs is capped at the cores
    assert two.parts["cells in flight"] == busy * (one.parts["cells in flight"] - 200 * 2**20)  # threads: no worker
    confirmed = estimate_grid_memory(spec, RunOptions(jobs=1), 300, confirm_cells=10, confirm_runs=100)
    assert confirmed.total > many.total and "then up to 10 cells × 100 runs to confirm" in confirmed.what
    assert "300 cells × 30 runs × T = 50" in many.what


@pytest.mark.parametrize("text, n", [("4G", 4 * 2**30), ("4GiB", 4 * 2**30), ("4GB", 4 * 10**9), ("500M", 500 * 2**20),
                                     ("1.5T", int(1.5 * 2**40)), ("123456", 123456), (2048, 2048),
                                     ("1.3G", int(1.3 * 2**30))])
def test_parse_size(text, n):
    assert parse_size(text) == n


@pytest.mark.parametrize("bad", ["", "4X", "-1G", "0", "lots", True, 1.5, "1e30T", "2.5", "123", "0.5K", 5, "４G"])
def test_parse_size_refuses(bad):
    with pytest.raises(BoundcheckError):
        parse_size(bad)


@pytest.mark.parametrize("text, n", [("200", 200), ("-1", -1), ("1_000", 1000), ("1e6", 10**6), ("2.5e1", 25),
                                     ("10^12", 10**12), ("1E3", 1000)])
def test_integer_flags(text, n):
    assert _integer(text) == n


@pytest.mark.parametrize("bad", ["2.5", "1e-3", "abc", "", "1.25e1", "nan", "10^1000"])
def test_integer_flags_refuse(bad):
    with pytest.raises(argparse.ArgumentTypeError):
        _integer(bad)


def test_bound_symbol_domains_come_from_the_theorem():
    th = theory.get("gp_ts")
    assert th.domain("B").describe() == "a number > 0"
    assert th.domain("gamma_T").describe() == "a number ≥ 0"
    assert th.domain("T").describe() == "an integer ≥ 1" and th.domain("n_X").integer
    assert th.domain("delta").describe() == "a number in (0, 1)"
    assert not th.domain("delta").contains(1.0) and not th.domain("T").contains(2.5)
    assert th.domain("T").contains(1e3) and not th.domain("B").contains(float("nan"))


def test_output_dir_checks_write_nothing(tmp_path):
    (tmp_path / "f").write_text("x")
    for bad, msg in (("", "empty string"), (str(tmp_path / "f"), "not a directory"),
                     (str(tmp_path / "f" / "x"), "not a directory")):
        with pytest.raises(BoundcheckError, match=msg):
            check_output_dir("--out", bad)
    assert check_output_dir("--out", tmp_path / "new" / "deep") == tmp_path / "new" / "deep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"]


class _SlowUCB(GPUCB):
    """GP-UCB that takes a few milliseconds a step, so that the chunk outlasts the progress poll on any
    machine (a fast machine would otherwise finish 150 steps between two polls)."""

    def __init__(self):
        super().__init__("gp_ucb", "GP-UCB")

    def select(self, t, available):
        time.sleep(0.004)
        return super().select(t, available)


@pytest.mark.parametrize("jobs", [1, 2])
def test_progress_moves_inside_a_chunk(jobs, tmp_path):
    """One chunk of 2 runs: the progress callback must see steps inside it, with one worker or two."""
    spec = api.build_study("gp_ucb", runs=2, horizon=150, seed=1, policies=[PolicySpec("gp_ucb", _SlowUCB)])
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta)
    seen = []
    run_study(spec, inst, tmp_path / "results", RunOptions(jobs=jobs, progress_interval=0.02), in_theory=True,
              reasons=[], on_progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (300, 300)
    assert any(0 < done < 300 for done, _ in seen), seen
    assert not (tmp_path / "results" / ".progress").exists()


def test_cli_progress_bar_on_a_terminal(tmp_path, monkeypatch, capsys):
    import sys

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert main(["verify", "--theorem", "gp_ucb", "--runs", "2", "--horizon", "20", "--jobs", "1", "--out",
                 str(tmp_path / "o"), "--no-report"]) == 0
    assert "theorem verdict" in capsys.readouterr().out
