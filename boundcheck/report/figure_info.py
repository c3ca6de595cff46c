"""What the figures' drawer (:mod:`boundcheck.report.drawing`) and the figures themselves
(:mod:`boundcheck.report.figures`) share, without matplotlib: a drawn figure's record, the resolution and the
widest width, and the figures that other modules register.

A figure that belongs to one paper is drawn by that paper's module (its ``figures`` part) and registered here when
the module is imported (:func:`register_figure`); :func:`load_paper_figures` imports the part of the theorem's
paper through the paper's manifest, so that the core never imports a paper's module by name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["FigureInfo", "DPI", "MAX_WIDTH_IN", "register_figure", "registered_figure", "load_paper_figures"]

DPI = 150
MAX_WIDTH_IN = 10.0  # the widest figure; LaTeX scales every figure by the same factor (equal lettering)


@dataclass
class FigureInfo:
    name: str
    title: str
    caption: str
    png: Path
    width_in: float = 0.0  # the figure's width in inches (the HTML shows it at its physical size)


_REGISTERED: dict[str, Callable] = {}


def register_figure(name: str, draw: Callable) -> None:
    """Have ``draw(ctx, out) -> FigureInfo | None`` draw the report figure ``name`` (one of
    :data:`boundcheck.report.drawing.NAMES`) in every process that imports the registering module."""
    _REGISTERED[name] = draw


def registered_figure(name: str) -> Callable | None:
    """The function registered for figure ``name``, or None when no imported module registered one."""
    return _REGISTERED.get(name)


def load_paper_figures(theorem_id: str) -> None:
    """Import the ``figures`` part of the paper that declares ``theorem_id`` (it registers its figures), if it
    has one: once per process, in whichever process draws."""
    from theory import plugins

    paper = plugins.paper_of_theorem(theorem_id)
    if paper is not None:
        paper.part("figures")
