"""The resume key: every field of a study's configuration changes it, and nothing else does.

A stored chunk is reused when the key matches (``boundcheck.study.spec.StudySpec.key``), so a field left out of
the key would mix results of different studies silently (a rerun with another ``--beta-scale`` reusing stored
chunks), and a field wrongly in it would refuse to resume. The tables below name a changed value for every field
of :class:`StudySpec` and of :class:`Scenario` (its content); a new field fails the coverage assertion until it is
given one here."""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import replace

import numpy as np
import pytest

from boundcheck.api import build_study
from boundcheck.model.domains import FiniteDomain
from boundcheck.study.needs import StudyNeeds
from boundcheck.study.spec import StudySpec
from boundcheck.world.actions import AlwaysAvailable
from boundcheck.world.scenario import Scenario


@pytest.fixture(scope="module")
def spec() -> StudySpec:
    return build_study("gp_ucb", "gp_sample_se", runs=20, horizon=10, seed=3)


def _with(obj, **changes):
    """A copy with fields set directly (no validation: the key must see every field whatever its value)."""
    new = copy.copy(obj)
    for k, v in changes.items():
        object.__setattr__(new, k, v)
    return new


def _study_changes(spec: StudySpec) -> dict[str, StudySpec]:
    other = build_study("igp_ucb", runs=20, horizon=10, seed=3)
    p0 = spec.policies[0]
    return {
        "family": replace(spec, family=other.family),
        "scenario": replace(spec, scenario=_with(spec.scenario, noise=spec.scenario.noise * 1.5)),
        "policies": replace(spec, policies=(replace(p0, kwargs={**p0.kwargs, "extra": 1}), *spec.policies[1:])),
        "seed": replace(spec, seed=spec.seed + 1),
        "beta_scale": replace(spec, beta_scale=0.5),
        "chunk_size": replace(spec, chunk_size=10),
        "checked": replace(spec, checked=(spec.main, spec.policies[1].name)),
        "not_applicable": replace(spec, not_applicable={spec.main: {"some_claim": "needs x"}}),
        "shadowed": replace(spec, shadowed=(spec.main,)),
        "on_shadow": replace(spec, on_shadow={spec.main: {"some_claim": "needs x"}}),
        "needs": replace(spec, needs=StudyNeeds(regret=False)),
    }


def test_every_study_field_changes_the_key_but_the_number_of_runs(spec):
    changed = _study_changes(spec)
    fields = {f.name for f in dataclasses.fields(StudySpec)}
    assert set(changed) | {"runs"} == fields, "give every new StudySpec field a changed value here"
    for name, other in changed.items():
        assert other.key != spec.key, f"the resume key ignores {name}"
    assert replace(spec, runs=spec.runs * 7).key == spec.key  # more runs reuse the stored chunks
    # a policy's stream index is fixed by its position; a different order of the same policies is a new study
    assert replace(spec, policies=spec.policies[::-1]).key != spec.key


def test_every_scenario_field_changes_the_key_and_bookkeeping_fields_do_not(spec):
    sc = spec.scenario
    prior = sc.candidates[0]
    other_prior = replace(prior, K=prior.K * 1.01)
    changes = {
        "name": sc.name + "_2", "description": sc.description + ".", "notes": (*sc.notes, "another"),
        "domain": FiniteDomain(sc.domain.points + 1e-3), "availability": AlwaysAvailable(sc.domain.n + 1),
        "candidates": (other_prior,), "truth": other_prior, "truth_index": None, "noise": sc.noise * 1.5,
        "horizon": sc.horizon + 1, "delta": sc.delta / 2, "reference_index": 0, "in_theory": not sc.in_theory,
        "out_of_theory_reason": "because", "model_noise": "1", "B": 2.0, "gamma_rule": "rate:se",
        "gamma_rate_params": {"d": 1}, "action_set": AlwaysAvailable(3), "params": {"k": 1},
        "noise_law": "rademacher", "P_T": 1.0, "window": 3, "window_rule": "remark",
    }
    compared = {f.name for f in dataclasses.fields(Scenario) if f.compare}
    assert set(changes) == compared, "give every new Scenario field a changed value here"
    for name, value in changes.items():
        assert replace(spec, scenario=_with(sc, **{name: value})).key != spec.key, f"the resume key ignores {name}"
    for f in dataclasses.fields(Scenario):
        if not f.compare:  # where the scenario came from and its default runs: not its content
            value = 99 if f.name == "default_runs" else "/elsewhere/scenario.toml"
            assert replace(spec, scenario=_with(sc, **{f.name: value})).key == spec.key, f.name


def test_array_contents_change_the_key_to_the_last_bit(spec):
    sc = spec.scenario
    prior = sc.truth
    mean = prior.mean.copy()
    mean[3] = np.nextafter(mean[3], 1.0)
    assert replace(spec, scenario=_with(sc, truth=replace(prior, mean=mean))).key != spec.key
    assert replace(spec, beta_scale=np.nextafter(1.0, 2.0)).key != spec.key


def test_the_key_is_a_function_of_the_configuration(spec):
    """Rebuilt from scratch the same study has the same key (nothing process-dependent enters it)."""
    again = build_study("gp_ucb", "gp_sample_se", runs=50, horizon=10, seed=3)
    assert again.key == spec.key
