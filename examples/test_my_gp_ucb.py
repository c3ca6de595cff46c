"""What a user's own test looks like (run it with `pytest examples/test_my_gp_ucb.py`)."""

from pathlib import Path

import pytest

from boundcheck.testing import assert_bound_holds

HERE = Path(__file__).parent


def test_my_gp_ucb_behaves_as_theorem_1_says():
    # 30 runs cannot settle the probability claims (α = δ at a Holm share): accept "inconclusive", not "violated"
    assert_bound_holds("gp_ucb", algorithm=f"{HERE / 'gp_ucb.py'}:MyGPUCB", runs=30, horizon=30,
                       scenario=HERE / "my_problem.toml", allow_inconclusive=True)


def test_the_broken_copy_is_caught(boundcheck):  # the pytest fixture; honours --boundcheck-runs N
    with pytest.raises(AssertionError, match="D1_optimism"):
        boundcheck.assert_holds("gp_ucb", algorithm=f"{HERE / 'gp_ucb_broken.py'}:NarrowGPUCB", horizon=30)
