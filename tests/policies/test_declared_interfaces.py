"""The engine, the families and the planted defects talk to policies through declared interfaces: the
models a policy exposes (``Policy.models()``), the observers a family registers, the defect hooks a
paper declares, and one UCB selection block."""

import numpy as np
import pytest

import theory
from boundcheck import api
from boundcheck.claims.defects import GENERIC, HOOKS, Defect, defects_for, hooks_of
from boundcheck.claims.families.base import Observer
from boundcheck.errors import BoundcheckError
from boundcheck.policies import Policy, policy_spec
from boundcheck.policies.ucb import UCBPolicy
from boundcheck.testing import run_check


def test_a_record_that_shares_a_monitors_name_is_refused_when_the_study_is_built():
    class Clash(Policy):
        name = "clash"
        records = frozenset({"innov"})  # also the engine's innovation monitor

        def select(self, t, available):
            return np.zeros((self.ctx.runs, 1), dtype=np.int64)

        def update(self, t, action, y):
            pass

    with pytest.raises(BoundcheckError, match="record.*innov.*monitor"):
        api.build_study("gp_ucb", runs=2, horizon=5, algorithm=Clash)


def test_et_gp_ucbs_own_innovation_is_kept_beside_the_engines(tmp_path):
    import pandas as pd

    s = run_check("et_gp_ucb", runs=2, horizon=10, seed=1, out=tmp_path, policies=["et_gp_ucb"])
    steps = pd.concat(pd.read_parquet(f) for f in sorted((tmp_path / "results" / "chunks").glob("steps-*.parquet")))
    assert {"innov", "innov_block"} <= set(steps.columns) and s["claims"]
    # the two innovations differ: the block posterior is not the posterior of the true prior under a drift
    assert not np.allclose(steps["innov"], steps["innov_block"])


@pytest.mark.parametrize("name, roles", [("gp_ucb", {"posterior"}), ("gp_ts", {"posterior", "paths"}),
                                         ("et_gp_ucb", {"block"}), ("random", set())])
def test_policies_expose_their_models_by_role(name, roles):
    from boundcheck.world.catalogue import get_scenario

    th = theory.get("gp_ucb" if name != "et_gp_ucb" else "et_gp_ucb")
    sc = api.resolve_scenario(None, th, 5, None) if name == "et_gp_ucb" else get_scenario("gp_sample_se")
    spec = api.build_study(th, sc, runs=2, horizon=5, policies=[name])
    pol = policy_spec(name).make()
    inst = spec.family.instantiate(spec.scenario, 5, spec.delta)
    from boundcheck.policies import RunContext

    pol.start(RunContext(runs=2, horizon=5, candidates=sc.candidates, truth=sc.truth, noise_sd=sc.noise,
                         noise_var=sc.model_noise_var, beta=inst.beta, xi=inst.xi, actions=sc.actions,
                         rngs=[np.random.default_rng(i) for i in range(2)], schedules=dict(inst.schedules)))
    assert set(pol.models()) == roles


def test_the_combinatorial_round_monitor_is_an_observer_of_the_arm_model():
    spec = api.build_study("comb_gp_ucb", runs=2, horizon=5, policies=["comb_gp_ucb"])
    inst = spec.family.instantiate(spec.scenario, 5, spec.delta)
    (obs,) = inst.observers
    assert isinstance(obs, Observer) and obs.needs == "arm_model"


def test_generic_defects_apply_through_the_hooks_the_papers_declare():
    for d in GENERIC:
        assert d.needs in HOOKS and not d.theorems
        for tid in d.applies_to:
            assert d.needs in hooks_of(tid)
    # the literal (pseudocode) theorems of Zhou & Shroff declare no hook: no defect applies
    assert defects_for("r_gp_ucb_literal") == []
    # PE-GP-UCB chooses by its own joint argmax: no oracle, hence no argmin defect
    assert "oracle" not in hooks_of("pe_gp_ucb") and "argmin" not in {d.name for d in defects_for("pe_gp_ucb")}
    with pytest.raises(ValueError, match="unknown hook"):
        Defect("x", "y", needs="nope")


def test_the_ucb_variants_share_one_selection_block():
    from boundcheck.papers.combinatorial.policies import CombGPUCB
    from boundcheck.papers.et_gp_ucb.et_gp_ucb import ETGPUCB
    from boundcheck.papers.et_gp_ucb.r_gp_ucb import RGPUCB
    from boundcheck.papers.et_gp_ucb.tv_gp_ucb import TVGPUCB
    from boundcheck.papers.pe_gp_ucb.pe_gp_ucb import PEGPUCB
    from boundcheck.papers.r_sw_gp_ucb.restart_gp_ucb import RestartGPUCB
    from boundcheck.papers.r_sw_gp_ucb.sw_gp_ucb import SlidingWindowGPUCB
    from boundcheck.policies.gp_ucb import GPUCB

    for cls in (GPUCB, PEGPUCB, ETGPUCB, RGPUCB, TVGPUCB, RestartGPUCB, SlidingWindowGPUCB, CombGPUCB):
        assert issubclass(cls, UCBPolicy), cls
        assert "select" not in vars(cls) or cls is RGPUCB, cls  # R-GP-UCB only resets before the shared block
