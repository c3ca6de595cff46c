"""No silent pass. A verify whose judged claims hold but some claims were not applicable to the checked code is
*incomplete*: the JSON and the terminal name those claims and the planted defects no remaining claim catches;
exit 5 unless --allow-incomplete; assert_bound_holds fails unless allow_incomplete=True.

The example's GP-UCB without records is complete when its conformance shadow runs (its claims are judged on the
shadow's records: tests/claims/test_shadow_records.py); with --no-conformance no shadow runs, and the claims that read
records are not applicable: the incomplete verdict these tests need. With several checked implementations the
verdict is the worst of theirs, and "incomplete" is worse than "holds"."""

import importlib.util
import json
from pathlib import Path

import pytest

from boundcheck.cli import main
from boundcheck.errors import ExitCode
from boundcheck.testing import assert_bound_holds

ROOT = Path(__file__).resolve().parents[2]


def _bare_gp_ucb():
    """The example's GP-UCB reporting no extras: the lemma-level claims that read them are not applicable."""
    spec = importlib.util.spec_from_file_location("example_gp_ucb_bare", ROOT / "examples" / "gp_ucb.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    class BareGPUCB(mod.MyGPUCB):
        records = ()

    return BareGPUCB


BARE = _bare_gp_ucb()
#: enough runs that the probability claims left settle (0 failures in 75 runs: below δ at their Holm share)
KW = {"runs": 75, "horizon": 12, "seed": 2, "scenario": "gp_sample_se", "conformance": False}


def test_assert_bound_holds_fails_on_an_incomplete_verdict_unless_told():
    with pytest.raises(AssertionError, match="incomplete") as err:
        assert_bound_holds("gp_ucb", algorithm=BARE, allow_inconclusive=True, **KW)
    assert "D1_optimism" in str(err.value)
    s = assert_bound_holds("gp_ucb", algorithm=BARE, allow_incomplete=True, **KW)
    assert s["verdict"] == "incomplete"
    gap = s["incomplete"]
    assert "D1_optimism" in gap["claims"] and gap["claims"]["D1_optimism"].startswith("needs")
    # the shipped gp_ucb power table says which planted defects nothing left in the verdict catches
    assert isinstance(gap["uncaught_defects"], list) and gap["uncaught_defects"]


def test_the_theorem_own_algorithm_is_complete():
    s = assert_bound_holds("gp_ucb", **{**KW, "conformance": True})
    assert s["incomplete"] is None and s["verdict"] == "holds"


def test_cli_exit_5_and_allow_incomplete(tmp_path, capsys):
    path = tmp_path / "bare.py"
    path.write_text("import importlib.util\n"
                    f"spec = importlib.util.spec_from_file_location('ex', {str(ROOT / 'examples' / 'gp_ucb.py')!r})\n"
                    "mod = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(mod)\n\n\n"
                    "class BareGPUCB(mod.MyGPUCB):\n    records = ()\n")
    args = ["verify", "--theorem", "gp_ucb", "--scenario", "gp_sample_se", "--runs", "75", "--horizon", "12",
            "--seed", "2", "--jobs", "1", "--no-report", "--algorithm", f"{path}:BareGPUCB", "--no-conformance",
            "--out", str(tmp_path / "a")]
    assert main([*args, "--json"]) == ExitCode.INCOMPLETE
    s = json.loads(capsys.readouterr().out)
    assert s["verdict"] == "incomplete" and "D1_optimism" in s["incomplete"]["claims"]
    assert main([*args, "--allow-incomplete"]) == 0  # resumed: nothing recomputed
    out = capsys.readouterr().out
    assert "incomplete" in out and "not judged on the checked code" in out and "D1_optimism" in out


def test_reports_name_the_unjudged_claims(tmp_path):
    from boundcheck import api

    s = api.verify("gp_ucb", "gp_sample_se", runs=75, horizon=12, seed=2, jobs=1, out=tmp_path, algorithm=BARE,
                   conformance=False)
    assert s["verdict"] == "incomplete"
    html = (tmp_path / "index.html").read_text()
    # out of theory (--no-conformance): the headline says "Claims verdict: incomplete", not a theorem failure
    assert "not judged on the checked code" in html and "D1_optimism" in html and "verdict: incomplete" in html
    tex = (tmp_path / "report.tex").read_text()
    assert "not judged on the checked code" in tex


# ---------------------------------------------------------------------- the worst of several implementations
def _example_gp_ucb():
    spec = importlib.util.spec_from_file_location("example_gp_ucb_audit", ROOT / "examples" / "gp_ucb.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.MyGPUCB


class WithRecords(_example_gp_ucb()):
    """The example's GP-UCB, reporting μ, σ, β: every claim is judged on its own records."""


class WithoutRecords(WithRecords):
    """The same code reporting nothing: without a shadow (--no-conformance) the lemma-level claims are not judged."""

    records = ()


def test_one_incomplete_implementation_makes_the_verify_incomplete(tmp_path, capsys, monkeypatch):
    """The complete one first (its "holds" is the verdict so far), then the incomplete one: exit 5."""
    monkeypatch.setenv("BOUNDCHECK_LOG_DIR", str(tmp_path / "logs"))
    args = ["verify", "--theorem", "gp_ucb", "--scenario", "gp_sample_se", "--runs", "75", "--horizon", "12",
            "--seed", "2", "--jobs", "1", "--no-report", "--no-conformance", "--json",
            "--algorithm", f"{__file__}:WithRecords", "--algorithm", f"{__file__}:WithoutRecords",
            "--out", str(tmp_path / "out")]
    rc = main(args)
    s = json.loads(capsys.readouterr().out)
    assert {name: c["verdict"] for name, c in s["checked"].items()} == {"WithRecords": "holds",
                                                                        "WithoutRecords": "incomplete"}
    assert s["verdict"] == "incomplete" and rc == ExitCode.INCOMPLETE
    # told to accept it (resumed: nothing recomputed), an incomplete verdict with nothing violated exits 0
    assert main([*args, "--allow-incomplete"]) == 0
