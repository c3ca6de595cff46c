"""Checks an independent mutation audit found unguarded (each a one-line defect that the suite let through; all
24 audited mutations are in benchmarks/mutation.py):

* several checked implementations: the verdict is the worst of theirs, and "incomplete" is worse than "holds"
  (one implementation with claims it could not be judged on makes the verify incomplete, exit 5);
* an authentic cache entry moved under another key (file name) of the same namespace is refused: the entry's
  tag covers its name, not only its namespace and content;
* panels run side by side come back in the order they were given, not in the order they finished.
"""

from __future__ import annotations

import importlib.util
import json
import time
from concurrent.futures import Future
from pathlib import Path

import pytest

from boundcheck import api
from boundcheck.cli import main
from boundcheck.errors import CacheIntegrityWarning, ExitCode
from boundcheck.runtime import cache as runtime_cache

ROOT = Path(__file__).resolve().parents[1]


def _example_gp_ucb():
    spec = importlib.util.spec_from_file_location("example_gp_ucb_audit", ROOT / "examples" / "gp_ucb.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.MyGPUCB


class WithRecords(_example_gp_ucb()):
    """The example's GP-UCB, reporting μ, σ, β: every claim is judged on its own records."""


class WithoutRecords(WithRecords):
    """The same code reporting nothing: without a shadow (--no-conformance) the lemma-level claims are not judged."""

    records = ()


# ---------------------------------------------------------------------- the worst of several implementations
def test_one_incomplete_implementation_makes_the_verify_incomplete(tmp_path, capsys, monkeypatch):
    """The complete one first (its "holds" is the verdict so far), then the incomplete one: exit 5."""
    monkeypatch.setenv("BOUNDCHECK_LOG_DIR", str(tmp_path / "logs"))
    args = ["verify", "--theorem", "gp_ucb", "--scenario", "gp_sample_se", "--runs", "75", "--horizon", "12",
            "--seed", "2", "--jobs", "1", "--no-report", "--no-conformance", "--json",
            "--algorithm", f"{__file__}:WithRecords", "--algorithm", f"{__file__}:WithoutRecords",
            "--out", str(tmp_path / "out")]
    rc = main(args)
    s = json.loads(capsys.readouterr().out)
    assert {name: c["verdict"] for name, c in s["checked"].items()} == {"WithRecords": "holds",
                                                                        "WithoutRecords": "incomplete"}
    assert s["verdict"] == "incomplete" and rc == ExitCode.INCOMPLETE
    # told to accept it (resumed: nothing recomputed), an incomplete verdict with nothing violated exits 0
    assert main([*args, "--allow-incomplete"]) == 0


# ---------------------------------------------------------------------- cache entries cannot be moved
def test_an_entry_moved_under_another_key_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("BOUNDCHECK_CACHE", str(tmp_path / "root"))
    monkeypatch.setenv("BOUNDCHECK_CACHE_KEY", str(tmp_path / "config" / "cache.key"))
    c = runtime_cache("ns")
    c.write("key_a", ".json", lambda tmp: Path(tmp).write_text('{"for": "a"}'))
    assert c.read("key_a", ".json", lambda p: json.loads(p.read_text())) == {"for": "a"}
    c.path("key_b", ".json").write_bytes(c.path("key_a", ".json").read_bytes())  # authentic bytes, another name
    with pytest.warns(CacheIntegrityWarning, match=r"key_b\.json is not used .*tag does not verify"):
        assert c.read("key_b", ".json", lambda p: json.loads(p.read_text())) is None
    assert c.read("key_a", ".json", lambda p: json.loads(p.read_text())) == {"for": "a"}  # the original stands


# ---------------------------------------------------------------------- panels side by side, in input order
def test_panels_side_by_side_come_back_in_input_order(tmp_path, monkeypatch):
    """Three panels of costs 2 : 3 : 4 on the parent and one worker: the costliest starts first and the cheapest
    last (and finishes last here), yet the summaries are returned in the order the panels were given."""
    import os

    import boundcheck.commands.reproduce as api_mod
    from boundcheck import runtime
    from boundcheck.study.runner import RunOptions

    class Now:  # a worker that runs what it is given at once, in the feeding thread
        def submit(self, fn, *args, **kwargs):
            fut = Future()
            fut.set_result(fn(*args, **kwargs))
            return fut

    specs = [api.build_study("gp_ucb", runs=r, horizon=5, seed=0) for r in (2, 3, 4)]

    def fake_run(spec, path, options, on_chunk=None):
        time.sleep(0.1 * (4 - spec.runs))  # the cheapest panel takes longest: completion order 4, 3, 2 runs
        return {"runs": spec.runs}

    monkeypatch.setattr(runtime, "pool", lambda workers: Now())
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(api_mod, "_run_spec", fake_run)
    out = api_mod._run_panels([(sp, tmp_path / str(i), None) for i, sp in enumerate(specs)],
                              RunOptions(jobs=2, backend="loky"))
    assert [s["runs"] for s in out] == [2, 3, 4]
