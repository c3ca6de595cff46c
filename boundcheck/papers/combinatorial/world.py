"""Combinatorial action sets and volatile availability (paper 002): super arms of up to K base arms.

Availability (exogenous: every draw uses the runs' availability streams only, never f or the noise):
:class:`RandomSubset` (S1), :class:`BernoulliArms`, :class:`EdgeClosures` (S2, redrawn until the start still
reaches the goal) and :class:`UniformContexts` (S4, Theorem 3.2).

Action sets, each with an **exact** oracle (ties to the lowest index / first edge): top-K over the available arms
(:class:`~boundcheck.world.actions.TopK`); :class:`DAGPaths`, start–goal paths in a DAG whose edges are the base
arms (dynamic programming); :class:`RoadPaths`, a road network's goal-directed corridor, with Dijkstra for
Algorithm 2; :class:`ContextualTopK`, top-K over the round's contexts.

The paper's assumption predicates are registered here too, beside the action sets they inspect.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from boundcheck.errors import BoundcheckError
from boundcheck.papers.combinatorial.model import RFFFeatures
from boundcheck.utils.validation import check_int, check_unit_interval
from boundcheck.world.actions import ActionSet, AlwaysAvailable, Availability
from boundcheck.world.assumptions import register_predicate

__all__ = ["RandomSubset", "BernoulliArms", "EdgeClosures", "UniformContexts", "DAG", "DAGPaths", "RoadPaths",
           "ContextualTopK", "grid_dag", "check_enough_available"]

PAPER002_SEED = 2025  # the seed of boundcheck's synthetic settings of the paper (scenarios, routes)
BUCB_DEFAULT = {"xi": 2.2, "omega": 1.1}  # GP-BUCB's ξ > ω > 1 (Theorem 3.1(ii)); C_ω = 2.42, ξ/(ξ−ω) = 2

_MAX_REDRAWS = 1000


def _per_run(rngs, fn) -> np.ndarray:
    return np.stack([fn(g) for g in rngs])


# ------------------------------------------------------------------------------------------ availability
@dataclass(frozen=True)
class RandomSubset(Availability):
    """𝒜_t: ``size`` of the ``n`` base arms, uniformly at random, independently per run and round."""

    n: int
    size: int

    def __post_init__(self) -> None:
        check_int("number of base arms", self.n)
        check_int("available set size", self.size, maximum=self.n)

    @property
    def min_available(self) -> int:
        return self.size

    def mask(self, t: int) -> np.ndarray:  # pragma: no cover - random: use draw
        raise BoundcheckError("RandomSubset is random: use draw(t, rngs)")

    def draw(self, t: int, rngs: list[np.random.Generator]) -> np.ndarray:
        out = np.zeros((len(rngs), self.n), dtype=bool)
        for i, g in enumerate(rngs):
            out[i, g.choice(self.n, size=self.size, replace=False)] = True
        return out

    def describe(self) -> str:
        return f"𝒜_t: {self.size} of {self.n} base arms uniformly at random (exogenous)"


@dataclass(frozen=True)
class BernoulliArms(Availability):
    """Each base arm available independently with probability ``p``; redrawn until at least ``minimum`` are."""

    n: int
    p: float
    minimum: int = 1

    def __post_init__(self) -> None:
        check_int("number of base arms", self.n)
        check_unit_interval("availability probability", self.p)
        check_int("minimum available", self.minimum, maximum=self.n)
        if self.p == 0.0:
            raise BoundcheckError("availability probability must be positive")

    @property
    def min_available(self) -> int:
        return self.minimum

    def mask(self, t: int) -> np.ndarray:  # pragma: no cover
        raise BoundcheckError("BernoulliArms is random: use draw(t, rngs)")

    def draw(self, t: int, rngs: list[np.random.Generator]) -> np.ndarray:
        out = np.empty((len(rngs), self.n), dtype=bool)
        for i, g in enumerate(rngs):
            for _ in range(_MAX_REDRAWS):
                out[i] = g.random(self.n) < self.p
                if out[i].sum() >= self.minimum:
                    break
            else:
                raise BoundcheckError(f"fewer than {self.minimum} arms available after {_MAX_REDRAWS} draws")
        return out

    def describe(self) -> str:
        return f"each of {self.n} base arms available w.p. {self.p:g} (at least {self.minimum}; exogenous)"


@dataclass(frozen=True)
class UniformContexts(Availability):
    """𝒜_t = ``slots`` contexts drawn uniformly from [0, C₁]^d each round (the infinite case): (m, slots, d)."""

    slots: int
    d: int
    C1: float = 1.0

    @property
    def min_available(self) -> int:
        return self.slots

    def mask(self, t: int) -> np.ndarray:  # pragma: no cover
        raise BoundcheckError("UniformContexts is random: use draw(t, rngs)")

    def draw(self, t: int, rngs: list[np.random.Generator]) -> np.ndarray:
        return _per_run(rngs, lambda g: g.uniform(0.0, self.C1, size=(self.slots, self.d)))

    def describe(self) -> str:
        return f"𝒜_t: {self.slots} contexts uniform in [0, {self.C1:g}]^{self.d} per round (exogenous)"


# ------------------------------------------------------------------------------------------------ DAGs
@dataclass(frozen=True, eq=False)
class DAG:
    """A directed acyclic graph whose edges are the base arms, with a start and a goal node.

    Derived once: the out-edge table, the generations (a node's out-edges all lead to earlier generations, so
    one vectorised step per generation solves the DP), and ``k_max``, the most edges on a start–goal path."""

    n_nodes: int
    tail: np.ndarray = field(repr=False)
    head: np.ndarray = field(repr=False)
    start: int
    goal: int
    _levels: list = field(default_factory=list, init=False, repr=False, compare=False)
    _k_max: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        tail = np.ascontiguousarray(self.tail, dtype=np.int64)
        head = np.ascontiguousarray(self.head, dtype=np.int64)
        V = check_int("number of nodes", self.n_nodes)
        if tail.shape != head.shape or tail.ndim != 1 or tail.size == 0:
            raise BoundcheckError("a DAG needs matching 1-d tail and head arrays with at least one edge")
        if tail.min() < 0 or head.min() < 0 or max(tail.max(), head.max()) >= V:
            raise BoundcheckError("edge endpoints must be node indices in 0..n_nodes−1")
        for name, node in (("start", self.start), ("goal", self.goal)):
            check_int(f"{name} node", node, minimum=0, maximum=V - 1)
        if self.start == self.goal:
            raise BoundcheckError("start and goal must differ")
        object.__setattr__(self, "tail", tail)
        object.__setattr__(self, "head", head)
        order = self._topological(V, tail, head)
        out = [[] for _ in range(V)]
        for e in range(tail.size):
            out[tail[e]].append(e)
        gen = np.zeros(V, dtype=np.int64)
        for v in reversed(order):
            if out[v]:
                gen[v] = 1 + max(gen[head[e]] for e in out[v])
        levels = []
        for g in range(1, int(gen.max()) + 1):
            nodes = np.array([v for v in range(V) if gen[v] == g and v != self.goal], dtype=np.int64)
            if nodes.size == 0:
                continue
            width = max(len(out[v]) for v in nodes)
            table = np.full((nodes.size, width), -1, dtype=np.int64)
            for i, v in enumerate(nodes):
                table[i, : len(out[v])] = out[v]
            levels.append((nodes, table))
        object.__setattr__(self, "_levels", levels)
        val, _ = self.dp(np.ones((1, tail.size)), np.ones(tail.size, dtype=bool))
        if not np.isfinite(val[0]):
            raise BoundcheckError(f"the goal node {self.goal} is not reachable from the start node {self.start}")
        object.__setattr__(self, "_k_max", int(round(val[0])))

    @staticmethod
    def _topological(V: int, tail: np.ndarray, head: np.ndarray) -> list[int]:
        indeg = np.bincount(head, minlength=V)
        out = [[] for _ in range(V)]
        for u, v in zip(tail.tolist(), head.tolist(), strict=True):
            out[u].append(v)
        stack = [v for v in range(V) if indeg[v] == 0]
        order = []
        while stack:
            u = stack.pop()
            order.append(u)
            for v in out[u]:
                indeg[v] -= 1
                if indeg[v] == 0:
                    stack.append(v)
        if len(order) != V:
            raise BoundcheckError("the graph has a directed cycle: exact path oracles need a DAG")
        return order

    @property
    def n_edges(self) -> int:
        return int(self.tail.size)

    @property
    def k_max(self) -> int:
        return self._k_max

    def dp(self, score: np.ndarray, available: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """max over available start–goal paths of Σ score, per run: (value (m,), best out-edge per node (m, V)).

        Exact for any sign (longest path in a DAG); −inf where no path exists. Ties: the first out-edge."""
        score = np.asarray(score, dtype=np.float64)
        m = score.shape[0]
        avail = np.broadcast_to(np.asarray(available, dtype=bool), score.shape)
        Vv = np.full((m, self.n_nodes), -np.inf)
        Vv[:, self.goal] = 0.0
        choice = np.full((m, self.n_nodes), -1, dtype=np.int64)
        for nodes, table in self._levels:
            e = np.where(table >= 0, table, 0)
            cand = score[:, e] + Vv[:, self.head[e]]  # (m, g, Δ)
            cand = np.where((table >= 0)[None] & avail[:, e], cand, -np.inf)
            j = np.argmax(cand, axis=2)
            best = np.take_along_axis(cand, j[..., None], axis=2)[..., 0]
            Vv[:, nodes] = best
            choice[:, nodes] = np.where(np.isfinite(best), e[np.arange(nodes.size)[None], j], -1)
        return Vv[:, self.start], choice

    def paths(self, choice: np.ndarray, length: int) -> np.ndarray:
        """Follow the DP's choices from the start: (m, length) edge indices, −1 after the goal."""
        m = choice.shape[0]
        rows = np.arange(m)
        node = np.full(m, self.start, dtype=np.int64)
        out = np.full((m, length), -1, dtype=np.int64)
        for i in range(length):
            active = node != self.goal
            e = choice[rows, node]
            out[:, i] = np.where(active, e, -1)
            node = np.where(active, self.head[np.maximum(e, 0)], node)
        if np.any(node != self.goal):
            raise BoundcheckError("no start–goal path among the available edges")
        return out

    def reachable(self, available: np.ndarray) -> np.ndarray:
        """Whether the start still reaches the goal over the available edges, per run."""
        avail = np.atleast_2d(available)
        val, _ = self.dp(np.zeros(avail.shape), avail)
        return np.isfinite(val)


def grid_dag(n: int) -> tuple[DAG, np.ndarray]:
    """The n × n grid with right and down edges from corner (0, 0) to corner (n−1, n−1) (instance S2): every path
    has 2(n−1) edges and |𝒜| = 2n(n−1). Returns the DAG and the edge midpoints in [0, 1]² (n−1 = 1 unit)."""
    n = check_int("grid size", n, minimum=2)
    tail, head, mid = [], [], []
    for i in range(n):
        for j in range(n):
            v = i * n + j
            if j + 1 < n:  # right
                tail.append(v), head.append(v + 1), mid.append(((j + 0.5) / (n - 1), i / (n - 1)))
            if i + 1 < n:  # down
                tail.append(v), head.append(v + n), mid.append((j / (n - 1), (i + 0.5) / (n - 1)))
    return DAG(n * n, np.array(tail), np.array(head), 0, n * n - 1), np.array(mid)


@dataclass(frozen=True)
class EdgeClosures(Availability):
    """Each edge of ``dag`` closed independently with probability ``p`` per round and run; a run's draw is
    repeated (from its own availability stream) until its start still reaches its goal (instance S2)."""

    dag: DAG
    p: float

    def __post_init__(self) -> None:
        check_unit_interval("closure probability", self.p)
        if self.p >= 1.0:
            raise BoundcheckError("closure probability must be below 1")

    def mask(self, t: int) -> np.ndarray:  # pragma: no cover
        raise BoundcheckError("EdgeClosures is random: use draw(t, rngs)")

    def draw(self, t: int, rngs: list[np.random.Generator]) -> np.ndarray:
        E = self.dag.n_edges
        if self.p == 0.0:
            return np.ones(E, dtype=bool)
        out = _per_run(rngs, lambda g: g.random(E) >= self.p)
        for _ in range(_MAX_REDRAWS):
            bad = np.flatnonzero(~self.dag.reachable(out))
            if bad.size == 0:
                return out
            for i in bad:
                out[i] = rngs[i].random(E) >= self.p
        raise BoundcheckError(f"start and goal disconnected after {_MAX_REDRAWS} closure draws (p = {self.p:g})")

    def describe(self) -> str:
        return f"each edge closed w.p. {self.p:g} per round, redrawn while start and goal are disconnected (exogenous)"


# --------------------------------------------------------------------------------------------- actions
@dataclass(frozen=True)
class DAGPaths(ActionSet):
    """Super arms = start–goal paths of a DAG whose edges are the base arms; exact DP oracle (any sign).

    The oracle is dynamic programming over the DAG's generations, exact for any sign of the scores, vectorised
    over runs. Paths of different lengths are padded with −1 to K = the longest start–goal path."""

    exact_oracle = True

    dag: DAG
    availability: Availability
    padded = True  # paths of different lengths: −1 after the goal

    @property
    def K(self) -> int:  # noqa: N802 - the papers' symbol
        return self.dag.k_max

    def oracle(self, score: np.ndarray, available: np.ndarray) -> np.ndarray:
        val, choice = self.dag.dp(score, available)
        if not np.all(np.isfinite(val)):
            raise BoundcheckError("no start–goal path among the available edges")
        return self.dag.paths(choice, self.K)

    def value(self, f: np.ndarray, action: np.ndarray) -> np.ndarray:
        rows = np.arange(f.shape[0])[:, None]
        return np.where(action >= 0, f[rows, np.maximum(action, 0)], 0.0).sum(axis=1)

    def best_value(self, f: np.ndarray, available: np.ndarray) -> np.ndarray:
        return self.dag.dp(f, available)[0]

    def describe(self) -> str:
        return (f"start–goal paths of a DAG ({self.dag.n_nodes} nodes, {self.dag.n_edges} edges, at most "
                f"{self.K} edges per path), exact DP oracle; {self.availability.describe()}")


@dataclass(frozen=True)
class RoadPaths(DAGPaths):
    """A route in a road network: the goal-directed corridor (a DAG). :meth:`shortest_path` is Dijkstra on
    non-negative costs (paper 002, Algorithm 2) for every run at once, on the block-diagonal graph of the runs."""

    def shortest_path(self, cost: np.ndarray, available: np.ndarray) -> np.ndarray:
        """argmin over available paths of Σ cost (cost ≥ 0): (m, K) edge indices, −1 padded."""
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import dijkstra

        cost = np.asarray(cost, dtype=np.float64)
        if np.any(cost < 0) or not np.all(np.isfinite(cost)):
            raise BoundcheckError("Dijkstra needs finite non-negative edge costs (rectify the indices first)")
        dag, m = self.dag, cost.shape[0]
        V = dag.n_nodes
        avail = np.asarray(available, dtype=bool)
        if avail.ndim == 1 and avail.all():  # a fixed structure: only the weights change from call to call
            order, indices, indptr = _block_structure(dag, m)
            G = csr_matrix((cost.ravel()[order], indices, indptr), shape=(m * V, m * V))
        else:
            r, e = np.nonzero(np.broadcast_to(avail, cost.shape))
            G = csr_matrix((cost[r, e], (r * V + dag.tail[e], r * V + dag.head[e])), shape=(m * V, m * V))
        _, pred = dijkstra(G, directed=True, indices=np.arange(m) * V + dag.start, return_predecessors=True)
        edge_of = _edge_lookup(dag)
        rows = np.arange(m)
        node = np.full(m, dag.goal, dtype=np.int64)
        rev = np.full((m, self.K), -1, dtype=np.int64)
        for i in range(self.K):  # walk the predecessors back from the goal
            active = node != dag.start
            if not active.any():
                break
            p = pred[rows, rows * V + node] - rows * V
            if np.any(active & (p < 0)):
                raise BoundcheckError("no start–goal path among the available edges")
            rev[:, i] = np.where(active, edge_of[np.maximum(p, 0), node], -1)
            node = np.where(active, p, node)
        # reverse each path into start → goal order, padding at the end
        cols = (rev >= 0).sum(axis=1)[:, None] - 1 - np.arange(self.K)[None]
        ok = cols >= 0
        out = np.full_like(rev, -1)
        out[np.nonzero(ok)[0], cols[ok]] = rev[ok]
        return out


_STRUCTURES: dict = {}


def _edge_lookup(dag: DAG) -> np.ndarray:
    """(V, V) array: the edge from u to v, −1 if none (cached per DAG)."""
    key = ("edges", id(dag))
    if key not in _STRUCTURES:
        edge_of = np.full((dag.n_nodes, dag.n_nodes), -1, dtype=np.int64)
        edge_of[dag.tail, dag.head] = np.arange(dag.n_edges)
        _STRUCTURES[key] = (edge_of, dag)
    return _STRUCTURES[key][0]


def _block_structure(dag: DAG, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR structure of the block-diagonal graph of ``m`` copies of ``dag`` (every edge present): the order of
    the flattened (m, E) costs, the column indices and the row pointers (cached per DAG and m)."""
    key = (id(dag), m)
    if key not in _STRUCTURES:
        V, E = dag.n_nodes, dag.n_edges
        r = np.repeat(np.arange(m), E)
        e = np.tile(np.arange(E), m)
        rows, cols = r * V + dag.tail[e], r * V + dag.head[e]
        order = np.lexsort((cols, rows))
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=m * V))])
        if len(_STRUCTURES) > 128:
            _STRUCTURES.clear()
        _STRUCTURES[key] = (order, cols[order].astype(np.int32), indptr.astype(np.int32), dag)
    return _STRUCTURES[key][:3]


@dataclass(frozen=True)
class ContextualTopK(ActionSet):
    """Top-K over the round's contexts (infinite 𝒜 = [0, C₁]^d): X_t is the (m, slots, d) array of contexts and
    the sampler's draw is the feature weight vector w (m, D); f_t(slot) = φ(x_slot)ᵀw."""

    availability: UniformContexts
    features: RFFFeatures
    k: int = 1
    fixed_arms = False  # the round's contexts are its base arms
    exact_oracle = True

    def available_mask(self, available, m: int) -> np.ndarray:
        return np.ones((m, self.availability.slots), dtype=bool)

    def __post_init__(self) -> None:
        check_int("K (base arms per action)", self.k, maximum=self.availability.slots)

    @property
    def K(self) -> int:  # noqa: N802 - the papers' symbol
        return self.k

    def realise(self, f: np.ndarray, available) -> np.ndarray:
        return np.einsum("msd,md->ms", self.features(available), f)

    def oracle(self, score: np.ndarray, available) -> np.ndarray:
        return np.argsort(-score, axis=1, kind="stable")[:, : self.k]

    def best_value(self, f: np.ndarray, available) -> np.ndarray:
        return -np.sort(-f, axis=1)[:, : self.k].sum(axis=1)

    def describe(self) -> str:
        return f"top-{self.k} of {self.availability.slots} fresh contexts per round; {self.availability.describe()}"


def check_enough_available(actions: ActionSet) -> None:
    """Bad input: a top-K action set whose availability can offer fewer than K arms."""
    need = actions.K
    have = getattr(actions.availability, "min_available", None)
    if have is not None and not isinstance(actions, DAGPaths) and have < need:
        raise BoundcheckError(f"K = {need} is larger than the available set ({have} base arms per round)")




# ------------------------------------------------------------------------ assumption predicates
# registered here, beside the action sets they inspect (additive, as et_gp_ucb/world.py does)
def _prior_scale(sc) -> float:
    return max(p.kappa for p in sc.candidates + (sc.truth,))


@register_predicate("comb_kernel_scaled")
def _comb_kernel_scaled(sc) -> tuple[bool, str]:
    """k(a, a) ≤ 1 (Theorem 3.1 as stated), or the scenario opts into the prior-scale generalisation."""
    kappa = _prior_scale(sc)
    if kappa <= 1.0 + 1e-12:
        return True, f"max_a k(a, a) = {kappa:.4g} ≤ 1"
    if sc.params.get("rescale_prior", False):
        return True, f"max_a k(a, a) = {kappa:.4g} > 1: the prior-scale generalisation (bound scaled by s = √κ)"
    return False, f"max_a k(a, a) = {kappa:.4g} > 1 and the scenario does not set params['rescale_prior']"


@register_predicate("comb_exogenous_exact")
def _comb_exogenous_exact(sc) -> tuple[bool, str]:
    """𝒜_t exogenous and the oracle exact, as the action set declares them. An :class:`Availability` draws from the
    runs' availability streams only (``draw(t, rngs)`` is never given f or the noise), so it is exogenous unless it
    says otherwise (``exogenous = False``) — one that reconstructs f anyway is what the innovation and coverage
    claims catch; an action set's oracle counts as exact only where it declares ``exact_oracle = True`` (a
    heuristic oracle of a user's action set is not covered by the theorems; a false declaration is what the
    decomposition claim catches)."""
    acts, avail = sc.actions, sc.availability
    if not isinstance(avail, Availability) or not getattr(avail, "exogenous", True):
        return False, f"𝒜_t ({type(avail).__name__}) is not declared exogenous (independent of f)"
    if not getattr(acts, "exact_oracle", False):
        return False, f"the oracle of {type(acts).__name__} is not declared exact (exact_oracle = False)"
    kind = "fixed" if isinstance(avail, AlwaysAvailable) else "drawn from the availability streams only"
    return True, f"{acts.describe()}; 𝒜_t {kind}; exact oracle"


@register_predicate("comb_regularity")
def _comb_regularity(sc) -> tuple[bool, str]:
    """Assumption 3.2 with explicit constants: contexts in [0, C₁]^d through random Fourier features whose
    L, C₂, C₃ are known (k(a, a) = 1), on the same cube the contexts are drawn from."""
    acts = sc.actions
    feats = getattr(acts, "features", None)
    if not isinstance(feats, RFFFeatures):
        return False, "no random-Fourier-feature kernel with explicit constants (L, C₂, C₃) for the contexts"
    avail = acts.availability
    if not isinstance(avail, UniformContexts) or avail.d != feats.d or avail.C1 != feats.C1:
        return False, (f"contexts {avail.describe()} are not the cube [0, {feats.C1:g}]^{feats.d} the features' "
                       "constants are stated on")
    return True, (f"RFF kernel, M = {feats.M}, d = {feats.d}, on [0, {feats.C1:g}]^{feats.d}: L = {feats.L:.3g}, "
                  f"log C₂ = {feats.log_C2:g}, C₃ = {feats.C3:.3g}")
