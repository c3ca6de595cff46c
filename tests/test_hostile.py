"""Hostile input across every subcommand (issue 25): each case ends in one line on stderr and its documented exit
code (2: bad input or work refused), no traceback, and nothing left behind in the working folder.

Cases run in-process through :func:`boundcheck.cli.main` (fast); the few that need a process of their own
(environment variables read at import, process counts) run by subprocess.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from boundcheck.cli import main

ROOT = Path(__file__).resolve().parents[1]

SCENARIO = textwrap.dedent("""\
    name = "NAME"
    description = "a small grid"
    horizon = 5
    delta = 0.1
    noise = 0.1
    runs = 2

    [domain]
    grid = {n = 8, dim = 1, low = 0.0, high = 1.0}

    [kernel]
    family = "rbf"
    lengthscale = LS

    [[priors]]
    name = "p"
    mean = 0.0

    [truth]
    prior = "p"
    """)

POLICIES = textwrap.dedent("""\
    class NoAsk:
        def __init__(self, ctx):
            pass

    NotAClass = 3

    class BadInit:
        def __init__(self):
            pass
    """)


def _files(d: Path) -> None:
    """The input files the cases name (under ``{in}``), written before each case."""
    d.mkdir()
    (d / "deep_array.toml").write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    (d / "deep_table.toml").write_text("x = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n")
    (d / "deep_config.toml").write_text('theorem = "pe_gp_ucb"\nseed = ' + "[" * 50_000 + "]" * 50_000 + "\n")
    (d / "huge.toml").write_bytes(b"# " + b"x" * (33 * 1024 * 1024) + b"\n")
    (d / "latin1.toml").write_bytes(b'name = "\xe9"\n')
    (d / "empty.toml").write_text("")
    (d / "markup.toml").write_text(SCENARIO.replace("NAME", "[/x]").replace("LS", "0.3"))
    (d / "colour.toml").write_text(SCENARIO.replace("NAME", "[bold red]x").replace("LS", "0.3"))
    (d / "tiny_ls.toml").write_text(SCENARIO.replace("NAME", "tiny").replace("LS", "1e-300"))
    (d / "a_dir.toml").mkdir()
    os.mkfifo(d / "fifo.toml")
    (d / "zero.toml").symlink_to("/dev/zero")
    (d / "dangling.toml").symlink_to(d / "absent")
    (d / "pol.py").write_text(POLICIES)
    (d / "raises.py").write_text("raise RuntimeError('boom')\nclass P: pass\n")
    (d / "cfg_runs_float.toml").write_text('theorem = "pe_gp_ucb"\nruns = 2.5\n')
    (d / "cfg_unknown.toml").write_text('theorem = "pe_gp_ucb"\nfrobnicate = 1\n')
    (d / "cfg_inf.toml").write_text('theorem = "pe_gp_ucb"\ndelta = inf\n')
    (d / "cfg_huge_runs.toml").write_text('theorem = "pe_gp_ucb"\nruns = 9223372036854775807\n')
    (d / "a_file").write_text("x")
    (d / "report_dir").mkdir()
    (d / "report_dir" / "index.html").write_text("<p>mine</p>")


PE = ["verify", "--theorem", "pe_gp_ucb", "--horizon", "5", "--runs", "2", "--jobs", "1", "--no-report"]
PW = ["power", "--theorem", "pe_gp_ucb", "--horizon", "5", "--runs", "2", "--jobs", "1"]
SW = ["sweep", "--theorem", "pe_gp_ucb", "--horizon", "5", "--runs", "2", "--jobs", "1", "--no-report"]
GA = ["gamma", "--kernel", "rbf", "--horizon", "10"]
RP = ["reproduce", "pe_gp_ucb", "--no-report", "--jobs", "1"]

# (id, argv, exit code, a fragment of the one line)
CASES = [
    # --- numbers: overflow, non-ASCII digits, underscores, out of range --------------------------------------
    ("runs-1e400", PE + ["--runs", "1e400"], 2, "runs"),
    ("horizon-1e400", PE + ["--horizon", "1e400"], 2, "horizon"),
    ("max-runs-1e400", PE + ["--until-conclusive", "--max-runs", "1e400"], 2, "max runs"),
    ("runs-10^400", PE + ["--runs", "10^400"], 2, "runs"),
    ("runs-2^63", PE + ["--runs", "2^63"], 2, "runs"),
    ("runs-fullwidth", PE + ["--runs", "５"], 2, "not an integer"),
    ("runs-arabic-indic", PE + ["--runs", "٣"], 2, "not an integer"),
    ("runs-underscore-odd", PE + ["--runs", "1_0"], 2, "not an integer"),
    ("runs-underscore-trailing", PE + ["--runs", "100_"], 2, "not an integer"),
    ("runs-empty", PE + ["--runs", ""], 2, "not an integer"),
    ("runs-zero", PE + ["--runs", "0"], 2, "runs"),
    ("runs-negative", PE + ["--runs", "-3"], 2, "runs"),
    ("runs-fraction", PE + ["--runs", "2.5"], 2, "not an integer"),
    ("runs-hex", PE + ["--runs", "0x10"], 2, "not an integer"),
    ("runs-nan", PE + ["--runs", "nan"], 2, "not an integer"),
    ("runs-1e9-refused", PE + ["--runs", "1e9"], 2, "refusing to start"),
    ("horizon-1e9-refused", PE + ["--horizon", "1e9"], 2, "refusing to start"),
    ("horizon-zero", PE + ["--horizon", "0"], 2, "horizon"),
    ("delta-subnormal", PE + ["--delta", "5e-324"], 2, "not finite"),
    ("delta-zero", PE + ["--delta", "0"], 2, "delta"),
    ("delta-one", PE + ["--delta", "1"], 2, "delta"),
    ("delta-nan", PE + ["--delta", "nan"], 2, "delta"),
    ("delta-inf", PE + ["--delta", "inf"], 2, "delta"),
    ("delta-1e400", PE + ["--delta", "1e400"], 2, "delta"),
    ("seed-negative", PE + ["--seed", "-1"], 2, "seed"),
    ("seed-2^63", PE + ["--seed", "2^63"], 2, "seed"),
    ("beta-zero", PE + ["--beta-scale", "0"], 2, "beta scale"),
    ("beta-inf", PE + ["--beta-scale", "inf"], 2, "beta scale"),
    ("beta-huge", PE + ["--beta-scale", "1e308", "--allow-out-of-theory"], 2, "not finite"),
    ("false-alarm-zero", PE + ["--false-alarm", "0"], 2, "false-alarm"),
    ("false-alarm-nan", PE + ["--false-alarm", "nan"], 2, "false-alarm"),
    ("jobs-zero", PE + ["--jobs", "0"], 2, "jobs"),
    ("jobs-minus-two", PE + ["--jobs", "-2"], 2, "jobs"),
    ("jobs-1e400", PE + ["--jobs", "1e400"], 2, "jobs"),
    ("jobs-runs-zero", PE + ["--jobs", "6", "--runs", "0"], 2, "runs"),
    ("max-memory-zero", PE + ["--max-memory", "0"], 2, "max-memory"),
    ("max-memory-word", PE + ["--max-memory", "lots"], 2, "max-memory"),
    ("max-memory-1e400", PE + ["--max-memory", "1e400"], 2, "max-memory"),
    ("max-memory-negative", PE + ["--max-memory", "-5G"], 2, "max-memory"),
    ("max-memory-tiny", PE + ["--max-memory", "1K"], 2, "refusing to start"),
    ("max-runs-alone", PE + ["--max-runs", "100"], 2, "until-conclusive"),
    ("scheduler-no-dask", PE + ["--scheduler", "tcp://x:1"], 2, "dask"),
    # --- names: unknown, markup ---------------------------------------------------------------------------------
    ("theorem-markup", ["verify", "--theorem", "[/x]"], 2, "unknown theorem"),
    ("theorem-colour", ["show", "[bold red]x"], 2, "unknown theorem"),
    ("scenario-markup-name", PE + ["--scenario", "[/x]"], 2, "scenario"),
    ("defect-markup", PE + ["--defect", "[/x]"], 2, "defect"),
    ("no-theorem", ["verify", "--runs", "2"], 2, "needs --theorem"),
    ("scenario-file-markup-show", ["scenario", "show", "{in}/markup.toml"], 0, None),
    ("scenario-file-colour-validate", ["scenario", "validate", "{in}/colour.toml"], 0, None),
    # --- files: deep, huge, special, undecodable ---------------------------------------------------------------
    ("scenario-deep-array", PE + ["--scenario", "{in}/deep_array.toml"], 2, "nested too deeply"),
    ("scenario-deep-table", PE + ["--scenario", "{in}/deep_table.toml"], 2, "nested too deeply"),
    ("validate-deep-array", ["scenario", "validate", "{in}/deep_array.toml"], 2, "nested too deeply"),
    ("validate-deep-table", ["scenario", "show", "{in}/deep_table.toml"], 2, "nested too deeply"),
    ("scenario-huge", ["scenario", "validate", "{in}/huge.toml"], 2, "too large"),
    ("scenario-latin1", ["scenario", "validate", "{in}/latin1.toml"], 2, "UTF-8"),
    ("scenario-empty", ["scenario", "validate", "{in}/empty.toml"], 2, "empty.toml"),
    ("scenario-directory", PE + ["--scenario", "{in}/a_dir.toml"], 2, "is a directory"),
    ("scenario-fifo", ["scenario", "validate", "{in}/fifo.toml"], 2, "not a regular file"),
    ("scenario-dev-zero", PE + ["--scenario", "{in}/zero.toml"], 2, "not a regular file"),
    ("scenario-dangling", ["scenario", "show", "{in}/dangling.toml"], 2, "not found"),
    ("scenario-absent", PE + ["--scenario", "{in}/absent.toml"], 2, "not found"),
    ("scenario-tiny-lengthscale", ["scenario", "validate", "{in}/tiny_ls.toml"], 2, "lengthscale"),
    ("config-deep", ["verify", "--config", "{in}/deep_config.toml"], 2, "nested too deeply"),
    ("config-huge", ["verify", "--config", "{in}/huge.toml"], 2, "too large"),
    ("config-directory", ["verify", "--config", "{in}/a_dir.toml"], 2, "is a directory"),
    ("config-fifo", ["verify", "--config", "{in}/fifo.toml"], 2, "not a regular file"),
    ("config-dev-zero", ["verify", "--config", "{in}/zero.toml"], 2, "not a regular file"),
    ("config-absent", ["verify", "--config", "{in}/absent.toml"], 2, "not found"),
    ("config-runs-float", ["verify", "--config", "{in}/cfg_runs_float.toml"], 2, "runs must be an integer"),
    ("config-unknown-key", ["verify", "--config", "{in}/cfg_unknown.toml"], 2, "unknown key"),
    ("config-delta-inf", ["verify", "--config", "{in}/cfg_inf.toml"], 2, "delta"),
    ("config-huge-runs", ["verify", "--config", "{in}/cfg_huge_runs.toml", "--no-report"], 2, "refusing to start"),
    ("config-latin1", ["verify", "--config", "{in}/latin1.toml"], 2, "UTF-8"),
    # --- policy files that do not follow the protocol ------------------------------------------------------------
    ("algorithm-no-ask", PE + ["--algorithm", "{in}/pol.py:NoAsk"], 2, "ask"),
    ("algorithm-not-a-class", PE + ["--algorithm", "{in}/pol.py:NotAClass"], 2, "NotAClass"),
    ("algorithm-missing-name", PE + ["--algorithm", "{in}/pol.py:Missing"], 2, "Missing"),
    ("algorithm-missing-file", PE + ["--algorithm", "{in}/absent.py:P"], 2, "not found"),
    ("algorithm-directory", PE + ["--algorithm", "{in}/a_dir.toml/x.py:P"], 2, "not found"),
    ("algorithm-no-colon", PE + ["--algorithm", "{in}/pol.py"], 2, "unknown algorithm"),
    ("algorithm-raises", PE + ["--algorithm", "{in}/raises.py:P"], 2, "failed to import"),
    ("algorithm-bad-module", PE + ["--algorithm", "no_such_module_xyz:P"], 2, "cannot import"),
    ("theorem-file-missing", ["verify", "--theorem", "{in}/absent.py:T"], 2, "not found"),
    ("theorem-file-not-theorem", ["show", "{in}/pol.py:NoAsk"], 2, "NoAsk"),
    # --- output folders -----------------------------------------------------------------------------------------
    ("out-is-file", PE[:-1] + ["--out", "{in}/a_file"], 2, "not a directory"),
    ("out-under-file", PE[:-1] + ["--out", "{in}/a_file/sub"], 2, "not a directory"),
    ("out-empty", PE[:-1] + ["--out", ""], 2, "--out"),
    ("out-foreign-report", PE[:-1] + ["--out", "{in}/report_dir"], 2, "index.html"),
    ("report-absent", ["report", "{in}/absent"], 2, "absent"),
    ("report-file", ["report", "{in}/a_file"], 2, "a_file"),
    ("report-empty-dir", ["report", "{in}/a_dir.toml"], 2, "a_dir.toml"),
    # --- argument shapes ------------------------------------------------------------------------------------------
    ("no-command", [], 2, "COMMAND"),
    ("unknown-command", ["frobnicate"], 2, "invalid choice"),
    ("list-extra", ["list", "extra"], 2, "unrecognized"),
    ("scenario-list-extra", ["scenario", "list", "extra"], 2, "extra"),
    ("scenario-show-nothing", ["scenario", "show"], 2, "needs a FILE"),
    ("scenario-bad-action", ["scenario", "frob"], 2, "invalid choice"),
    ("scenario-unknown", ["scenario", "show", "no_such_scenario"], 2, "unknown scenario"),
    # --- bound --------------------------------------------------------------------------------------------------
    ("bound-unknown", ["bound", "nope"], 2, "unknown theorem"),
    ("bound-inf", ["bound", "gp_ucb", "--set", "T=1e400"], 2, "finite"),
    ("bound-nan", ["bound", "gp_ucb", "--set", "T=nan"], 2, "finite"),
    ("bound-malformed", ["bound", "gp_ucb", "--set", "=3"], 2, "malformed"),
    ("bound-delta-subnormal", ["bound", "gp_ucb", "--set", "T=10", "--set", "delta=5e-324", "--set", "n_X=10",
                               "--set", "gamma_T=3", "--set", "R=0.1"], 2, "not a finite number"),
    ("bound-overflow", ["bound", "gp_ucb", "--set", "T=1e300", "--set", "delta=0.1", "--set", "n_X=1e300",
                        "--set", "gamma_T=1e300", "--set", "R=1e300"], 2, "too large"),
    # --- gamma ----------------------------------------------------------------------------------------------------
    ("gamma-horizon-1e400", GA[:-1] + ["1e400"], 2, "horizon"),
    ("gamma-horizon-zero", GA[:-1] + ["0"], 2, "horizon"),
    ("gamma-grid-1e400", GA + ["--grid", "1e400"], 2, "grid"),
    ("gamma-dim-1e400", GA + ["--dim", "1e400"], 2, "dim"),
    ("gamma-grid-huge", GA + ["--grid", "100000", "--dim", "3"], 2, "refusing to start"),
    ("gamma-horizon-huge", GA[:-1] + ["1e9"], 2, "refusing to start"),
    ("gamma-max-memory", GA + ["--max-memory", "1K"], 2, "refusing to start"),
    ("gamma-lengthscale-tiny", GA + ["--lengthscale", "1e-300"], 2, "lengthscale"),
    ("gamma-lengthscale-nan", GA + ["--lengthscale", "nan"], 2, "lengthscale"),
    ("gamma-noise-zero", GA + ["--noise", "0"], 2, "noise"),
    ("gamma-eps-one", GA + ["--eps", "1"], 2, "eps"),
    ("gamma-batch-zero", GA + ["--batch", "0"], 2, "batch"),
    ("gamma-kernel", ["gamma", "--kernel", "[/x]", "--horizon", "5"], 2, "invalid choice"),
    # --- power ----------------------------------------------------------------------------------------------------
    ("power-runs-1e400", PW + ["--runs", "1e400"], 2, "runs"),
    ("power-runs-1e9", PW + ["--runs", "1e9"], 2, "refusing to start"),
    ("power-max-memory", PW + ["--max-memory", "1K"], 2, "refusing to start"),
    ("power-subsets-zero", PW + ["--subsets", "0"], 2, "subsets"),
    ("power-subsets-1e400", PW + ["--subsets", "1e400"], 2, "subsets"),
    ("power-defect-unknown", PW + ["--defect", "nope"], 2, "defect"),
    ("power-jobs-zero", PW + ["--jobs", "0"], 2, "jobs"),
    ("power-delta", PW + ["--delta", "5e-324"], 2, "not finite"),
    ("power-out-file", PW + ["--out", "{in}/a_file"], 2, "not a directory"),
    # --- sweep ----------------------------------------------------------------------------------------------------
    ("sweep-unknown-param", SW + ["--vary", "frob=1,2"], 2, "frob"),
    ("sweep-empty-values", SW + ["--vary", "horizon="], 2, "horizon"),
    ("sweep-runs-zero", SW + ["--vary", "runs=0,1"], 2, "runs"),
    ("sweep-horizon-1e400", SW + ["--vary", "horizon=1e400"], 2, "horizon"),
    ("sweep-million-cells", SW + ["--vary", "seed=" + ",".join(map(str, range(1000))),
                                  "--vary", "delta=" + ",".join(f"0.{i:04d}1" for i in range(1000))], 2, "cells"),
    ("sweep-max-memory", SW + ["--vary", "seed=1,2", "--max-memory", "1K"], 2, "refusing to start"),
    ("sweep-runs-1e9", SW + ["--vary", "seed=1,2", "--runs", "1e9"], 2, "refusing to start"),
    ("sweep-delta", SW + ["--vary", "delta=0.1,5e-324"], 2, "not finite"),
    ("sweep-config-absent", SW + ["--vary", "seed=1,2", "--config", "{in}/absent.toml"], 2, "not found"),
    ("sweep-max-runs-alone", SW + ["--vary", "seed=1,2", "--max-runs", "100"], 2, "until-conclusive"),
    ("sweep-foreign-page", SW[:-1] + ["--vary", "seed=1,2", "--out", "{in}/report_dir"], 2, "index.html"),
    ("sweep-algorithm-no-ask", SW + ["--vary", "seed=1,2", "--algorithm", "{in}/pol.py:NoAsk"], 2, "ask"),
    ("sweep-cells-over-limit", SW + ["--vary", "seed=" + ",".join(map(str, range(101))),
                                     "--vary", "runs=" + ",".join(map(str, range(2, 102)))], 2, "10000"),
    ("sweep-defect-unknown", SW + ["--vary", "seed=1,2", "--defect", "nope"], 2, "defect"),
    # --- reproduce ------------------------------------------------------------------------------------------------
    ("reproduce-unknown", ["reproduce", "nope"], 2, "unknown paper"),
    ("reproduce-markup", ["reproduce", "[/x]"], 2, "unknown paper"),
    ("reproduce-experiment", RP + ["--experiment", "nope"], 2, "experiment"),
    ("reproduce-runs-zero", RP + ["--runs", "0"], 2, "runs"),
    ("reproduce-runs-1e400", RP + ["--runs", "1e400"], 2, "runs"),
    ("reproduce-runs-1e9", RP + ["--runs", "1e9"], 2, "refusing to start"),
    ("reproduce-max-memory", RP + ["--max-memory", "1K"], 2, "refusing to start"),
    ("reproduce-false-alarm", RP + ["--false-alarm", "2"], 2, "false-alarm"),
    ("reproduce-explore-runs", RP + ["--explore", "--explore-runs", "0"], 2, "explore"),
    # the explored grid is sized with the panels, before anything runs: its 288 cells and their confirmations
    # need more than the toy panel alone (≈ 0.5 GiB with --jobs 1)
    ("reproduce-explore-max-memory", RP + ["--experiment", "toy", "--explore", "--max-memory", "1G"], 2,
     "toy: --explore (288 cells × 30 runs"),
    ("reproduce-explore-runs-1e9", RP + ["--experiment", "toy", "--explore", "--explore-runs", "1e9"], 2,
     "refusing to start; lower --explore-runs"),
    ("reproduce-explore-runs-1e400", RP + ["--experiment", "toy", "--explore", "--explore-runs", "1e400"], 2,
     "explore runs"),
    ("reproduce-explore-runs-fullwidth", RP + ["--experiment", "toy", "--explore", "--explore-runs", "３０"], 2,
     "not an integer"),
    ("reproduce-explore-jobs-huge", RP[:-2] + ["--experiment", "toy", "--explore", "--explore-runs", "1e7",
                                               "--jobs", "4096"], 2, "cells in flight"),
    # --- store check | repair: only results folders --------------------------------------------------------
    ("store-check-a-file", ["store", "check", "{in}/a_file"], 2, "a_file"),
    ("store-check-missing", ["store", "check", "{in}/absent"], 2, "absent"),
    ("store-repair-not-a-store", ["store", "repair", "{in}/report_dir"], 2, "report_dir"),
    ("store-repair-a-fifo", ["store", "repair", "{in}/fifo.toml"], 2, "fifo.toml"),
    ("store-unknown-action", ["store", "fix", "{in}/report_dir"], 2, "fix"),
]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """The input files, written once (the cases only read them: each checks they are unchanged)."""
    d = tmp_path_factory.mktemp("hostile") / "in"
    _files(d)
    return d


@pytest.fixture
def place(tmp_path, monkeypatch, inputs):
    """A working folder (the current directory, must stay empty) and the input files (``{in}``)."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("BOUNDCHECK_LOG_DIR", str(tmp_path / "logs"))
    return work, inputs


def _without_progress(err: str) -> str:
    """stderr without the plain progress lines a command prints every few seconds without a terminal (a loaded
    machine can take that long over even a small study)."""
    import re

    return "".join(line for line in err.splitlines(keepends=True)
                   if not re.fullmatch(r"boundcheck: [^\n]*(chunks stored|of the run-steps)[^\n]* \[\d+ s\]\n?", line))


def _snapshot(d: Path) -> set[str]:
    return {str(p.relative_to(d)) for p in d.rglob("*")}


@pytest.mark.parametrize("argv, code, fragment", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_hostile_case(argv, code, fragment, place, capsys):
    work, inputs = place
    before = _snapshot(inputs)
    argv = [a.replace("{in}", str(inputs)) for a in argv]
    rc = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err + out
    assert rc == code, err
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("boundcheck: error: "), err
        assert fragment in err, err
    else:
        assert "error" not in err, err
    assert not (work.parent / "logs").exists(), "an internal error was logged"
    assert _snapshot(work) == set(), "something was left behind"
    assert _snapshot(inputs) == before


def test_markup_in_a_scenario_name_is_printed_literally(place, capsys):
    _, inputs = place
    assert main(["scenario", "show", str(inputs / "colour.toml")]) == 0
    assert "[bold red]x" in capsys.readouterr().out


# --------------------------------------------------------------------------------- cases that need a process
def _boundcheck(*argv: str, env: dict | None = None, cwd: Path | None = None, **kwargs) -> subprocess.Popen:
    full = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.Popen([sys.executable, "-m", "boundcheck", *argv], env=full, cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)


@pytest.mark.parametrize("variable", ["BOUNDCHECK_POSTERIOR_ARITHMETIC", "BOUNDCHECK_POSTERIOR_REPRESENTATION"])
@pytest.mark.parametrize("command", [PE, GA])
def test_unknown_environment_values_are_refused(variable, command, tmp_path):
    proc = _boundcheck(*command, env={variable: "bogus"}, cwd=tmp_path)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2, err
    assert err.count("\n") == 1 and variable in err and "bogus" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def _descendants(pid: int) -> set[int]:
    found, todo = set(), [pid]
    while todo:
        p = todo.pop()
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                kids = (task / "children").read_text().split()
            except OSError:
                continue
            for k in map(int, kids):
                if k not in found:
                    found.add(k)
                    todo.append(k)
    return found


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="counts processes through /proc")
def test_jobs_far_above_the_machine_starts_no_more_workers_than_cores(tmp_path):
    """``--jobs 4000`` is capped at the cores and at the study's chunks (2 runs: one chunk, no worker at all), with
    a one-line note; ``--jobs 6 --runs 0`` is refused before any worker starts."""
    import time

    proc = _boundcheck("verify", "--theorem", "pe_gp_ucb", "--runs", "2", "--horizon", "5", "--jobs", "4000",
                       "--no-report", cwd=tmp_path)
    most = 0
    while proc.poll() is None:
        most = max(most, len(_descendants(proc.pid)))
        time.sleep(0.05)
    out, err = proc.communicate()
    err = _without_progress(err)
    assert proc.returncode == 0, err
    assert most <= (os.cpu_count() or 1), most
    assert "capped" not in err and "more than this machine" in err and err.count("\n") == 1
    proc = _boundcheck("verify", "--theorem", "pe_gp_ucb", "--runs", "0", "--jobs", "6", cwd=tmp_path)
    most = 0
    while proc.poll() is None:
        most = max(most, len(_descendants(proc.pid)))
        time.sleep(0.02)
    _, err = proc.communicate()
    assert proc.returncode == 2 and most == 0 and err.count("\n") == 1


# --------------------------------------------------------------------------------- disk full
def test_disk_full_is_one_line_and_a_rerun_resumes(place, capsys, monkeypatch):
    from boundcheck.study.store import ResultStore

    work, _ = place
    real = ResultStore.write_chunks
    calls = []

    def full(self, items):
        calls.append(1)
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, "No space left on device", str(self.root / "chunk.tmp"))
        return real(self, items)

    monkeypatch.setattr(ResultStore, "write_chunks", full)
    argv = ["verify", "--theorem", "pe_gp_ucb", "--runs", "60", "--horizon", "5", "--jobs", "1", "--no-report",
            "--out", "o"]
    assert main(argv) == 2
    err = _without_progress(capsys.readouterr().err)
    assert err.count("\n") == 1 and "no space left" in err and "resume" in err and "results" in err, err
    assert not (work.parent / "logs").exists()
    monkeypatch.setattr(ResultStore, "write_chunks", real)
    assert main(argv) == 0
    capsys.readouterr()


# --------------------------------------------------------------------------------- help and progress
@pytest.mark.parametrize("command, codes", [
    ("list", ["0 ", "2 ", "4 "]), ("show", ["0 ", "2 "]), ("bound", ["0 ", "2 "]), ("gamma", ["0 ", "2 "]),
    ("scenario", ["0 ", "2 "]), ("report", ["0 ", "2 "]), ("verify", ["0 ", "1 ", "2 ", "3 ", "4 "]),
    ("sweep", ["0 ", "1 ", "2 ", "3 "]), ("power", ["0 ", "2 ", "3 "]), ("reproduce", ["0 ", "1 ", "2 "])])
def test_each_subcommand_lists_its_own_exit_codes(command, codes, capsys):
    assert main([command, "--help"]) == 0
    text = capsys.readouterr().out
    listed = [line.strip()[:2] for line in text.split("exit codes:")[1].splitlines() if line[:3] == "  " + line[2:3]
              and line.strip()[:1].isdigit()]
    for c in codes:
        assert c in listed, (command, listed)
    if command in ("list", "show", "bound", "gamma", "scenario", "report"):
        assert "1 " not in listed and "3 " not in listed
    if command == "reproduce":
        assert "not reproduced" in text and "pe_gp_ucb" in text and "toy" in text and "..." not in text


def test_sweep_takes_verifys_options(capsys):
    assert main(["sweep", "--help"]) == 0
    text = capsys.readouterr().out
    for flag in ("--max-memory", "--config", "--until-conclusive", "--max-runs", "--defect"):
        assert flag in text


def test_sweep_says_how_many_cells_and_how_long_the_first_took(place, capsys):
    assert main(SW + ["--vary", "seed=1,2", "--out", "s"]) == 0
    err = capsys.readouterr().err
    assert "2 cells" in err and "the first cell took" in err


def test_progress_without_a_terminal_is_plain_lines(place, capsys, monkeypatch):
    from boundcheck.cli import render

    monkeypatch.setattr(render, "PLAIN_PROGRESS_EVERY", 0.0)
    assert main(["verify", "--theorem", "pe_gp_ucb", "--runs", "50", "--horizon", "5", "--jobs", "1",
                 "--no-report"]) == 0
    err = capsys.readouterr().err
    lines = [x for x in err.splitlines() if x]
    assert lines and all(x.startswith("boundcheck: pe_gp_ucb: ") for x in lines), err
    assert any("chunks stored" in x for x in lines)


def test_a_study_named_with_markup_is_printed_literally(place, capsys):
    """A scenario named ``[/x] [bold red]y`` (rich markup) runs, and its name is printed as written (rich parsed
    it: a crash after the results were stored, or silent colour)."""
    work, inputs = place
    (work.parent / "m.toml").write_text(SCENARIO.replace("NAME", "[/x] [bold red]y").replace("LS", "0.3"))
    rc = main(["verify", "--theorem", "gp_ucb", "--scenario", str(work.parent / "m.toml"), "--runs", "2",
               "--horizon", "5", "--jobs", "1", "--no-report", "--out", str(work.parent / "o")])
    out, err = capsys.readouterr()
    assert rc in (0, 1), err
    assert "on [/x] [bold red]y" in out and "error" not in err
