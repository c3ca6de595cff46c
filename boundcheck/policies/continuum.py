"""GP-UCB on a box X = [low, high]^d for m runs: the acquisition optimiser and its certificates.

:func:`maximize` is a multi-start local ascent over a batch of runs (a vectorised projected BFGS, one problem
per run and start, or scipy's L-BFGS-B) whose answer for a run never depends on the other runs of its batch;
:func:`sobol_starts` and :class:`SobolStreams` give the scrambled Sobol points of the starts and check sets;
:func:`grid_certificate` bounds the optimiser's gap from above by a Lipschitz argument on a grid.
:class:`ContinuousUCB` is GP-UCB on the box, the base class of its variants (ET-GP-UCB resets runs' data in
:meth:`ContinuousUCB.after_update`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np

from ..errors import BoundcheckError
from ..model.continuum.posterior import ContinuousPosterior
from ..model.kernels import Kernel

__all__ = ["maximize", "projected_gradient", "sobol_starts", "SobolStreams", "grid_certificate", "ContinuousUCB",
           "ValueAndGrad", "ROUNDOFF_REL"]

#: value_and_grad(X (k, S, d), rows (k,) int) -> (v (k, S), g (k, S, d)): the objective of the runs ``rows``.
#: It must treat each run's rows on their own (a run's values never depend on the other runs in the call).
ValueAndGrad = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]

#: the allowance :func:`grid_certificate` adds for floating-point error in evaluating the acquisition, relative
#: to 1 + |values|: the data-space formulas agree with a dense solve to ≈ 1e-13 relative (tests), four orders less
ROUNDOFF_REL = 1e-9


def check_bounds(bounds: np.ndarray) -> np.ndarray:
    """A (d, 2) float array of finite [low, high] rows with low < high."""
    b = np.asarray(bounds, dtype=np.float64)
    if b.ndim != 2 or b.shape[1] != 2 or b.shape[0] < 1:
        raise BoundcheckError(f"bounds must be a (d, 2) array of [low, high] rows, got shape {b.shape}")
    if not np.all(np.isfinite(b)) or np.any(b[:, 0] >= b[:, 1]):
        raise BoundcheckError(f"bounds must be finite with low < high in every row, got {b.tolist()}")
    return b


def projected_gradient(X: np.ndarray, g: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """(…) ∞-norm of the projected ascent gradient clip(x + g, low, high) − x (scipy's L-BFGS-B measure, for
    maximisation): 0 exactly at a KKT point of the box."""
    return np.abs(np.clip(X + g, bounds[:, 0], bounds[:, 1]) - X).max(axis=-1)


def _lbfgsb(fun, x0: np.ndarray, box: list[tuple[float, float]], gtol: float, maxiter: int):
    from scipy.optimize import minimize  # imported on use: scipy.optimize and scipy.stats cost ≈ 0.5 s per command

    return minimize(fun, x0, jac=True, method="L-BFGS-B", bounds=box,
                    options={"maxiter": maxiter, "gtol": gtol, "ftol": 1e-15, "maxls": 40})


def _evaluate_ragged(value_and_grad: ValueAndGrad, X: np.ndarray, mask: np.ndarray):
    """v (m, S), g (m, S, d) at the points X (m, S, d) where ``mask`` (m, S); NaN elsewhere. Runs are grouped by
    their number of masked starts, one call per group, the starts in their order: what a run is evaluated on
    (how many columns, which) is a function of that run's own state, never of the other runs of its batch."""
    m, S, d = X.shape
    v, g = np.full((m, S), np.nan), np.full((m, S, d), np.nan)
    counts = mask.sum(axis=1)
    for c in np.unique(counts[counts > 0]):
        rows = np.flatnonzero(counts == c)
        sub = mask[rows]
        vv, gg = value_and_grad(X[rows][sub].reshape(rows.size, c, d), rows)
        cols = np.nonzero(sub)[1].reshape(rows.size, c)
        v[rows[:, None], cols], g[rows[:, None], cols] = vv, gg
    return v, g


def batched_quasi_newton(value_and_grad: ValueAndGrad, bounds: np.ndarray, starts: np.ndarray, *,
                         gtol: float = 1e-9, ftol: float = 1e-13, maxiter: int = 200, evaluate=None):
    """Maximise from every start (m, S, d) independently: projected BFGS with an active set, vectorised over
    the m·S problems, each with its own d×d Hessian model, step and stopping, so that no problem's iterates
    depend on another's (unlike one L-BFGS-B over the stacked problems, whose memory and step are shared).

    Per iteration, on the problems not yet converged (f = −v, g = ∇f): fix the coordinates at a bound whose
    gradient points out (x_j = low_j, g_j > 0 or x_j = high_j, g_j < 0); p = −B_FF⁻¹ g_F on the free ones
    (B reset to c I if p is not a descent direction); backtrack α = 1, ½, … on the projected path
    x(α) = clip(x + α p) until f(x(α)) ≤ f(x) + 10⁻⁴ gᵀ(x(α) − x) (Armijo); BFGS-update B when sᵀy > 0.
    Stops a problem when its projected gradient ‖clip(x − g) − x‖_∞ ≤ ``gtol``, when the model's predicted
    decrease −gᵀp/2 is ≤ ``ftol`` (1 + |f|) (the value is settled to round-off), when 30 halvings find no
    decrease or after ``maxiter`` iterations.

    Returns the end points (m, S, d), their values (m, S), gradients (m, S, d), the status of each problem
    (m, S) (0: projected gradient ≤ gtol, 1: predicted decrease ≤ ftol, 2: no decrease found, 3: maxiter) and
    the number of iterations.
    """
    evaluate = evaluate or (lambda X, mask: _evaluate_ragged(value_and_grad, X, mask))
    lo, hi = bounds[:, 0], bounds[:, 1]
    X = np.clip(np.asarray(starts, dtype=np.float64), lo, hi)
    m, S, d = X.shape
    v, gv = evaluate(X, np.ones((m, S), dtype=bool))
    x, f, g = X.reshape(-1, d), -v.reshape(-1), -gv.reshape(-1, d)
    P = x.shape[0]
    eye = np.eye(d)
    # first step of length 0.1·(smallest side) in the ∞-norm: a scale-free start for the Hessian model
    scale = np.maximum(np.abs(g).max(axis=1), 1e-300) / (0.1 * float(np.min(hi - lo)))
    B = scale[:, None, None] * eye
    active = np.ones(P, dtype=bool)
    status = np.full(P, 3)  # 0: projected gradient ≤ gtol, 1: predicted decrease ≤ ftol, 2: no decrease, 3: maxiter
    iters = 0
    for _ in range(maxiter):
        pg = np.abs(np.clip(x - g, lo, hi) - x).max(axis=1)
        status[active & (pg <= gtol)] = 0
        active &= pg > gtol
        if not active.any():
            break
        iters += 1
        a = np.flatnonzero(active)
        xa, ga = x[a], g[a]
        fixed = ((xa <= lo) & (ga > 0)) | ((xa >= hi) & (ga < 0))
        free = ~fixed
        Bm = B[a] * free[:, :, None] * free[:, None, :] + fixed[:, :, None] * eye
        p = np.linalg.solve(Bm, (-ga * free)[:, :, None])[:, :, 0]
        bad = ~(np.sum(ga * p, axis=1) < 0.0)
        if bad.any():
            B[a[bad]] = scale[a[bad], None, None] * eye
            p[bad] = -ga[bad] * free[bad] / scale[a[bad], None]
        # the model's predicted decrease −gᵀp/2 below ftol (relative): nothing left to gain in value
        done = -0.5 * np.sum(ga * p, axis=1) <= ftol * (1.0 + np.abs(f[a]))
        if done.any():
            active[a[done]] = False
            status[a[done]] = 1
            keep = ~done
            a, xa, ga, p, free = a[keep], xa[keep], ga[keep], p[keep], free[keep]
            if not a.size:
                break
        alpha = np.ones(a.size)
        todo = np.ones(a.size, dtype=bool)
        xn, fn, gn = xa.copy(), f[a].copy(), ga.copy()
        for _ls in range(30):
            xt = np.clip(xa + alpha[:, None] * p, lo, hi)
            mask = np.zeros(P, dtype=bool)
            mask[a[todo]] = True
            vt, gt = evaluate(_scatter(a, xt, x).reshape(m, S, d), mask.reshape(m, S))
            vt, gt = -vt.reshape(-1)[a], -gt.reshape(-1, d)[a]
            ok = todo & (vt <= f[a] + 1e-4 * np.sum(ga * (xt - xa), axis=1))
            xn[ok], fn[ok], gn[ok] = xt[ok], vt[ok], gt[ok]
            todo &= ~ok
            alpha[todo] *= 0.5
            moved = np.abs(alpha[:, None] * p).max(axis=1) > 1e-16 * (1.0 + np.abs(xa).max(axis=1))
            todo &= moved
            if not todo.any():
                break
        stuck = np.all(xn == xa, axis=1)
        active[a[stuck]] = False  # no decrease along the projected path: stationary to round-off
        status[a[stuck]] = 2
        s_, y_ = xn - xa, gn - ga
        sy = np.sum(s_ * y_, axis=1)
        upd = (sy > 1e-12 * np.sqrt(np.sum(s_ * s_, axis=1) * np.sum(y_ * y_, axis=1))) & ~stuck
        if upd.any():
            Ba, su, yu = B[a[upd]], s_[upd], y_[upd]
            Bs = (Ba @ su[:, :, None])[:, :, 0]
            B[a[upd]] = Ba + yu[:, :, None] * yu[:, None, :] / sy[upd, None, None] \
                - Bs[:, :, None] * Bs[:, None, :] / np.sum(su * Bs, axis=1)[:, None, None]
        x[a], f[a], g[a] = xn, fn, gn
    return x.reshape(m, S, d), -f.reshape(m, S), -g.reshape(m, S, d), status.reshape(m, S), iters


def _scatter(a: np.ndarray, xa: np.ndarray, x: np.ndarray) -> np.ndarray:
    out = x.copy()
    out[a] = xa
    return out


def maximize(value_and_grad: ValueAndGrad, bounds: np.ndarray, starts: np.ndarray, *, method: str = "batched",
             gtol: float = 1e-9, maxiter: int = 200, polish_tol: float = 1e-6) -> tuple[np.ndarray, np.ndarray, dict]:
    """Multi-start local ascent: per run the best of S local maximisations of ``value_and_grad`` from ``starts``
    (m, S, d) in the box.

    ``method``:

    * ``"batched"`` (default): :func:`batched_quasi_newton`, every (run, start) its own projected-BFGS problem,
      vectorised; finished problems drop out, so a call costs what is still moving.
    * ``"per_run"``: one scipy L-BFGS-B problem per run over its S·d stacked variables (objective −Σ_s v_s).
    * ``"joint"``: one L-BFGS-B problem of m·S·d variables. Its quasi-Newton memory and line-search step are
      shared by all runs, so a run's answer depends on the other runs of its batch (measured: argmax moved by
      2e-8, value by 2e-14, between a batch of 50 and the run alone; in another basin it may move anywhere):
      kept for comparison only, it breaks determinism across batchings.

    The first two depend on the run's own data and starts only, bit for bit (tests). Afterwards every start
    whose projected gradient (∞-norm) exceeds ``polish_tol`` and that did not settle its value (L-BFGS-B's
    shared stopping rules; maxiter in "batched") is polished alone by L-BFGS-B; then the best start per run
    (ties to the lowest index) is returned. The L-BFGS-B methods descend the sum −Σ_s v_s, along which a single
    start (the best, even) may lose value: a start that ended below its beginning is put back (measured: on
    raw Sobol starts their first, unit-length step throws starts onto the box's faces, into other basins; the
    batched method, whose first step is 0.1 of the box's side and whose line search is per start, does not).

    Returns
    -------
    x_best : (m, d)
    v_best : (m,)
    info : dict
        ``n_calls`` (calls of value_and_grad), ``n_points`` (m,) (points evaluated per run), ``max_pg`` (m,)
        (largest projected gradient over the starts after polishing), ``n_polished``, ``values`` (m, S),
        ``ends`` (m, S, d).
    """
    b = check_bounds(bounds)
    X0 = np.clip(np.asarray(starts, dtype=np.float64), b[:, 0], b[:, 1])
    m, S, d = X0.shape
    if d != b.shape[0]:
        raise BoundcheckError(f"starts have {d} coordinates, the box {b.shape[0]}")
    counter = {"n_calls": 0, "n_points": np.zeros(m, dtype=np.int64)}

    def evaluate(X: np.ndarray, rows: np.ndarray):
        counter["n_calls"] += 1
        counter["n_points"][rows] += X.shape[1]
        return value_and_grad(X, rows)

    def problem(rows: np.ndarray, k: int, s: int):
        def fun(z: np.ndarray):
            v, g = evaluate(z.reshape(k, s, d), rows)
            return -float(v.sum()), -g.reshape(-1)
        return fun

    ends = X0.copy()
    status = None
    if method == "batched":
        ends, _, _, status, _ = batched_quasi_newton(evaluate, b, X0, gtol=gtol, maxiter=maxiter)
    elif method == "joint":
        rows = np.arange(m)
        res = _lbfgsb(problem(rows, m, S), X0.reshape(-1), [tuple(r) for r in b] * (m * S), gtol, maxiter)
        ends = res.x.reshape(m, S, d)
    elif method == "per_run":
        for r in range(m):
            res = _lbfgsb(problem(np.array([r]), 1, S), X0[r].reshape(-1), [tuple(row) for row in b] * S, gtol,
                          maxiter)
            ends[r] = res.x.reshape(S, d)
    else:
        raise BoundcheckError(f"method must be 'batched', 'per_run' or 'joint', got {method!r}")
    ends = np.clip(ends, b[:, 0], b[:, 1])
    v, g = evaluate(ends, np.arange(m))
    if method != "batched":
        # the stacked problem's descent is of Σ_s v_s: one start (the best, even) may end below where it began
        v0, g0 = evaluate(X0, np.arange(m))
        back = v0 > v
        ends[back], v[back], g[back] = X0[back], v0[back], g0[back]
    pg = projected_gradient(ends, g, b)
    # batched: only the problems stopped by maxiter (the others settled their value to round-off); the
    # L-BFGS-B methods: every start with a projected gradient above polish_tol (stopped by the shared criteria)
    stalled = np.argwhere((pg > polish_tol) & (True if status is None else status == 3))
    for r, s in stalled:  # one start of one run: its own problem, so the polish too depends on that run only
        res = _lbfgsb(problem(np.array([r]), 1, 1), ends[r, s], [tuple(row) for row in b], gtol, maxiter)
        x = np.clip(res.x, b[:, 0], b[:, 1])
        vs, gs = evaluate(x.reshape(1, 1, d), np.array([r]))
        if vs[0, 0] >= v[r, s]:
            ends[r, s], v[r, s], pg[r, s] = x, vs[0, 0], projected_gradient(x, gs[0, 0], b)
    best = np.argmax(v, axis=1)  # the first maximum: ties to the lowest start
    rows = np.arange(m)
    info = dict(counter, max_pg=pg.max(axis=1), n_polished=len(stalled), values=v, ends=ends)
    return ends[rows, best], v[rows, best], info


# ---------------------------------------------------------------------------------------------- Sobol points
def _scale(U: np.ndarray, b: np.ndarray) -> np.ndarray:
    return b[:, 0] + U * (b[:, 1] - b[:, 0])


def sobol_starts(bounds: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """(n, d) points of a scrambled Sobol sequence (``qmc.Sobol(d, scramble=True, seed=rng)``) in the box; n a
    power of 2 keeps the sequence's balance."""
    b = check_bounds(bounds)
    from scipy.stats import qmc

    return _scale(qmc.Sobol(b.shape[0], scramble=True, seed=rng).random(n), b)


class SobolStreams:
    """One scrambled Sobol sequence per run, scrambled by the run's own Generator and read on block after
    block: each :meth:`draw` gives every run fresh points that fill the box evenly, and a run's points do not
    depend on the other runs of its batch."""

    def __init__(self, bounds: np.ndarray, rngs: Sequence[np.random.Generator]) -> None:
        self.bounds = check_bounds(bounds)
        from scipy.stats import qmc

        self.engines = [qmc.Sobol(self.bounds.shape[0], scramble=True, seed=rng) for rng in rngs]

    def draw(self, n: int) -> np.ndarray:
        """(m, n, d): the next n points of every run's sequence (n a power of 2 keeps the balance)."""
        return _scale(np.stack([e.random(n) for e in self.engines]), self.bounds)

    def keep_runs(self, keep: np.ndarray) -> None:
        self.engines = list(itertools.compress(self.engines, np.asarray(keep, dtype=bool)))


# ---------------------------------------------------------------------------------------------- certificate
def grid_certificate(value: Callable[[np.ndarray], np.ndarray], bounds: np.ndarray, lipschitz: np.ndarray,
                     achieved: np.ndarray, n_per_axis: int, chunk: int = 4096) -> np.ndarray:
    """A proven upper bound on max_{x∈X} a(x) − ``achieved`` per run, for a(x) L-Lipschitz in ‖·‖₂.

    The regular grid G of ``n_per_axis`` points per axis (ends included, spacing h_j) leaves no point of the box
    farther than ρ = ½√(Σ_j h_j²) from G, so max_X a ≤ max_G a + L ρ. ``value(X (m, c, d)) -> (m, c)`` evaluates
    a on chunks of G; ROUNDOFF_REL (1 + |max_G a| + |achieved|) is added for floating-point error. The result
    is clipped at 0 (a gap is never negative).
    """
    b = check_bounds(bounds)
    d = b.shape[0]
    if n_per_axis < 2:
        raise BoundcheckError(f"n_per_axis must be at least 2, got {n_per_axis!r}")
    axes = [np.linspace(lo, hi, n_per_axis) for lo, hi in b]
    h = (b[:, 1] - b[:, 0]) / (n_per_axis - 1)
    rho = 0.5 * float(np.sqrt(np.sum(h * h)))
    G = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, d)
    achieved = np.asarray(achieved, dtype=np.float64)
    best = np.full(achieved.shape, -np.inf)
    for i in range(0, G.shape[0], chunk):
        part = np.broadcast_to(G[i : i + chunk], (achieved.shape[0], min(chunk, G.shape[0] - i), d))
        best = np.maximum(best, value(part).max(axis=1))
    slack = ROUNDOFF_REL * (1.0 + np.abs(best) + np.abs(achieved))
    return np.maximum(best + np.asarray(lipschitz) * rho + slack - achieved, 0.0)


# ---------------------------------------------------------------------------------------------- the policy
#: data points of each run added to the optimiser's candidates (the most recent: scoring all of them would cost
#: O(t³) per step)
DATA_CANDIDATES = 32


class ContinuousUCB:
    """GP-UCB on the box X = [low, high]^d for m runs::

        for t = 1..T:
            x_t = argmax_{x ∈ X} U_t(x),  U_t(x) = μ_{t−1}(x) + √β_t σ_{t−1}(x)     (``width[t]`` = √β_t)
            y_t = f(x_t) + ε_t;  condition μ, σ on (x_t, y_t) with likelihood variance λ

    The argmax is :func:`maximize` from S = ``n_starts`` starts: the best S by U_t of a candidate set scored in
    one batched call, made of ``n_candidates`` fresh Sobol points of the run's own stream (they cover the box
    evenly: the global basins), the incumbent (the data point of largest posterior mean, μ(x_i) = y_i − λα_i at
    no cost) and the previous choice (the basins near the incumbent, where μ is high). All data points as
    candidates would cost O(t³) per step; these two carry what they add. ``record`` holds per step, at x_t:
    ``mu``, ``sigma``, ``ucb``, ``width``, ``n_evals`` (points scored for the run), ``witness_gap`` =
    max(0, max_C U_t − U_t(x_t)) over a fresh check set C of ``n_check`` Sobol points not used for the starts
    (real points: a proven lower bound on the optimiser's gap) and ``gap_upper``, a proven upper bound on
    max_X U_t − U_t(x_t) (:func:`grid_certificate` with L = ‖α‖₁ sup‖∇k‖ + √β_t L_σ, proofs in
    :func:`~boundcheck.model.continuum.posterior.kernel_constants`) on the steps t ≡ 0 mod ``certify_every``
    (NaN otherwise; 0: never).

    Subclasses override :meth:`acquisition` (what is maximised; :meth:`acquisition_lipschitz` with it when they
    certify) and :meth:`after_update` (ET-GP-UCB: ``self.posterior.reset(mask)`` after a trigger).
    """

    name = "continuous_gp_ucb"
    records = ("mu", "sigma", "ucb", "width", "witness_gap", "gap_upper", "n_evals")

    def __init__(self, n_candidates: int = 128, n_starts: int = 8, n_check: int = 64, certify_every: int = 0,
                 certify_grid: int = 201, method: str = "batched") -> None:
        self.n_candidates, self.n_starts, self.n_check = int(n_candidates), int(n_starts), int(n_check)
        self.certify_every, self.certify_grid, self.method = int(certify_every), int(certify_grid), method

    def start(self, m: int, bounds: np.ndarray, prior_kernel: Kernel, noise_var: float, width: np.ndarray,
              rngs: Sequence[np.random.Generator]) -> None:
        """A batch of m runs, ``width`` (T+1,) the multiplier √β_t of σ (width[0] unused), one Generator per run."""
        if len(rngs) != m:
            raise BoundcheckError(f"one Generator per run: {m} runs, {len(rngs)} generators")
        self.m = int(m)
        self.bounds = check_bounds(bounds)
        self.width = np.asarray(width, dtype=np.float64)
        self.T = self.width.shape[0] - 1
        self.posterior = ContinuousPosterior(prior_kernel, noise_var, self.m, self.bounds.shape[0], max(self.T, 1))
        self.sobol = SobolStreams(self.bounds, rngs)
        self.previous: np.ndarray | None = None
        self.record: dict[str, np.ndarray] = {}

    def keep_runs(self, keep: np.ndarray) -> bool:
        """Retire the runs not in ``keep``; the others go on exactly as in the full batch."""
        keep = np.asarray(keep, dtype=bool)
        self.m = int(keep.sum())
        self.posterior.keep_runs(keep)
        self.sobol.keep_runs(keep)
        if self.previous is not None:
            self.previous = self.previous[keep]
        return True

    # ------------------------------------------------------------------------------------------------ hooks
    def acquisition(self, t: int):
        """U_t = μ_{t−1} + w_t σ_{t−1}: ``acq(X (k, n, d), rows, grad=True) -> (v (k, n), g (k, n, d) or None)``."""
        w = self.width[t]
        post = self.posterior

        def acq(X: np.ndarray, rows: np.ndarray, grad: bool = True):
            if not grad:
                mu, sd = post.mean_sd(X, rows)
                return mu + w * sd, None
            mu, sd, dmu, dsd = post.mean_sd_grad(X, rows)
            return mu + w * sd, dmu + w * dsd

        return acq

    def acquisition_lipschitz(self, t: int) -> np.ndarray:
        """(m,) a Lipschitz constant of U_t on R^d: ‖α‖₁ sup‖∇k‖ + |w_t| L_σ (proofs: kernel_constants)."""
        return self.posterior.mean_lipschitz() + abs(self.width[t]) * self.posterior.constants.sd_lipschitz

    def after_update(self, t: int, X: np.ndarray, y: np.ndarray) -> None:
        """Called at the end of :meth:`update` (ET-GP-UCB resets runs here)."""

    # ------------------------------------------------------------------------------------------------ loop
    def _candidates(self) -> np.ndarray:
        """(m, C, d): fresh Sobol points, Sobol points on the faces, the box's 2^d corners, the incumbent, the
        previous choice and the run's last ``DATA_CANDIDATES`` data points (a run without data repeats its first
        Sobol point in their places, duplicates that change no maximum). The corners and the data points are where
        the UCB's narrowest basins sit — on a face where the data piled up, between close observations — which Sobol
        points miss (a 1-d study at T = 100 missed the argmax at x = 1 by 0.02 with Sobol points alone)."""
        C = self.sobol.draw(self.n_candidates)
        m, d = C.shape[0], C.shape[2]
        corners = np.stack(np.meshgrid(*self.bounds, indexing="ij"), axis=-1).reshape(-1, d)
        # the faces: the first n/4 Sobol points snapped onto each of the 2d faces (σ, hence the UCB, is largest far
        # from the data, often on a face; a 2-d study at T = 100 missed face maxima by up to 0.2 without them)
        nf = max(1, self.n_candidates // 4)
        faces = []
        for j in range(d):
            for side in (0, 1):
                F = C[:, :nf].copy()
                F[:, :, j] = self.bounds[j, side]
                faces.append(F)
        inc = C[:, 0].copy()
        k = DATA_CANDIDATES
        recent = np.repeat(C[:, :1], k, axis=1)
        post = self.posterior
        for r, (Xr, yr) in enumerate(post.data()):
            if yr.size:
                inc[r] = Xr[np.argmax(yr - post.noise_var * post.alpha(r))]
                recent[r, : min(k, yr.size)] = Xr[-k:][::-1]
        prev = inc if self.previous is None else self.previous
        return np.concatenate([C, *faces, np.broadcast_to(corners, (m,) + corners.shape), inc[:, None],
                               prev[:, None], recent], axis=1)

    def select(self, t: int) -> np.ndarray:
        """x_t (m, d), and this step's ``record``."""
        acq = self.acquisition(t)
        rows = np.arange(self.m)
        C = self._candidates()
        vc, _ = acq(C, rows, grad=False)
        S = min(self.n_starts, C.shape[1])
        order = np.argsort(-vc, axis=1, kind="stable")[:, :S]
        starts = np.take_along_axis(C, order[:, :, None], axis=1)
        x, v, info = maximize(acq, self.bounds, starts, method=self.method)
        top = vc[rows, order[:, 0]]
        better = top > v  # a guard: the ascent never ends below its start, but the best candidate is a real point
        x = np.where(better[:, None], starts[:, 0], x)
        v = np.where(better, top, v)
        vk, _ = acq(self.sobol.draw(self.n_check), rows, grad=False)
        mu, sd = self.posterior.mean_sd(x[:, None], rows)
        gap_upper = np.full(self.m, np.nan)
        if self.certify_every and t % self.certify_every == 0:
            gap_upper = grid_certificate(lambda G: acq(G, rows, grad=False)[0], self.bounds,
                                         self.acquisition_lipschitz(t), v, self.certify_grid)
        self.record = {"mu": mu[:, 0], "sigma": sd[:, 0], "ucb": v, "width": np.full(self.m, self.width[t]),
                       "witness_gap": np.maximum(vk.max(axis=1) - v, 0.0), "gap_upper": gap_upper,
                       "n_evals": (info["n_points"] + C.shape[1] + self.n_check).astype(np.float64)}
        self.info = info
        self.previous = x
        return x

    def update(self, t: int, X: np.ndarray, y: np.ndarray) -> None:
        """Condition every run on its (x_t, y_t), then :meth:`after_update`."""
        self.posterior.condition(X, y)
        self.after_update(t, X, y)
