"""A theorem of your own in one file (docs/extending/theorem.md): ``--theorem FILE.py:NAME`` checks a
theory.Theorem that names the family it is checked like; examples/my_bound.py holds and its overstated twin is
caught (exit 1); a bad file, name, object or claim is one line, exit 2."""

import dataclasses
import json
import os
from pathlib import Path

import pytest

from boundcheck import api
from boundcheck.cli import main
from boundcheck.study.store import ResultStore

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "my_bound.py"
SMALL = ["--runs", "60", "--horizon", "30", "--seed", "0", "--no-report", "--json"]


def _verify(name: str, capsys, out: Path, *extra: str) -> tuple[int, dict]:
    code = main(["verify", "--theorem", f"{EXAMPLE}:{name}", *SMALL, "--out", str(out), *extra])
    return code, json.loads(capsys.readouterr().out)


def test_my_theorem_holds(capsys, tmp_path):
    code, s = _verify("MY_THEOREM", capsys, tmp_path, "--jobs", "1")
    assert code == 0 and s["verdict"] == "holds", s["verdict"]
    assert s["theorem"] == "my_gp_ucb_bound" and s["in_theory"]
    assert [c["id"] for c in s["claims"]] == ["regret_bound", "regret_bound_anytime", "confidence_event",
                                              "D1_optimism", "D3_information",  # the claims it lists, its order
                                              "conformance"]  # and the generic one every theorem gets


def test_the_overstated_twin_is_caught_exit_1(capsys, tmp_path):
    code, s = _verify("MY_THEOREM_OVERSTATED", capsys, tmp_path, "--jobs", "1")
    assert code == 1 and s["verdict"] == "violated"
    verdicts = {c["id"]: c["verdict"] for c in s["claims"]}
    assert verdicts["regret_bound"] == "violated" and verdicts["regret_bound_anytime"] == "violated"
    assert verdicts["confidence_event"] != "violated"  # the algorithm is right; only the bound is overstated


def test_the_theorem_travels_to_worker_processes_and_results_do_not_depend_on_them(tmp_path):
    kw = dict(runs=60, horizon=20, seed=2, report=False)
    one = api.verify(f"{EXAMPLE}:MY_THEOREM", jobs=1, out=tmp_path / "one", **kw)
    two = api.verify(f"{EXAMPLE}:MY_THEOREM", jobs=2, out=tmp_path / "two", **kw)
    pids = {c["pid"] for c in ResultStore(tmp_path / "two" / "results").read_manifest()["chunks"].values()}
    assert pids - {os.getpid()}, "no chunk ran in a worker process"
    assert one["claims"] == two["claims"] and one["regret"] == two["regret"]
    # and it is checked exactly like the built-in theorem it copies (same runs, same statistics)
    builtin = api.verify("gp_ucb", jobs=1, policies=["gp_ucb", "random"], out=tmp_path / "builtin", **kw)
    assert one["regret"] == builtin["regret"] and one["bound"]["terms"] == builtin["bound"]["terms"]
    mine = {c["id"]: (c["violations"], c["rate"]) for c in one["claims"]}
    assert mine == {c["id"]: (c["violations"], c["rate"]) for c in builtin["claims"] if c["id"] in mine}


def test_a_theorem_object_needs_no_file():
    """api.verify takes the Theorem itself (a notebook): nothing is registered, the family is derived."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("my_bound_in_a_notebook", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    th = dataclasses.replace(module.MY_THEOREM_OVERSTATED, id="overstated_in_a_notebook")
    s = api.verify(th, runs=30, horizon=20, seed=1, jobs=1, report=False)
    assert s["theorem"] == "overstated_in_a_notebook" and s["verdict"] == "violated"


def test_show_and_bound_read_the_file(capsys):
    assert main(["show", f"{EXAMPLE}:MY_THEOREM", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["id"] == "my_gp_ucb_bound" and info["claims"][0]["id"] == "regret_bound"
    sets = ["--set", "T=200", "--set", "delta=0.1", "--set", "R=0.15", "--set", "n_X=100", "--set", "gamma_T=40"]
    assert main(["bound", f"{EXAMPLE}:MY_THEOREM", *sets, "--json"]) == 0
    good = json.loads(capsys.readouterr().out)["value"]
    assert main(["bound", f"{EXAMPLE}:MY_THEOREM_OVERSTATED", *sets, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == pytest.approx(good / 100, rel=1e-12)


BAD = """
import dataclasses, sys
sys.path.insert(0, {examples!r})
from my_bound import MY_THEOREM
from theory import Claim, S

UNKNOWN_CLAIM = dataclasses.replace(MY_THEOREM, id="mine_unknown_claim",
                                    claims=MY_THEOREM.claims + (Claim("my_lemma", "deterministic", "x", "L1"),))
WRONG_KIND = dataclasses.replace(MY_THEOREM, id="mine_wrong_kind",
                                 claims=(Claim("D1_optimism", "probability", "x", "L1", S.delta),))
BUILTIN_ID = dataclasses.replace(MY_THEOREM, id="gp_ucb")
NO_FAMILY = dataclasses.replace(MY_THEOREM, id="mine_no_family", family="")
UNKNOWN_FAMILY = dataclasses.replace(MY_THEOREM, id="mine_unknown_family", family="no_such_theorem")
UNDECLARED_SYMBOL = dataclasses.replace(MY_THEOREM, id="mine_undeclared", bound_terms={{"x": S.kappa * S.T}})
NO_WIDTH = dataclasses.replace(MY_THEOREM, id="mine_no_width", schedules={{"beta_t": S.t}})
NOT_A_THEOREM = 42
"""


@pytest.mark.parametrize("name, fragment", [
    ("UNKNOWN_CLAIM", "claim(s) my_lemma do not exist in the family of gp_ucb; its claims: regret_bound"),
    ("WRONG_KIND", "D1_optimism is a probability claim"),
    ("BUILTIN_ID", "is a built-in theorem's"),
    ("NO_FAMILY", "does not say which family checks it"),
    ("UNKNOWN_FAMILY", "checked like 'no_such_theorem', which is not a known theorem"),
    ("UNDECLARED_SYMBOL", "uses kappa, which it does not declare"),
    ("NO_WIDTH", "reads the schedule(s) width_t"),
    ("NOT_A_THEOREM", "is a int, not a theory.Theorem"),
    ("MISSING", "has no 'MISSING'"),
])
def test_bad_theorem_one_line_exit_2(name, fragment, tmp_path, capsys):
    f = tmp_path / "bad_bounds.py"
    f.write_text(BAD.format(examples=str(EXAMPLE.parent)))
    assert main(["verify", "--theorem", f"{f}:{name}", "--runs", "5", "--no-report"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err and "Traceback" not in err, err


@pytest.mark.parametrize("ref, fragment", [
    ("no_such_file.py:MY_THEOREM", "theorem file no_such_file.py not found"),
    (f"{EXAMPLE}:", "malformed theorem reference"),
    (str(EXAMPLE), "name the theorem in the file too"),
])
def test_bad_reference_one_line_exit_2(ref, fragment, capsys):
    assert main(["show", ref]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err, err


def test_a_file_that_fails_to_import_is_one_line(tmp_path, capsys):
    f = tmp_path / "broken.py"
    f.write_text("import sympy\nX = 1 / 0\n")
    assert main(["verify", "--theorem", f"{f}:X", "--runs", "5", "--no-report"]) == 2
    err = capsys.readouterr().err
    assert "theorem file" in err and "failed to import: ZeroDivisionError" in err and err.count("\n") == 1


def test_a_twin_made_with_replace_evaluates_its_own_bound():
    """dataclasses.replace(theorem, bound_terms=…) once shared the lambdified functions of the original, so the
    twin evaluated the original's bound when both were used in one process."""
    import sympy as sp

    import theory

    th = theory.get("gp_ucb")
    twin = dataclasses.replace(th, id="gp_ucb_twin", bound_terms={k: v / 100 for k, v in th.bound_terms.items()})
    values = {"T": 100.0, "delta": 0.1, "R": 0.15, "n_X": 100.0, "gamma_T": 30.0}
    assert th.evaluate(values)["value"] == pytest.approx(100 * twin.evaluate(values)["value"], rel=1e-12)
    assert twin._cache is not th._cache and sp.srepr(twin.bound) != sp.srepr(th.bound)


def test_the_same_file_by_another_path_and_a_papers_theorem_by_module(tmp_path, monkeypatch):
    monkeypatch.chdir(EXAMPLE.parent)
    a = api.resolve_theorem(f"{EXAMPLE}:MY_THEOREM")
    b = api.resolve_theorem("my_bound.py:MY_THEOREM")  # relative: the same file, reloaded, replaces it
    assert a.id == b.id == "my_gp_ucb_bound"
    import theory

    assert api.resolve_theorem("theory.srinivas:THEOREM") is theory.get("gp_ucb")


def test_the_walk_through_shows_the_files_as_they_are():
    """docs/extending/ quotes the example files in full: a changed example must change the docs."""
    doc = "\n".join(p.read_text() for p in sorted((ROOT / "docs" / "extending").glob("*.md")))
    pkg = ROOT / "examples" / "plugin_paper"
    files = [EXAMPLE, pkg / "pyproject.toml", *sorted((pkg / "boundcheck_toy_paper").glob("*.py")),
             pkg / "boundcheck_toy_paper" / "scenarios" / "toy_gp_sample.toml"]
    for f in files:
        assert f.read_text().rstrip("\n") in doc, f"docs/extending/ does not show {f.relative_to(ROOT)} as it is"
