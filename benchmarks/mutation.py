"""Mutation run (issues 10 and 24): plant each of a documented list of one-line defects in the posterior, the
samplers, every policy (the papers' own included), the schedules, the error control and the resume key, run the
relevant tests on the mutated copy, and print which tests caught it (last measured: 50/50, docs/verdicts.md).

Every mutation below is one line of source replaced by one line, in a throw-away copy of the committed tree
(``git archive HEAD``); the working tree is never touched. A mutation is *caught* when at least one test fails.
The regression pins (tests/test_regression.py) would catch every mutation that changes a number; they are left
out on purpose, so that what catches each defect is a test of correctness (an independent computation, a claim
of a theorem), not a pinned value.

    python benchmarks/mutation.py                 # every mutation (≈ 30–45 min on 2 busy cores)
    python benchmarks/mutation.py --only EC1 EC2 EC3 EC4 EC5 EC6 K1   # issue 24's error control (≈ 3 min)
    python benchmarks/mutation.py --only T1 P2    # some of them
    python benchmarks/mutation.py --only SC3 --no-baseline   # one, without first running its tests unmutated
    python benchmarks/mutation.py --list          # the documented list, with each one's tests
    python benchmarks/mutation.py --check         # only: does every mutation still apply to HEAD? (seconds)

The benchmark is honest about itself: before anything runs, every mutation must apply to HEAD (its ``old`` line
found exactly once in its ``file``, the mutant compiling); the tests the chosen mutations name must then pass on the
unmutated tree; and pytest must have run them (not a usage error or an empty selection). Any of these failing is
an error of the benchmark (exit 2), never a mutation "caught", "survived" or silently left out. Exit 0: every
mutation caught; 1: some survived (listed). After the code moves (a file renamed, a line rewritten), update the
mutation's ``file``/``old``/``new`` so that it plants the same defect.

The measured table (id, defect, the tests that caught it) and the catch rate are in docs/verdicts.md, "Mutation
run".
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
         "tests/test_verify.py::test_well_specified_sensors_hold", "tests/test_samplers.py"]
ERRCTL = ["tests/test_error_control.py"]
KEY = ["tests/test_resume_key.py"]
SAMPLERS = ["tests/test_samplers.py"]
SCHEDULES = ["tests/test_schedules.py"]
POLICY = ["tests/test_policies.py", "tests/test_kernelized.py::test_default_scenario_in_theory_no_claim_violated",
          "tests/test_verify.py::test_in_theory_no_claim_violated"]
TS_DRAWS = "tests/test_paper_policies.py::test_gp_ts_draws_are_n_mu_v2_sigma2_at_the_recorded_points"
# Zhou & Shroff's R-/SW-GP-UCB
VB = ["tests/test_variation_budget.py", "tests/test_schedules.py", "tests/test_paper_policies.py"]
ET = ["tests/test_et_gp_ucb.py::test_trigger_is_strict_keeps_the_point_and_restarts_t_prime",
      "tests/test_et_gp_ucb.py::test_every_theorem_holds_in_theory", "tests/test_schedules.py"]
COMB = ["tests/test_combinatorial.py", "tests/test_paper_policies.py"]


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
    Mutation("P1", "boundcheck/model/posterior.py",
             "                v = s[k, idx_s] + self.noise_var  # predictive variance of y",
             "                v = s[k, idx_s] + 2 * self.noise_var  # predictive variance of y",
             "posterior update with twice the noise variance", tuple(MODEL)),
    Mutation("P2", "boundcheck/model/posterior.py", "self.c[g] *= 1.0 - e", "self.c[g] *= 1.0",
             "ε prediction step: the covariance never decays", tuple(MODEL)),
    Mutation("P3", "boundcheck/model/posterior.py", "self.dev[:, self.members[g]] *= np.sqrt(1.0 - e)",
             "self.dev[:, self.members[g]] *= 1.0 - e", "ε prediction step: the mean decays at the wrong rate",
             tuple(MODEL)),
    Mutation("P4", "boundcheck/model/posterior.py", "resid = y_s[:, None] - mu_at[:, mb]  # (k, P_g)",
             "resid = y_s[:, None] - 0.0 * mu_at[:, mb]  # (k, P_g)",
             "residual against zero (the prior mean of the test priors), not the posterior mean",
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
             "eps_t = noise_draws.next()  # (m, K): one draw per base arm",
             "eps_t = 0.5 * noise_draws.next()  # (m, K): one draw per base arm",
             "observation noise drawn at half its level", (*MODEL, "tests/test_engine_noise.py")),
    # ------------------------------------------------------------------ every policy
    Mutation("PE1", "boundcheck/papers/pe_gp_ucb/pe_gp_ucb.py",
             "self.w_t = self.ctx.beta[t] * self.sd_t  # frozen before y_t (C8)",
             "self.w_t = self.sd_t  # frozen before y_t (C8)",
             "PE-GP-UCB: w_t without β (over-eager elimination)", tuple(POLICY)),
    Mutation("PE2", "boundcheck/papers/pe_gp_ucb/pe_gp_ucb.py",
             "fails = np.abs(self.sum_eta[r, p]) > np.sqrt(self.ctx.xi[t] * self.count[r, p]) + self.sum_w[r, p]",
             "fails = np.abs(self.sum_eta[r, p]) > np.sqrt(self.ctx.xi[t]) + self.sum_w[r, p]",
             "PE-GP-UCB: noise threshold without |S^p|", tuple(POLICY)),
    Mutation("PE3", "boundcheck/papers/pe_gp_ucb/pe_gp_ucb.py",
             "flat = masked_argmax(score, self.active[:, :, None] & avail[:, None, :])",
             "flat = masked_argmax(score, self.active[:, :, None] & np.ones_like(avail)[:, None, :])",
             "PE-GP-UCB: argmax over X instead of X_t (C5)", tuple(POLICY)),
    Mutation("U1", "boundcheck/policies/gp_ucb.py", "self.width = ctx.schedule(self.name)",
             "self.width = np.ones_like(ctx.schedule(self.name))",
             "GP-UCB / IGP-UCB: width β_t dropped", tuple(POLICY)),
    Mutation("T1", "boundcheck/policies/gp_ts.py", "f_t = mu + v * h", "f_t = mu + 0.05 * v * h",
             "GP-TS: sampler scaled by 0.05 (the issue's example)", (*POLICY, TS_DRAWS)),
    Mutation("T2", "boundcheck/policies/gp_ts.py", "self.paths.observe(action[:, 0])  # reads",
             "self.paths.observe(np.zeros_like(action[:, 0]))  # reads",
             "GP-TS: the sampler conditions on the wrong point", (*POLICY, TS_DRAWS)),
    Mutation("O1", "boundcheck/papers/et_gp_ucb/tv_gp_ucb.py", "        self.posterior.propagate()", "        pass",
             "oracle TV-GP-UCB: no ε prediction step", tuple(POLICY)),
    Mutation("M1", "boundcheck/papers/pe_gp_ucb/prior_selection.py", "p_t = np.argmax(post.loglik, axis=1)",
             "p_t = np.argmin(post.loglik, axis=1)", "MLE: the least likely prior", tuple(POLICY)),
    Mutation("F1", "boundcheck/papers/pe_gp_ucb/prior_selection.py",
             "self.weights = softmax(self.posterior.loglik, axis=1)",
             "self.weights = softmax(-self.posterior.loglik, axis=1)", "fully Bayesian: inverted posterior weights",
             tuple(POLICY)),
    Mutation("R1", "boundcheck/papers/pe_gp_ucb/regret_balancing.py",
             "u_t = np.argmin(np.where(self.active, self.count, np.iinfo(np.int64).max), axis=1)",
             "u_t = np.argmax(np.where(self.active, self.count, -1), axis=1)",
             "regret balancing: the most-used prior", tuple(POLICY)),
    Mutation("I1", "boundcheck/policies/improvement.py", "return diff * ndtr(z) + sd * _pdf(z)",
             "return diff * ndtr(z)", "GP-EI: exploration term dropped", tuple(POLICY)),
    Mutation("I2", "boundcheck/policies/improvement.py", "return ndtr(z)", "return ndtr(-z)",
             "GP-PI: probability of no improvement", tuple(POLICY)),
    Mutation("RS1", "boundcheck/policies/random_search.py",
             "return np.array([[choices[g.integers(choices.size)]] for g in self.ctx.rngs], dtype=np.int64)",
             "return np.array([[choices[0]] for g in self.ctx.rngs], dtype=np.int64)",
             "random search: always the first available arm", tuple(POLICY)),
    # ------------------------------------------------------------------ the papers' own policies (issue 24, item 8)
    Mutation("ZS1", "boundcheck/papers/r_sw_gp_ucb/restart_gp_ucb.py",
             "if t % self.window == 0:  # round t + 1 opens a block: (t + 1 − 1) mod H = 0",
             "if (t + 1) % self.window == 0:  # round t + 1 opens a block: (t + 1 − 1) mod H = 0",
             "R-GP-UCB: restarts one round early (the reset rule before correction ZS13)", tuple(VB)),
    Mutation("SW1", "boundcheck/papers/r_sw_gp_ucb/restart_gp_ucb.py",
             "make_posterior(ctx.candidates[:1], ctx.noise_var, ctx.runs, window=self.window)",
             "make_posterior(ctx.candidates[:1], ctx.noise_var, ctx.runs, window=self.window + 1)",
             "SW-GP-UCB: keeps w + 1 samples (the pseudocode's 1∨(t−w)..t, correction ZS14)", tuple(VB)),
    Mutation("ET1", "boundcheck/papers/et_gp_ucb/et_gp_ucb.py",
             "kappa = np.sqrt(rho) * (self.sd_t + self.sigma_n)  # from the pre-update posterior",
             "kappa = np.sqrt(rho) * self.sd_t  # from the pre-update posterior",
             "ET-GP-UCB: trigger threshold κ_t without σ_n (resets on noise)", tuple(ET)),
    Mutation("ET2", "boundcheck/papers/et_gp_ucb/et_gp_ucb.py", "self.t_r[reset] = t",
             "self.t_r[reset] = self.t_r[reset]",
             "ET-GP-UCB: t' not restarted at a reset (ρ_{t'} keeps growing)", tuple(ET)),
    Mutation("CB1", "boundcheck/papers/combinatorial/policies.py",
             "return np.where(s > 0, m * ndtr(z) + s * np.exp(-0.5 * z * z) / _SQRT_2PI, np.maximum(m, 0.0))",
             "return np.where(s > 0, m * ndtr(z), np.maximum(m, 0.0))",
             "combinatorial Algorithm 2: rectified mean E[max(0, N(m, s²))] without its s·φ(m/s) term", tuple(COMB)),
    # ------------------------------------------------------------------ error control (issue 24)
    Mutation("EC1", "boundcheck/claims/stats.py", "p = float(min(1.0, np.min(p_t) * T))",
             "p = float(min(1.0, np.min(p_t)))", "anytime expectation claim: no Bonferroni over the T steps",
             tuple(ERRCTL)),
    Mutation("EC2", "boundcheck/claims/stats.py", "best = min(best, p * (j + 1) * (j + 2))",
             "best = min(best, p)", "--until-conclusive calibration looks: each at the full share (no union bound)",
             tuple(ERRCTL)),
    Mutation("EC3", "boundcheck/claims/stats.py",
             "p = min(p, _t_pvalue(x[:(2**j) * chunk], bound) * (j + 1) * (j + 2))",
             "p = min(p, _t_pvalue(x[:(2**j) * chunk], bound))",
             "--until-conclusive t-test looks (expectation, no range): no union bound", tuple(ERRCTL)),
    Mutation("EC4", "boundcheck/claims/budget.py", "return self if k <= 1 else HolmBudget(self.total / k)",
             "return self", "several checked implementations: the Holm budget not split between them",
             tuple(ERRCTL)),
    Mutation("EC5", "boundcheck/study/summary.py", "each = budget.divided(len(checked))", "each = budget",
             "several checked implementations: verify judges each at the whole budget", tuple(ERRCTL)),
    Mutation("EC6", "boundcheck/claims/stats.py", "lo, hi = clopper_pearson(kk, m, 2 * share)",
             "lo, hi = clopper_pearson(kk, m, 4 * share)",
             "runs-needed advice at the test size 2a instead of the one-sided share a (too few runs)", tuple(ERRCTL)),
    Mutation("EC7", "boundcheck/claims/stats.py", "lo, hi = clopper_pearson(kk, m, 2 * share)",
             "lo, hi = clopper_pearson(kk, m, share)", "runs-needed advice at a/2 (too many runs)", tuple(ERRCTL)),
    Mutation("EC8", "boundcheck/claims/budget.py", "scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])",
             "scaled = np.minimum(1.0, p[order])", "Holm without the multiplicity factor", tuple(ERRCTL)),
    Mutation("EC9", "boundcheck/claims/stats.py", "interval = lambda a: clopper_pearson(k, n, 2 * a)  # noqa: E731",
             "interval = lambda a: clopper_pearson(k, n, 4 * a)  # noqa: E731",
             "probability interval at 2a per end: 'holds' declared too easily", tuple(ERRCTL)),
    Mutation("EC10", "boundcheck/claims/stats.py", "half = stats.t.ppf(1 - a / T, n - 1) * se",
             "half = stats.t.ppf(1 - a, n - 1) * se", "anytime expectation interval without the Bonferroni over t",
             tuple(ERRCTL)),
    Mutation("EC11", "boundcheck/claims/stats.py",
             "p = float(min(1.0, len(comp) * min(comp.values()))) if comp else 1.0",
             "p = float(min(1.0, min(comp.values()))) if comp else 1.0",
             "calibration omnibus: Anderson–Darling and Ljung–Box not Bonferroni-combined", tuple(ERRCTL)),
    Mutation("EC12", "boundcheck/claims/stats.py", "p = _t_pvalue(x, bound)", "p = _t_pvalue(x, bound) / 2",
             "expectation claim: a one-sided p-value halved (a two-sided habit)", tuple(ERRCTL)),
    # ------------------------------------------------------------------ identity: the resume key (issue 24)
    Mutation("K1", "boundcheck/study/spec.py",
             'return fingerprint({k: v for k, v in self.to_dict().items() if k != "runs"})',
             'return fingerprint({k: v for k, v in self.to_dict().items() if k not in ("runs", "beta_scale")})',
             "resume key ignores beta_scale (a rerun with another --beta-scale reuses stored chunks)", tuple(KEY)),
    Mutation("K2", "boundcheck/study/spec.py",
             'return fingerprint({k: v for k, v in self.to_dict().items() if k != "runs"})',
             'return fingerprint({k: v for k, v in self.to_dict().items() if k not in ("runs", "chunk_size")})',
             "resume key ignores the chunk size (chunks of another size read as this study's)", tuple(KEY)),
    Mutation("K3", "boundcheck/study/spec.py",
             'return fingerprint({k: v for k, v in self.to_dict().items() if k != "runs"})',
             "return fingerprint(self.to_dict())", "resume key includes the number of runs (a longer verify cannot "
             "resume)", tuple(KEY)),
    Mutation("K4", "boundcheck/utils/hashing.py", "return repr(float(obj))  # exact: 0.1 and 0.1000000000000001 differ",
             "return f\"{float(obj):.6g}\"", "fingerprints round floats (nearby settings share a key)", tuple(KEY)),
    # ------------------------------------------------------------------ samplers' joint law (issue 24)
    Mutation("S5", "boundcheck/papers/combinatorial/model.py",
             "v = (self.counts * g + np.sqrt(self.counts * s2) * z[:, r:]) / s2",
             "v = (self.counts * g + np.sqrt(s2) * z[:, r:]) / s2",
             "combinatorial GP-TS: pseudo-noise of an arm observed n times not scaled by √n", tuple(SAMPLERS)),
    Mutation("S6", "boundcheck/model/sampling.py", "alpha = rows_matmul(z * (np.sqrt(self._lam) / (self._lam + "
             "fam.gen_noise_var))[None], self._U.T,",
             "alpha = rows_matmul(z * (1.0 / (self._lam + fam.gen_noise_var))[None], self._U.T,",
             "RKHS members: y drawn with the wrong covariance (identity instead of K)", tuple(SAMPLERS)),
    # ------------------------------------------------------------------ schedules (issue 24)
    Mutation("SC1", "boundcheck/claims/families/kernelized.py", "out[2:] = curve[:-1]", "out[1:] = curve",
             "IGP-UCB / GP-TS schedules read γ_t instead of γ_{t−1}", tuple(SCHEDULES)),
    Mutation("SC2", "boundcheck/papers/igp_ucb_gp_ts/family.py",
             '"gp_ts": ts.schedule_values("v_t", t, values, gamma_prev),',
             '"gp_ts": cg.schedule_values("beta_t", t, values, gamma_prev),',
             "GP-TS given IGP-UCB's β_t (δ instead of δ/2) as its v_t", tuple(SCHEDULES)),
    Mutation("SC3", "boundcheck/papers/r_sw_gp_ucb/family.py",
             'n = (t - 1) % window if kind == "restart" else np.minimum(t - 1, window)',
             'n = (t - 1) % window if kind == "restart" else np.minimum(t, window)',
             "SW-GP-UCB's β_t reads γ̄_{min(t,w)} instead of γ̄_{min(t−1,w)}", tuple(VB)),
    Mutation("SC4", "boundcheck/papers/r_sw_gp_ucb/family.py",
             'n = (t - 1) % window if kind == "restart" else np.minimum(t - 1, window)',
             'n = t % window if kind == "restart" else np.minimum(t - 1, window)',
             "R-GP-UCB's β_t reads γ̄ of one sample more than it holds", tuple(VB)),
)


def _copy_tree(dest: Path) -> None:
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)


class BenchmarkError(Exception):
    """The benchmark itself is wrong (a mutation that no longer applies, a mutant that does not compile, a test
    id that selects nothing): an error of the benchmark, never counted as a defect caught or survived."""


def check_applies(m: Mutation, tree: Path) -> str:
    """The mutated source of ``m.file`` in ``tree``; BenchmarkError when ``m.old`` does not occur exactly once
    (the code moved on: a mutation that silently no longer applies would read as one that survives, or vanish
    from the count) or when the mutant does not compile (a syntax error is caught by anything, a meaningless
    catch)."""
    path = tree / m.file
    if not path.is_file():
        raise BenchmarkError(f"{m.id}: {m.file} does not exist")
    src = path.read_text()
    n = src.count(m.old)
    if n != 1:
        raise BenchmarkError(f"{m.id}: {m.old!r} occurs {n} times in {m.file} (must be exactly once)")
    mutant = src.replace(m.old, m.new)
    try:
        compile(mutant, str(path), "exec")
    except SyntaxError as exc:
        raise BenchmarkError(f"{m.id}: the mutant of {m.file} does not compile ({exc})") from None
    return mutant


def _pytest(tree: Path, python: str, tests: tuple[str, ...]) -> tuple[int, list[str], str]:
    proc = subprocess.run([python, "-m", "pytest", "-q", "--tb=no", "-rfE", "-p", "no:cacheprovider",
                           "-p", "no:warnings", "--maxfail=4", *tests], cwd=tree,
                          env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin", "HOME": str(tree)},
                          capture_output=True, text=True)
    failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", proc.stdout, re.M)
    return proc.returncode, failed, proc.stdout + proc.stderr


def run(m: Mutation, python: str) -> tuple[list[str], float]:
    """The tests that failed on the mutant (empty: it survived) and the time; BenchmarkError when the mutation
    does not apply or pytest could not run the tests as named (usage error, nothing collected)."""
    with tempfile.TemporaryDirectory(prefix=f"mutant-{m.id}-") as tmp:
        tree = Path(tmp)
        _copy_tree(tree)
        (tree / m.file).write_text(check_applies(m, tree))
        t0 = time.perf_counter()
        rc, failed, out = _pytest(tree, python, m.tests)
        if rc in (3, 4, 5) or (rc != 0 and not failed):  # internal/usage error, nothing collected, or unexplained
            raise BenchmarkError(f"{m.id}: pytest exit {rc} without a failing test:\n{out[-1500:]}")
        return failed, time.perf_counter() - t0


def baseline(chosen: list[Mutation], python: str) -> None:
    """Run every test the chosen mutations name on the unmutated tree: they must all pass, else a mutation would
    read as caught by a test that fails anyway. BenchmarkError otherwise."""
    tests = tuple(dict.fromkeys(t for m in chosen for t in m.tests))
    with tempfile.TemporaryDirectory(prefix="mutant-baseline-") as tmp:
        _copy_tree(Path(tmp))
        t0 = time.perf_counter()
        rc, failed, out = _pytest(Path(tmp), python, tests)
        if rc != 0:
            raise BenchmarkError(f"baseline: the unmutated tree fails {failed or out[-1500:]}")
        print(f"base ok   ({time.perf_counter() - t0:4.0f} s) {len(tests)} test selections pass on the unmutated tree")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--no-baseline", action="store_true", help="skip the run of the tests on the unmutated tree")
    ap.add_argument("--check", action="store_true", help="only check that every mutation applies to HEAD (seconds)")
    args = ap.parse_args()
    unknown = sorted(set(args.only or ()) - {m.id for m in MUTATIONS})
    if unknown:
        print(f"error: no mutation {unknown}", file=sys.stderr)
        return 2
    chosen = [m for m in MUTATIONS if not args.only or m.id in args.only]
    if args.list:
        for m in chosen:
            print(f"{m.id:4} {m.file}: {m.what}\n     - {m.old}\n     + {m.new}\n     tests: {' '.join(m.tests)}")
        return 0
    if subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True,
                      text=True).stdout.strip():
        print("note: uncommitted changes are not part of the run (the mutants are copies of HEAD)", file=sys.stderr)
    python = sys.executable
    try:
        # every mutation must apply to HEAD before anything runs: a stale one is the benchmark's error (exit 2)
        with tempfile.TemporaryDirectory(prefix="mutant-check-") as tmp:
            _copy_tree(Path(tmp))
            problems = []
            for m in chosen:
                try:
                    check_applies(m, Path(tmp))
                except BenchmarkError as exc:
                    problems.append(str(exc))
            if problems:
                raise BenchmarkError("mutations that do not apply to HEAD:\n  " + "\n  ".join(problems))
        if args.check:
            print(f"{len(chosen)} mutations apply to HEAD")
            return 0
        if not args.no_baseline:
            baseline(chosen, python)
        missed = []
        for m in chosen:
            caught, secs = run(m, python)
            print(f"{m.id:4} {'CAUGHT' if caught else 'MISSED'} ({secs:4.0f} s) {m.what}", flush=True)
            for t in caught:
                print(f"       by {t}", flush=True)
            if not caught:
                missed.append(m.id)
    except BenchmarkError as exc:
        print(f"error (benchmark): {exc}", file=sys.stderr)
        return 2
    ran = len(chosen)
    print(f"\n{ran - len(missed)}/{ran} mutations caught ({(ran - len(missed)) / max(ran, 1):.0%})"
          + (f"; missed: {missed}" if missed else ""))
    return 1 if missed else 0


if __name__ == "__main__":
    shutil.which("git") or sys.exit("git is needed")
    sys.exit(main())
