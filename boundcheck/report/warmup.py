"""Importing this module warms up the report's figures (:func:`boundcheck.report.figures.warm_up`): matplotlib
imported, its fonts, mathtext parser and Agg canvas used once. The study's parent imports it in the background
while its workers simulate, and the idle workers before they draw their share of the figures
(``boundcheck.study.runner``), so that a report's first figure costs what the others do."""

from __future__ import annotations

from .figures import warm_up

warm_up()
