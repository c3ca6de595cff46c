"""A user's own policy verified against a theorem (ask/tell form, batched form), from the command line
and from pytest; the built-in algorithms as paired baselines; not-applicable claims; user-code errors."""

import json
import os
import re
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from examples_loader import example

from boundcheck import api
from boundcheck.cli import main
from boundcheck.errors import UserCodeError
from boundcheck.policies import Policy
from boundcheck.study.store import ResultStore
from boundcheck.testing import BoundcheckFixture, assert_bound_holds, check_policy, run_check
from boundcheck.world import AlternatingAvailability, get_scenario

ROOT = Path(__file__).resolve().parents[2]
GOOD = str(ROOT / "examples" / "gp_ucb.py") + ":MyGPUCB"
BROKEN = str(ROOT / "examples" / "gp_ucb_broken.py") + ":NarrowGPUCB"


MyGPUCB = example("gp_ucb", "MyGPUCB")
NarrowGPUCB = example("gp_ucb_broken", "NarrowGPUCB")


def _table(out: Path, table: str) -> pd.DataFrame:
    df = ResultStore(out / "results").read_table(table)
    df["algorithm"] = df["algorithm"].astype(str)
    return df


# ------------------------------------------------------------------------------------- the examples
def test_example_verified_from_the_cli_and_the_broken_copy_caught(tmp_path, capsys):
    """examples/gp_ucb.py holds (exit 0, every lemma-level claim applies); the copy with β/20 is caught: the
    optimism step D1 is violated and the exit code is 1, although its regret looks fine."""
    rc = main(["verify", "--theorem", "gp_ucb", "--algorithm", GOOD, "--runs", "30", "--horizon", "30",
               "--jobs", "1", "--out", str(tmp_path / "good"), "--json", "--no-report"])
    good = json.loads(capsys.readouterr().out)
    assert rc == 0 and good["verdict"] != "violated" and good["main_algorithm"] == "MyGPUCB"
    assert good["not_applicable"] == {}
    verdicts = {c["id"]: c["verdict"] for c in good["claims"]}
    assert verdicts["D1_optimism"] == verdicts["D2_intermediate"] == verdicts["D3_information"] == "holds"
    assert verdicts["K1_calibration"] == "holds"
    rc = main(["verify", "--theorem", "gp_ucb", "--algorithm", BROKEN, "--runs", "30", "--horizon", "30",
               "--jobs", "1", "--out", str(tmp_path / "broken"), "--json", "--no-report"])
    bad = json.loads(capsys.readouterr().out)
    assert rc == 1 and bad["verdict"] == "violated"
    verdicts = {c["id"]: c["verdict"] for c in bad["claims"]}
    assert verdicts["D1_optimism"] == "violated"
    assert verdicts["confidence_event"] != "violated"  # a property of the posterior, not of the choice


def test_example_verified_from_pytest_and_the_fixture():
    # 20 runs cannot settle the probability claims at their Holm share: inconclusive is accepted explicitly
    s = assert_bound_holds("gp_ucb", algorithm=MyGPUCB, runs=20, horizon=25, seed=3, scenario="gp_sample_se",
                           allow_inconclusive=True)
    assert s["main_algorithm"] == "MyGPUCB"
    with pytest.raises(AssertionError, match="D1_optimism"):
        assert_bound_holds("gp_ucb", algorithm=NarrowGPUCB, runs=20, horizon=25, seed=3)
    fixture = BoundcheckFixture(runs=10)
    s = fixture.assert_holds("gp_ucb", algorithm=MyGPUCB, horizon=15, allow_inconclusive=True)
    assert s["runs"] == 10


def test_several_algorithms_are_checked_side_by_side():
    s = run_check("gp_ucb", algorithm=[NarrowGPUCB, MyGPUCB], runs=12, horizon=20, seed=4)
    assert s["verdict"] == "violated"
    assert s["checked"]["NarrowGPUCB"]["verdict"] == "violated"
    assert s["checked"]["MyGPUCB"]["verdict"] != "violated"
    with pytest.raises(AssertionError, match="NarrowGPUCB|D1_optimism"):
        assert_bound_holds("gp_ucb", algorithm=[MyGPUCB, NarrowGPUCB], runs=12, horizon=20, seed=4)


# ------------------------------------------------------------------ the adapter and the reference posterior
def test_user_copy_acts_as_the_builtin_and_the_engine_monitors_it_exactly(tmp_path):
    """MyGPUCB (plain numpy, per run) chooses what the built-in GP-UCB chooses (common random numbers), and the
    engine's reference posterior gives it the monitors the built-in gets from its own posterior."""
    run_check("gp_ucb", algorithm=MyGPUCB, runs=6, horizon=20, seed=5, out=tmp_path)
    steps = _table(tmp_path, "steps")
    mine, ref = steps[steps.algorithm == "MyGPUCB"], steps[steps.algorithm == "gp_ucb"]
    np.testing.assert_array_equal(mine["idx"].to_numpy(), ref["idx"].to_numpy())
    for col in ("z_all", "z_chosen", "innov", "mu", "sigma", "ucb"):
        np.testing.assert_allclose(mine[col].to_numpy(), ref[col].to_numpy(), rtol=1e-9, atol=1e-9)


def test_builtin_baselines_keep_their_random_streams(tmp_path):
    """Adding a user algorithm never changes what the built-in (randomised) algorithms do."""
    run_check("gp_ts", scenario="rkhs_paper", runs=4, horizon=12, seed=6, out=tmp_path / "plain")
    run_check("gp_ts", scenario="rkhs_paper", runs=4, horizon=12, seed=6, out=tmp_path / "user", algorithm=MyGPUCB)
    a, b = _table(tmp_path / "plain", "steps"), _table(tmp_path / "user", "steps")
    # conform_z: the conformance monitor of MyGPUCB's shadow (a gp_ts), a column the baselines leave empty
    b = b[b.algorithm != "MyGPUCB"].drop(columns=["conform_z"]).reset_index(drop=True)
    assert set(a.algorithm) == set(b.algorithm) == {"gp_ts", "igp_ucb", "gp_ucb", "gp_ei", "gp_pi", "random"}
    pd.testing.assert_frame_equal(a[b.columns], b, check_exact=True, check_categorical=False)


def test_claims_without_their_records_are_not_applicable_and_said_so(tmp_path):
    from asktell_policies import Uniform  # uniformly random queries, reporting nothing

    # with its conformance shadow, the claims that read records are judged on the shadow's (at Uniform's actions),
    # and conformance itself says Uniform is not GP-UCB
    s = api.verify("gp_ucb", runs=8, horizon=10, seed=1, algorithm=Uniform, jobs=1, out=tmp_path / "on")
    assert not s["not_applicable"] and set(s["settled_otherwise"]) == {"D1_optimism", "D3_information"}
    assert next(c for c in s["claims"] if c["id"] == "conformance")["verdict"] == "violated"
    # without the shadow (--no-conformance) they are not applicable, and said so with what they need
    s = api.verify("gp_ucb", runs=8, horizon=10, seed=1, algorithm=Uniform, jobs=1, out=tmp_path / "off",
                   conformance=False)
    na = {c["id"]: c["details"]["reason"] for c in s["claims"] if c["verdict"] == "not applicable"}
    assert na == s["not_applicable"]
    assert set(na) == {"D1_optimism", "D2_intermediate", "D3_information", "conformance"}
    assert na["D1_optimism"].startswith("needs sigma, ucb") and na["D3_information"].startswith("needs sigma")
    live = {c["id"] for c in s["claims"] if c["verdict"] != "not applicable"}
    assert live == {"regret_bound", "regret_bound_anytime", "confidence_event", "K1_calibration"}
    html = Path(s["report"]["html"]).read_text()
    assert "Not applicable" in html and "needs sigma, ucb" in html


def test_wrong_noise_in_a_user_posterior_is_caught():
    """A planted defect in the user's model (λ = 1 instead of R²): its reported σ contradicts the information
    gain of its own queries, so the chain-rule claim D3 is violated."""

    class WrongNoise(MyGPUCB):
        def __init__(self, ctx):
            super().__init__(ctx)
            self.lam = 1.0

    s = run_check("gp_ucb", algorithm=WrongNoise, runs=6, horizon=15, seed=2)
    assert {c["id"]: c["verdict"] for c in s["claims"]}["D3_information"] == "violated"


def test_check_policy_accepts_ask_tell_classes():
    check_policy(MyGPUCB)

    class Outside:
        def __init__(self, ctx):
            self.n = ctx.n

        def ask(self, t, available):
            return self.n  # one past the last point

        def tell(self, x, y):
            pass

    with pytest.raises(UserCodeError, match="outside the domain"):
        check_policy(Outside)


# ----------------------------------------------------------------------------------- user-code errors
class _Base:
    def __init__(self, ctx):
        self.ctx = ctx

    def tell(self, x, y):
        pass


class Raises(_Base):
    def ask(self, t, available):
        if self.ctx.run == 3 and t == 5:
            raise ZeroDivisionError("boom")
        return int(np.flatnonzero(available)[0])


class NotAnInteger(_Base):
    def ask(self, t, available):
        return 1.0


class Unavailable(_Base):
    def ask(self, t, available):
        return 0


@pytest.mark.parametrize("cls, match", [
    (Raises, r"policy 'Raises' \(.*Raises\) raised ZeroDivisionError: boom \(.*test_user_policies.py, line \d+\) "
             r"in ask\(\), run 3, step 5"),
    (NotAnInteger, r"policy 'NotAnInteger' .* returned 1.0 \(float\), not an integer index in ask\(\), run 0, step 1"),
    (Unavailable, r"returned index 0, which is not in the available set X_t in ask\(\), run 0, step 2"),
])
def test_user_code_errors_name_the_policy_the_run_and_the_step(cls, match):
    sc = get_scenario("gp_sample_se")
    mask = np.ones(sc.domain.n, dtype=bool)
    mask[0] = False
    sc = replace(sc, availability=AlternatingAvailability(mask))  # point 0 unavailable on even t
    with pytest.raises(UserCodeError, match=match):  # X_t changes: outside Theorem 1, run anyway
        run_check("gp_ucb", scenario=sc, algorithm=cls, runs=5, horizon=6, allow_out_of_theory=True)


def test_a_batched_user_policy_that_raises_is_a_user_code_error():
    class Batched(Policy):
        name = "batched"

        def select(self, t, available):
            if t == 3:
                raise RuntimeError("no more ideas")
            return np.zeros((self.ctx.runs, 1), dtype=np.int64)

        def update(self, t, action, y):
            pass

    with pytest.raises(UserCodeError, match=r"policy 'batched' .* raised RuntimeError: no more ideas in select\(\), "
                                            r"runs 0–3, step 3"):
        run_check("gp_ucb", algorithm=Batched, runs=4, horizon=5)


FLAKY = '''
import os

MODE_FILE = {mode_file!r}


class Flaky:
    """fails (or raises KeyboardInterrupt) from run FROM on while MODE_FILE holds "MODE FROM" (a file, not the
    environment: user code runs in worker processes, which may have started before the test set it)"""

    def __init__(self, ctx):
        self.run = ctx.run

    def ask(self, t, available):
        mode, start = open(MODE_FILE).read().split() if os.path.exists(MODE_FILE) else (None, "25")
        if mode and self.run >= int(start) and t == 2:
            if mode == "interrupt":
                raise KeyboardInterrupt
            raise ValueError("flaky")
        return 0

    def tell(self, x, y):
        pass
'''


@pytest.mark.parametrize("mode, code", [("raise", 2), ("interrupt", 2)])
def test_an_error_or_ctrl_c_keeps_the_finished_runs_and_a_rerun_resumes(tmp_path, monkeypatch, capsys, mode, code):
    """The failure strikes after the first batch a worker would simulate (a batch is several consecutive 25-run
    chunks, ``runner.plan_tasks``; user code runs one chunk per task): every chunk before it is finished, stored
    and kept, and a rerun resumes. A KeyboardInterrupt raised by the policy is its error (exit 2), not a Ctrl-C."""
    from boundcheck.study.runner import plan_tasks

    path = tmp_path / "flaky.py"
    mode_file = tmp_path / "fail-mode"
    path.write_text(FLAKY.format(mode_file=str(mode_file)))
    out = tmp_path / "out"
    runs = 300
    spec = api.build_study("gp_ucb", runs=runs, horizon=4, algorithm=f"{path}:Flaky")
    first = [c for c, _ in plan_tasks(spec, list(range(spec.n_chunks)), 1)[0]]
    assert 1 < len(first) < spec.n_chunks
    # Flaky always queries 0, deliberately not GP-UCB: its conformance is off (else it is violated, exit 1)
    argv = ["verify", "--theorem", "gp_ucb", "--algorithm", f"{path}:Flaky", "--runs", str(runs), "--horizon", "4",
            "--jobs", "1", "--out", str(out), "--no-report", "--json", "--no-conformance",
            "--allow-incomplete"]  # Flaky records nothing: its lemma-level claims are not judged (exit 5 without)
    mode_file.write_text(f"{mode} {len(first) * spec.chunk_size}")
    assert main(argv) == code
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    if mode == "raise":
        assert "policy 'Flaky'" in err[0] and "ValueError: flaky" in err[0]
        assert f"run {len(first) * spec.chunk_size}, step 2" in err[0]
    else:
        assert "policy 'Flaky'" in err[0] and "KeyboardInterrupt" in err[0]
    store = ResultStore(out / "results")
    assert store.done_chunks() == set(first)  # the runs of the first batch finished before the failure: kept
    stamp = store.chunk_path("runs", 0).stat().st_mtime_ns
    mode_file.unlink()
    assert main(argv) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["runs"] == runs and store.done_chunks() == set(range(spec.n_chunks))
    assert store.chunk_path("runs", 0).stat().st_mtime_ns == stamp  # resumed, not recomputed


FAILS_EARLY = '''
class FailsEarly:
    """fails in the runs of the first chunk (0-24): with --jobs 2, those a loky worker simulates"""

    def __init__(self, ctx):
        self.run = ctx.run

    def ask(self, t, available):
        if self.run < 25 and t == 2:
            raise ValueError("early")
        return 0

    def tell(self, x, y):
        pass
'''


def test_a_failure_in_a_loky_worker_is_one_line_and_keeps_the_parents_runs(tmp_path, capsys):
    """With ``--jobs 2`` two worker processes simulate (user code never runs in the parent): one's error reaches
    the user as the same one-line error (exit 2) as in process, and the other's finished chunk is stored."""
    path = tmp_path / "early.py"
    path.write_text(FAILS_EARLY)
    out = tmp_path / "out"
    argv = ["verify", "--theorem", "gp_ucb", "--algorithm", f"{path}:FailsEarly", "--runs", "50", "--horizon", "4",
            "--jobs", "2", "--out", str(out), "--no-report", "--json"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "policy 'FailsEarly'" in err[0] and "ValueError: early" in err[0], err
    store = ResultStore(out / "results")
    assert store.done_chunks() == {1}
    assert store.read_manifest()["chunks"]["1"]["pid"] != os.getpid()


def test_policy_files_can_import_their_siblings(tmp_path):
    (tmp_path / "helpers.py").write_text("def first(available):\n    return int(available.nonzero()[0][0])\n")
    (tmp_path / "mine.py").write_text(
        "from helpers import first\n\nclass Mine:\n    def __init__(self, ctx):\n        pass\n"
        "    def ask(self, t, available):\n        return first(available)\n    def tell(self, x, y):\n"
        "        pass\n")
    before = set(sys.path)
    # two chunks: the parent simulates one, a loky worker (which must find the sibling module) the other
    s = run_check("gp_ucb", algorithm=f"{tmp_path / 'mine.py'}:Mine", runs=30, horizon=5, jobs=2,
                  out=tmp_path / "out")
    assert s["main_algorithm"] == "Mine"
    pids = {info["pid"] for info in ResultStore(tmp_path / "out" / "results").read_manifest()["chunks"].values()}
    assert pids - {os.getpid()}, "no chunk ran in a worker process"
    assert set(sys.path) == before
    os.environ.pop("BOUNDCHECK_TEST_FAIL", None)


def test_the_reference_posterior_follows_a_drifting_truth(tmp_path):
    """ε > 0: the engine's reference posterior of a policy that hides its model (Kalman predict between steps)
    gives the monitors the built-in oracle TV-GP-UCB gets from its own posterior, choice for choice."""
    from boundcheck.model.posterior import BatchedPosterior
    from boundcheck.study.sweep import vary_scenario

    class HiddenTV(Policy):
        name = "hidden_tv"

        def start(self, ctx):
            super().start(ctx)
            self._post = BatchedPosterior([ctx.truth], ctx.noise_var, ctx.runs)  # not exposed as `posterior`

        def select(self, t, available):
            mu, sd = self._post.mean()[:, 0], self._post.sd()[:, 0]
            return self.ctx.actions.oracle(mu + self.ctx.beta[t] * sd, available)

        def update(self, t, action, y):
            self._post.condition_batch(action, y)
            self._post.propagate()

    sc = vary_scenario(get_scenario("gp_sample_se"), {"epsilon": 0.05})
    run_check("gp_ucb", scenario=sc, algorithm=HiddenTV, policies=["oracle_tv_gp_ucb"], runs=5, horizon=15, seed=8,
              out=tmp_path, allow_out_of_theory=True)  # ε > 0: outside Theorem 1, run for the engine's monitors
    steps = _table(tmp_path, "steps")
    mine, ref = steps[steps.algorithm == "hidden_tv"], steps[steps.algorithm == "oracle_tv_gp_ucb"]
    np.testing.assert_array_equal(mine["idx"].to_numpy(), ref["idx"].to_numpy())
    for col in ("z_all", "z_chosen", "innov"):
        np.testing.assert_allclose(mine[col].to_numpy(), ref[col].to_numpy(), rtol=1e-12, atol=1e-12)


def test_ask_tell_gp_ts_reporting_draw_dev_turns_on_the_concentration_claim():
    """GP-TS is checked on its draws: an ask/tell GP-TS that reports ``draw_dev`` gets Lemma 5's
    concentration claim; the claims that read the built-in GP-TS's draws and monitors stay not applicable (and
    take no share of the false-alarm budget)."""

    class MyTS:
        records = ("draw_dev",)

        def __init__(self, ctx):
            self.n = ctx.n

        def ask(self, t, available):
            self.record = {"draw_dev": 0.0}
            return int(np.flatnonzero(available)[0])

        def tell(self, index, y):
            pass

    spec = api.build_study("gp_ts", runs=2, horizon=5, algorithm=MyTS)
    na = spec.not_applicable[spec.checked_algorithms[0]]
    assert "ts_sample_concentration" not in na and "confidence_event" not in na
    assert {"ts_sample_calibration", "ts_anticoncentration", "D2_ts_step"} <= set(na)


def test_a_policy_file_has_the_same_resume_key_in_every_process(tmp_path):
    """The resume key of a study of a user's policy file does not depend on the process (a fresh command must
    resume what an interrupted one stored): the file's module name is derived from its path, not from hash()."""
    import subprocess

    path = tmp_path / "mine.py"
    path.write_text("class Mine:\n    def __init__(self, ctx):\n        pass\n    def ask(self, t, available):\n"
                    "        return 0\n    def tell(self, x, y):\n        pass\n")
    code = ("from boundcheck import api; "
            f"print(api.build_study('gp_ucb', runs=4, horizon=3, algorithm={str(path) + ':Mine'!r}).key)")
    keys = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout.strip() for seed in ("1", "2")}
    assert len(keys) == 1 and "" not in keys


def test_a_not_applicable_identity_reads_not_applicable_everywhere(tmp_path, capsys):
    """A sanity identity that reads records the checked code does not declare is "not
    applicable" in the terminal, the HTML and the LaTeX report — never "BROKEN" or "0/0 violated"."""
    path = tmp_path / "first_ts.py"
    path.write_text("import numpy as np\nclass FirstTS:\n    def __init__(self, ctx):\n        pass\n"
                    "    def ask(self, t, available):\n        return int(np.flatnonzero(available)[0])\n"
                    "    def tell(self, x, y):\n        pass\n")
    code = main(["verify", "--theorem", "gp_ts", "--runs", "6", "--horizon", "6", "--jobs", "1",
                 "--algorithm", f"{path}:FirstTS", "--out", str(tmp_path / "out")])
    text = capsys.readouterr().out
    assert code in (0, 1, 5), text
    summary = json.loads((tmp_path / "out" / "results" / "summary.json").read_text())
    na = [c["id"] for c in summary["claims"] if c["kind"] == "identity" and c["verdict"] == "not applicable"]
    assert na, "the test needs an identity that is not applicable to the user's class"
    line = " ".join(text[text.index("sanity identities"):].split("\n\n")[0].split())  # rich wraps long lines
    assert all(f"{cid} not applicable" in line for cid in na) and "BROKEN" not in line, line
    html = re.sub(r"base64,[A-Za-z0-9+/=]+", "base64,", (tmp_path / "out" / "index.html").read_text())  # figures
    tex = (tmp_path / "out" / "report.tex").read_text()
    assert "BROKEN" not in tex and "0/0" not in html
    for cid in na:
        row = html[html.index(f'<span class="id">{cid}</span>'):][:3000]
        assert "badge na" in row.split("</tr>")[0], row[:500]


def test_two_policy_files_with_same_named_siblings_each_import_their_own(tmp_path):
    """Two project folders each with a helpers.py: the second policy file imports its own helpers, not the first
    folder's module of that name left in this process."""
    for name, body in (("a", "def first(available):\n    return int(available.nonzero()[0][0])\n"),
                       ("b", "def last(available):\n    return int(available.nonzero()[0][-1])\n")):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "helpers.py").write_text(body)
        pick = "first" if name == "a" else "last"
        (folder / "mine.py").write_text(
            f"from helpers import {pick}\n\nclass Mine:\n    def __init__(self, ctx):\n        pass\n"
            f"    def ask(self, t, available):\n        return {pick}(available)\n    def tell(self, x, y):\n"
            "        pass\n")
    for name in ("a", "b"):
        s = run_check("gp_ucb", algorithm=f"{tmp_path / name / 'mine.py'}:Mine", runs=4, horizon=3, jobs=1,
                      out=tmp_path / f"out_{name}", allow_incomplete=True)
        assert s["main_algorithm"] == "Mine"
