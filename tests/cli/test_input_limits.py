"""Hostile inputs that must end as the contract says: a scenario whose domain is too large for any kind of domain,
data files outside the scenario's folder, a sweep of thousands of values, a full disk before anything was stored,
damaged records beside an intact manifest, options that contradict each other or are misread, and the arrays an
ask/tell policy is given. Each ends in one line on stderr and exit 2 (bad input), or is checked directly.

In-process through :func:`boundcheck.cli.main` (the exit code is its return value).
"""

from __future__ import annotations

import errno
import json
import os
import textwrap
from pathlib import Path

import numpy as np
import pytest

from boundcheck import api
from boundcheck.cli import main

SCENARIO = textwrap.dedent("""\
    name = "hostile"
    horizon = 5
    delta = 0.1
    noise = 0.1

    [domain]
    DOMAIN

    [kernel]
    family = "rbf"
    lengthscale = 0.3

    [[priors]]
    name = "p"
    EPS

    [truth]
    prior = "p"
    """)

PE = ["verify", "--theorem", "pe_gp_ucb", "--horizon", "5", "--runs", "2", "--jobs", "1", "--no-report"]


def _scenario(path: Path, domain: str, eps: str = "") -> Path:
    path.write_text(SCENARIO.replace("DOMAIN", domain).replace("EPS", eps))
    return path


def _one_line(capsys, *fragments: str) -> str:
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert err.count("\n") == 1 and err.startswith("boundcheck: error: "), err
    for f in fragments:
        assert f in err, err
    return err


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BOUNDCHECK_LOG_DIR", str(tmp_path / "logs"))
    return tmp_path


# ------------------------------------------------------------------------------------------- the domain's size
@pytest.fixture(scope="module")
def big_csv(tmp_path_factory):
    d = tmp_path_factory.mktemp("big")
    (d / "million.csv").write_text("x\n" + "\n".join(f"{i * 1e-6:.6f}" for i in range(10**6)) + "\n")
    return d


DOMAINS = [
    ("indices", "indices = {n = 100000}", "domain.indices.n"),
    ("csv", 'csv = "million.csv"', "million.csv with 1000001 rows"),  # counted before a number is parsed
    ("grid", "grid = {n = 200, dim = 2}", "domain.grid"),
    ("uniform", "uniform = {n = 30000, seed = 1}", "domain.uniform.n"),
    ("points", "points = [" + ", ".join(["0.5"] * 20001) + "]", "domain.points"),
    ("grid-dim", "grid = {n = 1, dim = 5000}", "domain.grid.dim"),
    ("uniform-dim", "uniform = {n = 10, dim = 100000, seed = 1}", "domain.uniform.dim"),
]


@pytest.mark.parametrize("domain, key", [d[1:] for d in DOMAINS], ids=[d[0] for d in DOMAINS])
def test_every_domain_kind_is_capped_before_anything_of_its_size_is_built(domain, key, big_csv, capsys,
                                                                           monkeypatch):
    from boundcheck.model.kernels import Kernel

    def never(*args, **kwargs):
        raise AssertionError("a Gram matrix was built")

    monkeypatch.setattr(Kernel, "gram", never)
    f = _scenario(big_csv / "s.toml", domain)
    for argv in (["scenario", "validate", str(f)], ["scenario", "show", str(f)], PE + ["--scenario", str(f)]):
        assert main(argv) == 2
        _one_line(capsys, key, "at most")


def test_the_gram_matrices_are_sized_against_the_memory_before_any_is_built(here, capsys, monkeypatch):
    """2000 points, one prior and a shared kernel: three 32 MB matrices and their construction do not fit in
    100 MB; refused before the first one is built (the kernel's gram is never called)."""
    from boundcheck.model.kernels import Kernel
    from boundcheck.utils import resources

    f = _scenario(here / "s.toml", "indices = {n = 2000}")
    monkeypatch.setattr(resources, "available_memory", lambda: 100 * 2**20)
    monkeypatch.setattr(Kernel, "gram", lambda *a, **k: pytest.fail("a Gram matrix was built"))
    assert main(["scenario", "validate", str(f)]) == 2
    _one_line(capsys, "2000 points", "n × n matrices", "this machine has available 100 MiB", "refusing")


# ------------------------------------------------------------------------------------------- data files
def test_data_files_are_read_only_from_the_scenario_files_folder(here, capsys):
    inner = here / "inner"
    (inner / "sub").mkdir(parents=True)
    (here / "outside.csv").write_text("x\n0.1\n0.9\n")
    (inner / "sub" / "ok.csv").write_text("x\n0.1\n0.5\n0.9\n")
    (inner / "escape.csv").symlink_to(here / "outside.csv")
    for value, got in (("/etc/passwd", "'/etc/passwd'"), ("../outside.csv", "'../outside.csv'"),
                       ("sub/../../outside.csv", "'sub/../../outside.csv'"), ("escape.csv", "a symbolic link to")):
        f = _scenario(inner / "s.toml", f'csv = "{value}"')
        assert main(["scenario", "validate", str(f)]) == 2
        _one_line(capsys, "key 'domain.csv'", "inside the scenario file's folder", got)
    f = _scenario(inner / "s.toml", 'csv = "sub/ok.csv"')
    assert main(["scenario", "validate", str(f)]) == 0
    assert "3 points" in capsys.readouterr().out


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a FIFO")
def test_a_fifo_named_as_a_data_file_is_said_to_be_no_regular_file(here, capsys):
    os.mkfifo(here / "points.csv")
    f = _scenario(here / "s.toml", 'csv = "points.csv"')
    assert main(["scenario", "validate", str(f)]) == 2
    err = _one_line(capsys, "key 'domain.csv'", "points.csv is not a regular file (a FIFO")
    assert "not found" not in err


# ------------------------------------------------------------------------------------------- sweeps
def test_a_sweep_checks_each_distinct_study_once_and_reports_from_the_start(here, monkeypatch):
    """2000 seeds: the set-up builds one study (the seed changes none of what is checked), calls on_setup first
    with (0, 2000) before any cell is read, then once per cell; the cells' folders are set only when they run."""
    import boundcheck.commands.sweep as api_module  # where sweep looks build_study up

    calls, order = [], []
    real = api_module.build_study

    def counting(*args, **kwargs):
        calls.append(kwargs.get("seed"))
        order.append("build")
        return real(*args, **kwargs)

    class Stop(Exception):
        pass

    def on_cell(done, total, cid, summary):
        raise Stop

    monkeypatch.setattr(api_module, "build_study", counting)
    seen = []
    with pytest.raises(Stop):
        api.sweep("pe_gp_ucb", ["seed=" + ",".join(map(str, range(2000)))], runs=2, horizon=5, jobs=1, report=False,
                  out=here / "s", on_cell=on_cell, on_setup=lambda d, t: (seen.append((d, t)), order.append(d)))
    assert len(calls) == 1
    assert seen[0] == (0, 2000) and seen[-1] == (2000, 2000) and len(seen) == 2001
    assert order[0] == 0 and order[1] == "build"
    assert not (here / "s").exists()


def test_a_sweep_says_how_far_its_checks_got_before_the_first_cell(here, capsys, monkeypatch):
    import boundcheck.commands.sweep as api_module  # where sweep looks verify up
    from boundcheck.cli import render, sweep
    from boundcheck.errors import BoundcheckError

    monkeypatch.setattr(sweep, "SWEEP_SETUP_QUIET", 0.0)
    monkeypatch.setattr(render, "PLAIN_PROGRESS_EVERY", 0.0)

    def no_cell(*args, **kwargs):
        raise BoundcheckError("stopped before the first cell")

    monkeypatch.setattr(api_module, "verify", no_cell)
    assert main(["sweep", "--theorem", "pe_gp_ucb", "--horizon", "5", "--runs", "2", "--jobs", "1", "--no-report",
                 "--vary", "seed=" + ",".join(map(str, range(50))), "--out", "s"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("sweep pe_gp_ucb: 50 cells; checked 1 of them before the first runs [")
    assert lines[-1] == "boundcheck: error: stopped before the first cell"


def test_a_sweep_over_the_cap_is_refused_before_any_value_is_read(here, capsys, monkeypatch):
    import boundcheck.commands.sweep as api_module  # where sweep looks resolve_scenario up
    from boundcheck.study import sweep

    monkeypatch.setattr(sweep, "parse_vary", lambda *a: pytest.fail("a value was read"))
    monkeypatch.setattr(api_module, "resolve_scenario", lambda *a: pytest.fail("a scenario was read"))
    assert main(["sweep"] + PE[1:] + ["--vary", "seed=" + ",".join(map(str, range(10001)))]) == 2
    _one_line(capsys, "10001 cells", "more than 10000")


# ------------------------------------------------------------------------------------------- a full disk
def test_a_full_disk_before_any_chunk_says_the_folder_was_removed(here, capsys, monkeypatch):
    from boundcheck.study.store import ResultStore

    def full(self, items):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(ResultStore, "write_chunks", full)
    assert main(PE[:-1] + ["--out", "o"]) == 2
    err = _one_line(capsys, "no space left", "before any chunk was stored", "was removed", "re-run")
    assert "kept" not in err
    assert not (here / "o").exists() and not (here / "logs").exists()


# ------------------------------------------------------------------------------------------- store check
@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """gp_ucb in 3 chunks of 3 runs."""
    from boundcheck.study.runner import RunOptions, run_study

    out = tmp_path_factory.mktemp("stored")
    spec = api.build_study("gp_ucb", runs=9, horizon=10, seed=3, chunk_size=3)
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta)
    run_study(spec, inst, out / "results", RunOptions(jobs=1), in_theory=True, reasons=[])
    return out / "results"


DAMAGE = [
    ("record-junk", lambda r: (r / "chunks" / "chunk-00001.json").write_bytes(b"{not json"), ["chunk 1: its record"]),
    ("record-deleted", lambda r: (r / "chunks" / "chunk-00002.json").unlink(), ["chunk 2: its record", "is missing"]),
    ("record-altered", lambda r: (r / "chunks" / "chunk-00000.json").write_text(json.dumps(
        {**json.loads((r / "chunks" / "chunk-00000.json").read_text()), "config_key": "another"})),
     ["chunk 0:", "another configuration"]),
    ("record-other-runs", lambda r: (r / "chunks" / "chunk-00000.json").write_text(json.dumps(
        (rec := json.loads((r / "chunks" / "chunk-00000.json").read_text())) | {"record": rec["record"] | {
            "runs": [100, 102]}})), ["chunk 0:", "differs from the manifest's entry"]),
    ("header-junk", lambda r: (r / "store.json").write_bytes(b"\x00junk"), ["store.json:"]),
    ("header-foreign", lambda r: (r / "store.json").write_text(json.dumps(
        {**json.loads((r / "store.json").read_text()), "config_key": "another"})), ["store.json:", "another"]),
]


@pytest.mark.parametrize("damage, says", [d[1:] for d in DAMAGE], ids=[d[0] for d in DAMAGE])
def test_store_check_names_a_damaged_record_or_store_json_and_repair_rewrites_it(damage, says, stored, tmp_path,
                                                                                 capsys):
    """Beside an intact manifest, a record or store.json that could not rebuild it is one line of store check (exit
    1); repair rewrites it from the manifest, after which a lost manifest is rebuilt with every chunk."""
    import shutil

    results = tmp_path / "results"
    shutil.copytree(stored, results)
    assert main(["store", "check", str(results)]) == 0
    capsys.readouterr()
    damage(results)
    assert main(["store", "check", str(results)]) == 1
    problems = [x for x in capsys.readouterr().out.splitlines() if x.startswith("problem: ")]
    assert len(problems) == 1, problems
    for s in says:
        assert s in problems[0], problems
    assert main(["store", "repair", str(results)]) == 0
    assert "rewrote" in capsys.readouterr().out
    assert main(["store", "check", str(results)]) == 0
    capsys.readouterr()
    m = results / "manifest.json"
    m.write_bytes(m.read_bytes()[: m.stat().st_size // 3])
    assert main(["store", "repair", str(results), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verified"] == [0, 1, 2]


# ------------------------------------------------------------------------------------------- options
@pytest.mark.parametrize("extra, says", [
    (["--runs", "100", "--until-conclusive", "--max-runs", "25"], "--runs 100 is more than --until-conclusive stops at "
                                                                  "(--max-runs 25)"),
    (["--runs", "3000", "--until-conclusive"], "(--max-runs 2000, the default)"),
])
def test_runs_above_what_until_conclusive_stops_at_is_refused(extra, says, here, capsys):
    assert main(PE[:5] + PE[7:] + extra) == 2
    _one_line(capsys, says)


@pytest.mark.parametrize("allow", [[], ["--allow-out-of-theory"]])
def test_a_one_point_algorithm_on_super_arms_is_refused_without_blaming_a_policy(allow, here, capsys):
    assert main(["verify", "--theorem", "gp_ucb", "--scenario", "comb_topk", "--runs", "2", "--horizon", "5",
                 "--jobs", "1", "--no-report"] + allow) == 2
    err = _one_line(capsys, "the theorem's algorithm gp_ucb", "one point per round", "super arms of K = 2")
    assert "select()" not in err and "policy '" not in err
    assert not (here / "logs").exists()


@pytest.mark.parametrize("argv", [
    PE + ["--delta", "０.１"], PE + ["--beta-scale", "２"], PE + ["--false-alarm", "٠.٠١"],
    PE + ["--policy-timeout", "６０"], ["gamma", "--kernel", "rbf", "--horizon", "5", "--lengthscale", "０.２"],
    ["sweep", "--theorem", "pe_gp_ucb", "--vary", "seed=1,2", "--delta", "０.１"],
    PE + ["--runs", "２"],
], ids=["delta", "beta-scale", "false-alarm-arabic-indic", "policy-timeout", "gamma-lengthscale", "sweep-delta",
        "runs"])
def test_number_options_refuse_non_ascii_digits_as_integer_options_do(argv, here, capsys):
    assert main(argv) == 2
    _one_line(capsys, "is not a" if "--runs" not in argv[-2:] else "is not an integer")


def test_number_options_read_the_ascii_forms():
    from boundcheck.cli.options import real as _real

    assert [_real(x) for x in ("0.1", ".5", "-2", "1e-3", "1_000.5", " 7 ")] == [0.1, 0.5, -2.0, 1e-3, 1000.5, 7.0]
    assert _real("inf") == float("inf") and np.isnan(_real("nan"))  # each setting refuses them by name


@pytest.mark.parametrize("size, says", [
    ("2.5", "'2.5' reads as 2.5 bytes (a number without a unit is bytes), less than 1 KiB"),
    ("1000", "give a unit, e.g. 1000G"),
    ("0.5K", "'0.5K' is 512 bytes, less than 1 KiB"),
    ("1.5K", "--max-memory allows 1.5 KiB; refusing to start"),
])
def test_max_memory_says_what_it_read(size, says, here, capsys):
    assert main(PE + ["--max-memory", size]) == 2
    _one_line(capsys, says)


def test_a_stationary_file_with_a_drift_given_to_et_gp_ucb_names_the_eps_chain_form(here, capsys):
    f = _scenario(here / "drift.toml", "grid = {n = 10}", "eps = 0.03")
    assert main(["verify", "--theorem", "et_gp_ucb", "--scenario", str(f), "--runs", "2", "--horizon", "5",
                 "--jobs", "1", "--no-report"]) == 2
    err = _one_line(capsys, 'family = "et_gp_ucb.eps_chain"', "docs/scenarios.md", "is a stationary scenario",
                    "priors' eps")
    assert "TVScenario" not in err


# ------------------------------------------------------------------------------------------- ask/tell arrays
def test_the_arrays_an_ask_tell_policy_is_given_cannot_be_unlocked():
    """setflags(write=True) on a read-only view of a writable array succeeds; the context's arrays are immutable
    copies, so it raises, and the study's own arrays are never handed out."""
    from boundcheck.policies.asktell import AskTellAdapter, AskTellContext
    from boundcheck.policies.base import RunContext

    sc = api.build_study("gp_ucb", runs=2, horizon=5).scenario
    n = sc.domain.n

    class Keeps:
        def __init__(self, ctx):
            self.ctx = ctx

        def ask(self, t, available):
            self.available = available
            return int(np.flatnonzero(available)[0])

        def tell(self, index, y):
            pass

    ctx = RunContext(runs=2, horizon=5, candidates=sc.candidates, truth=sc.truth, noise_sd=0.1, noise_var=0.01,
                     beta=np.ones(6), xi=np.zeros(6), actions=sc.actions, points=sc.domain.points,
                     rngs=[np.random.default_rng(i) for i in range(2)])
    adapter = AskTellAdapter(Keeps)
    adapter.start(ctx)
    adapter.select(1, np.ones(n, dtype=bool))
    for obj in adapter._objs:
        c = obj.ctx
        for name, a in (("beta", c.beta), ("mean", c.mean), ("kernel", c.kernel), ("points", c.points),
                        ("xi", c.xi), ("priors[0].K", c.priors[0].K), ("priors[0].mean", c.priors[0].mean),
                        ("available", obj.available)):
            with pytest.raises(ValueError):
                a.setflags(write=True)
            with pytest.raises(ValueError):
                a[(0,) * a.ndim] = a[(0,) * a.ndim]
            assert a is not ctx.beta and not np.shares_memory(a, sc.candidates[0].K), name
    assert np.array_equal(adapter._objs[0].ctx.kernel, sc.candidates[0].K)
    assert "setflags(write=True)" in AskTellContext.__doc__
