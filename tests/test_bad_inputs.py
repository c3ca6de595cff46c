"""Issue 13: every bad input, across every subcommand and the config file, ends in one line on stderr with the
one prefix, exit code 2, no traceback, and nothing left behind (no results folder, no reports/). Most cases run
in-process through ``boundcheck.cli.main``; a few go through a real subprocess. An unexpected exception ends in
exit code 4 with the traceback in a log file."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from boundcheck.cli import main

ROOT = Path(__file__).resolve().parents[1]

V = ["verify", "--theorem", "gp_ucb", "--runs", "2", "--horizon", "5", "--jobs", "1", "--out", "o"]
PE = ["bound", "pe_gp_ucb", "--set", "T=60", "--set", "delta=0.1", "--set", "R=0.1", "--set", "n_X=50",
      "--set", "n_U=11", "--set", "gamma_T=187"]
G = ["gamma", "--kernel", "rbf"]


def _ts(**kw):
    vals = {"T": "100", "delta": "0.1", "R": "0.1", "n_X": "10", "B": "1", "gamma_T": "5"} | kw
    return ["bound", "gp_ts"] + [a for k, v in vals.items() for a in ("--set", f"{k}={v}")]


def _cfg(text: str):
    return {"c.toml": text}


# (id, argv, files to create first, fragment of the message)
CASES = [
    # ------------------------------------------------------------------ the command line itself
    ("no command", [], {}, "required: COMMAND"),
    ("unknown command", ["frobnicate"], {}, "invalid choice"),
    ("list extra argument", ["list", "extra"], {}, "unrecognized arguments"),
    ("list unknown flag", ["list", "--jsn"], {}, "unrecognized arguments"),
    # ------------------------------------------------------------------ show
    ("show unknown theorem", ["show", "nope"], {}, "unknown theorem"),
    ("show no theorem", ["show"], {}, "show needs --theorem"),
    ("bound two theorems", ["bound", "gp_ucb", "--theorem", "pe_gp_ucb"], {}, "two theorems"),
    # ------------------------------------------------------------------ bound
    ("bound unknown theorem", ["bound", "nope", "--set", "T=1"], {}, "unknown theorem"),
    ("bound B negative", _ts(B="-1"), {}, "B (RKHS norm bound"),
    ("bound B zero", _ts(B="0"), {}, "must be a number > 0"),
    ("bound gamma_T negative", _ts(gamma_T="-5"), {}, "gamma_T"),
    ("bound fractional horizon", _ts(T="100.5"), {}, "must be an integer ≥ 1"),
    ("bound fractional domain size", _ts(n_X="2.5"), {}, "n_X"),
    ("bound zero domain size", _ts(n_X="0"), {}, "n_X"),
    ("bound delta one", _ts(delta="1"), {}, "must be a number in (0, 1)"),
    ("bound delta zero", _ts(delta="0"), {}, "delta"),
    ("bound R zero", _ts(R="0"), {}, "R ("),
    ("bound overflow", _ts(T="1e300", n_X="1e300", gamma_T="1e300"), {}, "overflow"),
    ("bound infinite", _ts(T="inf"), {}, "must be finite"),
    ("bound nan", _ts(B="nan"), {}, "must be finite"),
    ("bound set without value", ["bound", "gp_ts", "--set", "T"], {}, "expected NAME=VALUE"),
    ("bound set without name", ["bound", "gp_ts", "--set", "=3"], {}, "expected NAME=VALUE"),
    ("bound set not a number", ["bound", "gp_ts", "--set", "T=abc"], {}, "is not a number"),
    ("bound unknown symbol", _ts(foo="1"), {}, "unknown symbol"),
    ("bound missing symbols", ["bound", "gp_ts", "--set", "T=10"], {}, "missing --set"),
    ("bound symbol twice", _ts() + ["--set", "T=7"], {}, "given twice"),
    ("bound mu_max negative", PE + ["--set", "mu_max=-1"], {}, "mu_max"),
    ("bound fractional prior count", PE[:-4] + ["--set", "n_U=1.5", "--set", "gamma_T=1", "--set", "mu_max=0"], {},
     "n_U"),
    # ------------------------------------------------------------------ gamma
    ("gamma no kernel", ["gamma", "--horizon", "10"], {}, "required: --kernel"),
    ("gamma unknown kernel", ["gamma", "--kernel", "foo", "--horizon", "10"], {}, "invalid choice"),
    ("gamma no horizon", G, {}, "required: --horizon"),
    ("gamma horizon zero", G + ["--horizon", "0"], {}, "--horizon must be at least 1"),
    ("gamma horizon negative", G + ["--horizon", "-5"], {}, "--horizon must be at least 1"),
    ("gamma horizon fractional", G + ["--horizon", "2.5"], {}, "is not an integer"),
    ("gamma horizon 1e9", G + ["--horizon", "1000000000"], {}, "refusing to start"),
    ("gamma lengthscale zero", G + ["--horizon", "10", "--lengthscale", "0"], {}, "--lengthscale must be a positive"),
    ("gamma lengthscale nan", G + ["--horizon", "10", "--lengthscale", "nan"], {}, "finite"),
    ("gamma noise negative", G + ["--horizon", "10", "--noise", "-1"], {}, "--noise"),
    ("gamma eps above one", G + ["--horizon", "10", "--eps", "1.5"], {}, "--eps must lie in [0, 1]"),
    ("gamma eps one", G + ["--horizon", "10", "--eps", "1"], {}, "--eps must be below 1"),
    ("gamma eps negative", G + ["--horizon", "10", "--eps", "-0.1"], {}, "--eps"),
    ("gamma grid zero", G + ["--horizon", "10", "--grid", "0"], {}, "--grid must be at least 1"),
    ("gamma dim zero", G + ["--horizon", "10", "--dim", "0"], {}, "--dim must be at least 1"),
    ("gamma grid too large", G + ["--horizon", "10", "--grid", "100", "--dim", "3"], {}, "refusing to start"),
    ("gamma batch zero", G + ["--horizon", "10", "--batch", "0"], {}, "--batch must be at least 1"),
    ("gamma max-memory tiny", G + ["--horizon", "10", "--max-memory", "1K"], {}, "--max-memory allows 1 KiB"),
    ("gamma max-memory malformed", G + ["--horizon", "10", "--max-memory", "lots"], {}, "a size such as"),
    # ------------------------------------------------------------------ verify: flags
    ("verify no theorem", ["verify", "--runs", "2"], {}, "verify needs --theorem"),
    ("verify unknown theorem", ["verify", "--theorem", "nope"], {}, "unknown theorem"),
    ("verify unknown scenario", V + ["--scenario", "nope"], {}, "unknown scenario"),
    ("verify theorem on a scenario of another family", V[:2] + ["pe_gp_ucb", "--scenario", "rkhs_paper"] + V[3:],
     {}, "cannot be checked on scenario 'rkhs_paper'"),
    # (without --allow-out-of-theory it is not applicable first: exit 3, tests/test_kernelized.py)
    ("verify RKHS theorem on a GP scenario", V[:2] + ["igp_ucb", "--scenario", "pe_toy", "--allow-out-of-theory"]
     + V[3:], {}, "gives no RKHS norm bound B"),
    ("verify runs zero", V + ["--runs", "0"], {}, "runs must be at least 1"),
    ("verify runs negative", V + ["--runs", "-3"], {}, "runs must be at least 1"),
    ("verify runs fractional", V + ["--runs", "2.5"], {}, "is not an integer"),
    ("verify runs 10^12", V + ["--runs", "10^12"], {}, "refusing to start"),
    ("verify horizon zero", V + ["--horizon", "0"], {}, "horizon must be at least 1"),
    ("verify horizon 1e9", V + ["--horizon", "1e9"], {}, "refusing to start"),
    ("verify delta zero", V + ["--delta", "0"], {}, "delta must lie in (0, 1)"),
    ("verify delta above one", V + ["--delta", "1.5"], {}, "delta must lie in (0, 1)"),
    ("verify delta nan", V + ["--delta", "nan"], {}, "finite"),
    ("verify seed negative", V + ["--seed", "-1"], {}, "seed must be at least 0"),
    ("verify seed huge", V + ["--seed", "100000000000000000000000"], {}, "seed must be at most"),
    ("verify jobs zero", V + ["--jobs", "0"], {}, "positive number of workers or -1"),
    ("verify jobs minus two", V + ["--jobs", "-2"], {}, "positive number of workers or -1"),
    ("verify unknown backend", V + ["--backend", "mpi"], {}, "invalid choice"),
    ("verify scheduler without dask", V + ["--scheduler", "tcp://127.0.0.1:1"], {}, "needs --backend dask"),
    ("verify out empty", V + ["--out", ""], {}, "--out must name a directory"),
    ("verify out is a file", V + ["--out", "afile"], {"afile": "x"}, "exists and is not a directory"),
    ("verify out under a file", V + ["--out", "afile/sub"], {"afile": "x"}, "is not a directory"),
    ("verify out unwritable", V + ["--out", "/proc/boundcheck-nope/x"], {}, "is not writable"),
    ("verify beta-scale zero", V + ["--beta-scale", "0"], {}, "beta scale must be a positive"),
    ("verify beta-scale negative", V + ["--beta-scale", "-1"], {}, "beta scale"),
    ("verify max-memory tiny", V + ["--max-memory", "1M"], {}, "--max-memory allows 1 MiB"),
    ("verify max-memory malformed", V + ["--max-memory=-4G"], {}, "a size such as"),
    ("verify results of another configuration", V + ["--seed", "1"], {"o/results/manifest.json": json.dumps(
        {"config_key": "other", "config": {"seed": 0}, "chunks": {}})}, "holds results of a different configuration"),
    ("verify foreign chunks without manifest", V, {"o/results/chunks/runs-00000.parquet": "x"}, "no manifest.json"),
    ("verify corrupt manifest", V, {"o/results/manifest.json": "{not json"}, "corrupt manifest"),
    # ------------------------------------------------------------------ verify: the verdict layer (issue 10)
    ("verify false-alarm zero", V + ["--false-alarm", "0"], {}, "false-alarm budget must lie in (0, 1)"),
    ("verify false-alarm one", V + ["--false-alarm", "1"], {}, "false-alarm budget must lie in (0, 1)"),
    ("verify max-runs below a chunk", V + ["--until-conclusive", "--max-runs", "10"], {}, "smaller than one chunk"),
    ("verify max-runs alone", V + ["--max-runs", "100"], {}, "--max-runs needs --until-conclusive"),
    ("verify unknown defect", V + ["--defect", "nope"], {}, "unknown defect 'nope'"),
    ("verify defect of another theorem", V + ["--defect", "ts_scale_small"], {}, "does not apply to gp_ucb"),
    ("config false_alarm string", ["verify", "--config", "c.toml"], _cfg('theorem = "gp_ucb"\nfalse_alarm = "0.01"'),
     "false_alarm must be a number"),
    ("config until_conclusive string", ["verify", "--config", "c.toml"],
     _cfg('theorem = "gp_ucb"\nuntil_conclusive = "yes"'), "until_conclusive must be true or false"),
    # ------------------------------------------------------------------ power
    ("power unknown theorem", ["power", "--theorem", "nope"], {}, "unknown theorem"),
    ("power unknown defect", ["power", "--theorem", "gp_ucb", "--defect", "nope", "--out", "o"], {},
     "unknown defect 'nope'"),
    ("power false-alarm above one", ["power", "--theorem", "gp_ucb", "--false-alarm", "1.5", "--out", "o"], {},
     "false-alarm budget must lie in (0, 1)"),
    ("power runs zero", ["power", "--theorem", "gp_ucb", "--runs", "0", "--out", "o"], {}, "runs must be at least 1"),
    # ------------------------------------------------------------------ verify: the config file
    ("config not found", ["verify", "--config", "missing.toml"], {}, "not found"),
    ("config is a directory", ["verify", "--config", "cdir"], {"cdir/x": ""}, "is not a file"),
    ("config malformed TOML", ["verify", "--config", "c.toml"], _cfg("runs = [unclosed"), "malformed config"),
    ("config not UTF-8", ["verify", "--config", "c.toml"], {"c.toml": b"runs = \xff\xfe"}, "malformed config"),
    ("config unknown key", ["verify", "--config", "c.toml"], _cfg('theorem = "gp_ucb"\nbogus = 1'), "unknown key"),
    ("config runs fractional", ["verify", "--config", "c.toml"], _cfg('theorem = "gp_ucb"\nruns = 2.9'),
     "runs must be an integer, got 2.9"),
    ("config horizon boolean", ["verify", "--config", "c.toml"], _cfg('theorem = "gp_ucb"\nhorizon = true'),
     "horizon must be an integer, got True"),
    ("config no_report string", ["verify", "--config", "c.toml"], _cfg('theorem = "gp_ucb"\nno_report = "false"'),
     "no_report must be true or false"),
    ("config theorem number", ["verify", "--config", "c.toml"], _cfg("theorem = 3"), "theorem must be a string"),
    ("config delta string", ["verify", "--config", "c.toml"], _cfg('theorem = "gp_ucb"\ndelta = "0.1"'),
     "delta must be a number"),
    ("config seed negative", ["verify", "--config", "c.toml"], _cfg('theorem = "gp_ucb"\nseed = -1\nout = "o"'),
     "seed must be at least 0"),
    ("config jobs zero", ["verify", "--config", "c.toml"], _cfg('theorem = "gp_ucb"\njobs = 0\nout = "o"'),
     "positive number of workers"),
    ("config unknown backend", ["verify", "--config", "c.toml"], _cfg('theorem = "gp_ucb"\nbackend = "mpi"'),
     "unknown backend"),
    ("config out empty", ["verify", "--config", "c.toml"], _cfg('theorem = "gp_ucb"\nout = ""'), "--out must name"),
    ("config scheduler without dask", ["verify", "--config", "c.toml"],
     _cfg('theorem = "gp_ucb"\nscheduler = "tcp://x:1"\nout = "o"'), "needs --backend dask"),
    ("config verify not a table", ["verify", "--config", "c.toml"], _cfg("verify = 3"), "must be a table"),
    ("config keys outside [verify]", ["verify", "--config", "c.toml"],
     _cfg('runs = 5\n[verify]\ntheorem = "gp_ucb"'), "outside [verify]"),
    ("config runs 10^12", ["verify", "--config", "c.toml"],
     _cfg('theorem = "gp_ucb"\nruns = 1_000_000_000_000\nhorizon = 5\nout = "o"'), "refusing to start"),
    ("config max_memory list", ["verify", "--config", "c.toml"], _cfg('theorem = "gp_ucb"\nmax_memory = [1]'),
     "max_memory must be a size"),
    # ------------------------------------------------------------------ report
    ("report missing folder", ["report", "nowhere"], {}, "nowhere not found"),
    ("report a file", ["report", "afile"], {"afile": "x"}, "is not a directory"),
    ("report no manifest", ["report", "emptydir"], {"emptydir/x": ""}, "no manifest.json"),
    ("report corrupt manifest", ["report", "r"], {"r/manifest.json": "[1, 2"}, "corrupt manifest"),
    ("report manifest not an object", ["report", "r"], {"r/manifest.json": "[1, 2]"}, "expected a JSON object"),
    ("report no summary", ["report", "r"], {"r/manifest.json": "{}"}, "summary.json not found"),
    ("report corrupt summary", ["report", "r"], {"r/manifest.json": "{}", "r/summary.json": "{\"theorem\": "},
     "corrupt results file"),
    ("report summary without keys", ["report", "r"], {"r/manifest.json": "{}", "r/summary.json": "{}"},
     "missing theorem"),
    ("report no folder", ["report"], {}, "needs RESULTS_DIR"),
    ("report --index missing folder", ["report", "--index", "nowhere"], {}, "nowhere not found"),
    ("report --index a file", ["report", "--index", "afile"], {"afile": "x"}, "is not a directory"),
    ("report --index no studies", ["report", "--index", "d"], {"d/x": ""}, "no verify results below d"),
    ("report --index only damaged studies", ["report", "--index", "d"],
     {"d/r/manifest.json": "{}", "d/r/summary.json": "{}"}, "could not be read"),
    ("report folder and --index", ["report", "r", "--index", "d"], {"d/x": ""}, "not both"),
    ("report --out-index without --index", ["report", "--out-index", "o"], {}, "needs --index"),
    ("report --index over a foreign page", ["report", "--index", "d", "--out-index", "o"],
     {"d/x": "", "o/studies.html": "<p>mine</p>"}, "that boundcheck did not write"),
    ("report --out-index a file", ["report", "--index", "d", "--out-index", "o"], {"d/x": "", "o": "x"},
     "exists and is not a directory"),
]


def _make(tmp: Path, files: dict) -> None:
    for rel, content in files.items():
        p = tmp / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content)


def _listing(tmp: Path) -> list[str]:
    return sorted(str(p.relative_to(tmp)) for p in tmp.rglob("*"))


def test_enough_cases():
    assert len(CASES) >= 60
    commands = {c[1][0] for c in CASES if c[1]}
    assert commands == {"frobnicate", "list", "show", "bound", "gamma", "verify", "power", "report"}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_input(case, tmp_path, monkeypatch, capsys):
    _, argv, files, fragment = case
    monkeypatch.chdir(tmp_path)
    _make(tmp_path, files)
    before = _listing(tmp_path)
    rc = main(list(argv))
    out, err = capsys.readouterr()
    assert rc == 2, (rc, err)
    assert err.startswith("boundcheck: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and fragment in err, err
    assert _listing(tmp_path) == before, "something was written"


SUBPROCESS_CASES = [
    (V + ["--seed", "-1"], "seed must be at least 0"),
    (["verify", "--config", "c.toml"], "runs must be an integer, got 2.9"),
    (_ts(B="-1"), "must be a number > 0"),
]


@pytest.mark.parametrize("argv, fragment", SUBPROCESS_CASES)
def test_bad_input_in_a_real_process(argv, fragment, tmp_path):
    (tmp_path / "c.toml").write_text('theorem = "gp_ucb"\nruns = 2.9\n')
    proc = subprocess.run([sys.executable, "-m", "boundcheck", *argv], capture_output=True, text=True,
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("boundcheck: error: ") and proc.stderr.count("\n") == 1, proc.stderr
    assert fragment in proc.stderr and "Traceback" not in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.toml"]


def test_unexpected_exception_is_one_line_exit_4_with_a_log(tmp_path, monkeypatch, capsys):
    import boundcheck.cli.inspect as cli_inspect

    def broken(args):
        return {}["missing"]

    monkeypatch.setattr(cli_inspect, "cmd_list", broken)
    monkeypatch.setenv("BOUNDCHECK_LOG_DIR", str(tmp_path / "logs"))
    assert main(["list"]) == 4
    err = capsys.readouterr().err
    assert err.startswith("boundcheck: error: internal error (KeyError: 'missing')") and err.count("\n") == 1
    log = next((tmp_path / "logs").glob("crash-*.log"))
    assert str(log) in err and "Traceback" in log.read_text() and "broken" in log.read_text()


def test_help_documents_defaults_exit_codes_and_scenarios(capsys):
    assert main(["verify", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    for fragment in ("(default: 200)", "(default: -1)", "(default: loky)", "gp_sample_se", "rkhs_paper",
                     "exit codes:", "4 internal error"):
        assert fragment in text, fragment
    from boundcheck.cli import build_parser

    parser = build_parser()
    for action in parser._subparsers._group_actions[0].choices.values():
        for a in action._actions:
            if a.dest != "help":
                assert a.help and ("default" in a.help or "required" in a.help or a.dest in ("theorem", "results_dir")
                                   ), (action.prog, a.dest)
