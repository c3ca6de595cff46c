"""boundcheck.runtime: importing it has no effect; the on-disk cache."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from boundcheck import runtime
from boundcheck.errors import CacheIntegrityWarning

ROOT = Path(__file__).resolve().parents[2]


def test_importing_the_runtime_starts_and_imports_nothing_heavy():
    code = """
import sys, threading
import boundcheck.runtime
heavy = [m for m in ("joblib", "numpy", "concurrent.futures") if m in sys.modules]
assert not heavy, heavy
assert threading.active_count() == 1
print("ok")
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def _write(text: str):
    return lambda tmp: Path(tmp).write_text(text)


def test_cache_folder_variables_and_off(tmp_path, monkeypatch):
    monkeypatch.setenv("BOUNDCHECK_CACHE", str(tmp_path / "root"))
    monkeypatch.delenv("BOUNDCHECK_TEST_NS", raising=False)
    c = runtime.cache("ns", "BOUNDCHECK_TEST_NS")
    assert c.folder == tmp_path / "root" / "ns"
    c.write("k", ".txt", _write("v"))
    assert c.read("k", ".txt", lambda p: p.read_text()) == "v"
    assert c.read("missing", ".txt", lambda p: p.read_text()) is None
    monkeypatch.setenv("BOUNDCHECK_TEST_NS", str(tmp_path / "own"))  # the namespace's own variable wins
    assert c.folder == tmp_path / "own" and c.read("k", ".txt", lambda p: p.read_text()) is None
    for off in ("off", "0", ""):
        monkeypatch.setenv("BOUNDCHECK_TEST_NS", off)
        assert c.folder is None and c.path("k") is None
        c.write("x", ".txt", _write("v"))  # nothing written
        assert c.read("k", ".txt", lambda p: p.read_text()) is None
    monkeypatch.delenv("BOUNDCHECK_TEST_NS")
    monkeypatch.setenv("BOUNDCHECK_CACHE", "off")
    assert runtime.cache_root() is None and c.folder is None
    monkeypatch.delenv("BOUNDCHECK_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert c.folder == tmp_path / "xdg" / "boundcheck" / "ns"
    assert sorted(p.name for p in (tmp_path / "root" / "ns").iterdir()) == ["k.txt"]


def test_cache_keeps_the_newest_entries_and_a_damaged_one_is_a_miss(tmp_path, monkeypatch):
    monkeypatch.setenv("BOUNDCHECK_CACHE", str(tmp_path))
    c = runtime.cache("capped", entries=3)
    for i in range(5):
        c.write(f"k{i}", ".txt", _write(str(i)))
        t = time.time() - 100 + i  # distinct ages on any file system, all older than a new entry
        os.utime(c.path(f"k{i}", ".txt"), (t, t))
    c.prune(".txt")
    assert sorted(p.name for p in c.folder.iterdir()) == ["k2.txt", "k3.txt", "k4.txt"]
    c.path("k4", ".txt").write_bytes(b"\xff")
    with pytest.warns(CacheIntegrityWarning, match="k4.txt is not used and will be recomputed"):  # reported
        assert c.read("k4", ".txt", lambda p: int(p.read_text())) is None


def test_list_rows_are_cached_in_the_runtime_cache(tmp_path, monkeypatch, capsys):
    from boundcheck.cli import main

    monkeypatch.setenv("BOUNDCHECK_CACHE", str(tmp_path))
    assert main(["list", "--json"]) == 0
    first = capsys.readouterr().out
    assert len(list((tmp_path / "theorems").glob("list-*.json"))) == 1
    assert main(["list", "--json"]) == 0
    assert capsys.readouterr().out == first
