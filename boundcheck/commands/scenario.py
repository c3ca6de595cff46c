"""``boundcheck scenario list|show|validate|schema``: the scenarios, as data (the CLI renders them)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import BoundcheckError
from .resolve import _is_scenario_file, resolve_theorem

if TYPE_CHECKING:

    from theory import Theorem

    from ..world.scenario import Scenario


# --------------------------------------------------------------------------------------------- scenarios
def scenario_list() -> list[dict]:
    """Every built-in scenario: its name and its TOML file (None: built by a Python builder)."""
    from ..world.catalogue import scenario_files, scenario_names

    files = scenario_files()
    return [{"name": n, "file": str(files[n]) if n in files else None} for n in scenario_names()]


def scenario_info(ref: str | Path, theorem: str | Theorem | None = None) -> dict:
    """A scenario file or built-in scenario in words (``boundcheck scenario show``; validates it on the way).
    With ``theorem``, ``applicability`` says whether the theorem applies to it (:func:`scenario_applicability`)."""
    from ..world.catalogue import get_scenario
    from ..world.scenario_files import load_scenario, scenario_summary

    ref = str(ref)
    th = None if theorem is None else resolve_theorem(theorem)  # an unknown id: one line before any work
    sc = load_scenario(ref) if _is_scenario_file(ref) else get_scenario(ref)
    info = scenario_summary(sc)
    if th is not None:
        info["applicability"] = scenario_applicability(sc, th)
    return info


def scenario_applicability(scenario: Scenario, theorem: str | Theorem) -> dict:
    """Whether ``theorem`` applies to ``scenario``, predicate by predicate: what ``verify`` checks before it
    simulates anything (exit 3 when it does not apply).

    Returns ``{"theorem", "applies", "rows", "reasons"}``: ``rows`` are ``{predicate, text, ok, how}``, first
    ``scenario_kind`` (whether the theorem's claims can be computed on this kind of scenario at all: if not,
    ``verify`` refuses it, exit 2), then ``labelled`` (the scenario's own in/out-of-theory label), then every
    assumption of the theorem with its predicate's answer (``ok`` None: no predicate checks it); ``reasons``
    is what ``verify`` would say."""
    from ..claims.families import family_for

    th = resolve_theorem(theorem)
    fam = family_for(th)
    rows = []
    try:
        fam.check_scenario(scenario)
    except BoundcheckError as exc:
        rows.append({"predicate": "scenario_kind", "text": "the theorem's claims can be computed on this kind of "
                     "scenario", "ok": False, "how": str(exc)})
        return {"theorem": th.id, "applies": False, "rows": rows, "reasons": [str(exc)]}
    rows.append({"predicate": "scenario_kind", "text": "the theorem's claims can be computed on this kind of "
                 "scenario", "ok": True, "how": f"{type(scenario).__name__} with a {type(scenario.truth).__name__} "
                                              "truth"})
    rows.append({"predicate": "labelled", "text": "the scenario's own label", "ok": bool(scenario.in_theory),
                 "how": "in theory" if scenario.in_theory else scenario.out_of_theory_reason})
    rows += fam.assumption_rows(scenario)
    reasons = fam.unmet_assumptions(scenario)
    return {"theorem": th.id, "applies": not reasons, "rows": rows, "reasons": reasons}


def scenario_schema(family: str | None = None) -> dict:
    """The JSON Schema of scenario files (every family, or the one named): ``boundcheck scenario schema``."""
    from ..world.scenario_files import schema

    return schema(family)
