"""Complete verdicts from observed behaviour: a checked code that keeps no records is judged on its shadow.

Every checked implementation runs beside a shadow of the theorem's own algorithm (boundcheck.claims.conformance).
Where the code chose, at every step, an action the theorem's algorithm would choose given the same history, the
shadow is that algorithm on the run's data, so the lemma-level claims read the shadow's μ_{t−1}, σ_{t−1}, β_t at
the code's actions (``shadow_fills``); a run where it did not is already a counterexample. For GP-TS the claims on
the code's own draws cannot come from a shadow: they are covered by the law test of the choices where the shipped
power table shows that it catches every defect they catch. So correct ask/tell GP-UCB, IGP-UCB, GP-TS and
PE-GP-UCB without records *hold* (exit 0), and the broken variants a new user writes are violated.
"""

from __future__ import annotations

import numpy as np
import pytest
from asktell_policies import (
    PEGPUCB,
    TS,
    UCB,
    LaggedBetaUCB,
    LambdaIsRUCB,
    NoNoiseUCB,
    Uniform,
    VarianceIndexUCB,
)

import theory
from boundcheck import api
from boundcheck.claims.conformance import NO_SHADOW, ON_SHADOW, shadow_fills
from boundcheck.cli import main
from boundcheck.study import summary as summary_mod

SMALL = {"runs": 20, "horizon": 20, "jobs": 1, "report": False}


def _claim(summary: dict, cid: str) -> dict:
    return next(c for c in summary["claims"] if c["id"] == cid)


# ---------------------------------------------------------------- correct code: complete verdicts
@pytest.mark.parametrize("theorem, algo", [("gp_ucb", UCB), ("igp_ucb", UCB), ("gp_ts", TS),
                                           ("pe_gp_ucb", PEGPUCB)])
def test_correct_code_without_records_holds_and_is_complete(theorem, algo):
    s = api.verify(theorem, algorithm=algo, policies=[], seed=2, **SMALL)
    # complete: every claim judged (20 runs may leave a probability claim inconclusive, never incomplete)
    assert s["verdict"] in ("holds", "inconclusive"), (s["verdict"], s.get("incomplete"), s.get("not_applicable"))
    assert s["incomplete"] is None
    assert _claim(s, "conformance")["verdict"] == "holds"
    other = s["settled_otherwise"]
    judged = {c["id"] for c in s["claims"] if c["verdict"] not in ("not applicable",) and c["kind"] != "identity"}
    assert other and set(other) <= judged | set(s.get("not_applicable") or {})
    # every claim the code's records could not settle is labelled with how it was settled instead
    for cid, note in other.items():
        assert note == ON_SHADOW or note.startswith("covered by the conformance claim"), (cid, note)


def test_gp_ts_draw_claims_are_covered_by_the_law_test_per_claim():
    s = api.verify("gp_ts", algorithm=TS, policies=[], seed=2, **SMALL)
    other = s["settled_otherwise"]
    # μ and σ come from the shadow; the claims on the code's own draws are covered, each naming its defects
    assert other.get("D3_information") == ON_SHADOW
    for cid in ("ts_sample_calibration", "ts_sample_concentration", "ts_anticoncentration", "D2_ts_step"):
        assert cid in s["not_applicable"] and other[cid].startswith("covered by the conformance claim"), cid
        caught = set(summary_mod.power_table("gp_ts")["claims"][cid]["catches"])
        assert all(d in other[cid] for d in caught)


def test_correct_code_without_records_exits_0_on_the_command_line(tmp_path, capsys, monkeypatch):
    (tmp_path / "mine.py").write_text(
        "import numpy as np\nfrom scipy.linalg import cho_factor, cho_solve\n\n"
        + "\n".join(line for line in _source_of(UCB)) + "\n")
    monkeypatch.chdir(tmp_path)
    rc = main(["verify", "--theorem", "gp_ucb", "--algorithm", "mine.py:UCB", "--runs", "20", "--horizon", "20",
               "--no-report", "--out", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "judged on the shadow" in out


def _source_of(cls) -> list[str]:
    import inspect

    return inspect.getsource(cls).splitlines()


# ---------------------------------------------------------------- broken code: violated
@pytest.mark.parametrize("algo", [VarianceIndexUCB, NoNoiseUCB, LaggedBetaUCB, LambdaIsRUCB])
def test_the_broken_variants_a_new_user_writes_are_violated(algo):
    s = api.verify("gp_ucb", algorithm=algo, policies=[], seed=2, **SMALL)
    assert s["verdict"] == "violated" and _claim(s, "conformance")["verdict"] == "violated"


# ---------------------------------------------------------------- the parts, each shown to matter
def test_shadow_fills_are_what_the_code_does_not_record():
    own = api.resolve_policy(theory.get("gp_ucb").algorithm).declared
    assert shadow_fills(own, UCB) == frozenset(own.records) | frozenset(own.final_records)

    class Partial:
        records = frozenset({"mu"})
        final_records = frozenset()

    assert "mu" not in shadow_fills(own, Partial) and "sigma" in shadow_fills(own, Partial)
    ts = api.resolve_policy(theory.get("gp_ts").algorithm).declared
    assert not shadow_fills(ts, UCB) & {"sample", "draw_dev", "draw_fixed", "ts_dev"}  # never the draws


def test_a_shadow_adopts_the_implementations_action():
    """The records a claim reads are the shadow's at the *code's* action, even where the code chose another."""
    spec = api.build_study("gp_ucb", runs=3, horizon=5, seed=0)
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta, spec.beta_scale)
    from boundcheck.model.sampling import run_streams
    from boundcheck.policies import RunContext

    sc = spec.scenario
    pol = api.resolve_policy(theory.get("gp_ucb").algorithm).make()
    pol.start(RunContext(runs=3, horizon=5, candidates=sc.candidates, truth=sc.truth, noise_sd=sc.noise,
                         noise_var=sc.model_noise_var, beta=inst.beta, xi=inst.xi, actions=sc.actions,
                         rngs=[run_streams(0, r, 1).algorithms[0] for r in range(3)], truth_index=sc.truth_index,
                         reference_index=sc.reference_index, schedules=dict(inst.schedules), delta=inst.delta,
                         window=sc.window, points=sc.domain.points, B=sc.B, run_ids=(0, 1, 2)))
    avail = np.ones(sc.domain.n, dtype=bool)
    own = pol.select(1, avail)
    other = (own + 7) % sc.domain.n
    gap = pol.conformance(1, avail, other)["conform_gap"]
    assert np.all(gap >= 0)
    pol.adopt(1, other)
    mu, sd = pol.posterior.mean()[:, 0], pol.posterior.sd()[:, 0]
    r = np.arange(3)
    np.testing.assert_array_equal(pol.record["mu"], mu[r, other[:, 0]])
    np.testing.assert_array_equal(pol.record["sigma"], sd[r, other[:, 0]])


def test_without_the_shadow_those_claims_are_not_applicable(tmp_path):
    s = api.verify("gp_ucb", algorithm=UCB, policies=[], seed=2, conformance=False, **SMALL)
    na = s["not_applicable"]
    assert "D1_optimism" in na and NO_SHADOW in na["D1_optimism"]
    assert not s["settled_otherwise"]


def test_coverage_needs_every_defect_of_the_claim(monkeypatch):
    table = {"defects": {"a": {}, "b": {}, "none": {}},
             "claims": {"conformance": {"catches": ["a"]}, "x": {"catches": ["a", "b"]}, "y": {"catches": ["a"]},
                        "z": {"catches": []}}}
    monkeypatch.setattr(summary_mod, "power_table", lambda theorem_id: table)
    got = summary_mod.covered_by_conformance("t", {"conformance"}, ["x", "y", "z"])
    assert set(got) == {"y"}  # x catches b, which conformance does not; z catches nothing
    assert summary_mod.covered_by_conformance("t", set(), ["y"]) == {}  # conformance not judged: nothing covered


def test_records_from_the_shadow_are_at_the_codes_actions():
    """D3 (the chain rule of σ_{t−1}(x_t) against the information of the queries made) holds on the shadow's
    records of a code that never conforms: they are the posterior's at the code's own actions, not at the
    shadow's choices (which would contradict the information of the actual queries)."""
    s = api.verify("gp_ucb", algorithm=Uniform, policies=[], seed=2, **SMALL)
    assert _claim(s, "conformance")["verdict"] == "violated"
    assert s["settled_otherwise"]["D3_information"] == ON_SHADOW
    assert _claim(s, "D3_information")["verdict"] == "holds"
