"""Exact samplers on finite domains, streamed over time, and the seeding scheme.

* ``L = chol(K + jitter I)`` once per (kernel, domain); the jitter actually used is recorded. A prior whose
  ``sampling_factor`` is ``"eigen"`` uses the clipped eigen-root instead (n × r, exact, no jitter; r ≪ n for smooth
  kernels on dense grids).
* The ε chain is streamed: ``f_1 = μ + L z_1``, ``f_{t+1} - μ = √(1-ε)(f_t - μ) + √ε L z_{t+1}``, whose
  covariance is exactly ``k_X(x,x') (1-ε)^{|t-t'|/2}``; a (runs × T × n) array is never held.
* Seeds: run ``r`` of a study with seed ``s`` uses ``SeedSequence(s, spawn_key=(r,))`` (= the r-th child of
  ``SeedSequence(s).spawn``), split into named streams, so results do not depend on chunking or workers.
  Every algorithm of run ``r`` sees the same f path and the same noise (common random numbers).
* One sampler protocol serves every kind of truth: ``start(rngs, first_run) -> (m, n)`` and ``step(rngs) -> (m, n)``
  (plus ``info``, per-run facts about the truth); :func:`make_sampler` picks :class:`ChainSampler` for a GP
  prior and :class:`RKHSSampler` for an :class:`~boundcheck.priors.RKHSFamily`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .arithmetic import arithmetic
from .priors import GPPrior, RKHSFamily, clipped_root

__all__ = ["cholesky_jittered", "ChainSampler", "LazyTruth", "RKHSSampler", "make_sampler", "RunStreams", "run_streams",
           "rows_matmul", "ROW_BLOCK", "NormalBlocks"]


class NormalBlocks:
    """Standard normals of shape ``size`` per step from one stream per run, drawn ``steps`` steps at a time.

    A generator's normals come out in the same order whether drawn one step or many steps at a time, so this
    gives exactly the values of per-step draws while the Python loop over runs runs once per block of steps
    instead of once per step (memory: runs × steps × size)."""

    def __init__(self, rngs: list[np.random.Generator], size: int, steps: int = 16) -> None:
        self.rngs, self.size = rngs, int(size)
        self.steps = max(1, int(steps))
        self._block: np.ndarray | None = None
        self._i = self.steps

    def next(self) -> np.ndarray:
        """The next step's draws: (runs, size)."""
        if self._i == self.steps:
            self._block = np.stack([g.standard_normal((self.steps, self.size)) for g in self.rngs])
            self._i = 0
        out = self._block[:, self._i]
        self._i += 1
        return out

    def keep(self, keep: np.ndarray, rngs: list[np.random.Generator]) -> None:
        """Retire runs: keep the rows ``keep`` (boolean, one per run) of the block already drawn, with their
        streams ``rngs`` (the kept runs' generators, in order). A kept run's later values are unchanged: its
        stream and its pre-drawn steps are the same, whoever else shares the batch."""
        self.rngs = rngs
        if self._block is not None:
            self._block = self._block[np.asarray(keep, dtype=bool)]

#: runs per matrix-multiply call in :func:`rows_matmul`
ROW_BLOCK = 8


def rows_matmul(Z: np.ndarray, M: np.ndarray, first_row: int = 0, slots: np.ndarray | None = None) -> np.ndarray:
    """``Z @ M`` for a batch of runs (one row each), computed so that row i's result depends only on ``Z[i]``,
    ``M`` and the run's position ``(first_row + i) mod ROW_BLOCK``, never on how many runs share the call.

    BLAS matrix products round differently for different numbers of rows (kernel choice, panel splits), which
    would make a run's values depend on its chunk. Here every call multiplies exactly ``ROW_BLOCK`` rows (zero
    padded), and a run always sits at the same row of its block: results are bit-identical for any chunking,
    number of workers or backend. The reference arithmetic (:func:`~boundcheck.model.arithmetic.use_arithmetic`)
    is the first engine's single product.

    ``slots``: each row's position in its block, given explicitly (a batch whose finished runs were retired is
    no longer consecutive: a run keeps the slot ``run mod ROW_BLOCK`` it had, and the rows are packed into as few
    blocks as the slots allow), so a run's values stay those of the full batch."""
    if arithmetic() == "reference":
        return Z @ M
    if slots is not None:
        return _slotted_matmul(Z, M, np.asarray(slots, dtype=np.int64) % ROW_BLOCK)
    m = Z.shape[0]
    lead = int(first_row) % ROW_BLOCK
    nb = -(-(lead + m) // ROW_BLOCK)
    padded = np.zeros((nb * ROW_BLOCK, Z.shape[1]))
    padded[lead:lead + m] = Z
    out = np.empty((nb * ROW_BLOCK, M.shape[1]))
    for b in range(0, nb * ROW_BLOCK, ROW_BLOCK):
        np.matmul(padded[b:b + ROW_BLOCK], M, out=out[b:b + ROW_BLOCK])
    return out[lead:lead + m]


def _slotted_matmul(Z: np.ndarray, M: np.ndarray, slots: np.ndarray) -> np.ndarray:
    """:func:`rows_matmul` with every row at its own slot: the b-th row of each slot goes to block b."""
    m = Z.shape[0]
    counts = np.bincount(slots, minlength=ROW_BLOCK)
    nb = max(1, int(counts.max(initial=0)))
    order = np.argsort(slots, kind="stable")
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = np.empty(m, dtype=np.int64)
    rank[order] = np.arange(m) - first[slots[order]]
    pos = rank * ROW_BLOCK + slots
    padded = np.zeros((nb * ROW_BLOCK, Z.shape[1]))
    padded[pos] = Z
    out = np.empty((nb * ROW_BLOCK, M.shape[1]))
    for b in range(0, nb * ROW_BLOCK, ROW_BLOCK):
        np.matmul(padded[b:b + ROW_BLOCK], M, out=out[b:b + ROW_BLOCK])
    return out[pos]


def cholesky_jittered(K: np.ndarray, jitter: float = 1e-10, max_tries: int = 8) -> tuple[np.ndarray, float]:
    """Lower Cholesky factor of ``K + jitter I``, raising the jitter ×10 until it succeeds."""
    n = K.shape[0]
    scale = max(float(np.mean(np.diag(K))), 1e-300)
    j = jitter * scale
    for _ in range(max_tries):
        try:
            return np.linalg.cholesky(K + j * np.eye(n)), j
        except np.linalg.LinAlgError:
            j *= 10.0
    raise np.linalg.LinAlgError("kernel matrix is not positive definite even with jitter")


@dataclass(frozen=True)
class RunStreams:
    """Independent random streams of one run."""

    f: np.random.Generator  # the function path
    noise: np.random.Generator  # observation noise (shared by all algorithms: common random numbers)
    algorithms: tuple[np.random.Generator, ...]  # one per algorithm, for randomised policies
    availability: np.random.Generator  # random availability sets (exogenous: independent of f and noise)


_AVAILABILITY_CHILD = 1 << 20  # child index of the availability stream, clear of the algorithms' indices


def _child(seed: int, run: int, i: int) -> np.random.Generator:
    # = the i-th child of SeedSequence(seed, spawn_key=(run,)).spawn(...), built directly so that adding a
    # stream (or an algorithm) never moves another one
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(int(seed), spawn_key=(int(run), i))))


_SHADOW_CHILD = _AVAILABILITY_CHILD + 1  # child index of the first shadow's stream (conformance), clear of the others


def shadow_stream(seed: int, run: int, k: int) -> np.random.Generator:
    """The random stream of the shadow of the k-th policy of a study in run ``run`` (its own child: adding a
    shadow never moves the truth's, the noise's or any algorithm's stream)."""
    return _child(seed, run, _SHADOW_CHILD + int(k))


def run_streams(seed: int, run: int, n_algorithms: int) -> RunStreams:
    return RunStreams(f=_child(seed, run, 0), noise=_child(seed, run, 1),
                      algorithms=tuple(_child(seed, run, 2 + j) for j in range(n_algorithms)),
                      availability=_child(seed, run, _AVAILABILITY_CHILD))


@dataclass(frozen=True)
class LazyTruth:
    """f_t = μ + L w_t of a batch of runs, evaluated only where asked (:meth:`ChainSampler.start_lazy`)."""

    mean: np.ndarray  # (n,)
    L: np.ndarray  # (n, r) root of K
    w: np.ndarray  # (m, r) the chain in the root's coordinates

    def at(self, idx: np.ndarray) -> np.ndarray:
        """f_t at the base arms ``idx`` (m, K) of each run: (m, K). Row by row (a run's value never depends on
        the other runs of the batch)."""
        idx = np.asarray(idx, dtype=np.int64)
        return self.mean[idx] + (self.L[idx] * self.w[:, None, :]).sum(axis=2)


_ROOTS: dict[tuple, np.ndarray] = {}
_ROOTS_KEPT = 4


def _blas_threads() -> tuple:
    """The BLAS libraries' thread counts now (a factorisation may round differently with more threads)."""
    from threadpoolctl import threadpool_info

    return tuple(sorted((i.get("internal_api", ""), int(i.get("num_threads", 0))) for i in threadpool_info()
                        if i.get("user_api") == "blas"))


def _cached_root(K: np.ndarray) -> np.ndarray:
    """:func:`~boundcheck.model.priors.clipped_root` of ``K``, remembered in this process per (K, BLAS threads):
    a worker simulates many batches of one study (Table 3 of paper 001: hundreds), and the eigendecomposition of
    a 900-point Gram matrix costs as much as a batch's first steps. The same input on the same number of threads
    gives the same factor, so no number changes. Read-only (shared by the samplers)."""
    import hashlib

    key = (K.shape, hashlib.sha1(np.ascontiguousarray(K).tobytes()).hexdigest(), _blas_threads())
    root = _ROOTS.get(key)
    if root is None:
        root = clipped_root(K)
        root.flags.writeable = False
        if len(_ROOTS) >= _ROOTS_KEPT:
            _ROOTS.pop(next(iter(_ROOTS)))
        _ROOTS[key] = root
    return root


class ChainSampler:
    """Streams f_t (one row per run) from a GP prior with drift ε, for a batch of runs."""

    def __init__(self, prior: GPPrior, jitter: float = 1e-10) -> None:
        self.prior = prior
        self.info: dict[str, np.ndarray] = {}
        if getattr(prior, "sampling_factor", "cholesky") == "eigen":  # low-rank exact root, no jitter
            self.L, self.jitter = _cached_root(prior.K), 0.0
        else:
            self.L, self.jitter = cholesky_jittered(prior.K, jitter)
        self.rho = float(np.sqrt(1.0 - prior.eps))
        self.sqrt_eps = float(np.sqrt(prior.eps))
        self._dev: np.ndarray | None = None
        self._normals: NormalBlocks | None = None
        self.first_run = 0
        self._slots: np.ndarray | None = None  # each row's slot in the blocked products, once runs are retired
        self._w: np.ndarray | None = None  # the chain in the root's coordinates (start_lazy): f_t = μ + L w_t

    def _draw(self, rngs: list[np.random.Generator]) -> np.ndarray:
        if self._normals is None or self._normals.rngs is not rngs:
            # the same values as one draw of n per step, fetched several steps at a time (bounded memory)
            n = self.L.shape[1]  # normals per step: the root's columns (r < n for the clipped eigen-root)
            self._normals = NormalBlocks(rngs, n, steps=max(1, min(16, (1 << 21) // max(1, len(rngs) * n))))
        return rows_matmul(self._normals.next(), self.L.T, self.first_run, self._slots)

    # ------------------------------------------------------------------ the truth at the queried points only
    def _latent(self, rngs: list[np.random.Generator]) -> np.ndarray:
        """The step's standard normals z_t (m, r): the same values :meth:`_draw` multiplies by the root."""
        if self._normals is None or self._normals.rngs is not rngs:
            n = self.L.shape[1]
            self._normals = NormalBlocks(rngs, n, steps=max(1, min(16, (1 << 21) // max(1, len(rngs) * n))))
        return self._normals.next()

    def start_lazy(self, rngs: list[np.random.Generator], first_run: int = 0) -> LazyTruth:
        """f_1 as a :class:`LazyTruth`: the chain kept in the root's coordinates, w_1 = z_1, so that
        f_t = μ + L w_t is evaluated only where it is observed. The chain f_{t+1} − μ = √(1−ε)(f_t − μ) + √ε L z_{t+1}
        is linear in the normals, so w_{t+1} = √(1−ε) w_t + √ε z_{t+1} gives f_t = μ + L w_t exactly (the same
        law, from the same normals as :meth:`start`/:meth:`step`; the values agree to round-off, O(r) work per
        run and step instead of O(n r)). Only for a study that reads f_t nowhere else (no regret, no monitor)."""
        self.first_run = int(first_run)
        self._w = np.array(self._latent(rngs))
        return LazyTruth(self.prior.mean, self.L, self._w)

    def step_lazy(self, rngs: list[np.random.Generator]) -> LazyTruth:
        """f_{t+1} as a :class:`LazyTruth` (see :meth:`start_lazy`)."""
        if self.prior.eps != 0.0:
            self._w = self.rho * self._w + self.sqrt_eps * self._latent(rngs)
        return LazyTruth(self.prior.mean, self.L, self._w)

    def keep(self, keep: np.ndarray, rngs: list[np.random.Generator]) -> None:
        """Retire the runs not in ``keep`` (boolean, one per current row): the kept runs' chains go on exactly as
        in the full batch (their streams, their pre-drawn normals and their slots in the blocked products are
        theirs). ``rngs``: the kept runs' f streams, the list later calls of :meth:`step` pass."""
        keep = np.asarray(keep, dtype=bool)
        if self._slots is None:
            self._slots = (self.first_run + np.arange(keep.size)) % ROW_BLOCK
        self._slots = self._slots[keep]
        if self._dev is not None:
            self._dev = self._dev[keep]
        if self._w is not None:
            self._w = self._w[keep]
        if self._normals is not None:
            self._normals.keep(keep, rngs)

    def start(self, rngs: list[np.random.Generator], first_run: int = 0) -> np.ndarray:
        """f_1 for every run: shape (m, n). ``first_run``: the id of the first run of the batch (runs are
        consecutive), which fixes each run's place in the blocked products (:func:`rows_matmul`)."""
        self.first_run = int(first_run)
        self._dev = self._draw(rngs)
        f = self.prior.mean + self._dev
        if self.prior.eps == 0.0:  # a static f: expose it (and its unknown, unbounded RKHS norm) like RKHSSampler
            self.info = {"f": f, "rkhs_norm": np.full(f.shape[0], np.nan)}
        return f

    def step(self, rngs: list[np.random.Generator]) -> np.ndarray:
        """f_{t+1} given the current f_t (AR(1) in function space)."""
        assert self._dev is not None, "call start() first"
        if self.prior.eps == 0.0:
            return self.prior.mean + self._dev
        self._dev = self.rho * self._dev + self.sqrt_eps * self._draw(rngs)
        return self.prior.mean + self._dev


class RKHSSampler:
    """Draws one fixed member of an :class:`RKHSFamily` per run and keeps it (static f).

    ``info`` holds, per run, the function values ``f`` (m, n), the exact norm ``rkhs_norm`` = √(αᵀKα) (NaN for
    members given by values only) and the ``member`` index (fixed families)."""

    def __init__(self, family: RKHSFamily) -> None:
        self.family = family
        self.info: dict[str, np.ndarray] = {}
        self._f: np.ndarray | None = None
        self.first_run = 0
        if family.generator == "posterior_mean":
            lam, U = np.linalg.eigh(family.K)
            keep = lam > lam.max() * 1e-14
            self._U, self._lam = U[:, keep], lam[keep]

    def _alpha(self, rngs: list[np.random.Generator]) -> tuple[np.ndarray, np.ndarray]:
        fam = self.family
        if fam.generator == "posterior_mean":
            # y = U Λ^{1/2} z ~ N(0, K) exactly; α = (K + λ_gen I)^{-1} y, in the eigenbasis
            z = np.stack([g.standard_normal(self._lam.size) for g in rngs])
            alpha = rows_matmul(z * (np.sqrt(self._lam) / (self._lam + fam.gen_noise_var))[None], self._U.T,
                                self.first_run)
            return alpha, np.full(len(rngs), -1)
        k = fam.alpha.shape[0]
        member = np.array([g.integers(k) if k > 1 else 0 for g in rngs], dtype=np.int64)
        return fam.alpha[member], member

    def start(self, rngs: list[np.random.Generator], first_run: int = 0) -> np.ndarray:
        fam = self.family
        self.first_run = int(first_run)
        if fam.generator == "values":
            k = fam.values.shape[0]
            member = np.array([g.integers(k) if k > 1 else 0 for g in rngs], dtype=np.int64)
            f = fam.values[member].copy()
            norms = np.full(len(rngs), np.nan)
        else:
            alpha, member = self._alpha(rngs)
            norms = fam.norms_of(alpha)
            if fam.scale_to is not None:
                alpha = alpha * (fam.scale_to / np.maximum(norms, 1e-300))[:, None]
                norms = fam.norms_of(alpha)  # exact norm of the member actually used
            f = rows_matmul(alpha, fam.K, self.first_run)
        self._f = f
        self.info = {"f": f, "rkhs_norm": norms, "member": member}
        return f

    def step(self, rngs: list[np.random.Generator]) -> np.ndarray:
        assert self._f is not None, "call start() first"
        return self._f

    def keep(self, keep: np.ndarray, rngs: list[np.random.Generator]) -> None:
        """Retire the runs not in ``keep`` (boolean): the kept runs' functions stay (``info`` keeps every run's)."""
        if self._f is not None:
            self._f = self._f[np.asarray(keep, dtype=bool)]


def make_sampler(truth: GPPrior | RKHSFamily) -> ChainSampler | RKHSSampler:
    """The sampler for a scenario's truth: a GP prior (ε chain) or a fixed-function RKHS family; a truth that
    brings its own sampler (``make_sampler()``, e.g. a variation-budget sequence) uses it."""
    if hasattr(truth, "make_sampler"):
        return truth.make_sampler()
    if isinstance(truth, RKHSFamily):
        return RKHSSampler(truth)
    return ChainSampler(truth)
