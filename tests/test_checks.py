import numpy as np
import pytest

from boundcheck.claims.stats import (
    calibration_verdict,
    clopper_pearson,
    deterministic_verdict,
    probability_verdict,
    theorem_verdict,
)


def test_clopper_pearson_known_values():
    lo, hi = clopper_pearson(0, 200)
    assert lo == 0 and hi == pytest.approx(1 - 0.025 ** (1 / 200), rel=1e-9)
    lo, hi = clopper_pearson(5, 10)
    assert lo == pytest.approx(0.187086, abs=1e-5) and hi == pytest.approx(0.812914, abs=1e-5)


def test_probability_verdicts_can_say_all_three():
    assert probability_verdict("c", "probability", np.zeros(200, bool), 0.05).verdict == "holds"
    assert probability_verdict("c", "probability", np.ones(200, bool), 0.05).verdict == "violated"
    r = probability_verdict("c", "probability", np.zeros(20, bool), 0.05)
    assert r.verdict == "inconclusive" and r.details["runs_needed"] >= 40


def test_deterministic_and_theorem_verdict():
    ok = deterministic_verdict("d", np.zeros(10, bool))
    bad = deterministic_verdict("d", np.eye(10, dtype=bool)[3])
    assert ok.verdict == "holds" and bad.verdict == "violated"
    assert bad.details["first_counterexample_run"] == 3
    assert theorem_verdict([ok, bad]) == "violated"
    assert theorem_verdict([ok]) == "holds"


def test_calibration_detects_miscalibration():
    rng = np.random.default_rng(0)
    good = rng.standard_normal((100, 100))
    assert calibration_verdict("k", good).verdict == "holds"
    assert calibration_verdict("k", 1.1 * good).verdict == "violated"  # variance 1.21
    ar = good.copy()
    for t in range(1, 100):
        ar[:, t] = 0.2 * ar[:, t - 1] + np.sqrt(1 - 0.04) * good[:, t]
    assert "lag1" in calibration_verdict("k", ar).details["rejected"]
