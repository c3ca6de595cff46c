"""`boundcheck sweep` — a 3×3 grid of studies on a small scenario, its tidy table, its page, and
resuming after an interruption without recomputing finished cells."""

import json

import pandas as pd
import pytest

from boundcheck import api
from boundcheck.cli import main
from boundcheck.errors import BoundcheckError
from boundcheck.study.store import ResultStore
from boundcheck.study.sweep import COLUMNS, parse_vary, vary_scenario
from boundcheck.world import get_scenario

VARY = ["delta=0.05,0.1,0.2", "horizon=6,9,12"]


def test_a_3x3_sweep_completes_resumes_and_reads_back(tmp_path, capsys):
    out = tmp_path / "sweep"
    seen = []

    def interrupt_after_four(done, total, cell, summary):
        if summary is not None:
            seen.append(cell)
            if len(seen) == 4:
                raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        api.sweep("gp_ucb", VARY, runs=6, jobs=1, out=out, on_cell=interrupt_after_four)
    cells = sorted(p.name for p in (out / "cells").iterdir())
    assert len(cells) == 4 and not (out / "sweep.parquet").exists()
    stamps = {c: ResultStore(out / "cells" / c / "results").chunk_path("steps", 0).stat().st_mtime_ns for c in cells}

    argv = ["sweep", "--theorem", "gp_ucb", "--vary", VARY[0], "--vary", VARY[1], "--runs", "6", "--jobs", "1",
            "--out", str(out), "--json"]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert len(result["cells"]) == 9
    for c in cells:  # finished cells were resumed, not recomputed
        assert ResultStore(out / "cells" / c / "results").chunk_path("steps", 0).stat().st_mtime_ns == stamps[c]
    table = pd.read_parquet(out / "sweep.parquet")
    assert list(table.columns) == list(COLUMNS)  # delta and horizon are columns of their own already
    n_claims = len(api.resolve_theorem("gp_ucb").claims) + 1  # and the generic conformance claim (an identity here)
    assert len(table) == 9 * n_claims and table["cell"].nunique() == 9
    assert sorted(table["horizon"].unique()) == [6, 9, 12] and sorted(table["delta"].unique()) == [0.05, 0.1, 0.2]
    cell = table[table["cell"] == "delta=0.1,horizon=9"].iloc[0]
    assert cell["slack_ratio"] == pytest.approx(cell["bound"] / cell["regret_q"])
    assert cell["vacuous"] == (cell["bound"] >= cell["regret_uninformed_q"])
    page = (out / "index.html").read_text()
    assert "data:image/png;base64," in page and "Where the bound becomes vacuous" in page
    # a verify of one cell gives the same summary as the sweep's cell
    one = api.verify("gp_ucb", runs=6, horizon=9, delta=0.1, jobs=1, report=False)
    assert one["regret"]["gp_ucb"]["mean"] == cell["regret_mean"]


def test_scenario_parameters_and_file_keys_vary(tmp_path):
    sc = get_scenario("pe_toy")
    tv = vary_scenario(sc, {"epsilon": 0.03, "noise": 0.2})
    assert all(p.eps == 0.03 for p in tv.candidates) and tv.truth is tv.candidates[2] and tv.noise == 0.2
    gp = get_scenario("gp_sample_se")
    wide = vary_scenario(gp, {"kernel.lengthscale": 0.5})
    assert wide.candidates[0].K[0, 1] > gp.candidates[0].K[0, 1]
    r = api.sweep("gp_ucb", ["kernel.lengthscale=0.1,0.3"], runs=4, horizon=5, jobs=1, out=tmp_path, page=False)
    assert [c["params"] for c in r["cells"]] == [{"kernel.lengthscale": 0.1}, {"kernel.lengthscale": 0.3}]
    assert "kernel.lengthscale" in pd.read_parquet(tmp_path / "sweep.parquet").columns


@pytest.mark.parametrize("vary, message", [
    ("epsilon", "expected NAME=V1,V2"),
    ("horizon=5,5", "repeated"),
    ("horizon=0,5", "horizon must be at least 1"),
    ("epsilon=2", "epsilon must be a number in \\[0, 1\\]"),
    ("kernel.nonsense=1", "unknown key 'kernel.nonsense'"),
])
def test_bad_sweeps_fail_before_anything_is_written(tmp_path, capsys, vary, message):
    out = tmp_path / "never"
    assert main(["sweep", "--theorem", "gp_ucb", "--vary", vary, "--runs", "3", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    with pytest.raises(BoundcheckError, match=message):
        api.sweep("gp_ucb", [vary], runs=3, out=out)
    assert not out.exists()


def test_parse_vary_reads_toml_scalars():
    assert parse_vary("delta=0.05,0.1").values == (0.05, 0.1)
    assert parse_vary("horizon=10, 20").values == (10, 20)
    assert parse_vary("model_noise=R2,\"1+2/T\"").values == ("R2", "1+2/T")
