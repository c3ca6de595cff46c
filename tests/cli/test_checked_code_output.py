"""What the checked code says is shown.

The warnings a user's algorithm raises in the workers are counted and the first of each kind printed with the
log that holds them (not only buried in ``results/user-code.log``); a conformance violation made only of gaps
the size of float32 round-off says so on the verdict line; the claims table shows the runs that would settle an
inconclusive claim; and the exit codes have one source: ``verify --help`` (``cli.EXIT_CODES_HELP``), the README's
table and docs/cli.md's table list the same codes as :class:`~boundcheck.errors.ExitCode`."""

from __future__ import annotations

import json
import re
import textwrap
import warnings
from pathlib import Path

import pytest

from boundcheck import cli
from boundcheck.cli import main
from boundcheck.cli import verify as cli_verify
from boundcheck.errors import ExitCode
from boundcheck.utils import usercode

ROOT = Path(__file__).resolve().parents[2]
GP_UCB = (ROOT / "examples" / "gp_ucb.py").read_text()

WARNY = GP_UCB + textwrap.dedent("""

    import warnings


    class Warny(MyGPUCB):
        def ask(self, t, available):
            warnings.warn("the model's inputs are float32: use float64", UserWarning)
            if t == 3:
                warnings.warn(f"step {t} is odd", RuntimeWarning)
            return super().ask(t, available)
""")

# GP-UCB computed in float32 throughout (a torch model's default dtype): the same algorithm, its round-off
ROUNDOFF = GP_UCB + textwrap.dedent("""

    class Float32GPUCB(MyGPUCB):
        records = ()

        def __init__(self, ctx):
            super().__init__(ctx)
            self.K, self.m0 = self.K.astype(np.float32), self.m0.astype(np.float32)

        def ask(self, t, available):
            if not self.X:
                mu, sd = self.m0.copy(), np.sqrt(np.diag(self.K))
            else:
                X = np.array(self.X)
                L = np.linalg.cholesky(self.K[np.ix_(X, X)] + np.float32(self.lam) * np.eye(len(X), dtype=np.float32))
                Kx = self.K[:, X]
                mu = self.m0 + Kx @ np.linalg.solve(L.T, np.linalg.solve(L, np.array(self.y, np.float32) - self.m0[X]))
                v = np.linalg.solve(L, Kx.T)
                sd = np.sqrt(np.maximum(np.diag(self.K) - (v * v).sum(0), 0))
            return int(np.argmax(np.where(available, mu + np.float32(self.beta[t]) * sd, -np.inf)))


    class NarrowGPUCB(MyGPUCB):  # a width 0.99x the theorem's: a different algorithm, with larger gaps
        records = ()

        def __init__(self, ctx):
            super().__init__(ctx)
            self.beta = self.beta * 0.99
""")


def _verify(tmp_path: Path, ref: str, *extra: str, out: str = "out") -> int:
    return main(["verify", "--theorem", "gp_ucb", "--algorithm", ref, "--jobs", "1", "--no-report",
                 "--out", str(tmp_path / out), *extra])


# ------------------------------------------------------------------------------------- warnings
def test_the_checked_codes_warnings_are_counted_and_shown(tmp_path, capsys):
    f = tmp_path / "warny.py"
    f.write_text(WARNY)
    rc = _verify(tmp_path, f"{f}:Warny", "--runs", "30", "--horizon", "5")  # two chunks: two tasks' counts
    out = capsys.readouterr().out
    assert rc in (0, 5), out[-3000:]
    text = " ".join(out.split())
    # 30 runs × 5 steps: one UserWarning per ask, one RuntimeWarning at t = 3
    assert "the checked code raised 180 warnings (2 kinds)" in text, out[-3000:]
    assert "UserWarning: the model's inputs are float32: use float64 (warny.py:" in text and "×150)" in text, text
    assert "RuntimeWarning: step 3 is odd (warny.py:" in text and "×30)" in text, text
    assert str(tmp_path / "out" / "results" / "user-code.log") in text, text
    # --json: the same lines on stderr, the JSON document untouched (a resume reads the same log)
    rc = _verify(tmp_path, f"{f}:Warny", "--runs", "30", "--horizon", "5", "--json")
    cap = capsys.readouterr()
    json.loads(cap.out)
    assert "the checked code raised 180 warnings (2 kinds)" in cap.err, cap.err[-2000:]


def test_only_warnings_of_user_calls_are_counted(tmp_path):
    """In a task's sandbox: a warning raised in a user call is counted; one of boundcheck's own code beside it
    is shown as before, not counted as the checked code's."""
    log = tmp_path / usercode.LOG_NAME
    with pytest.warns(UserWarning, match="ours") as seen:  # shown where it would be without the sandbox
        with usercode.sandbox(usercode.SandboxConfig(timeout=None, log=str(log))):
            for _ in range(3):
                usercode.call("user", warnings.warn, "mine", UserWarning)
            warnings.warn("ours", UserWarning, stacklevel=1)
    found = usercode.warnings_in_log(log)
    assert [(w["message"], w["count"]) for w in found] == [("mine", 3)], found
    assert [str(w.message) for w in seen] == ["ours"], [str(w.message) for w in seen]


# ------------------------------------------------------------------------------------- round-off
def test_a_float32_implementation_is_said_to_differ_by_round_off(tmp_path, capsys):
    f = tmp_path / "precision.py"
    f.write_text(ROUNDOFF)
    args = ("--runs", "50", "--horizon", "30")
    assert _verify(tmp_path, f"{f}:Float32GPUCB", *args, out="f32") == 1
    verdict = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("theorem verdict"))
    assert "violated" in verdict and "float32 round-off, not a different algorithm" in verdict, verdict
    assert _verify(tmp_path, f"{f}:NarrowGPUCB", *args, out="narrow") == 1
    verdict = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("theorem verdict"))
    assert "violated" in verdict and "round-off" not in verdict, verdict


def _conformance_summary(gap, verdict: str = "violated", **details) -> dict:
    return {"claims": [{"id": "conformance", "kind": "deterministic", "verdict": verdict,
                        "details": {"max_gap": gap, **details}}]}


@pytest.mark.parametrize("gap, said", [(1.6e-5, True), (9e-5, True), (5e-3, False), (0.0, False)])
def test_the_round_off_note_follows_the_largest_gap(gap, said):
    note = cli_verify._roundoff_note(_conformance_summary(gap))
    assert ("float32 round-off" in note) == said, note
    if said:
        assert f"≤ {gap:.2g} relative" in note, note
    assert cli_verify._roundoff_note(_conformance_summary(gap, verdict="holds")) == ""


def test_the_round_off_note_is_definite_where_the_precision_is_known():
    assert "computes in float32)" in cli_verify._roundoff_note(_conformance_summary(1.6e-5, dtype="float32"))


# ------------------------------------------------------------------------------------- inconclusive
def test_the_table_shows_the_runs_that_would_settle_an_inconclusive_claim(tmp_path, capsys):
    rc = main(["verify", "--theorem", "gp_ucb", "--runs", "4", "--horizon", "5", "--jobs", "1", "--no-report",
               "--out", str(tmp_path / "out")])
    out = capsys.readouterr().out
    summary = json.loads((tmp_path / "out" / "results" / "summary.json").read_text())
    pending = {c["id"]: c["details"]["runs_needed"] for c in summary["claims"]
               if c["verdict"] == "inconclusive" and (c.get("details") or {}).get("runs_needed")}
    assert rc == 0 and pending, summary["claims"]
    for claim, need in pending.items():
        row = next(ln for ln in out.splitlines() if f"│ {claim} " in ln)
        assert f"inconclusive (≈{need} runs)" in row, row
    assert "N runs would settle it" in out


# ------------------------------------------------------------------------------------- exit codes
def _table_codes(path: Path) -> dict[int, str]:
    """The exit-code table of a markdown file: {code: meaning} (a row may give several codes, "130, 143")."""
    text = path.read_text()
    start = text.index("| exit code | meaning |")
    codes = {}
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        first, meaning = (cell.strip() for cell in line.strip("|").split("|", 1))
        for code in first.split(","):
            codes[int(code)] = meaning
    return codes


def _help_codes() -> dict[int, str]:
    return {int(m.group(1)): m.group(2) for m in re.finditer(r"^  (\d+)\s{2,}(.*)$", cli.EXIT_CODES_HELP, re.M)}


def test_the_exit_codes_have_one_source():
    constants = {int(code) for code in ExitCode}
    help_codes = _help_codes()
    readme = _table_codes(ROOT / "README.md")
    docs = _table_codes(ROOT / "docs" / "cli.md")
    assert set(help_codes) == set(readme) == set(docs) == constants, (help_codes, readme, docs, constants)
    for code in constants:  # the same first word: "no claim violated", "incomplete", "interrupted", ...
        words = {re.split(r"[ :(,]", t.strip())[0] for t in (help_codes[code], readme[code], docs[code])}
        if code == ExitCode.TERMINATED:  # shares the row of 130 in both tables
            continue
        assert len(words) == 1, (code, help_codes[code], readme[code], docs[code])


def test_verify_help_ends_with_the_exit_codes(capsys):
    assert main(["verify", "--help"]) == 0
    out = capsys.readouterr().out
    for code, meaning in _help_codes().items():
        assert re.search(rf"^  {code}\s+{re.escape(meaning[:30])}", out, re.M), (code, meaning)
