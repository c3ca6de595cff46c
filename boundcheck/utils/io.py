"""Atomic file writes (write to a temporary file in the same folder, then rename) and JSON reading with
one-line errors. Every file boundcheck writes goes through here, so a crash never leaves half a file."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from ..errors import BoundcheckError

__all__ = ["atomic_write", "atomic_write_bytes", "atomic_write_text", "atomic_write_json", "read_json"]


def atomic_write(path: Path, writer: Callable[[str], None], mode: int | None = 0o644) -> Path:
    """Call ``writer(tmp_path)`` then rename the temporary file onto ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    os.close(fd)
    try:
        writer(tmp)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def atomic_write_bytes(path: Path, data: bytes) -> Path:
    return atomic_write(path, lambda tmp: Path(tmp).write_bytes(data))


def atomic_write_text(path: Path, text: str, encoding: str = "utf-8") -> Path:
    return atomic_write_bytes(path, text.encode(encoding))


def atomic_write_json(path: Path, obj, default=float) -> Path:
    return atomic_write_bytes(path, json.dumps(obj, indent=2, default=default).encode())


def read_json(path: Path, what: str = "file") -> dict:
    """Parse a JSON file; a missing or corrupt file is a one-line :class:`BoundcheckError`."""
    path = Path(path)
    if not path.exists():
        raise BoundcheckError(f"{what} {path} not found")
    try:
        return json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BoundcheckError(f"corrupt {what} {path}: {exc}") from None
