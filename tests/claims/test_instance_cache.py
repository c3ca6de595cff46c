"""A theorem's instantiation is kept on disk between commands
(boundcheck.claims.families.instance_cache). Read back it is the instance computed — every array bit for bit,
every number and its type — a change of any input computes a new one, a damaged entry is recomputed, ``off``
writes nothing, and an instance holding functions (observers) is not cached."""

from __future__ import annotations

from dataclasses import fields, replace

import numpy as np
import pytest

from boundcheck import api
from boundcheck.claims.families import instance_cache
from boundcheck.errors import CacheIntegrityWarning


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray):
        return (isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape
                and a.tobytes() == b.tobytes())
    if isinstance(a, dict):
        return type(b) is dict and list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, tuple | list):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and np.isnan(a):
        return type(b) is type(a) and np.isnan(b)
    return type(a) is type(b) and a == b


def _assert_same(a, b) -> None:
    for f in fields(a):
        assert _same(getattr(a, f.name), getattr(b, f.name)), f.name


@pytest.fixture
def entries(tmp_path, monkeypatch):
    monkeypatch.setenv("BOUNDCHECK_INSTANCE_CACHE", str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("theorem", ["pe_gp_ucb", "gp_ucb"])
def test_read_back_is_the_instance_computed(entries, monkeypatch, theorem):
    spec = api.build_study(theorem, runs=4, horizon=15, seed=0)
    fresh = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta)
    first = instance_cache.instantiate(spec.family, spec.scenario, spec.horizon, spec.delta)
    assert len(list(entries.glob("*.npz"))) == 1
    calls = []
    monkeypatch.setattr(type(spec.family), "instantiate", lambda *a, **k: calls.append(a))
    again = instance_cache.instantiate(spec.family, spec.scenario, spec.horizon, spec.delta)
    assert not calls  # read, not computed
    _assert_same(fresh, first)
    _assert_same(fresh, again)


def test_inputs_key_the_entry_and_damage_recomputes(entries):
    spec = api.build_study("gp_ucb", runs=4, horizon=15, seed=0)
    fam, sc = spec.family, spec.scenario
    keys = {instance_cache.instance_key(fam, sc, 15, 0.1), instance_cache.instance_key(fam, sc, 16, 0.1),
            instance_cache.instance_key(fam, sc, 15, 0.05), instance_cache.instance_key(fam, sc, 15, 0.1, 2.0)}
    assert len(keys) == 4
    other = api.build_study("gp_ucb", "gp_sample_matern", runs=4, horizon=15, seed=0)
    assert instance_cache.instance_key(other.family, other.scenario, 15, 0.1) not in keys
    inst = instance_cache.instantiate(fam, sc, 15, 0.1, 2.0)
    assert inst.beta[1] == pytest.approx(2.0 * fam.instantiate(sc, 15, 0.1).beta[1], rel=1e-15)
    for f in entries.glob("*.npz"):
        f.write_bytes(b"damaged")
    with pytest.warns(CacheIntegrityWarning, match="not used and will be recomputed"):  # said, then recomputed
        again = instance_cache.instantiate(fam, sc, 15, 0.1, 2.0)
    _assert_same(again, fam.instantiate(sc, 15, 0.1, 2.0))


def test_off_and_observers_write_nothing(tmp_path, monkeypatch):
    spec = api.build_study("gp_ucb", runs=4, horizon=15, seed=0)
    monkeypatch.setenv("BOUNDCHECK_INSTANCE_CACHE", "off")
    instance_cache.instantiate(spec.family, spec.scenario, 15, 0.1)
    monkeypatch.setenv("BOUNDCHECK_INSTANCE_CACHE", str(tmp_path))
    real = type(spec.family).instantiate

    def with_observer(self, *a, **k):
        return replace(real(self, *a, **k), observers=(lambda *x: None,))

    monkeypatch.setattr(type(spec.family), "instantiate", with_observer)
    inst = instance_cache.instantiate(spec.family, spec.scenario, 15, 0.1)
    assert len(inst.observers) == 1
    assert not list(tmp_path.iterdir())
