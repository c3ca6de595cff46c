"""Scenarios of Zhou & Shroff (2021) (paper 003): drifting RKHS functions with an exact norm and an exact variation
budget (docs/papers/r_sw_gp_ucb.md). The paper has no experiments; these are boundcheck's
[PROPOSED] ones: 100-point 1-d grid and 20×20 grid, SE and Matérn-5/2 (ℓ = 0.2), B ∈ {1, 3}, R ∈ {0.01, 0.1},
δ = 0.1, P_T ∈ {0, 1, 5, 25}, Gaussian and Rademacher noise, λ ∈ {1, 1 + 2/H}, H = w from Remark (2).

Every scenario records max_t ‖f_t‖_k and the budget exactly (the sequence's design; the realised budget of each
run lands in the runs table); the algorithms are given B = max_t ‖f_t‖_k and the theorem P_T.

Every scenario is a file of the family ``r_sw_gp_ucb.variation_budget`` in ``scenarios/`` (docs/scenarios.md);
:func:`vb_scenario` builds the same scenario from Python (sweeps and benchmarks use it).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np

from boundcheck.errors import BoundcheckError
from boundcheck.model.domains import grid
from boundcheck.model.kernels import RBF, Kernel, Matern
from boundcheck.model.noise import NOISE_LAWS, describe_noise_law
from boundcheck.model.priors import GPPrior
from boundcheck.model.variation import VariationBudgetSequence, remark_window
from boundcheck.utils.validation import check_choice, check_int, check_positive
from boundcheck.world.actions import AlwaysAvailable
from boundcheck.world.scenario import Scenario
from boundcheck.world.scenario_files import (
    COMMON_PROPERTIES,
    FileFamily,
    FileReader,
    finish_common,
    object_schema,
    read_common,
)

__all__ = ["vb_scenario", "KERNELS", "FILE_FAMILIES", "SCENARIO_DIR", "HORIZON"]

HORIZON = 1000
#: the kernels of the sequences: name -> (kernel of a lengthscale, its label)
KERNELS: dict[str, tuple[Callable[[float], Kernel], str]] = {
    "se": (RBF, "SE"), "matern": (lambda ell: Matern(2.5, ell), "Matérn-5/2")}
_WHERE = re.compile(r"^(line(\d+)|grid(\d+)x\3)$")


@cache
def _domain(which: str, anchors_per_axis: int | None = None):
    """The domain (``lineN``: N points on a regular grid of [0,1]; ``gridNxN``: the N×N grid of [0,1]²) and its
    anchors z_i: ``anchors_per_axis`` (default 8 on a line, 5 per axis on a grid) evenly spread points, about one
    length scale apart at ℓ = 0.2, so that K_Z is well conditioned."""
    m = _WHERE.match(which) if isinstance(which, str) else None
    if m is None:
        raise BoundcheckError(f"unknown variation-budget domain {which!r}: 'lineN' or 'gridNxN' (e.g. line100, "
                              "grid20x20)")
    if m.group(2):
        n = check_int("points of the line", int(m.group(2)), minimum=2)
        a = check_int("anchors", 8 if anchors_per_axis is None else anchors_per_axis, minimum=2, maximum=n)
        dom = grid(n, 1)
        anchors = np.round(np.linspace(0, n - 1, a)).astype(np.int64)
    else:
        n = check_int("points per axis of the grid", int(m.group(3)), minimum=2)
        a = check_int("anchors per axis", 5 if anchors_per_axis is None else anchors_per_axis, minimum=2, maximum=n)
        dom = grid(n, 2)
        ax = np.round(np.linspace(0, n - 1, a)).astype(np.int64)
        anchors = (ax[:, None] * n + ax[None, :]).ravel()
    return dom, anchors


@cache
def _gram(kernel: str, which: str, lengthscale: float = 0.2) -> np.ndarray:
    dom, _ = _domain(which)
    K = KERNELS[kernel][0](lengthscale).gram(dom.points)
    K.setflags(write=False)
    return K


def vb_scenario(name: str, kind: str, P_T: float, *, kernel: str = "se", where: str = "line100", B: float = 1.0,
                R: float = 0.1, noise_law: str = "gaussian", lam: str = "1", given_P_T: float | None = None,
                horizon: int = HORIZON, note: str = "", in_theory: bool = True, reason: str = "",
                lengthscale: float = 0.2, anchors_per_axis: int | None = None, switches: int | None = None,
                delta: float = 0.1) -> Scenario:
    """A variation-budget scenario: ``kind`` ∈ {rotation, switch, random_walk}, budget ``P_T`` over ``horizon``,
    ``kernel`` ∈ {se, matern} (Matérn-5/2) with ``lengthscale``, ``where`` ∈ {lineN, gridNxN} (line100,
    grid20x20) with ``anchors_per_axis`` anchors, ‖f_t‖_k = ``B``, ``switches`` (M of a switching sequence;
    default ⌈P_T/(2B)⌉), noise ``R`` with ``noise_law``, λ rule ``lam`` ∈ {"1", "1+2/H"}, ``given_P_T``: the
    budget the theorem is told (default the true one). Parameter sweeps (P_T, T, B, R, …) build their scenarios
    with this function; the built-in scenarios are files of the family ``r_sw_gp_ucb.variation_budget``."""
    check_choice("kernel", kernel, tuple(KERNELS))
    lengthscale = check_positive("lengthscale", lengthscale)
    dom, anchors = _domain(where, anchors_per_axis)
    K = _gram(kernel, where, lengthscale)
    label = f"{KERNELS[kernel][1]} ℓ = {lengthscale:g}"
    seq = VariationBudgetSequence(f"{kind} (P_T = {P_T:g})", K, kind, B, P_T, horizon, anchors=anchors,
                                  switches=switches)
    model = GPPrior(f"GP(0, {label})", np.zeros(dom.n), K, 0.0)
    theorem_P = P_T if given_P_T is None else given_P_T
    window = remark_window(K, horizon, theorem_P)
    m = _WHERE.match(where)
    where_text = (f"{m.group(2)} points on a regular grid of [0,1]" if m.group(2) else
                  f"{m.group(3)}×{m.group(3)} regular grid of [0,1]²")
    lam_text = "λ = 1" if lam == "1" else "λ = 1 + 2/H"
    desc = (f"Drifting f_t on {where_text}, k = {label}: {seq.describe()}; a fresh sequence per run "
            f"(random directions); noise {describe_noise_law(noise_law, R)}; B = {B:g} and P_T = {theorem_P:g} "
            f"given; H = w = {window} (Remark (2), γ̄_T at λ = 1); {lam_text}.")
    if note:
        desc += " " + note
    return Scenario(
        name=name, description=desc, domain=dom, availability=AlwaysAvailable(dom.n), candidates=(model,),
        truth=seq, truth_index=None, reference_index=0, noise=R, horizon=horizon, delta=delta, B=B,
        model_noise=lam, gamma_rule="certified", noise_law=noise_law, P_T=given_P_T, window=window,
        window_rule="remark", in_theory=in_theory, out_of_theory_reason=reason,
        notes=(f"anchors: {anchors.size} domain points; f_t = Φθ_t with ‖f_t‖_k = ‖θ_t‖ exactly (eigenbasis of K_Z)",
               "H and w follow the horizon: re-derived by Remark (2) when T changes"))


# ------------------------------------------------------------------------------------------ scenario files
_POS = {"type": "number", "exclusiveMinimum": 0}
_LAW = "^(" + "|".join(NOISE_LAWS) + ")(:[0-9.eE+-]+)?$"

SCHEMA = object_schema({
    **COMMON_PROPERTIES,
    "family": {"const": "r_sw_gp_ucb.variation_budget"},
    "description": {"type": "string", "description": "added after the generated description"},
    "noise": {**_POS, "description": "R: the noise level every model uses"},
    "noise_law": {"type": "string", "pattern": _LAW,
                  "description": "the data's noise: gaussian N(0, R²) or rademacher ±R; ':c' scales it by c (c > 1: "
                                 "not R-sub-Gaussian, out of theory)"},
    "domain": object_schema({
        "line": {"type": "integer", "minimum": 2, "description": "N points on a regular grid of [0,1]"},
        "grid": {"type": "integer", "minimum": 2, "description": "the N×N regular grid of [0,1]²"},
        "anchors_per_axis": {"type": "integer", "minimum": 2,
                             "description": "anchors z_i spanning the RKHS directions (default 8 on a line, 5 per "
                                            "axis on a grid)"}},
        (), "exactly one of line, grid", minProperties=1),
    "kernel": object_schema({"family": {"enum": list(KERNELS), "description": "se, or matern (Matérn-5/2)"},
                             "lengthscale": _POS}, ("family", "lengthscale")),
    "sequence": object_schema({
        "kind": {"enum": ["rotation", "switch", "random_walk"]},
        "P_T": {"type": "number", "minimum": 0, "description": "the variation budget Σ‖f_{t+1} − f_t‖_k over T"},
        "B": {**_POS, "description": "‖f_t‖_k = B for every t"},
        "switches": {"type": "integer", "minimum": 1, "description": "M, switch only (default ⌈P_T/(2B)⌉)"}},
        ("kind", "P_T", "B"), "f_1..f_T, a fresh sequence per run (exact norm and budget)"),
    "theorem": object_schema({
        "P_T": {"type": "number", "minimum": 0, "description": "the budget the theorem is told (default the "
                                                              "sequence's; smaller: out of theory)"},
        "lambda": {"enum": ["1", "1+2/H"], "description": "the models' λ"}}, (),
        "what the theorems and algorithms are given (optional)"),
}, ("family", "name", "horizon", "delta", "noise", "domain", "kernel", "sequence"))


def parse_variation_budget(f: FileReader, root: dict) -> Scenario:
    """The scenario of an ``r_sw_gp_ucb.variation_budget`` file (:data:`SCHEMA`), built by :func:`vb_scenario`."""
    common = read_common(f, root)
    props = SCHEMA["properties"]
    d = f.table(root, "domain", "", props["domain"])
    kinds = [k for k in ("line", "grid") if k in d]
    if len(kinds) != 1:
        raise f.error("domain", "exactly one of line, grid", ", ".join(kinds) or "none")
    n = f.integer(d, kinds[0], "domain", minimum=2)
    if (n if kinds[0] == "line" else n * n) > 4096:  # n × n kernel matrices beyond this do not fit a workstation
        raise f.error(f"domain.{kinds[0]}", "at most 4096 points" + ("" if kinds[0] == "line" else " (N² ≤ 4096)"), n)
    where = f"line{n}" if kinds[0] == "line" else f"grid{n}x{n}"
    k = f.table(root, "kernel", "", props["kernel"])
    seq = f.table(root, "sequence", "", props["sequence"])
    th = f.table(root, "theorem", "", props["theorem"], default={})
    kw: dict = dict(
        where=where, kernel=f.text(k, "family", "kernel", choices=tuple(KERNELS)),
        lengthscale=f.number(k, "lengthscale", "kernel", low=0.0, strict_low=True, what="a positive lengthscale"),
        B=f.number(seq, "B", "sequence", low=0.0, strict_low=True, what="a positive norm B"),
        R=f.number(root, "noise", "", low=0.0, strict_low=True, what="a positive noise level R"),
        noise_law=f.text(root, "noise_law", "", default="gaussian"), horizon=common.horizon, delta=common.delta,
        note=common.description)
    kind = f.text(seq, "kind", "sequence", choices=("rotation", "switch", "random_walk"))
    P_T = f.number(seq, "P_T", "sequence", low=0.0, what="a budget P_T ≥ 0")
    if "anchors_per_axis" in d:
        kw["anchors_per_axis"] = f.integer(d, "anchors_per_axis", "domain", minimum=2)
    if "switches" in seq:
        if kind != "switch":
            raise f.error("sequence.switches", "no switches for kind = " + repr(kind))
        kw["switches"] = f.integer(seq, "switches", "sequence")
    if "P_T" in th:
        kw["given_P_T"] = f.number(th, "P_T", "theorem", low=0.0, what="a budget P_T ≥ 0")
    if "lambda" in th:
        kw["lam"] = f.text(th, "lambda", "theorem", choices=("1", "1+2/H"))
    sc = f.build(vb_scenario, common.name, kind, P_T, **kw)
    return finish_common(f, sc, common)


BOX_SCHEMA = object_schema({
    **COMMON_PROPERTIES,
    "family": {"const": "r_sw_gp_ucb.variation_budget_box"},
    "description": {"type": "string", "description": "added after the generated description"},
    "noise": {**_POS, "description": "R: the noise level every model uses (Gaussian N(0, R²))"},
    "box": object_schema({
        "anchors": {"type": "integer", "minimum": 2, "description": "anchors c_j evenly spaced in [0, 1] (8)"},
        "window": {"type": "integer", "minimum": 1, "description": "H = w, the restart period / window (30)"}},
        (), "the drifting truth on the box [0, 1] (1-d): its anchors and the algorithms' H = w"),
    "kernel": object_schema({"family": {"enum": ["se"], "description": "se (the box's RKHS truths)"},
                             "lengthscale": _POS}, ("family", "lengthscale")),
    "sequence": SCHEMA["properties"]["sequence"],
    "theorem": object_schema({
        "P_T": {"type": "number", "minimum": 0, "description": "the budget the theorem is told (default the "
                                                              "sequence's; smaller: out of theory)"}}, (),
        "what the theorems are given (optional)"),
}, ("family", "name", "horizon", "delta", "noise", "kernel", "sequence"))


def parse_variation_budget_box(f: FileReader, root: dict) -> Scenario:
    """The scenario of an ``r_sw_gp_ucb.variation_budget_box`` file (:data:`BOX_SCHEMA`): a drifting RKHS truth
    on the box [0, 1], built by :func:`.compact.vb_box_scenario` (the compact theorems')."""
    from .compact import vb_box_scenario

    common = read_common(f, root)
    props = BOX_SCHEMA["properties"]
    b = f.table(root, "box", "", props["box"], default={})
    k = f.table(root, "kernel", "", props["kernel"])
    seq = f.table(root, "sequence", "", props["sequence"])
    th = f.table(root, "theorem", "", props["theorem"], default={})
    f.text(k, "family", "kernel", choices=("se",))
    kind = f.text(seq, "kind", "sequence", choices=("rotation", "switch", "random_walk"))
    kw: dict = dict(
        P_T=f.number(seq, "P_T", "sequence", low=0.0, what="a budget P_T ≥ 0"),
        B=f.number(seq, "B", "sequence", low=0.0, strict_low=True, what="a positive norm B"),
        R=f.number(root, "noise", "", low=0.0, strict_low=True, what="a positive noise level R"),
        lengthscale=f.number(k, "lengthscale", "kernel", low=0.0, strict_low=True, what="a positive lengthscale"),
        anchors=f.integer(b, "anchors", "box", default=8, minimum=2),
        window=f.integer(b, "window", "box", default=30), description=common.description)
    if common.horizon is not None:
        kw["horizon"] = common.horizon
    if common.delta is not None:
        kw["delta"] = common.delta
    if "switches" in seq:
        if kind != "switch":
            raise f.error("sequence.switches", "no switches for kind = " + repr(kind))
        kw["switches"] = f.integer(seq, "switches", "sequence")
    if "P_T" in th:
        kw["given_P_T"] = f.number(th, "P_T", "theorem", low=0.0, what="a budget P_T ≥ 0")
    sc = f.build(vb_box_scenario, common.name, kind, **kw)
    return finish_common(f, sc, common)


FILE_FAMILIES = (FileFamily("r_sw_gp_ucb.variation_budget", parse_variation_budget, SCHEMA,
                            "paper 003's drifting RKHS functions: rotation, switches or a random walk with an exact "
                            "norm B and variation budget P_T, the noise law, the λ and P_T the theorem is given"),
                 FileFamily("r_sw_gp_ucb.variation_budget_box", parse_variation_budget_box, BOX_SCHEMA,
                            "paper 003's drifting RKHS functions on the compact box [0, 1] (the compact theorems): "
                            "the sequence, its anchors, H = w and the P_T the theorem is given"))

#: the paper's scenario files (registered under their file names)
SCENARIO_DIR = Path(__file__).parent / "scenarios"
