"""Mutation run: plant each of a documented list of one-line defects in the posterior, the
samplers, every policy (the papers' own included), the schedules, the error control, the resume key, and the
checks that keep the checked code from fooling the verdict (conformance, the vacuity rule, the validation of what
user code hands back, the caches, the worst of several implementations), run the relevant tests on the mutated
copy, and print which tests caught it (last measured: docs/verdicts.md, "Mutation run").

Every mutation below is one line of source replaced by one line, in a throw-away copy of the committed tree
(``git archive HEAD``; with ``--worktree``, of the working tree's tracked and untracked-but-not-ignored files, to
measure changes before they are committed); the working tree is never touched. A mutation is *caught* when at
least one test fails. The regression pins (tests/study/test_regression.py) would catch every mutation that changes a
number; they are left out on purpose, so that what catches each defect is a test of correctness (an independent
computation, a claim of a theorem), not a pinned value.

    python benchmarks/mutation.py                 # every mutation (≈ 30–45 min on 2 busy cores)
    python benchmarks/mutation.py --only EC1 EC2 EC3 EC4 EC5 EC6 K1   # the error control (≈ 3 min)
    python benchmarks/mutation.py --only T1 P2    # some of them
    python benchmarks/mutation.py --only SC3 --no-baseline   # one, without first running its tests unmutated
    python benchmarks/mutation.py --list          # the documented list, with each one's tests
    python benchmarks/mutation.py --check         # only: does every mutation still apply to HEAD? (seconds)
    python benchmarks/mutation.py --worktree --only TB1 V1   # on a copy of the working tree, not of HEAD

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
import os
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
MODEL = ["tests/model/test_posterior_engine.py", "tests/policies/test_builtin_policies.py", "tests/papers/igp_ucb_gp_ts/test_kernelized_bandits.py",
         "tests/study/test_verify.py::test_in_theory_no_claim_violated",
         "tests/study/test_verify.py::test_well_specified_sensors_hold", "tests/model/test_samplers.py"]
ERRCTL = ["tests/claims/test_error_control.py"]
KEY = ["tests/study/test_resume_key.py"]
SAMPLERS = ["tests/model/test_samplers.py"]
SCHEDULES = ["tests/theory/test_schedules.py"]
POLICY = ["tests/policies/test_builtin_policies.py", "tests/papers/igp_ucb_gp_ts/test_kernelized_bandits.py::test_default_scenario_in_theory_no_claim_violated",
          "tests/study/test_verify.py::test_in_theory_no_claim_violated"]
TS_DRAWS = "tests/policies/test_paper_policies.py::test_gp_ts_draws_are_n_mu_v2_sigma2_at_the_recorded_points"
# Zhou & Shroff's R-/SW-GP-UCB
VB = ["tests/papers/r_sw_gp_ucb/test_variation_budget.py", "tests/theory/test_schedules.py", "tests/policies/test_paper_policies.py"]
ET = ["tests/papers/et_gp_ucb/test_et_gp_ucb.py::test_trigger_is_strict_keeps_the_point_and_restarts_t_prime",
      "tests/papers/et_gp_ucb/test_et_gp_ucb.py::test_every_theorem_holds_in_theory", "tests/theory/test_schedules.py"]
COMB = ["tests/papers/combinatorial/test_combinatorial.py", "tests/policies/test_paper_policies.py"]
# the checks that keep the checked code from fooling the verdict (vacuity, output validation, conformance,
# incomplete verdicts, a user theorem's schedules)
VAC = "tests/claims/test_vacuity.py::"
OUTPUT = "tests/usercode/test_output_validation.py::test_bad_output_of_user_code_is_refused_naming_the_policy_and_the_step"
SENS = "tests/claims/test_conformance.py::"
INCOMPLETE = "tests/claims/test_incomplete_verdict.py::"
UTS = "tests/usercode/test_user_theorem_schedules.py::"
UTW = UTS + "test_every_schedule_a_theorem_must_define_is_used_and_no_other_is_read"
UTB = UTS + "test_a_bad_bound_is_exit_2_naming_your_theorem_the_step_and_the_term"
LAYOUT = "tests/usercode/test_project_layout.py::"
SAYS = "tests/cli/test_checked_code_output.py::"
SHADOW = "tests/claims/test_shadow_records.py::"
BITES = "tests/study/test_bites.py::"
HOSTILE = "tests/cli/test_input_limits.py::"
HOSTILE_P = "tests/usercode/test_process_isolation.py::"
NPF = "tests/cli/test_output_folders.py::"
NPR = "tests/papers/test_paper_references.py::"
BB = "tests/adapters/test_botorch_box.py::"
NPC = "tests/cli/test_console.py::"


@dataclass(frozen=True)
class Mutation:
    id: str
    file: str
    old: str
    new: str
    what: str
    tests: tuple[str, ...]


# the adapters' tests (they need the botorch and sklearn extras, installed by `make test`)
ADAPT_M = "tests/adapters/test_mistakes.py::"
ADAPT_A = "tests/adapters/test_adapters.py::"
ADAPT_B = "tests/adapters/test_batched.py::"
# the planted defects gp_ucb_compact's claims catch (tests/claims/test_defects.py, CATCHES)
BOX_DEFECTS = "tests/claims/test_defects.py::test_planted_defect_is_caught[gp_ucb_compact-"
# TV-GP-UCB on a compact box: its module, tests and planted defects
TVB_FAMILY = "boundcheck/papers/et_gp_ucb/tv_box_family.py"
TVB_TESTS = "tests/papers/et_gp_ucb/test_tv_gp_ucb_compact.py::"
TVB_DEFECTS = "tests/claims/test_defects.py::test_planted_defect_is_caught[tv_gp_ucb_compact-"

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
             "observation noise drawn at half its level", (*MODEL, "tests/study/test_engine_noise.py")),
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
             "GP-TS: sampler scaled by 0.05 (draws twenty times too narrow)", (*POLICY, TS_DRAWS)),
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
    # ------------------------------------------------------------------ the papers' own policies
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
    Mutation("CB1", "boundcheck/papers/combinatorial/comb_gp.py",
             "return np.where(s > 0, m * ndtr(z) + s * np.exp(-0.5 * z * z) / _SQRT_2PI, np.maximum(m, 0.0))",
             "return np.where(s > 0, m * ndtr(z), np.maximum(m, 0.0))",
             "combinatorial Algorithm 2: rectified mean E[max(0, N(m, s²))] without its s·φ(m/s) term", tuple(COMB)),
    # ------------------------------------------------------------------ error control
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
    # ------------------------------------------------------------------ identity: the resume key
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
    # ------------------------------------------------------------------ samplers' joint law
    Mutation("S5", "boundcheck/papers/combinatorial/model.py",
             "v = (self.counts * g + np.sqrt(self.counts * s2) * z[:, r:]) / s2",
             "v = (self.counts * g + np.sqrt(s2) * z[:, r:]) / s2",
             "combinatorial GP-TS: pseudo-noise of an arm observed n times not scaled by √n", tuple(SAMPLERS)),
    Mutation("S6", "boundcheck/model/sampling.py", "alpha = rows_matmul(z * (np.sqrt(self._lam) / (self._lam + "
             "fam.gen_noise_var))[None], self._U.T,",
             "alpha = rows_matmul(z * (1.0 / (self._lam + fam.gen_noise_var))[None], self._U.T,",
             "RKHS members: y drawn with the wrong covariance (identity instead of K)", tuple(SAMPLERS)),
    # ------------------------------------------------------------------ schedules
    Mutation("SC1", "boundcheck/claims/families/kernelized.py", "out[2:] = curve[:-1]", "out[1:] = curve",
             "IGP-UCB / GP-TS schedules read γ_t instead of γ_{t−1}", tuple(SCHEDULES)),
    # (the family reads each schedule by name from the theorem it checks; the defect planted where the checked
    # GP-TS's own width is named)
    Mutation("SC2", "boundcheck/papers/igp_ucb_gp_ts/family.py", 'return {"gp_ts": "v_t", "gp_ts_ctilde": "ctilde_t",',
             'return {"gp_ts": (cg, "beta_t"), "gp_ts_ctilde": "ctilde_t",',
             "GP-TS given IGP-UCB's β_t (δ instead of δ/2) as its v_t", tuple(SCHEDULES)),
    Mutation("SC3", "boundcheck/papers/r_sw_gp_ucb/family.py",
             'n = (t - 1) % window if kind == "restart" else np.minimum(t - 1, window)',
             'n = (t - 1) % window if kind == "restart" else np.minimum(t, window)',
             "SW-GP-UCB's β_t reads γ̄_{min(t,w)} instead of γ̄_{min(t−1,w)}", tuple(VB)),
    Mutation("SC4", "boundcheck/papers/r_sw_gp_ucb/family.py",
             'n = (t - 1) % window if kind == "restart" else np.minimum(t - 1, window)',
             'n = t % window if kind == "restart" else np.minimum(t - 1, window)',
             "R-GP-UCB's β_t reads γ̄ of one sample more than it holds", tuple(VB)),
    # ------------------------------------------------------------------ an independent audit: 24 defects
    # in the checks that keep the checked code from fooling the verdict (../shared/audits/mutation-t4.md, where 11
    # survived the tests of their modules)
    Mutation("CF1", "boundcheck/claims/conformance.py", "TOLERANCE = 1e-6", "TOLERANCE = 1e-2",
             "deterministic conformance tolerance 1e-6 -> 1e-2 (a 0.99× width passes)",
             (SENS + "test_a_gp_ucb_with_99_percent_of_the_width_is_violated",)),
    Mutation("CF2", "boundcheck/policies/gp_ts.py",
             "u = (below + V * (same + 1.0)) / (self.shadow_draws + 1.0)",
             "u = (below + 0.5 * (same + 1.0)) / (self.shadow_draws + 1.0)",
             "GP-TS conformance rank: mid-rank 0.5 instead of randomised V",
             (SENS + "test_gp_ts_conformance_ranks_are_uniform_where_ties_are_the_rule",)),
    Mutation("CF3", "boundcheck/claims/conformance.py",
             "first = np.where(bad.any(axis=1), bad.argmax(axis=1) + 1, 0)",
             "first = np.where(bad.any(axis=1), bad.argmax(axis=1), 0)",
             "first non-conforming step reported 0-based (off by one)",
             (SENS + "test_the_first_non_conforming_step_is_the_planted_one",)),
    Mutation("CF4", "boundcheck/commands/resolve.py", "elif own is not None and by_name[name] == own:",
             "elif own is not None and by_name[name].name == own.name:",
             "checked code compared with the theorem's algorithm by name: wrapped/defect code gets no shadow",
             ("tests/claims/test_conformance.py::test_every_builtin_algorithm_conforms_as_checked_code[gp_ucb-deterministic]",)),
    Mutation("SU1", "boundcheck/study/summary.py",
             'rank = {"holds": 0, INCOMPLETE: 1, "inconclusive": 2, "violated": 3}',
             'rank = {"holds": 0, INCOMPLETE: 0, "inconclusive": 2, "violated": 3}',
             "worst of several implementations: incomplete ranks like holds",
             (INCOMPLETE + "test_one_incomplete_implementation_makes_the_verify_incomplete",)),
    Mutation("CL1", "boundcheck/cli/verify.py",
             'return ExitCode.VIOLATED if summary["verdict"] == "violated" else ExitCode.OK',
             'return ExitCode.VIOLATED if summary["verdict"] != "holds" else ExitCode.OK',
             "verify exits 1 for any verdict but holds (inconclusive, accepted incomplete -> 1)",
             (INCOMPLETE + "test_one_incomplete_implementation_makes_the_verify_incomplete",)),
    Mutation("TB1", "boundcheck/claims/table.py", "if np.all(v >= 1.0):", "if np.any(v >= 1.0):",
             "vacuity rule: vacuous if the bound ≥ the largest regret on ANY run",
             (VAC + "test_a_probability_claim_with_one_run_below_one_is_judged",)),
    Mutation("TB2", "boundcheck/claims/table.py", "    return ratio.min(axis=1)", "    return ratio.max(axis=1)",
             "vacuity of an anytime bound: max over t instead of min",
             (VAC + "test_vacuity_of_an_anytime_bound_is_its_smallest_ratio_over_t",)),
    Mutation("EN1", "boundcheck/study/engine.py", "f_range[live, t - 1] = best + actions.best_value(-f_t, avail)",
             "f_range[live, t - 1] = best - actions.best_value(-f_t, avail)",
             "f_range = max + min (sign slip) instead of max − min",
             (VAC + "test_the_engine_records_max_minus_min_of_f_over_the_available_arms",)),
    Mutation("V1", "boundcheck/study/engine.py", "bad = ~np.isfinite(a.reshape(m, -1)).all(axis=1)",
             "bad = np.isnan(a.reshape(m, -1)).any(axis=1)", "user record check: isnan instead of isfinite (±inf pass)",
             (OUTPUT + "[RecInf]", OUTPUT + "[RecMinusInf]")),
    Mutation("V2", "boundcheck/study/engine.py", "outside = ((a < 0) & ~pad) | (a >= n)", "outside = a >= n",
             "user action check: negative indices accepted (−1 silently the last arm)", (OUTPUT + "[ActNegative]",)),
    Mutation("UC1", "boundcheck/utils/usercode.py", "sys.stdout = sys.stderr = st.out", "sys.stderr = st.out",
             "user call redirects stderr only: the user's print() reaches stdout (--json)",
             ("tests/usercode/test_isolation.py::test_print_does_not_break_json",)),
    Mutation("GC1", "boundcheck/runtime/cache.py",
             'mac = hmac.new(secret, _MAGIC + namespace.encode() + b"\\0" + name.encode() + b"\\0", hashlib.sha256)',
             'mac = hmac.new(secret, _MAGIC + namespace.encode() + b"\\0", hashlib.sha256)',
             "cache HMAC omits the entry's file name (an entry can be moved under another key)",
             ("tests/runtime/test_cache_authentication.py::test_an_entry_moved_under_another_key_is_refused",)),
    Mutation("MG1", "boundcheck/model/mig.py",
             'if _disagree(lower, np.maximum.accumulate(raw)) or _disagree(methods.get("greedy", lower), lower):',
             'if _disagree(methods.get("greedy", lower), lower):',
             "γ cache entry: lower end not checked against its design",
             ("tests/runtime/test_cache_authentication.py::test_beyond_the_exact_prefix_the_design_is_replayed",)),
    Mutation("IC1", "boundcheck/claims/families/instance_cache.py", '"beta_scale": repr(float(beta_scale)),',
             '"beta_scale": repr(float(1.0)),', "instance cache key ignores beta_scale",
             ("tests/claims/test_instance_cache.py::test_inputs_key_the_entry_and_damage_recomputes",)),
    Mutation("ST1", "boundcheck/study/store.py", 'if rec.get("config_key") != key:',
             'if rec.get("config_key") is None:', "repair recovers chunks of another configuration (key not compared)",
             ("tests/study/test_store.py::test_a_chunk_of_another_configuration_is_refused",)),
    Mutation("RT1", "boundcheck/study/engine.py",
             "fired = _stop_flags(pols[0], stop_at, t, live_ids) & (stopped_at[rows_now] == 0)",
             "fired = _stop_flags(pols[0], stop_at, t, live_ids)",
             "stopping time overwritten by a later event of a not-yet-retired run",
             ("tests/papers/et_gp_ucb/test_et_stopping_time.py::test_fast_path_equals_full_path_run_by_run",)),
    Mutation("SQ1", "boundcheck/model/posterior.py", "beta = 1.0 / (v + np.sqrt(self.noise_var * v))",
             "beta = 1.0 / v", "Potter square-root update with gain 1/v instead of 1/(v + √(λv))",
             ("tests/papers/igp_ucb_gp_ts/test_long_horizon.py::test_sqrt_factor_is_the_grid_posterior_covariance",)),
    Mutation("GR1", "boundcheck/claims/families/kernelized.py", "ay_q = e2 - lam * np.cumsum(e**2 / v, axis=1)",
             "ay_q = e2 - np.cumsum(e**2 / v, axis=1)", "grid chain (T > 1000): AY quantity without the λ factor",
             ("tests/papers/igp_ucb_gp_ts/test_long_horizon.py::test_grid_claim_statistics_agree_with_the_factorisations",)),
    Mutation("IN1", "boundcheck/model/information.py", "return np.log(np.diag(cholesky(",
             "return 0.5 * np.log(np.diag(cholesky(", "information gain increments halved twice (0.5·log L_ss)",
             ("tests/model/test_mig.py::test_stationary_bracket_contains_exact",)),
    Mutation("EM1", "boundcheck/claims/empirical.py", "se = float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1",
             "se = float(v.std(ddof=1)) if v.size > 1", "paper vs ours: the SE is the SD (no /√n)",
             ("tests/study/test_reproduce.py::test_printed_numbers_beside_ours",)),
    Mutation("EM2", "boundcheck/claims/empirical.py", "n, w = c.n, (float(band[1]) - float(band[0])) / 2.0",
             "n, w = c.n, float(band[1]) - float(band[0])", "band resolution: margin = the full band width, not half",
             ("tests/study/test_reproduce.py::test_a_band_too_narrow_for_the_runs_says_so_and_how_many_would_do",)),
    Mutation("EM3", "boundcheck/claims/empirical.py", "return max(cs[0].p_gt, cs[1].p_lt),",
             "return min(cs[0].p_gt, cs[1].p_lt),", "interval (TOST) claim: reproduced when ONE side rejects",
             ("tests/study/test_reproduce.py::test_thresholds_bands_trends_and_a_spread_free_sample",)),
    Mutation("AP1", "boundcheck/commands/reproduce.py", "return [summaries[i] for i in range(len(items))]",
             "return list(summaries.values())", "panels side by side: summaries returned in completion order",
             ("tests/study/test_panels.py::test_panels_side_by_side_come_back_in_input_order",)),
    # ------------------------------------------------------------------ vacuity rule, validation of records and actions
    Mutation("VM1", "boundcheck/claims/table.py",
             'if spec.kind != "expectation" or col not in main_runs or not len(main_runs):',
             "if col not in main_runs or not len(main_runs):",
             "vacuity on the mean applied to probability claims (one run below 1 made an identity)",
             (VAC + "test_a_probability_claim_with_one_run_below_one_is_judged",)),
    Mutation("VM2", "boundcheck/claims/table.py", "share = 1.0 / v  # per run",
             "share = 0.0 * v + 1.0 / v.mean()  # per run",
             "vacuity on the mean read as the mean of the ratios (not of their inverses)",
             (VAC + "test_an_expectation_claim_whose_mean_can_exceed_the_bound_is_judged",)),
    Mutation("VM3", "boundcheck/claims/table.py",
             "fail = (_mean_identity_fail if c.id in on_mean else _identity_fail)(spec, main_runs, sample, delta)",
             "fail = _identity_fail(spec, main_runs, sample, delta)",
             "an identity on the mean checked per run (a run above an expectation bound made a counterexample)",
             (VAC + "test_an_expectation_claim_vacuous_on_the_mean_is_an_identity_of_the_mean",
              VAC + "test_an_anytime_expectation_claim_reads_its_sample_at_every_t")),
    Mutation("VM4", "boundcheck/claims/table.py", "    if not sequential or chunk <= 0:", "    if True:",
             "vacuity on the mean ignores the looks of --until-conclusive (a first look that can reject)",
             (VAC + "test_with_looks_every_prefix_the_test_reads_is_held_to_the_rule",)),
    Mutation("VR1", "boundcheck/study/engine.py", 'if raw is None or raw.dtype.kind not in "biuf":',
             "if raw is None:", "user records of strings, complex numbers or objects cast to floats",
             (OUTPUT + "[RecString]", OUTPUT + "[RecComplex]", OUTPUT + "[RecObject]")),
    Mutation("VR2", "boundcheck/study/engine.py", "if a.ndim == 0 or a.shape[0] != m:", "if a.ndim == 0:",
             "user records of the wrong shape accepted", (OUTPUT + "[RecShape]",)),
    Mutation("VA1", "boundcheck/study/engine.py", 'if a.shape != (m, K) or a.dtype.kind not in "iu":',
             "if a.shape != (m, K):", "user actions of booleans or floats cast to indices",
             (OUTPUT + "[ActBool]", OUTPUT + "[ActFloat]")),
    Mutation("VA2", "boundcheck/study/engine.py", "        if not ok.all():", "        if False:",
             "user actions outside X_t accepted", (OUTPUT + "[ActUnavailable]",)),
    Mutation("VA3", "boundcheck/study/engine.py", "outside = ((a < 0) & ~pad) | (a >= n)",
             "outside = (a < 0) & ~pad", "user actions ≥ n not refused (an internal error, not one line)",
             (OUTPUT + "[ActTooLarge]",)),
    # ------------------------------------------------------------------ a user's theorem: its schedules, its bound
    Mutation("UT1", "boundcheck/claims/families/kernelized.py",
             "            th, name = (self.theorem, source) if isinstance(source, str) else source",
             "            th, name = (theory.get(self.theorem.id), source) if isinstance(source, str) else source",
             "schedules read from the paper's module, not from the theorem checked",
             (UTS + "test_a_wider_width_of_your_own_is_the_width_that_runs[gp_ucb]",
              UTS + "test_a_width_of_your_own_twenty_times_too_narrow_is_violated[IGP_NARROW]")),
    Mutation("UT2", "boundcheck/claims/families/checked_as.py",
             "    lacking = [k for k in reference.schedules_read if k not in theorem.schedules]",
             "    lacking: list[str] = []", "a theorem lacking a schedule its family reads is accepted",
             ("tests/usercode/test_user_theorem.py::test_bad_theorem_one_line_exit_2[NO_WIDTH-reads the schedule(s) width_t]",)),
    Mutation("UT3", "boundcheck/claims/families/checked_as.py",
             "    lacking = [k for k in reference.schedules_read if k not in theorem.schedules]",
             "    lacking = [k for k in reference.theorem.schedules if k not in theorem.schedules]",
             "schedules required that the family never reads",
             (UTS + "test_a_theorem_need_not_define_what_its_family_does_not_read",)),
    Mutation("UT4", "boundcheck/claims/families/checked_as.py",
             "        if sp.sympify(expr).has(sp.zoo):  # it cannot even be turned into a function: refused before any number",
             "        if False:", "a bound of zoo (complex infinity) reaches lambdify (exit 4)",
             (UTB + "[verify-ZOO]", UTB + "[bound-ZOO]")),
    Mutation("UT5", "boundcheck/claims/families/checked_as.py",
             "        inner.shown_id = theorem.id  # what its messages name (the bound refused, a width not finite)",
             "        inner.shown_id = None", "a refused bound's message names the reference theorem, not the user's",
             (UTB + "[verify-NAN]",)),
    Mutation("UT6", "boundcheck/claims/families/base.py", "    if (total < 0).any():", "    if False:",
             "a negative bound runs", (UTB + "[verify-NEGATIVE]",
             UTS + "test_an_anytime_bound_that_fails_at_some_t_before_T_is_exit_2[ANYTIME_NEGATIVE]")),
    Mutation("UT7", "boundcheck/claims/families/base.py", "            bad |= ~np.isfinite(a) | (np.imag(a) != 0)",
             "            bad |= np.imag(a) != 0", "a NaN or infinite bound accepted",
             (UTB + "[verify-NAN]", UTB + "[bound-INF]")),
    Mutation("UT8", "boundcheck/claims/families/base.py", "            bad |= ~np.isfinite(a) | (np.imag(a) != 0)",
             "            bad |= ~np.isfinite(a)", "a complex bound accepted",
             (UTB + "[verify-COMPLEX]", UTB + "[bound-COMPLEX]")),
    Mutation("UT9", "boundcheck/claims/families/base.py",
             "    if positive and total[-1] == 0 and (horizon is None or at[-1] in (None, horizon)):",
             "    if False:", "a bound that underflows to 0 at T runs", (UTB + "[verify-ZERO]", UTB + "[bound-ZERO]")),
    Mutation("UT10", "boundcheck/claims/families/base.py", "        bad = ~np.isfinite(w) | (np.imag(w) != 0)",
             "        bad = np.imag(w) != 0", "a width or claim threshold that is not finite runs",
             (UTS + "test_a_claim_threshold_or_width_that_is_not_a_finite_real_number_is_refused",
              "tests/cli/test_bad_input.py::test_hostile_input_ends_with_its_exit_code_and_leaves_nothing[beta-huge]")),
    Mutation("UT11", "boundcheck/claims/families/base.py", "        for key, values in (schedules or {}).items():",
             "        for key, values in {}.items():", "claim thresholds (c̃_t, a block's width) not validated",
             (UTS + "test_a_claim_threshold_or_width_that_is_not_a_finite_real_number_is_refused",)),
    Mutation("UT12", "boundcheck/claims/families/base.py", "        if (np.imag(a) != 0).any():", "        if False:",
             "a complex schedule cut to its real part",
             (UTS + "test_a_claim_threshold_or_width_that_is_not_a_finite_real_number_is_refused",)),
    Mutation("UT13", "theory/core.py", "    except (ZeroDivisionError, OverflowError):", "    except ():",
             "a bound dividing by zero raises (exit 4) instead of being refused", (UTB + "[verify-INF]", UTB + "[bound-INF]")),
    Mutation("UT14", "boundcheck/papers/pe_gp_ucb/family.py",
             '        check_bound(self.theorem_name, {"bound_tight": tight}, [int(values["T"])], horizon=int(values["T"]),',
             '        check_bound(self.theorem_name, {}, [int(values["T"])], horizon=int(values["T"]),',
             "PE-GP-UCB's tight bound not validated",
             (UTS + "test_another_form_of_the_bound_that_a_claim_reads_is_validated_too",)),
    Mutation("UT15", "boundcheck/papers/et_gp_ucb/family.py",
             '        check_bound(self.theorem_name, {"bound_C": bound_C}, [T], horizon=T, form="form (C) of the bound")',
             '        check_bound(self.theorem_name, {}, [T], horizon=T, form="form (C) of the bound")',
             "ET-GP-UCB's form (C) of the bound not validated",
             (UTS + "test_another_form_of_the_bound_that_a_claim_reads_is_validated_too",)),
    Mutation("UT16", "boundcheck/papers/et_gp_ucb/family.py",
             '        check_bound(self.theorem_name, {"bound_printed": printed}, [T], horizon=T, form="the bound as printed")',
             '        check_bound(self.theorem_name, {}, [T], horizon=T, form="the bound as printed")',
             "ET-R-GP-UCB's printed bound not validated",
             (UTS + "test_another_form_of_the_bound_that_a_claim_reads_is_validated_too",)),
    Mutation("UT17", "boundcheck/papers/r_sw_gp_ucb/family.py", '        own = beta_of(th, "beta_t", self.kind, window)',
             '        own = beta_of(theory.get(th.id), "beta_t", self.kind, window)',
             "R-/SW-GP-UCB's width from the paper, not the theorem checked", (UTW + "[r_gp_ucb]",)),
    Mutation("UT18", "boundcheck/papers/r_sw_gp_ucb/family.py",
             '        block = (beta_of(th, "beta_block_t", "restart", window) if self.kind == "restart" else own)',
             '        block = (beta_of(restart, "beta_block_t", "restart", window) if self.kind == "restart" else own)',
             "Lemma 1's block width from the paper", (UTW + "[r_gp_ucb]",)),
    Mutation("UT19", "boundcheck/papers/et_gp_ucb/family.py",
             '        if "width_t" in self.schedules_read and sc.beta_rule != "practical":', "        if False:",
             "ET-/R-/TV-GP-UCB's width from the paper", (UTW + "[tv_gp_ucb]",)),
    Mutation("UT20", "boundcheck/papers/et_gp_ucb/family.py",
             '        return self.theorem if "rho_t" in self.schedules_read else None', "        return None",
             "the trigger's ρ_t from the paper", (UTW + "[et_trigger]",)),
    Mutation("UT21", "boundcheck/papers/et_gp_ucb/family.py",
             '        ref = th if "lemma8_sigma_N" in self.schedules_read else theory.get("et_gp_ucb")',
             '        ref = theory.get("et_gp_ucb")', "the Lemma 5–8 thresholds from the paper", (UTW + "[et_r_gp_ucb]",)),
    Mutation("UT22", "boundcheck/papers/combinatorial/family.py",
             '        if th.schedules["width_t"] == _PAPER[th.id].schedules["width_t"]:', "        if True:",
             "a combinatorial theorem's own width ignored", (UTW + "[comb_gp_ucb]",)),
    Mutation("UT23", "boundcheck/papers/igp_ucb_gp_ts/family.py",
             '        return {"gp_ts": "v_t", "gp_ts_ctilde": "ctilde_t", "igp_ucb": (cg, "beta_t"), "gp_ucb": (cg, "beta_gp_ucb_t")}',
             '        return {"gp_ts": "v_t", "gp_ts_ctilde": (ts, "ctilde_t"), "igp_ucb": (cg, "beta_t"), "gp_ucb": (cg, "beta_gp_ucb_t")}',
             "GP-TS's c̃_t from the paper", (UTS + "test_a_wider_width_of_your_own_is_the_width_that_runs[gp_ts]",)),
    Mutation("UT24", "boundcheck/papers/pe_gp_ucb/family.py", '        return ("beta_t", "xi_t", "B", "C", "bound_tight")',
             '        return ("beta_t", "xi_t", "B", "bound_tight")', "C read but not required", (UTW + "[pe_gp_ucb]",)),
    Mutation("UT25", "boundcheck/claims/families/kernelized.py",
             '        return tuple(dict.fromkeys([*named, *(c for c in ("B", "C") if c in self.theorem.schedules)]))',
             "        return tuple(dict.fromkeys(named))", "B read but not required", (UTW + "[igp_ucb]",)),
    Mutation("UT26", "boundcheck/claims/families/kernelized.py",
             "        if callable(schedules) or not isinstance(schedules, Mapping):", "        if False:",
             "a callable (that may read the paper's module) accepted as schedules",
             (UTS + "test_a_kernelized_family_takes_schedule_names_not_a_function",)),
    Mutation("UT27", "boundcheck/claims/families/kernelized.py",
             "        if not isinstance(schedules.get(theorem.algorithm), str):", "        if False:",
             "the checked algorithm's width may come from another theorem",
             (UTS + "test_a_kernelized_family_takes_schedule_names_not_a_function",)),
    Mutation("UT28", "boundcheck/claims/families/instance_cache.py",
             '    families = [family] + ([family.inner] if "inner" in vars(family) else [])', "    families = [family]",
             "the instance cache key misses the code of the family a theorem is checked like",
             (UTS + "test_the_instance_cache_is_keyed_by_the_code_of_the_family_a_theorem_is_checked_like",)),
    # ------------------------------------------------------------------ the user's project layout, what the code says
    Mutation("UL1", "boundcheck/utils/usercode.py", "    if _PACKAGE_DIRS.intersection(Path(rel).parts[:-1]):",
             "    if False:", "site-packages folders inside the project counted as the user's code",
             (LAYOUT + "test_a_policy_beside_its_virtual_environment_runs",
              LAYOUT + "test_installed_code_is_told_from_the_users")),
    Mutation("UL2", "boundcheck/utils/usercode.py", "            elsewhere[top] = importable(name, file, path)",
             "            elsewhere[top] = False", "modules importable by name shipped by value",
             (LAYOUT + "test_only_the_users_own_modules_are_siblings",)),
    Mutation("UL3", "boundcheck/utils/usercode.py", '    if not code or code.startswith("<"):', "    if not code:",
             "a frozen frame's exit handler blamed on the user (the bogus pybind11 warning)",
             (LAYOUT + "test_the_fence_does_not_blame_the_user_for_a_librarys_exit_handler",)),
    Mutation("UL4", "boundcheck/commands/usercode.py",
             "        module.__boundcheck_siblings__ = usercode.own_modules(set(sys.modules) - before, folder)",
             '        module.__boundcheck_siblings__ = [m for m in set(sys.modules) - before if str(getattr(sys.modules[m], "__file__", "") or "").startswith(folder + "/")]',
             "every module under the file's folder (a venv's too) shipped by value",
             (LAYOUT + "test_only_the_users_own_modules_are_siblings",)),
    Mutation("UL5", "boundcheck/study/shipping.py",
             "        if isinstance(file, str) and usercode.installed(file) and usercode.importable(name, file):",
             "        if False:", "an installed package's module shipped by value",
             (LAYOUT + "test_an_installed_packages_policy_class_is_not_shipped_by_value",)),
    Mutation("UL6", "boundcheck/study/runner.py",
             "                    check_picklable(cur)  # user code runs in worker processes on every backend",
             "                    pass", "no pickling check in the main process",
             (LAYOUT + "test_an_unpicklable_policy_is_one_line_naming_the_object",)),
    Mutation("UL7", "boundcheck/study/shipping.py",
             '        if type(exc).__name__ == "PicklingError":  # failed here, sending the task: no process ended',
             "        if False:", "a pickling failure reported as a dead worker",
             (LAYOUT + "test_a_pickling_failure_sending_a_task_is_not_a_dead_worker",)),
    Mutation("UL8", "boundcheck/study/shipping.py", "    if depth == 0 or not failing(obj):", "    if True:",
             "the object that fails to pickle not named", (LAYOUT + "test_an_unpicklable_policy_is_one_line_naming_the_object",)),
    Mutation("UL9", "boundcheck/utils/usercode.py", "        if not _state.calling:  # boundcheck's own code in the task",
             "        if False:", "boundcheck's own warnings counted as the checked code's",
             (SAYS + "test_only_warnings_of_user_calls_are_counted",)),
    Mutation("UL10", "boundcheck/utils/usercode.py", "    calling, st.calling = st.calling, True",
             "    calling = st.calling", "user calls not marked: their warnings not counted",
             (SAYS + "test_only_warnings_of_user_calls_are_counted",
              SAYS + "test_the_checked_codes_warnings_are_counted_and_shown")),
    Mutation("UL11", "boundcheck/utils/usercode.py",
             '        warnings.simplefilter("always", append=True)  # counted every time, not once per place and process',
             "        pass", "warnings counted once per place only", (SAYS + "test_the_checked_codes_warnings_are_counted_and_shown",)),
    Mutation("UL12", "boundcheck/utils/usercode.py", '                kinds[key]["count"] += r["count"]',
             '                kinds[key]["count"] = r["count"]', "warning counts of different tasks not added",
             (SAYS + "test_the_checked_codes_warnings_are_counted_and_shown",)),
    Mutation("UL13", "boundcheck/utils/usercode.py", '    if not str(filename).startswith("<"):', "    if True:",
             "a warning's file shown as <dynamic-code>", (SAYS + "test_the_checked_codes_warnings_are_counted_and_shown",)),
    Mutation("UL14", "boundcheck/cli/verify.py", "    found = api.user_code_warnings(log) if log is not None else []",
             "    found = []", "the checked code's warnings not shown",
             (SAYS + "test_the_checked_codes_warnings_are_counted_and_shown",)),
    Mutation("UL15", "boundcheck/cli/verify.py", "ROUNDOFF_GAP = 1e-4", "ROUNDOFF_GAP = 1e-2",
             "a 0.99× width called float32 round-off", (SAYS + "test_the_round_off_note_follows_the_largest_gap",)),
    Mutation("UL16", "boundcheck/cli/verify.py", "    if gap is None or not 0 < gap <= ROUNDOFF_GAP:", "    if gap is None:",
             "the round-off note for any gap", (SAYS + "test_the_round_off_note_follows_the_largest_gap",)),
    Mutation("UL17", "boundcheck/cli/verify.py",
             '    if c is None or c.get("verdict") != "violated" or c.get("kind") != "deterministic":', "    if c is None:",
             "the round-off note where conformance holds", (SAYS + "test_the_round_off_note_follows_the_largest_gap",)),
    Mutation("UL18", "boundcheck/claims/table.py",
             '            if f"gap_{c.id}" in main_runs:  # the largest gap over the runs (conformance: is it round-off?)',
             "            if False:", "the conformance claim's largest gap not reported (no round-off note)",
             (SAYS + "test_a_float32_implementation_is_said_to_differ_by_round_off",)),
    Mutation("UL19", "boundcheck/cli/verify.py",
             '        need = (c.get("details") or {}).get("runs_needed") if v == "inconclusive" else None',
             "        need = None", "the runs that would settle an inconclusive claim not shown",
             (SAYS + "test_the_table_shows_the_runs_that_would_settle_an_inconclusive_claim",)),
    Mutation("UL20", "boundcheck/errors.py",
             '    TERMINATED = 143, "terminated (SIGTERM): as an interrupt"',
             '    TERMINATED = 142, "terminated (SIGTERM): as an interrupt"',
             "exit codes that disagree with the help and the tables", (SAYS + "test_the_exit_codes_have_one_source",)),
    Mutation("UL21", "boundcheck/commands/usercode.py",
             "                  if home != folder and name in sys.modules}",
             "                  if False}", "a policy file imports another folder's sibling module of the same name",
             ("tests/usercode/test_user_policies.py::test_two_policy_files_with_same_named_siblings_each_import_their_own",)),
    # ------------------------------------------------------------------ claims judged on the conformance shadow
    Mutation("SH1", "boundcheck/study/engine.py",
             "                shadow.adopt(t, action)  # its records (and the state its update reads) at the policy's action",
             "                pass", "the shadow's records taken at its own choices, not at the code's actions",
             (SHADOW + "test_records_from_the_shadow_are_at_the_codes_actions",)),
    Mutation("SH2", "boundcheck/study/engine.py", "            fills[pol.name] = shadow_fills(shadow, pol)",
             "            fills[pol.name] = frozenset()", "no record taken from the shadow",
             (SHADOW + "test_correct_code_without_records_holds_and_is_complete",)),
    Mutation("SH3", "boundcheck/study/summary.py", "        if need and need <= conf:", "        if need & conf:",
             "a claim counted covered by conformance when it catches a defect conformance does not",
             (SHADOW + "test_coverage_needs_every_defect_of_the_claim",)),
    Mutation("SH4", "boundcheck/commands/resolve.py", "            for cid, need in on_shadow.pop(name, {}).items():",
             "            for cid, need in {}.items():", "claims judged on a shadow that does not run (--no-conformance)",
             (SHADOW + "test_without_the_shadow_those_claims_are_not_applicable",)),
    Mutation("SH5", "boundcheck/policies/gp_ts.py",
             '    shadow_records = frozenset({"mu", "sigma", "width", "mu_final", "var_final"})',
             '    shadow_records = frozenset({"mu", "sigma", "width", "mu_final", "var_final", "draw_dev"})',
             "a GP-TS shadow offers its own draws as the code's",
             (SHADOW + "test_shadow_fills_are_what_the_code_does_not_record",)),
    Mutation("SH6", "boundcheck/study/summary.py",
             "    missing = {cid: why for cid, why in not_applicable.items() if why != OFF_REASON and cid not in identities}",
             "    missing = {cid: why for cid, why in not_applicable.items() if why != OFF_REASON}",
             "a sanity identity not applicable makes the verdict incomplete",
             (SHADOW + "test_correct_code_without_records_holds_and_is_complete",)),
    # ------------------------------------------------------------------ where a vacuous bound would bite
    Mutation("BF1", "boundcheck/claims/horizon.py", "    return hi", "    return lo",
             "the horizon search returns the last T at which the bound does not bite",
             (BITES + "test_first_crossing_is_the_smallest_sign_change",)),
    Mutation("BF2", "boundcheck/claims/horizon.py",
             '    return float(s.mean() if kind == "expectation" else s.max())', "    return float(s.max())",
             "expectation claims compared with the largest run's regret, not the mean",
             (BITES + "test_the_per_step_regret_is_what_each_identity_rule_compares_with",)),
    Mutation("BF3", "boundcheck/claims/horizon.py", "    return float(q * curve[-1] + (curve[r - 1] if r else 0.0))",
             "    return float(curve[-1] + (curve[r - 1] if r else 0.0))",
             "γ beyond the computed horizon extended unsoundly (not by subadditivity)",
             (BITES + "test_gamma_beyond_the_computed_horizon_is_extended_by_subadditivity",)),
    Mutation("BF4", "boundcheck/claims/horizon.py", '        return lo if side == "lo" else max(up, lo)',
             '        return up if side == "lo" else max(up, lo)', "the lower end of γ taken as its upper end",
             (BITES + "test_gp_ucb_bites_where_bound_falls_below_r_max_T_and_the_rerun_agrees",)),
    Mutation("BF5", "boundcheck/claims/horizon.py", "        elif not math.isclose(b1, b0, rel_tol=_RTOL):",
             "        elif not math.isclose(b1, b0, rel_tol=1.0):",
             "a bound the theorem's expression does not reproduce is extrapolated anyway",
             (BITES + "test_a_bound_read_from_the_runs_data_is_not_extrapolated",)),
    Mutation("BF6", "boundcheck/claims/horizon.py", '        v["T"] = float(T)', '        v["T"] = float(base.horizon)',
             "the bound not evaluated at the horizon searched",
             (BITES + "test_r_gp_ucb_bites_where_its_linear_bound_falls_below_r_max_T",)),
    Mutation("BF7", "boundcheck/claims/horizon.py", "            if r.id in a_priori:", "            if r.id not in a_priori:",
             "the wrong largest regret per step (runs' instead of the theorem's a-priori 2B√κ)",
             (BITES + "test_verify_says_where_the_vacuous_bound_bites",)),
    Mutation("BF8", "boundcheck/claims/horizon.py",
             "    return int(math.ceil(math.log(share) / math.log1p(-alpha) - 1e-12))",
             "    return int(math.ceil(math.log(share) / math.log1p(alpha) - 1e-12))", "a wrong --runs N",
             (BITES + "test_runs_to_hold_is_the_smallest_failure_free_sample_that_settles_the_claim",)),
    Mutation("BF9", "boundcheck/claims/horizon.py", "        stale = sorted(extra.read - fresh)",
             "        stale = sorted(fresh - extra.read)", "a constant computed at the study's horizon held silently",
             (BITES + "test_a_bound_read_from_the_runs_data_is_not_extrapolated",)),
    Mutation("BF10", "boundcheck/cli/verify.py", '                if isinstance(bite, dict) and bite.get("message"):',
             '                if isinstance(bite, list) and bite.get("message"):', "the verify table drops the note",
             (BITES + "test_verify_says_where_the_vacuous_bound_bites",)),
    Mutation("BF11", "boundcheck/cli/inspect.py", '    _render_bites(con, info.get("bites_from"))',
             '    _render_bites(con, info.get("bites"))', "show drops where each bound bites",
             (BITES + "test_show_says_where_each_bound_bites",)),
    Mutation("BF12", "boundcheck/report/wording.py",
             '    return str(bite.get("message") or "") if isinstance(bite, dict) else ""',
             '    return str(bite.get("reason") or "") if isinstance(bite, dict) else ""', "the reports lose the note",
             (BITES + "test_the_reports_say_where_the_vacuous_bound_bites",)),
    Mutation("BF13", "boundcheck/study/summary.py",
             "        attach_bites(res, fam, spec.scenario, inst, rows, each, beta_scale=spec.beta_scale)  # where vacuous bounds bite",
             "        pass", "verify never says where a vacuous bound bites",
             (BITES + "test_verify_says_where_the_vacuous_bound_bites",)),
    # ---- hostile inputs
    Mutation("HI1", "boundcheck/world/scenario_stationary.py",
             '            raise f.error("domain.indices.n", f"at most {MAX_DOMAIN_POINTS} points", n)',
             "            pass", "an indices domain of any size is built",
             (HOSTILE + "test_every_domain_kind_is_capped_before_anything_of_its_size_is_built",)),
    Mutation("HI2", "boundcheck/world/scenario_stationary.py",
             "        if len(rows) > MAX_DOMAIN_POINTS + 1:  # (+ a header line) counted before a number is parsed",
             "        if False:", "a CSV domain's rows are all parsed before they are counted",
             (HOSTILE + "test_every_domain_kind_is_capped_before_anything_of_its_size_is_built",)),
    Mutation("HI3", "boundcheck/world/scenario_stationary.py", '    _check_points(f, "domain.points", pts.shape[0])',
             "    pass", "an inline points domain of any size is built",
             (HOSTILE + "test_every_domain_kind_is_capped_before_anything_of_its_size_is_built",)),
    Mutation("HI4", "boundcheck/world/scenario_stationary.py", '        _check_dim(f, "domain.grid.dim", dim)',
             "        pass", "a grid of any dimension is built",
             (HOSTILE + "test_every_domain_kind_is_capped_before_anything_of_its_size_is_built",)),
    Mutation("HI5", "boundcheck/world/scenario_stationary.py", '        _check_dim(f, "domain.uniform.dim", dim)',
             "        pass", "a uniform domain of any dimension is drawn",
             (HOSTILE + "test_every_domain_kind_is_capped_before_anything_of_its_size_is_built",)),
    Mutation("HI6", "boundcheck/world/scenario_stationary.py",
             '        check_memory(estimate, hint="use fewer points, or fewer priors with a kernel of their own")',
             "        pass", "a scenario's Gram matrices are built without sizing them against the memory",
             (HOSTILE + "test_the_gram_matrices_are_sized_against_the_memory_before_any_is_built",)),
    Mutation("HI7", "boundcheck/world/scenario_reader.py",
             '        if Path(value).is_absolute() or ".." in Path(value).parts or "\\0" in value:',
             "        if False:", "a data file is read from an absolute path or through '..'",
             (HOSTILE + "test_data_files_are_read_only_from_the_scenario_files_folder",)),
    Mutation("HI8", "boundcheck/world/scenario_reader.py", "        if not path.resolve().is_relative_to(base):",
             "        if False:", "a data file is read through a symbolic link out of the scenario's folder",
             (HOSTILE + "test_data_files_are_read_only_from_the_scenario_files_folder",)),
    Mutation("HI9", "boundcheck/world/scenario_reader.py", "        if not path.exists() and not path.is_symlink():",
             "        if not path.is_file():", "a FIFO named as a data file is reported as not found",
             (HOSTILE + "test_a_fifo_named_as_a_data_file_is_said_to_be_no_regular_file",)),
    Mutation("HI10", "boundcheck/commands/sweep.py", "    if count > MAX_SWEEP_CELLS:", "    if count > 10 * MAX_SWEEP_CELLS:",
             "a sweep over the cap reads its values and its scenario before it is refused",
             (HOSTILE + "test_a_sweep_over_the_cap_is_refused_before_any_value_is_read",)),
    Mutation("HI11", "boundcheck/commands/sweep.py", "        if ckey not in checked:", "        if True:",
             "a sweep builds and checks one study per cell (a sweep over seeds: thousands of identical ones)",
             (HOSTILE + "test_a_sweep_checks_each_distinct_study_once_and_reports_from_the_start",)),
    Mutation("HI12", "boundcheck/commands/sweep.py", "        on_setup(0, count)", "        pass",
             "a sweep's set-up is silent until its first cell is checked",
             (HOSTILE + "test_a_sweep_checks_each_distinct_study_once_and_reports_from_the_start",)),
    Mutation("HI13", "boundcheck/cli/sweep.py",
             '        elif done < total and now - checking["t0"] >= SWEEP_SETUP_QUIET and (',
             "        elif False and (", "sweep prints nothing while it checks its cells",
             (HOSTILE + "test_a_sweep_says_how_far_its_checks_got_before_the_first_cell",)),
    Mutation("HI14", "boundcheck/study/runner.py",
             "                if isinstance(exc, OSError) and exc.errno in DISK_FULL:  # say so: there is nothing to keep",
             "                if False:", "a full disk before any chunk: 'every chunk is kept' of a removed folder",
             (HOSTILE + "test_a_full_disk_before_any_chunk_says_the_folder_was_removed",)),
    Mutation("HI15", "boundcheck/study/store.py",
             '                out["records"][str(c)] = f"its record chunks/{rec.name} is missing"', "                pass",
             "store check passes a deleted chunk record",
             (HOSTILE + "test_store_check_names_a_damaged_record_or_store_json_and_repair_rewrites_it",)),
    Mutation("HI16", "boundcheck/study/store.py",
             "                if _plain(recovered[str(c)]) != _plain(manifest[\"chunks\"][str(c)]):",
             "                if False:", "store check passes a chunk record that says other runs than the manifest",
             (HOSTILE + "test_store_check_names_a_damaged_record_or_store_json_and_repair_rewrites_it",)),
    Mutation("HI17", "boundcheck/study/store.py",
             '    if manifest is not None and header is not None and header.get("config_key") != key:',
             "    if False:", "store check passes a store.json of another configuration",
             (HOSTILE + "test_store_check_names_a_damaged_record_or_store_json_and_repair_rewrites_it",)),
    Mutation("HI18", "boundcheck/study/store.py", '    header_bad = manifest is not None and out["header"] != "ok"',
             "    header_bad = False", "store check passes a junk store.json",
             (HOSTILE + "test_store_check_names_a_damaged_record_or_store_json_and_repair_rewrites_it",)),
    Mutation("HI19", "boundcheck/study/store.py",
             '                store._write_record(manifest.get("config_key"), int(c), manifest["chunks"][c])',
             "                pass", "store repair leaves the damaged chunk records as they are",
             (HOSTILE + "test_store_check_names_a_damaged_record_or_store_json_and_repair_rewrites_it",)),
    Mutation("HI20", "boundcheck/utils/settings.py",
             "        if self.until_conclusive and self.runs is not None and self.runs > most:", "        if False:",
             "--runs above --max-runs silently runs --max-runs",
             (HOSTILE + "test_runs_above_what_until_conclusive_stops_at_is_refused",)),
    Mutation("HI21", "boundcheck/study/preflight.py",
             "    single = list(dict.fromkeys(p.name for p in spec.policies if _one_arm_class(p) is not None))",
             "    single = []", "a one-point algorithm is run on super arms (and its first select() is blamed)",
             (HOSTILE + "test_a_one_point_algorithm_on_super_arms_is_refused_without_blaming_a_policy",)),
    Mutation("HI22", "boundcheck/cli/options.py",
             '    "delta": {"type": real},', '    "delta": {"type": float},',
             "a number option reads full-width digits (Python's float does)",
             (HOSTILE + "test_number_options_refuse_non_ascii_digits_as_integer_options_do",)),
    Mutation("HI23", "boundcheck/utils/resources.py", '    if x < MIN_SIZE and unit in ("", "b"):', "    if False:",
             "--max-memory 2.5 is read as 2.5 bytes without a word about the unit",
             (HOSTILE + "test_max_memory_says_what_it_read",)),
    Mutation("HI24", "boundcheck/utils/resources.py", "    if x < MIN_SIZE:", "    if False:",
             "--max-memory 0.5K is taken as 512 bytes", (HOSTILE + "test_max_memory_says_what_it_read",)),
    Mutation("HI25", "boundcheck/policies/asktell.py",
             "    return np.frombuffer(a.tobytes(), dtype=a.dtype).reshape(a.shape)",
             "    return (v := np.asarray(a).view(), v.setflags(write=False))[0]",
             "the ask/tell context's arrays are read-only views that setflags(write=True) unlocks",
             (HOSTILE + "test_the_arrays_an_ask_tell_policy_is_given_cannot_be_unlocked",)),
    Mutation("HI26", "boundcheck/policies/asktell.py", "            object.__setattr__(q, name, arrays[id(value)])",
             "            pass", "an ask/tell policy is handed the study's own prior arrays",
             (HOSTILE + "test_the_arrays_an_ask_tell_policy_is_given_cannot_be_unlocked",)),
    # ---- the newcomer's path
    Mutation("NP1", "boundcheck/commands/resolve.py", "    names = [_reference_name(a) for a in _as_sequence(algorithm)]",
             "    names = []", "a verify of your code shares the theorem's default output folder",
             (NPF + "test_default_out_is_one_folder_per_checked_code_and_scenario",)),
    Mutation("NP2", "boundcheck/commands/resolve.py",
             '    return f"{part}-algorithm" if part in _RESERVED_FOLDERS else part', "    return part",
             "an algorithm named results/power takes a folder a verify writes itself",
             (NPF + "test_default_out_is_one_folder_per_checked_code_and_scenario",)),
    Mutation("NP3", "boundcheck/cli/verify.py", '                                                                            cfg.get("algorithm")))',
             "                                                                            None))",
             "the command line's default folder ignores --algorithm",
             (NPF + "test_the_command_line_passes_the_default_folder_of_the_checked_code",)),
    Mutation("NP4", "boundcheck/commands/inspect.py", "    if paper is not None and paper.reference:",
             "    if paper is not None and not paper.reference:", "show loses the paper's reference",
             (NPR + "test_show_prints_the_papers_reference",)),
    Mutation("NP5", "boundcheck/commands/inspect.py",
             '    return "" if not text or text.endswith(".txt") or "/" in text else text', "    return text",
             "a paper's text file cited as if it were a reference",
             (NPR + "test_a_theorem_whose_paper_is_a_file_name_cites_nothing_rather_than_the_file",)),
    Mutation("NP6", "boundcheck/cli/verify.py",
             '    legend = ["* the theorem\'s own conclusion" if any(c.get("main") and c["kind"] != "identity"',
             '    legend = ["" if any(c.get("main") and c["kind"] != "identity"',
             "the main claim's star loses its legend",
             (NPC + "test_the_main_claims_star_has_a_legend",)),
    Mutation("NP7", "boundcheck/cli/verify.py",
             '    return {"holds": "ok", "violated": "[red]BROKEN[/red]"}.get(verdict, str(verdict))',
             '    return {"holds": "ok", "violated": "[red]BROKEN[/red]"}.get(verdict, "[red]BROKEN[/red]")',
             "the console calls an identity that was not judged BROKEN",
             (NPC + "test_an_identity_reads_broken_only_on_a_counterexample",)),
    Mutation("NP8", "boundcheck/report/verify/model.py",
             '        label = {"holds": "identity ok", "violated": "identity BROKEN"}.get(verdict, verdict)',
             '        label = {"holds": "identity ok", "violated": "identity BROKEN"}.get(verdict, "identity BROKEN")',
             "the LaTeX report calls a not-applicable identity BROKEN",
             (NPC + "test_an_identity_reads_broken_only_on_a_counterexample",)),
    Mutation("NP9", "boundcheck/cli/render.py",
             '        if now - state["last"] >= PLAIN_PROGRESS_EVERY or (force and state["printed"]):',
             '        if now - state["last"] >= PLAIN_PROGRESS_EVERY:', "the last progress line is not the finished state",
             (NPC + "test_the_last_plain_progress_line_is_the_finished_state",)),
    Mutation("NP10", "boundcheck/study/runner.py", '                if computed or "elapsed_s" not in manifest:  # this run\'s time (a resume does not add up earlier',
             '                if True:  # this run\'s time (a resume does not add up earlier',
             "a rerun that recomputes nothing replaces the time taken of the results",
             (NPC + "test_a_rerun_that_recomputes_nothing_keeps_the_time_and_the_reports",
              "tests/study/test_store.py::test_a_resume_that_computes_nothing_keeps_the_time_of_the_results")),
    Mutation("NP11", "boundcheck/commands/verify.py", "            if _report_files(out) == written[\"files\"]:", "            if True:",
             "a deleted or edited report file is not written again", (NPC + "test_a_rerun_that_recomputes_nothing_keeps_the_time_and_the_reports",)),
    Mutation("NP12", "boundcheck/commands/verify.py", "    h.update(json.dumps(shown, sort_keys=True, default=str).encode())",
             "    pass", "reports kept although what they show changed",
             (NPC + "test_reports_are_rewritten_when_what_they_show_changes",)),
    Mutation("NP13", "boundcheck/cli/render.py", "    title, table.title = table.title, None", "    title = None",
             "a title longer than its table is wrapped mid-phrase",
             (NPC + "test_a_title_longer_than_its_table_is_not_wrapped_to_the_tables_width",)),
    Mutation("NP14", "boundcheck/cli/report.py",
             '    res = api.index_report(args.index or ["reports"], args.index_out)  # --index alone: the verifies\' default home',
             "    res = api.index_report(args.index, args.index_out)", "report --index without a folder fails",
             (NPC + "test_report_index_without_a_folder_indexes_reports",)),
    Mutation("NP15", "Makefile", 'QUIET_EDITABLE := PYTHONWARNINGS="ignore:Editable installation"', "QUIET_EDITABLE :=",
             "make verify prints setuptools' editable-install banner",
             (NPC + "test_make_silences_the_setuptools_editable_install_banner",)),
    Mutation("NP16", "boundcheck/cli/scenario.py", '    if any(r["ok"] is None for r in app["rows"]):', "    if False:",
             "the mark of an assumption no predicate checks has no legend",
             (NPC + "test_an_assumption_no_predicate_checks_has_a_legend_for_its_mark",)),
    # ---- hostile processes and output
    Mutation("HP1", "boundcheck/utils/settings.py",
             "        if not usercode.MIN_TIMEOUT <= self.policy_timeout <= usercode.MAX_TIMEOUT:",
             "        if not usercode.MIN_TIMEOUT <= self.policy_timeout:",
             "--policy-timeout without an upper bound (1e30: every call fails, blamed on the user's code)",
             (HOSTILE_P + "test_the_policy_timeout_is_bounded", HOSTILE_P + "test_a_policy_timeout_beyond_a_day_is_one_line_exit_2")),
    Mutation("HP2", "boundcheck/utils/settings.py",
             "        if not usercode.MIN_TIMEOUT <= self.policy_timeout <= usercode.MAX_TIMEOUT:",
             "        if not 0 <= self.policy_timeout <= usercode.MAX_TIMEOUT:",
             "--policy-timeout without a lower bound (1e-300 rounds to no timer at all)",
             (HOSTILE_P + "test_the_policy_timeout_is_bounded",)),
    Mutation("HP3", "boundcheck/commands/usercode.py", "IMPORT_PROBE_TIMEOUT = 60.0  #", "IMPORT_PROBE_TIMEOUT = 120.0  #",
             "the import limit two minutes again",
             (HOSTILE_P + "test_the_import_limit_is_at_most_a_minute_and_an_import_over_it_is_refused",
              HOSTILE_P + "test_an_import_that_hangs_says_so_while_it_waits_and_an_interrupt_ends_its_probe")),
    Mutation("HP4", "boundcheck/commands/usercode.py",
             '                print(f"boundcheck: importing {label} (limit {IMPORT_PROBE_TIMEOUT:g} s)…", file=sys.stderr,',
             '                print(end="", file=sys.stderr,', "an import that hangs waits in silence",
             (HOSTILE_P + "test_the_import_limit_is_at_most_a_minute_and_an_import_over_it_is_refused",)),
    Mutation("HP5", "boundcheck/commands/usercode.py", "                os.killpg(proc.pid, signal.SIGKILL)",
             "                proc.kill()", "the import probe ended alone: what it started at import lives on",
             (HOSTILE_P + "test_the_import_limit_is_at_most_a_minute_and_an_import_over_it_is_refused",)),
    Mutation("HP6", "boundcheck/utils/usercode.py", "    return processes.end_descendants()", "    return []",
             "the processes a user's code started are not ended with the command",
             (HOSTILE_P + "test_processes_the_users_code_starts_do_not_outlive_the_command",)),
    Mutation("HP7", "boundcheck/utils/usercode.py", "    processes.become_subreaper()", "    pass",
             "no subreaper: a process started in a worker is re-parented to init when the worker exits",
             (HOSTILE_P + "test_processes_the_users_code_starts_do_not_outlive_the_command",)),
    Mutation("HP8", "boundcheck/runtime/pool.py", "            processes.spare(processes.children() - before)",
             "            pass", "the pool's resource trackers are ended with the user's processes",
             (HOSTILE_P + "test_the_end_of_the_users_processes_spares_the_pools_resource_trackers",)),
    Mutation("HP9", "boundcheck/utils/usercode.py",
             "        os.dup2(2, 1)  # below Python, what the user's code writes to stdout goes to stderr",
             "        pass  # below Python, what the user's code writes to stdout goes to stderr",
             "a user's thread writes on file descriptor 1 into the command's output",
             (HOSTILE_P + "test_a_thread_the_users_file_starts_cannot_write_into_the_json_output",)),
    Mutation("HP10", "boundcheck/utils/usercode.py",
             "        if self._routed and (threading.current_thread() is not threading.main_thread() or os.getpid() != self._pid):",
             "        if False:", "a user's thread prints into the command's output",
             (HOSTILE_P + "test_a_thread_the_users_file_starts_cannot_write_into_the_json_output",)),
    Mutation("HP11", "boundcheck/utils/usercode.py", "    out._log = f", "    out._log = None",
             "what a user's thread prints during the study goes to stderr, not to the study's log",
             (HOSTILE_P + "test_a_thread_the_users_file_starts_cannot_write_into_the_json_output",)),
    Mutation("HP12", "boundcheck/utils/usercode.py", "                stream.reconfigure(errors=errors)",
             "                pass", "an output encoding that cannot print a character is an internal error",
             (HOSTILE_P + "test_an_output_encoding_that_cannot_print_it_is_replaced_not_an_internal_error",)),
    Mutation("HP13", "boundcheck/cli/lifetime.py",
             "            if isinstance(exc.__context__, BrokenPipeError) or isinstance(getattr(sys.stdout, \"failed\", None),",
             "            if False and isinstance(getattr(sys.stdout, \"failed\", None),",
             "rich's SystemExit(1) on a broken pipe read as 'violated' (exit 1)",
             (HOSTILE_P + "test_a_reader_that_stops_reading_is_exit_141",)),
    Mutation("HP14", "boundcheck/cli/lifetime.py",
             "                sys.stdout.flush()  # a broken pipe or a full disk behind stdout is reported here, not lost at exit",
             "                pass", "the output's last write fails silently at exit (exit 0)",
             (HOSTILE_P + "test_a_full_stdout_is_named_not_the_output_folder",)),
    Mutation("HP15", "boundcheck/commands/session.py", "    if sys.stdout is None:  # started with file descriptor 1 closed",
             "    if False:  # started with file descriptor 1 closed", "a closed stdout is an internal error",
             (HOSTILE_P + "test_a_closed_stdout_is_one_line_exit_2",)),
    Mutation("HP16", "boundcheck/utils/usercode.py", '                setattr(exc, STREAM_ATTR, "the standard output")',
             "                pass", "a full stdout blamed on the output folder",
             (HOSTILE_P + "test_a_full_stdout_is_named_not_the_output_folder",)),
    Mutation("HP17", "boundcheck/model/kernels.py", "    if v > MAX_LENGTHSCALE:", "    if False:",
             "a lengthscale of 1e308 overflows (an internal error)", (HOSTILE_P + "test_gammas_real_options_are_bounded",)),
    Mutation("HP18", "boundcheck/commands/inspect.py", '    if check_positive("--noise", noise) > MAX_NOISE:',
             '    if check_positive("--noise", noise) > float("inf"):', "gamma --noise 1e308 overflows (an internal error)",
             (HOSTILE_P + "test_gammas_real_options_are_bounded",)),
    Mutation("HP19", "boundcheck/utils/usercode.py", "            self.failed = exc", "            pass",
             "a broken pipe argparse swallows (--help | head) exits 0",
             (HOSTILE_P + "test_a_reader_that_stops_reading_is_exit_141",)),
    # ------------------------------------------------------------------ the adapters (boundcheck/adapters): each check of
    # what the theorem assumes of a user's BoTorch / scikit-learn model, and the kernel specification
    Mutation("AD1", "boundcheck/adapters/botorch.py", "        if t.dtype != DTYPE:", "        if False:",
             "a float32 model accepted", (ADAPT_M + "test_the_adapter_refuses_what_the_theorem_does_not_assume[Float32]",)),
    Mutation("AD2", "boundcheck/adapters/botorch.py", "    if gap > TOLERANCE:  # the prior covariance", "    if False:",
             "fitted kernel hyperparameters accepted", (ADAPT_M + "test_the_adapter_refuses_what_the_theorem_does_not_assume[Fitted]",)),
    Mutation("AD3", "boundcheck/adapters/botorch.py", "    if gap > TOLERANCE:  # the prior mean", "    if False:",
             "a fitted mean accepted", (ADAPT_M + "test_the_adapter_refuses_what_the_theorem_does_not_assume[LearntMean]",)),
    Mutation("AD4", "boundcheck/adapters/botorch.py",
             "    if noise.size and float(np.max(np.abs(noise - ctx.noise_var))) > TOLERANCE * ctx.noise_var:",
             "    if False:", "a noise variance other than λ accepted",
             (ADAPT_M + "test_the_adapter_refuses_what_the_theorem_does_not_assume[LearntNoise]",)),
    Mutation("AD5", "boundcheck/adapters/botorch.py", "        if getattr(model, attr, None) is not None:", "        if False:",
             "an outcome transform (Standardize) accepted",
             (ADAPT_M + "test_the_adapter_refuses_what_the_theorem_does_not_assume[Standardized]",)),
    Mutation("AD6", "boundcheck/adapters/botorch.py", "            if v.dtype != DTYPE:", "            if False:",
             "a float32 beta inside the acquisition accepted", (ADAPT_A + "test_a_python_float_beta_is_refused_as_float32",)),
    Mutation("AD7", "boundcheck/adapters/botorch.py", "    return torch.tensor(w * w, dtype=DTYPE)",
             "    return torch.tensor(w, dtype=DTYPE)", "botorch_beta passes the width, not its square",
             (ADAPT_A + "test_the_ucb_examples_hold_against_gp_ucb",)),
    Mutation("AD8", "boundcheck/adapters/sklearn.py", '        if getattr(gpr, "optimizer", None) is not None:',
             "        if False:", "scikit-learn's hyperparameter optimizer accepted",
             (ADAPT_A + "test_sklearn_with_its_optimizer_is_refused",)),
    Mutation("AD9", "boundcheck/model/kernels.py", "        if mismatch(spec.kernel()(X, X), M) <= SPEC_TOLERANCE:",
             "        if True:", "a kernel specification that does not reproduce the prior's matrix",
             (ADAPT_A + "test_a_matrix_no_family_reproduces_is_a_kernel_by_index",)),
    Mutation("AD10", "boundcheck/adapters/botorch.py", "            check_batch_model(model, ctx, self.inputs)",
             "            pass", "the batched adapter accepts a model with BoTorch's default kernel",
             (ADAPT_B + "test_the_batched_adapter_refuses_what_the_per_run_form_refuses[DefaultKernel]",)),
    Mutation("AD11", "boundcheck/adapters/botorch.py", "        x = np.argmax(np.where(avail, s, -np.inf), axis=1)",
             "        x = np.argmax(s, axis=1)", "the batched adapter maximises over X, not X_t",
             (ADAPT_B + "test_batched_and_per_run_choose_the_same_points_over_x_t",)),
    # compact boxes: the continuum engine, the box family's checks, box scenario files
    Mutation("BX1", "boundcheck/claims/families/continuum.py",
             "OPTIMISER_TOL = 1e-5", "OPTIMISER_TOL = 1e5",
             "optimiser_gap's tolerance 10¹⁰× too loose: a choice below the UCB's max over D_t passes",
             (BOX_DEFECTS + "crude_optimiser]", BOX_DEFECTS + "beta_small]")),
    Mutation("BX2", "boundcheck/claims/families/continuum.py", "CHAIN_RULE_TOL = 1e-8", "CHAIN_RULE_TOL = 1e8",
             "the chain-rule tolerance of D3_information 10¹⁶× too loose", (BOX_DEFECTS + "dropped_observation_box]",)),
    Mutation("BX3", "boundcheck/study/continuum.py", "    return lo + (cell + 0.5) * h", "    return lo + cell * h",
             "[x]_t a corner of its cell, not the centre: ‖x − [x]_t‖₁ up to dr/n instead of dr/(2n)",
             ("tests/study/test_continuum.py::test_discretise_is_the_nearest_cell_centre",)),
    Mutation("BX4", "boundcheck/study/continuum.py", '        regret = f_star - o["f_x"]',
             '        regret = f_star - o["f_x"] - 0.5', "the regret measured against a maximum found 0.5 too low",
             ("tests/study/test_continuum.py::test_regret_is_against_a_certified_maximum",)),
    Mutation("BX5", "boundcheck/claims/families/base.py", '        if box != (self.domain_kind == "box"):',
             "        if False:", "a finite theorem runs on a box scenario's display grid (and a box theorem on points)",
             ("tests/study/test_continuum.py::test_finite_and_box_theorems_refuse_each_others_scenarios",)),
    Mutation("BX6", "boundcheck/claims/families/continuum.py",
             '        return self.traj.truth.get("grad_sup", np.zeros(self.m)) <= L',
             '        return self.traj.truth.get("grad_sup", np.zeros(self.m)) <= 10 * L',
             "the Lipschitz event of Lemma 5.7 checked at 10 L", (BOX_DEFECTS + "truth_amplified]",)),
    Mutation("BX7", "boundcheck/world/box_scenario.py", "    if not rkhs_truth and dim > 3:",
             "    if not rkhs_truth and dim > 4:",
             "a box scenario file of dimension 4 accepted (the feature truth needs m^d nodes)",
             ("tests/study/test_continuum.py::test_bad_box_scenario_files_are_one_line_errors",)),
    Mutation("BX8", "boundcheck/world/box_scenario.py",
             "    return ~np.isfinite(X).all(axis=-1) | (X < b.low - 1e-12).any(axis=-1) | (X > b.high + 1e-12).any(axis=-1)",
             "    return ~np.isfinite(X).all(axis=-1)",
             "a box policy's point outside the box accepted (and clipped into it silently)",
             ("tests/study/test_continuum.py::test_a_box_policy_outside_the_box_is_one_line",)),
    Mutation("BX9", "boundcheck/study/continuum.py", "STATIC_MAX_TOL, CHAIN_MAX_TOL = 1e-6, 1e-3",
             "STATIC_MAX_TOL, CHAIN_MAX_TOL = 1e-1, 1e-3",
             "a static truth's maximum certified only to 0.1 (T·0.1 on R_T)",
             ("tests/study/test_continuum.py::test_regret_is_against_a_certified_maximum",)),
    Mutation("BX10", "boundcheck/claims/families/continuum.py",
             "        return np.abs(self.traj.f_opt - self.mu_d) <= self.width * self.sd_d + self.eps_t",
             "        return np.abs(self.traj.f_opt - self.mu_d) <= self.width * self.sd_d + 1.0",
             "Lemma 5.7's slack 1 instead of 1/t²", (BOX_DEFECTS + "stale_action]",
                                                    BOX_DEFECTS + "prior_lengthscale_wrong]")),
    Mutation("BX11", "boundcheck/study/continuum.py", "                shadow.update(t, X, y)", "                pass",
             "the box shadow never told the checked code's observations (its UCB is the prior's)",
             ("tests/study/test_continuum.py::test_a_users_box_code_is_held_to_the_theorems_algorithm",)),
    Mutation("BX12", "boundcheck/study/continuum.py", "                refs[spec.name].condition(X, y)",
             "                pass", "the engine's reference posterior of a box code never conditioned on its data",
             ("tests/study/test_continuum.py::test_a_users_box_code_without_a_shadow_is_judged_on_a_reference_posterior",)),
    Mutation("BX13", "boundcheck/model/continuum/paths.py", "            out[:, j] = np.maximum(*ups)",
             "            out[:, j] = np.minimum(*ups)", "the certified sup of |∂_j f| only over one sign of ∂_j f",
             ("tests/study/test_continuum.py::test_the_lipschitz_event_reads_a_certified_sup_of_the_derivative",)),
    Mutation("BX14", "boundcheck/world/assumptions.py", '    ok = base == "rademacher" and scale <= 1.0',
             '    ok = scale <= 1.0', "noise_bounded accepts Gaussian noise (unbounded) for Srinivas' Theorem 3",
             ("tests/study/test_continuum.py::test_a_box_scenario_that_breaks_an_assumption_is_not_applicable",)),
    Mutation("BX15", "boundcheck/claims/families/continuum.py", "        return 2.0 * B, f\"(|f(x)| ≤ ‖f‖_k √k(x, x) ≤ B = {B:g}, so r_t ≤ 2B)\"",
             "        return 0.2 * B, f\"(|f(x)| ≤ ‖f‖_k √k(x, x) ≤ B = {B:g}, so r_t ≤ 2B)\"",
             "the a-priori regret bound of an RKHS box truth 10× too small (a bound that can bite called vacuous)",
             ("tests/study/test_continuum.py::test_rkhs_box_regret_bounds_are_vacuous_a_priori",)),
    # derivative tails from spectral moments (Matérn-5/2 and SE, chaining + Borell–TIS)
    Mutation("TL1", "boundcheck/model/continuum/tails.py",
             "        sig = min(lip * math.sqrt(d) * r * 2.0 ** -(i + 1), 2.0 * s)",
             "        sig = min(lip * math.sqrt(d) * r * 2.0 ** -(i + 2), 2.0 * s)",
             "the chaining's link sd half the parent distance's (E sup|∂f| understated)",
             ("tests/model/continuum/test_tails.py::test_chaining_bound_against_an_independent_reference",)),
    Mutation("TL2", "boundcheck/model/continuum/tails.py", "        return a2 / 3.0, a2 * a2",
             "        return a2 / 3.0, a2 * a2 / 3.0", "Matérn-5/2's fourth spectral moment a⁴/3 instead of a⁴",
             ("tests/model/continuum/test_tails.py::test_moments_match_the_kernel_derivatives",)),
    Mutation("TL3", "boundcheck/model/continuum/tails.py",
             "    return _borell_tis(s, chaining_sup_mean(s, math.sqrt(lam4), box))",
             "    return _borell_tis(s, chaining_sup_mean(s, math.sqrt(lam2), box))",
             "the derivative's canonical-metric constant √λ₂ (the function's) instead of √λ₄",
             ("tests/model/continuum/test_tails.py::test_chaining_bound_against_an_independent_reference",)),
    Mutation("TS1", "boundcheck/papers/igp_ucb_gp_ts/ts_box_family.py", "    per = np.abs(fs - np.repeat(fc, len(offs))) + np.linalg.norm(g, axis=1) * rho + 0.5 * hn * rho**2",
             "    per = np.abs(fs - np.repeat(fc, len(offs))) + 0.5 * hn * rho**2",
             "eq. (7)'s cell certificate without its first-order term (an upper bound that is not one)",
             ("tests/papers/igp_ucb_gp_ts/test_gp_ts_compact.py::test_eq7_certificate_bounds_the_brute_force_sup",)),
    Mutation("TS2", "boundcheck/papers/igp_ucb_gp_ts/ts_box_family.py", "        return {\"fail\": (self.disc_error * self.t[None] ** 2 > 1.0).any(axis=1),",
             "        return {\"fail\": (self.disc_error * self.t[None] ** 2 > 2.0).any(axis=1),",
             "the discretisation claim tolerates 2/t² instead of eq. (7)'s 1/t²",
             ("tests/claims/test_defects.py::test_planted_defect_is_caught[gp_ts_compact-grid_schedule_halved]",)),
    Mutation("TS3", "boundcheck/papers/igp_ucb_gp_ts/ts_box_family.py", "ON_GRID_TOL = 1e-12", "ON_GRID_TOL = 1.0",
             "decision_set accepts any point of the box as a point of D_t",
             ("tests/claims/test_defects.py::test_planted_defect_is_caught[gp_ts_compact-ts_box_grid_coarse]",)),
    Mutation("TS4", "theory/igp_ucb_gp_ts.py", '               "grid_n_t": sp.ceiling(grid_size(t) / 2),',
             '               "grid_n_t": sp.ceiling(grid_size(t) / 4),',
             "Theorem 4's D_t with half the points per side (‖x − [x]_t‖₁ ≤ 2/(BLt²): eq. (7) lost)",
             ("tests/papers/igp_ucb_gp_ts/test_gp_ts_compact.py::test_schedules_grid_and_ctilde",)),
    Mutation("TS5", "boundcheck/papers/igp_ucb_gp_ts/gp_ts_box.py", "                w = post.alpha(r) - v * beta", "                w = post.alpha(r)",
             "GP-TS on a box without the pathwise update of its prior path (draws with the prior covariance)",
             ("tests/papers/igp_ucb_gp_ts/test_gp_ts_compact.py::test_draws_have_the_posterior_law",)),
    Mutation("TS6", "theory/igp_ucb_gp_ts.py", "_ac, _bc = 2 * B + 11 * _cT / P_ANTI, 2 * B + 1",
             "_ac, _bc = 2 * B + 11 * _cT / P_ANTI, 2 * B",
             "Lemma 13's α_t on a box without the discretisation's 1/t² (b = 2B instead of 2B + 1)",
             ("tests/papers/igp_ucb_gp_ts/test_gp_ts_compact.py::test_bound_against_plain_math",)),
    # BoTorch on a compact box (boundcheck/adapters/botorch_box.py): the model check and the per-run seeding
    Mutation("BB1", "boundcheck/adapters/botorch_box.py",
             "    cov_gap = max(float(np.max(np.abs(K - ref), initial=0.0)), float(np.max(np.abs(Kd - scale)))) / scale",
             "    cov_gap = 0.0 * max(float(np.max(np.abs(K - ref), initial=0.0)), float(np.max(np.abs(Kd - scale))))",
             "the box model check blind to the prior covariance (a wrong lengthscale or family accepted)",
             (BB + "test_the_box_model_check_accepts_the_theorems_gp_and_refuses_a_kernel_off_by_float32",
              BB + "test_a_box_model_that_is_not_the_theorems_gp_is_refused_never_holds")),
    Mutation("BB2", "boundcheck/adapters/botorch_box.py", "    rows = torch.cat([train_X, check])",
             "    rows = torch.cat([train_X, check[:0]])",
             "the box model check without its fixed check set (a wrong lengthscale unseen at step 1, no data yet)",
             (BB + "test_the_box_model_check_accepts_the_theorems_gp_and_refuses_a_kernel_off_by_float32",
              BB + "test_a_box_model_that_is_not_the_theorems_gp_is_refused_never_holds")),
    Mutation("BB3", "boundcheck/adapters/botorch_box.py",
             "        torch.manual_seed(int(self.ctx.rngs[r].integers(2**62)))",
             "        int(self.ctx.rngs[r].integers(2**62))",
             "torch not seeded per run and step (optimize_acqf's raw samples from the process's global generator)",
             (BB + "test_botorch_box_runs_do_not_depend_on_their_batch",)),
    Mutation("BB4", "boundcheck/adapters/botorch_box.py",
             "        torch.manual_seed(int(self.ctx.rngs[r].integers(2**62)))",
             "        torch.manual_seed(int(self.ctx.rngs[0].integers(2**62)))",
             "torch seeded from the batch's first run's stream (a run's points depend on its batch)",
             (BB + "test_botorch_box_runs_do_not_depend_on_their_batch",)),
    # Theorem 1 of paper 001 on the continuum (et_gp_ucb_compact)
    Mutation("ETC1", "theory/et_gp_ucb.py", "    return 2 * sp.log(4 * pi**2 * s**2 / (3 * delta))\n\n\ndef compact_beta_d",
             "    return 2 * sp.log(2 * pi**2 * s**2 / (3 * delta))\n\n\ndef compact_beta_d",
             "et_gp_ucb_compact: β_t's confidence part at δ/2, not Lemma 7's δ/8 (Bogunovic's 2π_t/δ read as the whole)",
             ("tests/papers/et_gp_ucb/test_compact.py::test_beta_and_the_bound_against_an_independent_reference",)),
    Mutation("ETC2", "theory/et_gp_ucb.py", '        "grid_n_t": sp.ceiling(compact_vartheta(t) / 2),  # points per side of D_t (EC1)',
             '        "grid_n_t": sp.ceiling(compact_vartheta(t) / 20),  # points per side of D_t (EC1)',
             "et_gp_ucb_compact: D_t ten times too coarse (‖x − [x]_t‖₁ beyond rd/ϑ_t: the 1/t² no longer holds)",
             ("tests/papers/et_gp_ucb/test_compact.py::test_beta_and_the_bound_against_an_independent_reference",)),
    Mutation("ETC3", "theory/et_gp_ucb.py", "                                           + sp.log(1 + sp.exp(-log_a0)))",
             "                                           + 0)",
             "et_gp_ucb_compact: Lemma 6's ȳ with ln a₀ for ln(a₀ + 1) (the noise's share of the union dropped)",
             ("tests/papers/et_gp_ucb/test_compact.py::test_beta_and_the_bound_against_an_independent_reference",)),
    Mutation("ETC4", "boundcheck/papers/et_gp_ucb/compact.py", "            s, t_r = t - 1, t",
             "            s, t_r = t, t", "et_gp_ucb_compact's recomputation: a reset forgets the triggering point",
             ("tests/papers/et_gp_ucb/test_compact.py::test_recomputed_blocks_keep_the_triggering_point" ,
              "tests/papers/et_gp_ucb/test_compact.py::test_default_scenario_holds_without_false_alarms")),
    Mutation("ETC5", "boundcheck/papers/et_gp_ucb/compact.py", '    return {"log_a0": float(v.log_a), "b0": float(v.b), '
             '"log_a1": float(g.log_a), "b1": float(g.b)}',
             '    return {"log_a0": float(v.log_a), "b0": 0.5 * float(v.b), "log_a1": float(g.log_a), "b1": float(g.b)}',
             "et_gp_ucb_compact: Assumption 3's b₀ halved (a tail bound on sup|f| that is not one)",
             ("tests/papers/et_gp_ucb/test_compact.py::test_assumption3_tails_against_monte_carlo",)),
    Mutation("ETC6", "boundcheck/papers/et_gp_ucb/compact.py", "        pol.rho = 0.25 * pol.rho",
             "        pol.rho = 1.0 * pol.rho", "the planted defect trigger_halved plants nothing",
             ("tests/papers/et_gp_ucb/test_compact.py::test_each_planted_defect_is_caught[trigger_halved-algorithm_bookkeeping]",)),
    Mutation("ETC7", "boundcheck/papers/et_gp_ucb/compact.py", "    if sc.truth_scale != 1.0:",
             "    if sc.truth_scale < 0.0:", "et_gp_ucb_compact's assumption accepts an amplified truth (GP(0, 25k))",
             ("tests/papers/et_gp_ucb/test_compact.py::test_a_truth_outside_the_chain_breaks_the_assumption",)),
    # TV-GP-UCB on a compact box (tv_gp_ucb_compact): the per-step Lipschitz event, the chain's information gain,
    # the certified γ̃ over the box, β_t's levels, the policy's time, the told ε, the per-step tolerances
    Mutation("TVC1", TVB_FAMILY,
             "        return (g <= (self.L_t[None, :] if g.shape[1] == self.T else self.L_t[0])).all(axis=1)",
             "        return (g <= 10 * (self.L_t[None, :] if g.shape[1] == self.T else self.L_t[0])).all(axis=1)",
             "the chain's per-step Lipschitz event checked at 10 L_t", (TVB_DEFECTS + "chain_rougher]",)),
    Mutation("TVC2", TVB_FAMILY, "        D = decay_matrix(self.T, float(self.sc.eps))",
             "        D = decay_matrix(self.T, 0.0)",
             "D3's fresh log-det on the static Gram (time ignored): the chain rule of the TV posterior fails",
             (TVB_TESTS + "test_short_in_theory_study_no_claim_violated_and_gain_below_gamma",)),
    Mutation("TVC3", TVB_FAMILY, "GAMMA_TOL = 1e-12", "GAMMA_TOL = 1e12",
             "the realised gain compared with 10¹²·γ̃_t: an understated γ̃ passes",
             (TVB_TESTS + "test_d3_fails_when_the_certified_gamma_is_understated",)),
    Mutation("TVC4", "boundcheck/model/continuum/gamma_tv.py",
             "    u = 2.0 * ar1_logdet(w[~zero] / (2.0 * lam), eps, T) + ar1_logdet(w[zero] / lam, eps, T)",
             "    u = 2.0 * ar1_logdet(w[~zero] / (2.0 * lam), 0.0, T) + ar1_logdet(w[zero] / lam, 0.0, T)",
             "γ̃'s feature bound computed for a static f (ε = 0): below the chain's attained gain",
             (TVB_TESTS + "test_gamma_tv_is_above_brute_force_greedy_and_random_designs",)),
    Mutation("TVC5", "boundcheck/model/continuum/gamma_tv.py",
             "    corr = 0.25 / float(noise_var) * N**2.5 * float(eps)",
             "    corr = 0.0 / float(noise_var) * N**2.5 * float(eps)",
             "the block form of γ̃ without its mismatch term (the static γ_N per block)",
             (TVB_TESTS + "test_gamma_tv_is_above_brute_force_greedy_and_random_designs",)),
    Mutation("TVC6", "theory/et_gp_ucb.py",
             "    return tvk_b * sp.sqrt(sp.log(4 * tvk_d * tvk_pi(s) / delta) + tvk_log_a)",
             "    return tvk_b * sp.sqrt(sp.log(4 * tvk_d / delta) + tvk_log_a)",
             "Srinivas' one Lipschitz level for every f_t (the union over t lost: T·δ/4 spent)",
             (TVB_TESTS + "test_the_delta_budget_per_step",)),
    Mutation("TVC7", "boundcheck/papers/et_gp_ucb/tv_gp_ucb_box.py",
             "        self.posterior.at(t)  # μ̃_{t−1}, σ̃_{t−1}: the posterior of f_t",
             "        self.posterior.at(1)  # μ̃_{t−1}, σ̃_{t−1}: the posterior of f_t",
             "TV-GP-UCB's posterior queried at time 1 (no decay of old data)",
             (TVB_TESTS + "test_short_in_theory_study_no_claim_violated_and_gain_below_gamma",)),
    Mutation("TVC8", TVB_FAMILY,
             '            sched["tv_eps"] = np.full(T + 1, float(scenario.eps))  # what TV-GP-UCB is told (the true ε)',
             '            sched["tv_eps"] = np.full(T + 1, 0.0)  # what TV-GP-UCB is told (the true ε)',
             "the family tells TV-GP-UCB ε = 0 on a chain",
             (TVB_TESTS + "test_short_in_theory_study_no_claim_violated_and_gain_below_gamma",)),
    Mutation("TVC9", "boundcheck/study/continuum.py", '    truth["max_tolerance_t"] = f_tol',
             '    truth["max_tolerance_t"] = 0 * f_tol',
             "a chain's per-step tolerances of max f_t dropped from the regret the claims check",
             (TVB_TESTS + "test_the_engine_records_each_steps_tolerance_and_the_regret_claims_read_it",)),
    Mutation("TVC10", "boundcheck/papers/et_gp_ucb/tv_gp_ucb_box.py",
             "        self.posterior.condition(X, y, times=float(t))",
             "        self.posterior.condition(X, y, times=1.0)",
             "TV-GP-UCB stamps every observation with time 1 (its data look old)",
             (TVB_TESTS + "test_short_in_theory_study_no_claim_violated_and_gain_below_gamma",)),
    # the per-run ask/tell form on a box (boundcheck/policies/box_asktell.py): the answers' checks
    Mutation("BA1", "boundcheck/policies/box_asktell.py", "        if x.size != self._d or x.ndim > 2:",
             "        if False:", "a box ask/tell answer of the wrong shape not refused as the user's error",
             ("tests/usercode/test_box_asktell.py::test_hostile_answers_are_one_line_errors",)),
    Mutation("BA2", "boundcheck/policies/box_asktell.py", "        if not np.all(np.isfinite(x)):", "        if False:",
             "a non-finite point from a box ask/tell policy not refused as such", ("tests/usercode/test_box_asktell.py::test_hostile_answers_are_one_line_errors",)),
    Mutation("BA3", "boundcheck/policies/box_asktell.py",
             "                self._call(i, t, \"tell()\", obj.tell, _read_only(X[i]), float(y[i]))",
             "                self._call(i, t, \"tell()\", obj.tell, X[i], float(y[i]))",
             "a box ask/tell policy told the engine's own array (it could rewrite the point the study recorded)",
             ("tests/usercode/test_box_asktell.py::test_hostile_answers_are_one_line_errors",)),
    Mutation("TL4", "boundcheck/model/continuum/features.py",
             "        lip = np.sqrt(self.weights @ (absw**2 * np.sum(self.frequencies**2, axis=1)[:, None]))",
             "        lip = np.sqrt(self.weights @ absw**2)",
             "the chaining metric of ∂_j f without the ‖ω‖² of its derivative (E sup|∂_j f| understated in 2-d)",
             ("tests/model/continuum/test_tails.py::test_feature_tails_against_an_independent_reference",)),
    # R-GP-UCB / SW-GP-UCB on a compact box (boundcheck/papers/r_sw_gp_ucb/compact.py, the engine's drifting truth)
    Mutation("RSC1", "boundcheck/papers/r_sw_gp_ucb/compact.py", "        if t % self.window == 0:",
             "        if t % self.window == 1:", "R-GP-UCB on the box restarts one round late",
             ("tests/papers/r_sw_gp_ucb/test_r_sw_compact.py::test_posteriors_equal_a_dense_solve_on_the_retained_samples",
              "tests/papers/r_sw_gp_ucb/test_r_sw_compact.py::test_in_theory_no_claim_violated")),
    Mutation("RSC2", "boundcheck/papers/r_sw_gp_ucb/compact.py",
             "        over = np.flatnonzero(post.n_obs > self.window)",
             "        over = np.flatnonzero(post.n_obs > self.window + 1)", "SW-GP-UCB on the box keeps w + 1 samples",
             ("tests/papers/r_sw_gp_ucb/test_r_sw_compact.py::test_posteriors_equal_a_dense_solve_on_the_retained_samples",
              "tests/papers/r_sw_gp_ucb/test_r_sw_compact.py::test_in_theory_no_claim_violated")),
    Mutation("RSC3", "boundcheck/study/continuum.py",
             "                steps_t[r, s] = expansion(r, a[s + 1] - a[s]).norm[0]",
             "                steps_t[r, s] = 0.0 * expansion(r, a[s + 1] - a[s]).norm[0]",
             "the engine records no drift of a time-varying RKHS truth (realised budget 0)",
             ("tests/papers/r_sw_gp_ucb/test_r_sw_compact.py::test_truth_norms_budget_and_maxima_are_exact",)),
    Mutation("RSC4", "boundcheck/papers/r_sw_gp_ucb/compact.py",
             "        gprev[1:] = g0[retained_counts(self.kind, window, T)]",
             "        gprev[1:] = g0[retained_counts(self.kind, window, T) * 0]",
             "β_t of the compact theorems without the retained samples' γ̄_n", ("tests/papers/r_sw_gp_ucb/test_r_sw_compact.py::test_bound_against_an_independent_reference",)),
    Mutation("RSC5", "boundcheck/papers/r_sw_gp_ucb/compact.py", "            chain = rp[\"before\"] + term",
             "            chain = rp[\"after\"]", "SW-GP-UCB's chain-rule check on the box made vacuous",
             ("tests/papers/r_sw_gp_ucb/test_r_sw_compact.py::test_planted_defect_is_caught",)),
    Mutation("RSC6", "boundcheck/study/continuum.py",
             "                if t == 1 or not np.array_equal(seq_a[r][t - 1], seq_a[r][t - 2]):",
             "                if t == 1:", "the maximum of a drifting RKHS truth located once, not after each move",
             ("tests/papers/r_sw_gp_ucb/test_r_sw_compact.py::test_truth_norms_budget_and_maxima_are_exact",)),
    Mutation("RSC7", "boundcheck/papers/r_sw_gp_ucb/compact.py", "        rad = self.xi * self.D",
             "        rad = self.xi * self.D + 10.0", "the compact confidence event's drift radius inflated",
             ("tests/papers/r_sw_gp_ucb/test_r_sw_compact.py::test_planted_defect_is_caught",)),
    # RKHS truths on boxes of 4 to 6 dimensions
    Mutation("BX16", "boundcheck/world/box_scenario.py", "MAX_RKHS_DIM = 6", "MAX_RKHS_DIM = 3",
             "RKHS box truths capped at the GP paths' 3 dimensions",
             ("tests/study/test_continuum.py::test_rkhs_truths_go_up_to_six_dimensions_and_gp_paths_to_three",)),
    Mutation("BX17", "boundcheck/world/box_scenario.py", "    if rkhs_truth and dim > MAX_RKHS_DIM:",
             "    if rkhs_truth and dim > MAX_RKHS_DIM + 1:", "an RKHS box file of 7 dimensions not refused at the file's key",
             ("tests/study/test_continuum.py::test_rkhs_truths_go_up_to_six_dimensions_and_gp_paths_to_three",)),
    Mutation("BX18", "boundcheck/world/box_scenario.py", "        return 0.0 if self.rkhs else float(self.features.error)",
             "        return float(self.features.error)",
             "an RKHS truth's kernel error read from quadrature features it does not use (refused in 5-d)",
             ("tests/study/test_continuum.py::test_rkhs_truths_go_up_to_six_dimensions_and_gp_paths_to_three",)),
    Mutation("BX19", "boundcheck/model/continuum/gamma.py", "            m_max = int(1e6 ** (1 / box.dim))",
             "            raise", "γ over a box with no rule reaching 1e−12 (4-d and up) refused instead of bounded",
             ("tests/study/test_continuum.py::test_a_four_dimensional_rkhs_box_runs_with_its_certified_maximum",)),
)


def _copy_tree(dest: Path, worktree: bool = False) -> None:
    """HEAD's tree into ``dest``; with ``worktree``, the working tree's files instead: every tracked file as it is
    now (one deleted there is left out) and every untracked file that git does not ignore (new tests)."""
    if not worktree:
        archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
        return
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout
    for name in dict.fromkeys(os.fsdecode(n) for n in listed.split(b"\0") if n):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)


class BenchmarkError(Exception):
    """The benchmark itself is wrong (a mutation that no longer applies, a mutant that does not compile, a test
    id that selects nothing): an error of the benchmark, never counted as a defect caught or survived."""


def check_applies(m: Mutation, tree: Path) -> str:
    """The mutated source of ``m.file`` in ``tree``; BenchmarkError when ``m.old`` does not occur exactly once
    (the code moved on: a mutation that silently no longer applies would read as one that survives, or vanish
    from the count) or when the mutant of a Python file does not compile (a syntax error is caught by anything,
    a meaningless catch)."""
    path = tree / m.file
    if not path.is_file():
        raise BenchmarkError(f"{m.id}: {m.file} does not exist")
    src = path.read_text()
    n = src.count(m.old)
    if n != 1:
        raise BenchmarkError(f"{m.id}: {m.old!r} occurs {n} times in {m.file} (must be exactly once)")
    mutant = src.replace(m.old, m.new)
    try:
        if path.suffix == ".py":  # (a Makefile's mutant is not Python)
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


def run(m: Mutation, python: str, worktree: bool = False) -> tuple[list[str], float]:
    """The tests that failed on the mutant (empty: it survived) and the time; BenchmarkError when the mutation
    does not apply or pytest could not run the tests as named (usage error, nothing collected)."""
    with tempfile.TemporaryDirectory(prefix=f"mutant-{m.id}-") as tmp:
        tree = Path(tmp)
        _copy_tree(tree, worktree)
        (tree / m.file).write_text(check_applies(m, tree))
        t0 = time.perf_counter()
        rc, failed, out = _pytest(tree, python, m.tests)
        if rc in (3, 4, 5) or (rc != 0 and not failed):  # internal/usage error, nothing collected, or unexplained
            raise BenchmarkError(f"{m.id}: pytest exit {rc} without a failing test:\n{out[-1500:]}")
        return failed, time.perf_counter() - t0


def baseline(chosen: list[Mutation], python: str, worktree: bool = False) -> None:
    """Run every test the chosen mutations name on the unmutated tree: they must all pass, else a mutation would
    read as caught by a test that fails anyway. BenchmarkError otherwise."""
    tests = tuple(dict.fromkeys(t for m in chosen for t in m.tests))
    with tempfile.TemporaryDirectory(prefix="mutant-baseline-") as tmp:
        _copy_tree(Path(tmp), worktree)
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
    ap.add_argument("--worktree", action="store_true",
                    help="mutate a copy of the working tree (tracked and untracked, not ignored files), not of HEAD")
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
    source = "the working tree" if args.worktree else "HEAD"
    if not args.worktree and subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                                            capture_output=True, text=True).stdout.strip():
        print("note: uncommitted changes are not part of the run (the mutants are copies of HEAD; --worktree to "
              "include them)", file=sys.stderr)
    python = sys.executable
    try:
        # every mutation must apply to HEAD before anything runs: a stale one is the benchmark's error (exit 2)
        with tempfile.TemporaryDirectory(prefix="mutant-check-") as tmp:
            _copy_tree(Path(tmp), args.worktree)
            problems = []
            for m in chosen:
                try:
                    check_applies(m, Path(tmp))
                except BenchmarkError as exc:
                    problems.append(str(exc))
            if problems:
                raise BenchmarkError(f"mutations that do not apply to {source}:\n  " + "\n  ".join(problems))
        if args.check:
            print(f"{len(chosen)} mutations apply to {source}")
            return 0
        if not args.no_baseline:
            baseline(chosen, python, args.worktree)
        missed = []
        for m in chosen:
            caught, secs = run(m, python, args.worktree)
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
