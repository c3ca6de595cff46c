"""A theorem's instantiation kept on disk between commands: :func:`instantiate` is
``family.instantiate(scenario, horizon, delta, beta_scale)`` read from the runtime's cache ``instances`` when the
same inputs were instantiated by the same code before.

Instantiating lambdifies the theorem's bound and schedules with sympy and reads the certified γ bracket; a
repeated ``verify`` reads the numbers instead. The key hashes the content of every input (the theorem's
expressions, the scenario's matrices, T, δ, the β scale) and of the code that may compute the instance (the
theory package; boundcheck's utils, model, world, claims and runtime; the folder of each of the family's classes;
the numpy and sympy versions): any change recomputes. An entry is an ``.npz`` file read without pickle (arrays and
a typed JSON description of the rest, so the instance read back is the one computed, value for value and type for
type); an instance holding anything else is not cached. ``BOUNDCHECK_CACHE`` or ``BOUNDCHECK_INSTANCE_CACHE`` set
to ``off`` turns the cache off, and an entry that cannot be read is recomputed.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import fields
from pathlib import Path

import numpy as np

from ...runtime.cache import cache
from .base import TheoremInstance

__all__ = ["instantiate", "instance_key"]

_CACHE = cache("instances", "BOUNDCHECK_INSTANCE_CACHE", 128)
_SUFFIX = ".npz"
_FORMAT = 1  # of an entry: bumped when the encoding changes


class _Unsupported(Exception):
    """A value the entry format does not hold: the instance is not cached."""


def _code_files(family) -> list[str]:
    """The source files whose code may compute an instance of ``family``: the theory package, the layers below
    the claims and the claims themselves, and the folder of each of the family's classes and of the functions it
    holds (its paper: the kernelized family's class is in the claims, its claim table in the paper's module),
    for a theorem of your own those of the family it is checked like (:class:`.checked_as.CheckedAs`)."""
    import theory

    root = Path(__file__).resolve().parents[2]  # the boundcheck package
    folders = [Path(theory.__file__).resolve().parent] + [root / d for d in _LAYERS]
    files = {p for d in folders for p in d.rglob("*.py")}
    families = [family] + ([family.inner] if "inner" in vars(family) else [])
    modules = [(cls.__module__, cls.__qualname__) for f in families for cls in type(f).__mro__ if cls is not object]
    modules += [(v.__module__, v.__qualname__) for f in families for v in vars(f).values()
                if callable(v) and getattr(v, "__module__", None) and hasattr(v, "__qualname__")]
    for module, name in modules:
        path = getattr(sys.modules.get(module), "__file__", None)
        if not path:  # a class defined in a notebook or an interpreter: no source to key by, no caching
            raise OSError(f"no source file for {name}")
        files.update(Path(path).resolve().parent.glob("*.py"))
    return sorted(str(p) for p in files)


#: the packages of boundcheck whose code an instantiation may run (the theory package is added to them)
_LAYERS = ("utils", "model", "world", "claims", "runtime")


def instance_key(family, scenario, horizon: int, delta: float, beta_scale: float = 1.0) -> str:
    """The cache key of one instantiation: its inputs' content and the code that computes it."""
    import sympy

    from ...utils.hashing import fingerprint

    h = hashlib.sha256()
    h.update(json.dumps({"format": _FORMAT, "theorem": fingerprint(family.theorem),
                         "family": fingerprint(type(family)), "scenario": fingerprint(scenario),
                         "horizon": int(horizon), "delta": repr(float(delta)), "beta_scale": repr(float(beta_scale)),
                         "numpy": np.__version__, "sympy": sympy.__version__}, sort_keys=True).encode())
    for path in _code_files(family):
        h.update(path.encode())
        h.update(Path(path).read_bytes())
    return h.hexdigest()[:32]


def instantiate(family, scenario, horizon: int, delta: float, beta_scale: float = 1.0) -> TheoremInstance:
    """``family.instantiate(scenario, horizon, delta, beta_scale)``, from the disk cache when it holds it (and
    stored there when it did not). Errors are the family's own: an instance that fails is never cached."""
    try:
        key = instance_key(family, scenario, horizon, delta, beta_scale)
    except (OSError, TypeError, ValueError):  # a source that cannot be read: compute as if there were no cache
        return family.instantiate(scenario, horizon, delta, beta_scale)
    found = _CACHE.read(key, _SUFFIX, _load)
    if isinstance(found, TheoremInstance):
        return found
    inst = family.instantiate(scenario, horizon, delta, beta_scale)
    try:
        arrays: dict[str, np.ndarray] = {}
        meta = {f.name: _encode(getattr(inst, f.name), arrays) for f in fields(inst)}
    except _Unsupported:
        return inst
    arrays["__meta__"] = np.array(json.dumps({"format": _FORMAT, "fields": meta}))

    def write(tmp: str) -> None:
        with open(tmp, "wb") as fh:
            np.savez(fh, **arrays)

    _CACHE.write(key, _SUFFIX, write)
    return inst


# ------------------------------------------------------------------------------------------------ the format
def _encode(value, arrays: dict[str, np.ndarray]):
    """A JSON description of ``value``; its arrays go to ``arrays`` under the names it refers to."""
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            raise _Unsupported("an object array")
        name = f"a{len(arrays)}"
        arrays[name] = value
        return {"nd": name}
    if isinstance(value, np.generic):  # before float: np.float64 is a float, and must come back as one
        if value.dtype.hasobject:
            raise _Unsupported("an object scalar")
        return {"np": value.dtype.str, "v": value.item()}
    if value is None or isinstance(value, bool | int | float | str):
        return {"py": value} if isinstance(value, float) else value
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise _Unsupported("a dict with keys that are not strings")
        return {"dict": [[k, _encode(v, arrays)] for k, v in value.items()]}
    if isinstance(value, tuple | list):
        return {"tuple" if isinstance(value, tuple) else "list": [_encode(v, arrays) for v in value]}
    raise _Unsupported(type(value).__name__)


def _decode(desc, arrays):
    if not isinstance(desc, dict):
        return desc  # None, bool, int, str
    if "nd" in desc:
        return arrays[desc["nd"]]
    if "np" in desc:
        return np.dtype(desc["np"]).type(desc["v"])
    if "py" in desc:
        return float(desc["py"])
    if "dict" in desc:
        return {k: _decode(v, arrays) for k, v in desc["dict"]}
    if "tuple" in desc:
        return tuple(_decode(v, arrays) for v in desc["tuple"])
    return [_decode(v, arrays) for v in desc["list"]]


def _load(path: Path) -> TheoremInstance:
    with np.load(path, allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    meta = json.loads(str(arrays.pop("__meta__")))
    if meta.get("format") != _FORMAT:
        raise ValueError("an entry of another format")
    return TheoremInstance(**{k: _decode(v, arrays) for k, v in meta["fields"].items()})
