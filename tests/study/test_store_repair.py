"""Issue 25 item 4: a damaged store can be repaired. ``boundcheck store check|repair DIR`` lists what verifies
and rebuilds the manifest from the chunks whose sha256 verifies and whose own record carries the folder's
configuration key; the rerun then recomputes only the rest, bit-identical to an uninterrupted run."""

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from boundcheck import api
from boundcheck.cli import main
from boundcheck.study.runner import RunOptions, run_study
from boundcheck.study.store import ResultStore

TIMING = ("elapsed_s", "compute_s_total")


def _study(out: Path, seed: int = 3, runs: int = 9) -> dict:
    """gp_ucb in 3 chunks of 3 runs."""
    spec = api.build_study("gp_ucb", runs=runs, horizon=10, seed=seed, chunk_size=3)
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta)
    return run_study(spec, inst, out / "results", RunOptions(jobs=1), in_theory=True, reasons=[])


def _canon(summary: dict) -> str:
    return json.dumps({k: v for k, v in summary.items() if k not in TIMING}, sort_keys=True, default=str)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref")
    summary = _study(out)
    other = tmp_path_factory.mktemp("other")
    _study(other, seed=99)
    return summary, out, other


def _copy(reference, tmp_path) -> tuple[Path, Path]:
    _, ref_out, _ = reference
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


def test_truncated_manifest_is_named_then_repaired_and_the_rerun_recomputes_nothing(reference, tmp_path, capsys):
    ref_summary, ref_out, _ = reference
    out, results = _copy(reference, tmp_path)
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


def test_a_flipped_byte_is_not_recovered_and_the_rerun_recomputes_it(reference, tmp_path, capsys):
    ref_summary, ref_out, _ = reference
    out, results = _copy(reference, tmp_path)
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


def test_a_chunk_of_another_configuration_is_refused(reference, tmp_path, capsys):
    ref_summary, ref_out, other = reference
    out, results = _copy(reference, tmp_path)
    for name in ("runs-00001.parquet", "steps-00001.parquet", "chunk-00001.json"):  # files and record, consistent
        shutil.copy(other / "results" / "chunks" / name, results / "chunks" / name)
    _truncate_manifest(results)
    assert main(["store", "repair", str(out), "--json"]) == 0
    repaired = json.loads(capsys.readouterr().out)
    assert repaired["verified"] == [0, 2] and "another configuration" in repaired["refused"]["chunk 1"]
    assert _canon(_study(out)) == _canon(ref_summary)
    _same_tables(results, ref_out / "results")


def test_with_a_readable_manifest_damaged_chunks_are_dropped_and_unrecorded_ones_added(reference, tmp_path, capsys):
    ref_summary, ref_out, _ = reference
    out, results = _copy(reference, tmp_path)
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


def test_without_manifest_and_header_nothing_is_provable(reference, tmp_path, capsys):
    out, results = _copy(reference, tmp_path)
    (results / "manifest.json").unlink()
    (results / "store.json").unlink()
    before = sorted(p.name for p in results.rglob("*"))
    assert main(["store", "repair", str(out)]) == 5
    assert "nothing proves which configuration" in capsys.readouterr().out
    assert sorted(p.name for p in results.rglob("*")) == before  # nothing written


def test_chunks_without_their_record_are_not_recovered(reference, tmp_path, capsys):
    """A store written before chunks carried a record: the intact manifest still proves them, but a lost manifest
    could not be rebuilt with them, so store check names each (exit 1) and a resume writes their records; with the
    manifest lost, they cannot be recovered."""
    out, results = _copy(reference, tmp_path)
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
