"""The per-run ask/tell form on a compact box: run batched, held to the theorem's algorithm, hostile answers kept
out of the verdict."""

import numpy as np
import pytest

from boundcheck.cli import main
from boundcheck.policies import BoxAskTellAdapter, BoxAskTellPolicy, policy_spec
from boundcheck.testing import format_claims, run_check

EXAMPLE = "examples/box_asktell_ucb.py"


def _load(cls):
    from examples_loader import example

    return example("box_asktell_ucb", cls)


@pytest.mark.parametrize("cls, verdict", [("AskTellBoxUCB", "holds"), ("AskTellBoxUCBSquared", "violated")])
def test_per_run_box_code_is_held_to_the_theorems_algorithm(cls, verdict):
    s = run_check("gp_ucb_compact", runs=4, horizon=10, seed=1, algorithm=_load(cls))
    conf = [c for c in s["claims"] if c["id"] == "conformance"][0]
    assert conf["verdict"] == verdict, format_claims(s)


def test_a_per_run_class_becomes_the_box_adapter():
    spec = policy_spec(_load("AskTellBoxUCB"))
    assert spec.factory is BoxAskTellAdapter and spec.declared.domain_kind == "box"


def test_batched_equals_one_by_one():
    """Each run's object sees only its run: a batch of 3 equals the 3 runs alone, bit for bit."""
    from boundcheck import api
    from boundcheck.study.continuum import simulate_box

    spec = api.build_study("gp_ucb_compact", runs=3, horizon=5, seed=2, policies=[_load("AskTellBoxUCB")])
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta)
    together = simulate_box(spec.scenario, spec.policies, [0, 1, 2], spec.seed, inst)
    for r in range(3):
        alone = simulate_box(spec.scenario, spec.policies, [r], spec.seed, inst)
        for name, tr in alone.algorithms.items():
            assert np.array_equal(tr.monitors["x0"][0], together.algorithms[name].monitors["x0"][r])


class _Raises(BoxAskTellPolicy):
    def ask(self, t):
        if t == 3:
            raise RuntimeError("boom")
        return np.full(self.ctx.dim, 0.5)

    def tell(self, x, y):
        x[0] = 1.0  # the point it is told is read-only: writing into it is its error, not a change to the study


class _Shape(BoxAskTellPolicy):
    def ask(self, t):
        return [0.5, 0.5, 0.5]

    def tell(self, x, y):
        pass


class _NaN(BoxAskTellPolicy):
    def ask(self, t):
        return np.array([np.nan])

    def tell(self, x, y):
        pass


@pytest.mark.parametrize("cls, fragment", [
    (_Raises, "raised ValueError"),  # tell() writes into its read-only point at step 1
    (_Shape, "not one point of the 1-d box"),
    (_NaN, "not finite"),
])
def test_hostile_answers_are_one_line_errors(cls, fragment):
    from boundcheck.errors import UserCodeError

    with pytest.raises(UserCodeError, match=fragment) as info:
        run_check("gp_ucb_compact", runs=2, horizon=4, seed=0, algorithm=cls)
    assert "\n" not in str(info.value) and "run 0" in str(info.value)


def test_cli_runs_the_per_run_example_and_refuses_a_finite_theorem(capsys, tmp_path):
    code = main(["verify", "--theorem", "gp_ucb_compact", "--algorithm", f"{EXAMPLE}:AskTellBoxUCB", "--runs", "3",
                 "--horizon", "6", "--no-report", "--out", str(tmp_path / "a")])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "conformance" in out.out
    code = main(["verify", "--theorem", "gp_ucb", "--algorithm", f"{EXAMPLE}:AskTellBoxUCB", "--runs", "2",
                 "--horizon", "3", "--no-report", "--out", str(tmp_path / "b")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1, err
