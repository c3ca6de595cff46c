"""Results do not depend on the BLAS threads the environment asks for. The built-in scenarios
whose generators factorise (hartmann3, rosenbrock: the projection ``P f``) load bit-identical to their pins
whatever thread count is in force when they are built; ``make test-threads`` (run by .ci/run) runs the pinned
tests once more under ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1``."""

import json

import pytest
import scipy.linalg  # noqa: F401 - scipy's own BLAS loaded, so that threadpoolctl limits it too
from scenario_pins import PINS, scenario_fingerprints
from threadpoolctl import threadpool_info, threadpool_limits

from boundcheck.utils.blas import SCENARIO_BLAS_THREADS, scenario_blas
from boundcheck.world import get_scenario

PINNED = json.loads(PINS.read_text())


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("name", ["hartmann3", "rosenbrock"])
def test_scenario_is_bit_identical_whatever_the_threads_in_force(name, threads):
    with threadpool_limits(limits=threads, user_api="blas"):
        assert scenario_fingerprints(get_scenario(name)) == PINNED["scenarios"][name]


def test_scenario_blas_restores_the_callers_threads():
    with threadpool_limits(limits=1, user_api="blas"):
        with scenario_blas():
            inside = {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}
        after = {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}
    assert inside <= {SCENARIO_BLAS_THREADS} and after <= {1}
