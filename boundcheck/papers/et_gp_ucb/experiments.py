"""Paper 001 (Brunzema, von Rohr, Solowjow, Trimpe 2022, ET-GP-UCB), §5 and App. B: the within-model comparison
(Fig. 2 / Table 4), the sensitivity to δ_B (Table 2) and the distribution of the stopping times (Table 3 /
Fig. 4), as ``boundcheck reproduce et_gp_ucb``. Every panel runs the paper's practical β_t = 0.4 log(4t) for
every algorithm, so the regret theorems do not apply there (the studies are labelled out of theory; their
lemma-level claims are still computed). The settings the paper leaves unstated are boundcheck's [PROPOSED] choices.

Besides the claims (``theory.et_gp_ucb``'s ``EMPIRICAL``), the report shows Table 2's printed numbers beside ours
(``printed``) and the paper's own tables of ``figures.py``: Fig. 2's final regret and resets (``summary``),
Table 2's sensitivity of the regret to δ_B (``delta_sensitivity``) and Table 3's stopping-time statistics
(``stopping_times``)."""

from __future__ import annotations

import math

from boundcheck.papers.et_gp_ucb.catalogue import tv_grid
from boundcheck.study.experiments import Experiment, Panel, Printed, Setting
from theory.et_gp_ucb import TABLE2

ALGORITHMS = ("et_gp_ucb", "r_gp_ucb_tv", "tv_gp_ucb", "gp_ucb", "r_gp_ucb_after")

_COMMON = (
    Setting("domain", "[0,1]², SE kernel ℓ = 0.2 (unit variance), f_t the ε Markov chain of Assumption 2",
            "stated", "Table 4, §5"),
    Setting("noise", "σ_n² = 0.02", "stated", "Table 4 (the text says 0.05)"),
    Setting("β_t", "0.4 log(4t) for every algorithm", "stated", "Table 4 (the text says c₁ = 0.8)"),
    Setting("δ_B", "0.1", "stated", "§5"),
    Setting("discretisation", "30 × 30 grid with an exact argmax", "guessed",
            "the paper does not say how [0,1]² was discretised or how the acquisition was optimised"),
    Setting("random numbers", "every algorithm sees the same function path and noise in run r", "guessed",
            "not stated; common random numbers make the comparisons paired"),
    Setting("R-GP-UCB's reset", "D ← ∅ before x_{kN+1} is chosen (r_gp_ucb_tv); the other reading, the block's "
            "first point chosen from the old data and kept, runs beside it (r_gp_ucb_after)", "guessed",
            "ledger R_reset [PROPOSED]; docs/papers/et_gp_ucb.md"),
)

FIG2_SETTINGS = _COMMON + (
    Setting("horizon, runs", "T = 400, 50 runs", "stated", "Table 4"),
    Setting("baselines", "TV-GP-UCB told the true ε; R-GP-UCB with N = ⌈min{T, 12ε^{−1/4}}⌉ = 38, 29, 26; GP-UCB",
            "stated", "Table 4"),
    Setting("panel (d)", "TV-GP-UCB told ε = 0.001, R-GP-UCB N = 68; true ε = 0.05", "guessed",
            "the true ε of (d) is not stated [PROPOSED]"),
)

TABLE2_SETTINGS = _COMMON + (
    Setting("grid of settings", "ε ∈ {0.01, 0.03, 0.05} × δ_B ∈ {0.005, 0.01, 0.05, 0.1, 0.5}, T = 400, 50 runs",
            "stated", "App. B, Table 2"),
)

TABLE3_SETTINGS = _COMMON[:-1] + (
    Setting("horizon, runs", "T = 200, 30 000 runs, ε ∈ {0.03, 0.1}", "stated", "Table 3"),
    Setting("β_t of Table 3", "0.4 log(4t)", "guessed", "Table 3 states no β [PROPOSED]"),
    Setting("stopping time", "the first trigger τ (Def. 3), τ := T without one; each run stops at its first "
            "trigger (the inter-reset times are those of Fig. 2 and Table 2, whose runs go on)",
            "guessed", "the paper does not say whether Fig. 4 shows the first τ or all inter-reset times"),
)

#: Table 3 measures the first trigger time and nothing else: each run stops at its first reset, no regret (max f_t)
#: and no truth-side monitor is computed (boundcheck.study.needs); the runs up to τ are those of the full study
TABLE3_NEEDS = {"stop_at": "reset", "regret": False, "monitors": False, "stop_column": "tau_first"}

_EPS = (0.01, 0.03, 0.05)
_DELTA_B = (0.005, 0.01, 0.05, 0.1, 0.5)


def _fig2(k: str, eps: float, **kw):
    return lambda: tv_grid(f"fig2_{k}", eps=eps, beta_rule="practical", description="Paper 001, Fig. 2.", **kw)


def _t2(eps: float, dB: float):
    return lambda: tv_grid(f"table2_eps{eps:g}_dB{dB:g}", eps=eps, delta_B=dB, beta_rule="practical",
                           description="Paper 001, Table 2.")


def _t3(eps: float):
    return lambda: tv_grid(f"table3_eps{eps:g}", eps=eps, horizon=200, beta_rule="practical",
                           steps_detail="resets", description="Paper 001, Table 3 / Fig. 4.")


def table2_panel(eps: float, dB: float) -> str:
    return f"eps{eps:g}_dB{dB:g}"


#: the finer grid of ``table2_fine``: 59 = 2·29 + 1 points per axis, so it contains the 30 × 30 grid
FINE_POINTS = 59
#: the rows of Table 2 ``table2_fine`` re-runs (δ_B = 0.1 is §5's own δ_B; every ε)
FINE_ROWS = tuple((e, 0.1) for e in (0.01, 0.03, 0.05))


def _t2_fine(eps: float, dB: float):
    return lambda: tv_grid(f"table2_fine_eps{eps:g}_dB{dB:g}", eps=eps, delta_B=dB, beta_rule="practical",
                           points_per_axis=FINE_POINTS,
                           description="Paper 001, Table 2, the acquisition maximised over a 59 × 59 grid.")


def _t2_continuous(eps: float, dB: float):
    from boundcheck.world.box_scenario import box_scenario

    return lambda: box_scenario(
        f"table2_continuous_eps{eps:g}_dB{dB:g}", dim=2, lengthscale=0.2, noise=math.sqrt(0.02), horizon=400,
        delta=0.1, eps=eps, description="Paper 001, Table 2, on the continuum [0,1]² (as the paper ran it).",
        in_theory=False, out_of_theory_reason=(
            "Table 2 runs the paper's practical β_t = 0.4 log(4t) on a drifting f (ε > 0): the panel reproduces the "
            "paper's numbers; the compact theorem whose claims are computed on the way (Srinivas et al. Thm 2) "
            "does not apply"))


#: what ``table2_fine`` found (docs/papers/et_gp_ucb.md, "Table 2's systematic gap")
TABLE2_GAP_NOTE = (
    "Reading (i), regret against the continuous maximum over [0,1]² with the choices on the 30 × 30 grid, needs no "
    "run: R^cont − R^grid = Σ_t (max_{[0,1]²} f_t − max_grid f_t), the choices cancel, and each f_t is marginally "
    "GP(0, SE ℓ = 0.2). Exact joint draws on a 233 × 233 grid containing the 30 × 30 one (boundcheck/papers/"
    "et_gp_ucb/gap.py, 1000 paths) give E[max − max_grid] = 0.0056 ± 0.0002 per step (0.0054 at 117², 0.0044 at "
    "59²), i.e. +2.2 on R_400 against gaps of 15–27: reading (i) does not explain the gap. Reading (ii), the "
    "acquisition maximised by a finer optimiser (here over the 59 × 59 grid, regret against its maximum; the "
    "continuous maximum adds 400 × 0.0012 ≈ 0.5) is this experiment. With the paper's 50 runs (seed 0, 2026-11-26) "
    "R_400 = 185.7 ± 6.6 / 263.8 ± 6.0 / 324.2 ± 5.6 (± SE) at ε = 0.01 / 0.03 / 0.05, δ_B = 0.1, against 172.8 ± "
    "6.6 / 256.9 ± 6.7 / 315.6 ± 6.2 on the 30 × 30 grid and the paper's 200.33 / 271.59 / 332.04: the finer "
    "optimiser raises R_400 by 12.9 / 6.9 / 8.6 (unpaired, SE ≈ 9 each; pooled 9.5 ± 5.1) and shrinks the gap "
    "from −14 / −5 / −5 % to −7 / −3 / −2 %, every row now within 2 SE of the paper (z = −1.6 / −0.9 / −1.0); "
    "the resets stay as close as before (3.52 / 8.28 / 12.12 against 3.38 / 8.04 / 11.88). Of the two readings, "
    "(ii) explains most of the gap and (i) almost none; what is left (≈ 8–15) is within the sampling error of "
    "50-run means. On the continuum itself (table2_continuous, the acquisition maximised on [0,1]², seed 0, "
    "2026-11-29) R_400 = 188.0 ± 7.8 / 267.4 ± 5.8 / 338.5 ± 5.1 and resets 3.52 / 8.44 / 11.58: every row within "
    "2 SE of the paper's, differences of both signs — the optimiser was the explanation.")


EXPERIMENTS = (
    Experiment(
        paper="et_gp_ucb", name="fig2", title="Within-model comparison", location="§5, Fig. 2, Table 4",
        description=("ET-GP-UCB against TV-GP-UCB (told ε), R-GP-UCB (reset every N) and GP-UCB on GP sample "
                     "paths of the ε chain; (d): TV-GP-UCB and R-GP-UCB given a wrong rate of change."),
        panels=(Panel("a", "(a) ε = 0.01", "et_gp_ucb", _fig2("a", 0.01), ALGORITHMS),
                Panel("b", "(b) ε = 0.03", "et_gp_ucb", _fig2("b", 0.03), ALGORITHMS),
                Panel("c", "(c) ε = 0.05", "et_gp_ucb", _fig2("c", 0.05), ALGORITHMS),
                Panel("d", "(d) ε = 0.05, TV told 0.001, R N = 68", "et_gp_ucb",
                      _fig2("d", 0.05, tv_eps=0.001, reset_N=68), ALGORITHMS)),
        settings=FIG2_SETTINGS, default_runs=50, band="sd", tables=("summary",)),
    Experiment(
        paper="et_gp_ucb", name="table2", title="Sensitivity to δ_B", location="App. B, Table 2",
        description="ET-GP-UCB's average number of resets and R_400 for every (ε, δ_B); all share their f paths.",
        panels=tuple(Panel(table2_panel(e, d), f"ε = {e:g}, δ_B = {d:g}", "et_gp_ucb", _t2(e, d), ("et_gp_ucb",))
                     for e in _EPS for d in _DELTA_B),
        settings=TABLE2_SETTINGS, default_runs=50, band="sd", tables=("delta_sensitivity",),
        printed=tuple(x for (e, d), (res, reg) in TABLE2.items() for x in (
            Printed(table2_panel(e, d), "et_gp_ucb", "col:n_resets", res, f"resets, ε = {e:g}, δ_B = {d:g}"),
            Printed(table2_panel(e, d), "et_gp_ucb", "regret", reg, f"R_400, ε = {e:g}, δ_B = {d:g}")))),
    Experiment(
        paper="et_gp_ucb", name="table2_fine", title="Table 2 with a finer optimiser of the acquisition",
        location="App. B, Table 2 (boundcheck's test of the regret gap)",
        description=("ET-GP-UCB on a 59 × 59 grid of [0,1]² (containing the 30 × 30 one) at δ_B = 0.1 for every ε: "
                     "the acquisition maximised over 3 481 points, the regret against their maximum — the reading "
                     "'the paper's optimiser chooses off boundcheck's grid' of Table 2's gap in R_400. "
                     + TABLE2_GAP_NOTE),
        panels=tuple(Panel(table2_panel(e, d), f"ε = {e:g}, δ_B = {d:g}, 59 × 59", "et_gp_ucb", _t2_fine(e, d),
                           ("et_gp_ucb",)) for e, d in FINE_ROWS),
        settings=TABLE2_SETTINGS[:4] + (
            Setting("discretisation", "59 × 59 grid with an exact argmax (a finer optimiser of the acquisition)",
                    "deviates", "boundcheck's test of Table 2's gap; table2 runs the 30 × 30 grid"),)
        + TABLE2_SETTINGS[5:],
        default_runs=50, band="sd",
        printed=tuple(x for (e, d), (res, reg) in TABLE2.items() if (e, d) in FINE_ROWS for x in (
            Printed(table2_panel(e, d), "et_gp_ucb", "col:n_resets", res, f"resets, ε = {e:g}, δ_B = {d:g}"),
            Printed(table2_panel(e, d), "et_gp_ucb", "regret", reg, f"R_400, ε = {e:g}, δ_B = {d:g}")))),
    Experiment(
        paper="et_gp_ucb", name="table2_continuous", title="Table 2 on the continuum [0,1]²",
        location="App. B, Table 2 (the paper's own setting: the acquisition maximised on [0,1]²)",
        description=("ET-GP-UCB at δ_B = 0.1 for every ε with x_t maximised over [0,1]² itself (multi-start "
                     "quasi-Newton from Sobol, face and data candidates) and f_t exact sample paths of the ε chain "
                     "anywhere in the box (quadrature Fourier features, kernel error ≤ 1e−12), the regret against "
                     "each f_t's maximum located to a certified 1e−3. The grid forms (table2, table2_fine) are its "
                     "labelled variants. " + TABLE2_GAP_NOTE),
        panels=tuple(Panel(table2_panel(e, d), f"ε = {e:g}, δ_B = {d:g}, [0,1]²", "gp_ucb_compact",
                           _t2_continuous(e, d), ("et_gp_ucb_box",)) for e, d in FINE_ROWS),
        settings=TABLE2_SETTINGS[:4] + (
            Setting("discretisation", "none: the acquisition maximised on [0,1]² (multi-start quasi-Newton from 128 "
                    "Sobol points, the faces, the corners and the recent data; 6 starts)", "guessed",
                    "the paper does not say how the acquisition was optimised; the continuum is its stated domain"),
            Setting("f_t", "exact GP(0, k̂) paths of the ε chain, k̂ = SE ℓ = 0.2 to ≤ 1e−12 (quadrature Fourier "
                    "features); regret against max f_t located to a certified 1e−3 (≤ 0.4 on R_400)", "guessed",
                    "the paper does not say how its synthetic functions were sampled"),)
        + TABLE2_SETTINGS[5:],
        default_runs=50, band="sd",
        printed=tuple(x for (e, d), (res, reg) in TABLE2.items() if (e, d) in FINE_ROWS for x in (
            Printed(table2_panel(e, d), "et_gp_ucb_box", "col:n_resets", res, f"resets, ε = {e:g}, δ_B = {d:g}"),
            Printed(table2_panel(e, d), "et_gp_ucb_box", "regret", reg, f"R_400, ε = {e:g}, δ_B = {d:g}")))),
    Experiment(
        paper="et_gp_ucb", name="table3", title="Distribution of the stopping times", location="§6, Table 3, Fig. 4",
        description=("The first trigger time of ET-GP-UCB over many runs, against R-GP-UCB's periods "
                     "⌈12ε^{−1/4}⌉ = 29 (ε = 0.03) and 22 (ε = 0.1); each run stops at its first trigger, whose "
                     "step is the only one stored."),
        panels=(Panel("eps0.03", "ε = 0.03", "et_gp_ucb", _t3(0.03), ("et_gp_ucb",)),
                Panel("eps0.1", "ε = 0.1", "et_gp_ucb", _t3(0.1), ("et_gp_ucb",))),
        settings=TABLE3_SETTINGS, default_runs=30_000, band="sd", needs=TABLE3_NEEDS,
        # only the reset steps are stored: no regret curves; the stopping-time histograms and their statistics
        figures=("stopping_times",), tables=("stopping_times",)),
)
