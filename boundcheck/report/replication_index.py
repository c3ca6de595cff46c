"""The index page of ``boundcheck reproduce --all``: every paper's verdict counts, every claim's verdict with its
effect, each paper's report linked, and the total time (one self-contained HTML file, no figures)."""

from __future__ import annotations

import os
from pathlib import Path

from .context import write_text
from .html import CSS, e, rich, table
from .replication import VERDICT_ORDER, resolution_text

__all__ = ["render_index", "write_reproduce_index"]

_CSS = """
.badge.reproduced { background: var(--ok); } .badge.not-reproduced { background: var(--bad); }
.badge.not-run { background: #8c8c8c; } .banner.replication { background: #1f3b57; }
.banner.quick { background: var(--warn); }
"""


def _badge(verdict: str) -> str:
    return f'<span class="badge {e(verdict.replace(" ", "-"))}">{e(verdict)}</span>'


def _link(out_dir: Path, target: str | None, text: str) -> str:
    if not target:
        return e(text)
    try:
        rel = os.path.relpath(target, out_dir)
    except ValueError:  # another drive (Windows): the absolute path
        rel = str(target)
    return f'<a href="{e(Path(rel).as_posix())}">{e(text)}</a>'


def render_index(summary: dict, out_dir: Path) -> str:
    """The index page of a ``reproduce --all`` summary (:func:`boundcheck.api.reproduce_all`)."""
    n = summary["counts"]
    head = ("reproduce --all: " + ", ".join(f"{n.get(v, 0)} {v}" for v in VERDICT_ORDER)
            + f" over {len(summary['papers'])} papers; total time {summary['elapsed_s']:.0f} s")
    quick = summary.get("quick_text") or ""
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">', f"<title>{e(head)}</title>",
             f"<style>{CSS}{_CSS}</style></head><body><main>"]
    if quick:
        parts.append(f'<div class="banner quick">{e(quick)}</div>')
    parts.append(f'<div class="banner replication" id="headline">{e(head)}</div>')
    parts.append("<h1>boundcheck reproduce --all</h1>")
    rows = [[_link(out_dir, (p.get("report") or {}).get("html"), p["id"]), e(p["title"]), e(p["source"])]
            + [str(p["counts"].get(v, 0)) for v in VERDICT_ORDER] + [f"{p['elapsed_s']:.0f} s"]
            for p in summary["papers"]]
    parts.append("<h2>Papers</h2>" + table(["paper (report)", "title", "source", *VERDICT_ORDER, "time"], rows,
                                           num={3, 4, 5, 6, 7}))
    for p in summary["papers"]:
        crow = []
        for c in p["claims"]:
            extra = resolution_text(c)
            crow.append([f"<span class='id'>{e(c['id'])}</span>", e(c["experiment"]), rich(c.get("reading", "")),
                         rich(c.get("effect", "")) + (f"<br><span class='small mute'>{e(extra)}</span>"
                                                      if extra else ""), _badge(c["verdict"])])
        parts.append(f"<h2 id='{e(p['id'])}'>{e(p['id'])}: every claim</h2>"
                     + table(["claim", "experiment", "tested as", "effect", "verdict"], crow))
    parts.append(f"<p class='small mute'>seed {e(summary.get('seed'))}; runs: "
                 f"{e(summary.get('runs') or 'each experiment of each paper its own (the paper’s settings)')}; "
                 f"total wall time {summary['elapsed_s']:.1f} s.</p>")
    parts.append("</main></body></html>")
    return "\n".join(parts)


def write_reproduce_index(summary: dict, out_dir: Path) -> Path:
    """``out_dir/index.html``: the index page of ``reproduce --all``."""
    return write_text(Path(out_dir) / "index.html", render_index(summary, Path(out_dir)))
