"""Compact-domain scenarios: X = [low, high]^d, the theorems' own setting (Srinivas et al. 2010, Thm 2; paper 001's
[0,1]² experiments), with the acquisition maximised on the continuum and the truth evaluable anywhere.

A :class:`BoxScenario` is a :class:`~boundcheck.world.scenario.Scenario` whose ``domain`` is only a display grid
(what finite-domain code paths — sizes in reports, memory estimates, the kernel-bounded predicate — read); the
algorithms, the truth and the claims live on the box. The truth is f ~ GP(0, k̂) with k̂ the quadrature-feature
kernel (:class:`~boundcheck.model.continuum.features.QuadratureFeatures`), equal to the squared-exponential
kernel up to a certified ``kernel_error`` that every report states; the ε chain runs exactly in its weights.
Finite-domain theorems refuse these scenarios (predicates ``finite_domain`` / ``fixed_decision_set``), and the
compact-domain ones refuse finite scenarios (``compact_box_domain``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..errors import BoundcheckError
from ..model.domains import FiniteDomain
from ..model.kernels import RBF
from ..model.priors import GPPrior
from ..utils.validation import check_int, check_positive, check_unit_interval
from .actions import AlwaysAvailable
from .assumptions import register_predicate
from .scenario import Scenario

__all__ = ["BoxScenario", "box_scenario", "is_box", "DISPLAY_GRID"]

#: points per axis of the display grid a box scenario carries as its ``domain`` (never where algorithms act)
#: the largest box dimension of an RKHS truth (GP sample paths: 3)
MAX_RKHS_DIM = 6
DISPLAY_GRID = {1: 33, 2: 9, 3: 5, 4: 3, 5: 3, 6: 2}  # what reports draw on (RKHS truths up to 6-d)


def is_box(scenario) -> bool:
    """Whether a scenario's domain is a box (a compact-domain study), not a finite set of points."""
    return getattr(scenario, "box", None) is not None


@dataclass(frozen=True, eq=False)
class BoxScenario(Scenario):
    """A scenario on the box ``box`` (see the module docstring).

    Extra fields: ``box`` (:class:`~boundcheck.model.continuum.box.Box`); ``kernel`` the algorithms' kernel
    (squared exponential, k(x, x) = 1); ``truth_kernel`` the one f is drawn from (a negative control may differ);
    ``kernel_tol`` the largest sup|k̂ − k| the truth's feature kernel may have; ``eps`` the drift of the ε chain
    (0: static); ``sobol`` candidate points per step from which the optimiser's ``starts`` are chosen; ``certify``
    whether each step also records a proven upper bound on the optimiser's gap (a grid evaluation: costly)."""

    box: object = None
    kernel: RBF | None = None
    truth_kernel: RBF | None = None
    kernel_tol: float = 1e-12
    truth_scale: float = 1.0  # f = truth_scale × (a GP(0, k̂) path): ≠ 1 only in a negative control (static f)
    # a fixed RKHS function instead of a GP path (frequentist theorems): f = Σ_j α_j k(·, c_j) with ``rkhs_centres``
    # centres uniform in the box and ‖f‖_k = ``rkhs_norm`` exactly, drawn per run
    rkhs_norm: float | None = None
    rkhs_centres: int = 8
    eps: float = 0.0
    sobol: int = 256
    starts: int = 6
    certify: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.box is None or self.kernel is None:
            raise BoundcheckError(f"scenario {self.name!r}: a box scenario needs its box and kernel")
        check_unit_interval(f"scenario {self.name!r}: eps", self.eps)
        check_int("sobol candidates", self.sobol, 2)
        check_int("optimiser starts", self.starts, 1, self.sobol)
        check_positive("truth scale", self.truth_scale)
        if self.truth_scale != 1.0 and self.eps:
            raise BoundcheckError(f"scenario {self.name!r}: a scaled truth is a static negative control (ε = 0)")
        if self.rkhs_norm is not None:
            check_positive("RKHS norm of the truth", self.rkhs_norm)
            check_int("RKHS centres", self.rkhs_centres, 1)
            if self.eps:
                raise BoundcheckError(f"scenario {self.name!r}: an RKHS truth on a box is static (ε = 0)")

    @property
    def truth_k(self) -> RBF:
        return self.truth_kernel if self.truth_kernel is not None else self.kernel

    @cached_property
    def features(self):
        """The truth's quadrature features (sup|k̂ − k| ≤ ``kernel_tol``, certified)."""
        from ..model.continuum.features import QuadratureFeatures

        return QuadratureFeatures.se(self.truth_k.lengthscale, self.box, tol=self.kernel_tol)

    @property
    def kernel_error(self) -> float:
        """The certified sup over the box of |k̂ − k| for the truth's feature kernel (0 for an RKHS truth: an exact
        kernel expansion, no features)."""
        return 0.0 if self.rkhs else float(self.features.error)

    @property
    def rkhs(self) -> bool:
        """Whether f is a fixed RKHS function (frequentist theorems), not a GP sample path."""
        return self.rkhs_norm is not None

    def describe_truth(self) -> str:
        if self.rkhs:
            return (f"f = Σ_j α_j k(·, c_j), {self.rkhs_centres} centres uniform in the box, ‖f‖_k = "
                    f"{self.rkhs_norm:g} exactly (k = SE ℓ = {self.truth_k.lengthscale:g}), a fresh f per run; its "
                    "maximum certified by branch and bound")
        f = self.features
        chain = f"ε = {self.eps:g} chain" if self.eps else "static"
        return (f"f ~ GP(0, k̂), k̂ = {f.n_features} quadrature Fourier features of SE ℓ = {self.truth_k.lengthscale:g} "
                f"(sup|k̂ − k| ≤ {f.error:.1e}, certified), exact joint draws anywhere in the box; {chain}")


def box_scenario(name: str, *, dim: int = 1, low: float = 0.0, high: float = 1.0, lengthscale: float = 0.2,
                 noise: float = 0.15, horizon: int = 100, delta: float = 0.1, eps: float = 0.0,
                 truth_lengthscale: float | None = None, description: str = "", notes: tuple[str, ...] = (),
                 in_theory: bool = True, out_of_theory_reason: str = "", noise_law: str = "gaussian",
                 sobol: int | None = None, starts: int | None = None, certify: bool = False, kernel_tol: float = 1e-12,
                 default_runs: int | None = None, source: str | None = None, model_noise: str = "R2",
                 B: float | None = None, rkhs_norm: float | None = None, rkhs_centres: int = 8) -> BoxScenario:
    """A GP-sample scenario on [low, high]^dim with the SE kernel of ``lengthscale`` (the truth's may differ:
    ``truth_lengthscale``, a negative control); with ``rkhs_norm``, f is a fixed RKHS function of that norm
    (``rkhs_centres`` kernel centres) and the algorithms are given the bound ``B``."""
    from ..model.continuum.box import Box

    # GP sample paths: d ≤ 3 (the feature truth's size grows as m^d); a fixed RKHS expansion is exact in any d (its
    # certified maximum's branch and bound takes seconds up to d = 6 at ℓ = 0.5)
    box = Box(check_int("box dimension", dim, 1, 3 if rkhs_norm is None else MAX_RKHS_DIM), float(low), float(high))
    # the optimiser's candidates and starts: 256 and 6 up to 3-d; from 4-d on 6 starts of 256 missed the UCB's
    # maximum at x* on 2 of 200 runs (5-d, ℓ = 0.5, T = 40), 16 of 1024 on none
    sobol = (256 if box.dim <= 3 else 1024) if sobol is None else sobol
    starts = (6 if box.dim <= 3 else 16) if starts is None else starts
    kern = RBF(check_positive("lengthscale", lengthscale))
    tk = None if truth_lengthscale is None or truth_lengthscale == lengthscale else RBF(truth_lengthscale)
    disp = FiniteDomain(box.grid(DISPLAY_GRID[box.dim]), name=f"display grid of [{low:g}, {high:g}]^{dim}")
    model = GPPrior(f"GP(0, SE ℓ = {lengthscale:g})", 0.0, kern(disp.points, disp.points), eps=0.0)
    if tk is None:
        truth, truth_index = (model if eps == 0 else GPPrior(model.name + f", ε = {eps:g}", 0.0, model.K, eps=eps)), 0
        if eps:
            truth_index = None
    else:
        truth, truth_index = GPPrior(f"GP(0, SE ℓ = {tk.lengthscale:g})", 0.0, tk(disp.points, disp.points),
                                     eps=eps), None
    return BoxScenario(
        name=name, description=description, domain=disp, availability=AlwaysAvailable(disp.n), candidates=(model,),
        truth=truth, truth_index=truth_index, reference_index=0 if truth_index is None else None, noise=noise,
        horizon=check_int("horizon", horizon), delta=delta, in_theory=in_theory,
        out_of_theory_reason=out_of_theory_reason, notes=tuple(notes), noise_law=noise_law, model_noise=model_noise,
        B=B, default_runs=default_runs, source=source, box=box, kernel=kern, truth_kernel=tk, eps=float(eps),
        sobol=sobol, starts=starts, certify=certify, kernel_tol=kernel_tol, rkhs_norm=rkhs_norm,
        rkhs_centres=rkhs_centres)


# ----------------------------------------------------------------------------- predicates of compact theorems
@register_predicate("compact_box_domain")
def _compact_box_domain(sc) -> tuple[bool, str]:
    if not is_box(sc):
        return False, "the domain is a finite set of points, not a compact box (use a [domain] box scenario)"
    b = sc.box
    return True, f"X = [{b.low:g}, {b.high:g}]^{b.dim}: compact and convex, X − low ⊂ [0, r]^d with r = {b.r:g}"


@register_predicate("derivative_tails_certified")
def _derivative_tails_certified(sc) -> tuple[bool, str]:
    if not is_box(sc):
        return False, "no box: the derivative-tail constants a, b are defined on a compact domain"
    if sc.rkhs:
        return False, "f is a fixed RKHS function: the derivative tails of a GP sample path do not describe it"
    a = sc.features.derivative_tails()
    return True, (f"P(sup|∂f/∂x_j| > L) ≤ a e^{{−(L/b)²}} with ln a = {a.log_a:.4g}, b = {a.b:.4g} "
                  "(Borell–TIS on the feature prior; a proven bound on E sup|∂_j f|)")


def rescaled_truth(sc: BoxScenario, lengthscale_factor: float = 1.0, amplitude: float = 1.0) -> BoxScenario:
    """The scenario with f drawn with lengthscale × ``lengthscale_factor`` and multiplied by ``amplitude`` (a
    negative control: the algorithms keep their prior); the study is then outside the theorem (``model_is_truth``
    fails on the truth's prior)."""
    from dataclasses import replace

    ell = sc.truth_k.lengthscale * lengthscale_factor
    tk = RBF(ell, variance=amplitude**2)
    truth = GPPrior(f"GP(0, {amplitude**2:g}·SE ℓ = {ell:g})", 0.0, tk(sc.domain.points, sc.domain.points),
                    eps=sc.eps)
    return replace(sc, truth_kernel=RBF(ell), truth_scale=sc.truth_scale * amplitude, truth=truth, truth_index=None,
                   reference_index=0)


def check_points_in_box(sc: BoxScenario, X: np.ndarray) -> np.ndarray:
    """Rows of X outside the box (beyond round-off) as a boolean mask."""
    b = sc.box
    X = np.asarray(X, dtype=np.float64)
    return ~np.isfinite(X).all(axis=-1) | (X < b.low - 1e-12).any(axis=-1) | (X > b.high + 1e-12).any(axis=-1)


# ----------------------------------------------------------------------------- scenario files
#: the root keys of a box scenario file (a stationary file whose ``[domain]`` is ``box = {dim, low, high}``)
BOX_ROOT_KEYS = {"format", "family", "name", "description", "notes", "horizon", "delta", "noise", "runs", "in_theory",
                 "out_of_theory_reason", "domain", "kernel", "priors", "truth", "B", "model_noise", "continuum",
                 "noise_law"}


def parse_box(f, root: dict) -> BoxScenario:
    """A box scenario from a scenario file's root table ``root`` (the reader ``f`` names the key of every error):

    ``[domain] box = {dim = 2, low = 0, high = 1}``; ``[kernel] family = "rbf", lengthscale = 0.2``; one
    ``[[priors]]`` (the algorithms' prior, mean 0, optional ``eps``: the ε chain's drift); ``[truth] prior = NAME``
    (f drawn from it) or ``[truth] gp = {lengthscale = …}`` (a negative control); optional ``[continuum]``
    ``sobol``, ``starts``, ``certify``, ``kernel_tol``; ``[truth] rkhs = {norm = …, centres = …}`` with a root ``B``
    and ``model_noise = "1+2/T"`` for the frequentist theorems."""
    from .scenario_reader import ScenarioFileError, _delta, theory_label

    root = f.keys(root, "", BOX_ROOT_KEYS, {"name", "horizon", "delta", "noise", "domain", "kernel", "priors",
                                            "truth"})
    name = f.text(root, "name", "")
    if not name.strip():
        raise f.error("name", "a non-empty string", name)
    dom = f.keys(root["domain"], "domain", {"box", "name"}, {"box"})
    b = f.keys(dom["box"], "domain.box", {"dim", "low", "high"}, {"dim"})
    dim = f.integer(b, "dim", "domain.box")
    rkhs_truth = isinstance(root.get("truth"), dict) and "rkhs" in root["truth"]
    if rkhs_truth and dim > MAX_RKHS_DIM:
        raise f.error("domain.box.dim", f"1 to {MAX_RKHS_DIM} (an RKHS truth: its certified maximum's branch and bound "
                                        "splits each cell in 2^d)", dim)
    if not rkhs_truth and dim > 3:
        raise f.error("domain.box.dim", "1, 2 or 3 (GP sample paths on a box: the feature truth's size grows as "
                                        "m^d; an RKHS truth may have up to 6)", dim)
    low, high = f.number(b, "low", "domain.box", default=0.0), f.number(b, "high", "domain.box", default=1.0)
    if not high > low:
        raise f.error("domain.box.high", f"a number above low = {low:g}", b.get("high"))
    k = f.keys(root["kernel"], "kernel", {"family", "lengthscale"}, {"family", "lengthscale"})
    f.text(k, "family", "kernel", choices=("rbf",))
    ell = f.number(k, "lengthscale", "kernel", low=0.0, strict_low=True, what="a positive lengthscale")
    priors = root["priors"]
    if not isinstance(priors, list) or len(priors) != 1:
        raise f.error("priors", "exactly one [[priors]] table (the algorithms' prior on the box)", priors)
    p = f.keys(priors[0], "priors.0", {"name", "mean", "eps"}, {"name"})
    pname = f.text(p, "name", "priors.0")
    if f.number(p, "mean", "priors.0", default=0.0) != 0.0:
        raise f.error("priors.0.mean", "0 (a box prior is centred)", p.get("mean"))
    eps = f.number(p, "eps", "priors.0", default=0.0, low=0.0, high=1.0)
    tt = f.keys(root["truth"], "truth", {"prior", "gp", "rkhs"})
    if len(tt) != 1:
        raise f.error("truth", "exactly one of prior, gp, rkhs", ", ".join(tt) or "none")
    truth_ell, rkhs_norm, rkhs_centres = None, None, 8
    if "rkhs" in tt:
        rk = f.keys(tt["rkhs"], "truth.rkhs", {"norm", "centres"}, {"norm"})
        rkhs_norm = f.number(rk, "norm", "truth.rkhs", low=0.0, strict_low=True, what="a positive norm")
        rkhs_centres = f.integer(rk, "centres", "truth.rkhs", default=8)
    elif "prior" in tt:
        if tt["prior"] != pname:
            raise f.error("truth.prior", f"the name of the [[priors]] table ({pname!r})", tt["prior"])
    else:
        g = f.keys(tt["gp"], "truth.gp", {"lengthscale"}, {"lengthscale"})
        truth_ell = f.number(g, "lengthscale", "truth.gp", low=0.0, strict_low=True, what="a positive lengthscale")
    c = f.keys(root.get("continuum", {}), "continuum", {"sobol", "starts", "certify", "kernel_tol"})
    certify = c.get("certify", False)
    if not isinstance(certify, bool):
        raise f.error("continuum.certify", "true or false", certify)
    in_theory, reason, notes = theory_label(f, root)
    noise_law = f.text(root, "noise_law", "", default="gaussian")
    if noise_law.split(":")[0] not in ("gaussian", "rademacher"):
        raise f.error("noise_law", "gaussian or rademacher, optionally :<scale>", noise_law)
    try:
        return box_scenario(
            name, dim=dim, low=low, high=high, lengthscale=ell, truth_lengthscale=truth_ell,
            noise=f.number(root, "noise", "", low=0.0, strict_low=True, what="a positive noise level R"),
            horizon=f.integer(root, "horizon", ""), delta=_delta(f, root), eps=eps,
            description=f.text(root, "description", "", default="", template=True),
            notes=tuple(f.fill(x, f"notes.{i}") for i, x in enumerate(notes)), in_theory=in_theory,
            out_of_theory_reason=reason, noise_law=noise_law,
            sobol=f.integer(c, "sobol", "continuum", default=None, minimum=2),
            starts=f.integer(c, "starts", "continuum", default=None),
            certify=certify,
            kernel_tol=f.number(c, "kernel_tol", "continuum", default=1e-12, low=0.0, strict_low=True,
                                what="a positive tolerance"),
            default_runs=f.integer(root, "runs", "", default=None), source=f.source, rkhs_norm=rkhs_norm,
            rkhs_centres=rkhs_centres,
            B=f.number(root, "B", "", default=None, low=0.0, strict_low=True, what="a positive norm bound"),
            model_noise=f.text(root, "model_noise", "", default="R2", choices=("R2", "1+2/T")))
    except ScenarioFileError:
        raise
    except BoundcheckError as exc:
        raise ScenarioFileError(f"{f.source}: {exc}") from None
