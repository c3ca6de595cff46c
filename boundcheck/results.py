"""What :func:`boundcheck.api.verify`, :func:`~boundcheck.api.sweep`, :func:`~boundcheck.api.reproduce` and
:func:`~boundcheck.api.power` return: the command's JSON summary, with its tables as pandas DataFrames and a rich
display for notebooks.

Every result object *is* the JSON summary (a :class:`dict` subclass holding exactly the keys the command writes),
so ``summary["verdict"]`` and ``json.dumps(summary)`` keep working. On top of it: ``.claims``, ``.runs``,
``.regret`` (tidy DataFrames, their columns in :data:`CLAIM_COLUMNS`, :data:`RUN_COLUMNS`, :data:`REGRET_COLUMNS`
and docs/cli.md, "In a notebook"; ``.runs`` and ``.regret`` read from the stored, checksummed tables),
``._repr_html_()`` (the HTML report's headline for Jupyter) and ``.to_json()``. A verify with ``out=None`` and
``report=False`` keeps its temporary results folder until the result is garbage-collected.

>>> from boundcheck import api
>>> res = api.verify("gp_ucb", runs=20, horizon=30, seed=1, report=False)  # doctest: +SKIP
>>> res["verdict"], res.claims[["claim", "verdict"]], res.regret.groupby("t")["cum_regret"].mean()  # doctest: +SKIP
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import BoundcheckError

if TYPE_CHECKING:  # pandas is imported by the views that build DataFrames
    import pandas as pd

__all__ = ["Result", "VerifyResult", "SweepResult", "ReproduceResult", "PowerResult", "CLAIM_COLUMNS",
           "RUN_COLUMNS", "REGRET_COLUMNS", "POWER_CLAIM_COLUMNS"]

#: ``VerifyResult.claims``: one row per checked algorithm × claim, in the summary's order (the main algorithm's
#: claims first). ``SweepResult.claims`` has the sweep table's columns instead
#: (:data:`boundcheck.study.sweep.COLUMNS`), ``ReproduceResult.claims`` the empirical claims' fields, ``claim``
#: first (docs/reproduce.md).
CLAIM_COLUMNS = {
    "claim": "the claim id (theory: the theorem's claims, `boundcheck show THEOREM`)",
    "algorithm": "the checked algorithm the claim was judged on",
    "kind": "probability / deterministic / expectation / calibration / identity (a sanity identity, outside the "
            "verdict)",
    "level": "the claim's allowed failure probability, or its expectation bound (None for the others)",
    "verdict": "holds / violated / inconclusive / not applicable",
    "main": "whether the claim is the theorem's statement itself (the regret bound)",
    "violations": "runs in which the claim failed",
    "runs": "runs it was judged on",
    "rate": "violations / runs",
    "ci_low": "lower end of the claim's interval (Clopper–Pearson for a rate, Student t for a mean)",
    "ci_high": "upper end of the claim's interval",
    "test_size": "the size of each one-sided end of the interval (the interval's confidence is 1 − 2·test_size)",
    "p_value": "the claim's own p-value for 'the claim is true' (stochastic claims)",
    "p_adjusted": "its Holm-adjusted p-value: violated iff p_adjusted ≤ the false-alarm budget",
    "budget_share": "the share of the false-alarm budget its p-value is compared with",
    "sequential": "whether the p-value and interval are anytime-valid (--until-conclusive)",
    "details": "a dict of what the claim reports beyond these (runs needed, vacuity, detectable effect, ...)",
}

#: ``VerifyResult.runs``: one row per run × algorithm, the study's stored ``runs`` table. Besides these columns
#: a family stores its own per-run quantities (e.g. ``rkhs_norm``, ``realised_gain``, a paper's proof events).
RUN_COLUMNS = {
    "run": "the Monte Carlo run, 0 … runs − 1 (every algorithm sees the same function and noise in a run)",
    "seed": "the study's seed",
    "algorithm": "the algorithm's name (str)",
    "regret": "its cumulative regret at the horizon, R_T",
    "tightness": "R_T / Bound(T) (the checked algorithm's; above 1: the bound failed in this run)",
    "fail_<claim>": "whether the claim failed in this run (None where it is not judged on the algorithm)",
    "premise_<claim>": "whether the premise of a deterministic claim held in this run",
    "vacuity_<claim>": "the bound over the largest regret any algorithm could incur in this run",
}

#: ``VerifyResult.regret``: one row per run × algorithm × step, read from the study's stored ``steps`` table
#: (T times as many rows as ``.runs``: a long study's table is large).
REGRET_COLUMNS = {
    "run": "the Monte Carlo run",
    "algorithm": "the algorithm's name (str)",
    "t": "the step, 1 … T",
    "regret": "the instantaneous regret at step t, f(x*_t) − f(x_t) (when the family stores it)",
    "cum_regret": "the cumulative regret R_t = Σ_{s ≤ t} regret_s",
    "bound": "the explicit bound's anytime form Bound_T(t) with the certified upper end of γ_t (when stored)",
}

#: ``PowerResult.claims``: one row per planted defect × claim (``none``: the correct algorithm).
POWER_CLAIM_COLUMNS = {
    "defect": "the planted defect (``none``: the correct algorithm; its probabilities are false alarms)",
    "claim": "the claim id",
    "probability": "the probability that a verify of N runs calls the claim violated",
    "verdict_at_n": "the claim's verdict on the first N runs",
    "caught": "whether the probability reaches the power target (0.9)",
}


def _json_default(o: Any):
    """What ``json.dumps`` cannot write: numpy scalars and arrays as numbers and lists, anything else as its
    ``str`` (the CLI's ``--json`` does the same, so :meth:`Result.to_json` prints what the CLI prints)."""
    import numpy as np

    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)


def _read_runs(results: Path, runs: int | None) -> pd.DataFrame:
    """The stored ``runs`` table of a results folder (its first ``runs`` runs: a folder may hold a larger
    study's), algorithm as str."""
    from .study.store import ResultStore

    df = ResultStore(results).read_table("runs")
    if runs is not None:
        df = df[df["run"] < int(runs)].reset_index(drop=True)
    df["algorithm"] = df["algorithm"].astype(str)
    return df


def _read_regret(results: Path, runs: int | None) -> pd.DataFrame:
    """The cumulative-regret columns of the stored ``steps`` table, with the anytime bound per step when the
    study stored one (``gamma.parquet``)."""
    import pandas as pd

    from .study.store import ResultStore

    store = ResultStore(results)
    if not store.has_table("steps"):
        return pd.DataFrame(columns=["run", "algorithm", "t", "cum_regret"])
    df = store.read_table("steps", ["run", "algorithm", "t", "regret", "cum_regret"])
    if runs is not None:
        df = df[df["run"] < int(runs)].reset_index(drop=True)
    df["algorithm"] = df["algorithm"].astype(str)
    gamma = store.read_result_table("gamma")
    if gamma is not None and {"t", "bound_anytime"} <= set(gamma):
        df = df.merge(gamma[["t", "bound_anytime"]].rename(columns={"bound_anytime": "bound"}), on="t", how="left")
    return df


def _concat(frames: list[tuple[dict, pd.DataFrame]]) -> pd.DataFrame:
    """Tables of several studies stacked, each led by the columns that say which study it is."""
    import pandas as pd

    out = []
    for keys, df in frames:
        df = df.copy()
        for i, (k, v) in enumerate(keys.items()):
            df.insert(i, k, [v] * len(df))
        out.append(df)
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame()


class Result(dict):
    """A command's JSON summary (this dict) with notebook views; see the module docstring.

    Pickled or copied, it stays the summary and the folder's path (a temporary folder is not carried along)."""

    kind = "result"

    def __init__(self, summary: dict, folder: str | Path | None = None, *, keep: Any = None) -> None:
        super().__init__(summary)
        self._folder = None if folder is None else Path(folder)
        self._keep = keep  # a tempfile.TemporaryDirectory the tables live in: removed when the result goes

    def __reduce__(self):
        return (type(self), (dict(self), self._folder))

    @property
    def folder(self) -> Path | None:
        """Where the stored tables are (a verify's ``results/``, a sweep's, reproduce's or power's ``out``)."""
        return self._folder

    def _need_folder(self) -> Path:
        if self._folder is None or not self._folder.exists():
            raise BoundcheckError(f"this {self.kind} result has no results folder to read its tables from "
                                  f"({self._folder or 'none recorded'}): run it with out=... to keep them")
        return self._folder

    def to_json(self, indent: int | None = 2) -> str:
        """The summary as JSON text, exactly as the CLI prints it with ``--json``."""
        return json.dumps(dict(self), indent=indent, default=_json_default)

    def headline(self) -> str:
        """One line: what was checked and the verdict (what IPython prints for the result)."""
        what = self.get("theorem") or (self.get("paper") or {}).get("id", "?")
        where = f" on {self['scenario']}" if self.get("scenario") else ""
        verdict = self.get("verdict")
        if verdict is None and isinstance(self.get("counts"), dict):  # reproduce: its claims' verdicts counted
            verdict = ", ".join(f"{n} {k}" for k, n in self["counts"].items() if n)
        return (f"{type(self).__name__}: {what}{where}" + (f": {verdict}" if verdict else "")
                + " (a dict: the JSON summary; .claims, .runs, .regret: DataFrames; .to_json())")

    def _repr_pretty_(self, p, cycle: bool) -> None:
        # IPython's text display (a terminal): one line, not the summary's hundreds; repr() stays the dict's
        p.text(self.headline())

    @property
    def claims(self) -> pd.DataFrame:  # pragma: no cover - every subclass defines it
        raise NotImplementedError


class VerifyResult(Result):
    """What :func:`boundcheck.api.verify` returns: its JSON summary (``summary.json``), with

    * ``claims``: one row per checked algorithm × claim (:data:`CLAIM_COLUMNS`);
    * ``runs``: one row per run × algorithm (:data:`RUN_COLUMNS`), from ``results/chunks/runs-*.parquet``;
    * ``regret``: one row per run × algorithm × step (:data:`REGRET_COLUMNS`), from the ``steps`` chunks;
    * ``folder``: the results folder (``OUT/results``), ``report``: the paths of the reports written.
    """

    kind = "verify"

    @property
    def claims(self) -> pd.DataFrame:
        """The claims' verdicts, one row per checked algorithm × claim (:data:`CLAIM_COLUMNS`)."""
        import pandas as pd

        checked = self.get("checked") or {self.get("main_algorithm"): {"claims": self.get("claims") or []}}
        rows = [{"claim": c.get("id"), "algorithm": name,
                 **{k: c.get(k) for k in CLAIM_COLUMNS if k not in ("claim", "algorithm")}}
                for name, info in checked.items() for c in info.get("claims") or []]
        return pd.DataFrame(rows, columns=list(CLAIM_COLUMNS))

    @property
    def runs(self) -> pd.DataFrame:
        """Per run and algorithm: R_T, tightness and the claims' per-run outcomes (:data:`RUN_COLUMNS`)."""
        return _read_runs(self._need_folder(), self.get("runs"))

    @property
    def regret(self) -> pd.DataFrame:
        """Per run, algorithm and step: the regret curve (:data:`REGRET_COLUMNS`); tidy, for seaborn's
        ``lineplot(data=res.regret, x="t", y="cum_regret", hue="algorithm")``."""
        return _read_regret(self._need_folder(), self.get("runs"))

    def _repr_html_(self) -> str | None:
        from .report.notebook import verify_fragment

        if self._folder is None or not (self._folder / "summary.json").exists():
            return None  # nothing stored to render from: Jupyter falls back to the repr
        return verify_fragment(self._folder, link=(self.get("report") or {}).get("html"))


class SweepResult(Result):
    """What :func:`boundcheck.api.sweep` returns: the content of ``sweep.json``, with

    * ``claims``: the sweep table (``sweep.parquet``): one row per cell × claim, columns
      :data:`boundcheck.study.sweep.COLUMNS` and one per varied parameter;
    * ``runs``, ``regret``: every cell's :attr:`VerifyResult.runs` / :attr:`VerifyResult.regret`, led by the
      columns ``cell`` and one per varied parameter;
    * ``studies``: each cell's :class:`VerifyResult`.
    """

    kind = "sweep"

    @property
    def claims(self) -> pd.DataFrame:
        """The sweep table: one row per cell × claim (:data:`boundcheck.study.sweep.COLUMNS`)."""
        import pandas as pd

        return pd.read_parquet(self["table"])

    @property
    def studies(self) -> list[VerifyResult]:
        """Each cell's verify result, in the order of ``self["cells"]``."""
        from .study.store import ResultStore

        out = []
        for c in self["cells"]:
            results = Path(c["results"])
            if not (results / "summary.json").exists():
                raise BoundcheckError(f"cell {c['cell']}: {results} holds no summary (moved or removed?)")
            out.append(VerifyResult(ResultStore(results).read_json("summary"), results))
        return out

    def _stack(self, table: str) -> pd.DataFrame:
        return _concat([({"cell": c["cell"], **c["params"]}, getattr(s, table))
                        for c, s in zip(self["cells"], self.studies, strict=True)])

    @property
    def runs(self) -> pd.DataFrame:
        """Every cell's runs table, led by ``cell`` and the varied parameters."""
        return self._stack("runs")

    @property
    def regret(self) -> pd.DataFrame:
        """Every cell's regret curves, led by ``cell`` and the varied parameters."""
        return self._stack("regret")

    def _repr_html_(self) -> str:
        from .report.notebook import sweep_fragment

        return sweep_fragment(self.claims, dict(self))


class ReproduceResult(Result):
    """What :func:`boundcheck.api.reproduce` returns: the content of ``reproduce.json``, with

    * ``claims``: one row per empirical claim of the paper (its fields, ``id`` renamed ``claim``);
    * ``runs``, ``regret``: every panel's stored tables, led by the columns ``experiment`` and ``panel``.
    """

    kind = "reproduce"

    @property
    def claims(self) -> pd.DataFrame:
        """The paper's empirical claims and their verdicts, one row each."""
        import pandas as pd

        return pd.DataFrame([{"claim": c.get("id"), **{k: v for k, v in c.items() if k != "id"}}
                             for c in self.get("claims") or []])

    def _panels(self) -> list[tuple[dict, Path]]:
        folder = self._need_folder()
        return [({"experiment": exp["name"], "panel": p["name"]}, folder / p["results"])
                for exp in self.get("experiments") or [] for p in exp.get("panel_results") or []]

    @property
    def runs(self) -> pd.DataFrame:
        """Every panel's runs table (:data:`RUN_COLUMNS`), led by ``experiment`` and ``panel``."""
        return _concat([(k, _read_runs(r, self.get("runs"))) for k, r in self._panels()])

    @property
    def regret(self) -> pd.DataFrame:
        """Every panel's regret curves (:data:`REGRET_COLUMNS`), led by ``experiment`` and ``panel``."""
        return _concat([(k, _read_regret(r, self.get("runs"))) for k, r in self._panels()])

    def _repr_html_(self) -> str:
        from .report.notebook import reproduce_fragment

        return reproduce_fragment(dict(self))


class PowerResult(Result):
    """What :func:`boundcheck.api.power` returns: the content of ``power.json`` (and its ``path``), with

    * ``claims``: one row per planted defect × claim (:data:`POWER_CLAIM_COLUMNS`);
    * ``runs``, ``regret``: each defect study's stored tables (the pool of runs it simulated), led by the
      column ``defect``.
    """

    kind = "power"

    @property
    def claims(self) -> pd.DataFrame:
        """The detection probability of each claim against each defect (:data:`POWER_CLAIM_COLUMNS`)."""
        import pandas as pd

        target = float(self.get("power_target", 0.9))
        rows = [{"defect": name, "claim": c, "probability": p, "verdict_at_n": (d.get("verdict_at_n") or {}).get(c),
                 "caught": p >= target}
                for name, d in (self.get("defects") or {}).items() for c, p in (d.get("probability") or {}).items()]
        return pd.DataFrame(rows, columns=list(POWER_CLAIM_COLUMNS))

    def _studies(self) -> list[tuple[dict, Path]]:
        folder = self._need_folder()
        return [({"defect": name}, folder / name / "results") for name in self.get("defects") or {}]

    @property
    def runs(self) -> pd.DataFrame:
        """Each defect study's runs table (:data:`RUN_COLUMNS`), led by ``defect``."""
        return _concat([(k, _read_runs(r, None)) for k, r in self._studies()])

    @property
    def regret(self) -> pd.DataFrame:
        """Each defect study's regret curves (:data:`REGRET_COLUMNS`), led by ``defect``."""
        return _concat([(k, _read_regret(r, None)) for k, r in self._studies()])

    def _repr_html_(self) -> str:
        from .report.notebook import power_fragment

        return power_fragment(dict(self))
