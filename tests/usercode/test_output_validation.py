"""What a user's policy hands back is checked before anything reads it: an action that is not a base-arm index in
X_t, or a record that is not a finite real number per run, ends the command with exit 2 and one line naming the
policy, the step and what is wrong — never silently used (−1 would index the last arm; an infinite μ or σ would
make every bound on it hold, a string "1.5" or a complex number would be cast to a float).

Both forms of user code: a batched :class:`~boundcheck.policies.Policy` (checked by the engine,
boundcheck.study.engine._as_action / _check_records) and an ask/tell class (checked by its adapter,
boundcheck.policies.asktell). Each case is a tiny verify (2 runs, 3 steps) on an 8-point grid whose point 0 is
not in X_t on even steps: in process through :func:`boundcheck.api.verify` (the UserCodeError that the command
turns into exit 2), and some through :func:`boundcheck.cli.main` (exit 2, one line; this file imported as a
user's policy file is).
"""

from __future__ import annotations

import numpy as np
import pytest
from tiny_scenarios import grid_scenario

from boundcheck import api
from boundcheck.cli import main
from boundcheck.errors import UserCodeError
from boundcheck.policies import Policy

SCENARIO = grid_scenario("tiny_alternating", "8 points, point 0 not available on even t", 3, "0.3",
                         availability='kind = "alternating"\nrestricted = [1, 2, 3, 4, 5, 6, 7]\n')


# ------------------------------------------------------------------ batched: the engine checks them
class _Batched(Policy):
    records = frozenset({"mu", "sigma", "beta"})

    def arms(self, t):
        return np.ones((self.ctx.runs, 1), dtype=np.int64)

    def rec(self, t):
        m = self.ctx.runs
        return {"mu": np.zeros(m), "sigma": np.ones(m), "beta": np.full(m, 2.0)}

    def select(self, t, available):
        self.record = self.rec(t)
        return self.arms(t)

    def update(self, t, action, y):
        pass


class RecInf(_Batched):
    def rec(self, t):
        return {**super().rec(t), "sigma": np.array([1.0, np.inf])}


class RecMinusInf(_Batched):
    def rec(self, t):
        return {**super().rec(t), "mu": np.array([-np.inf, 0.0])}


class RecShape(_Batched):
    def rec(self, t):
        return {**super().rec(t), "mu": np.zeros(self.ctx.runs + 1)}


class RecScalar(_Batched):
    def rec(self, t):
        return {**super().rec(t), "mu": 0.5}


class RecString(_Batched):
    def rec(self, t):
        return {**super().rec(t), "mu": np.array(["0.5"] * self.ctx.runs)}


class RecComplex(_Batched):
    def rec(self, t):
        return {**super().rec(t), "mu": np.full(self.ctx.runs, 0.5 + 1j)}


class RecObject(_Batched):
    def rec(self, t):
        return {**super().rec(t), "mu": [0.5, None]}


class ActNegative(_Batched):
    def arms(self, t):
        return np.full((self.ctx.runs, 1), -1, dtype=np.int64)


class ActTooLarge(_Batched):
    def arms(self, t):
        return np.full((self.ctx.runs, 1), 8, dtype=np.int64)


class ActBool(_Batched):
    def arms(self, t):
        return np.ones((self.ctx.runs, 1), dtype=bool)


class ActFloat(_Batched):
    def arms(self, t):
        return np.ones((self.ctx.runs, 1), dtype=float)


class ActUnavailable(_Batched):
    def arms(self, t):
        return np.zeros((self.ctx.runs, 1), dtype=np.int64)


# ------------------------------------------------------------------ ask/tell: the adapter checks them
class _AskTell:
    records = ("mu", "sigma", "beta")

    def __init__(self, ctx):
        pass

    def arm(self, t):
        return 1

    def rec(self, t):
        return {"mu": 0.0, "sigma": 1.0, "beta": 2.0}

    def ask(self, t, available):
        self.record = self.rec(t)
        return self.arm(t)

    def tell(self, x, y):
        pass


class AskRecInf(_AskTell):
    def rec(self, t):
        return {**super().rec(t), "sigma": float("inf")}


class AskRecShape(_AskTell):
    def rec(self, t):
        return {**super().rec(t), "mu": np.zeros(2)}


class AskRecString(_AskTell):
    def rec(self, t):
        return {**super().rec(t), "mu": "0.5"}


class AskNegative(_AskTell):
    def arm(self, t):
        return -1


class AskTooLarge(_AskTell):
    def arm(self, t):
        return 8


class AskBool(_AskTell):
    def arm(self, t):
        return True


class AskFloat(_AskTell):
    def arm(self, t):
        return 1.0


class AskUnavailable(_AskTell):
    def arm(self, t):
        return 0

# (class, a fragment of the one line)
CASES = [
    ("RecInf", r"record 'sigma' is not finite (inf) at step 1, run 1"),
    ("RecMinusInf", r"record 'mu' is not finite (-inf) at step 1, run 0"),
    ("RecShape", "record 'mu' at step 1 must have one value per run (shape (2, ...)), got shape (3,)"),
    ("RecScalar", "record 'mu' at step 1 must have one value per run"),
    ("RecString", "record 'mu' at step 1 is not numeric"),
    ("RecComplex", "record 'mu' at step 1 is not numeric (ndarray of dtype complex128)"),
    ("RecObject", "record 'mu' at step 1 is not numeric"),
    ("ActNegative", "select() returned index -1, outside the domain (0..7) at step 1"),
    ("ActTooLarge", "select() returned index 8, outside the domain (0..7) at step 1"),
    ("ActBool", "select() must return (2, 1) integer base-arm indices, got shape (2, 1) dtype bool at step 1"),
    ("ActFloat", "select() must return (2, 1) integer base-arm indices, got shape (2, 1) dtype float64 at step 1"),
    ("ActUnavailable", "select() returned index 0, which is not in the available set X_t at step 2"),
    ("AskRecInf", "reported record sigma = inf, not a finite number in ask(), run 0, step 1"),
    ("AskRecShape", "not a number in ask(), run 0, step 1"),
    ("AskRecString", "reported mu = '0.5', not a number in ask(), run 0, step 1"),
    ("AskNegative", "returned index -1, outside the domain (0..7) in ask(), run 0, step 1"),
    ("AskTooLarge", "returned index 8, outside the domain (0..7) in ask(), run 0, step 1"),
    ("AskBool", "returned True (bool), not an integer index in ask(), run 0, step 1"),
    ("AskFloat", "returned 1.0 (float), not an integer index in ask(), run 0, step 1"),
    ("AskUnavailable", "returned index 0, which is not in the available set X_t in ask(), run 0, step 2"),
]


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    path = tmp_path_factory.mktemp("user_output") / "tiny.toml"
    path.write_text(SCENARIO)
    return str(path)


@pytest.mark.parametrize("cls, fragment", CASES, ids=[c for c, _ in CASES])
def test_bad_output_of_user_code_is_refused_naming_the_policy_and_the_step(cls, fragment, scenario):
    with pytest.raises(UserCodeError) as err:
        api.verify("gp_ucb", scenario, algorithm=globals()[cls], policies=[], runs=2, horizon=3, jobs=1,
                   report=False, allow_out_of_theory=True)
    msg = str(err.value)
    assert fragment in msg and "\n" not in msg and f"'{cls}'" in msg, msg


@pytest.mark.parametrize("cls", ["RecInf", "RecComplex", "ActNegative", "AskFloat"])
def test_on_the_command_line_it_is_exit_2_and_one_line(cls, scenario, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("BOUNDCHECK_LOG_DIR", str(tmp_path / "logs"))
    rc = main(["verify", "--theorem", "gp_ucb", "--scenario", scenario, "--algorithm", f"{__file__}:{cls}",
               "--runs", "2", "--horizon", "3", "--jobs", "1", "--no-report", "--allow-out-of-theory",
               "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert rc == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("boundcheck: error: policy '") and dict(CASES)[cls] in lines[0], lines[0]
