"""Bounded resources: the memory a piece of work will need, the memory the machine has, and one refusal.

Work is refused (a one-line :class:`~boundcheck.errors.BoundcheckError`, exit code 2) *before* it starts when
its estimate exceeds the limit: ``--max-memory`` where given, else the memory available to this process now
(``MemAvailable``, capped by a cgroup limit in a container). Estimates are deliberately generous upper
bounds from the sizes of the arrays the code allocates (calibrated against measured peaks in
``tests/study/test_resources.py``); ``--max-memory`` overrides the machine's figure when you know better.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import BoundcheckError

__all__ = ["available_memory", "parse_size", "format_size", "MemoryEstimate", "check_memory", "gamma_memory"]

_UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1000, "kib": 1024, "m": 1024**2, "mb": 1000**2, "mib": 1024**2,
          "g": 1024**3, "gb": 1000**3, "gib": 1024**3, "t": 1024**4, "tb": 1000**4, "tib": 1024**4}


#: the smallest size ``parse_size`` takes: no study fits in less (the interpreter alone is hundreds of MiB), and a
#: smaller one is a unit left out (``--max-memory 2.5`` is 2.5 bytes, not 2.5 GiB)
MIN_SIZE = 1024


def parse_size(value, name: str = "--max-memory") -> int:
    """Bytes from ``4G`` / ``4GiB`` (2³⁰), ``4GB`` (10⁹), ``500M``, ``1.5T`` or a plain number of bytes (ASCII
    digits), rounded down to whole bytes; at least :data:`MIN_SIZE` (1 KiB)."""
    if isinstance(value, bool):
        raise BoundcheckError(f"{name} must be a size such as 4G or 500M, got {value!r}")
    unit = ""
    if isinstance(value, int):
        n = x = value
    elif isinstance(value, str):
        m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?(?:[eE][0-9]+)?)\s*([A-Za-z]*)\s*", value, flags=re.ASCII)
        if m is None or m.group(2).lower() not in _UNITS:
            raise BoundcheckError(f"{name} must be a size such as 4G, 4GB or 500M, got {value!r}")
        unit = m.group(2).lower()
        x = float(m.group(1)) * _UNITS[unit]
        if not x < 2**63:
            raise BoundcheckError(f"{name} is too large: {value!r}")
        n = int(x)
    else:
        raise BoundcheckError(f"{name} must be a size such as 4G or 500M, got {value!r}")
    if x <= 0:
        raise BoundcheckError(f"{name} must be positive, got {value!r}")
    if x < MIN_SIZE and unit in ("", "b"):
        v = str(value).strip().rstrip("bB")
        raise BoundcheckError(f"{name} {value!r} reads as {x:g} bytes (a number without a unit is bytes), less "
                              f"than 1 KiB, which no study fits in: give a unit, e.g. {v}G for {v} GiB")
    if x < MIN_SIZE:
        raise BoundcheckError(f"{name} {value!r} is {x:g} bytes, less than 1 KiB, which no study fits in")
    return n


def format_size(n: float) -> str:
    """``n`` bytes in words (``1.5 GiB``); any size, however large (an estimate of a refused study may exceed a
    float: ``--runs 1e300``)."""
    if n >= 1024**6:
        digits = len(str(int(n)))
        return f"10^{digits - 1} B"
    for unit, scale in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{int(n)} B"


def _read_int(path: str) -> int | None:
    try:
        text = Path(path).read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def available_memory() -> int | None:
    """Bytes this process may still allocate: ``MemAvailable`` of /proc/meminfo, capped by a cgroup (v2 or
    v1) limit minus its usage; ``os.sysconf`` elsewhere; None if unknown."""
    avail = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                avail = int(line.split()[1]) * 1024
                break
    except (OSError, ValueError, IndexError):
        pass
    if avail is None:
        try:
            avail = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            avail = None
    for limit_file, usage_file in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                                   ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        limit, usage = _read_int(limit_file), _read_int(usage_file)
        if limit is not None and limit < 2**60 and usage is not None:
            room = max(limit - usage, 0)
            avail = room if avail is None else min(avail, room)
            break
    return avail


@dataclass
class MemoryEstimate:
    """Peak memory of a piece of work: ``total`` bytes, with the parts that make it up (for the message)."""

    what: str
    total: int
    parts: dict[str, int] = field(default_factory=dict)

    def describe(self) -> str:
        top = sorted(self.parts.items(), key=lambda kv: -kv[1])[:4]
        return f"about {format_size(self.total)}" + (
            " (" + ", ".join(f"{k} {format_size(v)}" for k, v in top) + ")" if top else "")


def check_memory(estimate: MemoryEstimate, max_memory: int | None = None, hint: str = "") -> None:
    """Refuse ``estimate`` above ``max_memory`` (bytes) or, without one, above the memory available now."""
    if max_memory is not None:
        limit, source = int(max_memory), "--max-memory allows"
    else:
        limit, source = available_memory(), "this machine has available"
        if limit is None:
            return
    if estimate.total > limit:
        raise BoundcheckError(f"{estimate.what} would need {estimate.describe()}, but {source} "
                              f"{format_size(limit)}; refusing to start{'; ' + hint if hint else ''}")


def gamma_memory(n: int, observations: int) -> int:
    """Peak bytes of :func:`boundcheck.model.mig.gamma_bracket` on ``n`` points for ``observations`` = T·K.

    Measured (tracemalloc, n = 5 … 1000, T up to 3·10⁴, ε = 0 and > 0): ≈ 8.4 kB per observation beyond the
    exact-prefix limit (ladders and envelopes of the relaxation), 24 B·m² for the exact Cholesky prefix of
    the greedy set (m ≤ 3000), ≈ 32 B·n² for the spectrum; this bound takes 1.4×, 1× and 1.5× of those."""
    n, m = int(n), int(observations)
    return 8 * (1500 * m + 3 * min(m, 3000) ** 2 + 6 * n * n) + 16 * 1024**2
