"""Panels of a reproduce run side by side come back in the order they were given, not in the order they
finished."""

from __future__ import annotations

import time
from concurrent.futures import Future

from boundcheck import api


def test_panels_side_by_side_come_back_in_input_order(tmp_path, monkeypatch):
    """Three panels of costs 2 : 3 : 4 on the parent and one worker: the costliest starts first and the cheapest
    last (and finishes last here), yet the summaries are returned in the order the panels were given."""
    import os

    import boundcheck.commands.reproduce as api_mod
    from boundcheck import runtime
    from boundcheck.study.runner import RunOptions

    class Now:  # a worker that runs what it is given at once, in the feeding thread
        def submit(self, fn, *args, **kwargs):
            fut = Future()
            fut.set_result(fn(*args, **kwargs))
            return fut

    specs = [api.build_study("gp_ucb", runs=r, horizon=5, seed=0) for r in (2, 3, 4)]

    def fake_run(spec, path, options, on_chunk=None):
        time.sleep(0.1 * (4 - spec.runs))  # the cheapest panel takes longest: completion order 4, 3, 2 runs
        return {"runs": spec.runs}

    monkeypatch.setattr(runtime, "pool", lambda workers: Now())
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(api_mod, "_run_spec", fake_run)
    out = api_mod._run_panels([(sp, tmp_path / str(i), None) for i, sp in enumerate(specs)],
                              RunOptions(jobs=2, backend="loky"))
    assert [s["runs"] for s in out] == [2, 3, 4]
