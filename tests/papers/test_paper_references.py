"""``boundcheck show`` cites a theorem's paper by reference (authors, year, title, venue, arXiv id), never by a
path: the papers' texts are not part of the repository."""

from __future__ import annotations

import json
import re

import pytest

from boundcheck import api
from boundcheck.cli import main
from theory import plugins

THEOREMS = [r["id"] for r in api.list_theorems()]


@pytest.fixture
def no_bites(monkeypatch):
    # where each bound bites is computed by simulation (seconds per theorem) and has nothing to do with the citation
    from boundcheck.commands import inspect

    monkeypatch.setattr(inspect, "bound_horizons", lambda *a, **k: None)


@pytest.mark.parametrize("theorem", THEOREMS)
def test_show_names_no_file_outside_the_repository(theorem, no_bites, capsys):
    assert main(["show", theorem]) == 0
    assert main(["show", theorem, "--json"]) == 0
    out = capsys.readouterr().out
    assert "shared/" not in out and ".txt" not in out, theorem


def test_every_built_in_paper_has_a_full_reference():
    # the papers shipped in boundcheck.papers (not the example plugin, a toy, nor a paper a test registered by hand:
    # the registry is per process, and with the suite spread over workers any test may have run before this one)
    built_in = [p for p in plugins.papers().values()
                if any(str(m).startswith("boundcheck.papers.") for m in p.parts.values())]
    assert len(built_in) >= 6
    for paper in built_in:
        ref = paper.reference
        assert re.search(r"\(\d{4}\)\. .+\. .+arXiv:\d{4}\.\d{4,5}", ref), (paper.id, ref)
        assert paper.title in ref, paper.id


def test_show_prints_the_papers_reference(no_bites, capsys):
    assert main(["show", "pe_gp_ucb"]) == 0
    out = capsys.readouterr().out
    assert "Reference: Juliusz Ziomek, Masaki Adachi, Michael A. Osborne (2024)" in out
    assert "arXiv:2402.01632" in " ".join(out.split())
    assert main(["show", "tv_gp_ucb", "--json"]) == 0  # a cited paper's theorem: its own reference
    info = json.loads(capsys.readouterr().out)
    assert info["reference"].startswith("Ilija Bogunovic, Jonathan Scarlett, Volkan Cevher (2016)")
    assert "arXiv:1601.06650" in info["reference"]


def test_a_theorem_of_your_own_is_cited_by_its_paper_field(capsys):
    assert api.theorem_reference("examples/my_bound.py:MY_THEOREM") == \
        "Srinivas, Krause, Kakade, Seeger (2010), arXiv:0912.3995"


def test_the_manifest_carries_its_reference_into_reproduce_summaries():
    # a reproduce summary's "paper" is the manifest's to_json(): its reports print the reference from there
    assert plugins.get_paper("igp_ucb_gp_ts").to_json()["reference"].endswith("arXiv:1704.00445")


def test_a_theorem_whose_paper_is_a_file_name_cites_nothing_rather_than_the_file():
    import dataclasses

    import theory

    th = dataclasses.replace(theory.get("gp_ucb"), id="cited_by_file", paper="000_406ec6f9f83fdadd.txt")
    assert api.theorem_reference(th) == ""
    th = dataclasses.replace(th, paper="shared/papers/x")
    assert api.theorem_reference(th) == ""
