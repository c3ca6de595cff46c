"""Result store: one parquet file per chunk and table, plus ``manifest.json``; atomic writes, resumable.

Layout of a results directory::

    manifest.json            theorem, scenario, configuration (+ its key), package version, chunks done
    chunks/runs-00003.parquet, chunks/steps-00003.parquet
    claims.parquet, summary.json, gamma.parquet   (written when a study completes)

A chunk is recorded in the manifest only after both of its files are in place, so an interrupted run
loses nothing already computed, and a re-run with the same configuration recomputes nothing stored.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..errors import BoundcheckError
from ..utils.io import atomic_write, atomic_write_json, read_json

__all__ = ["ResultStore"]


class ResultStore:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    # ------------------------------------------------------------------ manifest
    @property
    def manifest_path(self) -> Path:
        return self.root / "manifest.json"

    def read_manifest(self) -> dict | None:
        """The manifest, or None for a folder that has none (the one manifest loader)."""
        if not self.manifest_path.exists():
            return None
        return read_json(self.manifest_path, "manifest")

    def require_manifest(self) -> dict:
        manifest = self.read_manifest()
        if manifest is None:
            raise BoundcheckError(f"{self.root} has no manifest.json: not a boundcheck results directory")
        return manifest

    def write_manifest(self, manifest: dict) -> None:
        atomic_write_json(self.manifest_path, manifest, default=str)

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

    def write_chunk(self, chunk: int, tables: dict[str, pd.DataFrame | bytes], info: dict) -> None:
        """Store one chunk's tables (DataFrames, or parquet files already encoded by a worker) and record it."""
        for name, df in tables.items():
            if isinstance(df, bytes):
                atomic_write(self.chunk_path(name, chunk), lambda tmp, data=df: Path(tmp).write_bytes(data),
                             mode=None)
            else:
                _write_parquet(df, self.chunk_path(name, chunk))
        manifest = self.read_manifest()
        assert manifest is not None
        manifest["chunks"][str(chunk)] = info
        self.write_manifest(manifest)

    def iter_table(self, table: str, columns: list[str] | None = None):
        """The stored chunks of ``table`` one at a time (only ``columns`` that a chunk has, where given):
        streaming summaries and reports hold one chunk, never runs × T rows."""
        import pyarrow.parquet as pq

        for f in sorted((self.root / "chunks").glob(f"{table}-*.parquet")):
            if columns is None:
                yield pd.read_parquet(f)
            else:
                have = set(pq.read_schema(f).names)
                yield pd.read_parquet(f, columns=[c for c in columns if c in have])

    def read_table(self, table: str) -> pd.DataFrame:
        files = sorted((self.root / "chunks").glob(f"{table}-*.parquet"))
        if not files:
            raise BoundcheckError(f"no {table} results in {self.root}")
        df = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
        return df.sort_values(["run", "algorithm"] + (["t"] if "t" in df else []), kind="stable",
                              ignore_index=True)

    # ------------------------------------------------------------------ final artefacts
    def write_table(self, name: str, df: pd.DataFrame) -> None:
        _write_parquet(df, self.root / f"{name}.parquet")

    def write_json(self, name: str, obj: dict) -> None:
        atomic_write_json(self.root / f"{name}.json", obj, default=float)

    def read_json(self, name: str) -> dict:
        path = self.root / f"{name}.json"
        if not path.exists():
            raise BoundcheckError(f"{path} not found: is {self.root} a completed boundcheck results directory?")
        return read_json(path, "results file")


def _write_parquet(df: pd.DataFrame, path: Path) -> None:
    atomic_write(path, lambda tmp: df.to_parquet(tmp, index=False), mode=None)
