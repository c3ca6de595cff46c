"""Scenarios of paper 002 (Sandberg, Åkerblom, Chehreghani 2025; docs/papers/combinatorial.md).

* S1 ``comb_topk*`` — volatile top-K semi-bandit: n points in [0, 1]², SE kernel (k(a, a) = 1), 𝒜_t a uniformly
  random subset (exogenous), K ∈ {1, 2, 4, 8}.
* S2 ``comb_grid*`` — DAG-grid navigation: a 5 × 5 grid with right/down edges (|𝒜| = 40, every path has K = 8
  edges), SE kernel on the edge midpoints, each edge closed w.p. 0.1 per round (redrawn while disconnected).
* S3 ``comb_road_1..4`` — a synthetic road network mimicking the paper's experiments (the real networks need
  the LuST/MoST scenarios and a DEM): a random geometric graph with an elevation field and speed limits, the
  energy model of eq. (8) with Table 2's constants, f ~ GP(−E_det, k) with k = σ₀²(½ k̃_G·k_f + ½ k'_f), the
  graph Matérn kernel k_G on the line graph (ν_G = 2, κ_G = 1, as printed in B.1) and Matérn-5/2 feature kernels
  on the standardised (length, speed limit, incline), σ₀² = 0.25²σ²_det, noise 0.1²σ²_det. Rewards are negated
  energies. Each route's base arms are its goal-directed corridor (a DAG, [PROPOSED]): the true optimum is then
  exact for any sign of f (a GP draw can make energy cycles negative, where shortest simple paths are NP-hard;
  the paper does not say how it computed the optimum).
* S4 ``comb_rff`` — the infinite case: 10 fresh contexts in [0, 1]² per round, a random-Fourier-feature kernel
  with explicit regularity constants (M = 20 frequencies), top-2 super arms.
* Negative controls (each breaks one assumption of Theorems 3.1 / 3.2; ``verify`` refuses them unless
  ``--allow-out-of-theory``): ``comb_topk_noise`` and ``comb_rff_noise`` (the data's noise twice the ς the
  models use: noise_matches), ``comb_topk_rough`` (f drawn from GP(0, SE ℓ = 0.1) while the algorithm's prior
  has ℓ = 0.3: the Bayesian premise truth_in_candidates).

Every scenario is a file in ``scenarios/`` of one of the families ``combinatorial.top_k`` (S1),
``combinatorial.dag_paths`` (S2; a DAG from an edge list too), ``combinatorial.road`` (S3; a road graph from a
CSV or GraphML edge list too, with eq. (8)'s edge energies) and ``combinatorial.contexts`` (S4) (docs/scenarios.md); the
builders below build the same scenarios from Python (the experiments use them).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order, connected_components
from scipy.spatial.distance import cdist

from boundcheck.errors import BoundcheckError
from boundcheck.model.domains import FiniteDomain
from boundcheck.model.kernels import RBF, Matern
from boundcheck.model.priors import GPPrior
from boundcheck.papers.combinatorial.model import RFFFeatures
from boundcheck.papers.combinatorial.world import (
    DAG,
    BernoulliArms,
    ContextualTopK,
    DAGPaths,
    EdgeClosures,
    RandomSubset,
    RoadPaths,
    UniformContexts,
    grid_dag,
)
from boundcheck.world.actions import AlwaysAvailable, TopK
from boundcheck.world.scenario import Scenario
from boundcheck.world.scenario_files import (
    COMMON_PROPERTIES,
    FileFamily,
    FileReader,
    ScenarioFileError,
    finish_common,
    object_schema,
    read_common,
)

PAPER002_SEED = 2025
BUCB_DEFAULT = {"xi": 2.2, "omega": 1.1}  # ξ > ω > 1 (Theorem 3.1(ii)); C_ω = 2.42, ξ/(ξ−ω) = 2


# ------------------------------------------------------------------------------------------------- S1
#: where a scenario's setting comes from: one of boundcheck's synthetic settings (the paper's data are not public)
_SETTING = "boundcheck's synthetic setting {} (docs/papers/combinatorial.md)"


@cache
def _points(n: int, d: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0.0, 1.0, size=(n, d))


def _topk(name: str, n: int = 20, k: int = 2, size: int = 10, lengthscale: float = 0.3, noise: float = 0.5,
          horizon: int = 500, *, dim: int = 2, seed: int | None = None, p_available: float | None = None,
          min_available: int | None = None, delta: float = 0.1, params: dict | None = None) -> Scenario:
    """S1: ``n`` points uniform in [0,1]^``dim`` (seed ``seed``, default 2025 + n), f ~ GP(0, SE ℓ), each round
    ``size`` base arms uniformly at random (or each w.p. ``p_available``, at least ``min_available`` (default K)),
    K = ``k`` picked."""
    X = _points(n, dim, PAPER002_SEED + n if seed is None else seed)
    prior = GPPrior(f"GP(0, SE ℓ = {lengthscale:g})", np.zeros(n), RBF(lengthscale).gram(X), 0.0)
    if p_available is None:
        avail = RandomSubset(n, size)
        law = f"{size} of the {n} base arms are available (uniformly at random, independent of f)"
    else:
        low = k if min_available is None else min_available
        avail = BernoulliArms(n, p_available, low)
        law = (f"each of the {n} base arms is available w.p. {p_available:g} (redrawn until at least {low} are; "
               "independent of f)")
    cube = "[0,1]²" if dim == 2 else f"[0,1]^{dim}"
    return Scenario(
        name=name,
        description=(f"S1 volatile top-K semi-bandit: f ~ GP(0, SE ℓ = {lengthscale:g}) on {n} points uniform in "
                     f"{cube} (fixed), a fresh f per run; each round {law} and the learner picks K = {k} of them, "
                     f"observing each with noise N(0, {noise:g}²)."),
        domain=FiniteDomain(X, name=f"uniform{n}"), availability=avail, candidates=(prior,), truth=prior,
        truth_index=0, noise=noise, horizon=horizon, delta=delta, action_set=TopK(avail, k=k),
        params=dict(BUCB_DEFAULT) if params is None else dict(params),
        notes=(_SETTING.format("S1, a volatile top-K semi-bandit"),))


# ------------------------------------------------------------------------------------------------- S2
def _grid(name: str, size: int = 5, p_close: float = 0.1, lengthscale: float = 0.5, noise: float = 0.5,
          horizon: int = 500, *, graph: tuple[DAG, np.ndarray] | None = None, delta: float = 0.1,
          params: dict | None = None) -> Scenario:
    """S2: paths of the ``size`` × ``size`` grid DAG, or of ``graph`` = (a DAG, its edges' points: the midpoints
    of the edges from an edge list), f ~ GP(0, SE ℓ) on the edges' points, each edge closed w.p. ``p_close``."""
    if graph is None:
        dag, mid = grid_dag(size)
        what = (f"S2 DAG-grid navigation: {size}×{size} grid, right/down edges from corner to corner "
                f"(|𝒜| = {dag.n_edges} edges, every path {dag.k_max} edges)")
        ends, domain_name, setting = "the corners are", f"grid{size}_edges", "S2, paths on a DAG grid"
    else:
        dag, mid = graph
        what = (f"DAG paths: {dag.n_nodes} nodes, {dag.n_edges} edges (the base arms) from node {dag.start} to node "
                f"{dag.goal}, paths of up to {dag.k_max} edges")
        ends, domain_name, setting = "start and goal are", f"{name}_edges", "S2 on a DAG from an edge list"
    prior = GPPrior(f"GP(0, SE ℓ = {lengthscale:g} on edge midpoints)", np.zeros(dag.n_edges),
                    RBF(lengthscale).gram(mid), 0.0)
    avail = EdgeClosures(dag, p_close) if p_close > 0 else AlwaysAvailable(dag.n_edges)
    closures = (f"each edge closed w.p. {p_close:g} per round (redrawn while {ends} disconnected; "
                "independent of f)" if p_close > 0 else "no closures")
    return Scenario(
        name=name,
        description=(f"{what}, f ~ GP(0, SE ℓ = {lengthscale:g}) "
                     f"on the edge midpoints (reward per edge), {closures}; exact DP oracle; noise N(0, {noise:g}²)."),
        domain=FiniteDomain(mid, name=domain_name), availability=avail, candidates=(prior,), truth=prior,
        truth_index=0, noise=noise, horizon=horizon, delta=delta, action_set=DAGPaths(dag, avail),
        params=dict(BUCB_DEFAULT) if params is None else dict(params), notes=(_SETTING.format(setting),))


# ------------------------------------------------------------------------------------------------- S4
@cache
def _rff(M: int, d: int, lengthscale: float, seed: int = PAPER002_SEED + 4) -> RFFFeatures:
    return RFFFeatures.draw(M, d, lengthscale, seed)


def _contextual(name: str, M: int = 20, d: int = 2, slots: int = 10, k: int = 2, lengthscale: float = 0.3,
                noise: float = 0.5, horizon: int = 200, *, seed: int = PAPER002_SEED + 4, delta: float = 0.1,
                params: dict | None = None) -> Scenario:
    """S4: ``M`` random Fourier frequencies (seed ``seed``) in ``d`` dimensions, ``slots`` contexts a round, K."""
    feats = _rff(M, d, lengthscale, seed)
    D = feats.D
    weights = GPPrior(f"w ~ N(0, I_{D}) (RFF weights)", np.zeros(D), np.eye(D), 0.0)
    avail = UniformContexts(slots, d)
    return Scenario(
        name=name,
        description=(f"S4 infinite 𝒜 = [0,1]^{d}: f(a) = φ(a)ᵀw with {M} random Fourier frequencies "
                     f"(ω ~ N(0, {lengthscale:g}⁻²I), fixed), w ~ N(0, I_{D}) afresh per run, so k(a, a') = "
                     f"M⁻¹Σcos ωᵀ(a−a'), k(a, a) = 1; each round {slots} contexts uniform in [0,1]^{d} (independent "
                     f"of f), K = {k}; noise N(0, {noise:g}²). L = {feats.L:.3g}, C₂ = e^{M}, C₃ = {feats.C3:.3g}."),
        domain=FiniteDomain(np.arange(D, dtype=float), name=f"rff{M}_weights"), availability=avail,
        candidates=(weights,), truth=weights, truth_index=0, noise=noise, horizon=horizon, delta=delta,
        action_set=ContextualTopK(avail, feats, k), params=dict(BUCB_DEFAULT) if params is None else dict(params),
        notes=(_SETTING.format("S4, contexts for Theorem 3.2")
               + "; the sampler draws the weights w, the action set maps them to the contexts",))


# ------------------------------------------------------------------------------------------- S3: roads
# Table 2 (SUMO EV defaults) and eq. (8); the η± split is boundcheck's choice [PROPOSED]
VEHICLE = {"m": 1830.0, "g": 9.82, "C_r": 0.01, "A": 2.6, "C_d": 0.35, "rho": 1.2, "eta_plus": 0.98,
           "eta_minus": 0.96}
SPEEDS_KMH = np.array([30.0, 50.0, 70.0, 90.0])


def edge_energy(length: np.ndarray, incline: np.ndarray, speed: np.ndarray, vehicle: dict = VEHICLE) -> np.ndarray:
    """E_det (Wh) of eq. (8): (m g ℓ sin α + m g C_r ℓ cos α + ½ C_d A ρ ℓ v²)/3600 divided by η⁺ when
    positive, multiplied by η⁻ (recuperation) when negative (eq. (8) has one η, Table 2 two) [PROPOSED]."""
    v = vehicle
    mech = (v["m"] * v["g"] * length * np.sin(incline) + v["m"] * v["g"] * v["C_r"] * length * np.cos(incline)
            + 0.5 * v["C_d"] * v["A"] * v["rho"] * length * speed**2)
    return np.where(mech >= 0, mech / (3600.0 * v["eta_plus"]), mech * v["eta_minus"] / 3600.0)


@dataclass(frozen=True, eq=False)
class RoadNetwork:
    """A synthetic directed road network: node positions (m), elevation (m), and per directed edge its length
    (m), speed limit (m/s), incline (rad), deterministic energy E_det (Wh) and standardised context."""

    xy: np.ndarray = field(repr=False)
    elevation: np.ndarray = field(repr=False)
    tail: np.ndarray = field(repr=False)
    head: np.ndarray = field(repr=False)
    length: np.ndarray = field(repr=False)
    speed: np.ndarray = field(repr=False)
    incline: np.ndarray = field(repr=False)
    energy: np.ndarray = field(repr=False)

    @property
    def n_edges(self) -> int:
        return int(self.tail.size)

    @property
    def contexts(self) -> np.ndarray:
        """(length, speed limit, incline), each standardised to zero mean and unit variance (paper §4)."""
        C = np.stack([self.length, self.speed, self.incline], axis=1)
        return (C - C.mean(axis=0)) / C.std(axis=0)

    @property
    def sigma_det(self) -> float:
        return float(self.energy.std())


@cache
def road_network(n_nodes: int = 120, side: float = 3000.0, k: int = 4, seed: int = PAPER002_SEED) -> RoadNetwork:
    """A random geometric road graph: ``n_nodes`` intersections uniform in a ``side`` × ``side`` m square, each
    joined to its ``k`` nearest neighbours (both directions; components joined by their closest pair), a smooth
    elevation field (GP, SE ℓ = 800 m, sd 25 m), speed limits from {30, 50, 70, 90} km/h per road."""
    rng = np.random.default_rng(seed)
    xy = rng.uniform(0.0, side, size=(n_nodes, 2))
    Dm = cdist(xy, xy)
    np.fill_diagonal(Dm, np.inf)
    und = set()
    for u in range(n_nodes):
        for v in np.argsort(Dm[u])[:k]:
            und.add((min(u, int(v)), max(u, int(v))))
    while True:  # join components by their closest pair of nodes
        A = np.zeros((n_nodes, n_nodes), dtype=bool)
        for u, v in und:
            A[u, v] = A[v, u] = True
        ncomp, lab = connected_components(A, directed=False)
        if ncomp == 1:
            break
        inside = lab[:, None] == lab[None, :]
        i, j = np.unravel_index(np.argmin(np.where(inside, np.inf, Dm)), Dm.shape)
        und.add((min(i, j), max(i, j)))
    und = sorted(und)
    K_h = RBF(800.0).gram(xy) + 1e-8 * np.eye(n_nodes)
    elevation = 25.0 * np.linalg.cholesky(K_h) @ rng.standard_normal(n_nodes)
    speeds = SPEEDS_KMH[rng.choice(4, size=len(und), p=[0.2, 0.4, 0.25, 0.15])] / 3.6
    tail = np.array([u for u, v in und] + [v for u, v in und])
    head = np.array([v for u, v in und] + [u for u, v in und])
    return network_from_edges(xy, elevation, tail, head, np.concatenate([speeds, speeds]))


def network_from_edges(xy: np.ndarray, elevation: np.ndarray, tail: np.ndarray, head: np.ndarray,
                       speed: np.ndarray, vehicle: dict | None = None) -> RoadNetwork:
    """A road network from its nodes (positions ``xy`` and ``elevation``, m) and directed roads (``tail`` →
    ``head``, speed limit ``speed`` in m/s): each road's length and incline from its ends, its deterministic
    energy E_det by eq. (8) with ``vehicle``'s constants (default Table 2: :data:`VEHICLE`)."""
    xy = np.asarray(xy, dtype=np.float64)
    elevation = np.asarray(elevation, dtype=np.float64)
    tail, head = np.asarray(tail), np.asarray(head)
    n = xy.shape[0]
    if xy.ndim != 2 or xy.shape[1] != 2 or elevation.shape != (n,):
        raise BoundcheckError("a road network needs (n, 2) node positions and n elevations")
    if tail.shape != head.shape or tail.ndim != 1 or tail.size == 0 or speed.shape != tail.shape:
        raise BoundcheckError("a road network needs matching tail, head and speed arrays with at least one road")
    if tail.min() < 0 or head.min() < 0 or max(tail.max(), head.max()) >= n or np.any(tail == head):
        raise BoundcheckError(f"road ends must be distinct node indices in 0..{n - 1}")
    if np.any(speed <= 0):
        raise BoundcheckError("speed limits must be positive")
    horiz = np.linalg.norm(xy[tail] - xy[head], axis=1)
    dh = elevation[head] - elevation[tail]
    length = np.sqrt(horiz**2 + dh**2)
    if np.any(length <= 0):
        raise BoundcheckError("two nodes joined by a road are at the same place (a road of length 0)")
    incline = np.arctan2(dh, horiz)
    energy = edge_energy(length, incline, speed) if vehicle is None else edge_energy(length, incline, speed, vehicle)
    return RoadNetwork(xy, elevation, tail, head, length, speed, incline, energy)


@cache
def graph_matern_line(net: RoadNetwork, nu: float = 2.0, kappa: float = 1.0) -> np.ndarray:
    """The graph Matérn kernel on the edges of the directed network (paper B.1, eqs. (134)–(135), as printed):
    line graph connections c = (e₁, e₂), e₁ = (u, v), e₂ = (v, w), w ≠ u (no U-turns, [PROPOSED]), weights
    W = ℓ̄/ℓ_{e₁}, incidence B_{e₁,c} = −W, B_{e₂,c} = +W, Δ_I = BBᵀ = UΛUᵀ, k_G = U(2ν/κ² + Λ)^{−ν}Uᵀ,
    normalised here to max diagonal 1 (σ_G enters through the outputscale)."""
    E = net.n_edges
    rows, cols, vals = [], [], []
    lbar = net.length.mean()
    by_tail: dict[int, list[int]] = {}
    for e in range(E):
        by_tail.setdefault(int(net.tail[e]), []).append(e)
    c = 0
    for e1 in range(E):
        for e2 in by_tail.get(int(net.head[e1]), []):
            if net.head[e2] == net.tail[e1]:
                continue
            w = lbar / net.length[e1]
            rows += [e1, e2]
            cols += [c, c]
            vals += [-w, w]
            c += 1
    B = np.zeros((E, c))
    B[rows, cols] = vals
    lam, U = np.linalg.eigh(B @ B.T)
    kG = (U * (2 * nu / kappa**2 + np.maximum(lam, 0.0)) ** (-nu)) @ U.T
    return kG / np.max(np.diag(kG))


@dataclass(frozen=True)
class Route:
    start: int
    goal: int
    edges: np.ndarray = field(repr=False)  # global edge ids of the corridor


@cache
def routes(net: RoadNetwork, count: int = 4, stretch: float = 1.3, seed: int = PAPER002_SEED + 3) -> tuple[Route, ...]:
    """``count`` far-apart start/goal pairs and their goal-directed corridors: edges u→v with both ends in the
    ellipse d(s, ·) + d(·, g) ≤ ``stretch``·d(s, g) and d(v, g) < d(u, g), pruned to edges on a start–goal path."""
    rng = np.random.default_rng(seed)
    xy = net.xy
    side = xy.max() - xy.min()
    out: list[Route] = []
    for _ in range(2000):
        s, g = (int(i) for i in rng.choice(len(xy), size=2, replace=False))
        dsg = np.linalg.norm(xy[s] - xy[g])
        if dsg < 0.6 * side or any(r.start == s or r.goal == g for r in out):
            continue
        route = corridor(net, s, g, stretch)
        if route is None or route.edges.size < 10:
            continue
        out.append(route)
        if len(out) == count:
            return tuple(out)
    raise BoundcheckError("could not find enough connected routes in the road network")


def corridor(net: RoadNetwork, start: int, goal: int, stretch: float = 1.3) -> Route | None:
    """The goal-directed corridor from ``start`` to ``goal``: edges u→v with both ends in the ellipse
    d(s, ·) + d(·, g) ≤ ``stretch``·d(s, g) and d(v, g) < d(u, g), pruned to edges on a start–goal path (None
    when the goal cannot be reached inside it)."""
    xy = net.xy
    s, g = int(start), int(goal)
    dsg = np.linalg.norm(xy[s] - xy[g])
    dg = np.linalg.norm(xy - xy[g], axis=1)
    ds = np.linalg.norm(xy - xy[s], axis=1)
    inside = ds + dg <= stretch * dsg
    keep = inside[net.tail] & inside[net.head] & (dg[net.head] < dg[net.tail])
    e_ids = np.flatnonzero(keep)
    G = csr_matrix((np.ones(e_ids.size), (net.tail[e_ids], net.head[e_ids])), shape=(len(xy), len(xy)))
    fwd = np.zeros(len(xy), dtype=bool)
    fwd[breadth_first_order(G, s, directed=True, return_predecessors=False)] = True
    bwd = np.zeros(len(xy), dtype=bool)
    bwd[breadth_first_order(G.T.tocsr(), g, directed=True, return_predecessors=False)] = True
    on_path = fwd[net.tail[e_ids]] & bwd[net.head[e_ids]]
    if not fwd[g]:
        return None
    return Route(s, g, e_ids[on_path])


def road_dag(net: RoadNetwork, route: Route) -> DAG:
    nodes = np.unique(np.concatenate([net.tail[route.edges], net.head[route.edges]]))
    index = {int(v): i for i, v in enumerate(nodes)}
    tail = np.array([index[int(v)] for v in net.tail[route.edges]])
    head = np.array([index[int(v)] for v in net.head[route.edges]])
    return DAG(nodes.size, tail, head, index[route.start], index[route.goal])


def road_kernel(net: RoadNetwork, lengthscale: float = 1.0) -> np.ndarray:
    """k = σ₀²(½ k̃_G ⊙ k_f + ½ k'_f) on all edges, σ₀² = 0.25²σ²_det, Matérn-5/2 feature kernels with
    lengthscale ``lengthscale`` on the standardised contexts (even split of the outputscale, [PROPOSED])."""
    C = net.contexts
    kf = Matern(2.5, lengthscale)(C, C)
    return (0.25 * net.sigma_det) ** 2 * (0.5 * graph_matern_line(net) * kf + 0.5 * kf)


def road_scenario(route_index: int, lengthscale: float = 1.0, horizon: int = 500,
                  model_lengthscale: float | None = None, *, name: str | None = None, net: RoadNetwork | None = None,
                  route: Route | None = None, network_text: str = "synthetic road network", delta: float = 0.1,
                  params: dict | None = None, stretch: float = 1.3) -> Scenario:
    """S3 route ``route_index`` (1-based) of :func:`routes` on ``net`` (default the synthetic
    :func:`road_network`), or ``route`` itself: the environment's feature lengthscale ``lengthscale``; the
    model's is ``model_lengthscale`` (default: the same, a well-specified prior; otherwise misspecified, out of
    theory). ``params``: GP-BUCB's ξ, ω (default :data:`BUCB_DEFAULT`)."""
    net = road_network() if net is None else net
    if route is None:
        rts = routes(net)
        if not 1 <= route_index <= len(rts):
            raise BoundcheckError(f"route must be in 1..{len(rts)}, got {route_index}")
        route = rts[route_index - 1]
    dag = road_dag(net, route)
    e = route.edges
    K = road_kernel(net, lengthscale)[np.ix_(e, e)]
    prior = GPPrior(f"GP(−E_det, σ₀²(½k̃_G k_f + ½k'_f)), ℓ_f = {lengthscale:g}", -net.energy[e], K, 0.0)
    model, misspecified = prior, model_lengthscale is not None and model_lengthscale != lengthscale
    if misspecified:
        Km = road_kernel(net, model_lengthscale)[np.ix_(e, e)]
        model = GPPrior(f"GP(−E_det, σ₀²(½k̃_G k_f + ½k'_f)), ℓ_f = {model_lengthscale:g}", -net.energy[e], Km, 0.0)
    noise = 0.1 * net.sigma_det
    avail = AlwaysAvailable(e.size)
    extra = dict(truth_index=None, reference_index=0, in_theory=False,
                 out_of_theory_reason=f"model lengthscale {model_lengthscale:g} ≠ environment {lengthscale:g}") \
        if misspecified else dict(truth_index=0)
    if name is None:
        name = (f"comb_road_{route_index}" + ("" if lengthscale == 1.0 else f"_l{lengthscale:g}")
                + (f"_model_l{model_lengthscale:g}" if misspecified else ""))
    return Scenario(
        name=name,
        description=(f"S3 {network_text} ({len(net.xy)} intersections, {net.n_edges} directed roads), route "
                     f"{route_index}: {e.size} corridor edges, paths of up to {dag.k_max} edges; reward = −energy, "
                     f"f ~ GP(−E_det, σ₀²(½k̃_G k_f + ½k'_f)) with σ₀ = 0.25σ_det = {0.25 * net.sigma_det:.3g} Wh, "
                     f"noise 0.1σ_det = {noise:.3g} Wh, feature lengthscale {lengthscale:g}; exact DP oracle "
                     "(Algorithm 2's rectified Dijkstra is the experiments' variant, outside the theorems)."),
        domain=FiniteDomain(net.contexts[e], name=f"road_route{route_index}"), availability=avail,
        candidates=(model,), truth=prior, noise=noise, horizon=horizon, delta=delta, **extra,
        action_set=RoadPaths(dag, avail),
        # TK ≈ 10⁴ observations: the cheaper certified γ methods (eigenvalue, submodular, online) suffice
        params={**(BUCB_DEFAULT if params is None else params), "rescale_prior": True,
                "gamma_methods": ("kronecker", "greedy_submodular", "greedy_online")},
        notes=("prior scale s = 0.25σ_det: the theorems' prior-scale generalisation (Theorem 3.1, sup k ≠ 1) is used",
               f"corridor = goal-directed edges inside an ellipse of stretch {stretch:g} [PROPOSED]"))


# -------------------------------------------------------------------------------------- negative controls
def _noisy(sc: Scenario, scale: float = 2.0) -> Scenario:
    """The data's noise N(0, (scale·ς)²) while every model uses ς (breaks noise_matches)."""
    return replace(sc, noise_law=f"gaussian:{scale!r}",
                   description=sc.description + f" NEGATIVE CONTROL: the data's noise is N(0, ({scale:g}·ς)²) while "
                   "the models use ς (outside the theorem).", notes=(*sc.notes, "negative control: noise_matches"))


def _rough(sc: Scenario, lengthscale: float = 0.1) -> Scenario:
    """f drawn from GP(0, SE ℓ = ``lengthscale``) while the algorithm's prior keeps its own (breaks
    truth_in_candidates: the Bayesian premise that f is a draw from the prior the algorithm uses)."""
    X = sc.domain.points
    truth = GPPrior(f"GP(0, SE ℓ = {lengthscale:g})", np.zeros(len(X)), RBF(lengthscale).gram(X), 0.0)
    return replace(sc, truth=truth, truth_index=None, reference_index=0,
                   description=sc.description + f" NEGATIVE CONTROL: f is drawn from GP(0, SE ℓ = {lengthscale:g}), "
                   f"not from the algorithm's prior {sc.candidates[0].name} (outside the theorem).",
                   notes=(*sc.notes, "negative control: truth_in_candidates"))


# ------------------------------------------------------------------------------------------ scenario files
_POS = {"type": "number", "exclusiveMinimum": 0}
_NAT = {"type": "integer", "minimum": 1}
_SEED = {"type": "integer", "minimum": 0}
_NODE = {"oneOf": [{"type": "integer", "minimum": 0}, {"type": "string"}],
         "description": "a node: its index (node i is the i-th of the list, CSV or GraphML file), or with graphml "
                        "the id of one of the file's <node>s"}
_SHARED = {
    **COMMON_PROPERTIES,
    "noise": {**_POS, "description": "ς: the noise standard deviation every model uses (the data's too, unless "
                                     "[truth] noise_scale)"},
    "algorithms": object_schema({"xi": {**_POS, "description": "GP-BUCB's ξ (ξ > ω > 1, Theorem 3.1(ii))"},
                                 "omega": {**_POS, "description": "GP-BUCB's ω"}}, (),
                                "the schedules' parameters (default ξ = 2.2, ω = 1.1)"),
}
_CONTROL = {
    "noise_scale": {**_POS, "description": "negative control: the data's noise is N(0, (c·ς)²) while the models "
                                           "use ς (breaks noise_matches)"},
    "lengthscale": {**_POS, "description": "negative control: f drawn from GP(0, SE ℓ) while the algorithm's prior "
                                           "keeps its own (breaks truth_in_candidates)"},
}
_SE = object_schema({"family": {"const": "se"}, "lengthscale": _POS}, ("family", "lengthscale"),
                    "the SE kernel exp(−‖a−a'‖²/(2ℓ²)) on the base arms' points")

TOP_K_SCHEMA = object_schema({
    **_SHARED, "family": {"const": "combinatorial.top_k"},
    "domain": object_schema({"uniform": object_schema({"n": _NAT, "dim": _NAT, "seed": _SEED}, ("n",),
                                                      "n points uniform in [0,1]^dim (default dim 2, seed 2025 + n)")},
                            ("uniform",), "the base arms"),
    "kernel": _SE,
    "actions": object_schema({
        "k": {**_NAT, "description": "K, the base arms a round picks"},
        "available": {**_NAT, "description": "𝒜_t: this many base arms uniformly at random each round"},
        "p_available": {"type": "number", "exclusiveMinimum": 0, "maximum": 1,
                        "description": "𝒜_t: each base arm independently w.p. p (instead of available)"},
        "min_available": {**_NAT, "description": "with p_available: redrawn until at least this many (default K)"}},
        ("k",), "top-K super arms over the available base arms (exactly one of available, p_available)"),
    "truth": object_schema(_CONTROL, (), "optional: a negative control"),
}, ("family", "name", "horizon", "delta", "noise", "domain", "kernel", "actions"))

DAG_SCHEMA = object_schema({
    **_SHARED, "family": {"const": "combinatorial.dag_paths"},
    "graph": object_schema({
        "grid": {"type": "integer", "minimum": 2, "description": "the n × n grid with right/down edges, corner to "
                                                                 "corner (S2)"},
        "nodes": {"type": "array", "items": {"type": "array", "items": {"type": "number"}},
                  "description": "node positions (edge points are the midpoints)"},
        "edges": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}, "minItems": 2,
                                             "maxItems": 2}, "description": "[tail, head] node indices"},
        "nodes_csv": {"type": "string", "description": "a CSV with columns x, y (instead of nodes)"},
        "edges_csv": {"type": "string", "description": "a CSV with columns tail, head (instead of edges)"},
        "graphml": {"type": "string", "description": "a GraphML file (instead of nodes and edges; relative to the "
                                                    "scenario file): a directed graph, node attributes x, y, edges "
                                                    "source → target; node i is the file's i-th <node>"},
        "start": _NODE, "goal": _NODE},
        (), "grid, or an edge list (nodes or nodes_csv, edges or edges_csv, or graphml; start, goal) of a DAG"),
    "kernel": _SE,
    "availability": object_schema({"closure_probability": {"type": "number", "minimum": 0, "exclusiveMaximum": 1,
                                                           "description": "each edge closed w.p. p per round "
                                                                          "(redrawn while start and goal are "
                                                                          "disconnected); 0: no closures"}}),
    "truth": object_schema(_CONTROL, (), "optional: a negative control"),
}, ("family", "name", "horizon", "delta", "noise", "graph", "kernel"))

ROAD_SCHEMA = object_schema({
    **_SHARED, "family": {"const": "combinatorial.road"},
    "noise": {"type": "null", "description": "not a key here: the noise is 0.1σ_det (paper §4)"},
    "network": object_schema({
        "synthetic": object_schema({"nodes": _NAT, "side": _POS, "neighbours": _NAT, "seed": _SEED},
                                   ("nodes", "side", "neighbours", "seed"),
                                   "a random geometric road graph (boundcheck's stand-in for the paper's networks)"),
        "nodes_csv": {"type": "string", "description": "a CSV with columns x, y, elevation (m)"},
        "edges_csv": {"type": "string", "description": "a CSV of directed roads with columns tail, head, speed_kmh"},
        "graphml": {"type": "string", "description": "a GraphML file (instead of nodes_csv and edges_csv; relative "
                                                    "to the scenario file): node attributes x, y, elevation (m), "
                                                    "edge attribute speed_kmh; node i is the file's i-th <node>; "
                                                    "an undirected graph (or edge) is a road both ways"}},
        (), "exactly one of synthetic, nodes_csv with edges_csv, or graphml"),
    "vehicle": object_schema({k: _POS for k in VEHICLE}, (), "eq. (8)'s constants (default Table 2)"),
    "route": object_schema({
        "index": {**_NAT, "description": "the index-th far-apart route of the network (with count, stretch, seed)"},
        "count": _NAT, "seed": _SEED, "stretch": {"type": "number", "minimum": 1},
        "start": _NODE, "goal": _NODE},
        (), "index, or start and goal: the route's goal-directed corridor is the DAG of base arms"),
    "kernel": object_schema({"feature_lengthscale": _POS}, ("feature_lengthscale",),
                            "k = σ₀²(½k̃_G k_f + ½k'_f): the Matérn-5/2 feature kernels' lengthscale"),
    "model": object_schema({"feature_lengthscale": _POS}, (), "optional: the model's own (misspecified)"),
}, ("family", "name", "horizon", "delta", "network", "route", "kernel"))
del ROAD_SCHEMA["properties"]["noise"]

CONTEXTS_SCHEMA = object_schema({
    **_SHARED, "family": {"const": "combinatorial.contexts"},
    "features": object_schema({"frequencies": {**_NAT, "description": "M random Fourier frequencies"},
                               "dim": _NAT, "lengthscale": _POS, "seed": _SEED},
                              ("frequencies", "dim", "lengthscale", "seed"),
                              "f(a) = φ(a)ᵀw, ω ~ N(0, ℓ⁻²I) fixed by the seed, w ~ N(0, I) afresh per run"),
    "actions": object_schema({"slots": {**_NAT, "description": "contexts uniform in [0,1]^dim each round"},
                              "k": {**_NAT, "description": "K"}}, ("slots", "k")),
    "truth": object_schema({"noise_scale": _CONTROL["noise_scale"]}, (), "optional: a negative control"),
}, ("family", "name", "horizon", "delta", "noise", "features", "actions"))


def _params(f: FileReader, root: dict, schema: dict) -> dict | None:
    a = f.table(root, "algorithms", "", schema["properties"]["algorithms"], default=None)
    if a is None:
        return None
    out = dict(BUCB_DEFAULT)
    for key in ("xi", "omega"):
        if key in a:
            out[key] = f.number(a, key, "algorithms", low=0.0, strict_low=True, what="a positive number")
    if not out["xi"] > out["omega"] > 1.0:
        raise f.error("algorithms", "ξ > ω > 1 (Theorem 3.1(ii))", f"ξ = {out['xi']:g}, ω = {out['omega']:g}")
    return out


def _se(f: FileReader, root: dict, schema: dict) -> float:
    k = f.table(root, "kernel", "", schema["properties"]["kernel"])
    f.text(k, "family", "kernel", choices=("se",))
    return f.number(k, "lengthscale", "kernel", low=0.0, strict_low=True, what="a positive lengthscale")


def _controls(f: FileReader, root: dict, schema: dict, sc: Scenario) -> Scenario:
    t = f.table(root, "truth", "", schema["properties"]["truth"], default={})
    if "lengthscale" in t:
        sc = _rough(sc, f.number(t, "lengthscale", "truth", low=0.0, strict_low=True, what="a positive lengthscale"))
    if "noise_scale" in t:
        sc = _noisy(sc, f.number(t, "noise_scale", "truth", low=0.0, strict_low=True, what="a positive scale"))
    return sc


def _noise(f: FileReader, root: dict) -> float:
    return f.number(root, "noise", "", low=0.0, strict_low=True, what="a positive noise level ς")


def parse_top_k(f: FileReader, root: dict) -> Scenario:
    """S1 from a ``combinatorial.top_k`` file (:data:`TOP_K_SCHEMA`), built by the same code as the built-ins."""
    common, props = read_common(f, root), TOP_K_SCHEMA["properties"]
    d = f.table(root, "domain", "", props["domain"])
    u = f.table(d, "uniform", "domain", props["domain"]["properties"]["uniform"])
    n = _at_most(f, "domain.uniform.n", f.integer(u, "n", "domain.uniform"), MAX_ARMS, " base arms")
    a = f.table(root, "actions", "", props["actions"])
    k = f.integer(a, "k", "actions")
    kw: dict = dict(dim=_at_most(f, "domain.uniform.dim", f.integer(u, "dim", "domain.uniform", default=2), 100),
                    delta=common.delta,
                    params=_params(f, root, TOP_K_SCHEMA))
    if "seed" in u:
        kw["seed"] = f.integer(u, "seed", "domain.uniform", minimum=0)
    if ("available" in a) == ("p_available" in a):
        raise f.error("actions", "exactly one of available, p_available")
    if "available" in a:
        size = f.integer(a, "available", "actions")
        if "min_available" in a:
            raise f.error("actions.min_available", "no min_available with available (it is exactly that many)")
    else:
        size = k
        kw["p_available"] = f.number(a, "p_available", "actions", low=0.0, high=1.0, strict_low=True,
                                     what="a probability in (0, 1]")
        kw["min_available"] = f.integer(a, "min_available", "actions", default=k)
    if size < k or kw.get("min_available", k) < k:
        raise f.error("actions", f"at least K = {k} base arms available every round")
    if size > n:
        raise f.error("actions.available", f"at most n = {n}", size)
    sc = f.build(_topk, common.name, n=n, k=k, size=size, lengthscale=_se(f, root, TOP_K_SCHEMA),
                noise=_noise(f, root), horizon=common.horizon, **kw)
    return finish_common(f, _controls(f, root, TOP_K_SCHEMA, sc), common)


#: the most base arms a file may ask for: n × n kernel matrices beyond this do not fit a workstation
MAX_ARMS = 4096


def _at_most(f: FileReader, key: str, value: int, most: int, what: str = "") -> int:
    if value > most:
        raise f.error(key, f"at most {most}{what}", value)
    return value


def _int_array(f: FileReader, value, key: str) -> np.ndarray:
    try:
        a = np.asarray(value)
    except (ValueError, TypeError):
        a = np.asarray([])
    if a.dtype.kind == "f" and np.all(np.isfinite(a)) and np.all(a == np.round(a)):
        a = a.astype(np.int64)
    if a.dtype.kind not in "iu" or a.size == 0:
        raise f.error(key, "node indices (integers)", value if not isinstance(value, np.ndarray) else a)
    return a.astype(np.int64)


def _node(f: FileReader, table: dict, key: str, path: str, ids: tuple[str, ...] | None) -> int:
    """The node ``table[key]`` names: an index, or (``ids``: the nodes of a GraphML file) a node's id."""
    value = table[key]
    if isinstance(value, str):
        if ids is None:
            raise f.error(f"{path}.{key}", "a node index (a node's id only with a GraphML file)", value)
        if value not in ids:
            some = ", ".join(map(repr, ids[:5])) + (", ..." if len(ids) > 5 else "")
            raise f.error(f"{path}.{key}", f"a node index or the id of a <node> of the GraphML file ({some})", value)
        return ids.index(value)
    return f.integer(table, key, path, minimum=0)


def parse_dag_paths(f: FileReader, root: dict) -> Scenario:
    """S2 from a ``combinatorial.dag_paths`` file (:data:`DAG_SCHEMA`): the grid DAG, or a DAG from an edge
    list (nodes and edges inline, in CSV files or in a GraphML file) whose base arms' points are the edges'
    midpoints."""
    common, props = read_common(f, root), DAG_SCHEMA["properties"]
    g = f.table(root, "graph", "", props["graph"])
    kw: dict = dict(delta=common.delta, params=_params(f, root, DAG_SCHEMA))
    if "grid" in g:
        extra = sorted(set(g) - {"grid"})
        if extra:
            raise f.error(f"graph.{extra[0]}", "nothing else with graph.grid")
        kw["size"] = _at_most(f, "graph.grid", f.integer(g, "grid", "graph", minimum=2), 40, " (2n(n−1) edges)")
    else:
        if "graphml" in g:
            extra = sorted(set(g) & {"nodes", "nodes_csv", "edges", "edges_csv"})
            if extra:
                raise f.error(f"graph.{extra[0]}", "nothing else with graph.graphml (its nodes and edges are the "
                                                   "file's)")
        else:
            for a, b in (("nodes", "nodes_csv"), ("edges", "edges_csv")):
                if (a in g) == (b in g):
                    raise f.error("graph", f"grid, graphml, or exactly one of {a}, {b} (with start, goal)")
        for key in ("start", "goal"):
            if key not in g:
                raise f.error(f"graph.{key}", "a node index (required for an edge list)")
        if "graphml" in g:
            # the same arrays as the CSV files give, then the same checks (_at_most, DAG())
            gm = f.graphml("graph.graphml", g["graphml"], ("x", "y"), ())
            xy, tail, head = np.stack([gm.nodes["x"], gm.nodes["y"]], axis=1), gm.tail, gm.head
        else:
            if "nodes" in g:
                xy = f.array(g["nodes"], "graph.nodes", shape=(None, None), what="node positions")
            else:
                c = f.csv_columns("graph.nodes_csv", g["nodes_csv"], ("x", "y"))
                xy = np.stack([c["x"], c["y"]], axis=1)
            if "edges" in g:
                e = _int_array(f, g["edges"], "graph.edges")
                if e.ndim != 2 or e.shape[1] != 2:
                    raise f.error("graph.edges", "a list of [tail, head] pairs", g["edges"])
                tail, head = e[:, 0], e[:, 1]
            else:
                c = f.csv_columns("graph.edges_csv", g["edges_csv"], ("tail", "head"))
                tail = _int_array(f, c["tail"], "graph.edges_csv")
                head = _int_array(f, c["head"], "graph.edges_csv")
        where = "graph.graphml" if "graphml" in g else "graph"  # the key the graph came from
        _at_most(f, where, tail.size, MAX_ARMS, " edges")
        ids = gm.ids if "graphml" in g else None
        start, goal = _node(f, g, "start", "graph", ids), _node(f, g, "goal", "graph", ids)
        try:
            dag = DAG(xy.shape[0], tail, head, start, goal)
        except BoundcheckError as exc:
            raise ScenarioFileError(f"{f.source}: key {where!r}: {exc}") from None
        if dag.k_max < 1:
            raise f.error(where, f"a DAG in which node {goal} can be reached from node {start}")
        kw["graph"] = (dag, 0.5 * (xy[dag.tail] + xy[dag.head]))
    av = f.table(root, "availability", "", props["availability"], default={})
    p = f.number(av, "closure_probability", "availability", default=0.1 if "grid" in g else 0.0, low=0.0,
                 high=1.0, what="a probability in [0, 1)")
    if p >= 1.0:
        raise f.error("availability.closure_probability", "a probability in [0, 1)", p)
    sc = f.build(_grid, common.name, p_close=p, lengthscale=_se(f, root, DAG_SCHEMA), noise=_noise(f, root),
                horizon=common.horizon, **kw)
    return finish_common(f, _controls(f, root, DAG_SCHEMA, sc), common)


def parse_road(f: FileReader, root: dict) -> Scenario:
    """S3 from a ``combinatorial.road`` file (:data:`ROAD_SCHEMA`): the synthetic road network or one from CSV
    files or a GraphML file, the paper's energy model and kernel, one route's corridor."""
    common, props = read_common(f, root), ROAD_SCHEMA["properties"]
    nt = f.table(root, "network", "", props["network"])
    vt = f.table(root, "vehicle", "", props["vehicle"], default=None)
    vehicle = None
    if vt is not None:
        vehicle = {**VEHICLE, **{k: f.number(vt, k, "vehicle", low=0.0, strict_low=True, what="a positive number")
                                 for k in vt}}
    if "synthetic" in nt:
        if set(nt) != {"synthetic"}:
            raise f.error("network", "exactly one of synthetic, nodes_csv with edges_csv, or graphml")
        st = f.table(nt, "synthetic", "network", props["network"]["properties"]["synthetic"])
        net = f.build(road_network, _at_most(f, "network.synthetic.nodes",
                                               f.integer(st, "nodes", "network.synthetic", minimum=2), 500),
                     f.number(st, "side", "network.synthetic", low=0.0, strict_low=True, what="a positive side (m)"),
                     f.integer(st, "neighbours", "network.synthetic"),
                     f.integer(st, "seed", "network.synthetic", minimum=0))
        if vehicle is not None:
            net = replace(net, energy=edge_energy(net.length, net.incline, net.speed, vehicle))
        text, ids = "synthetic road network", None
    else:
        ids = None
        if set(nt) not in ({"nodes_csv", "edges_csv"}, {"graphml"}):
            raise f.error("network", "exactly one of synthetic, nodes_csv with edges_csv, or graphml")
        if "graphml" in nt:
            # an undirected road is both directions: the reverse roads follow the file's, as road_network lays
            # them out; then the same arrays as the CSV files give, through the same checks
            gm = f.graphml("network.graphml", nt["graphml"], ("x", "y", "elevation"), ("speed_kmh",),
                           undirected="both")
            nodes, edges = gm.nodes, {"tail": gm.tail, "head": gm.head, **gm.edges}
            key = where = "network.graphml"
            ids = gm.ids
            text = f"road network of {nt['graphml']}"
        else:
            nodes = f.csv_columns("network.nodes_csv", nt["nodes_csv"], ("x", "y", "elevation"))
            edges = f.csv_columns("network.edges_csv", nt["edges_csv"], ("tail", "head", "speed_kmh"))
            key, where, text = "network.edges_csv", "network", f"road network of {nt['edges_csv']}"
        _at_most(f, key, edges["tail"].size, MAX_ARMS, " roads")
        tail = _int_array(f, edges["tail"], key)
        head = _int_array(f, edges["head"], key)
        xy = np.stack([nodes["x"], nodes["y"]], axis=1)
        try:
            net = network_from_edges(xy, nodes["elevation"], tail, head, edges["speed_kmh"] / 3.6, vehicle)
        except BoundcheckError as exc:
            raise ScenarioFileError(f"{f.source}: key {where!r}: {exc}") from None
    rt = f.table(root, "route", "", props["route"])
    stretch = f.number(rt, "stretch", "route", default=1.3, low=1.0, what="a stretch ≥ 1")
    if "index" in rt:
        if "start" in rt or "goal" in rt:
            raise f.error("route", "index, or start and goal (not both)")
        index = f.integer(rt, "index", "route")
        count = f.integer(rt, "count", "route", default=4)
        if index > count:
            raise f.error("route.index", f"at most count = {count}", index)
        seed = f.integer(rt, "seed", "route", minimum=0, default=PAPER002_SEED + 3)
        rts = f.build(routes, net, count, stretch, seed)
        route = rts[index - 1]
    else:
        if "start" not in rt or "goal" not in rt or "count" in rt or "seed" in rt:
            raise f.error("route", "index (with count, stretch, seed), or start and goal (with stretch)")
        index = 1
        s, g = _node(f, rt, "start", "route", ids), _node(f, rt, "goal", "route", ids)
        if max(s, g) >= len(net.xy) or s == g:
            raise f.error("route", f"distinct start and goal nodes in 0..{len(net.xy) - 1}", f"{s} → {g}")
        route = corridor(net, s, g, stretch)
        if route is None or route.edges.size == 0:
            raise f.error("route", f"a goal reachable from the start inside the corridor of stretch {stretch:g}",
                          f"{s} → {g}")
    ell = f.number(f.table(root, "kernel", "", props["kernel"]), "feature_lengthscale", "kernel", low=0.0,
                   strict_low=True, what="a positive lengthscale")
    mt = f.table(root, "model", "", props["model"], default={})
    model = f.number(mt, "feature_lengthscale", "model", default=None, low=0.0, strict_low=True,
                     what="a positive lengthscale")
    sc = f.build(road_scenario, index, ell, common.horizon, model, name=common.name, net=net, route=route,
                network_text=text, delta=common.delta, params=_params(f, root, ROAD_SCHEMA), stretch=stretch)
    return finish_common(f, sc, common)


def parse_contexts(f: FileReader, root: dict) -> Scenario:
    """S4 from a ``combinatorial.contexts`` file (:data:`CONTEXTS_SCHEMA`)."""
    common, props = read_common(f, root), CONTEXTS_SCHEMA["properties"]
    ft = f.table(root, "features", "", props["features"])
    at = f.table(root, "actions", "", props["actions"])
    slots = _at_most(f, "actions.slots", f.integer(at, "slots", "actions"), 10000)
    k = f.integer(at, "k", "actions")
    if k > slots:
        raise f.error("actions.k", f"at most slots = {slots}", k)
    sc = f.build(_contextual, common.name,
                M=_at_most(f, "features.frequencies", f.integer(ft, "frequencies", "features"), 1024),
                d=_at_most(f, "features.dim", f.integer(ft, "dim", "features"), 100), slots=slots, k=k,
                lengthscale=f.number(ft, "lengthscale", "features", low=0.0, strict_low=True,
                                     what="a positive lengthscale"),
                noise=_noise(f, root), horizon=common.horizon, seed=f.integer(ft, "seed", "features", minimum=0),
                delta=common.delta, params=_params(f, root, CONTEXTS_SCHEMA))
    return finish_common(f, _controls(f, root, CONTEXTS_SCHEMA, sc), common)


FILE_FAMILIES = (
    FileFamily("combinatorial.top_k", parse_top_k, TOP_K_SCHEMA,
               "paper 002's S1: volatile top-K semi-bandits on points in [0,1]^d (random-subset or Bernoulli "
               "availability)"),
    FileFamily("combinatorial.dag_paths", parse_dag_paths, DAG_SCHEMA,
               "paper 002's S2: start–goal paths of a DAG (the grid, or an edge list inline, in CSV or in GraphML) "
               "with edge closures"),
    FileFamily("combinatorial.road", parse_road, ROAD_SCHEMA,
               "paper 002's S3: routes in a road network (synthetic, or nodes and roads from CSV or GraphML) with "
               "eq. (8)'s energies and the graph-Matérn kernel"),
    FileFamily("combinatorial.contexts", parse_contexts, CONTEXTS_SCHEMA,
               "paper 002's S4: fresh contexts each round, a random-Fourier-feature kernel, top-K"),
)

#: the paper's scenario files (registered under their file names)
SCENARIO_DIR = Path(__file__).parent / "scenarios"
