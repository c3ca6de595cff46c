"""Who draws which report figure: the parent and the study's idle workers (forked children or loky's), split by cost.

After a parallel study the pool's workers are warm and idle while the parent writes the reports. :func:`start`
estimates what each figure the stored results support costs to draw (:func:`estimate_costs`), splits them
between the parent and as many idle workers as the machine has spare cores so that every process finishes at
about the same time (:func:`split`: the parent also renders the reports' text meanwhile, and pays matplotlib's
import if nothing imported it yet), and sends the workers their share at once. The parent then renders the text,
and :meth:`Drawing.finish` draws its own share and collects the rest. Every figure is drawn exactly once, into
the same file, whichever process draws it (a worker that fails hands its figures back to the parent).

This module imports neither matplotlib nor the figures: the parent imports them only when it draws (after
the text), and a worker when it receives its share.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from .. import runtime
from .figure_info import DPI, MAX_WIDTH_IN, FigureInfo, load_paper_figures

__all__ = ["FigureInfo", "DPI", "MAX_WIDTH_IN", "NAMES", "Drawing", "start", "make_figures", "estimate_costs",
           "split", "paused_gc"]

#: the report's figures in the order the reports show them (``boundcheck.report.figures.FIGURES`` draws
#: ``fig_<name>``; tests/report/test_drawing.py checks that the two agree)
NAMES = ("regret", "tightness", "claims", "gamma", "prior_selection", "eliminations", "r1_chain")

# Seconds to draw, lay out and write each figure on one core of the reference machine (the 2-core VM of
# benchmarks/bench_study.py, matplotlib 3.11), and the parent's other work while the workers draw; only their
# ratios matter. Measured as the fastest of five draws of each figure of a default ``verify --theorem pe_gp_ucb``
# (6 algorithms, T = 200, 4 of them choosing among 11 candidate priors) and of small studies of gp_ucb, r_gp_ucb,
# et_gp_ucb and comb_gp_ucb, after figures.warm_up(); refresh them when a figure changes much.
TEXT_COST = 0.08  # the HTML and LaTeX text (prepare_html, prepare_latex) and the tables
IMPORT_COST = 0.30  # importing matplotlib's figure and Agg canvas, when nothing imported them yet
WORKER_COST = 0.03  # sending a worker its share and the figures' context, and receiving the result


def estimate_costs(ctx) -> dict[str, float]:
    """{figure: estimated seconds} for every figure in :data:`NAMES`, 0 for one the stored results do not
    support (its function returns None at once). Cheap: reads what the context holds, draws nothing."""
    steps = ctx.steps
    algos = max(1, len(ctx.algorithms))
    horizon = int(ctx.summary.get("horizon") or 1)
    runs = ctx.runs
    main = runs[runs["algorithm"] == ctx.main_algorithm] if "algorithm" in runs else runs
    cost = dict.fromkeys(NAMES, 0.0)
    if steps is not None and steps.regret is not None:  # two panels: a band and a line per algorithm each
        cost["regret"] = 0.17 + 0.015 * algos + 1e-5 * algos * horizon
    if "tightness" in main and main["tightness"].notna().any():
        cost["tightness"] = 0.11
    claims = [c for c in ctx.claims if c.get("kind") == "probability" and c.get("level") is not None
              and c.get("ci_high") is not None]
    if claims:
        cost["claims"] = 0.07 + 0.004 * len(claims)
    gamma = ctx.gamma
    if gamma is not None and {"gamma_upper", "gamma_lower"} <= set(gamma):
        cost["gamma"] = 0.09
    if steps is not None and steps.prior_counts:  # a heatmap with a number per cell, and the truth over time
        n_prior = int(ctx.scenario_info.get("n_candidates") or max(c.size for c in steps.prior_counts.values()))
        rows = len(steps.prior_counts)
        cost["prior_selection"] = 0.09 + 0.0015 * rows * n_prior + (0.015 * rows if ctx.truth_index is not None
                                                                    else 0.0)
    if (steps is not None and steps.eliminations is not None) or "eliminated_at" in runs:
        empty = steps is not None and steps.eliminations is not None and steps.eliminations.empty
        cost["eliminations"] = 0.05 if empty else 0.10
    if {"Q1", "Q2", "Q3", "Q4", "Q5", "Q6"} <= set(main.columns):
        cost["r1_chain"] = 0.14
    return cost


def split(costs: dict[str, float], workers: int, head: float = 0.0, worker_head: float = WORKER_COST
          ) -> list[list[str]]:
    """Figures for the parent (lane 0) and each of ``workers`` workers, so that the lanes finish together: the
    costliest figure first, each to the lane that would finish it soonest (the parent starts ``head`` seconds
    late, a worker ``worker_head``). A worker gets nothing unless that shortens the longest lane; figures of
    cost 0 (not drawn) stay with the parent; each lane keeps the reports' order."""
    lanes: list[list[str]] = [[] for _ in range(workers + 1)]
    load = [head] + [worker_head] * workers
    for name in sorted((n for n in costs if costs[n] > 0), key=lambda n: -costs[n]):
        # the lane that would finish this figure first; ties go to the parent (no transfer)
        k = min(range(len(lanes)), key=lambda i: (load[i] + costs[name], i))
        lanes[k].append(name)
        load[k] += costs[name]
    lanes[0] += [n for n in costs if costs[n] <= 0]
    order = {n: i for i, n in enumerate(costs)}
    return [sorted(lane, key=order.__getitem__) for lane in lanes]


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector off for a block that allocates many small, short-lived objects (a
    report: formatted text, matplotlib artists), restored as it was afterwards. With many long-lived objects
    already in the process (sympy, pandas, the study), a full collection that falls within the report
    traverses them all; :func:`draw_here` frees each drawn figure's cycles with a collection of the young
    objects only, so the memory stays what it was with the collector on."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def draw_here(names: list[str], ctx, out: Path) -> dict[str, tuple[FigureInfo | None, list[str]]]:
    """Draw ``names`` in this process: {name: (its info or None, the notes it adds)}."""
    from . import figures  # matplotlib: imported by the process that draws, when it draws

    load_paper_figures(ctx.theorem_id)  # the figures the theorem's paper registers (paper 002's R1 chain)
    fns = {fn.__name__[4:]: fn for fn in figures.FIGURES}
    drawn = {}
    for name in names:
        drawn[name] = figures._draw(fns[name], ctx, out)
        if not gc.isenabled():  # paused (paused_gc): a drawn figure's artists are cycles, freed here at once
            gc.collect(0)
    return drawn


def _draw_remote(names: list[str], ctx, out: Path) -> dict[str, tuple[FigureInfo | None, list[str]]]:
    """A worker's share (run in a loky worker)."""
    with paused_gc():
        return draw_here(names, ctx, out)


def _spare_workers(executor) -> int:
    """How many of the pool's workers can draw while the parent works: one per core beyond the parent's (0 for
    an executor the runtime did not start: its size is unknown)."""
    return runtime.spare_workers(executor)


class Drawing:
    """The figures of one report, being drawn: the workers' share is sent at construction, :meth:`finish`
    draws the parent's and returns every figure's info."""

    def __init__(self, ctx, out: Path, lanes: list[list[str]], executor=None) -> None:
        self.ctx, self.out, self.lanes = ctx, Path(out), lanes
        self.futures: list[tuple[list[str], object]] = []
        self.parent = list(lanes[0])
        if executor is not None and any(lanes[1:]):
            # the stored facts the figures read, without the theorem's formulas (the figures do not use them)
            slim = replace(ctx, theorem=None, notes=[])
            for names in lanes[1:]:
                if not names:
                    continue
                try:
                    self.futures.append((names, executor.submit(_draw_remote, names, slim, self.out)))
                except Exception:  # noqa: BLE001 - a pool that refuses work: the parent draws them
                    self.parent += names

    def finish(self) -> list[FigureInfo]:
        """Draw the parent's share, wait for the workers', and return the drawn figures in the reports' order
        (the notes of a figure that failed go to ``ctx.notes``; stale files of earlier builds are removed)."""
        from .png import png_size

        drawn = draw_here(self.parent, self.ctx, self.out)
        for names, fut in self.futures:
            try:
                drawn.update(fut.result(timeout=300))
            except Exception:  # noqa: BLE001 - a worker lost or a pickling problem: draw them here
                drawn.update(draw_here([n for n in names if n not in drawn], self.ctx, self.out))
        figs = []
        for name in NAMES:  # in the figures' order, whichever process drew them
            f, notes = drawn[name]
            self.ctx.notes.extend(notes)
            if f is not None:
                f.width_in = png_size(f.png)[0] / DPI
                figs.append(f)
        made = {f.name for f in figs}
        for name in NAMES:  # a rebuild must not leave an earlier build's figure beside the new ones
            for ext in ("png", "pdf"):  # (PDF copies were written by earlier versions)
                if name not in made or ext == "pdf":
                    (self.out / f"{name}.{ext}").unlink(missing_ok=True)
        return figs


def start(ctx, out: Path, *, head: float = TEXT_COST, executor=None, workers: int | None = None) -> Drawing:
    """Plan the figures of ``ctx`` and send the workers' share to the idle workers of a running loky pool
    (``executor``: the runtime's pool, :func:`boundcheck.runtime.idle_pool`; none is started here). ``head``:
    the parent's work before it draws (the text); ``workers``: how many of the pool's workers draw (default: one
    per spare core)."""
    import sys

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    if executor is None:
        executor = runtime.idle_pool()
    from ..utils.switches import startup_off

    if startup_off("drawing"):
        executor = None
    n = 0 if executor is None else _spare_workers(executor) if workers is None else workers
    if "matplotlib.backends.backend_agg" not in sys.modules:
        head += IMPORT_COST
    costs = estimate_costs(ctx)
    # a forked worker has not imported matplotlib (the parent had not when it forked): it does so first
    return Drawing(ctx, out, split(costs, n, head, WORKER_COST + IMPORT_COST), executor if n else None)


def make_figures(ctx, out: Path) -> list[FigureInfo]:
    """Draw every figure that the stored results support into ``out`` (PNG), part of them in the idle workers of
    the study's pool when one is running (the same pixels either way)."""
    return start(ctx, out, head=0.0).finish()
