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

Every entry is authenticated (an HMAC-SHA256 tag keyed by a per-user secret, :func:`key_file`); one that does not
verify is reported as a :class:`~boundcheck.errors.CacheIntegrityWarning` and recomputed.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import stat
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import CacheIntegrityWarning

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["DiskCache", "cache", "cache_root", "key_file", "ROOT_VARIABLE", "KEY_VARIABLE"]

ROOT_VARIABLE = "BOUNDCHECK_CACHE"
#: the file that holds the per-user secret of the entries' tags (default: see :func:`key_file`)
KEY_VARIABLE = "BOUNDCHECK_CACHE_KEY"
_OFF = ("", "off", "0", "no", "false")
#: the first bytes of every entry (its format); then the tag (hex) and a newline, then the entry's own bytes
_MAGIC = b"boundcheck-cache-hmac-sha256-v1\n"
_TAG_HEX = 64
_MAX_ENTRY = 256 << 20  # bytes: larger files are no entry (a γ bracket at T = 20 000 is about 2 MB)
_SECRET_MIN_HEX = 32  # a secret of fewer than 128 bits is refused (a created one has 256)


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


def key_file() -> Path:
    """The file of the per-user secret that authenticates cache entries: ``$BOUNDCHECK_CACHE_KEY``, else
    ``$XDG_CONFIG_HOME/boundcheck/cache.key`` (``~/.config/boundcheck/cache.key``). Read on every use.

    A cache folder may be writable by others (a shared ``BOUNDCHECK_GAMMA_CACHE``), and what is read
    from it decides results (a γ bracket enters every bound). So every entry carries an HMAC-SHA256 tag over its
    namespace, its file name and its bytes, keyed by a per-user secret kept *outside* the cache folders:
    ``$BOUNDCHECK_CACHE_KEY`` (a file), default ``$XDG_CONFIG_HOME/boundcheck/cache.key`` (or
    ``~/.config/boundcheck/cache.key``), created on first use with mode 0600 and published atomically (a hard link of
    a complete file: a concurrent first use reads one secret or the other, never half of one). Whoever cannot read
    that file cannot write an entry this process accepts, nor move one to another key or namespace: a plain content
    hash would not do, since anyone can recompute it. An entry whose tag does not verify (written by someone else, with
    another secret, by an older version, or damaged) is not used: it is reported as a
    :class:`~boundcheck.errors.CacheIntegrityWarning` naming the file and the reason (one line on stderr from the
    CLI), and the caller recomputes and rewrites it. A secret file that is group- or world-accessible, owned by
    another user, inside a cache folder, or malformed is refused with the same warning (once per process) and the
    cache is then neither read nor written; one that cannot be created (read-only home) turns the cache off silently,
    as a read-only cache folder does."""
    value = os.environ.get(KEY_VARIABLE)
    if value:
        return Path(value)
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "boundcheck" / "cache.key"


_refused: set[tuple[str, str]] = set()  # (key file, reason) already reported in this process


def _refuse(path: Path, reason: str) -> None:
    if (str(path), reason) not in _refused:
        _refused.add((str(path), reason))
        warnings.warn(f"the cache is not used: its key file {path} {reason}", CacheIntegrityWarning, stacklevel=4)


def _read_secret(path: Path) -> tuple[bytes | None, str | None]:
    """(secret, None), or (None, why it is refused). FileNotFoundError when there is none."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO is refused below, not waited on
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, "is not a regular file"
        if os.name == "posix":  # whoever else can read it can forge entries, whoever can write it can swap it
            if st.st_uid != os.getuid():
                return None, "is owned by another user"
            if st.st_mode & 0o077:
                return None, f"is accessible to others (mode {stat.S_IMODE(st.st_mode):o}; chmod 600 it)"
        data = os.read(fd, 4096).strip()
    finally:
        os.close(fd)
    try:
        bytes.fromhex(data.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        return None, "is not a hex secret"
    if len(data) < _SECRET_MIN_HEX:
        return None, f"holds fewer than {_SECRET_MIN_HEX} hex digits"
    return data, None


def _create_secret(path: Path) -> None:
    """Write a fresh secret at ``path`` unless one is there: mode 0600 from the start, published whole (a hard
    link of a complete temporary file fails if another process was first, and then its secret is used)."""
    import secrets  # the first use only

    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".cache.key.")  # mode 0600
    try:
        os.write(fd, secrets.token_hex(32).encode() + b"\n")
        os.fsync(fd)
        os.close(fd)
        fd = -1
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        except OSError:  # a file system without hard links: exclusive create (never replaces another's secret)
            with contextlib.suppress(FileExistsError):
                out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                try:
                    os.write(out, Path(tmp).read_bytes())
                    os.fsync(out)
                finally:
                    os.close(out)
    finally:
        if fd >= 0:
            os.close(fd)
        Path(tmp).unlink(missing_ok=True)


def _secret(folder: Path) -> bytes | None:
    """The secret of the entries' tags, created on first use; None (the cache is not used) when it cannot be had.
    ``folder``: the cache folder about to be used (a secret inside it would be no secret)."""
    path = key_file()
    for outer in (folder, cache_root()):
        if outer is not None and Path(os.path.abspath(path)).is_relative_to(os.path.abspath(outer)):
            _refuse(path, f"is inside the cache folder {outer}")
            return None
    for _ in range(2):
        try:
            data, reason = _read_secret(path)
        except FileNotFoundError:
            try:
                _create_secret(path)
            except OSError:  # a read-only or missing home: no cache, as with a read-only cache folder
                return None
            continue
        except OSError as exc:  # no permission, a folder, …
            _refuse(path, f"cannot be read ({exc.strerror or exc})")
            return None
        if reason is not None:
            _refuse(path, reason)
        return data
    return None  # pragma: no cover - created and removed again between two reads


def _read_entry(path: Path) -> bytes | None:
    """The bytes of an entry file, or None when it is no regular file or too large to be one (a FIFO or a device
    put in a shared folder would otherwise block or exhaust the reader)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > _MAX_ENTRY:
            return None
        with os.fdopen(os.dup(fd), "rb") as fh:
            return fh.read(_MAX_ENTRY + 1)
    finally:
        os.close(fd)


def _tag(secret: bytes, namespace: str, name: str, payload: bytes) -> bytes:
    """HMAC-SHA256 (hex) of an entry: its namespace and file name are in it, so it cannot be moved elsewhere."""
    mac = hmac.new(secret, _MAGIC + namespace.encode() + b"\0" + name.encode() + b"\0", hashlib.sha256)
    mac.update(payload)
    return mac.hexdigest().encode()


class DiskCache:
    """The files of one namespace: ``folder/<key><suffix>``, each authenticated (see the module's docstring).

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

    def reject(self, key: str, suffix: str, reason: str) -> None:
        """Report that entry ``key`` is not used (it is recomputed and rewritten by the caller): a
        :class:`~boundcheck.errors.CacheIntegrityWarning` naming the file and ``reason``. Callers that check an
        entry's content beyond its tag (:mod:`boundcheck.model.mig`) report a failed check with it too."""
        warnings.warn(f"cache entry {self.path(key, suffix)} is not used and will be recomputed: {reason}",
                      CacheIntegrityWarning, stacklevel=3)

    def read_bytes(self, key: str, suffix: str) -> bytes | None:
        """The bytes of entry ``key`` once its tag verifies, or None: no entry, the cache off, no usable secret,
        or an entry that is not authentic (reported, see :meth:`reject`)."""
        path = self.path(key, suffix)
        if path is None:
            return None
        try:
            raw = _read_entry(path)
        except OSError:  # no entry (or one that cannot be opened): the caller computes it
            return None
        if raw is None:
            self.reject(key, suffix, f"it is not a regular file of at most {_MAX_ENTRY >> 20} MiB")
            return None
        secret = _secret(path.parent)
        if secret is None:
            return None
        head = len(_MAGIC) + _TAG_HEX + 1
        if not raw.startswith(_MAGIC) or len(raw) < head or raw[head - 1:head] != b"\n":
            self.reject(key, suffix, "it has no authentication tag (damaged, or not written by this version "
                                     "of boundcheck)")
            return None
        payload = raw[head:]
        if not hmac.compare_digest(raw[len(_MAGIC):head - 1], _tag(secret, self.namespace, path.name, payload)):
            self.reject(key, suffix, f"its authentication tag does not verify (written with another secret than "
                                     f"{key_file()}, moved from another entry, or altered)")
            return None
        return payload

    def read(self, key: str, suffix: str, reader: Callable[[Path], object]) -> object | None:
        """``reader(path)`` of entry ``key``, or None: no entry, the cache off, an entry that is not authentic
        (reported), or any error while reading (a damaged entry is a miss, recomputed and written again).

        ``path`` is a private copy of the verified bytes (the entry itself could be replaced after the check)."""
        payload = self.read_bytes(key, suffix)
        if payload is None:
            return None
        tmp = None
        try:
            fd, tmp = tempfile.mkstemp(suffix=suffix, prefix="boundcheck-cache-")  # mode 0600
            with os.fdopen(fd, "wb") as fh:
                fh.write(payload)
            return reader(Path(tmp))
        except Exception:  # noqa: BLE001 - an entry that cannot be read (or no temporary file): computed again
            return None
        finally:
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)

    def write_bytes(self, key: str, suffix: str, payload: bytes) -> None:
        """Write entry ``key`` (``payload`` and its tag) atomically, then remove the oldest entries beyond
        :attr:`entries`. No-op when the cache is off or has no secret; a failing disk only costs the
        recomputation next time."""
        path = self.path(key, suffix)
        if path is None:
            return
        from ..utils.io import atomic_write_bytes  # the write path only: a cache read needs none of its imports

        with contextlib.suppress(OSError):
            secret = _secret(path.parent)
            if secret is None:
                return
            tag = _tag(secret, self.namespace, path.name, payload)
            atomic_write_bytes(path, _MAGIC + tag + b"\n" + payload)
            self.prune(suffix)

    def write(self, key: str, suffix: str, writer: Callable[[str], None]) -> None:
        """Write entry ``key`` with ``writer(tmp_path)`` (into a private file: what is tagged is what the writer
        wrote), then as :meth:`write_bytes`."""
        if self.path(key, suffix) is None:
            return
        tmp = None
        try:
            fd, tmp = tempfile.mkstemp(suffix=suffix, prefix="boundcheck-cache-")
            os.close(fd)
            writer(tmp)
            payload = Path(tmp).read_bytes()
        except OSError:  # no temporary file, or a full disk: no entry
            return
        finally:
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)
        self.write_bytes(key, suffix, payload)

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
