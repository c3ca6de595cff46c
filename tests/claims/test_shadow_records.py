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
from scipy.linalg import cho_factor, cho_solve

import theory
from boundcheck import api
from boundcheck.claims.conformance import NO_SHADOW, ON_SHADOW, shadow_fills
from boundcheck.cli import main
from boundcheck.study import summary as summary_mod

SMALL = {"runs": 20, "horizon": 20, "jobs": 1, "report": False}


# ---------------------------------------------------------------- user code in the documented ask/tell form, no records
class UCB:
    """GP-UCB refitted from scratch each step (examples/gp_ucb.py without records). The class attributes plant
    the mistakes a new user makes."""

    index_var = False  # σ² in the index instead of σ
    lam_zero = False  # no noise in the posterior
    beta_lag = 0  # β_{t−1} for β_t
    lam_is_sd = False  # λ = R instead of R²

    def __init__(self, ctx):
        self.K, self.m0 = ctx.kernel, ctx.mean
        self.lam = 1e-9 if self.lam_zero else (ctx.noise_sd if self.lam_is_sd else ctx.noise_var)
        self.beta = np.asarray(ctx.beta)
        self.X, self.y = [], []

    def ask(self, t, available):
        mu, sd = self.m0.copy(), np.sqrt(np.diag(self.K))
        if self.X:
            X = np.array(self.X)
            c = cho_factor(self.K[np.ix_(X, X)] + self.lam * np.eye(len(X)), lower=True)
            Kx = self.K[:, X]
            mu = self.m0 + Kx @ cho_solve(c, np.array(self.y) - self.m0[X])
            sd = np.sqrt(np.maximum(np.diag(self.K) - np.einsum("ij,ji->i", Kx, cho_solve(c, Kx.T)), 0.0))
        w = self.beta[max(t - self.beta_lag, 1)]
        return int(np.argmax(np.where(available, mu + w * (sd**2 if self.index_var else sd), -np.inf)))

    def tell(self, x, y):
        self.X.append(x)
        self.y.append(y)


class VarianceIndexUCB(UCB):
    index_var = True


class NoNoiseUCB(UCB):
    lam_zero = True


class LaggedBetaUCB(UCB):
    beta_lag = 1


class LambdaIsRUCB(UCB):
    lam_is_sd = True


class TS:
    """GP-TS: f̃ = μ + v_t·σ·z, an exact joint draw on the domain (eigendecomposition), no records."""

    def __init__(self, ctx):
        self.K, self.m0, self.lam, self.v, self.rng = ctx.kernel, ctx.mean, ctx.noise_var, ctx.beta, ctx.rng
        self.X, self.y = [], []

    def ask(self, t, available):
        mu, cov = self.m0.copy(), self.K.copy()
        if self.X:
            X = np.array(self.X)
            A = self.K[np.ix_(X, X)] + self.lam * np.eye(len(X))
            Kx = self.K[:, X]
            mu = self.m0 + Kx @ np.linalg.solve(A, np.array(self.y) - self.m0[X])
            cov = self.K - Kx @ np.linalg.solve(A, Kx.T)
        w, V = np.linalg.eigh((cov + cov.T) / 2)
        f = mu + self.v[t] * (V * np.sqrt(np.maximum(w, 0.0))) @ self.rng.standard_normal(len(mu))
        return int(np.argmax(np.where(available, f, -np.inf)))

    def tell(self, x, y):
        self.X.append(x)
        self.y.append(y)


class PEGPUCB:
    """PE-GP-UCB (Ziomek, Adachi, Osborne 2024, Algorithm 1) as a user writes it: one GP per candidate prior on
    the ε chain (Cov(f_s(x), f_t(x')) = (1 − ε)^{|t−s|/2} k(x, x')), the joint argmax over (x, p) among the active
    priors, and the elimination test on the noise sums; no records."""

    def __init__(self, ctx):
        self.priors, self.lam, self.beta, self.xi = ctx.priors, ctx.noise_var, ctx.beta, ctx.xi
        P = len(self.priors)
        self.active = np.ones(P, dtype=bool)
        self.sum_eta, self.sum_w, self.count = np.zeros(P), np.zeros(P), np.zeros(P)
        self.X, self.T, self.y = [], [], []

    def _posterior(self, p, t):
        pr = self.priors[p]
        K, m0, eps = np.asarray(pr.K), np.asarray(pr.mean), float(pr.eps)
        if not self.X:
            return m0.copy(), np.sqrt(np.diag(K))
        X, s = np.array(self.X), np.array(self.T, dtype=float)
        decay = (1.0 - eps) ** (np.abs(s[:, None] - s[None, :]) / 2)
        c = cho_factor(K[np.ix_(X, X)] * decay + self.lam * np.eye(len(X)), lower=True)
        Kx = K[:, X] * (1.0 - eps) ** ((t - s)[None, :] / 2)
        mu = m0 + Kx @ cho_solve(c, np.array(self.y) - m0[X])
        sd = np.sqrt(np.maximum(np.diag(K) - np.einsum("ij,ji->i", Kx, cho_solve(c, Kx.T)), 0.0))
        return mu, sd

    def ask(self, t, available):
        best = (-np.inf, 0, 0)
        self.post = {}
        for p in np.flatnonzero(self.active):
            mu, sd = self.post[p] = self._posterior(p, t)
            ucb = np.where(available, mu + self.beta[t] * sd, -np.inf)
            x = int(np.argmax(ucb))
            if ucb[x] > best[0]:
                best = (ucb[x], int(p), x)
        _, self.p, x = best
        mu, sd = self.post[self.p]
        self.mu_t, self.w_t, self.t = mu[x], self.beta[t] * sd[x], t
        return x

    def tell(self, x, y):
        p, t = self.p, self.t
        self.sum_eta[p] += y - self.mu_t
        self.sum_w[p] += self.w_t
        self.count[p] += 1
        fails = abs(self.sum_eta[p]) > np.sqrt(self.xi[t] * self.count[p]) + self.sum_w[p]
        if fails and self.active.sum() > 1:
            self.active[p] = False
        self.X.append(x)
        self.T.append(t)
        self.y.append(y)


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


class Uniform:
    """Not GP-UCB at all: uniformly random queries, no records."""

    def __init__(self, ctx):
        self.rng = ctx.rng

    def ask(self, t, available):
        return int(self.rng.choice(np.flatnonzero(available)))

    def tell(self, x, y):
        pass


def test_records_from_the_shadow_are_at_the_codes_actions():
    """D3 (the chain rule of σ_{t−1}(x_t) against the information of the queries made) holds on the shadow's
    records of a code that never conforms: they are the posterior's at the code's own actions, not at the
    shadow's choices (which would contradict the information of the actual queries)."""
    s = api.verify("gp_ucb", algorithm=Uniform, policies=[], seed=2, **SMALL)
    assert _claim(s, "conformance")["verdict"] == "violated"
    assert s["settled_otherwise"]["D3_information"] == ON_SHADOW
    assert _claim(s, "D3_information")["verdict"] == "holds"
