"""Atomic file writes (write to a temporary file in the same folder, flush it to disk, then rename), content
hashes, JSON reading with one-line errors, and the advisory lock that keeps two writers out of one folder.
Every file boundcheck writes goes through here, so a crash never leaves half a file."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from ..errors import BoundcheckError

__all__ = ["atomic_write", "atomic_write_bytes", "sync_directory", "atomic_write_text", "atomic_write_json",
           "read_json", "sha256_bytes", "sha256_file", "folder_lock"]


def _fsync_dir(directory: Path) -> None:
    """Make a rename durable (POSIX: the directory entry lives in the directory's own blocks)."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def sync_directory(directory: Path) -> None:
    """Make the renames into ``directory`` durable (after several :func:`atomic_write` calls with
    ``sync_dir=False``: one directory flush for all of them)."""
    _fsync_dir(Path(directory))


def atomic_write(path: Path, writer: Callable[[str], None], mode: int | None = 0o644, *,
                 sync_dir: bool = True) -> Path:
    """Call ``writer(tmp_path)``, flush the temporary file to disk, then rename it onto ``path``: a reader (or a
    crash, even a power cut) sees the old file or the new one, never half of one. ``sync_dir=False`` leaves the
    directory flush to the caller (:func:`sync_directory`, once for a batch of files, before they are recorded)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    os.close(fd)
    try:
        writer(tmp)
        if mode is not None:
            os.chmod(tmp, mode)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if sync_dir:
        _fsync_dir(path.parent)
    return path


def atomic_write_bytes(path: Path, data: bytes, *, sync_dir: bool = True) -> Path:
    return atomic_write(path, lambda tmp: Path(tmp).write_bytes(data), sync_dir=sync_dir)


def atomic_write_text(path: Path, text: str, encoding: str = "utf-8") -> Path:
    return atomic_write_bytes(path, text.encode(encoding))


def atomic_write_json(path: Path, obj, default=float) -> Path:
    return atomic_write_bytes(path, json.dumps(obj, indent=2, default=default).encode())


def read_json(path: Path, what: str = "file") -> dict:
    """Parse a JSON object from a file; a missing, unreadable or corrupt file (or one that holds something
    other than an object) is a one-line :class:`BoundcheckError`."""
    path = Path(path)
    if not path.exists():
        raise BoundcheckError(f"{what} {path} not found")
    try:
        obj = json.loads(path.read_bytes())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BoundcheckError(f"corrupt {what} {path}: {exc}") from None
    except OSError as exc:
        raise BoundcheckError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    if not isinstance(obj, dict):
        raise BoundcheckError(f"corrupt {what} {path}: expected a JSON object, found {type(obj).__name__}")
    return obj


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# --------------------------------------------------------------------------------------------- locking
_NO_LOCKS = {errno.ENOLCK, errno.ENOSYS, errno.EOPNOTSUPP, getattr(errno, "ENOTSUP", errno.EOPNOTSUPP)}
_HEARTBEAT_S = 15.0  # the fallback lock's owner touches it this often ...
_STALE_S = 120.0  # ... and another host takes it over when it has not been touched for this long


def _holder(path: Path) -> str:
    try:
        info = json.loads(path.read_text())
        return f"pid {info['pid']} on {info['host']}, since {info['since']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "another process"


def _describe_self() -> bytes:
    return json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                       "since": time.strftime("%Y-%m-%d %H:%M:%S")}).encode()


def _busy(folder: Path, who: str) -> BoundcheckError:
    return BoundcheckError(f"results folder {folder} is in use by another boundcheck run ({who}); wait for it to "
                           f"finish (then re-run to resume or reuse its results) or use another --out")


@contextlib.contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """Hold the advisory write lock of ``folder`` (a results folder) or refuse at once, naming the holder.

    ``flock`` on ``folder/.lock``: released by the kernel when its holder exits, even by SIGKILL, so a crashed
    run never blocks the next one; on Linux NFS it is carried by the NFS lock protocol, so runs on different
    machines sharing the folder exclude each other too. Where the file system has no locks at all (some
    cluster file systems answer ENOLCK/ENOSYS), the fallback is an exclusively created directory
    ``folder/.lock.d`` with the owner's host and pid, kept fresh by a heartbeat: a lock whose owner is a dead
    process on this host, or whose heartbeat stopped more than two minutes ago, is stale and taken over."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / ".lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        import fcntl

        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise _busy(folder, _holder(path)) from None
            if exc.errno not in _NO_LOCKS:
                raise
            os.close(fd)
            fd = -1
            with _directory_lock(folder):
                yield
            return
        os.ftruncate(fd, 0)
        os.pwrite(fd, _describe_self(), 0)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        if fd >= 0:
            os.close(fd)


@contextlib.contextmanager
def _directory_lock(folder: Path) -> Iterator[None]:
    lockdir = folder / ".lock.d"
    owner = lockdir / "owner.json"
    for _ in range(2):
        try:
            os.mkdir(lockdir)
            break
        except FileExistsError:
            if not _stale(owner):
                raise _busy(folder, _holder(owner)) from None
            with contextlib.suppress(OSError):
                owner.unlink()
            with contextlib.suppress(OSError):
                os.rmdir(lockdir)
    else:
        raise _busy(folder, _holder(owner))
    owner.write_bytes(_describe_self())
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(_HEARTBEAT_S):
            with contextlib.suppress(OSError):
                os.utime(owner)

    thread = threading.Thread(target=beat, name="boundcheck-lock-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        with contextlib.suppress(OSError):
            owner.unlink()
        with contextlib.suppress(OSError):
            os.rmdir(lockdir)


def _stale(owner: Path) -> bool:
    try:
        info = json.loads(owner.read_text())
        age = time.time() - owner.stat().st_mtime
    except (OSError, ValueError):
        return True  # half-created by a process that died between mkdir and writing the owner
    if info.get("host") == socket.gethostname():
        try:
            os.kill(int(info["pid"]), 0)
        except ProcessLookupError:
            return True
        except (PermissionError, KeyError, ValueError, TypeError):
            return False
        return False
    return age > _STALE_S
