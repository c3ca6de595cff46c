"""A store that can prove what it holds, and repair. Fault injection (flip a byte, truncate, delete, foreign
chunks), the folder lock, and SIGKILL of a multi-worker run at random moments followed by a resume: each fault
is detected and recomputed or refused, and the final summary equals an uninterrupted run's.

``boundcheck store check|repair DIR`` lists what verifies and rebuilds the manifest from the chunks whose sha256
verifies and whose own record carries the folder's configuration key; the rerun then recomputes only the rest,
bit-identical to an uninterrupted run."""

import errno
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pandas as pd
import pytest

from boundcheck import api
from boundcheck.cli import main
from boundcheck.errors import BoundcheckError, IntegrityWarning
from boundcheck.study.runner import RunOptions, run_study
from boundcheck.study.store import ResultStore
from boundcheck.utils import io as bio

ROOT = Path(__file__).resolve().parents[2]
TIMING = ("elapsed_s", "compute_s_total")


def _study(out: Path, seed: int = 3, runs: int = 9, jobs: int = 1) -> dict:
    """gp_ucb in 3 chunks of 3 runs (small chunks, so that one chunk can be damaged and the others not)."""
    spec = api.build_study("gp_ucb", runs=runs, horizon=10, seed=seed, chunk_size=3)
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta)
    return run_study(spec, inst, out / "results", RunOptions(jobs=jobs), in_theory=True, reasons=[])


def _same(a: dict, b: dict) -> bool:
    """Equal summaries apart from timing (compared as JSON, where NaN equals NaN)."""
    def canon(s):
        return json.dumps({k: v for k, v in s.items() if k not in TIMING}, sort_keys=True, default=str)

    return canon(a) == canon(b)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref")
    return _study(out), out


def _flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _replace_with_other_seed(path: Path, tmp: Path) -> None:
    other = tmp / "other"
    _study(other, seed=99)
    shutil.copy(other / "results" / "chunks" / path.name, path)


FAULTS = {
    "flip a byte": ("runs", 1, lambda p, tmp: _flip(p)),
    "truncate": ("steps", 2, lambda p, tmp: _truncate(p)),
    "delete": ("runs", 0, lambda p, tmp: p.unlink()),
    "foreign chunk in its place": ("runs", 1, _replace_with_other_seed),
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_fault_is_detected_refused_then_recomputed(fault, reference, tmp_path):
    ref_summary, ref_out = reference
    shutil.copytree(ref_out, tmp_path / "run")
    out = tmp_path / "run"
    table, chunk, damage = FAULTS[fault]
    store = ResultStore(out / "results")
    target = store.chunk_path(table, chunk)
    expected = store.read_manifest()["chunks"][str(chunk)]["files"][table]["sha256"]
    damage(target, tmp_path)
    # a read of the completed study refuses the damaged chunk, naming the file
    with pytest.raises(BoundcheckError, match=f"{table}-{chunk:05d}.parquet"):
        store.read_table(table)
    untouched = {p: p.stat().st_mtime_ns for p in (out / "results" / "chunks").glob("*.parquet")
                 if not p.name.endswith(f"-{chunk:05d}.parquet")}
    with pytest.warns(IntegrityWarning, match=f"stored chunk {chunk} is not used and will be recomputed") as rec:
        summary = _study(out)
    msg = str(rec[0].message)
    assert f"{table}-{chunk:05d}.parquet" in msg and f"expected sha256 {expected}" in msg
    if fault != "delete":
        assert "found " in msg and f"found {expected}" not in msg
    assert _same(summary, ref_summary)
    for p, mtime in untouched.items():  # nothing else was recomputed
        assert p.stat().st_mtime_ns == mtime, p.name
    manifest = store.read_manifest()
    assert manifest["integrity_events"][-1]["chunk"] == chunk
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the repaired store verifies silently
        assert store.done_chunks() == {0, 1, 2}


def test_a_chunk_file_replaced_after_its_check_is_never_used_unverified(reference, tmp_path, monkeypatch):
    """A reader uses the very bytes it verified: a file replaced between the check and the use (another
    process, a sync tool) cannot slip in unverified. Planted: every read after a file's first returns other bytes."""
    out = tmp_path / "copy"
    shutil.copytree(reference[1], out)
    store = ResultStore(out / "results")
    good = [df.copy() for df in store.iter_table("runs")]
    seen: set[str] = set()
    real = Path.read_bytes

    def read_bytes(self):
        data = real(self)
        if self.name.startswith("runs-") and str(self) in seen:  # a second read: the file changed meanwhile
            return data[: len(data) // 2]
        seen.add(str(self))
        return data

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    seen.clear()
    for a, b in zip(good, store.iter_table("runs"), strict=True):
        assert a.equals(b)


def test_foreign_files_beside_the_chunks_are_ignored(reference, tmp_path):
    ref_summary, ref_out = reference
    shutil.copytree(ref_out, tmp_path / "run")
    chunks = tmp_path / "run" / "results" / "chunks"
    shutil.copy(chunks / "runs-00000.parquet", chunks / "runs-00099.parquet")  # 3 more runs, named by no one
    shutil.copy(chunks / "steps-00000.parquet", chunks / "steps-00099.parquet")
    store = ResultStore(tmp_path / "run" / "results")
    assert len(store.read_table("runs")) == len(ResultStore(ref_out / "results").read_table("runs"))
    with pytest.warns(IntegrityWarning, match="ignoring 2 file"):
        summary = _study(tmp_path / "run")
    assert _same(summary, ref_summary) and summary["runs"] == 9


def test_chunks_without_a_manifest_are_refused(reference, tmp_path):
    """A folder holding another study's chunks and no manifest, rerun with fewer runs."""
    _, ref_out = reference
    shutil.copytree(ref_out, tmp_path / "run")
    (tmp_path / "run" / "results" / "manifest.json").unlink()
    before = sorted(p.name for p in (tmp_path / "run" / "results").rglob("*"))
    with pytest.raises(BoundcheckError, match="no manifest.json"):
        _study(tmp_path / "run", runs=3)
    assert sorted(p.name for p in (tmp_path / "run" / "results").rglob("*")) == before


def test_another_configuration_is_refused_naming_the_difference(reference, tmp_path):
    _, ref_out = reference
    shutil.copytree(ref_out, tmp_path / "run")
    with pytest.raises(BoundcheckError, match=r"seed: stored 3, requested 4"):
        _study(tmp_path / "run", seed=4)


def test_damaged_summary_and_manifest_are_refused_by_report(reference, tmp_path, capsys):
    _, ref_out = reference
    shutil.copytree(ref_out, tmp_path / "run")
    results = tmp_path / "run" / "results"
    summary = json.loads((results / "summary.json").read_text())
    summary["verdict"] = "holds" if summary["verdict"] != "holds" else "violated"  # well-formed, but altered
    (results / "summary.json").write_text(json.dumps(summary))
    assert main(["report", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "summary.json fails verification" in err
    _study(tmp_path / "run")  # a resume rebuilds the summary from the verified chunks
    assert ResultStore(results).read_json("summary")["verdict"] != summary["verdict"]
    (results / "manifest.json").write_text('{"chunks": [1, 2]')
    assert main(["report", str(results)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("boundcheck: error: corrupt manifest") and err.count("\n") == 1


def test_resume_reports_this_runs_time_not_the_sum(reference, tmp_path):
    _, ref_out = reference
    shutil.copytree(ref_out, tmp_path / "run")
    first = json.loads((ref_out / "results" / "manifest.json").read_text())
    ResultStore(tmp_path / "run" / "results").chunk_path("runs", 1).unlink()  # one chunk to compute again
    with pytest.warns(IntegrityWarning, match="recomputed"):
        again = _study(tmp_path / "run")
    assert again["compute_s_total"] == pytest.approx(first["compute_s_total"] + again["elapsed_s"])
    assert again["elapsed_s"] < again["compute_s_total"]


def test_a_resume_that_computes_nothing_keeps_the_time_of_the_results(reference, tmp_path):
    """The time taken shown (console, reports) is that of the run that computed the results: a rerun that only
    reads them adds nothing to it, nor to the compute time of the study."""
    _, ref_out = reference
    shutil.copytree(ref_out, tmp_path / "run")
    first = json.loads((ref_out / "results" / "manifest.json").read_text())
    again = _study(tmp_path / "run")  # nothing to compute: only the summary
    assert again["elapsed_s"] == first["elapsed_s"] and again["compute_s_total"] == first["compute_s_total"]
    manifest = json.loads((tmp_path / "run" / "results" / "manifest.json").read_text())
    assert manifest["timing"]["recomputed"] is False


def test_second_writer_is_refused_while_the_first_holds_the_lock(tmp_path):
    store = ResultStore(tmp_path / "run" / "results")
    with store.lock():
        with pytest.raises(BoundcheckError, match=r"in use by another boundcheck run \(pid \d+ on "):
            _study(tmp_path / "run")
        with pytest.raises(BoundcheckError, match="in use"), ResultStore(store.root).lock():
            pass
    assert not (store.root / "manifest.json").exists()
    _study(tmp_path / "run")  # released: the next run proceeds


def test_lock_without_file_system_locks_falls_back_to_a_lock_directory(tmp_path, monkeypatch):
    import fcntl

    def no_locks(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    folder = tmp_path / "f"
    with bio.folder_lock(folder):
        assert (folder / ".lock.d" / "owner.json").exists()
        with pytest.raises(BoundcheckError, match="in use"), bio.folder_lock(folder):
            pass
    assert not (folder / ".lock.d").exists()
    # a lock left by a dead process on this host is stale and taken over
    (folder / ".lock.d").mkdir()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (folder / ".lock.d" / "owner.json").write_text(json.dumps({"pid": dead.pid, "host": os.uname().nodename,
                                                                 "since": "then"}))
    with bio.folder_lock(folder):
        pass


def test_error_before_any_chunk_leaves_no_results_folder(tmp_path, monkeypatch):
    import boundcheck.study.runner as runner

    def boom(*a, **k):
        raise RuntimeError("policy exploded")

    monkeypatch.setattr(runner, "run_chunk", boom)
    with pytest.raises(RuntimeError):
        api.verify("gp_ucb", runs=2, horizon=5, jobs=1, out=tmp_path / "out" / "deep", report=False)
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------------------------- SIGKILL and resume
def _process_tree(pid: int) -> list[int]:
    kids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == pid:
                kids += [int(d.name)] + _process_tree(int(d.name))
    return kids


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")  # a zombie is dead, only not yet reaped


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sigkill_at_a_random_moment_then_resume(seed, tmp_path):
    """Kill `verify --jobs 2` at a random moment after it opened its store; its loky workers must be gone
    within a few seconds, and a resume must give the uninterrupted run's summary."""
    args = ["verify", "--theorem", "gp_ucb", "--runs", "100", "--horizon", "15", "--seed", "5", "--jobs", "2",
            "--no-report", "--json"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-m", "boundcheck", *args, "--out", str(out)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rng = random.Random(seed)
    target = {1: 1, 2: 3, 3: 0}[seed]  # chunks stored before the kill (then a random moment within the next)
    manifest = out / "results" / "manifest.json"
    t0 = time.monotonic()
    while proc.poll() is None and time.monotonic() - t0 < 120:
        try:
            if len(json.loads(manifest.read_text())["chunks"]) >= target:
                break
        except (OSError, ValueError):
            pass
        time.sleep(0.02)
    time.sleep(rng.uniform(0.0, 0.4))
    workers = _process_tree(proc.pid)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    stored = len(json.loads((out / "results" / "manifest.json").read_text())["chunks"])
    print(f"seed {seed}: killed with {stored} of 4 chunks stored, {len(workers)} child processes")
    t1 = time.monotonic()
    while any(_running(w) for w in workers) and time.monotonic() - t1 < 10:
        time.sleep(0.05)
    alive = [w for w in workers if _running(w)]
    for w in alive:
        os.kill(w, signal.SIGKILL)
    assert not alive, f"workers {alive} outlived their parent by more than 5 s"
    assert time.monotonic() - t1 < 5.0
    # the folder's flock goes with the last process holding it: a worker forked after the snapshot above may hold it
    # a moment longer (bounded: 10 s, then the refusal stands and the test fails)
    t2 = time.monotonic()
    while True:
        try:
            resumed = api.verify("gp_ucb", runs=100, horizon=15, seed=5, jobs=2, out=out, report=False)
            break
        except BoundcheckError as exc:
            if "in use by another boundcheck run" not in str(exc) or time.monotonic() - t2 > 10:
                raise
            time.sleep(0.2)
    reference = _reference()
    assert _same(resumed, reference)


_REF: dict = {}


def _reference() -> dict:
    if "s" not in _REF:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            _REF["s"] = api.verify("gp_ucb", runs=100, horizon=15, seed=5, jobs=2, out=Path(tmp), report=False)
    return _REF["s"]


# ---------------------------------------------------------------- store check and repair
def _canon(summary: dict) -> str:
    return json.dumps({k: v for k, v in summary.items() if k not in TIMING}, sort_keys=True, default=str)


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """An uninterrupted study (its summary and folder) and a folder of another configuration (seed 99)."""
    out = tmp_path_factory.mktemp("ref")
    summary = _study(out)
    other = tmp_path_factory.mktemp("other")
    _study(other, seed=99)
    return summary, out, other


def _copy(stores, tmp_path) -> tuple[Path, Path]:
    _, ref_out, _ = stores
    shutil.copytree(ref_out, tmp_path / "run")
    return tmp_path / "run", tmp_path / "run" / "results"


def _truncate_manifest(results: Path) -> None:
    m = results / "manifest.json"
    m.write_bytes(m.read_bytes()[: m.stat().st_size // 3])


def _same_tables(results: Path, ref_results: Path) -> None:
    for table in ("runs", "steps"):
        got, want = ResultStore(results).read_table(table), ResultStore(ref_results).read_table(table)
        pd.testing.assert_frame_equal(got, want, check_exact=True)
    for c in range(3):  # the stored files themselves: the same bytes
        for table in ("runs", "steps"):
            rel = f"chunks/{table}-{c:05d}.parquet"
            assert (results / rel).read_bytes() == (ref_results / rel).read_bytes(), rel


def test_truncated_manifest_is_named_then_repaired_and_the_rerun_recomputes_nothing(stores, tmp_path, capsys):
    ref_summary, ref_out, _ = stores
    out, results = _copy(stores, tmp_path)
    assert main(["store", "check", str(out)]) == 0
    _truncate_manifest(results)
    assert main(["report", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("boundcheck: error: corrupt manifest") and err.count("\n") == 1
    assert f"boundcheck store repair {results}" in err
    assert main(["store", "check", str(out), "--json"]) == 1
    checked = json.loads(capsys.readouterr().out)
    assert checked["status"] == "damaged" and checked["recoverable"] == [0, 1, 2]
    mtimes = {p: p.stat().st_mtime_ns for p in (results / "chunks").glob("*.parquet")}
    assert main(["store", "repair", str(out)]) == 0
    text = capsys.readouterr().out
    assert "rebuilt manifest.json from store.json and 3 verified chunk(s): 0-2" in text
    assert (results / "manifest.json.damaged").exists() and not (results / "summary.json").exists()
    assert main(["store", "check", str(results)]) == 0
    assert _canon(_study(out)) == _canon(ref_summary)
    assert all(p.stat().st_mtime_ns == t for p, t in mtimes.items())  # every chunk recovered, none recomputed
    _same_tables(results, ref_out / "results")
    assert main(["report", str(out)]) == 0


def test_a_flipped_byte_is_not_recovered_and_the_rerun_recomputes_it(stores, tmp_path, capsys):
    ref_summary, ref_out, _ = stores
    out, results = _copy(stores, tmp_path)
    p = results / "chunks" / "steps-00001.parquet"
    data = bytearray(p.read_bytes())
    data[len(data) // 2] ^= 0x01
    p.write_bytes(bytes(data))
    _truncate_manifest(results)
    assert main(["store", "repair", str(out), "--json"]) == 0
    repaired = json.loads(capsys.readouterr().out)
    assert repaired["verified"] == [0, 2] and repaired["missing"] == [1]
    assert "steps-00001.parquet fails verification" in repaired["refused"]["chunk 1"]
    assert _canon(_study(out)) == _canon(ref_summary)
    _same_tables(results, ref_out / "results")


def test_a_chunk_of_another_configuration_is_refused(stores, tmp_path, capsys):
    ref_summary, ref_out, other = stores
    out, results = _copy(stores, tmp_path)
    for name in ("runs-00001.parquet", "steps-00001.parquet", "chunk-00001.json"):  # files and record, consistent
        shutil.copy(other / "results" / "chunks" / name, results / "chunks" / name)
    _truncate_manifest(results)
    assert main(["store", "repair", str(out), "--json"]) == 0
    repaired = json.loads(capsys.readouterr().out)
    assert repaired["verified"] == [0, 2] and "another configuration" in repaired["refused"]["chunk 1"]
    assert _canon(_study(out)) == _canon(ref_summary)
    _same_tables(results, ref_out / "results")


def test_with_a_readable_manifest_damaged_chunks_are_dropped_and_unrecorded_ones_added(stores, tmp_path, capsys):
    ref_summary, ref_out, _ = stores
    out, results = _copy(stores, tmp_path)
    manifest = json.loads((results / "manifest.json").read_text())
    del manifest["chunks"]["2"]  # killed between writing chunk 2 and recording it
    (results / "manifest.json").write_text(json.dumps(manifest))
    (results / "chunks" / "runs-00000.parquet").write_bytes(b"not parquet")
    assert main(["store", "check", str(out), "--json"]) == 1
    checked = json.loads(capsys.readouterr().out)
    assert checked["recoverable"] == [2] and list(checked["damaged"]) == ["0"]
    assert main(["store", "repair", str(out)]) == 0
    capsys.readouterr()
    assert sorted(ResultStore(results).read_manifest()["chunks"]) == ["1", "2"]
    assert _canon(_study(out)) == _canon(ref_summary)
    _same_tables(results, ref_out / "results")


def test_without_manifest_and_header_nothing_is_provable(stores, tmp_path, capsys):
    out, results = _copy(stores, tmp_path)
    (results / "manifest.json").unlink()
    (results / "store.json").unlink()
    before = sorted(p.name for p in results.rglob("*"))
    assert main(["store", "repair", str(out)]) == 5
    assert "nothing proves which configuration" in capsys.readouterr().out
    assert sorted(p.name for p in results.rglob("*")) == before  # nothing written


def test_chunks_without_their_record_are_not_recovered(stores, tmp_path, capsys):
    """A store written before chunks carried a record: the intact manifest still proves them, but a lost manifest
    could not be rebuilt with them, so store check names each (exit 1) and a resume writes their records; with the
    manifest lost, they cannot be recovered."""
    out, results = _copy(stores, tmp_path)
    for rec in (results / "chunks").glob("chunk-*.json"):
        rec.unlink()
    assert main(["store", "check", str(out)]) == 1
    assert capsys.readouterr().out.count("is missing (a lost manifest could not be rebuilt") == 3
    _study(out)  # a resume backfills the records of the chunks the manifest verifies
    assert len(list((results / "chunks").glob("chunk-*.json"))) == 3
    assert main(["store", "check", str(out)]) == 0
    capsys.readouterr()
    (results / "chunks" / "chunk-00001.json").unlink()
    _truncate_manifest(results)
    assert main(["store", "repair", str(out), "--json"]) == 0
    repaired = json.loads(capsys.readouterr().out)
    assert repaired["verified"] == [0, 2] and "no record of the configuration" in repaired["refused"]["chunk 1"]


def test_a_folder_that_is_not_a_store_is_bad_input(tmp_path, capsys):
    assert main(["store", "check", str(tmp_path)]) == 2
    assert main(["store", "repair", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and "not a boundcheck results folder" in err and "not found" in err
