"""Mutation run (issue 10): plant each of a documented list of one-line defects in the posterior, the samplers
and every policy, run the relevant tests on the mutated copy, and print which tests caught it.

Every mutation below is one line of source replaced by one line, in a throw-away copy of the committed tree
(``git archive HEAD``); the working tree is never touched. A mutation is *caught* when at least one test fails.
The regression pins (tests/test_regression.py) would catch every mutation that changes a number; they are left
out on purpose, so that what catches each defect is a test of correctness (an independent computation, a claim
of a theorem), not a pinned value.

    python benchmarks/mutation.py                 # every mutation (≈ 20–40 min on 2 busy cores)
    python benchmarks/mutation.py --only T1 P2    # some of them
    python benchmarks/mutation.py --list          # the documented list
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# test subsets: what a change in that code must break
MODEL = ["tests/test_engine.py", "tests/test_policies.py", "tests/test_kernelized.py",
         "tests/test_verify.py::test_in_theory_no_claim_violated",
         "tests/test_verify.py::test_well_specified_sensors_hold"]
POLICY = ["tests/test_policies.py", "tests/test_kernelized.py::test_default_scenario_in_theory_no_claim_violated",
          "tests/test_verify.py::test_in_theory_no_claim_violated"]


@dataclass(frozen=True)
class Mutation:
    id: str
    file: str
    old: str
    new: str
    what: str
    tests: tuple[str, ...]


MUTATIONS = (
    # ------------------------------------------------------------------ the posterior (model/posterior.py)
    Mutation("P1", "boundcheck/model/posterior.py", "v = s[k, idx_s] + self.noise_var",
             "v = s[k, idx_s] + 2 * self.noise_var", "posterior update with twice the noise variance", tuple(MODEL)),
    Mutation("P2", "boundcheck/model/posterior.py", "self.c[g] *= 1.0 - e", "self.c[g] *= 1.0",
             "ε prediction step: the covariance never decays", tuple(MODEL)),
    Mutation("P3", "boundcheck/model/posterior.py", "self.dev[:, self.members[g]] *= np.sqrt(1.0 - e)",
             "self.dev[:, self.members[g]] *= 1.0 - e", "ε prediction step: the mean decays at the wrong rate",
             tuple(MODEL)),
    Mutation("P4", "boundcheck/model/posterior.py", "resid = y_s - mu_at[:, p]",
             "resid = y_s - self.prior_mean[p, idx_s]", "residual against the prior mean, not the posterior mean",
             tuple(MODEL)),
    Mutation("P5", "boundcheck/model/posterior.py",
             "u = gvals[rows, self.X[:, :t]] + np.sqrt(self.post.noise_var) * z[:, r:]",
             "u = gvals[rows, self.X[:, :t]]", "pathwise sampler: pseudo-noise dropped (draws too narrow)",
             tuple(MODEL)),
    Mutation("P6", "boundcheck/model/posterior.py", "gain = s / (s[rows, idx] + post.noise_var)[:, None]",
             "gain = s / (s[rows, idx] + 2 * post.noise_var)[:, None]", "pathwise sampler: wrong gain",
             tuple(MODEL)),
    # ------------------------------------------------------------------ the samplers (model/sampling.py, engine)
    Mutation("S1", "boundcheck/model/sampling.py",
             "self._dev = self.rho * self._dev + self.sqrt_eps * self._draw(rngs)",
             "self._dev = self._dev + self.sqrt_eps * self._draw(rngs)", "ε chain without the √(1−ε) shrinkage",
             tuple(MODEL)),
    Mutation("S2", "boundcheck/model/sampling.py", "f = self.prior.mean + self._dev", "f = self._dev",
             "GP truth drawn without its prior mean (first step)", tuple(MODEL)),
    Mutation("S3", "boundcheck/model/sampling.py",
             "alpha = alpha * (fam.scale_to / np.maximum(norms, 1e-300))[:, None]", "alpha = alpha * fam.scale_to",
             "RKHS truth not rescaled to its stated norm", tuple(MODEL)),
    Mutation("S4", "boundcheck/study/engine.py",
             "eps_t = R_data * np.stack([g.standard_normal(K) for g in noise_rngs])",
             "eps_t = 0.5 * R_data * np.stack([g.standard_normal(K) for g in noise_rngs])",
             "observation noise drawn at half its level", tuple(MODEL)),
    # ------------------------------------------------------------------ every policy
    Mutation("PE1", "boundcheck/policies/pe_gp_ucb.py", "self.w_t = beta_t * self.sd_t", "self.w_t = self.sd_t",
             "PE-GP-UCB: w_t without β (over-eager elimination)", tuple(POLICY)),
    Mutation("PE2", "boundcheck/policies/pe_gp_ucb.py",
             "fails = np.abs(self.sum_eta[r, p]) > np.sqrt(self.ctx.xi[t] * self.count[r, p]) + self.sum_w[r, p]",
             "fails = np.abs(self.sum_eta[r, p]) > np.sqrt(self.ctx.xi[t]) + self.sum_w[r, p]",
             "PE-GP-UCB: noise threshold without |S^p|", tuple(POLICY)),
    Mutation("PE3", "boundcheck/policies/pe_gp_ucb.py",
             "flat = masked_argmax(ucb, self.active[:, :, None] & avail[:, None, :])",
             "flat = masked_argmax(ucb, self.active[:, :, None] & np.ones_like(avail)[:, None, :])",
             "PE-GP-UCB: argmax over X instead of X_t (C5)", tuple(POLICY)),
    Mutation("U1", "boundcheck/policies/gp_ucb.py", "ucb = mu + w * sd", "ucb = mu + sd",
             "GP-UCB / IGP-UCB: width β_t dropped", tuple(POLICY)),
    Mutation("T1", "boundcheck/policies/gp_ts.py", "f_t = mu + v * h", "f_t = mu + 0.05 * v * h",
             "GP-TS: sampler scaled by 0.05 (the issue's example)", tuple(POLICY)),
    Mutation("T2", "boundcheck/policies/gp_ts.py", "self.paths.observe(action[:, 0])  # reads",
             "self.paths.observe(np.zeros_like(action[:, 0]))  # reads",
             "GP-TS: the sampler conditions on the wrong point", tuple(POLICY)),
    Mutation("O1", "boundcheck/policies/tv_gp_ucb.py", "        self.posterior.propagate()", "        pass",
             "oracle TV-GP-UCB: no ε prediction step", tuple(POLICY)),
    Mutation("M1", "boundcheck/policies/prior_selection.py", "p_t = np.argmax(post.loglik, axis=1)",
             "p_t = np.argmin(post.loglik, axis=1)", "MLE: the least likely prior", tuple(POLICY)),
    Mutation("F1", "boundcheck/policies/prior_selection.py", "weights = softmax(post.loglik, axis=1)",
             "weights = softmax(-post.loglik, axis=1)", "fully Bayesian: inverted posterior weights", tuple(POLICY)),
    Mutation("R1", "boundcheck/policies/regret_balancing.py",
             "u_t = np.argmin(np.where(self.active, self.count, np.iinfo(np.int64).max), axis=1)",
             "u_t = np.argmax(np.where(self.active, self.count, -1), axis=1)",
             "regret balancing: the most-used prior", tuple(POLICY)),
    Mutation("I1", "boundcheck/policies/improvement.py", "return diff * norm.cdf(z) + sd * norm.pdf(z)",
             "return diff * norm.cdf(z)", "GP-EI: exploration term dropped", tuple(POLICY)),
    Mutation("I2", "boundcheck/policies/improvement.py", "return norm.cdf(z)", "return norm.cdf(-z)",
             "GP-PI: probability of no improvement", tuple(POLICY)),
    Mutation("RS1", "boundcheck/policies/random_search.py",
             "return np.array([[choices[g.integers(choices.size)]] for g in self.ctx.rngs], dtype=np.int64)",
             "return np.array([[choices[0]] for g in self.ctx.rngs], dtype=np.int64)",
             "random search: always the first available arm", tuple(POLICY)),
)


def _copy_tree(dest: Path) -> None:
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)


def run(m: Mutation, python: str) -> tuple[list[str], float]:
    with tempfile.TemporaryDirectory(prefix=f"mutant-{m.id}-") as tmp:
        tree = Path(tmp)
        _copy_tree(tree)
        path = tree / m.file
        src = path.read_text()
        if src.count(m.old) != 1:
            raise SystemExit(f"mutation {m.id}: {m.old!r} occurs {src.count(m.old)} times in {m.file}")
        path.write_text(src.replace(m.old, m.new))
        t0 = time.perf_counter()
        proc = subprocess.run([python, "-m", "pytest", "-q", "--tb=no", "-rf", "-p", "no:cacheprovider",
                               "-p", "no:warnings", "--maxfail=4", *m.tests], cwd=tree,
                              env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin", "HOME": tmp},
                              capture_output=True, text=True)
        failed = re.findall(r"^FAILED (\S+)", proc.stdout, re.M)
        errors = re.findall(r"^ERROR (\S+)", proc.stdout, re.M)
        return failed + errors, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    chosen = [m for m in MUTATIONS if not args.only or m.id in args.only]
    if args.list:
        for m in chosen:
            print(f"{m.id:4} {m.file}: {m.what}\n     - {m.old}\n     + {m.new}")
        return 0
    python = sys.executable
    missed = []
    for m in chosen:
        caught, secs = run(m, python)
        tag = "CAUGHT" if caught else "MISSED"
        print(f"{m.id:4} {tag} ({secs:4.0f} s) {m.what}")
        for t in caught:
            print(f"       by {t}")
        if not caught:
            missed.append(m.id)
    print(f"\n{len(chosen) - len(missed)}/{len(chosen)} mutations caught" + (f"; missed: {missed}" if missed else ""))
    return 1 if missed else 0


if __name__ == "__main__":
    shutil.which("git") or sys.exit("git is needed")
    sys.exit(main())
