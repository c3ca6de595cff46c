"""Result store: one parquet file per chunk and table, plus ``manifest.json``; atomic writes, resumable.

Layout of a results directory::

    manifest.json            theorem, scenario, configuration (+ its key), package version, chunks done
    chunks/runs-00003.parquet, chunks/steps-00003.parquet
    claims.parquet, summary.json, gamma.parquet   (written when a study completes)

A chunk is recorded in the manifest only after both of its files are in place, so an interrupted run
loses nothing already computed, and a re-run with the same configuration recomputes nothing stored.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pandas as pd

from .errors import BoundcheckError

__all__ = ["ResultStore"]


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _atomic_parquet(df: pd.DataFrame, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    os.close(fd)
    try:
        df.to_parquet(tmp, index=False)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class ResultStore:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    # ------------------------------------------------------------------ manifest
    @property
    def manifest_path(self) -> Path:
        return self.root / "manifest.json"

    def read_manifest(self) -> dict | None:
        if not self.manifest_path.exists():
            return None
        try:
            return json.loads(self.manifest_path.read_text())
        except json.JSONDecodeError as exc:
            raise BoundcheckError(f"corrupt manifest {self.manifest_path}: {exc}") from None

    def write_manifest(self, manifest: dict) -> None:
        _atomic_write_bytes(self.manifest_path, json.dumps(manifest, indent=2, default=str).encode())

    def open(self, config: dict, key: str, meta: dict) -> dict:
        """Start or resume a study; refuse to mix results of different configurations."""
        manifest = self.read_manifest()
        if manifest is not None:
            if manifest.get("config_key") != key:
                raise BoundcheckError(
                    f"{self.root} holds results of a different configuration "
                    f"({manifest.get('config', {})}); use another --out or remove it")
            return manifest
        manifest = {"config": config, "config_key": key, "chunks": {}, **meta}
        self.write_manifest(manifest)
        return manifest

    def done_chunks(self) -> set[int]:
        manifest = self.read_manifest() or {"chunks": {}}
        done = set()
        for c in manifest["chunks"]:
            if (self.chunk_path("runs", int(c))).exists() and (self.chunk_path("steps", int(c))).exists():
                done.add(int(c))
        return done

    # ------------------------------------------------------------------ chunks
    def chunk_path(self, table: str, chunk: int) -> Path:
        return self.root / "chunks" / f"{table}-{chunk:05d}.parquet"

    def write_chunk(self, chunk: int, tables: dict[str, pd.DataFrame], info: dict) -> None:
        for name, df in tables.items():
            _atomic_parquet(df, self.chunk_path(name, chunk))
        manifest = self.read_manifest()
        assert manifest is not None
        manifest["chunks"][str(chunk)] = info
        self.write_manifest(manifest)

    def read_table(self, table: str) -> pd.DataFrame:
        files = sorted((self.root / "chunks").glob(f"{table}-*.parquet"))
        if not files:
            raise BoundcheckError(f"no {table} results in {self.root}")
        df = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
        return df.sort_values(["run", "algorithm"] + (["t"] if "t" in df else []), kind="stable",
                              ignore_index=True)

    # ------------------------------------------------------------------ final artefacts
    def write_table(self, name: str, df: pd.DataFrame) -> None:
        _atomic_parquet(df, self.root / f"{name}.parquet")

    def write_json(self, name: str, obj: dict) -> None:
        _atomic_write_bytes(self.root / f"{name}.json", json.dumps(obj, indent=2, default=float).encode())

    def read_json(self, name: str) -> dict:
        path = self.root / f"{name}.json"
        if not path.exists():
            raise BoundcheckError(f"{path} not found: is {self.root} a completed boundcheck results directory?")
        return json.loads(path.read_text())
