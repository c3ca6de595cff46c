"""Paper 002 (Sandberg, Åkerblom, Chehreghani 2025), §4: online energy-efficient navigation with combinatorial
GP bandits, on a synthetic road network standing in for the LuST/MoST networks (instance S3 [PROPOSED]): the
algorithm comparison (Fig. 2), the GP-BUCB parametrisation (Fig. 3) and the lengthscale sweep (Figs. 4–5).

Every panel is one route (and, in the sweep, one model lengthscale), run as a study of Theorem 3.1's family:
the theorem's own GP-UCB with an exact oracle is checked on the way (in theory, with the prior-scale bound),
and the paper's methods run beside it with Algorithm 2 (rectified indices, Dijkstra), outside the theorems.
This module is what ``boundcheck reproduce combinatorial`` runs. Besides the per-route claims
(``theory.combinatorial``'s ``EMPIRICAL``), the report adds the paper's own figures and tables of ``figures.py``:
the chosen paths, Fig. 3's β_t schedules, Figs. 4–5's regret against the lengthscale, and every claim pooled over
the (route, run) pairs of all routes, on every run and on the paper-sized 5 runs apart (``pooled_tests``)."""

from __future__ import annotations

from boundcheck.papers.combinatorial.roads import road_scenario
from boundcheck.study.experiments import Experiment, Panel, Setting
from theory.combinatorial import (
    BB,
    BT,
    BU,
    GB,
    GB_HALF,
    GT,
    GU,
    GU_HALF,
    LENGTHSCALES,
    ROUTES,
)

_COMMON = (
    Setting("network", "synthetic: 120 intersections in 3 × 3 km, 4-nearest-neighbour roads both ways, elevation "
            "field (SE ℓ = 800 m, sd 25 m), speed limits 30–90 km/h", "deviates",
            "the LuST/MoST networks and the DEM cannot be used offline (§4, App. B)"),
    Setting("routes", "4 far-apart start/goal pairs; base arms = the goal-directed corridor (a DAG)", "guessed",
            "the paper's routes are on the real networks; the corridor makes the true optimum exact when energies "
            "are negative [PROPOSED]"),
    Setting("energy", "eq. (8) with Table 2 (m = 1830 kg, C_r = 0.01, A = 2.6 m², C_d = 0.35, η⁺ = 0.98, "
            "η⁻ = 0.96, g = 9.82, ρ = 1.2); E/η⁺ when positive, E·η⁻ when negative", "guessed",
            "eq. (8) has one η, Table 2 two [PROPOSED]"),
    Setting("prior", "f ~ GP(−E_det, σ₀²(½k̃_G k_f + ½k'_f)), graph Matérn ν_G = 2, κ_G = 1 on the line graph, "
            "Matérn-5/2 features (length, speed, incline), σ₀ = 0.25σ_det, noise 0.1σ_det, lengthscales 1",
            "stated", "§4, B.1; the even split of σ₀² is [PROPOSED]"),
    Setting("model", "exact GP posterior (no SVGP), fixed hyperparameters, f redrawn every run", "deviates",
            "the paper uses SVGP (1000 inducing points); an exact GP is affordable here"),
    Setting("β_t", "Theorem 3.1's β_t; GP-BUCB with ω = 1, ξ = 1 (η_t = √(2π)/(2|𝒜|t)); |𝒜| = the route's edges",
            "stated", "§4"),
    Setting("Algorithm 2", "rectified mean E[max(0, N(ẽ, σ²))] with the posterior sd (the text), Dijkstra", "stated",
            "the pseudocode's ς² is the alternative (Algorithm 2)"),
    Setting("horizon", "T = 500", "stated", "§4"),
    Setting("runs", "55 paired runs per route (the paper: 5)", "deviates", "50 more runs for the paired tests"),
)

_STAND_IN = ("a synthetic road network with the paper's energy model and kernel "
             "(boundcheck/papers/combinatorial/catalogue.py)")
#: what §4 and App. B report about the Luxembourg and Monaco networks (the stand-in's table puts it beside its own)
_STAND_IN_PAPER = (
    ("size", "the road networks of Luxembourg (LuST) and Monaco (MoST), restricted to the largest strongly "
             "connected component; sizes not reported"),
    ("data", "edge contexts (length, speed limit, incline; each standardised to unit variance); prior mean = "
             "−E_det of eq. (8) with SUMO's default electric-vehicle parameters (App. B.3, Table 2)"),
    ("spectrum", "not reported (graph Matérn kernel × Matérn-5/2 feature kernel)"),
    ("decay", "not reported"),
    ("noise", "not reported"),
    ("availability", "every path from the route's start edge to its end edge (2 routes per network)"),
    ("horizon", "T = 500, 5 runs per route"))
_STAND_IN_DATA = "a synthetic planar road network with eq. (8)'s energy model and the paper's kernel"
_PAPER_ALGOS = (GU, GB, GT, BU, BB, BT)


def _route_panels(algorithms: tuple[str, ...]) -> tuple[Panel, ...]:
    return tuple(Panel(f"route{r}", f"route {r}", "comb_gp_ucb", (lambda r=r: road_scenario(r)),
                       ("comb_gp_ucb", *algorithms)) for r in ROUTES)


EXPERIMENTS = (
    Experiment(
        paper="combinatorial", name="algorithms", title="Algorithm comparison", location="§4, Fig. 2",
        description="GP-UCB, GP-BUCB and GP-TS against the independent-Bayesian BI-UCB, BI-BUCB and BI-TS on four "
                    "routes (Algorithm 2).",
        panels=_route_panels(_PAPER_ALGOS), settings=_COMMON, default_runs=55, band="se", figures=("regret", "paths"),
        tables=("pooled_tests",),
        stand_in=_STAND_IN, stand_in_paper=_STAND_IN_PAPER, stand_in_data=_STAND_IN_DATA),
    Experiment(
        paper="combinatorial", name="bucb", title="GP-BUCB parametrisation", location="§4, Fig. 3",
        description="GP-BUCB with (ω, ξ) = (1, 1) and (1, 0.5) against GP-UCB and GP-UCB with β_t scaled by 0.5.",
        panels=_route_panels((GB, GB_HALF, GU, GU_HALF)), settings=_COMMON, default_runs=55, band="se",
        figures=("regret", "beta"), tables=("pooled_tests",),
        stand_in=_STAND_IN, stand_in_paper=_STAND_IN_PAPER, stand_in_data=_STAND_IN_DATA),
    Experiment(
        paper="combinatorial", name="lengthscale", title="Kernel lengthscale", location="§4, Figs. 4–5",
        description="GP-BUCB and GP-TS against BI-BUCB and BI-TS as the model's feature lengthscale varies.",
        panels=tuple(Panel(f"route{r}_l{ell:g}", f"route {r}, model lengthscale {ell:g}", "comb_gp_ucb",
                           (lambda r=r, ell=ell: road_scenario(r, 1.0, model_lengthscale=ell)),
                           ("comb_gp_ucb", GB, GT, BB, BT)) for r in ROUTES for ell in LENGTHSCALES),
        settings=_COMMON + (Setting("lengthscales", "model feature lengthscale 0.1, 0.5, 1, 2; environment at 1",
                                    "guessed", "'between 0.1 and 2.0', grid and what varies not stated"),),
        default_runs=55, band="se", figures=("regret", "lengthscale"), tables=("pooled_tests",),
        stand_in=_STAND_IN, stand_in_paper=_STAND_IN_PAPER, stand_in_data=_STAND_IN_DATA),
)
