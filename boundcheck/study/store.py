"""Result store: one parquet file per chunk and table, plus ``manifest.json``; a store that can prove what it holds.

Layout of a results directory::

    manifest.json            theorem, scenario, configuration (+ its key), package version, n_chunks, and for
                             every chunk done: its runs and the size and sha256 of each of its files
    chunks/runs-00003.parquet, chunks/steps-00003.parquet
    claims.parquet, summary.json, gamma.parquet   (written when a study completes; their hashes in
                                                   ``manifest["files"]``)
    .lock                    the writers' advisory lock (see :func:`~boundcheck.utils.io.folder_lock`)

Integrity rules:

* a chunk file is written atomically (temporary file, fsync, rename) with parquet page checksums, and its
  sha256 is recorded in the manifest only after both of the chunk's files are in place: an interrupted run
  loses nothing already computed, and a half-written chunk is never recorded;
* every read verifies the file's bytes against the manifest's sha256 before parsing them. On resume
  (:meth:`ResultStore.done_chunks`), a chunk that fails (file missing, truncated, altered, recorded without a
  hash by an older version) is reported as an :class:`~boundcheck.errors.IntegrityWarning` (file, expected
  and found hash) and recomputed, never used; a read of a completed study refuses it with a one-line error;
* readers read exactly the chunks ``0 … n_chunks − 1`` that the manifest and the configuration name, and
  nothing else found in the folder; a folder holding chunk files but no manifest is refused;
* one writer at a time: :meth:`ResultStore.lock` (held by :func:`~boundcheck.study.runner.run_study`).
"""

from __future__ import annotations

import io
import math
import warnings
from collections.abc import Iterator
from pathlib import Path

import pandas as pd

from ..errors import BoundcheckError, IntegrityWarning
from ..utils.io import atomic_write_bytes, atomic_write_json, folder_lock, read_json, sha256_bytes, sync_directory

__all__ = ["ResultStore", "STORE_FORMAT", "parquet_bytes"]

#: 2: sha256 of every file in the manifest, n_chunks, page checksums (1: files trusted as found)
STORE_FORMAT = 2


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
        manifest = read_json(self.manifest_path, "manifest")
        if not isinstance(manifest.get("chunks", {}), dict) or not isinstance(manifest.get("files", {}), dict):
            raise BoundcheckError(f"corrupt manifest {self.manifest_path}: 'chunks' and 'files' must be objects")
        manifest.setdefault("chunks", {})
        return manifest

    def require_manifest(self) -> dict:
        if not self.root.is_dir():
            raise BoundcheckError(f"{self.root} is not a directory: not a boundcheck results directory")
        manifest = self.read_manifest()
        if manifest is None:
            raise BoundcheckError(f"{self.root} has no manifest.json: not a boundcheck results directory")
        return manifest

    def write_manifest(self, manifest: dict) -> None:
        atomic_write_json(self.manifest_path, manifest, default=str)

    def lock(self):
        """Context manager: the write lock of this results folder (refuses at once if another run holds it)."""
        return folder_lock(self.root)

    def _foreign_chunk_files(self) -> list[Path]:
        d = self.root / "chunks"
        return sorted(p for p in d.glob("*.parquet") if not p.name.startswith(".")) if d.is_dir() else []

    def check_compatible(self, key: str, config: dict | None = None) -> None:
        """Refuse, writing nothing, a folder this configuration cannot use: one that holds another
        configuration's results, or chunk files without a manifest (foreign or damaged)."""
        if self.root.exists() and not self.root.is_dir():
            raise BoundcheckError(f"{self.root} exists and is not a directory; use another --out")
        manifest = self.read_manifest()
        if manifest is None:
            foreign = self._foreign_chunk_files()
            if foreign:
                raise BoundcheckError(
                    f"{self.root} holds {len(foreign)} chunk file(s) but no manifest.json (not written by a "
                    f"boundcheck run, or its manifest was lost): refusing to mix them in; use another --out or "
                    f"remove the folder")
            return
        if manifest.get("config_key") != key:
            raise BoundcheckError(f"{self.root} holds results of a different configuration "
                                  f"({_config_diff(manifest.get('config'), config)}); use another --out or remove it")

    def open(self, config: dict, key: str, meta: dict, n_chunks: int | None = None) -> dict:
        """Start or resume a study (call it holding :meth:`lock`); refuse to mix results of different
        configurations. Clears temporary files a killed writer left behind."""
        self.check_compatible(key, config)
        for tmp in (self.root / "chunks").glob(".*.parquet.*"):
            tmp.unlink(missing_ok=True)
        manifest = self.read_manifest()
        if manifest is not None:
            if n_chunks is not None and manifest.get("n_chunks") != n_chunks:
                manifest["n_chunks"] = n_chunks
                self.write_manifest(manifest)
            return manifest
        manifest = {"config": config, "config_key": key, "store_format": STORE_FORMAT, "n_chunks": n_chunks,
                    "chunks": {}, "files": {}, **meta}
        self.write_manifest(manifest)
        return manifest

    def n_chunks(self, manifest: dict) -> int:
        """How many chunks the configuration has (recorded at open; derived for older manifests)."""
        n = manifest.get("n_chunks")
        if n is None:
            cfg = manifest.get("config") or {}
            try:
                n = math.ceil(int(cfg["runs"]) / int(cfg.get("chunk_size", 25)))
            except (KeyError, TypeError, ValueError):
                raise BoundcheckError(f"corrupt manifest {self.manifest_path}: no n_chunks and no runs") from None
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise BoundcheckError(f"corrupt manifest {self.manifest_path}: n_chunks = {n!r}")
        return n

    # ------------------------------------------------------------------ verification
    def _check_file(self, rel: str, record: dict | None) -> str | None:
        """Why the stored file ``rel`` cannot be trusted (None: it matches its record)."""
        if not isinstance(record, dict) or not isinstance(record.get("sha256"), str):
            return f"{rel} was recorded without a checksum (older boundcheck or damaged manifest)"
        path = self.root / rel
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return f"{rel} is missing (expected sha256 {record['sha256']}, found no file)"
        except OSError as exc:
            return f"{rel} cannot be read ({exc.strerror or exc})"
        found = sha256_bytes(data)
        if found != record["sha256"]:
            return (f"{rel} fails verification (expected sha256 {record['sha256']}, found {found}, "
                    f"{len(data)} of {record.get('bytes', '?')} bytes)")
        return None

    def done_chunks(self, manifest: dict | None = None) -> set[int]:
        """The chunks recorded in the manifest whose every file verifies. Each one that does not is reported
        (an :class:`IntegrityWarning`) and left out, so that a resume recomputes it."""
        manifest = manifest if manifest is not None else (self.read_manifest() or {"chunks": {}})
        limit = manifest.get("n_chunks")
        done = set()
        for c, info in manifest["chunks"].items():
            try:
                chunk = int(c)
            except ValueError:
                continue
            if limit is not None and not 0 <= chunk < limit:
                continue
            files = (info.get("files") if isinstance(info, dict) else None) or {}
            tables = sorted(set(files) | {"runs"})
            problems = [p for p in (self._check_file(self._rel(t, chunk), files.get(t)) for t in tables)
                        if p is not None]
            if problems:
                warnings.warn(f"stored chunk {chunk} is not used and will be recomputed: {'; '.join(problems)}",
                              IntegrityWarning, stacklevel=2)
            else:
                done.add(chunk)
        extra = [p.name for p in self._foreign_chunk_files() if not _names_a_chunk(p.name, limit, manifest)]
        if extra:
            warnings.warn(f"ignoring {len(extra)} file(s) in {self.root / 'chunks'} that the manifest does not name "
                          f"(e.g. {extra[0]})", IntegrityWarning, stacklevel=2)
        return done

    def forget_chunks(self, chunks: set[int]) -> None:
        """Drop chunks from the manifest (they failed verification and will be recomputed)."""
        if not chunks:
            return
        manifest = self.read_manifest()
        if manifest is None:
            return
        log = manifest.setdefault("integrity_events", [])
        for c in sorted(chunks):
            if manifest["chunks"].pop(str(c), None) is not None:
                log.append({"chunk": c, "event": "failed verification; recomputed"})
        del log[:-100]  # keep the manifest small
        self.write_manifest(manifest)

    # ------------------------------------------------------------------ chunks
    @staticmethod
    def _rel(table: str, chunk: int) -> str:
        return f"chunks/{table}-{chunk:05d}.parquet"

    def chunk_path(self, table: str, chunk: int) -> Path:
        return self.root / self._rel(table, chunk)

    def write_chunk(self, chunk: int, tables: dict[str, pd.DataFrame | bytes], info: dict) -> None:
        """Write every table of one chunk (atomically, with page checksums), then record the chunk and the
        sha256 of each file in the manifest (the chunk counts as done only from that moment). A table is a
        DataFrame or a parquet file a worker already encoded (:func:`parquet_bytes`); its hash is taken here,
        of exactly the bytes written."""
        self.write_chunks([(chunk, tables, info)])

    def write_chunks(self, items: list[tuple[int, dict[str, pd.DataFrame | bytes], dict]]) -> None:
        """:meth:`write_chunk` for the chunks of one task: every file written and flushed first, the folders
        flushed once, then one manifest update records them all (a crash in between leaves files the manifest
        does not know, recomputed on resume: never a recorded chunk without its file)."""
        records = {}
        folders = set()
        for chunk, tables, info in items:
            files = {}
            for name, df in tables.items():
                data = df if isinstance(df, bytes) else parquet_bytes(df)
                path = self.chunk_path(name, chunk)
                atomic_write_bytes(path, data, sync_dir=False)
                folders.add(path.parent)
                files[name] = {"file": self._rel(name, chunk), "sha256": sha256_bytes(data), "bytes": len(data)}
            records[str(chunk)] = {**info, "files": files}
        for folder in folders:
            sync_directory(folder)
        manifest = self.read_manifest()
        if manifest is None:
            raise BoundcheckError(f"{self.manifest_path} disappeared while the study was running")
        manifest["chunks"].update(records)
        self.write_manifest(manifest)

    def _verified_bytes(self, rel: str, record: dict | None) -> bytes:
        problem = self._check_file(rel, record)
        if problem is not None:
            raise BoundcheckError(f"stored results in {self.root} cannot be used: {problem}; re-run the same verify "
                                  f"command to recompute it")
        return (self.root / rel).read_bytes()

    def iter_table(self, table: str, columns: list[str] | None = None) -> Iterator[pd.DataFrame]:
        """The table ``runs`` or ``steps`` of a complete study one chunk at a time: exactly the chunks ``0 …
        n_chunks − 1`` of the manifest, in order, each verified against its sha256 (``columns``: only those
        that exist). Streaming summaries and reports hold one chunk, never runs × T rows."""
        manifest = self.require_manifest()
        n = self.n_chunks(manifest)
        missing = [c for c in range(n) if str(c) not in manifest["chunks"]]
        if missing:
            raise BoundcheckError(f"results in {self.root} are incomplete: {len(missing)} of {n} chunks not stored "
                                  f"(first: {missing[0]}); re-run the same verify command to finish them")
        if n == 0:
            raise BoundcheckError(f"no {table} results in {self.root}")
        for c in range(n):
            info = manifest["chunks"][str(c)]
            record = (info.get("files") or {}).get(table) if isinstance(info, dict) else None
            data = self._verified_bytes(self._rel(table, c), record)
            yield _read_parquet(data, columns, self._rel(table, c))

    def read_table(self, table: str, columns: list[str] | None = None) -> pd.DataFrame:
        """The whole table ``runs`` or ``steps`` (:meth:`iter_table`, concatenated), sorted by run, algorithm
        (and t); ``columns`` keeps large step tables light."""
        df = pd.concat(list(self.iter_table(table, columns)), ignore_index=True)
        if columns is not None and "algorithm" in df:  # categorical: a large step table stays light
            df["algorithm"] = df["algorithm"].astype("category")
        keys = [k for k in ("run", "algorithm", "t") if k in df]
        return df.sort_values(keys, kind="stable", ignore_index=True) if keys else df

    def has_table(self, table: str) -> bool:
        """Whether the study stored ``table`` (``runs``, ``steps``) with its chunks."""
        manifest = self.require_manifest()
        info = manifest["chunks"].get("0")
        return isinstance(info, dict) and table in (info.get("files") or {})

    # ------------------------------------------------------------------ final artefacts
    def _record_file(self, rel: str, data: bytes) -> None:
        manifest = self.read_manifest()
        if manifest is None:  # a store used without a manifest (tests): nothing to record in
            return
        manifest.setdefault("files", {})[rel] = {"sha256": sha256_bytes(data), "bytes": len(data)}
        self.write_manifest(manifest)

    def write_table(self, name: str, df: pd.DataFrame) -> None:
        data = parquet_bytes(df)
        atomic_write_bytes(self.root / f"{name}.parquet", data)
        self._record_file(f"{name}.parquet", data)

    def read_result_table(self, name: str) -> pd.DataFrame | None:
        """A table written by :meth:`write_table` (``claims``, ``gamma``), verified; None if absent."""
        rel = f"{name}.parquet"
        if not (self.root / rel).exists():
            return None
        record = (self.require_manifest().get("files") or {}).get(rel)
        data = self._verified_bytes(rel, record) if record is not None else (self.root / rel).read_bytes()
        return _read_parquet(data, None, rel)

    def write_json(self, name: str, obj: dict) -> None:
        import json

        data = json.dumps(obj, indent=2, default=float).encode()
        atomic_write_bytes(self.root / f"{name}.json", data)
        self._record_file(f"{name}.json", data)

    def read_json(self, name: str) -> dict:
        path = self.root / f"{name}.json"
        if not path.exists():
            raise BoundcheckError(f"{path} not found: is {self.root} a completed boundcheck results directory?")
        manifest = self.read_manifest()
        record = ((manifest or {}).get("files") or {}).get(f"{name}.json")
        if record is not None:
            self._verified_bytes(f"{name}.json", record)
        return read_json(path, "results file")


def _names_a_chunk(name: str, n_chunks: int | None, manifest: dict) -> bool:
    """``runs-00003.parquet`` / ``steps-00003.parquet`` of a chunk this configuration has (one of the first
    ``n_chunks``, or one the manifest records: a larger study of the same key stored it, and it is kept for when
    the study grows again)."""
    table, _, rest = name.partition("-")
    num = rest.removesuffix(".parquet")
    if table not in ("runs", "steps") or not num.isdigit() or len(num) < 5 or rest == num:
        return False
    c = int(num)
    return str(c) in manifest["chunks"] or (n_chunks is not None and 0 <= c < n_chunks)


def parquet_bytes(df: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    df.to_parquet(buf, index=False, write_page_checksum=True)
    return buf.getvalue()


def _read_parquet(data: bytes, columns: list[str] | None, what: str) -> pd.DataFrame:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        if columns is not None:
            have = set(pq.read_schema(pa.BufferReader(data)).names)
            columns = [c for c in columns if c in have]
        return pd.read_parquet(io.BytesIO(data), columns=columns, page_checksum_verification=True)
    except (OSError, ValueError, pa.ArrowException) as exc:  # verified bytes that do not parse: a bug upstream
        raise BoundcheckError(f"stored file {what} is not valid parquet: {exc}") from None


def _config_diff(stored, wanted) -> str:
    """The settings that differ between a stored configuration and the requested one (for the refusal)."""
    if not isinstance(stored, dict) or not isinstance(wanted, dict):
        return f"stored: {stored}"
    keys = [k for k in wanted if k != "fingerprints" and stored.get(k) != wanted.get(k)]
    fs, fw = stored.get("fingerprints") or {}, wanted.get("fingerprints") or {}
    keys += [f"{k} (content)" for k in fw if isinstance(fs, dict) and fs.get(k) != fw.get(k)]
    if not keys:
        return "stored under another key"
    return "; ".join(f"{k}: stored {stored.get(k.split(' ')[0])!r}, requested {wanted.get(k.split(' ')[0])!r}"
                     if not k.endswith("(content)") else f"{k} differs" for k in keys)
