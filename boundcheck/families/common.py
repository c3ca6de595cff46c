"""Helpers every theorem family shares."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..engine import Trajectories
from ..study import StudyContext

__all__ = ["steps_table"]


def steps_table(traj: Trajectories, ctx: StudyContext, columns: Sequence[str]) -> pd.DataFrame:
    """The tidy ``steps`` table: one row per (run, algorithm, t), with the policy records named in
    ``columns`` (when the policy has them) and every truth-side monitor."""
    m, T = traj.run_ids.size, traj.horizon
    frames = []
    for name, tr in traj.algorithms.items():
        d = {
            "run": np.repeat(traj.run_ids, T), "algorithm": name, "t": np.tile(np.arange(1, T + 1), m),
            "idx": tr.idx.ravel(), "regret": tr.regret.ravel(),
            "cum_regret": np.cumsum(tr.regret, axis=1).ravel(), "noise": traj.noise.ravel(),
            "beta": np.tile(ctx.beta[1:], m),
        }
        for k in columns:
            if k in tr.steps:
                d[k] = tr.steps[k].ravel()
        for k, v in tr.monitors.items():
            d[k] = np.asarray(v, dtype=float).ravel()
        frames.append(pd.DataFrame(d))
    steps = pd.concat(frames, ignore_index=True)
    steps["algorithm"] = steps["algorithm"].astype("category")
    return steps
