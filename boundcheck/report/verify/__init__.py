"""The report of one ``boundcheck verify`` study: a view model of its stored results, rendered by templates.

:func:`view_model` (numbers and words, no markup) → :func:`render_html` / :func:`render_latex` /
:func:`render_tables`; :func:`boundcheck.report.write_reports` runs them in that order and writes the files.
"""

from __future__ import annotations

from .model import GLOSSARY, SECTIONS, view_model
from .render import TABLES, html_section, render_html, render_latex, render_tables

__all__ = ["view_model", "render_html", "render_latex", "render_tables", "html_section", "TABLES", "GLOSSARY",
           "SECTIONS"]
