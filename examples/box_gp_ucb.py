"""GP-UCB on a compact box as a researcher writes it: a numpy posterior per run and the acquisition optimised the
way BoTorch's ``optimize_acqf`` does (raw samples scored at once, L-BFGS-B from the best of them).

    boundcheck verify --theorem gp_ucb_compact --algorithm examples/box_gp_ucb.py:BoxGPUCB

boundcheck runs it beside its own GP-UCB as a shadow (told this code's points and observations, never f) and
judges Srinivas et al.'s Theorem 2 on what this code did: a point whose upper confidence bound is below the
shadow's maximum is a counterexample of the conformance claim. ``BoxGPUCBOneStart`` (L-BFGS-B from one random
point: its first step can jump onto the boundary and stay in that basin) is such a code.
"""

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.optimize import minimize

from boundcheck.policies.box import BoxPolicy


class BoxGPUCB(BoxPolicy):
    """x_t = argmax_{x in the box} μ_{t−1}(x) + √β_t σ_{t−1}(x): the UCB scored at ``raw_samples`` random points,
    the box's corners and the data points, then L-BFGS-B from the best ``restarts`` of them, one run at a time
    (``ctx.beta[t]`` is √β_t, ``ctx.kernel`` the SE prior, ``ctx.noise_var`` λ)."""

    name = "box_gp_ucb"
    label = "my GP-UCB (scipy)"
    raw_samples, restarts = 512, 5

    def start(self, ctx):
        super().start(ctx)
        self.X = [np.empty((0, ctx.dim)) for _ in range(ctx.runs)]
        self.y = [np.empty(0) for _ in range(ctx.runs)]

    def k(self, A, B):
        ell = self.ctx.kernel.lengthscale
        return np.exp(-0.5 * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1) / ell**2)

    def ucb(self, r, P, w):
        """μ + w σ at the points P (n, d) for run r."""
        X, y = self.X[r], self.y[r]
        if not len(y):
            return np.full(len(P), w)
        c = cho_factor(self.k(X, X) + self.ctx.noise_var * np.eye(len(y)), lower=True)
        kx = self.k(P, X)
        var = np.maximum(1.0 - np.einsum("nt,tn->n", kx, cho_solve(c, kx.T)), 0.0)
        return kx @ cho_solve(c, y) + w * np.sqrt(var)

    def start_points(self, r):
        """``raw_samples`` uniform random points of the box, its corners and the run's data points."""
        lo, hi = self.ctx.bounds[:, 0], self.ctx.bounds[:, 1]
        corners = np.stack(np.meshgrid(*self.ctx.bounds, indexing="ij"), axis=-1).reshape(-1, self.ctx.dim)
        raw = lo + (hi - lo) * self.ctx.rngs[r].random((self.raw_samples, self.ctx.dim))
        return np.vstack([raw, corners, self.X[r]])

    def select(self, t):
        ctx, w = self.ctx, self.ctx.beta[t]
        bounds = list(zip(ctx.bounds[:, 0], ctx.bounds[:, 1], strict=True))
        out = []
        for r in range(ctx.runs):
            P = self.start_points(r)
            v = self.ucb(r, P, w)
            best_raw = P[np.argsort(-v)[: self.restarts]]
            res = [minimize(lambda x, r=r: -self.ucb(r, x[None, :], w)[0], s, method="L-BFGS-B", bounds=bounds)
                   for s in best_raw]
            out.append(max([(-q.fun, q.x) for q in res] + [(v.max(), P[v.argmax()])], key=lambda p: p[0])[1])
        return np.array(out)

    def update(self, t, X, y):
        for r in range(self.ctx.runs):
            self.X[r] = np.vstack([self.X[r], X[r]])
            self.y[r] = np.append(self.y[r], y[r])


class BoxGPUCBOneStart(BoxGPUCB):
    """L-BFGS-B from a single random point (no raw samples): it settles in whatever basin its first step lands in —
    not the theorem's algorithm."""

    name = "box_gp_ucb_one_start"
    label = "my GP-UCB, one start"
    raw_samples, restarts = 1, 1

    def start_points(self, r):
        lo, hi = self.ctx.bounds[:, 0], self.ctx.bounds[:, 1]
        return lo + (hi - lo) * self.ctx.rngs[r].random((1, self.ctx.dim))
