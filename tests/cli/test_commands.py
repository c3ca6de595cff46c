import json
import subprocess
import sys

import pytest

import theory
from boundcheck.cli import main


@pytest.mark.parametrize("argv, fragment", [
    (["verify", "--theorem", "nope"], "unknown theorem"),
    (["verify", "--theorem", "pe_gp_ucb", "--scenario", "nope"], "unknown scenario"),
    (["verify", "--theorem", "pe_gp_ucb", "--delta", "1.5"], "delta"),
    (["verify", "--theorem", "pe_gp_ucb", "--delta", "0"], "delta"),
    (["verify", "--theorem", "pe_gp_ucb", "--runs", "0"], "runs"),
    (["verify", "--theorem", "pe_gp_ucb", "--runs", "abc"], "not an integer"),
    (["verify", "--theorem", "pe_gp_ucb", "--config", "/nonexistent.toml"], "not found"),
    (["bound", "pe_gp_ucb", "--set", "T"], "malformed --set"),
    (["bound", "pe_gp_ucb", "--set", "T=abc"], "malformed --set"),
    (["bound", "pe_gp_ucb", "--set", "T=10"], "missing --set"),
    (["bound", "pe_gp_ucb", "--set", "foo=1"], "unknown symbol"),
    (["show", "nope"], "unknown theorem"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_input_one_line_exit_2(argv, fragment, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err and "Traceback" not in err


@pytest.mark.parametrize("argv, fragment", [
    (["--false-alarm", "0"], "false-alarm"),
    (["--false-alarm", "1"], "false-alarm"),
    (["--false-alarm", "-0.5"], "false-alarm"),
    (["--until-conclusive", "--max-runs", "10"], "smaller than one chunk"),
    (["--max-runs", "100"], "needs --until-conclusive"),
])
def test_bad_budget_and_sequential_input_exit_2_nothing_written(argv, fragment, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["verify", "--theorem", "gp_ucb", "--runs", "5", "--horizon", "5", "--out", str(out), *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err and "Traceback" not in err
    assert not out.exists()


def test_theorem_on_a_scenario_it_does_not_cover_is_not_applicable(tmp_path, capsys):
    """Srinivas's Theorem 1 assumes a fixed f drawn from the prior the algorithm is given: pe_toy_tv drifts
    (ε > 0) and GP-UCB would use candidate prior 0, not the truth. Exit 3, nothing simulated or written."""
    out = tmp_path / "na"
    assert main(["verify", "--theorem", "gp_ucb", "--scenario", "pe_toy_tv", "--runs", "5", "--out", str(out)]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not applicable" in err and "ε = 0" in err and "--allow-out-of-theory" in err
    assert not out.exists()
    assert main(["verify", "--theorem", "gp_ucb", "--scenario", "pe_toy_tv", "--runs", "5", "--out", str(out),
                 "--json"]) == 3
    na = json.loads(capsys.readouterr().out)
    assert na["verdict"] == "not applicable" and len(na["out_of_theory_reasons"]) == 3
    # run anyway: labelled outside the theorem everywhere, exit code from the claims
    rc = main(["verify", "--theorem", "gp_ucb", "--scenario", "pe_toy_tv", "--runs", "5", "--horizon", "10",
               "--jobs", "1", "--out", str(out), "--allow-out-of-theory", "--no-report"])
    assert rc in (0, 1) and "OUTSIDE THE THEOREM" in capsys.readouterr().out
    # every theorem lists only scenarios that satisfy all of its assumptions; its controls break at least one
    from boundcheck import api

    for th in theory.all_theorems():
        for name in th.scenarios:
            assert api.applicability(th, name) == [], (th.id, name)
        for name in th.controls:
            assert api.applicability(th, name), (th.id, name)


def test_malformed_config(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("runs = [unclosed")
    assert main(["verify", "--config", str(bad)]) == 2
    unknown = tmp_path / "unknown.toml"
    unknown.write_text('theorem = "pe_gp_ucb"\nbogus = 1\n')
    assert main(["verify", "--config", str(unknown)]) == 2
    assert "unknown key" in capsys.readouterr().err


def test_bound_json_value_and_terms(capsys):
    args = ["bound", "pe_gp_ucb", "--json"] + [f"--set={k}" for k in
                                              ("T=60", "delta=0.1", "R=0.1", "n_X=50", "n_U=11", "gamma_T=187",
                                               "mu_max=2.0")]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    from pe_gp_ucb_reference import spec_bound  # an independent reference implementation

    assert out["value"] == pytest.approx(spec_bound(60, 11, 0.1, 0.1, 50, 187, 2.0), rel=1e-12)
    assert out["terms"]["critical_rounds"] == pytest.approx(149.5, abs=0.1)
    assert main(["bound", "pe_gp_ucb", "--set", "delta=2", "--set", "T=1", "--set", "R=1", "--set", "n_X=1",
                 "--set", "n_U=1", "--set", "gamma_T=1", "--set", "mu_max=0"]) == 2


def test_list_and_show(capsys):
    assert main(["list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert any(r["id"] == "pe_gp_ucb" for r in rows)
    assert main(["show", "pe_gp_ucb", "--json"]) == 0
    show = json.loads(capsys.readouterr().out)
    assert set(show["symbols"]) == {"T", "delta", "R", "n_X", "n_U", "gamma_T", "mu_max"}
    assert any(c["id"] == "C8" for c in show["corrections"])
    assert main(["show", "pe_gp_ucb"]) == 0
    assert "gamma_T" in capsys.readouterr().out


def test_console_script_exit_code_2_without_traceback():
    proc = subprocess.run([sys.executable, "-m", "boundcheck.cli", "verify", "--theorem", "pe_gp_ucb",
                           "--delta", "-1"], capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1


def test_gamma_json_and_bad_parameters(capsys):
    assert main(["gamma", "--kernel", "rbf", "--lengthscale", "0.2", "--grid", "10", "--dim", "2", "--noise", "0.1",
                 "--horizon", "50", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"lower", "upper", "methods"}
    assert 0 < out["lower"] <= out["upper"] and "greedy" in out["methods"]
    assert main(["gamma", "--kernel", "matern52", "--horizon", "20", "--eps", "0.05"]) == 0
    assert "rate" in capsys.readouterr().out
    for bad in (["--lengthscale", "-1"], ["--eps", "1.5"], ["--noise", "0"], ["--horizon", "0"]):
        assert main(["gamma", "--kernel", "rbf", "--horizon", "10", *bad]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
