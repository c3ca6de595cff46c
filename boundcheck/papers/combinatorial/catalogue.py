"""Scenarios of paper 002 (Sandberg, Åkerblom, Chehreghani 2025; docs/papers/combinatorial.md).

* S1 ``comb_topk*``: volatile top-K semi-bandit, n points in [0, 1]², SE kernel (k(a, a) = 1), 𝒜_t a uniformly
  random subset (exogenous), K ∈ {1, 2, 4, 8};
* S2 ``comb_grid*``: DAG-grid navigation, a 5 × 5 grid with right/down edges (|𝒜| = 40, K = 8 edges per path),
  SE kernel on the edge midpoints, each edge closed w.p. 0.1 per round (redrawn while disconnected);
* S3 ``comb_road_1..4``: routes on a synthetic road network (:mod:`.roads`), rewards the negated energies;
* S4 ``comb_rff``: the infinite case, 10 fresh contexts in [0, 1]² per round, a random-Fourier-feature kernel with
  explicit regularity constants (M = 20 frequencies), top-2 super arms;
* negative controls ``comb_topk_noise``, ``comb_rff_noise``, ``comb_topk_rough`` (each breaks one assumption).

Every scenario is a file in ``scenarios/`` of one of the families ``combinatorial.top_k``, ``dag_paths`` (a DAG
from an edge list too), ``road`` (a road graph from a CSV or GraphML edge list too, eq. (8)'s edge energies) and
``contexts`` (docs/scenarios.md); the builders below build the same scenarios from Python (for the experiments).
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from pathlib import Path

import numpy as np

from boundcheck.errors import BoundcheckError
from boundcheck.model.domains import FiniteDomain
from boundcheck.model.kernels import RBF
from boundcheck.model.priors import GPPrior
from boundcheck.papers.combinatorial.model import RFFFeatures
from boundcheck.papers.combinatorial.roads import (  # the S3 road network (its own module)
    VEHICLE,
    corridor,
    edge_energy,
    network_from_edges,
    road_network,
    road_scenario,
    routes,
)
from boundcheck.papers.combinatorial.world import (
    BUCB_DEFAULT,
    DAG,
    PAPER002_SEED,
    BernoulliArms,
    ContextualTopK,
    DAGPaths,
    EdgeClosures,
    RandomSubset,
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
