"""Behaviour pinned at fixed seeds (issue 9: a refactoring keeps results bit-identical).

Every stored column of the runs and steps tables and the summary's regret statistics and bound must equal
the fingerprints recorded by ``tests/regression_pins.py --write`` before the change. Columns added later are
not compared; a column that disappears or changes fails.
"""

import json

import pytest

from regression_pins import CASES, PINS, case_key, fingerprint

PINNED = json.loads(PINS.read_text())


@pytest.mark.parametrize("case", CASES, ids=case_key)
def test_bit_identical_to_pin(case):
    want = PINNED[case_key(case)]
    got = fingerprint(*case)
    for table, cols in want["tables"].items():
        for col, h in cols.items():
            assert col in got["tables"][table], f"{table}.{col} disappeared"
            assert got["tables"][table][col] == h, f"{table}.{col} changed"
    assert got["regret"] == want["regret"]
    assert got["bound"] == want["bound"]
