"""GP-TS, Algorithm 2 of Chowdhury & Gopalan (2017), finite-domain variant (D_t = D; ledger CG13).

One joint Thompson draw per step on the whole finite domain, scaled by the theorem's v_t and sampled exactly
(pathwise conditioning, or a square-root factor at long horizons). What the algorithm drew is recorded so that
the claims check the draws themselves rather than formulas, and its truth monitors record the quantities of
Lemmas 8–10. The algorithm, the samplers and the records: :class:`GPTS`.
"""

from __future__ import annotations

import numpy as np

from ..model.dataspace import make_posterior
from ..model.posterior import joint_sampler
from .base import Policy, RunContext

_TINY = 1e-150


class GPTS(Policy):
    """GP-TS, Algorithm 2 of Chowdhury & Gopalan (2017), finite-domain variant (D_t = D; ledger CG13)::

        for t = 1, 2, ...:
            v_t = B + R√(2(γ_{t−1} + 1 + ln(2/δ)))
            sample f_t ~ GP_D(μ_{t−1}, v_t² k_{t−1})          # one joint draw on the whole finite D
            x_t = argmax_{x ∈ D_t} f_t(x);  y_t = f(x_t) + ε_t;  update μ_t, k_t with (2)–(3), likelihood variance λ

    Draws are exact: pathwise (Matheron) conditioning of a prior draw from the clipped eigendecomposition of K
    (:class:`~boundcheck.model.posterior.PathwiseSampler`), no jitter, O(n r + n t) per step and run; at horizons
    beyond :data:`~boundcheck.model.posterior.PATHWISE_MAX_HORIZON` (the paper's T = 30 000) a square-root factor
    of Σ_t updated by rank one per observation (:class:`~boundcheck.model.posterior.SqrtSampler`), O(n r) per step.
    The sampling randomness is the policy's own stream, independent of the observation noise (it belongs to
    Theorem 1's filtration).

    What the algorithm drew is recorded for the claims (they are checked on the draws, not on formulas): the draw,
    the posterior mean and standard deviation at x° (a point fixed in advance, ``fixed_point``), at x_{t−1}
    (the previous choice, known before the draw) and, through the truth monitors, at the optimum x* (fixed before
    the run, f being static), and max_x |f_t(x) − μ_{t−1}(x)| / σ_{t−1}(x). The claims
    standardise them with the theorem's v_t: (f_t(x) − μ_{t−1}(x)) / (v_t σ_{t−1}(x)) must be N(0, 1) at both points,
    so a sampler with the wrong scale, mean or covariance is caught.

    ``truth_monitors`` (called by the engine, which alone sees f, after the choice) records the quantities of
    Lemmas 8–10: whether the draw exceeds f at the optimum x*, whether x_t is unsaturated, and Lemma 10's step
    bound; the policy never uses them to act.
    """

    name = "gp_ts"
    label = "GP-TS"
    provides_posterior = True
    one_arm = True
    description = "GP Thompson sampling"
    records = frozenset({"mu", "sigma", "sample", "width", "ts_dev", "draw_dev", "draw_fixed", "mu_fixed",
                         "sigma_fixed", "draw_prev", "mu_prev", "sigma_prev"})
    final_records = frozenset({"mu_final", "var_final"})
    monitors = frozenset({"fdev", "anti_hit", "lemma10_rhs", "unsaturated", "draw_star", "mu_star", "sigma_star"})
    fixed_point = 0  # x°: the index of the point, fixed in advance, at which the draws are recorded
    randomised = True
    conformance_monitors = frozenset({"conform_z"})
    #: independent draws of the choice per step when running as a shadow (the rank is among M + 1)
    shadow_draws = 16
    #: as a shadow: the posterior's records at the implementation's choice (:meth:`adopt`); never the draws'
    #: (``sample``, ``draw_*``, ``ts_dev``), which are the implementation's own
    shadow_records = frozenset({"mu", "sigma", "width", "mu_final", "var_final"})

    def start(self, ctx: RunContext) -> None:
        super().start(ctx)
        m, n = ctx.runs, ctx.candidates[0].n
        self.posterior = make_posterior(ctx.candidates[:1], ctx.noise_var, m, max_data=ctx.max_observations)
        self.paths = joint_sampler(self.posterior, ctx.horizon, first_run=ctx.first_run)
        self.truth_prior = 0
        self.v = ctx.schedule(self.name)
        steps = np.maximum(np.arange(ctx.horizon + 1, dtype=float), 1.0)
        # c̃_t = √(2 ln(|D| t²)) (Lemma 5 with D' = D) unless the study provides it
        self.ctilde = np.asarray(ctx.schedules.get("gp_ts_ctilde", np.sqrt(2 * np.log(n * steps**2))), dtype=float)
        self._rows = np.arange(m)
        self._prev = np.full(m, -1, dtype=np.int64)  # x_{t−1} (none at t = 1)

    def models(self) -> dict[str, object]:
        return {**super().models(), "paths": self.paths}

    def select(self, t: int, available: np.ndarray) -> np.ndarray:
        post, r, v = self.posterior, self._rows, self.v[t]
        mu, sd = post.mean()[:, 0], post.sd()[:, 0]
        h = self.paths.draw(self.ctx.rngs)  # ~ N(0, k_{t−1}) jointly on D
        f_t = mu + v * h
        x_t = self.ctx.actions.oracle(f_t, available)[:, 0]
        self._mu, self._sd, self._ft, self._v = mu, sd, f_t, v
        x0, xp = self.fixed_point, np.maximum(self._prev, 0)
        first = self._prev < 0
        self.record = {"mu": mu[r, x_t], "sigma": sd[r, x_t], "sample": f_t[r, x_t], "width": np.full(r.size, v),
                       # E^{f_t}(t) holds iff ts_dev ≤ c̃_t
                       "ts_dev": (np.abs(h) / np.maximum(sd, _TINY)).max(axis=1),
                       # what was drawn, against the posterior it was drawn from (the claims divide by v_t)
                       "draw_dev": (np.abs(f_t - mu) / np.maximum(sd, _TINY)).max(axis=1),
                       "draw_fixed": f_t[:, x0], "mu_fixed": mu[:, x0], "sigma_fixed": sd[:, x0],
                       "draw_prev": np.where(first, np.nan, f_t[r, xp]), "mu_prev": np.where(first, np.nan, mu[r, xp]),
                       "sigma_prev": np.where(first, np.nan, sd[r, xp])}
        self._prev = x_t.copy()
        return x_t[:, None]

    def truth_monitors(self, t: int, f: np.ndarray, action: np.ndarray) -> dict[str, np.ndarray]:
        """Lemma 8 and Lemma 10 quantities at step t (before the update)."""
        x_t = action[:, 0]
        r, sd, f_t, v = self._rows, np.maximum(self._sd, _TINY), self._ft, self._v
        c = v * (1.0 + self.ctilde[t])
        gap = f.max(axis=1, keepdims=True) - f  # Δ_t(x)
        unsat = gap <= c * sd  # x ∉ S_t; x* is always unsaturated
        sd_bar = np.where(unsat, sd, np.inf).min(axis=1)  # σ_{t−1}(x̄_t)
        x_star = np.argmax(f, axis=1)  # D_t = D: the optimum over the whole decision set
        return {
            "fdev": (np.abs(f_t - f) / sd).max(axis=1),  # ≤ c_t on E^f ∩ E^{f_t}
            "anti_hit": f_t[r, x_star] > f[r, x_star],  # Lemma 8's event, on the draw the algorithm made
            # the draw at x* (fixed before the run: f is static), for the calibration of the draws
            "draw_star": f_t[r, x_star], "mu_star": self._mu[r, x_star], "sigma_star": self._sd[r, x_star],
            "lemma10_rhs": c * (2.0 * sd_bar + sd[r, x_t]),
            "unsaturated": unsat[r, x_t],
        }

    def conformance(self, t: int, available: np.ndarray, action: np.ndarray) -> dict[str, np.ndarray]:
        """``conform_z`` = Φ⁻¹(u_t), u_t the randomised rank of the implementation's choice a_t among M
        independent choices x^(1..M) of this algorithm given the same history (each the argmax over X_t of its
        own exact draw, from this shadow's stream), arms ordered by the posterior mean μ_{t−1} (ties by index):

            u_t = (#{i: x^(i) ≺ a_t} + V (#{i: x^(i) = a_t} + 1)) / (M + 1),   V ~ U(0, 1).

        When a_t has the law of this algorithm's choice given the history, the M + 1 choices are exchangeable
        and u_t is exactly U(0, 1), independent over steps, whatever the law of the choices (ties included:
        the floor and the fraction of V·(k + 1) are independent); so conform_z is i.i.d. N(0, 1), which the
        calibration test checks. A sampler too narrow concentrates a_t on the mean's argmax (u_t near 1)."""
        from ..utils.laws import stats

        post, r, v = self.posterior, self._rows, self.v[t]
        mu = post.mean()[:, 0]
        a = action[:, 0]
        key_a = mu[r, a]
        below = np.zeros(r.size)
        same = np.zeros(r.size)
        h = self.paths.draws(self.ctx.rngs, self.shadow_draws)  # (m, M, n)
        for i in range(self.shadow_draws):
            x = self.ctx.actions.oracle(mu + v * h[:, i], available)[:, 0]
            key_x = mu[r, x]
            below += (key_x < key_a) | ((key_x == key_a) & (x < a))
            same += x == a
        V = np.array([g.random() for g in self.ctx.rngs])
        u = (below + V * (same + 1.0)) / (self.shadow_draws + 1.0)
        return {"conform_z": stats.norm.ppf(np.clip(u, 1e-300, 1.0 - 1e-16))}

    def adopt(self, t: int, action: np.ndarray) -> None:
        """μ_{t−1}, σ_{t−1} at the implementation's choice and v_t (see :meth:`Policy.adopt`)."""
        post, r, a = self.posterior, self._rows, action[:, 0]
        self.record = {"mu": post.mean()[r, 0, a], "sigma": post.sd()[r, 0, a], "width": np.full(r.size, self.v[t])}

    def update(self, t: int, action: np.ndarray, y: np.ndarray) -> None:
        self.paths.observe(action[:, 0])  # reads Σ_{t−1}: before conditioning
        self.posterior.condition_batch(action, y)

    def finish(self) -> dict[str, np.ndarray]:
        return {"mu_final": self.posterior.mean()[:, 0].copy(), "var_final": self.posterior.var()[:, 0].copy()}
