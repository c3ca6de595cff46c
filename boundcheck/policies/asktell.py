"""The per-run ask/tell form of the policy protocol, for ordinary code, and the adapter that runs it batched.

The batched protocol (:class:`~boundcheck.policies.base.Policy`) serves many runs per call; ordinary code
thinks of one run at a time. So a user writes one class with ``ask(t, available) -> index`` and
``tell(index, y)`` (:class:`AskTellPolicy` shows the form), is given an :class:`AskTellContext` per run, may
report the extras of :data:`EXTRAS`, and :class:`AskTellAdapter` runs it in the batched engine, checking every
answer, so that every theorem's claims apply to it.
"""

from __future__ import annotations

import inspect
import math
import traceback
from contextlib import nullcontext
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

from ..errors import BoundcheckError, UserCodeError
from ..model.kernels import KernelSpec
from ..model.priors import GPPrior
from ..utils import usercode
from .base import Policy, RunContext

__all__ = ["AskTellContext", "AskTellPolicy", "AskTellAdapter", "UserCalls", "EXTRAS", "is_ask_tell"]

#: extras an ask/tell policy may report each step (user name -> (engine record, meaning)); with ``mu``, ``sigma``
#: and ``beta`` the adapter also records the UCB μ + β σ at the choice
EXTRAS: dict[str, tuple[str, str]] = {
    "mu": ("mu", "μ_{t−1}(x_t): the policy's posterior mean at its choice"),
    "sigma": ("sigma", "σ_{t−1}(x_t): the policy's posterior standard deviation at its choice"),
    "beta": ("width", "β_t: the confidence width it used at step t"),
    "ucb": ("ucb", "UCB_{t−1}(x_t): the index it maximised, at its choice"),
    "sample": ("sample", "f̃_t(x_t): its Thompson draw at its choice"),
    "ts_dev": ("ts_dev", "max_x |f̃_t(x) − μ_{t−1}(x)| / (β_t σ_{t−1}(x)): how far its whole Thompson draw strays "
                         "(GP-TS, Lemma 5's event E^{f_t}(t), in its own β_t; a diagnostic)"),
    "draw_dev": ("draw_dev", "max_x |f̃_t(x) − μ_{t−1}(x)| / σ_{t−1}(x): the same in posterior standard deviations "
                             "(GP-TS: Lemma 5's concentration claim checks it against the theorem's v_t c̃_t)"),
    # GP-TS's draw records (boundcheck.policies.gp_ts.GPTS.records): the sample-calibration claims read them; x°
    # is the fixed point index 0 and x_{t−1} the previous choice (NaN at t = 1)
    "draw_fixed": ("draw_fixed", "f̃_t(x°): its Thompson draw at the fixed point x° = index 0"),
    "mu_fixed": ("mu_fixed", "μ_{t−1}(x°): its posterior mean at x° = index 0"),
    "sigma_fixed": ("sigma_fixed", "σ_{t−1}(x°): its posterior standard deviation at x° = index 0"),
    "draw_prev": ("draw_prev", "f̃_t(x_{t−1}): its draw at its previous choice (NaN at t = 1)"),
    "mu_prev": ("mu_prev", "μ_{t−1}(x_{t−1}) (NaN at t = 1)"),
    "sigma_prev": ("sigma_prev", "σ_{t−1}(x_{t−1}) (NaN at t = 1)"),
}


def _blas_controller():
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - a dependency
        return None
    return ThreadpoolController()


def _read_only(a) -> np.ndarray:
    """A copy of ``a`` that cannot be made writable: its memory is an immutable ``bytes`` object, so
    ``setflags(write=True)`` raises ValueError (a read-only *view* of a writable array, or a copy that owns its
    memory, can be unlocked that way, and a user's code could then change what every run shares)."""
    a = np.ascontiguousarray(a)
    return np.frombuffer(a.tobytes(), dtype=a.dtype).reshape(a.shape)


def _read_only_prior(p: GPPrior, arrays: dict[int, np.ndarray]) -> GPPrior:
    """A copy of the prior ``p`` whose arrays are :func:`_read_only` copies (``arrays``: the copies already made,
    by the id of their original: a kernel shared by the context and a prior is copied once)."""
    import copy

    q = copy.copy(p)
    for name, value in vars(p).items():
        if isinstance(value, np.ndarray):
            if id(value) not in arrays:
                arrays[id(value)] = _read_only(value)
            object.__setattr__(q, name, arrays[id(value)])
    return q


@dataclass(frozen=True, eq=False)
class AskTellContext:
    """What one run of an ask/tell policy is given (index points by row of ``points``).

    Read-only: every array here (``points``, ``kernel``, ``mean``, ``beta``, ``xi``, each prior's ``K`` and
    ``mean``) and the ``available`` mask ``ask`` is given are copies whose memory is immutable: writing into one, or
    ``setflags(write=True)`` on it, raises ValueError; a policy that needs to change one works on its own copy
    (``a.copy()``). The runs of a chunk share these copies (none can change them), never boundcheck's own arrays.

    Attributes
    ----------
    run : int
        The Monte Carlo run (for messages and debugging; a policy must not act on it).
    points : (n, d) array
        The finite domain X.
    kernel : (n, n) array
        k(x, x') on the domain under the model prior the theorem gives the algorithm (``priors[0]``).
    mean : (n,) array
        That prior's mean μ_0.
    eps : float
        Its drift ε (0: f does not change over time).
    priors : tuple of GPPrior
        Every candidate prior U (several for prior-selection theorems such as PE-GP-UCB; each has ``name``,
        ``mean``, ``K`` and ``eps``).
    noise_sd : float
        R, the standard deviation of the observation noise.
    noise_var : float
        λ, the likelihood variance the theorem's algorithm uses (R² in the Bayesian setting, 1 + 2/T for IGP-UCB).
    horizon : int
        T.
    delta : float
        The theorem's δ.
    beta : (T+1,) array
        The theorem's confidence width: what its own algorithm multiplies σ_{t−1} by at step t (``beta[t]``;
        ``beta[0]`` is unused), already a width, never squared again. Per theorem: ``gp_ucb``, ``tv_gp_ucb``,
        ``et_gp_ucb``, ``et_r_gp_ucb``, ``comb_gp_ucb``/``comb_gp_ts``/``comb_gp_bucb`` (and their
        ``_infinite`` forms): √β_t of the theorem's β_t; ``pe_gp_ucb``: its β_t^{1/2} schedule (the paper's
        √2·√log(π²T|X|t²/3δ)); ``igp_ucb``, ``igp_ucb_confidence``: β_t = B + R√(2(γ_{t−1} + 1 + ln 1/δ));
        ``gp_ts``: v_t = B + R√(2(γ_{t−1} + 1 + ln 1/δ)) (the draws' scale, not a UCB width); ``r_gp_ucb``,
        ``sw_gp_ucb``: β_t of the block / window confidence bound (B + R√(2(γ_{t−1} + ln(·/δ)))/√λ). The
        statements: ``boundcheck show THEOREM``.
    xi : (T+1,) array
        Noise-sum thresholds ξ_t (PE-GP-UCB's elimination test; zeros where the theorem has none).
    B : float or None
        The RKHS norm bound the theorem gives the algorithm (frequentist theorems), else None.
    batch : int
        Base arms per round K (1: ``ask`` returns one index).
    rng : numpy.random.Generator
        This run's own random stream (for randomised policies; reproducible, independent of f and noise).
    kernel_spec : KernelSpec
        ``kernel`` as a modelling stack sees it: the RBF / Matérn family with its lengthscale, variance and ν on
        ``points`` that reproduces the matrix to round-off (checked), or ``family == "matrix"`` (a kernel by
        index) where no family does; :mod:`boundcheck.adapters` builds the equivalent GPyTorch and scikit-learn
        kernels from it.
    """

    run: int
    points: np.ndarray
    kernel: np.ndarray
    mean: np.ndarray
    eps: float
    priors: tuple[GPPrior, ...]
    noise_sd: float
    noise_var: float
    horizon: int
    delta: float
    beta: np.ndarray
    xi: np.ndarray
    B: float | None
    batch: int
    rng: np.random.Generator
    kernel_spec: KernelSpec | None = None

    @property
    def n(self) -> int:
        """|X|, the number of points."""
        return int(self.points.shape[0])


class AskTellPolicy:
    """Optional base class of the per-run form (any class with ``ask`` and ``tell`` will do).

    Class attributes: ``name`` (default: the class name), ``label`` (for reports), ``description`` (one line),
    ``records`` (the extras of :data:`EXTRAS` that ``ask`` puts into ``self.record``).

    A user writes one class; boundcheck builds a fresh object of it for every Monte Carlo run::

        class MyPolicy:                               # subclassing AskTellPolicy is optional
            records = ("mu", "sigma", "beta")         # optional extras it reports each step (see EXTRAS)

            def __init__(self, ctx: AskTellContext):  # the run's problem: domain, prior, noise, T, δ, β_t, rng
                ...

            def ask(self, t: int, available: np.ndarray) -> int:
                ...                                   # available: (n,) read-only boolean mask of X_t
                self.record = {"mu": ..., "sigma": ..., "beta": ...}   # only if it declares ``records``
                return x                              # an int index into ctx.points, inside X_t

            def tell(self, index: int, y: float) -> None:
                ...                                   # the observation y_t = f_t(x_t) + ε_t

    For semi-bandit rounds of K base arms (``ctx.batch = K > 1``) ``ask`` returns K distinct available indices
    and ``tell`` receives them with a (K,) array of observations.
    """

    name: str | None = None
    label: str | None = None
    description: str = ""
    records: tuple[str, ...] = ()

    def __init__(self, ctx: AskTellContext) -> None:
        self.ctx = ctx
        self.record: dict[str, float] = {}

    def ask(self, t: int, available: np.ndarray) -> int:  # pragma: no cover
        raise NotImplementedError

    def tell(self, index: int, y: float) -> None:  # pragma: no cover
        raise NotImplementedError


def is_ask_tell(obj) -> bool:
    """A class in the per-run form (has ``ask`` and ``tell``), as opposed to a batched :class:`Policy`."""
    return (isinstance(obj, type) and not issubclass(obj, Policy) and callable(getattr(obj, "ask", None))
            and callable(getattr(obj, "tell", None)))


def user_policy_name(user: type) -> str:
    name = getattr(user, "name", None)
    return name if isinstance(name, str) and name else user.__name__


def _origin(user: type) -> str:
    """``file.py:Class`` of a user class, for messages (remembered in the parent process: a class shipped to a
    worker by value has no file there)."""
    known = user.__dict__.get("__boundcheck_origin__")
    if known:
        return known
    try:
        path = inspect.getsourcefile(user) or user.__module__
    except TypeError:
        path = user.__module__
    return f"{path}:{user.__qualname__}"


def remember_origin(user: type) -> None:
    """Store :func:`_origin` on the class, so that it travels with it."""
    try:
        user.__boundcheck_origin__ = _origin(user)
    except (AttributeError, TypeError):  # pragma: no cover - a class that refuses attributes
        pass


def _user_frame(exc: BaseException, user: type | None = None) -> str:
    """`` (file.py, line N)`` of the innermost frame of a traceback outside boundcheck, if any (code shipped to a
    worker by value has lost its file name to cloudpickle's ``<dynamic-code>``: the user class's file stands in)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/boundcheck/" not in f.filename.replace(
        "\\", "/")]
    if not frames:
        return ""
    f = frames[-1]
    name = f.filename
    if name == "<dynamic-code>" and user is not None:
        name = _origin(user).rpartition(":")[0] or name
    return f" ({name}, line {f.lineno})"


class UserCalls:
    """How an adapter of per-run user code calls it: every call through :func:`boundcheck.utils.usercode.call`, an
    exception (or an exit, an interrupt, the time limit) turned into one :class:`~boundcheck.errors.UserCodeError`
    naming the policy, its file, the run and the step; BLAS on one thread while the user's code runs. Needs
    ``self.user`` (the class), ``self.name`` and ``self.ctx.run_ids``."""

    def _run(self, i: int) -> int:
        ids = self.ctx.run_ids
        return int(ids[i]) if ids else i

    def _error(self, i: int, t: int, what: str, detail: str) -> UserCodeError:
        step = "construction" if t == 0 else f"step {t}"
        return UserCodeError(f"policy {self.name!r} ({_origin(self.user)}) {detail} in {what}, run {self._run(i)}, "
                             f"{step}")

    def _call(self, i: int, t: int, what: str, fn, *args):
        where = f"policy {self.name!r} ({_origin(self.user)}) {what}, run {self._run(i)}, " + (
            "construction" if t == 0 else f"step {t}")  # the marker a dead process leaves (utils.usercode)
        try:
            return usercode.call(where, fn, *args)
        except usercode.UserCallFailed as exc:  # SystemExit, KeyboardInterrupt, the time limit
            raise self._error(i, t, what, exc.detail) from None
        except Exception as exc:  # user code: one line naming the policy, the run and the step
            msg = str(exc).splitlines()[0] if str(exc) else ""
            raise self._error(i, t, what, f"raised {type(exc).__name__}: {msg}{_user_frame(exc, self.user)}") from None

    def _single_thread(self):
        """One BLAS thread while user code runs: per-run code works on small matrices, where BLAS threads only
        contend (10× slower on a busy machine); the batched engine keeps its own setting."""
        blas = getattr(self, "_blas", None)
        return blas.limit(limits=1, user_api="blas") if blas is not None else nullcontext()


class AskTellAdapter(UserCalls, Policy):
    """Runs an ask/tell class in the batched protocol: one user object per run of the chunk.

    A Python loop over the runs of a chunk (ordinary code is not vectorised). It checks every answer: an
    exception, an index outside the domain or outside X_t, or a non-integer index is a
    :class:`~boundcheck.errors.UserCodeError` naming the policy, the run and the step. The engine monitors the
    policy through its own reference posterior of the true prior (confidence events, innovations), so the
    theorem-level claims always run; the extras a policy reports turn on the lemma-level claims that read them
    (the others are reported "not applicable", with what they need).
    """

    description = "a user policy in the per-run ask/tell form"
    declared_by_instance = True  # the records depend on the user class (PolicySpec.declared builds one)

    def __init__(self, user: type, name: str | None = None, label: str | None = None) -> None:
        if not is_ask_tell(user):
            raise BoundcheckError(f"{user!r} is not an ask/tell policy class (it needs ask() and tell())")
        self.user = user
        self.name = name or user_policy_name(user)
        self.label = label or getattr(user, "label", None) or self.name
        doc = (getattr(user, "description", "") or (inspect.getdoc(user) or "").split("\n", 1)[0]).strip()
        self.description = doc or AskTellAdapter.description
        extras = getattr(user, "records", ()) or ()
        if isinstance(extras, str):
            extras = (extras,)
        extras = tuple(extras)
        unknown = [k for k in extras if k not in EXTRAS]
        if unknown:
            raise BoundcheckError(f"policy {self.name!r}: unknown extra(s) {', '.join(map(repr, unknown))} in "
                                  f"`records`; an ask/tell policy may report {', '.join(EXTRAS)}")
        self.extras = extras
        recs = {EXTRAS[k][0] for k in extras}
        self._derive_ucb = {"mu", "sigma", "beta"} <= set(extras) and "ucb" not in extras
        if self._derive_ucb:
            recs.add("ucb")
        self.records = frozenset(recs)

    # ------------------------------------------------------------------ the batched protocol
    def start(self, ctx: RunContext) -> None:
        super().start(ctx)
        n = ctx.candidates[0].n
        points = ctx.points if ctx.points is not None else np.arange(n, dtype=float)[:, None]
        copies: dict[int, np.ndarray] = {}
        priors = tuple(_read_only_prior(p, copies) for p in ctx.candidates)  # never the study's own arrays
        model = priors[0]
        shared_points = _read_only(points)
        shared = dict(points=shared_points, kernel=model.K, mean=model.mean,
                      eps=float(model.eps), priors=priors, noise_sd=float(ctx.noise_sd),
                      noise_var=float(ctx.noise_var), horizon=int(ctx.horizon), delta=float(ctx.delta),
                      beta=_read_only(np.array(ctx.schedule(self.name), dtype=float)),
                      xi=_read_only(np.array(ctx.xi, dtype=float)), B=None if ctx.B is None else float(ctx.B),
                      batch=int(ctx.actions.K), kernel_spec=ctx.kernel_spec(
                          0, model.K, shared_points if ctx.points is not None else None))
        self._n, self._K = n, int(ctx.actions.K)
        self._blas = _blas_controller()
        self._objs = []
        for i, rng in enumerate(ctx.rngs):
            run_ctx = AskTellContext(run=self._run(i), rng=rng, **shared)
            self._objs.append(self._call(i, 0, f"{self.user.__name__}(ctx)", self.user, run_ctx))

    def _index(self, i: int, t: int, a, available: np.ndarray) -> np.ndarray:
        """The user's answer as K base-arm indices, or a UserCodeError saying what is wrong with it."""
        K, n = self._K, self._n

        def one(v) -> int:
            if isinstance(v, bool | np.bool_) or not isinstance(v, Integral | np.integer):
                if isinstance(v, np.ndarray) and v.ndim == 0 and np.issubdtype(v.dtype, np.integer):
                    v = int(v)
                else:
                    raise self._error(i, t, "ask()", f"returned {v!r} ({type(v).__name__}), not an integer index")
            v = int(v)
            if not 0 <= v < n:
                raise self._error(i, t, "ask()", f"returned index {v}, outside the domain (0..{n - 1})")
            if not available[v]:
                raise self._error(i, t, "ask()", f"returned index {v}, which is not in the available set X_t")
            return v

        if K == 1:
            if isinstance(a, list | tuple | np.ndarray) and np.ndim(a) == 1 and len(a) == 1:
                a = a[0]
            return np.array([one(a)], dtype=np.int64)
        if not isinstance(a, list | tuple | np.ndarray) or np.ndim(a) != 1 or len(a) != K:
            raise self._error(i, t, "ask()", f"returned {a!r}: expected {K} distinct indices (a round of K base arms)")
        idx = np.array([one(v) for v in a], dtype=np.int64)
        if np.unique(idx).size != K:
            raise self._error(i, t, "ask()", f"returned {list(map(int, idx))}: the {K} indices must be distinct")
        return idx

    def _extras(self, i: int, t: int, obj, rec: dict[str, np.ndarray]) -> None:
        got = getattr(obj, "record", None)
        if not isinstance(got, dict):
            raise self._error(i, t, "ask()", f"declares records {list(self.extras)} but did not set self.record "
                                              "to a dict of them")
        for k in self.extras:
            if k not in got:
                raise self._error(i, t, "ask()", f"did not report {k!r} in self.record (declared in records)")
            v = got[k]
            if isinstance(v, np.ndarray) and v.size == 1:
                v = v.reshape(()).item()
            if isinstance(v, bool) or not isinstance(v, Real | np.floating | np.integer):
                raise self._error(i, t, "ask()", f"reported {k} = {v!r}, not a number")
            if not math.isfinite(v):  # a NaN record would make every claim that reads it vacuously hold
                raise self._error(i, t, "ask()", f"reported record {k} = {v!r}, not a finite number")
            rec[EXTRAS[k][0]][i] = float(v)

    def select(self, t: int, available: np.ndarray) -> np.ndarray:
        m, n = len(self._objs), self._n
        avail = np.broadcast_to(np.asarray(available, dtype=bool), (m, n))
        out = np.empty((m, self._K), dtype=np.int64)
        rec = {name: np.full(m, np.nan) for name in self.records}
        with self._single_thread():
            for i, obj in enumerate(self._objs):
                row = _read_only(avail[i])
                out[i] = self._index(i, t, self._call(i, t, "ask()", obj.ask, t, row), row)
                if self.extras:
                    self._extras(i, t, obj, rec)
        if self._derive_ucb:
            rec["ucb"] = rec["mu"] + rec["width"] * rec["sigma"]
        self.record = rec
        return out

    def update(self, t: int, action: np.ndarray, y: np.ndarray) -> None:
        with self._single_thread():
            for i, obj in enumerate(self._objs):
                if self._K == 1:
                    self._call(i, t, "tell()", obj.tell, int(action[i, 0]), float(y[i, 0]))
                else:
                    self._call(i, t, "tell()", obj.tell, [int(v) for v in action[i]], np.array(y[i], dtype=float))
