"""GraphML data files of scenario files (a family's road network or DAG), read safely with the standard library:
no DOCTYPE or entities, one flat graph, numeric attributes by name (:func:`read_graphml`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["GRAPHML_NS", "GraphMLGraph", "read_graphml"]

#: "no value given" (the scenario-file reader shares it: a refusal without a ``got`` says nothing more)
_MISSING = object()


def _show(v) -> str:
    """A value as an error message shows it: an array by its shape, anything else by a repr of at most 60
    characters (the scenario-file reader's messages use it too)."""
    if isinstance(v, np.ndarray):
        return f"an array of shape {v.shape}"
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."

GRAPHML_NS = "http://graphml.graphdrawing.org/xmlns"


@dataclass(frozen=True, eq=False)
class GraphMLGraph:
    """The graph of a GraphML file as arrays (:meth:`FileReader.graphml`).

    Attributes
    ----------
    ids : tuple of str
        The nodes' GraphML ids; node ``i`` is the ``i``-th ``<node>`` of the document.
    nodes : dict of str to ndarray
        Each asked-for node attribute, float64, one value per node.
    tail, head : ndarray
        int64 node indices of the edges: the ``<edge>`` elements in document order, then (when undirected
        edges are read both ways) the reverse of each undirected one, in the same order.
    edges : dict of str to ndarray
        Each asked-for edge attribute, float64, one value per edge of ``tail``/``head`` (a reversed edge carries
        its undirected edge's values)."""

    ids: tuple[str, ...]
    nodes: dict[str, np.ndarray]
    tail: np.ndarray
    head: np.ndarray
    edges: dict[str, np.ndarray]


class _Refused(Exception):
    """What a GraphML file is not: ``expected`` and, optionally, what it ``got`` (for :meth:`FileReader.error`)."""

    def __init__(self, expected: str, got=_MISSING) -> None:
        super().__init__(expected)
        self.expected, self.got = expected, got


def _number(text: str | None, what: str) -> float:
    """A finite float from a GraphML ``<data>``/``<default>`` text."""
    try:
        v = float((text or "").strip())
    except ValueError:
        raise _Refused(f"a number for {what}", _show((text or "").strip())) from None
    if not math.isfinite(v):
        raise _Refused(f"a finite number for {what}", _show((text or "").strip()))
    return v


def read_graphml(data: bytes, node_attrs: tuple[str, ...], edge_attrs: tuple[str, ...], *,
                 undirected: str = "refuse") -> GraphMLGraph:
    """The graph of the GraphML document ``data`` (http://graphml.graphdrawing.org/specification.html), with the
    numeric node attributes ``node_attrs`` and edge attributes ``edge_attrs`` (the ``attr.name`` of its
    ``<key>`` elements; a key's ``<default>`` stands in for a missing ``<data>``).

    Read with the standard library's ElementTree, which does not fetch external entities; a document with a
    DOCTYPE is refused outright (internal entities are how an "XML bomb" expands a small file into gigabytes).
    One ``<graph>`` only: hyperedges and nested graphs (a ``<graph>`` inside a node or edge) are refused, not
    flattened, since boundcheck's graphs have none and a silent reading would be a different graph. Ports and
    attributes not asked for are ignored. ``undirected``: ``"both"`` reads an undirected edge (the graph's
    ``edgedefault="undirected"``, or an edge's ``directed="false"``) as two directed ones, ``"refuse"`` refuses
    it (a DAG has a direction). Raises :class:`_Refused` (what was expected, what the file holds)."""
    import xml.etree.ElementTree as ET

    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _Refused("a UTF-8 GraphML file", "bytes that are not UTF-8") from None
    upper = text.upper()
    if "<!DOCTYPE" in upper or "<!ENTITY" in upper:
        raise _Refused("a GraphML file without a DOCTYPE or entity declarations (refused: they can expand a small "
                       "file into gigabytes)", "a DOCTYPE" if "<!DOCTYPE" in upper else "an <!ENTITY>")
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise _Refused("a GraphML (XML) file", f"malformed XML ({exc})") from None
    ns = root.tag[1:].partition("}")[0] if root.tag.startswith("{") else ""
    if root.tag not in (f"{{{GRAPHML_NS}}}graphml", "graphml"):
        raise _Refused(f"a GraphML file (a <graphml> root in the namespace {GRAPHML_NS})", f"<{root.tag}>")

    def tag(name: str) -> str:
        return f"{{{ns}}}{name}" if ns else name

    if any(True for _ in root.iter(tag("hyperedge"))):
        raise _Refused("a graph of nodes and edges (hyperedges are not read)", "a <hyperedge>")
    graphs = root.findall(tag("graph"))
    if len(graphs) != 1:
        raise _Refused("exactly one <graph> in the file", f"{len(graphs)} graphs")
    graph = graphs[0]
    if sum(1 for _ in root.iter(tag("graph"))) > 1:
        raise _Refused("a flat graph (nested graphs inside nodes or edges are not read)", "a nested <graph>")
    default_dir = graph.get("edgedefault")
    if default_dir not in ("directed", "undirected"):
        raise _Refused('<graph edgedefault="directed"> or "undirected"', _show(default_dir) if default_dir else "none")

    # <key id=… for=… attr.name=…>: which data key is which attribute, and its default
    keys: dict[str, dict[str, tuple[str, str | None]]] = {"node": {}, "edge": {}}
    for k in root.findall(tag("key")):
        kid, dom, name = k.get("id"), k.get("for", "all"), k.get("attr.name")
        if kid is None:
            raise _Refused("an id on every <key>")
        dflt = k.find(tag("default"))
        for d in (("node", "edge") if dom == "all" else (dom,) if dom in keys else ()):
            keys[d][kid] = (name or kid, None if dflt is None else dflt.text)

    def values(el, domain: str, want: tuple[str, ...], label: str) -> list[float]:
        given = {}
        for d in el.findall(tag("data")):
            kid = d.get("key")
            if kid not in keys[domain]:
                raise _Refused(f"<data key> declared by a <key for=\"{domain}\">", f"key {_show(kid)} on {label}")
            given[keys[domain][kid][0]] = d.text
        by_name = {name: dflt for name, dflt in keys[domain].values()}
        out = []
        for a in want:
            if a in given:
                out.append(_number(given[a], f"{a} of {label}"))
            elif by_name.get(a) is not None:
                out.append(_number(by_name[a], f"{a} of {label} (its key's <default>)"))
            else:
                raise _Refused(f"every {domain} to have {a} (<key attr.name=\"{a}\" for=\"{domain}\"> and a <data> "
                               "or <default>)", f"{label} without it")
        return out

    index: dict[str, int] = {}
    node_vals = []
    for el in graph.findall(tag("node")):
        nid = el.get("id")
        if nid is None:
            raise _Refused("an id on every <node>")
        if nid in index:
            raise _Refused("distinct node ids", f"{_show(nid)} twice")
        index[nid] = len(index)
        node_vals.append(values(el, "node", node_attrs, f"node {_show(nid)}"))
    if not index:
        raise _Refused("a graph with nodes", "no <node>")
    tail, head, edge_vals, both = [], [], [], []
    for el in graph.findall(tag("edge")):
        src, dst = el.get("source"), el.get("target")
        label = f"edge {_show(el.get('id'))}" if el.get("id") else f"edge {_show(src)} → {_show(dst)}"
        for end in (src, dst):
            if end not in index:
                raise _Refused("edges between the file's nodes", f"{label} to unknown node {_show(end)}")
        flag = el.get("directed")
        if flag not in (None, "true", "false"):
            raise _Refused('directed="true" or "false" on an edge', f"{label}: {_show(flag)}")
        undirected_edge = flag == "false" or (flag is None and default_dir == "undirected")
        if undirected_edge and undirected != "both":
            raise _Refused("a directed graph (edgedefault=\"directed\", no edge directed=\"false\")",
                           f"undirected {label}")
        tail.append(index[src])
        head.append(index[dst])
        edge_vals.append(values(el, "edge", edge_attrs, label))
        both.append(undirected_edge)
    if not tail:
        raise _Refused("a graph with edges", "no <edge>")
    # the reverse of each undirected edge after the document's edges: the layout of road_network's arrays
    rev = [i for i, b in enumerate(both) if b]
    tail, head = tail + [head[i] for i in rev], head + [tail[i] for i in rev]
    edge_vals = edge_vals + [edge_vals[i] for i in rev]
    nv = np.array(node_vals, dtype=np.float64).reshape(len(node_vals), len(node_attrs))
    ev = np.array(edge_vals, dtype=np.float64).reshape(len(edge_vals), len(edge_attrs))
    return GraphMLGraph(ids=tuple(index), nodes={a: np.ascontiguousarray(nv[:, i]) for i, a in enumerate(node_attrs)},
                        tail=np.array(tail, dtype=np.int64), head=np.array(head, dtype=np.int64),
                        edges={a: np.ascontiguousarray(ev[:, i]) for i, a in enumerate(edge_attrs)})
