"""The pytest plugin: --boundcheck-runs option and the boundcheck fixture, run in an inner pytest session."""

import pytest

pytest_plugins = ["pytester"]


def test_fixture_and_option(pytester):
    pytester.makepyfile(
        """
        def test_inner(boundcheck):
            assert boundcheck.runs == 3
            s = boundcheck.verify("pe_gp_ucb", horizon=10, seed=0)
            assert s["runs"] == 3 and s["horizon"] == 10
        """
    )
    result = pytester.runpytest_subprocess("--boundcheck-runs", "3")
    result.assert_outcomes(passed=1)


def test_assert_bound_holds_passes_in_theory():
    from boundcheck.testing import assert_bound_holds

    # 10 runs settle no probability claim: inconclusive is accepted only when asked for
    s = assert_bound_holds("pe_gp_ucb", runs=10, horizon=20, seed=1, allow_inconclusive=True)
    assert s["in_theory"]
    with pytest.raises(AssertionError, match="claims not holding"):
        assert_bound_holds("pe_gp_ucb", runs=10, horizon=20, seed=1)
