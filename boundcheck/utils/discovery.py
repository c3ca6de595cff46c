"""What the installed papers are, without importing them: the key of ``boundcheck list``'s cache (the list is
answered without importing sympy while nothing it shows changed; a paper installed, removed or edited outside
``theory/`` must change the key)."""

from __future__ import annotations

import importlib.util
from importlib import metadata
from pathlib import Path

__all__ = ["installed_papers_key"]


def installed_papers_key() -> str:
    """Each ``boundcheck.papers`` entry point, and the sizes and modification times of the files of an outside
    package's modules (located with ``find_spec``, not imported). The built-in papers' theory modules are in
    ``theory/``, which the cache key covers already."""
    parts = []
    for ep in sorted(metadata.entry_points(group="boundcheck.papers"), key=lambda e: (e.name, e.value)):
        parts.append(f"{ep.name}={ep.value}")
        top = ep.value.split(":")[0].split(".")[0]
        if top in ("boundcheck", "theory"):
            continue
        spec = importlib.util.find_spec(top)
        for folder in (spec.submodule_search_locations or []) if spec is not None else []:
            for f in sorted(Path(folder).rglob("*.py")):
                st = f.stat()
                parts.append(f"{f}:{st.st_size}:{st.st_mtime_ns}")
    return ";".join(parts)
