"""Result store: one parquet file per chunk and table, plus ``manifest.json``; a store that can prove what it holds.

Every chunk file is written atomically with its sha256 recorded in the manifest only once both of the chunk's
files are in place, and every read verifies the bytes against that hash before parsing them: an interrupted run
loses nothing already computed, and a damaged chunk is reported (:class:`~boundcheck.errors.IntegrityWarning`)
and recomputed, never used. Readers read exactly the chunks the manifest and the configuration name; one writer
at a time holds :meth:`ResultStore.lock`. Each chunk also carries its own record (configuration key and hashes),
so :func:`repair` (``boundcheck store repair DIR``) rebuilds a damaged manifest from ``store.json`` and the
chunks that verify; :func:`check` lists what verifies.

The folder's layout and the integrity rules: docs/study.md, "The store".
"""

from __future__ import annotations

import io
import json
import math
import warnings
from collections.abc import Iterator
from pathlib import Path

import pandas as pd

from ..errors import BoundcheckError, IntegrityWarning
from ..utils.io import atomic_write_bytes, atomic_write_json, folder_lock, read_json, sha256_bytes, sync_directory

__all__ = ["ResultStore", "STORE_FORMAT", "parquet_bytes", "check", "repair", "find_store"]

#: 2: sha256 of every file in the manifest, n_chunks, page checksums (1: files trusted as found); stores of
#: format 2 may also hold store.json and per-chunk records (readers that predate them ignore them)
STORE_FORMAT = 2
_NOT_HEADER = ("chunks", "files", "integrity_events")


class ResultStore:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._backfill = False  # set by open(): this process holds the folder for writing

    # ------------------------------------------------------------------ manifest
    @property
    def manifest_path(self) -> Path:
        return self.root / "manifest.json"

    @property
    def header_path(self) -> Path:
        return self.root / "store.json"

    def read_manifest(self) -> dict | None:
        """The manifest, or None for a folder that has none (the one manifest loader). A damaged one is a
        one-line error naming the command that repairs it."""
        if not self.manifest_path.exists():
            return None
        try:
            manifest = read_json(self.manifest_path, "manifest")
            if not isinstance(manifest.get("chunks", {}), dict) or not isinstance(manifest.get("files", {}), dict):
                raise BoundcheckError(f"corrupt manifest {self.manifest_path}: 'chunks' and 'files' must be objects")
        except BoundcheckError as exc:
            raise BoundcheckError(f"{exc}; `boundcheck store repair {self.root}` rebuilds it from the verified "
                                  f"chunks") from None
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

    def write_header(self, manifest: dict) -> None:
        """Record the manifest's header (everything but the chunks and the final files) in ``store.json``: what
        :func:`repair` rebuilds a damaged manifest from. Rewritten only when it changes."""
        header = {k: v for k, v in manifest.items() if k not in _NOT_HEADER}
        try:
            if read_json(self.header_path, "store header") == json.loads(json.dumps(header, default=str)):
                return
        except BoundcheckError:
            pass
        atomic_write_json(self.header_path, header, default=str)

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
                    f"boundcheck run, or its manifest was lost): refusing to mix them in; `boundcheck store repair "
                    f"{self.root}` rebuilds a lost manifest from the verified chunks, or use another --out or "
                    f"remove the folder")
            return
        if manifest.get("config_key") != key:
            raise BoundcheckError(f"{self.root} holds results of a different configuration "
                                  f"({_config_diff(manifest.get('config'), config)}); use another --out or remove it")

    def open(self, config: dict, key: str, meta: dict, n_chunks: int | None = None) -> dict:
        """Start or resume a study (call it holding :meth:`lock`); refuse to mix results of different
        configurations. Clears temporary files a killed writer left behind."""
        self.check_compatible(key, config)
        for pattern in (".*.parquet.*", ".chunk-*.json.*"):
            for tmp in (self.root / "chunks").glob(pattern):
                tmp.unlink(missing_ok=True)
        self._backfill = True  # done_chunks may now write the record of a verified chunk that lacks one
        manifest = self.read_manifest()
        if manifest is not None:
            if n_chunks is not None and manifest.get("n_chunks") != n_chunks:
                manifest["n_chunks"] = n_chunks
                self.write_manifest(manifest)
            self.write_header(manifest)  # also for a folder written before store.json existed
            return manifest
        manifest = {"config": config, "config_key": key, "store_format": STORE_FORMAT, "n_chunks": n_chunks,
                    "chunks": {}, "files": {}, **meta}
        self.write_header(manifest)
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
        return self._read_checked(rel, record)[1]

    def _read_checked(self, rel: str, record: dict | None) -> tuple[bytes | None, str | None]:
        """The stored file ``rel`` read once: (its bytes, None) when they match its record, else (None, why not)."""
        if not isinstance(record, dict) or not isinstance(record.get("sha256"), str):
            return None, f"{rel} was recorded without a checksum (older boundcheck or damaged manifest)"
        path = self.root / rel
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None, f"{rel} is missing (expected sha256 {record['sha256']}, found no file)"
        except OSError as exc:
            return None, f"{rel} cannot be read ({exc.strerror or exc})"
        found = sha256_bytes(data)
        if found != record["sha256"]:
            return None, (f"{rel} fails verification (expected sha256 {record['sha256']}, found {found}, "
                          f"{len(data)} of {record.get('bytes', '?')} bytes)")
        return data, None

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
                if self._backfill and not self._record_path(chunk).exists():
                    # verified through the manifest: give it the record that lets repair recover it later
                    self._write_record(manifest.get("config_key"), chunk, info)
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

    def _record_path(self, chunk: int) -> Path:
        return self.root / "chunks" / f"chunk-{chunk:05d}.json"

    def _write_record(self, key, chunk: int, info: dict) -> None:
        """The chunk's own record (key + its manifest entry), flushed beside its files (folder flushed by the
        caller)."""
        record = {"store_format": STORE_FORMAT, "config_key": key, "chunk": chunk, "record": info}
        atomic_write_bytes(self._record_path(chunk), json.dumps(record, default=str).encode(), sync_dir=False)

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
        manifest = self.read_manifest()
        if manifest is None:
            raise BoundcheckError(f"{self.manifest_path} disappeared while the study was running")
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
            self._write_record(manifest.get("config_key"), chunk, records[str(chunk)])
        for folder in folders:
            sync_directory(folder)
        manifest["chunks"].update(records)
        self.write_manifest(manifest)

    def _verified_bytes(self, rel: str, record: dict | None) -> bytes:
        """The bytes that were verified (read once: a file replaced between a check and a second read would
        otherwise be used unverified)."""
        data, problem = self._read_checked(rel, record)
        if problem is not None:
            raise BoundcheckError(f"stored results in {self.root} cannot be used: {problem}; re-run the same verify "
                                  f"command to recompute it")
        return data

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


# ---------------------------------------------------------------------------------------------- check and repair
#: final files a completed study writes from its chunks (recomputed by a rerun; no per-file record of their own)
_FINAL_FILES = ("summary.json", "claims.parquet", "gamma.parquet")


def find_store(path: str | Path) -> ResultStore:
    """The store at ``path``: a results folder, or the ``--out`` folder of a verify holding ``results/``. A
    path that is neither is a one-line :class:`BoundcheckError` (exit 2)."""
    root = Path(path)
    if not root.exists():
        raise BoundcheckError(f"{root} not found")
    if not root.is_dir():
        raise BoundcheckError(f"{root} is not a directory: give the folder verify wrote (OUT or OUT/results)")

    def looks_like(d: Path) -> bool:
        return (d / "manifest.json").exists() or (d / "store.json").exists() or (d / "chunks").is_dir()

    if not looks_like(root) and looks_like(root / "results"):
        root = root / "results"
    if not looks_like(root):
        raise BoundcheckError(f"{root} is not a boundcheck results folder (no manifest.json, store.json or chunks/)")
    return ResultStore(root)


def _chunk_of(name: str, prefix: str, suffix: str) -> int | None:
    num = name.removeprefix(prefix).removesuffix(suffix)
    return int(num) if name.startswith(prefix) and name.endswith(suffix) and num.isdigit() else None


def _recover(store: ResultStore, key) -> tuple[dict[str, dict], dict[str, str]]:
    """The chunks proven by their own records (``chunk-NNNNN.json``): ``{chunk: manifest entry}`` for those whose
    key is ``key`` and whose every file verifies, and ``{file or chunk: why not}`` for the rest (chunk files
    without a record included)."""
    chunks_dir = store.root / "chunks"
    good: dict[str, dict] = {}
    refused: dict[str, str] = {}
    names = sorted(p.name for p in chunks_dir.iterdir() if not p.name.startswith(".")) if chunks_dir.is_dir() else []
    for name in names:
        c = _chunk_of(name, "chunk-", ".json")
        if c is None:
            continue
        try:
            rec = json.loads((chunks_dir / name).read_bytes())
            info = rec["record"]
            files = info["files"]
            ok_shape = (rec.get("chunk") == c and isinstance(files, dict) and "runs" in files
                        and isinstance(info.get("runs"), list))
        except (OSError, ValueError, KeyError, TypeError):
            ok_shape = False
        if not ok_shape:
            refused[f"chunk {c}"] = f"its record chunks/{name} is unreadable or incomplete"
            continue
        if rec.get("config_key") != key:
            refused[f"chunk {c}"] = (f"belongs to another configuration (key {rec.get('config_key')!r}, this "
                                     f"store's {key!r})")
            continue
        if any(not isinstance(r, dict) or r.get("file", store._rel(t, c)) != store._rel(t, c)
               for t, r in files.items()):
            refused[f"chunk {c}"] = f"its record chunks/{name} names files of another chunk"
            continue
        problems = [p for p in (store._check_file(store._rel(t, c), files[t]) for t in sorted(files)) if p]
        if problems:
            refused[f"chunk {c}"] = "; ".join(problems)
            continue
        good[str(c)] = info
    for name in names:  # chunk files that no record accounts for
        table, _, rest = name.partition("-")
        c = _chunk_of(rest, "", ".parquet") if table in ("runs", "steps") else None
        if c is not None and str(c) not in good and f"chunk {c}" not in refused:
            refused[f"chunk {c}"] = (f"chunks/{name} has no record of the configuration it was computed under "
                                     f"(written by an older boundcheck, or its chunk-{c:05d}.json is lost)")
    return good, refused


def _plain(obj):
    """``obj`` as JSON reads it back (tuples as lists, keys as strings): a record compared with the manifest."""
    return json.loads(json.dumps(obj, default=str))


def _ranges(chunks) -> str:
    """``0-4, 7, 9-10``: a list of chunks in a line."""
    xs = sorted(int(c) for c in chunks)
    out: list[str] = []
    i = 0
    while i < len(xs):
        j = i
        while j + 1 < len(xs) and xs[j + 1] == xs[j] + 1:
            j += 1
        out.append(str(xs[i]) if i == j else f"{xs[i]}-{xs[j]}")
        i = j + 1
    return ", ".join(out) or "none"


def check(path: str | Path) -> dict:
    """What a results folder holds and what of it verifies, writing nothing.

    Returns ``{"path", "status", "manifest", "header", "config_key", "n_chunks", "verified", "missing",
    "damaged", "recoverable", "records", "refused", "files", "problems", "message"}``: ``status`` is ``"ok"`` (the
    manifest reads, every chunk and file it records verifies, and so does what would rebuild it if it were lost:
    ``store.json`` names its configuration and every verified chunk has its own record; ``missing`` chunks are
    work a rerun finishes), ``"damaged"`` (:func:`repair` fixes it: ``damaged`` recorded chunks, unrecorded but
    ``recoverable`` chunks, verified chunks whose own record is missing, unreadable or says something else
    (``records``: chunk → why), a missing, unreadable or foreign ``store.json`` beside a readable manifest
    (``header``), or an unreadable manifest with ``store.json`` beside it) or ``"unrepairable"`` (no readable
    manifest and no ``store.json``: nothing proves which configuration the chunks belong to). ``verified``: the
    chunks usable as the store stands (after a repair, for a damaged manifest). ``problems``: one line per thing
    found wrong. A path that is not a results folder is a :class:`BoundcheckError`."""
    store = find_store(path)
    out: dict = {"path": str(store.root), "manifest": "ok", "header": "ok", "config_key": None, "n_chunks": None,
                 "verified": [], "missing": [], "damaged": {}, "recoverable": [], "records": {}, "refused": {},
                 "files": {}, "problems": []}
    try:
        manifest = store.read_manifest()
        if manifest is None:
            out["manifest"] = "missing"
    except BoundcheckError as exc:
        manifest = None
        out["manifest"] = str(exc).split("; `boundcheck store repair")[0]
    try:
        header = read_json(store.header_path, "store header") if store.header_path.exists() else None
        if header is None:
            out["header"] = "missing"
        elif "config_key" not in header:
            header, out["header"] = None, f"store header {store.header_path} has no config_key"
    except BoundcheckError as exc:
        header, out["header"] = None, str(exc)
    base = manifest if manifest is not None else header
    if base is None:
        out["status"] = "unrepairable"
        _, refused = _recover(store, object())  # lists the chunk files found, none provable
        out["refused"] = {c: "no readable manifest.json or store.json names this store's configuration"
                          for c in refused}
        out["problems"] = [f"manifest.json: {out['manifest']}", f"store.json: {out['header']}"]
        out["message"] = (f"{store.root}: manifest {out['manifest']}, store.json {out['header']}: nothing proves "
                          f"which configuration the {len(refused)} chunk(s) found belong to; re-run verify into "
                          f"another --out")
        return out
    key = base.get("config_key")
    out["config_key"] = key
    if manifest is not None and header is not None and header.get("config_key") != key:
        header, out["header"] = None, (f"store header {store.header_path} names another configuration (key "
                                       f"{header.get('config_key')!r}; the manifest's is {key!r})")
    try:
        n = store.n_chunks(base) if manifest is not None else int(base.get("n_chunks") or 0)
    except (BoundcheckError, TypeError, ValueError):
        n = 0
    out["n_chunks"] = n
    recovered, refused = _recover(store, key)
    if manifest is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IntegrityWarning)
            verified = store.done_chunks(manifest)
        limit = manifest.get("n_chunks")  # chunks beyond it (of a larger study of the same key) are kept, unread
        recorded = {int(c) for c in manifest["chunks"] if str(c).isdigit() and (limit is None or int(c) < limit)}
        verified &= recorded
        for c in sorted(recorded - verified):
            info = manifest["chunks"][str(c)]
            files = (info.get("files") if isinstance(info, dict) else None) or {}
            out["damaged"][str(c)] = "; ".join(
                p for p in (store._check_file(store._rel(t, c), files.get(t)) for t in sorted(set(files) | {"runs"}))
                if p) or "outside the configuration's chunks"
        out["recoverable"] = sorted(int(c) for c in recovered if int(c) not in recorded)
        # what would rebuild the manifest if it were lost: each verified chunk's own record, saying what it does
        for c in sorted(verified):
            rec = store._record_path(c)
            if str(c) in recovered:
                if _plain(recovered[str(c)]) != _plain(manifest["chunks"][str(c)]):
                    out["records"][str(c)] = f"its record chunks/{rec.name} differs from the manifest's entry"
            elif not rec.exists():
                out["records"][str(c)] = f"its record chunks/{rec.name} is missing"
            else:
                out["records"][str(c)] = refused.get(f"chunk {c}", f"its record chunks/{rec.name} is unreadable")
        refused = {c: why for c, why in refused.items()
                   if int(c.split()[1]) not in verified and c.split()[1] not in out["damaged"]}
        for rel, record in sorted((manifest.get("files") or {}).items()):
            out["files"][rel] = store._check_file(rel, record) or "ok"
    else:
        verified = {int(c) for c in recovered}
        out["recoverable"] = sorted(verified)
        for rel in _FINAL_FILES:
            if (store.root / rel).exists():
                out["files"][rel] = "unverifiable (its record was in the lost manifest); a rerun rebuilds it"
    out["verified"] = sorted(verified)
    out["missing"] = [c for c in range(n) if c not in verified and c not in out["recoverable"]]
    out["refused"] = refused
    bad_files = [rel for rel, st in out["files"].items() if st != "ok"]
    header_bad = manifest is not None and out["header"] != "ok"
    damaged = manifest is None or out["damaged"] or out["recoverable"] or bad_files or out["records"] or header_bad
    out["status"] = "damaged" if damaged else "ok"
    out["problems"] = (
        ([f"manifest.json: {out['manifest']}"] if manifest is None else [])
        + [f"chunk {c}: {why}" for c, why in out["damaged"].items()]
        + [f"chunk {c}: verified, but the manifest does not record it" for c in out["recoverable"]]
        + [f"chunk {c}: {why} (a lost manifest could not be rebuilt with this chunk)"
           for c, why in out["records"].items()]
        + ([f"store.json: {out['header']} (a lost manifest could not be rebuilt)"] if header_bad else [])
        + [f"{rel}: {out['files'][rel]}" for rel in bad_files])
    if damaged:
        out["message"] = (f"{store.root}: {'manifest ' + out['manifest'] + '; ' if manifest is None else ''}"
                          f"chunks that verify: {_ranges(verified)}; damaged: {_ranges(out['damaged'])}; "
                          f"{'records to rewrite: ' + _ranges(out['records']) + '; ' if out['records'] else ''}"
                          f"{'store.json to rewrite; ' if header_bad else ''}refused: {len(refused)}; "
                          f"`boundcheck store repair {store.root}` rebuilds the manifest and the records from the "
                          f"verified chunks, then re-run the same verify command to recompute the rest")
    else:
        out["message"] = (f"{store.root}: every recorded chunk and file verifies ({len(verified)} of {n} chunks"
                          f"{'; re-run the same verify command to finish the rest' if out['missing'] else ''})")
    return out


def repair(path: str | Path) -> dict:
    """Rebuild the manifest of a damaged results folder from what verifies (holding the folder's lock).

    With a readable manifest: drop the recorded chunks that fail verification (and the final files that do)
    and add the chunks whose own records verify but that the manifest missed (a run killed between writing a
    chunk and recording it). With an unreadable or missing manifest: a new one from ``store.json`` and every
    chunk whose record carries this configuration's key and whose files match their sha256; the damaged
    manifest is kept as ``manifest.json.damaged`` and the final files it vouched for are set aside as
    ``<name>.unverified`` (a rerun rebuilds them). A rerun of the same verify command then computes only the
    chunks not recovered, and its results are bit-identical to an uninterrupted run's.

    Returns :func:`check`'s dict after the repair, with ``"repaired"``: what was done (``status`` stays
    ``"unrepairable"`` when there is no configuration to rebuild from, and nothing is written then)."""
    store = find_store(path)
    before = check(store.root)
    if before["status"] != "damaged":
        return {**before, "repaired": []}
    done: list[str] = []
    with store.lock():
        try:
            manifest = store.read_manifest()
        except BoundcheckError:
            manifest = None
        recovered, _ = _recover(store, before["config_key"])
        if manifest is None:
            header = read_json(store.header_path, "store header")
            if store.manifest_path.exists():
                store.manifest_path.replace(store.root / "manifest.json.damaged")
                done.append("kept the damaged manifest as manifest.json.damaged")
            for rel in _FINAL_FILES:
                if (store.root / rel).exists():
                    (store.root / rel).replace(store.root / f"{rel}.unverified")
                    done.append(f"set aside {rel} as {rel}.unverified (a rerun rebuilds it)")
            manifest = {**header, "chunks": dict(sorted(recovered.items(), key=lambda kv: int(kv[0]))), "files": {}}
            done.append(f"rebuilt manifest.json from store.json and {len(recovered)} verified chunk(s): "
                        f"{_ranges(recovered)}")
        else:
            for c in before["damaged"]:
                manifest["chunks"].pop(c, None)
            if before["damaged"]:
                done.append(f"dropped {len(before['damaged'])} damaged chunk(s): {_ranges(before['damaged'])}")
            for c in before["recoverable"]:
                manifest["chunks"][str(c)] = recovered[str(c)]
            if before["recoverable"]:
                done.append(f"recorded {len(before['recoverable'])} verified chunk(s) the manifest missed: "
                            f"{_ranges(before['recoverable'])}")
            for rel, st in before["files"].items():
                if st != "ok":
                    manifest["files"].pop(rel, None)
                    if (store.root / rel).exists():
                        (store.root / rel).replace(store.root / f"{rel}.unverified")
                    done.append(f"set aside {rel} as {rel}.unverified (a rerun rebuilds it)")
            for c in before["records"]:  # verified through the manifest: their records from its entries
                store._write_record(manifest.get("config_key"), int(c), manifest["chunks"][c])
            if before["records"]:
                sync_directory(store.root / "chunks")
                done.append(f"rewrote the record(s) of {len(before['records'])} verified chunk(s) from the manifest: "
                            f"{_ranges(before['records'])}")
            if before["header"] != "ok":
                store.write_header(manifest)
                done.append("rewrote store.json from the manifest")
        log = manifest.setdefault("integrity_events", [])
        log.append({"event": "store repair: " + "; ".join(done)})
        del log[:-100]
        store.write_manifest(manifest)
        sync_directory(store.root)
    after = check(store.root)
    return {**after, "repaired": done}
