"""The report's speed-ups change nothing in what it writes.

* a report figure's PNG file holds the pixels matplotlib's ``print_png`` writes;
* the figures split between the parent and idle workers (boundcheck.report.drawing): every figure drawn exactly
  once, the same files and the same reports whether a worker drew part of them or not, a failing worker's
  figures drawn by the parent;
* the text is rendered before matplotlib is imported, the paper-literal comparison computed once, from the
  theorem's own module.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from concurrent.futures import Future
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from boundcheck.cli import main
from boundcheck.report import drawing, write_reports
from boundcheck.report.context import load
from boundcheck.report.png import png_size

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report_drawing")
    rc = main(["verify", "--theorem", "pe_gp_ucb", "--runs", "6", "--horizon", "30", "--jobs", "1",
               "--out", str(out), "--no-report"])
    assert rc in (0, 1)
    return out / "results"


@pytest.fixture(scope="module")
def worker_pool():
    from joblib.externals.loky import ProcessPoolExecutor

    executor = ProcessPoolExecutor(max_workers=1)
    yield executor
    executor.shutdown(wait=True, kill_workers=True)


def _pixels(data: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(data)) as im:
        return np.asarray(im.convert("RGBA"))


# --------------------------------------------------------------------------------------------- the PNG files
def test_report_figures_hold_matplotlibs_pixels(results, tmp_path):
    """A report figure through figures._save against the same figure printed by matplotlib."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from boundcheck.report import figures

    ctx = load(results)
    saved = {}
    real_save = figures._save

    def save(fig, out, name):
        png = real_save(fig, out, name)
        buf = io.BytesIO()
        FigureCanvasAgg(fig).print_png(buf, metadata={"Software": None})  # the layout is already fixed
        saved[name] = buf.getvalue()
        return png

    figures._save = save
    try:
        figs = drawing.start(ctx, tmp_path, workers=0).finish()  # all here, where _save is replaced
    finally:
        figures._save = real_save
    assert {f.name for f in figs} == set(saved) and len(saved) >= 5
    for f in figs:
        np.testing.assert_array_equal(_pixels(f.png.read_bytes()), _pixels(saved[f.name]))
        assert f.width_in == pytest.approx(png_size(f.png)[0] / drawing.DPI)


# ------------------------------------------------------------------------------------------- the split
def test_the_figure_names_match_the_figures():
    from boundcheck.report import figures

    assert tuple(fn.__name__[4:] for fn in figures.FIGURES) == drawing.NAMES


@pytest.mark.parametrize("workers", [0, 1, 2, 3])
def test_split_gives_every_figure_to_exactly_one_lane(workers):
    costs = {"a": 0.3, "b": 0.2, "c": 0.1, "d": 0.0, "e": 0.15, "f": 0.05}
    lanes = drawing.split(costs, workers, head=0.08)
    assert len(lanes) == workers + 1
    flat = [n for lane in lanes for n in lane]
    assert sorted(flat) == sorted(costs) and len(flat) == len(set(flat))
    assert "d" in lanes[0]  # a figure that is not drawn stays with the parent
    for lane in lanes:  # each lane in the reports' order
        assert lane == sorted(lane, key=list(costs).index)
    loads = [0.08 + sum(costs[n] for n in lanes[0])] + [drawing.WORKER_COST + sum(costs[n] for n in lane)
                                                         for lane in lanes[1:]]
    if workers:  # balanced: no lane longer than the others' average plus the largest figure
        assert max(loads) <= sum(loads) / len(loads) + max(costs.values()) + 1e-12
        assert max(loads) < 0.08 + sum(costs.values())


def test_split_balances_the_default_report(results):
    ctx = load(results)
    costs = drawing.estimate_costs(ctx)
    assert {n for n, c in costs.items() if c > 0} == {"regret", "tightness", "claims", "gamma", "prior_selection",
                                                       "eliminations"}
    parent, worker = drawing.split(costs, 1, head=drawing.TEXT_COST)
    assert parent and worker
    load_p = drawing.TEXT_COST + sum(costs[n] for n in parent)
    load_w = drawing.WORKER_COST + sum(costs[n] for n in worker)
    assert abs(load_p - load_w) <= max(costs.values())


class _Recorder:
    """An executor that records what it is sent (and runs it in ``inner``, or fails it)."""

    def __init__(self, inner=None):
        self.inner, self.sent = inner, []
        self._max_workers = 1

    def submit(self, fn, names, ctx, out):
        self.sent.append(list(names))
        if self.inner is not None:
            return self.inner.submit(fn, names, ctx, out)
        fut = Future()
        fut.set_exception(RuntimeError("worker lost"))
        return fut


def _parent_draws(monkeypatch) -> list[str]:
    drawn: list[str] = []
    real = drawing.draw_here

    def here(names, ctx, out):
        drawn.extend(names)
        return real(names, ctx, out)

    monkeypatch.setattr(drawing, "draw_here", here)
    return drawn


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_figures_drawn_in_a_worker_are_drawn_once_into_the_same_files(results, tmp_path, monkeypatch,
                                                                      worker_pool):
    alone = drawing.start(load(results), tmp_path / "alone", workers=0).finish()
    parent = _parent_draws(monkeypatch)
    rec = _Recorder(worker_pool)
    split = drawing.start(load(results), tmp_path / "split", executor=rec, workers=1).finish()
    assert rec.sent and all(rec.sent)  # the worker drew part of them
    sent = [n for names in rec.sent for n in names]
    assert sorted(parent + sent) == sorted(drawing.NAMES) and not set(parent) & set(sent)  # each exactly once
    assert [f.name for f in split] == [f.name for f in alone]
    assert [(f.title, f.caption, f.png.name, f.width_in) for f in split] == [
        (f.title, f.caption, f.png.name, f.width_in) for f in alone]
    assert _files(tmp_path / "split") == _files(tmp_path / "alone")  # the same bytes


def test_a_failing_worker_hands_its_figures_back_to_the_parent(results, tmp_path, monkeypatch):
    alone = drawing.start(load(results), tmp_path / "alone", workers=0).finish()
    parent = _parent_draws(monkeypatch)
    rec = _Recorder()  # every future fails
    figs = drawing.start(load(results), tmp_path / "lost", executor=rec, workers=1).finish()
    assert rec.sent and sorted(parent) == sorted(drawing.NAMES)
    assert [f.name for f in figs] == [f.name for f in alone]
    assert _files(tmp_path / "lost") == _files(tmp_path / "alone")


def test_reports_are_the_same_with_figures_drawn_in_a_worker(results, tmp_path, monkeypatch, worker_pool):
    from boundcheck.report.verify import render_html, render_latex, view_model

    monkeypatch.setattr("boundcheck.runtime.idle_pool", lambda: None)  # whatever pool another test left
    write_reports(results, tmp_path / "alone")
    monkeypatch.setattr("boundcheck.runtime.idle_pool", lambda: worker_pool)
    monkeypatch.setattr(drawing, "_spare_workers", lambda executor: 1)
    parent = _parent_draws(monkeypatch)
    write_reports(results, tmp_path / "split")
    assert set(parent) < set(drawing.NAMES)  # the worker drew some
    alone, split = _files(tmp_path / "alone"), _files(tmp_path / "split")
    assert alone.keys() == split.keys() and {"index.html", "report.tex", "tables/claims.tex"} <= alone.keys()
    assert alone == split
    # the text rendered ahead of the figures is the text rendered in one piece
    ctx = load(results)
    figs = drawing.start(ctx, tmp_path / "again" / "figures", workers=0).finish()
    assert render_html(view_model(ctx, figs)) == alone["index.html"].decode()
    assert render_latex(view_model(ctx, figs)) == alone["report.tex"].decode("ascii")


def test_text_is_rendered_before_matplotlib_is_imported_and_literal_once(results, tmp_path):
    """In a fresh process: the text needs neither matplotlib nor another paper's theory module, and the
    paper-literal comparison is computed once for both reports."""
    code = f"""
import sys
from pathlib import Path
import boundcheck.report.literal as literal
calls = []
real = literal.literal_comparison
literal.literal_comparison = lambda *a: calls.append(1) or real(*a)
from boundcheck.report.context import load
from boundcheck.report.drawing import start
from boundcheck.report.verify import render_html, render_latex, view_model
ctx = load(Path({str(results)!r}))
d = start(ctx, Path({str(tmp_path)!r}) / "figures")
view = view_model(ctx, [])
render_latex(view)
render_html(view)
assert not [m for m in sys.modules if m.startswith("matplotlib")], "matplotlib imported before the text"
import theory
from theory import plugins
slugs = set(plugins.papers()).difference(["pe_gp_ucb"])
others = [m for m in sys.modules if m.startswith("theory.") and m.split(".")[1] in slugs]
assert "theory.pe_gp_ucb" in sys.modules and not others, others
assert len(calls) == 1, calls
assert d.finish() and "matplotlib" in sys.modules
print("ok")
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]


def test_importing_the_reports_imports_no_matplotlib(tmp_path):
    code = """
import sys
import boundcheck.report
assert not [m for m in sys.modules if m.startswith("matplotlib")], "importing the reports imported matplotlib"
print("ok")
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]


def test_gc_is_paused_and_restored():
    import gc

    assert gc.isenabled()
    with drawing.paused_gc():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with drawing.paused_gc():
            pass
        assert not gc.isenabled()  # left as it was
    finally:
        gc.enable()
