"""Every claim left in a verdict is caught by some planted defect (issue 24, item 4).

The shipped power tables (``boundcheck/papers/*/power/<theorem>.json``, regenerated at each theorem's defaults by
``benchmarks/bench_power.py``; a benchmark, not the unit suite) say which planted defects each claim catches
(detection probability ≥ the power target). A claim of the theorem's current claim table that is in the verdict
(not a sanity identity, not vacuous at the table's settings) and that nothing catches cannot tell a correct
implementation from a broken one there: this test reads the tables and fails on such a claim, or on a verdict
claim the table never measured.

Tables with a known gap are marked ``xfail(strict=True)`` with what they miss (:data:`STALE`): a table measured
before issue 24 (regenerate it), or a claim no planted defect of the library breaks yet (add one). A listed table
that passes fails, so the list cannot go stale itself. The comb_*, tv_gp_ucb, et_gp_ucb, et_r_gp_ucb,
r_gp_ucb and sw_gp_ucb tables were regenerated after the split (radius_chain, special_functions,
information_steps and D2_intermediate still catch what they caught); r_gp_ucb's and sw_gp_ucb's again with
paper 003's own defects (``boundcheck/papers/r_sw_gp_ucb/defects.py``) and D3/D4 as identities.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from boundcheck.claims.conformance import CONFORMANCE
from boundcheck.claims.families import family_for
from theory import plugins

#: theorem -> why its shipped table does not yet show every verdict claim caught (regenerate it:
#: ``python benchmarks/bench_power.py --theorem <id>``)
STALE: dict[str, str] = {}


def _tables() -> list[Path]:
    out = []
    for paper in plugins.papers().values():
        if paper.power_dir is not None and Path(paper.power_dir).is_dir():
            out += sorted(Path(paper.power_dir).glob("*.json"))
    return out


def uncaught(table: dict) -> list[str]:
    """The verdict claims of the table's theorem (its current claim table) that no planted defect catches, or
    that the table never measured (sorted)."""
    fam = family_for(table["theorem"])
    # conformance is an identity wherever the checked code is the theorem's own algorithm, as in a power study
    outside = set(table.get("identities") or ()) | set(table.get("vacuous") or {}) | {CONFORMANCE}
    measured = table.get("claims") or {}
    return sorted(c.id for c in fam.claims
                  if c.kind != "identity" and c.id not in outside and not (measured.get(c.id) or {}).get("catches"))


def _params():
    for path in _tables():
        theorem = path.stem
        marks = [pytest.mark.xfail(strict=True, reason=f"stale power table: {STALE[theorem]}")] \
            if theorem in STALE else []
        yield pytest.param(path, id=theorem, marks=marks)


@pytest.mark.parametrize("path", list(_params()))
def test_every_verdict_claim_is_caught_by_a_planted_defect(path):
    table = json.loads(path.read_text())
    assert table["theorem"] == path.stem
    missing = uncaught(table)
    assert not missing, (f"{path.name}: claims in the verdict that no planted defect catches at "
                         f"{table['runs']} runs, T = {table['horizon']}: {', '.join(missing)}")


def test_uncaught_is_what_an_incomplete_verdict_names():
    """The summary's list of planted defects no remaining claim catches reads the same shipped tables."""
    from boundcheck.study.summary import uncaught_defects

    table = json.loads((plugins.paper_of_theorem("gp_ucb").power_dir / "gp_ucb.json").read_text())
    every = {d for d in table["defects"] if d != "none"}
    assert uncaught_defects("gp_ucb", set(table["claims"])) == sorted(every - {
        d for c in table["claims"].values() for d in c["catches"]})
    assert set(uncaught_defects("gp_ucb", set())) == every
