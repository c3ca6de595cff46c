"""Registries import their built-in modules lazily, in order: ``find`` stops at the module that registers the
key (``verify --theorem pe_gp_ucb`` does not import every paper's module), ``load`` imports the rest in the
same order, so the registration order never depends on what was looked up first."""

from __future__ import annotations

import subprocess
import sys

from theory.plugins import Registry


def _registry(log: list[str]) -> Registry[str]:
    def install(module):
        log.append(module.__name__)
        reg.add(module.__name__.split(".")[-1], module.__name__)

    reg: Registry[str] = Registry(("json", "csv", "string"), install, lambda k: ValueError(k))
    return reg


def test_find_imports_only_up_to_the_registering_module_and_keeps_the_order():
    log: list[str] = []
    reg = _registry(log)
    assert reg.find("csv") == "csv"
    assert log == ["json", "csv"]
    assert reg.find("csv") == "csv" and log == ["json", "csv"]  # nothing imported again
    assert reg.find("missing") is None and log == ["json", "csv", "string"]
    assert list(reg.load()) == ["json", "csv", "string"] and len(log) == 3


def test_verify_of_one_theorem_imports_only_its_modules():
    code = ("import sys, theory; from boundcheck.claims.families import family_for; family_for('pe_gp_ucb'); "
            "print(sorted(m for m in sys.modules if m.startswith(('theory.', 'boundcheck.claims.families.', "
            "'boundcheck.papers.')) "
            "or m == 'scipy.stats'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "theory.et_gp_ucb" not in out and "combinatorial." not in out and "'scipy.stats'" not in out
    # the manifests of every paper are read (they import nothing heavy); only pe_gp_ucb's parts are imported
    assert "boundcheck.papers.srinivas'" in out and "boundcheck.papers.srinivas.family" not in out
    assert "theory.pe_gp_ucb" in out and "boundcheck.papers.pe_gp_ucb.family" in out
    import theory

    assert [t.id for t in theory.all_theorems()][0] == "pe_gp_ucb"  # the full load still registers everything
    assert len(theory.all_theorems()) > 1


def test_the_order_is_the_sources_whatever_was_looked_up_first():
    """``find`` installs the source that declares its key first; ``load`` still lists the objects in the order
    of the sources (``boundcheck list`` caches that order: it must not depend on a process's history)."""
    import types

    from theory.plugins import Source

    def source(name: str) -> Source:
        return Source(name, lambda: types.SimpleNamespace(NAMES=(f"{name}1", f"{name}2")), frozenset({f"{name}1"}))

    reg: Registry[str] = Registry((), lambda m: [reg.add(n, n) for n in m.NAMES], ValueError,
                                  lambda: [source("a"), source("b")])
    assert reg.find("b1") == "b1" and list(reg.items) == ["b1", "b2"]
    reg.add("mine", "mine")  # registered by hand: after every source
    assert list(reg.load()) == ["a1", "a2", "b1", "b2", "mine"]
