"""One validated object for the settings every run shares: :class:`VerifySettings`.

``verify``, ``sweep``, ``power``, ``reproduce`` and :func:`boundcheck.testing.run_check` take *what* to check
(theorem, scenario, algorithms, defects) as their own arguments and *how* to run it (runs, horizon, seed, workers,
budget, output, ...) as one :class:`VerifySettings`, validated once here, in ``__post_init__``, by the helpers of
:mod:`boundcheck.utils.validation` (the one-line messages the CLI prints). Keywords of the same names still work:
:func:`settings_from` is the one place that turns them into settings.

This module imports nothing heavy at import time (``boundcheck list`` and ``--help`` load it through the api
without numpy): the checks are imported when a settings object is made.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TypedDict

from ..errors import BoundcheckError

__all__ = ["VerifySettings", "SettingsKeywords", "settings_from", "BACKENDS", "DEFAULT_FALSE_ALARM",
           "DEFAULT_MAX_RUNS"]

#: verify's family-wise false-alarm budget (Holm across the stochastic claims; boundcheck.claims.budget uses it)
DEFAULT_FALSE_ALARM = 0.01

#: verify --until-conclusive stops at this many runs unless ``max_runs`` says otherwise
DEFAULT_MAX_RUNS = 2000

#: the joblib backends a study runs on (the same tuple as :data:`boundcheck.study.runner.BACKENDS`; a test pins it)
BACKENDS = ("loky", "threading", "dask")


@dataclass(frozen=True)
class VerifySettings:
    """How a check runs: every setting ``verify``, ``sweep``, ``power``, ``reproduce`` and ``run_check`` share.

    Made once, validated once (``__post_init__``; one-line :class:`~boundcheck.errors.BoundcheckError`
    otherwise), never changed: :meth:`replace` makes a new, validated one; :meth:`to_dict` gives it as JSON.

    Parameters
    ----------
    runs : int or None
        Monte Carlo runs, ≥ 1. None: the command's default (verify and sweep: the scenario's ``runs``, else 200;
        power: 200; reproduce: each experiment's own).
    horizon : int or None
        T, rounds per run, ≥ 1. None: the scenario's.
    delta : float or None
        The confidence parameter δ ∈ (0, 1). None: the scenario's.
    seed : int
        Seed, in [0, 2⁶³ − 1]; the results are bit-identical for a seed whatever ``jobs`` and ``backend``.
    beta_scale : float
        Multiply β_t by this number > 0; anything but 1 is a negative control, outside the theorem.
    jobs : int
        Worker processes, ≥ 1, or −1 for all cores.
    backend : str
        ``"loky"``, ``"threading"`` or ``"dask"`` (needs ``boundcheck[dask]``).
    scheduler : str or None
        A dask.distributed scheduler address; only with ``backend="dask"`` (None: a LocalCluster).
    max_memory : int, str or None
        Refuse a study estimated above this size: bytes, or ``"4G"``, ``"500M"`` (stored as bytes). None: the
        memory available when the study starts.
    false_alarm : float or None
        The family-wise false-alarm budget ∈ (0, 1) (Holm). None: the command's default (0.01; reproduce: 0.05).
    until_conclusive : bool
        verify: add chunks of runs until every claim is settled, or ``max_runs`` (anytime-valid tests).
    max_runs : int or None
        With ``until_conclusive``: stop at this many runs (None: 2000); ``runs``, where given, must not exceed it
        (the study would stop short of it).
    allow_out_of_theory : bool
        Run a scenario that breaks an assumption of the theorem anyway, labelled "outside the theorem" (default:
        refuse, :class:`~boundcheck.errors.NotApplicable`).
    report : bool
        Write the HTML/LaTeX reports (sweep: its page).
    conformance : bool
        verify: run every checked implementation beside a shadow of the theorem's algorithm and check that it
        behaves as that algorithm (:mod:`boundcheck.claims.conformance`); False (``--no-conformance``): for a
        deliberately different algorithm, the verdict is then out of theory.
    policy_timeout : float
        Seconds one call into a user's policy code (``ask``, ``tell``, ``select``, ``update``, …) may take
        (:mod:`boundcheck.utils.usercode`); overrunning it stops the check with a one-line error, the runs finished
        before it kept. Built-in policies have no limit.
    allow_incomplete : bool
        verify: accept an *incomplete* verdict (every judged claim holds, but some claim was not applicable to
        the checked code) as a pass: exit 0 instead of 5.
    out : str, Path or None
        The output folder (stored as a Path). None: the command's default (verify: ``reports/<theorem>``, or a
        temporary folder with ``report=False``).
    """

    runs: int | None = None
    horizon: int | None = None
    delta: float | None = None
    seed: int = 0
    beta_scale: float = 1.0
    jobs: int = -1
    backend: str = "loky"
    scheduler: str | None = None
    max_memory: int | str | None = None
    false_alarm: float | None = None
    until_conclusive: bool = False
    max_runs: int | None = None
    allow_out_of_theory: bool = False
    report: bool = True
    conformance: bool = True
    policy_timeout: float = 60.0
    allow_incomplete: bool = False
    out: str | Path | None = None

    def __post_init__(self) -> None:
        from . import usercode
        from . import validation as v
        from .resources import parse_size

        def put(name: str, value) -> None:  # frozen: __post_init__ stores the canonical value this way
            object.__setattr__(self, name, value)

        # in the order the commands checked them before there was one object (the first error is the one shown)
        put("jobs", v.check_jobs("jobs", self.jobs))
        put("backend", v.check_choice("backend", self.backend, BACKENDS))
        if self.scheduler is not None:
            put("scheduler", v.check_text("scheduler", self.scheduler))
            if self.backend != "dask":
                raise BoundcheckError(f"--scheduler {self.scheduler} needs --backend dask (the backend is "
                                      f"{self.backend})")
        if self.backend == "dask" and importlib.util.find_spec("distributed") is None:
            raise BoundcheckError("--backend dask needs dask.distributed: pip install 'boundcheck[dask]'")
        if self.out is not None:
            put("out", v.check_output_dir("--out", self.out))
        if self.max_memory is not None:
            put("max_memory", parse_size(self.max_memory))
        if self.runs is not None:
            put("runs", v.check_int("runs", self.runs))
        if self.horizon is not None:
            put("horizon", v.check_int("horizon", self.horizon))
        if self.delta is not None:
            put("delta", v.check_probability("delta", self.delta))
        put("seed", v.check_seed("seed", self.seed))
        put("beta_scale", v.check_positive("beta scale", self.beta_scale))
        if self.false_alarm is not None:
            put("false_alarm", v.check_probability("false-alarm budget", self.false_alarm))
        for name in ("until_conclusive", "allow_out_of_theory", "report", "conformance", "allow_incomplete"):
            if not isinstance(getattr(self, name), bool):
                raise BoundcheckError(f"{name.replace('_', ' ')} must be true or false, got {getattr(self, name)!r}")
        put("policy_timeout", v.check_positive("policy timeout", self.policy_timeout))
        if not usercode.MIN_TIMEOUT <= self.policy_timeout <= usercode.MAX_TIMEOUT:
            raise BoundcheckError(f"policy timeout must lie in [{usercode.MIN_TIMEOUT:g}, {usercode.MAX_TIMEOUT:g}] "
                                  f"seconds (a day at most), got {self.policy_timeout!r}")
        if self.max_runs is not None:
            put("max_runs", v.check_int("max runs", self.max_runs))
            if not self.until_conclusive:
                raise BoundcheckError("--max-runs needs --until-conclusive")
        most = DEFAULT_MAX_RUNS if self.max_runs is None else self.max_runs
        if self.until_conclusive and self.runs is not None and self.runs > most:
            # the study would stop at max_runs: fewer runs than asked for, without a word
            raise BoundcheckError(f"--runs {self.runs} is more than --until-conclusive stops at (--max-runs "
                                  f"{most}{'' if self.max_runs is not None else ', the default'}): raise --max-runs "
                                  f"to at least {self.runs} or lower --runs")

    def replace(self, **changes) -> VerifySettings:
        """A copy with ``changes`` (field names), validated again."""
        unknown = sorted(set(changes) - _FIELDS)
        if unknown:
            raise TypeError(f"unknown setting(s) {', '.join(unknown)}; settings: {', '.join(_FIELDS_ORDERED)}")
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        """The settings as JSON values (``out`` as a string), in field order."""
        return {f.name: (str(v) if isinstance(v := getattr(self, f.name), Path) else v) for f in fields(self)}


class SettingsKeywords(TypedDict, total=False):
    """The fields of :class:`VerifySettings` as keywords (``**kwargs: Unpack[SettingsKeywords]``): the functions
    that take ``settings`` also take these, for type checkers and editors to list. Meanings: VerifySettings."""

    runs: int | None
    horizon: int | None
    delta: float | None
    seed: int
    beta_scale: float
    jobs: int
    backend: str
    scheduler: str | None
    max_memory: int | str | None
    false_alarm: float | None
    until_conclusive: bool
    max_runs: int | None
    allow_out_of_theory: bool
    report: bool
    conformance: bool
    policy_timeout: float
    allow_incomplete: bool
    out: str | Path | None


_FIELDS_ORDERED = tuple(f.name for f in fields(VerifySettings))
_FIELDS = frozenset(_FIELDS_ORDERED)


def settings_from(settings: VerifySettings | None, keywords: dict, *, caller: str = "verify",
                  unused: tuple[str, ...] = (), **defaults) -> VerifySettings:
    """The settings of one call: ``settings``, or ``VerifySettings(**defaults, **keywords)`` without it.

    ``keywords`` are the setting keywords the caller was given (each a field of :class:`VerifySettings`);
    ``defaults`` are the caller's own defaults where they differ from the fields' (``run_check``: 50 runs, one
    job, no report), used only when no ``settings`` object is given. With a ``settings`` object, a keyword that
    says something else than it is an error (which one should win would be a guess); an equal one is harmless.
    ``unused``: the settings the caller does not read (power has no β scale): a keyword among them is refused,
    as an unknown one is, rather than silently ignored; a settings object made for another command may hold them.
    """
    unknown = sorted(set(keywords) - _FIELDS)
    if unknown:
        raise TypeError(f"{caller}() got unexpected keyword argument(s) {', '.join(map(repr, unknown))}; the "
                        f"settings are {', '.join(_FIELDS_ORDERED)}")
    ignored = [k for k in _FIELDS_ORDERED if k in keywords and k in unused]
    if ignored:
        raise TypeError(f"{caller}() does not use the setting(s) {', '.join(ignored)}")
    if settings is None:
        return VerifySettings(**{**defaults, **keywords})
    if not isinstance(settings, VerifySettings):
        raise TypeError(f"{caller}(): settings must be a VerifySettings, got {type(settings).__name__}")
    if not keywords:
        return settings
    given = VerifySettings(**{**settings.to_dict(), **keywords})  # validated: compare canonical values
    clash = [k for k in keywords if getattr(given, k) != getattr(settings, k)]
    if clash:
        raise BoundcheckError(f"{caller}: {', '.join(f'{k}={keywords[k]!r}' for k in clash)} conflicts with the "
                              f"settings given ({', '.join(f'{k}={getattr(settings, k)!r}' for k in clash)}); pass "
                              f"settings.replace({clash[0]}=...) instead")
    return settings
