"""The example notebook (examples/notebook.ipynb) runs, cell by cell, in a real kernel, and its
results equal the CLI's at the same seed; the result objects' notebook views (boundcheck.results)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from boundcheck.report.notebook import SCOPE, scoped_css

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "examples" / "notebook.ipynb"
CHECK_TAG = "boundcheck-check"  # the notebook's cell whose output is compared with the CLI's
SMALL = ["--runs", "20", "--horizon", "30", "--seed", "1", "--jobs", "1", "--no-report", "--json"]


def _digest(summary: dict) -> dict:
    """What the notebook prints of a verify (its last cell): verdict, each claim's verdict and failures, and the
    regret statistics of every algorithm (bit-identical at the same seed, whatever runs it)."""
    return {"verdict": summary["verdict"],
            "claims": {c["id"]: [c["verdict"], c["violations"]] for c in summary["claims"]},
            "regret": summary["regret"]}


def test_the_example_notebook_runs_and_agrees_with_the_cli(monkeypatch, tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    # the CLI runs meanwhile (one process each): the same verifies as the notebook's, at the same seed
    cli = {name: subprocess.Popen([sys.executable, "-m", "boundcheck", "verify", "--theorem", "gp_ucb", *extra,
                                   *SMALL, "--out", str(tmp_path / name)], cwd=ROOT, env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
           for name, extra in (("builtin", []), ("mine", ["--algorithm", "examples/gp_ucb.py:MyGPUCB"]))}
    monkeypatch.setenv("PYTHONPATH", env["PYTHONPATH"])  # the kernel imports this boundcheck
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    try:
        client.execute()  # a cell that raises fails here (CellExecutionError names the cell and its traceback)
    finally:
        answers = {name: p.communicate(timeout=300) for name, p in cli.items()}
    for name, (out, err) in answers.items():
        assert "Traceback" not in err and out.strip(), (name, err)
    check = [c for c in nb.cells if CHECK_TAG in c.metadata.get("tags", [])]
    assert len(check) == 1
    printed = "".join(o.get("text", "") for o in check[0].outputs if o.output_type == "stream")
    got = json.loads(printed.strip().splitlines()[-1])
    for name, (out, _) in answers.items():
        assert got[name] == json.loads(json.dumps(_digest(json.loads(out)))), name
    # the rich display: the verify's report card, not a wall of JSON
    shown = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if "text/html" in o.get("data", {})]
    assert any(f'class="{SCOPE}"' in o["data"]["text/html"] and "Claims" in o["data"]["text/html"]
               for o in shown)


def test_the_report_style_is_scoped_to_the_fragment():
    from boundcheck.report.html import CSS

    css = scoped_css(CSS + "@media (max-width: 9px) { .a, .b { x: y; } }")
    rules = [r.split("{")[0].strip() for r in css.splitlines() if "{" in r]
    selectors = [s.strip() for r in rules if not r.startswith("@") for s in r.split(",")]
    assert selectors and all(s.startswith(f".{SCOPE}") for s in selectors), selectors
    assert f"@media (max-width: 9px) {{ .{SCOPE} .a, .{SCOPE} .b {{ x: y; }} }}" in css
    assert f".{SCOPE} {{" in css  # :root and body become the fragment itself (its variables and font)


def test_a_result_is_the_summary_dict_with_tables(tmp_path):
    """The result of api.verify is the dict the CLI prints, with DataFrames of the stored tables; a temporary
    results folder lives as long as the result."""
    import gc
    import pickle

    from boundcheck import api
    from boundcheck.results import CLAIM_COLUMNS, VerifyResult

    res = api.verify("gp_ucb", runs=10, horizon=10, seed=3, jobs=1, report=False)
    assert isinstance(res, dict) and isinstance(res, VerifyResult)
    assert json.loads(res.to_json())["verdict"] == res["verdict"]
    assert list(res.claims.columns) == list(CLAIM_COLUMNS)
    assert res.claims["claim"].tolist() == [c["id"] for c in res["claims"]]
    runs, reg = res.runs, res.regret
    assert len(runs) == 10 * runs["algorithm"].nunique() and {"run", "algorithm", "regret"} <= set(runs)
    assert len(reg) == len(runs) * 10 and {"t", "cum_regret", "bound"} <= set(reg)
    last = reg[reg["t"] == 10].sort_values(["run", "algorithm"])["cum_regret"].to_numpy()
    assert np.allclose(last, runs.sort_values(["run", "algorithm"])["regret"].to_numpy(), rtol=1e-12)  # R_T
    copy = pickle.loads(pickle.dumps(res))
    assert type(copy) is VerifyResult and copy["seed"] == 3 and copy.folder == res.folder
    folder = res.folder
    del res, copy
    gc.collect()
    assert not folder.exists()


def test_a_power_result_has_its_table_tidy(tmp_path):
    """api.power's result: one row per defect × claim, the defect studies' tables led by the defect."""
    from boundcheck import api
    from boundcheck.results import POWER_CLAIM_COLUMNS, PowerResult

    res = api.power("gp_ucb", runs=10, horizon=10, seed=1, jobs=1, subsets=10, defects=["beta_small"],
                    out=tmp_path / "power")
    assert isinstance(res, PowerResult) and res["path"] == str(tmp_path / "power" / "power.json")
    claims = res.claims
    assert list(claims.columns) == list(POWER_CLAIM_COLUMNS) and set(claims["defect"]) == {"none", "beta_small"}
    caught = claims[claims["caught"]]
    assert set(caught["defect"]) <= {"beta_small"} and "D1_optimism" in set(caught["claim"])  # β/10: optimism fails
    assert res.runs.columns[0] == "defect" and len(res.regret) == len(res.runs) * 10
    assert res.headline().startswith("PowerResult: gp_ucb on ") and "D1_optimism" in res._repr_html_()
