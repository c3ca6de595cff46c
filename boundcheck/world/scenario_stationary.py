"""The ``stationary`` family of scenario files (the default): candidate priors, a GP or RKHS truth, a domain, a
kernel, generated constants. Its keys are documented in docs/scenarios.md; :func:`parse_stationary` reads a file
with the shared :class:`~boundcheck.world.scenario_reader.FileReader`, so its errors read like every family's."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping

import numpy as np

from ..errors import BoundcheckError
from ..model.domains import FiniteDomain, grid
from ..model.kernels import KERNEL_NAMES, make_kernel
from ..model.priors import GPPrior, RKHSFamily
from .actions import AlternatingAvailability, AlwaysAvailable, TopK
from .scenario import Scenario
from .scenario_reader import (
    _INT,
    _NUM,
    _STR,
    COMMON_PROPERTIES,
    FORMAT,
    MAX_DOMAIN_DIM,
    MAX_DOMAIN_POINTS,
    FileReader,
    ScenarioFileError,
    _delta,
    object_schema,
    theory_label,
)

__all__ = ["STATIONARY", "parse_stationary", "stationary_schema"]

STATIONARY = "stationary"
_ROOT_KEYS = {"format", "family", "name", "description", "notes", "horizon", "delta", "noise", "runs", "in_theory",
              "out_of_theory_reason", "model_noise", "B", "gamma_rule", "gamma_rate_params", "generator", "domain",
              "kernel", "priors", "truth", "availability", "actions"}
#: root keys only a box file (``[domain] box = …``, boundcheck.world.box_scenario) takes
BOX_ONLY_KEYS = {"continuum", "noise_law"}


def stationary_schema() -> dict:
    """The JSON Schema of a ``stationary`` file's root table (one branch of
    :func:`~boundcheck.world.scenario_files.schema`)."""
    kernel = object_schema({
        "family": {"enum": sorted({*KERNEL_NAMES, "matern", "rbf_paper", "linear"})},
        "lengthscale": {"type": "number", "exclusiveMinimum": 0}, "variance": {"type": "number",
                                                                               "exclusiveMinimum": 0},
        "nu": {"enum": [0.5, 1.5, 2.5]}, "l": {"type": "number", "exclusiveMinimum": 0},
        "matrix": {"oneOf": [{"type": "array"}, {"type": "string", "pattern": "^\\$"}]}},
        description="the kernel: family and its parameters, or matrix = an n × n Gram matrix")
    ref = {"type": "string", "pattern": "^\\$\\w+(\\[\\d+\\])?$", "description": "a generated value"}
    mean = {"oneOf": [_NUM, {"type": "array", "items": _NUM}, ref]}
    gp = object_schema({"name": _STR, "mean": mean, "eps": {"type": "number", "minimum": 0, "maximum": 1},
                        "kernel": kernel}, ("name",))
    box = object_schema({"n": _INT, "dim": _INT, "low": _NUM, "high": _NUM})
    props = {
        **{k: v for k, v in COMMON_PROPERTIES.items() if k != "in_theory"},
        "family": {"const": STATIONARY},
        "in_theory": {"type": "boolean"},
        "noise": {"type": "number", "exclusiveMinimum": 0, "description": "R, the noise standard deviation"},
        "model_noise": {"enum": ["R2", "1+2/T"]}, "B": {"type": "number", "exclusiveMinimum": 0},
        "gamma_rule": {"type": "string", "pattern": "^(certified|rate:(se|matern|constant))$"},
        "gamma_rate_params": {"type": "object", "additionalProperties": _NUM},
        "generator": {"type": "object", "required": ["name"], "properties": {"name": _STR},
                      "description": "a registered generator and its parameters"},
        "domain": object_schema({"grid": {**box, "required": ["n"]}, "uniform": object_schema(
            {"n": _INT, "dim": _INT, "seed": {"type": "integer"}}), "indices": object_schema({"n": _INT}),
            "csv": _STR, "points": {"oneOf": [{"type": "array"}, ref]}, "name": _STR,
            "box": object_schema({"dim": {"type": "integer", "minimum": 1, "maximum": 3}, "low": _NUM, "high": _NUM},
                                 ("dim",), description="a compact box [low, high]^dim (compact-domain theorems)")},
            description="exactly one of grid, uniform, indices, csv, points, box"),
        "continuum": object_schema({"sobol": _INT, "starts": _INT, "certify": {"type": "boolean"},
                                    "kernel_tol": {"type": "number", "exclusiveMinimum": 0}},
                                   description="box scenarios: the acquisition optimiser's Sobol candidates and "
                                               "starts per step, a certified optimiser gap, the truth's kernel error"),
        "noise_law": {"type": "string", "description": "box scenarios: gaussian or gaussian:<scale>"},
        "kernel": kernel,
        "priors": {"type": "array", "minItems": 1, "items": gp},
        "truth": object_schema({"prior": _STR, "gp": gp, "rkhs": object_schema(
            {"name": _STR, "generator": {"enum": ["posterior_mean", "fixed", "values"]},
             "norm": {"type": "number", "exclusiveMinimum": 0}, "gen_noise_var": {"type": "number"},
             "alpha": {"oneOf": [{"type": "array"}, ref]}, "values": {"oneOf": [{"type": "array"}, ref]},
             "kernel": kernel}, ("generator",)), "reference": _STR},
            description="exactly one of prior, gp, rkhs (+ reference for gp and rkhs)"),
        "availability": object_schema({"kind": {"enum": ["always", "alternating"]}, "exclude_box": object_schema(
            {"centre": {"type": "array", "items": _NUM}, "half_width": _NUM}, ("centre", "half_width")),
            "restricted": {"oneOf": [{"type": "array"}, ref]}, "note": _STR}),
        "actions": object_schema({"top_k": _INT}, ("top_k",)),
    }
    return object_schema(props, ("name", "horizon", "delta", "noise", "domain", "priors", "truth"))


def _signature_accepts(fn, name: str) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def _has_ref(obj) -> bool:
    if isinstance(obj, str):
        return obj.startswith("$")
    if isinstance(obj, dict):
        return any(_has_ref(v) for v in obj.values())
    if isinstance(obj, list):
        return any(_has_ref(v) for v in obj)
    return False


def _domain(f: FileReader, table) -> FiniteDomain:
    t = f.keys(table, "domain", {"grid", "uniform", "indices", "csv", "points", "name"})
    kinds = [k for k in ("grid", "uniform", "indices", "csv", "points") if k in t]
    if len(kinds) != 1:
        raise f.error("domain", "exactly one of grid, uniform, indices, csv, points",
                      f"{', '.join(kinds) or 'none'}")
    kind = kinds[0]
    name = f.text(t, "name", "domain", default=None)
    if kind == "grid":
        g = f.keys(t["grid"], "domain.grid", {"n", "dim", "low", "high"}, {"n"})
        n, dim = f.integer(g, "n", "domain.grid"), f.integer(g, "dim", "domain.grid", default=1)
        low, high = f.number(g, "low", "domain.grid", default=0.0), f.number(g, "high", "domain.grid", default=1.0)
        if not high > low:
            raise f.error("domain.grid.high", f"a number above low = {low:g}", g.get("high"))
        _check_dim(f, "domain.grid.dim", dim)
        if n**dim > MAX_DOMAIN_POINTS:
            raise f.error("domain.grid", f"at most {MAX_DOMAIN_POINTS} points (n^dim)", f"{n}^{dim}")
        dom = grid(n, dim, low, high)
        return dom if name is None else FiniteDomain(dom.points, name=name)
    if kind == "uniform":
        g = f.keys(t["uniform"], "domain.uniform", {"n", "dim", "seed", "low", "high"}, {"n", "seed"})
        n, dim = f.integer(g, "n", "domain.uniform"), f.integer(g, "dim", "domain.uniform", default=1)
        seed = f.integer(g, "seed", "domain.uniform", minimum=0)
        low = f.number(g, "low", "domain.uniform", default=0.0)
        high = f.number(g, "high", "domain.uniform", default=1.0)
        if not high > low:
            raise f.error("domain.uniform.high", f"a number above low = {low:g}", g.get("high"))
        _check_dim(f, "domain.uniform.dim", dim)
        if n > MAX_DOMAIN_POINTS:
            raise f.error("domain.uniform.n", f"at most {MAX_DOMAIN_POINTS} points", n)
        pts = np.random.default_rng(seed).uniform(low, high, size=(n, dim))
        return FiniteDomain(pts, name=name or f"uniform{n}")
    if kind == "indices":
        g = f.keys(t["indices"], "domain.indices", {"n"}, {"n"})
        n = f.integer(g, "n", "domain.indices")
        if n > MAX_DOMAIN_POINTS:
            raise f.error("domain.indices.n", f"at most {MAX_DOMAIN_POINTS} points", n)
        return FiniteDomain(np.arange(n, dtype=float)[:, None], name=name or f"indices{n}")
    if kind == "csv":
        rel = f.text(t, "csv", "domain")
        path = f.data_file("domain.csv", rel, "a CSV file of points (one per row)")
        try:
            text = path.read_text(encoding="utf-8").strip().splitlines()
        except (OSError, UnicodeDecodeError):
            raise f.error("domain.csv", "a readable UTF-8 CSV file", rel) from None
        rows = [r for r in text if r.strip() and not r.lstrip().startswith("#")]
        if len(rows) > MAX_DOMAIN_POINTS + 1:  # (+ a header line) counted before a number is parsed
            raise f.error("domain.csv", f"at most {MAX_DOMAIN_POINTS} points", f"{rel} with {len(rows)} rows")
        try:
            try:
                [float(x) for x in rows[0].split(",")]
            except ValueError:
                rows = rows[1:]  # a header line
            pts = np.array([[float(x) for x in r.split(",")] for r in rows], dtype=np.float64)
        except (ValueError, IndexError):
            raise f.error("domain.csv", "a CSV of numbers, the same count on every row", rel) from None
        if pts.ndim != 2 or pts.shape[0] < 1 or not np.all(np.isfinite(pts)):
            raise f.error("domain.csv", "a CSV of finite numbers, the same count on every row", rel)
        _check_points(f, "domain.csv", pts.shape[0])
        return FiniteDomain(pts, name=name or path.stem)
    pts = f.array(t["points"], "domain.points", what="points (a list of rows)")
    pts = pts[:, None] if pts.ndim == 1 else pts
    if pts.ndim != 2 or pts.shape[0] < 1:
        raise f.error("domain.points", "a non-empty list of points", t["points"])
    _check_points(f, "domain.points", pts.shape[0])
    return FiniteDomain(pts, name=name or "points")


def _check_points(f: FileReader, key: str, n: int) -> None:
    if n > MAX_DOMAIN_POINTS:
        raise f.error(key, f"at most {MAX_DOMAIN_POINTS} points", f"{n} points")


def _check_dim(f: FileReader, key: str, dim: int) -> None:
    if dim > MAX_DOMAIN_DIM:
        raise f.error(key, f"a dimension of at most {MAX_DOMAIN_DIM}", dim)


def _check_gram_memory(f: FileReader, root: dict, n: int) -> None:
    """Refuse a file whose n × n matrices would not fit in the memory available now, before any is built: one
    kept per prior, per GP or RKHS truth and for the shared [kernel], and about six more while one is built and
    checked PSD (its distances, its symmetrisation, the eigenvalue solver's copy; measured ≈ 3.6)."""
    from ..utils.resources import MemoryEstimate, check_memory

    priors = root.get("priors") if isinstance(root.get("priors"), list) else []
    truth = root.get("truth") if isinstance(root.get("truth"), dict) else {}
    kept = len(priors) + ("gp" in truth) + ("rkhs" in truth) + (root.get("kernel") is not None)
    one = 8 * n * n
    estimate = MemoryEstimate(f"scenario {root.get('name')!r} ({n} points, {kept} n × n matrices)",
                              (kept + 6) * one, {"kept matrices": kept * one, "building one": 6 * one})
    try:
        check_memory(estimate, hint="use fewer points, or fewer priors with a kernel of their own")
    except BoundcheckError as exc:
        raise ScenarioFileError(f"{f.source}: {exc}") from None


_KERNEL_KEYS = {"family", "lengthscale", "l", "variance", "nu", "matrix"}


def _kernel(f: FileReader, table, path: str, points: np.ndarray) -> np.ndarray:
    t = f.keys(table, path, _KERNEL_KEYS)
    n = points.shape[0]
    if "matrix" in t:
        if "family" in t:
            raise f.error(path, "either family (with its parameters) or matrix, not both")
        K = f.array(t["matrix"], f"{path}.matrix", shape=(n, n), what="a square matrix on the domain")
        return K
    family = f.text(t, "family", path, choices=(*KERNEL_NAMES, "matern"))
    variance = f.number(t, "variance", path, default=1.0, low=0.0, strict_low=True, what="a positive number")
    if family == "matern":
        nu = f.number(t, "nu", path, what="0.5, 1.5 or 2.5")
        if nu not in (0.5, 1.5, 2.5):
            raise f.error(f"{path}.nu", "0.5, 1.5 or 2.5", t["nu"])
        family = {0.5: "matern12", 1.5: "matern32", 2.5: "matern52"}[nu]
    elif "nu" in t:
        raise f.error(f"{path}.nu", f"no nu for family {family!r} (use family = \"matern\")", t["nu"])
    if family == "rbf_paper":
        scale = f.number(t, "l", path, low=0.0, strict_low=True, what="a positive number (paper 000's l = ℓ²)")
    elif family == "linear":
        scale = 1.0
    else:
        scale = f.number(t, "lengthscale", path, low=0.0, strict_low=True, what="a positive number")
    try:
        return make_kernel(family, scale, variance).gram(points)
    except BoundcheckError as exc:
        raise ScenarioFileError(f"{f.source}: key {path!r}: {exc}") from None


def _gp(f: FileReader, table: dict, path: str, points: np.ndarray, K_default: np.ndarray | None,
        name_default: str | None = None) -> GPPrior:
    t = f.keys(table, path, {"name", "mean", "eps", "kernel"})
    name = f.text(t, "name", path, default=name_default, template=True) if name_default else f.text(t, "name", path)
    n = points.shape[0]
    if "kernel" in t:
        K = _kernel(f, t["kernel"], f"{path}.kernel", points)
    elif K_default is None:
        raise f.error(f"{path}.kernel", "a kernel (or a top-level [kernel] table)")
    else:
        K = K_default
    mean = t.get("mean", 0.0)
    mean = f.array(mean, f"{path}.mean", what="a number or n numbers")
    if mean.ndim == 0:
        mean = float(mean)
    elif mean.shape != (n,):
        raise f.error(f"{path}.mean", f"a number or a list of {n} numbers (one per point)",
                      f"an array of shape {mean.shape}")
    eps = f.number(t, "eps", path, default=0.0, low=0.0, high=1.0, what="a drift ε in [0, 1]")
    try:
        return GPPrior(name, mean, K, eps)
    except BoundcheckError as exc:
        raise ScenarioFileError(f"{f.source}: key {path!r}: {exc}") from None


def parse_stationary(f: FileReader, data: dict, find_generator: Callable[[str, str], Callable[..., Mapping]],
                     generator_names: Callable[[], list[str]]) -> Scenario:
    """The scenario of a ``stationary`` file's root table ``data``. ``find_generator(name, scenario)`` returns the
    registered generator ``name`` (``KeyError`` when there is none); ``generator_names()`` lists them."""
    source = f.source
    dom_raw = data.get("domain") if isinstance(data, dict) else None
    if isinstance(dom_raw, dict) and "box" in dom_raw:  # a compact box: its own reader (world.box_scenario)
        from .box_scenario import parse_box

        return parse_box(f, data)
    root = f.keys(data, "", _ROOT_KEYS, {"name", "horizon", "delta", "noise", "domain", "priors", "truth"})
    if "format" in root and root["format"] != FORMAT:
        raise f.error("format", f"{FORMAT} (the scenario-file format this boundcheck reads)", root["format"])
    name = f.text(root, "name", "")
    if not name.strip():
        raise f.error("name", "a non-empty string", name)

    # the domain and the shared kernel first when the file gives them directly (a generator may need them)
    dom_table, ker_table = root["domain"], root.get("kernel")
    dom = None if _has_ref(dom_table) else _domain(f, dom_table)
    if dom is not None:
        _check_gram_memory(f, root, dom.n)  # before the first Gram matrix is built
    K = None
    if ker_table is not None and dom is not None and not _has_ref(ker_table):
        K = _kernel(f, ker_table, "kernel", dom.points)
    if "generator" in root:
        g = root["generator"]
        if not isinstance(g, dict):
            raise f.error("generator", "a table with name = a registered generator and its parameters", g)
        gname = f.text(g, "name", "generator")
        try:
            fn = find_generator(gname, name)
        except KeyError:
            raise f.error("generator.name", "a registered generator (" + ", ".join(generator_names()) + ")",
                          gname) from None
        params = {k: v for k, v in g.items() if k != "name"}
        if _signature_accepts(fn, "points"):
            if dom is None:
                raise f.error("generator", f"a domain given directly: generator {gname!r} needs the points")
            params["points"] = dom.points
        if _signature_accepts(fn, "kernel_matrix"):
            if K is None:
                raise f.error("generator", f"a [kernel] given directly: generator {gname!r} needs its Gram matrix")
            params["kernel_matrix"] = K
        try:
            inspect.signature(fn).bind(**params)
        except TypeError as exc:
            raise f.error("generator", f"the parameters of generator {gname!r} ({exc})") from None
        try:
            f.generated = dict(fn(**params))
        except BoundcheckError as exc:
            raise ScenarioFileError(f"{source}: key 'generator': {exc}") from None
        except (TypeError, ValueError) as exc:
            raise f.error("generator", f"parameters generator {gname!r} accepts ({type(exc).__name__}: {exc})") \
                from None
        f.generator_name = gname
    if dom is None:
        dom = _domain(f, dom_table)
        _check_gram_memory(f, root, dom.n)
    if K is None and ker_table is not None:
        K = _kernel(f, ker_table, "kernel", dom.points)

    # the candidate priors U
    priors_t = root["priors"]
    if not isinstance(priors_t, list) or not priors_t:
        raise f.error("priors", "a non-empty array of tables [[priors]]", priors_t)
    candidates = tuple(_gp(f, p, f"priors.{i}", dom.points, K) for i, p in enumerate(priors_t))
    names = [p.name for p in candidates]
    dup = sorted({x for x in names if names.count(x) > 1})
    if dup:
        raise f.error("priors", "distinct prior names", f"{dup[0]!r} twice")

    def candidate(key: str, value) -> int:
        if not isinstance(value, str) or value not in names:
            raise f.error(key, "the name of one of the [[priors]] (" + ", ".join(map(repr, names)) + ")", value)
        return names.index(value)

    # the truth
    tt = f.keys(root["truth"], "truth", {"prior", "gp", "rkhs", "reference"})
    kinds = [k for k in ("prior", "gp", "rkhs") if k in tt]
    if len(kinds) != 1:
        raise f.error("truth", "exactly one of prior, gp, rkhs", ", ".join(kinds) or "none")
    reference = candidate("truth.reference", tt["reference"]) if "reference" in tt else None
    if "prior" in tt:
        if reference is not None:
            raise f.error("truth.reference", "no reference when the truth is a candidate (it is its own reference)")
        truth_index = candidate("truth.prior", tt["prior"])
        truth = candidates[truth_index]
    elif "gp" in tt:
        truth_index = None
        truth = _gp(f, tt["gp"], "truth.gp", dom.points, K, name_default="truth")
    else:
        truth_index = None
        reference = 0 if reference is None else reference
        r = f.keys(tt["rkhs"], "truth.rkhs", {"name", "generator", "norm", "gen_noise_var", "alpha", "values",
                                              "kernel"}, {"generator"})
        gen = f.text(r, "generator", "truth.rkhs", choices=("posterior_mean", "fixed", "values"))
        K_r = _kernel(f, r["kernel"], "truth.rkhs.kernel", dom.points) if "kernel" in r else candidates[reference].K
        kw: dict = {}
        if gen == "fixed":
            if "alpha" not in r:
                raise f.error("truth.rkhs.alpha", "the members' coefficients α (k × n) for generator 'fixed'")
            kw["alpha"] = f.array(r["alpha"], "truth.rkhs.alpha", what="coefficients α")
        if gen == "values":
            if "values" not in r:
                raise f.error("truth.rkhs.values", "the members' values (k × n) for generator 'values'")
            kw["values"] = f.array(r["values"], "truth.rkhs.values", what="function values")
        scale = f.number(r, "norm", "truth.rkhs", default=None, low=0.0, strict_low=True, what="a positive norm")
        gvar = f.number(r, "gen_noise_var", "truth.rkhs", default=0.01, low=0.0, strict_low=True,
                        what="a positive variance")
        try:
            truth = RKHSFamily(f.text(r, "name", "truth.rkhs", default=f"RKHS family ({gen})", template=True), K_r,
                               gen, scale_to=scale, gen_noise_var=gvar, **kw)
        except BoundcheckError as exc:
            raise ScenarioFileError(f"{source}: key 'truth.rkhs': {exc}") from None

    # availability and actions
    av_t = f.keys(root.get("availability", {}), "availability", {"kind", "exclude_box", "restricted", "note"})
    kind = f.text(av_t, "kind", "availability", default="always", choices=("always", "alternating"))
    if kind == "always":
        if set(av_t) - {"kind"}:
            raise f.error("availability", "no other key for kind = 'always'", sorted(set(av_t) - {"kind"})[0])
        availability = AlwaysAvailable(dom.n)
    else:
        if ("exclude_box" in av_t) == ("restricted" in av_t):
            raise f.error("availability", "exactly one of exclude_box, restricted for kind = 'alternating'")
        if "exclude_box" in av_t:
            b = f.keys(av_t["exclude_box"], "availability.exclude_box", {"centre", "half_width"},
                       {"centre", "half_width"})
            centre = f.array(b["centre"], "availability.exclude_box.centre", shape=(dom.dim,), what="a point")
            hw = f.number(b, "half_width", "availability.exclude_box", low=0.0, strict_low=True,
                          what="a positive number")
            restricted = np.abs(dom.points - centre[None]).max(axis=1) > hw
        else:
            idx = f.ref(av_t["restricted"], "availability.restricted")
            arr = np.asarray(idx)
            if arr.dtype == bool and arr.shape == (dom.n,):
                restricted = arr
            elif arr.ndim == 1 and arr.size and np.issubdtype(arr.dtype, np.integer) and (arr >= 0).all() \
                    and (arr < dom.n).all():
                restricted = np.zeros(dom.n, dtype=bool)
                restricted[arr] = True
            else:
                raise f.error("availability.restricted", f"indices in 0..{dom.n - 1} or {dom.n} booleans",
                              av_t["restricted"])
        if not restricted.any():
            raise f.error("availability", "a restricted set X_t with at least one point")
        note = f.text(av_t, "note", "availability", default="restricted on even t", template=True)
        availability = AlternatingAvailability(restricted, note=note)
    action_set = None
    if "actions" in root:
        a = f.keys(root["actions"], "actions", {"top_k"}, {"top_k"})
        k = f.integer(a, "top_k", "actions")
        if k > dom.n:
            raise f.error("actions.top_k", f"at most |X| = {dom.n}", k)
        action_set = TopK(availability, k=k)

    # scalars
    in_theory, reason, notes = theory_label(f, root)
    gamma_rule = f.text(root, "gamma_rule", "", default="certified")
    if gamma_rule != "certified" and not re.fullmatch(r"rate:(se|matern|constant)", gamma_rule):
        raise f.error("gamma_rule", "'certified' or 'rate:se' / 'rate:matern' / 'rate:constant'", gamma_rule)
    rate_params = root.get("gamma_rate_params", {})
    if not isinstance(rate_params, dict) or not all(isinstance(v, int | float) and not isinstance(v, bool)
                                                    for v in rate_params.values()):
        raise f.error("gamma_rate_params", "a table of numbers (d, nu)", rate_params)
    B = f.number(root, "B", "", default=None, low=0.0, strict_low=True, what="a positive norm bound")
    runs = f.integer(root, "runs", "", default=None)
    try:
        return Scenario(
            name=name, description=f.text(root, "description", "", default="", template=True), domain=dom,
            availability=availability, candidates=candidates, truth=truth, truth_index=truth_index,
            noise=f.number(root, "noise", "", low=0.0, strict_low=True, what="a positive noise level R"),
            horizon=f.integer(root, "horizon", ""),
            delta=_delta(f, root),
            reference_index=reference, in_theory=in_theory, out_of_theory_reason=reason,
            notes=tuple(f.fill(x, f"notes.{i}") for i, x in enumerate(notes)),
            model_noise=f.text(root, "model_noise", "", default="R2", choices=("R2", "1+2/T")), B=B,
            gamma_rule=gamma_rule, gamma_rate_params=dict(rate_params), action_set=action_set,
            default_runs=runs, source=source,
        )
    except ScenarioFileError:
        raise
    except BoundcheckError as exc:
        raise ScenarioFileError(f"{source}: {exc}") from None
