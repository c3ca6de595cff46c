"""A keyed, size-capped folder of files kept between commands: what is costly to compute and a pure function of
inputs the caller hashes into the key (the certified γ brackets of :mod:`boundcheck.model.mig`, the theorem
rows of ``boundcheck list``).

Where: ``$BOUNDCHECK_CACHE/<namespace>`` (default ``$XDG_CACHE_HOME/boundcheck`` or ``~/.cache/boundcheck``);
a namespace may name its own variable (``BOUNDCHECK_GAMMA_CACHE``) that points at its folder directly. Either
variable set to ``off`` (or ``0``, ``no``, ``false``, empty) disables the cache: nothing is read or written.
The folder is read on every use, so a changed variable takes effect at once.

A cache is only ever an optimisation: an entry that cannot be read is a miss, a write that fails (read-only or
full disk) is skipped, and every entry is written atomically (a reader never sees half of one). The oldest
entries beyond ``entries`` are removed after each write.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["DiskCache", "cache", "cache_root", "ROOT_VARIABLE"]

ROOT_VARIABLE = "BOUNDCHECK_CACHE"
_OFF = ("", "off", "0", "no", "false")


def _setting(variable: str) -> tuple[bool, Path | None]:
    """(disabled, folder) from an environment variable: (False, None) when it is not set."""
    value = os.environ.get(variable)
    if value is None:
        return False, None
    if value.strip().lower() in _OFF:
        return True, None
    return False, Path(value)


def cache_root() -> Path | None:
    """The folder that holds every namespace, or None when the cache is off."""
    off, folder = _setting(ROOT_VARIABLE)
    if off:
        return None
    if folder is not None:
        return folder
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "boundcheck"


class DiskCache:
    """The files of one namespace: ``folder/<key><suffix>``.

    Parameters
    ----------
    namespace
        the sub-folder of :func:`cache_root` (a plain name).
    variable
        an environment variable of this namespace alone: its folder, or ``off``; it wins over the root's.
    entries
        most entries kept (the oldest, by modification time, are removed after a write).
    """

    def __init__(self, namespace: str, variable: str | None = None, entries: int = 256) -> None:
        self.namespace, self.variable, self.entries = namespace, variable, int(entries)

    @property
    def folder(self) -> Path | None:
        """Where the entries are now, or None when this cache is off."""
        if self.variable is not None:
            off, folder = _setting(self.variable)
            if off:
                return None
            if folder is not None:
                return folder
        root = cache_root()
        return None if root is None else root / self.namespace

    def path(self, key: str, suffix: str = "") -> Path | None:
        """The file of entry ``key`` (whether it exists or not), or None when the cache is off."""
        folder = self.folder
        return None if folder is None else folder / f"{key}{suffix}"

    def read(self, key: str, suffix: str, reader: Callable[[Path], object]) -> object | None:
        """``reader(path)`` of entry ``key``, or None: no entry, the cache off, or any error while reading (a
        damaged entry is a miss, recomputed and written again)."""
        path = self.path(key, suffix)
        if path is None:
            return None
        try:
            return reader(path)
        except Exception:  # noqa: BLE001 - no entry, or one that cannot be read: the caller computes it
            return None

    def write(self, key: str, suffix: str, writer: Callable[[str], None]) -> None:
        """Write entry ``key`` with ``writer(tmp_path)`` (atomically), then remove the oldest entries beyond
        :attr:`entries`. No-op when the cache is off; a failing disk only costs the recomputation next time."""
        path = self.path(key, suffix)
        if path is None:
            return
        from ..utils.io import atomic_write  # the write path only: a cache read needs none of its imports

        with contextlib.suppress(OSError):
            atomic_write(path, writer)
            self.prune(suffix)

    def prune(self, suffix: str = "") -> None:
        """Remove the oldest entries (``*<suffix>``) beyond :attr:`entries`."""
        folder = self.folder
        if folder is None:
            return
        with contextlib.suppress(OSError):
            found = []
            for p in folder.glob(f"*{suffix}"):
                with contextlib.suppress(OSError):  # removed by another process meanwhile
                    found.append((p.stat().st_mtime, p))
            for _, old in sorted(found)[:-self.entries] if self.entries > 0 else sorted(found):
                old.unlink(missing_ok=True)


def cache(namespace: str, variable: str | None = None, entries: int = 256) -> DiskCache:
    """The on-disk cache ``namespace`` (see :class:`DiskCache`)."""
    return DiskCache(namespace, variable, entries)
