"""A paper as an installable plugin (docs/extending/paper.md): examples/plugin_paper, installed into the test
environment by ``make test`` (Makefile, ``.installed-test``), is found through its ``boundcheck.papers`` entry
point and runs through every command: list, show, verify (its theorem holds, its overstated twin is caught),
verify --defect (its planted defect is caught), power (in the format of the shipped tables).

Skipped where the plugin is not installed (a bare checkout); ``BOUNDCHECK_REQUIRE_PLUGIN=1`` (set by ``make test``,
hence CI) turns the skip into a failure."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "examples" / "plugin_paper" / "boundcheck_toy_paper"
SMALL = ["--runs", "100", "--horizon", "30", "--seed", "0", "--no-report", "--json"]


def _installed() -> bool:
    return any(ep.name == "toy_paper" for ep in metadata.entry_points(group="boundcheck.papers"))


if not _installed():
    if os.environ.get("BOUNDCHECK_REQUIRE_PLUGIN"):
        raise RuntimeError("the plugin paper is not installed (pip install -e examples/plugin_paper), and "
                           "BOUNDCHECK_REQUIRE_PLUGIN is set")
    pytest.skip("the example plugin paper is not installed in this environment: pip install -e "
                "examples/plugin_paper (make test does)", allow_module_level=True)


def _cli(*argv: str, cwd: Path) -> tuple[int, str, str]:
    proc = subprocess.run([sys.executable, "-m", "boundcheck", *argv], capture_output=True, text=True, cwd=cwd,
                          timeout=600)
    return proc.returncode, proc.stdout, proc.stderr


def _json(*argv: str, cwd: Path, code: int = 0) -> dict | list:
    rc, out, err = _cli(*argv, cwd=cwd)
    assert rc == code, err
    return json.loads(out)


def test_list_and_show_find_the_plugin(tmp_path):
    rows = {r["id"]: r for r in _json("list", "--json", cwd=tmp_path)}
    assert {"toy_ucb", "toy_ucb_overstated", "gp_ucb"} <= set(rows)  # beside the built-in papers
    assert rows["toy_ucb"]["default_scenario"] == "toy_gp_sample"
    info = _json("show", "toy_ucb", "--json", cwd=tmp_path)
    assert info["algorithms"][0] == "toy_ucb" and info["scenarios"] == ["toy_gp_sample"]
    assert [c["id"] for c in info["claims"]] == ["regret_bound", "regret_bound_anytime", "confidence_event",
                                                 "D1_optimism", "D3_information"]


def test_its_theorem_holds_and_the_overstated_twin_is_caught(tmp_path):
    # two processes: the plugin's family, policy and theorem travel to a worker by value or by its package name
    good = _json("verify", "--theorem", "toy_ucb", *SMALL, "--jobs", "2", "--out", str(tmp_path / "good"),
                 cwd=tmp_path)
    assert good["verdict"] == "holds" and good["in_theory"] and good["scenario"] == "toy_gp_sample"
    assert set(good["regret"]) == {"toy_ucb", "gp_ucb", "random"}
    bad = _json("verify", "--theorem", "toy_ucb_overstated", *SMALL, "--jobs", "1", "--out", str(tmp_path / "bad"),
                cwd=tmp_path, code=1)
    verdicts = {c["id"]: c["verdict"] for c in bad["claims"]}
    assert bad["verdict"] == "violated" and verdicts["regret_bound"] == "violated"
    assert verdicts["D1_optimism"] == "holds"  # the algorithm is right; the bound is overstated


def test_its_planted_defect_is_caught(tmp_path):
    s = _json("verify", "--theorem", "toy_ucb", "--defect", "toy_narrow_width", *SMALL, "--jobs", "1",
              "--out", str(tmp_path / "defect"), cwd=tmp_path, code=1)
    verdicts = {c["id"]: c["verdict"] for c in s["claims"]}
    assert verdicts["D1_optimism"] == "violated" and not s["in_theory"]
    rc, _, err = _cli("verify", "--theorem", "gp_ucb", "--defect", "toy_narrow_width", "--runs", "5",
                      "--no-report", cwd=tmp_path)
    assert rc == 2 and "does not apply to gp_ucb" in err


def test_power_and_the_shipped_table(tmp_path):
    table = _json("power", "--theorem", "toy_ucb", "--defect", "toy_narrow_width", "--runs", "50", "--jobs", "1",
                  "--subsets", "50", "--json", "--out", str(tmp_path / "power"), cwd=tmp_path)
    assert table["claims"]["D1_optimism"]["catches"] == ["toy_narrow_width"]
    assert table["defects"]["none"]["caught_by"] == []
    shipped = json.loads((PACKAGE / "power" / "toy_ucb.json").read_text())
    builtin = json.loads((ROOT / "boundcheck" / "papers" / "srinivas" / "power" / "gp_ucb.json").read_text())
    assert set(shipped) == set(builtin)  # the format of the built-in papers' tables (benchmarks/bench_power.py)
    assert shipped["theorem"] == "toy_ucb" and "toy_narrow_width" in shipped["claims"]["D1_optimism"]["catches"]
    assert all(c["catches"] for c in shipped["claims"].values())  # every claim of the verdict catches something


def test_the_manifest_declares_what_its_parts_register():
    import theory
    from boundcheck.claims.defects import defects_for
    from boundcheck.claims.families import family_for
    from boundcheck.policies import policy_names
    from boundcheck.world.catalogue import scenario_files
    from theory import plugins

    paper = plugins.get_paper("toy_paper")
    assert paper.theorems == tuple(t.id for t in paper.part("theory").THEOREMS)
    assert all(theory.get(t).id == t and family_for(t).theorem.id == t for t in paper.theorems)
    assert "toy_ucb" in policy_names() and scenario_files()["toy_gp_sample"].parent == paper.scenario_dir
    # the paper's own defect, and the generic ones whose hooks the paper declares (HOOKS)
    assert {d.name for d in defects_for("toy_ucb")} == {"toy_narrow_width", "beta_small", "noise_var_small",
                                                        "stale_action", "dropped_observation", "truth_outside_model",
                                                        "noise_doubled", "argmin", "bound_understated"}
    assert plugins.paper_of_theorem("toy_ucb") is paper and (paper.power_dir / "toy_ucb.json").is_file()


def test_the_list_cache_key_covers_the_plugin():
    """``boundcheck list`` answers from a cache keyed by the theory sources; an installed paper's files are in
    the key too (installing, removing or editing one refreshes the list)."""
    from boundcheck.utils.discovery import installed_papers_key

    key = installed_papers_key()
    assert "toy_paper=boundcheck_toy_paper:PAPER" in key and str(PACKAGE / "theorems.py") in key
