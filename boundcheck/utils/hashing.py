"""Content fingerprints: what a resumable study's key is made of.

:func:`fingerprint` hashes the *content* of an object, recursively: numbers, strings, numpy arrays (dtype,
shape and bytes), tuples, lists, dicts, dataclasses (their fields), classes and functions (qualified name and
the file that defines them, so that an edited policy does not reuse stale results). Objects may define
``__fingerprint__() -> object`` to say what identifies them.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import inspect
import json
import os

import numpy as np

__all__ = ["fingerprint", "canonical"]


def _source_digest(obj) -> str:
    """What identifies a class's or function's code: the digest of the whole file that defines it, else (no file:
    defined interactively) of ``inspect.getsource``, else "no-source".

    The whole file, not the object's own block: an edit to a module-level helper that a policy calls must not let
    stored results of the old code be reused either (a stored study is only resumed under an equal key; a spurious
    miss costs a recomputation, a stale hit a wrong result). And it is cheap: a file is read and hashed once per
    process (:func:`_file_digest`), where ``inspect.getsource`` parses the module again for every class (≈ 6 ms
    each; a default verify fingerprints 36 classes before its first task)."""
    try:
        path = inspect.getsourcefile(obj)
        if path:
            st = os.stat(path)
            return _file_digest(path, st.st_mtime_ns, st.st_size)
    except (OSError, TypeError):
        pass
    try:
        src = inspect.getsource(obj)
    except (OSError, TypeError):
        return "no-source"
    return hashlib.sha256(src.encode()).hexdigest()[:16]


@functools.lru_cache(maxsize=256)
def _file_digest(path: str, mtime_ns: int, size: int) -> str:
    """sha256 of a file's bytes (16 hex digits); keyed by its modification time and size, so an edited file is
    read again."""
    with open(path, "rb") as f:
        return "file:" + hashlib.sha256(f.read()).hexdigest()[:16]


def canonical(obj):
    """A JSON-serialisable canonical form of ``obj`` (arrays reduced to a digest)."""
    if obj is None or isinstance(obj, bool | str):
        return obj
    if isinstance(obj, int | np.integer):
        return int(obj)
    if isinstance(obj, float | np.floating):
        return repr(float(obj))  # exact: 0.1 and 0.1000000000000001 differ
    if isinstance(obj, np.ndarray):
        a = np.ascontiguousarray(obj)
        return {"ndarray": [str(a.dtype), list(a.shape), hashlib.sha256(a.tobytes()).hexdigest()]}
    if hasattr(obj, "__fingerprint__") and not isinstance(obj, type):
        return {"type": _qualname(type(obj)), "fp": canonical(obj.__fingerprint__())}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        fields = {f.name: canonical(getattr(obj, f.name)) for f in dataclasses.fields(obj)
                  if f.compare and not f.name.startswith("_")}
        return {"type": _qualname(type(obj)), "fields": fields}
    if isinstance(obj, dict):
        return {"dict": sorted((str(k), canonical(v)) for k, v in obj.items())}
    if isinstance(obj, list | tuple):
        return [canonical(v) for v in obj]
    if isinstance(obj, frozenset | set):
        return {"set": sorted(json.dumps(canonical(v), sort_keys=True) for v in obj)}
    if inspect.isclass(obj) or inspect.isfunction(obj) or inspect.ismethod(obj):
        return {"code": _qualname(obj), "source": _source_digest(obj)}
    if callable(obj) and hasattr(obj, "func"):  # functools.partial
        return {"partial": canonical(obj.func), "args": canonical(obj.args), "kw": canonical(obj.keywords)}
    # plain objects: their class and attributes
    state = getattr(obj, "__dict__", None)
    if state is not None:
        return {"type": _qualname(type(obj)), "state": canonical({k: v for k, v in state.items()
                                                                    if not k.startswith("_")})}
    return {"repr": repr(obj)}


def _qualname(obj) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', getattr(obj, '__name__', '?'))}"


def fingerprint(obj, length: int = 16) -> str:
    """Hex digest of the canonical content of ``obj``."""
    text = json.dumps(canonical(obj), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:length]
