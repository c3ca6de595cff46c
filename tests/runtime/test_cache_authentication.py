"""The γ cache cannot change a verdict.

Entries of the on-disk caches carry an HMAC tag keyed by a per-user secret outside the cache folders
(boundcheck.runtime.cache), and a γ bracket is accepted only after independent checks against the instance
(boundcheck.model.mig._entry_problem: the lower end re-attained by the stored greedy design, …). Each tampering
below — by someone without the secret (tag left as it was) and by someone with it (tag recomputed, so only the
content checks stand in the way) — gives back the freshly computed bracket and one notice naming the file.
"""

from __future__ import annotations

import io
import json
import os
import stat
import warnings
from pathlib import Path

import numpy as np
import pytest

import boundcheck.model.mig as mig
from boundcheck.errors import CacheIntegrityWarning
from boundcheck.model.kernels import make_kernel
from boundcheck.runtime import cache as runtime_cache
from boundcheck.runtime.cache import _MAGIC, _TAG_HEX, _tag

HEAD = len(_MAGIC) + _TAG_HEX + 1
K1 = make_kernel("rbf", lengthscale=0.3).gram(np.linspace(0, 1, 15)[:, None])
K2 = make_kernel("rbf", lengthscale=0.2).gram(np.linspace(0, 1, 15)[:, None])
CASES = {"stationary": dict(noise_var=0.25), "time-varying": dict(noise_var=0.25, eps=0.05),
         "batch": dict(noise_var=0.25, batch=2), "time-varying batch": dict(noise_var=0.25, eps=0.05, batch=2)}


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("BOUNDCHECK_GAMMA_CACHE", str(tmp_path / "gamma"))
    monkeypatch.setenv("BOUNDCHECK_CACHE_KEY", str(tmp_path / "config" / "cache.key"))
    return tmp_path / "gamma"


def _fresh(K, T, **kw) -> mig.GammaBracket:
    with mig._blas_single_thread():
        return mig._bracket(*mig._validate(K, T, kw["noise_var"], kw.get("eps", 0.0), kw.get("batch", 1)),
                            list(mig.METHODS))


def _same(a: mig.GammaBracket, b: mig.GammaBracket) -> None:
    np.testing.assert_array_equal(a.lower, b.lower)
    np.testing.assert_array_equal(a.upper, b.upper)
    assert a.methods.keys() == b.methods.keys()
    for name in a.methods:
        np.testing.assert_array_equal(a.methods[name], b.methods[name])
    np.testing.assert_array_equal(a.design, b.design)


def _only_entry(folder: Path) -> Path:
    (path,) = folder.glob("*.npz")
    return path


def _arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(io.BytesIO(path.read_bytes()[HEAD:]), allow_pickle=False) as z:
        return {k: z[k].copy() for k in z.files}


def _secret() -> bytes:
    return Path(os.environ["BOUNDCHECK_CACHE_KEY"]).read_bytes().strip()


def _write(path: Path, arrays: dict[str, np.ndarray], secret: bytes | None) -> None:
    """Write an entry: tagged with ``secret`` (someone who has it), or with the old tag kept (someone who has not)."""
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    payload = buf.getvalue()
    old = path.read_bytes()
    tag = _tag(secret, "gamma", path.name, payload) if secret is not None else old[len(_MAGIC):HEAD - 1]
    path.write_bytes(_MAGIC + tag + b"\n" + payload)


def _tampered_read(K, T, kw, fresh, path: Path, match: str) -> None:
    """The next bracket equals the fresh one, the entry is reported and rewritten (read back quietly after)."""
    with pytest.warns(CacheIntegrityWarning, match=match) as rec:
        got = mig.gamma_bracket(K, T, **kw)
    assert any(str(path) in str(w.message) for w in rec)
    _same(got, fresh)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheIntegrityWarning)
        _same(mig.gamma_bracket(K, T, **kw), fresh)  # rewritten: authentic and correct again


def _scale(name: str, factor: float):
    def edit(a: dict[str, np.ndarray]) -> None:
        a[name] = a[name] * factor
    return edit


def _shift_pick(a: dict[str, np.ndarray]) -> None:
    d = a["design"]
    d[len(d) // 2] = (d[len(d) // 2] + 1) % K1.shape[0]


def _swap_picks(a: dict[str, np.ndarray]) -> None:  # another admissible design, same multiset at the horizon
    d = a["design"]
    d[[0, -1]] = d[[-1, 0]]


TAMPERS = {"upper x0.5": _scale("upper", 0.5), "upper x2": _scale("upper", 2.0),
           "lower x1.01": _scale("lower", 1.01), "lower x0.9": _scale("lower", 0.9),
           "design shifted": _shift_pick, "design reordered": _swap_picks}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("tamper", list(TAMPERS))
@pytest.mark.parametrize("signed", [True, False], ids=["with the secret", "without it"])
def test_a_tampered_entry_is_recomputed_and_reported(folder, case, tamper, signed):
    kw, T = CASES[case], 12
    fresh = _fresh(K1, T, **kw)
    _same(mig.gamma_bracket(K1, T, **kw), fresh)
    path = _only_entry(folder)
    arrays = _arrays(path)
    TAMPERS[tamper](arrays)
    _write(path, arrays, _secret() if signed else None)
    _tampered_read(K1, T, kw, fresh, path, "is not used and will be recomputed: " +
                   ("its" if signed else "its authentication tag does not verify"))


@pytest.mark.parametrize("signed", [True, False], ids=["with the secret", "without it"])
def test_an_entry_of_another_instance_is_recomputed(folder, monkeypatch, signed):
    """An entry copied from another key (another kernel, noise or horizon) under this key's name."""
    T, kw = 12, CASES["stationary"]
    fresh = _fresh(K1, T, **kw)
    for K, kw_other, T_other in ((K2, kw, T), (K1, dict(noise_var=0.3), T), (K1, kw, T - 1)):
        mig.gamma_bracket(K1, T, **kw)
        path = _only_entry(folder)
        other_dir = folder.parent / "other"
        monkeypatch.setenv("BOUNDCHECK_GAMMA_CACHE", str(other_dir))
        mig.gamma_bracket(K, T_other, **kw_other)
        monkeypatch.setenv("BOUNDCHECK_GAMMA_CACHE", str(folder))
        (src,) = other_dir.glob("*.npz")
        if signed:
            _write(path, _arrays(src), _secret())
        else:
            path.write_bytes(src.read_bytes())  # its own valid tag: but over another file name
        _tampered_read(K1, T, kw, fresh, path, "is not used and will be recomputed")
        src.unlink()


def test_an_entry_written_with_another_secret_is_recomputed(folder, tmp_path, monkeypatch):
    T, kw = 12, CASES["time-varying"]
    fresh = _fresh(K1, T, **kw)
    monkeypatch.setenv("BOUNDCHECK_CACHE_KEY", str(tmp_path / "someone-else.key"))
    mig.gamma_bracket(K1, T, **kw)
    path = _only_entry(folder)
    arrays = _arrays(path)
    arrays["upper"] = arrays["upper"] * 0.001
    _write(path, arrays, Path(os.environ["BOUNDCHECK_CACHE_KEY"]).read_bytes().strip())
    monkeypatch.setenv("BOUNDCHECK_CACHE_KEY", str(tmp_path / "config" / "cache.key"))
    _tampered_read(K1, T, kw, fresh, path, "its authentication tag does not verify")


@pytest.mark.parametrize("case", list(CASES))
def test_beyond_the_exact_prefix_the_design_is_replayed(folder, monkeypatch, case):
    """Past _EXACT_PREFIX_MAX observations the lower end is the greedy's running sum: the check replays the same
    rank-one updates along the stored design, accepts the honest entry and rejects a changed one."""
    monkeypatch.setattr(mig, "_EXACT_PREFIX_MAX", 5)
    kw, T = CASES[case], 12
    fresh = _fresh(K1, T, **kw)
    mig.gamma_bracket(K1, T, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheIntegrityWarning)
        _same(mig.gamma_bracket(K1, T, **kw), fresh)
    path = _only_entry(folder)
    arrays = _arrays(path)
    _shift_pick(arrays)
    _write(path, arrays, _secret())
    _tampered_read(K1, T, kw, fresh, path, "lower end is not the information of its stored design")


@pytest.mark.parametrize("methods", [None, ["relaxation"], ["kronecker", "seq_greedy_2x"], ["block"]])
def test_honest_entries_pass_every_check(folder, methods):
    """No false alarm: every definition and method subset is read back quietly and bit-identically (also the
    infinite upper end of "block" alone at ε = 0, where no requested method applies)."""
    for kw in CASES.values():
        first = mig.gamma_bracket(K1, 10, methods=methods, **kw)
        with warnings.catch_warnings():
            warnings.simplefilter("error", CacheIntegrityWarning)
            _same(mig.gamma_bracket(K1, 10, methods=methods, **kw), first)


def test_the_upper_end_may_not_exceed_the_trivial_bound():
    """An upper end above t·batch·½ log(1 + κ/s2) is refused even when it is the closure of its method curves."""
    T, s2 = 8, 0.25
    requested = ["greedy", "greedy_online", "relaxation"]
    br = mig.gamma_bracket(K1, T, noise_var=s2, methods=requested[1:])
    times = mig._design_times(T, 0.0, 1)
    assert mig._entry_problem(K1, T, s2, 0.0, 1, requested, br.lower, br.upper, br.methods, br.design,
                              times) is None
    big = np.arange(1, T + 1) * 10.0  # 10 t > 0.80 t, the trivial bound of an RBF kernel at s2 = 1/4
    methods = {"greedy": br.lower, "greedy_online": big, "relaxation": big}
    upper = np.maximum(mig._monotone(mig._subadditive(mig._monotone(big))), br.lower)
    problem = mig._entry_problem(K1, T, s2, 0.0, 1, requested, br.lower, upper, methods, br.design, times)
    assert problem is not None and "trivial bound" in problem


# ------------------------------------------------------------------------------------ the runtime cache
def test_the_secret_is_created_private_and_every_namespace_is_authenticated(tmp_path, monkeypatch):
    monkeypatch.setenv("BOUNDCHECK_CACHE", str(tmp_path / "root"))
    monkeypatch.setenv("BOUNDCHECK_CACHE_KEY", str(tmp_path / "config" / "cache.key"))
    c = runtime_cache("ns")
    c.write("k", ".json", lambda tmp: Path(tmp).write_text('{"a": 1}'))
    key = tmp_path / "config" / "cache.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and len(key.read_bytes().strip()) == 64
    assert c.read("k", ".json", lambda p: json.loads(p.read_text())) == {"a": 1}
    raw = c.path("k", ".json").read_bytes()
    assert raw.startswith(_MAGIC) and raw.endswith(b'{"a": 1}')
    c.path("k", ".json").write_bytes(raw.replace(b'"a": 1', b'"a": 2'))  # same length, tag kept
    with pytest.warns(CacheIntegrityWarning, match=r"k\.json is not used .*tag does not verify"):
        assert c.read("k", ".json", lambda p: json.loads(p.read_text())) is None
    other = runtime_cache("other")  # an entry moved to another namespace under the same name
    other.folder.mkdir(parents=True)
    other.path("k", ".json").write_bytes(raw)
    with pytest.warns(CacheIntegrityWarning, match="tag does not verify"):
        assert other.read("k", ".json", lambda p: json.loads(p.read_text())) is None


def test_a_key_file_others_can_read_or_inside_the_cache_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("BOUNDCHECK_CACHE", str(tmp_path / "root"))
    key = tmp_path / "config" / "cache.key"
    monkeypatch.setenv("BOUNDCHECK_CACHE_KEY", str(key))
    c = runtime_cache("ns")
    c.write("k", ".txt", lambda tmp: Path(tmp).write_text("v"))
    key.chmod(0o644)
    with pytest.warns(CacheIntegrityWarning, match="accessible to others"):
        assert c.read("k", ".txt", lambda p: p.read_text()) is None
    key.chmod(0o600)
    assert c.read("k", ".txt", lambda p: p.read_text()) == "v"
    inside = tmp_path / "root" / "cache.key"
    inside.parent.mkdir(parents=True, exist_ok=True)
    inside.write_text(key.read_text())
    inside.chmod(0o600)
    monkeypatch.setenv("BOUNDCHECK_CACHE_KEY", str(inside))
    with pytest.warns(CacheIntegrityWarning, match="inside the cache folder"):
        c.write("k2", ".txt", lambda tmp: Path(tmp).write_text("v"))
    assert not c.path("k2", ".txt").exists()


# ------------------------------------------------------------------------------------------ end to end
def test_verify_gives_the_same_verdict_after_every_entry_is_tampered(tmp_path, monkeypatch, capsys):
    from boundcheck.cli import main

    monkeypatch.setenv("BOUNDCHECK_GAMMA_CACHE", str(tmp_path / "gamma"))
    monkeypatch.setenv("BOUNDCHECK_CACHE_KEY", str(tmp_path / "config" / "cache.key"))
    # the theorem's whole instantiation is cached too (its γ curves included): off here, so that every verify
    # reads its γ brackets from the γ cache (the instance cache's own entries: the next test)
    monkeypatch.setenv("BOUNDCHECK_INSTANCE_CACHE", "off")
    argv = ["verify", "--theorem", "pe_gp_ucb", "--runs", "5", "--horizon", "10", "--jobs", "1", "--json",
            "--no-report"]

    def verdict(out: str) -> dict:
        assert main([*argv, "--out", str(tmp_path / out)]) in (0, 1, 3, 5)
        captured = capsys.readouterr()
        s = json.loads(captured.out)  # the notice goes to stderr: stdout stays one JSON document
        return {k: s[k] for k in ("verdict", "claims", "bound")}, captured.err

    first, _ = verdict("a")
    entries = sorted((tmp_path / "gamma").glob("*.npz"))
    assert entries
    for path in entries:  # the upper end scaled by 0.001, re-tagged with the user's secret: content checks
        arrays = _arrays(path)
        arrays["upper"] = arrays["upper"] * 0.001
        _write(path, arrays, Path(os.environ["BOUNDCHECK_CACHE_KEY"]).read_bytes().strip())
    again, err = verdict("b")
    assert json.dumps(again, sort_keys=True) == json.dumps(first, sort_keys=True)
    assert all(f"cache entry {p} is not used" in err for p in entries), err
    for path in entries:  # and by someone without the secret
        raw = bytearray(path.read_bytes())
        raw[-100] ^= 1
        path.write_bytes(bytes(raw))
    third, err = verdict("c")
    assert json.dumps(third, sort_keys=True) == json.dumps(first, sort_keys=True)
    assert all(f"cache entry {p} is not used" in err and "tag does not verify" in err for p in entries), err


def test_a_tampered_instance_cache_entry_does_not_change_the_verdict(tmp_path, monkeypatch, capsys):
    """The instance cache (``boundcheck.claims.families.instance_cache``) holds a theorem's γ curves and schedules:
    an entry changed by someone without the secret is refused, reported and recomputed."""
    from boundcheck.cli import main

    monkeypatch.setenv("BOUNDCHECK_GAMMA_CACHE", "off")
    monkeypatch.setenv("BOUNDCHECK_INSTANCE_CACHE", str(tmp_path / "instances"))
    monkeypatch.setenv("BOUNDCHECK_CACHE_KEY", str(tmp_path / "config" / "cache.key"))
    argv = ["verify", "--theorem", "pe_gp_ucb", "--runs", "5", "--horizon", "10", "--jobs", "1", "--json",
            "--no-report"]

    def verdict(out: str) -> tuple[dict, str]:
        assert main([*argv, "--out", str(tmp_path / out)]) in (0, 1, 3, 5)
        captured = capsys.readouterr()
        s = json.loads(captured.out)
        return {k: s[k] for k in ("verdict", "claims", "bound")}, captured.err

    first, _ = verdict("a")
    entries = sorted(p for p in (tmp_path / "instances").iterdir() if p.is_file())
    assert entries
    for path in entries:
        raw = bytearray(path.read_bytes())
        raw[-50] ^= 1
        path.write_bytes(bytes(raw))
    again, err = verdict("b")
    assert json.dumps(again, sort_keys=True) == json.dumps(first, sort_keys=True)
    assert any(f"cache entry {p} is not used" in err for p in entries), err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_in_place_of_an_entry_is_refused_not_waited_on(tmp_path, monkeypatch):
    monkeypatch.setenv("BOUNDCHECK_CACHE", str(tmp_path / "root"))
    monkeypatch.setenv("BOUNDCHECK_CACHE_KEY", str(tmp_path / "config" / "cache.key"))
    c = runtime_cache("ns")
    c.folder.mkdir(parents=True)
    os.mkfifo(c.path("k", ".txt"))
    with pytest.warns(CacheIntegrityWarning, match="not a regular file"):
        assert c.read("k", ".txt", lambda p: p.read_text()) is None


# ---------------------------------------------------------------------- cache entries cannot be moved
def test_an_entry_moved_under_another_key_is_refused(tmp_path, monkeypatch):
    """The entry's tag covers its name, not only its namespace and content."""
    monkeypatch.setenv("BOUNDCHECK_CACHE", str(tmp_path / "root"))
    monkeypatch.setenv("BOUNDCHECK_CACHE_KEY", str(tmp_path / "config" / "cache.key"))
    c = runtime_cache("ns")
    c.write("key_a", ".json", lambda tmp: Path(tmp).write_text('{"for": "a"}'))
    assert c.read("key_a", ".json", lambda p: json.loads(p.read_text())) == {"for": "a"}
    c.path("key_b", ".json").write_bytes(c.path("key_a", ".json").read_bytes())  # authentic bytes, another name
    with pytest.warns(CacheIntegrityWarning, match=r"key_b\.json is not used .*tag does not verify"):
        assert c.read("key_b", ".json", lambda p: json.loads(p.read_text())) is None
    assert c.read("key_a", ".json", lambda p: json.loads(p.read_text())) == {"for": "a"}  # the original stands
