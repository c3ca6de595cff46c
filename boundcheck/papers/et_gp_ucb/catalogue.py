"""Scenarios of paper 001 (ET-GP-UCB; Sec. 5, docs/papers/et_gp_ucb.md): the within-model comparison on [0,1]², its fast
20×20 variant, the misspecified-ε panel (Fig. 2 d), the static settings of Lemma 3 with their negative controls,
and small 1-d settings for tests.

The paper does not say how it discretised [0,1]² (Sec. 5): every scenario here is a regular grid with
an exact argmax [PROPOSED], 30×30 for the paper's settings (it reproduces Table 2: docs/papers/et_gp_ucb.md).
Scenarios ending in ``_paper`` run the experiments' practical β_t = 0.4 log(4t) for every algorithm (Table 4); the
others run each algorithm's theoretical β (what the regret theorems need).

Every scenario is a file of the family ``et_gp_ucb.eps_chain`` in ``scenarios/`` (docs/scenarios.md): the model
and the truth each with their own kernel, lengthscale and ε, the data's noise, the algorithms' settings.
:func:`tv_grid` builds the same scenario from Python (sweeps and benchmarks use it).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np

from boundcheck.model.domains import grid
from boundcheck.model.kernels import RBF, Kernel, Matern
from boundcheck.model.priors import GPPrior
from boundcheck.papers.et_gp_ucb.world import FactoredGPPrior, TVScenario, assumption3_se, check_grid_size
from boundcheck.utils.validation import check_choice, check_int, check_positive, check_unit_interval
from boundcheck.world.actions import AlwaysAvailable
from boundcheck.world.scenario_files import (
    COMMON_PROPERTIES,
    FileFamily,
    FileReader,
    finish_common,
    object_schema,
    read_common,
)

__all__ = ["tv_grid", "KERNELS", "FILE_FAMILIES", "SCENARIO_DIR"]


#: the kernels of an ε chain: name -> (kernel of a lengthscale, its label)
KERNELS: dict[str, tuple[Callable[[float], Kernel], str]] = {
    "se": (RBF, "SE"),
    "matern12": (lambda ell: Matern(0.5, ell), "Matérn-1/2"),
    "matern32": (lambda ell: Matern(1.5, ell), "Matérn-3/2"),
    "matern52": (lambda ell: Matern(2.5, ell), "Matérn-5/2"),
}


@cache
def _prior(points_per_axis: int, dim: int, lengthscale: float, eps: float, kernel: str = "se") -> GPPrior:
    X = grid(points_per_axis, dim).points
    make, label = KERNELS[kernel]
    K = make(lengthscale).gram(X)
    return FactoredGPPrior(f"GP(0, {label} ℓ = {lengthscale:g}), ε = {eps:g}", np.zeros(X.shape[0]), K, eps)


def tv_grid(name: str, *, points_per_axis: int = 30, dim: int = 2, lengthscale: float = 0.2,
            noise_var: float = 0.02, eps: float = 0.03, horizon: int = 400, delta: float = 0.1,
            beta_rule: str = "theory", c1: float = 0.4, c2: float = 4.0, delta_B: float = 0.1,
            reset_N: int | None = None, tv_eps: float | None = None, truth_lengthscale: float | None = None,
            data_noise_var: float | None = None, description: str = "", steps_detail: str = "full",
            kernel: str = "se", truth_kernel: str | None = None, truth_eps: float | None = None) -> TVScenario:
    """A scenario of paper 001 on the regular ``points_per_axis^dim`` grid in [0,1]^dim.

    The model is the ε chain of GP(0, ``kernel`` ℓ) (``kernel`` ∈ :data:`KERNELS`); the truth is the same chain
    unless ``truth_kernel``, ``truth_lengthscale`` or ``truth_eps`` says otherwise (then it is outside the
    candidates: out of theory), and the data noise is N(0, ``noise_var``) (``data_noise_var`` makes it differ
    from the model's: out of theory). Every algorithm knows the model's kernel and noise (within-model
    comparison). Assumption 3's constants are derived for the SE kernel only (:func:`assumption3_se`); a
    Matérn model leaves them unestablished (the predicate ``assumption3_constants`` fails)."""
    n_axis = check_int("grid points per axis", points_per_axis)
    dim = check_int("dimension", dim, maximum=3)
    n = check_grid_size(n_axis**dim)
    eps = check_unit_interval("eps", eps)
    noise_var = check_positive("noise variance", noise_var)
    check_choice("kernel", kernel, tuple(KERNELS))
    lengthscale = check_positive("lengthscale", lengthscale)
    model = _prior(n_axis, dim, float(lengthscale), eps, kernel)
    truth, truth_index, reasons = model, 0, []
    t_kernel = kernel if truth_kernel is None else check_choice("truth kernel", truth_kernel, tuple(KERNELS))
    t_ell = lengthscale if truth_lengthscale is None else check_positive("truth lengthscale", truth_lengthscale)
    t_eps = eps if truth_eps is None else check_unit_interval("truth eps", truth_eps)
    if (t_kernel, t_ell, t_eps) != (kernel, lengthscale, eps):
        truth, truth_index = _prior(n_axis, dim, float(t_ell), t_eps, t_kernel), None
        if t_kernel != kernel:
            reasons.append(f"the truth has kernel {KERNELS[t_kernel][1]}, the model {KERNELS[kernel][1]}")
        if t_ell != lengthscale:
            reasons.append(f"the truth has lengthscale {t_ell:g}, the model {lengthscale:g}")
        if t_eps != eps:
            reasons.append(f"the truth has ε = {t_eps:g}, the model {eps:g}")
    noise_law = "gaussian"
    if data_noise_var is not None and check_positive("data noise", data_noise_var) != noise_var:
        # the data's noise law scaled (boundcheck.model.noise); every model keeps σ_n² = noise_var
        noise_law = f"gaussian:{math.sqrt(data_noise_var / noise_var)!r}"
        reasons.append(f"the data noise variance is {data_noise_var:g}, the model's {noise_var:g}")
    beta_text = ("each algorithm's theoretical β_t" if beta_rule == "theory"
                 else f"the practical β_t = {c1:g} log({c2:g} t) for every algorithm")
    base = (f"[0,1]^{dim} on a {n_axis}^{dim} grid (M = {n}), f_t the ε = {eps:g} chain of GP(0, {KERNELS[kernel][1]} "
            f"ℓ = {lengthscale:g}), σ_n² = {noise_var:g}, T = {horizon}; {beta_text}; δ_B = {delta_B:g}.")
    return TVScenario(
        name=name, description=(description + " " + base).strip(), domain=grid(n_axis, dim),
        availability=AlwaysAvailable(n), candidates=(model,), truth=truth, truth_index=truth_index,
        noise=math.sqrt(noise_var), noise_law=noise_law, horizon=check_int("horizon", horizon), delta=delta,
        reference_index=None if truth_index == 0 else 0, in_theory=not reasons,
        out_of_theory_reason="; ".join(reasons),
        notes=("grid discretisation with exact argmax [PROPOSED]: the paper does not state its own",
               "common random numbers: every algorithm sees the same f path and noise [PROPOSED]"),
        beta_rule=beta_rule, c1=c1, c2=c2, delta_B=delta_B, reset_N=reset_N, tv_eps=tv_eps,
        dim=dim, side=1.0, steps_detail=steps_detail,
        **(assumption3_se(float(lengthscale), dim, n) if kernel == "se" else {}),
    )


# ------------------------------------------------------------------------------------------ scenario files
_POS = {"type": "number", "exclusiveMinimum": 0}
_UNIT = {"type": "number", "minimum": 0, "maximum": 1}
_GP = {"kernel": {"enum": list(KERNELS), "description": "the chain's kernel (default se)"},
       "lengthscale": {**_POS, "description": "ℓ of the kernel"},
       "eps": {**_UNIT, "description": "the chain's ε: f_{t+1} = √(1−ε) f_t + √ε g_{t+1} (Assumption 2)"},
       "noise_var": {**_POS, "description": "σ_n², the noise variance"}}

SCHEMA = object_schema({
    **COMMON_PROPERTIES,
    "family": {"const": "et_gp_ucb.eps_chain"},
    "grid": object_schema({"points_per_axis": {"type": "integer", "minimum": 1},
                           "dim": {"type": "integer", "minimum": 1, "maximum": 3}}, ("points_per_axis", "dim"),
                          "X: the regular points_per_axis^dim grid of [0,1]^dim (exact argmax)"),
    "model": object_schema(_GP, ("lengthscale", "eps", "noise_var"),
                           "the ε chain and the noise every algorithm is given"),
    "truth": object_schema(_GP, (), "the chain f_t is drawn from and the data's noise variance; a key left out "
                                    "is the model's (no [truth]: the model itself, in theory). Any difference "
                                    "puts the scenario out of theory, with the difference as its reason"),
    "algorithms": object_schema({
        "beta_rule": {"enum": ["theory", "practical"], "description": "theory: each algorithm's theorem β_t; "
                                                                      "practical: c1 log(c2 t) for all"},
        "c1": _POS, "c2": _POS,
        "delta_B": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1,
                    "description": "ET-GP-UCB's trigger parameter δ_B"},
        "reset_N": {"type": "integer", "minimum": 1, "description": "R-GP-UCB's period (default ⌈min{T, 12ε^−¼}⌉)"},
        "tv_eps": {**_UNIT, "description": "the ε TV-GP-UCB is told (default the truth's)"},
        "steps_detail": {"enum": ["full", "resets"]}}, (), "what the algorithms are run with (optional)"),
}, ("family", "name", "horizon", "delta", "grid", "model"))


def _read_gp(f: FileReader, t: dict, path: str) -> dict:
    out = {}
    if "kernel" in t:
        out["kernel"] = f.text(t, "kernel", path, choices=tuple(KERNELS))
    for key, what, high in (("lengthscale", "a positive lengthscale", None), ("eps", "an ε in [0, 1]", 1.0),
                            ("noise_var", "a positive noise variance", None)):
        if key in t:
            out[key] = f.number(t, key, path, low=0.0, high=high, strict_low=key != "eps", what=what)
    return out


def parse_eps_chain(f: FileReader, root: dict) -> TVScenario:
    """The scenario of an ``et_gp_ucb.eps_chain`` file (:data:`SCHEMA`), built by :func:`tv_grid`."""
    common = read_common(f, root)
    g = f.table(root, "grid", "", SCHEMA["properties"]["grid"])
    dim = f.integer(g, "dim", "grid")
    if dim > 3:
        raise f.error("grid.dim", "1, 2 or 3", g["dim"])
    model = _read_gp(f, f.table(root, "model", "", SCHEMA["properties"]["model"]), "model")
    truth = _read_gp(f, f.table(root, "truth", "", SCHEMA["properties"]["truth"], default={}), "truth")
    alg_t = f.table(root, "algorithms", "", SCHEMA["properties"]["algorithms"], default={})
    alg: dict = {}
    if "beta_rule" in alg_t:
        alg["beta_rule"] = f.text(alg_t, "beta_rule", "algorithms", choices=("theory", "practical"))
    for key in ("c1", "c2"):
        if key in alg_t:
            alg[key] = f.number(alg_t, key, "algorithms", low=0.0, strict_low=True, what="a positive number")
    if "delta_B" in alg_t:
        alg["delta_B"] = f.number(alg_t, "delta_B", "algorithms", low=0.0, high=1.0, strict_low=True,
                                  what="a probability δ_B in (0, 1)")
    if "reset_N" in alg_t:
        alg["reset_N"] = f.integer(alg_t, "reset_N", "algorithms")
    if "tv_eps" in alg_t:
        alg["tv_eps"] = f.number(alg_t, "tv_eps", "algorithms", low=0.0, high=1.0, what="an ε in [0, 1]")
    if "steps_detail" in alg_t:
        alg["steps_detail"] = f.text(alg_t, "steps_detail", "algorithms", choices=("full", "resets"))
    kw = dict(points_per_axis=f.integer(g, "points_per_axis", "grid"), dim=dim, kernel=model.get("kernel", "se"),
              lengthscale=model["lengthscale"], eps=model["eps"], noise_var=model["noise_var"],
              horizon=common.horizon, delta=common.delta, description=common.description, **alg)
    for key, arg in (("kernel", "truth_kernel"), ("lengthscale", "truth_lengthscale"), ("eps", "truth_eps"),
                     ("noise_var", "data_noise_var")):
        if key in truth:
            kw[arg] = truth[key]
    sc = f.build(tv_grid, common.name, **kw)
    return finish_common(f, sc, common)


FILE_FAMILIES = (FileFamily("et_gp_ucb.eps_chain", parse_eps_chain, SCHEMA,
                            "paper 001's ε chains on a grid of [0,1]^d: a model and a truth, each with its own "
                            "kernel, lengthscale and ε (Assumption 2), the data's noise, the algorithms' β"),)

#: the paper's scenario files (registered under their file names)
SCENARIO_DIR = Path(__file__).parent / "scenarios"
