"""The reports as notebook output: HTML fragments that the result objects of :mod:`boundcheck.results` show
(``_repr_html_``).

Each fragment is made of the reports' own rendering (the template sections of
:mod:`boundcheck.report.verify` for a verify: the headline, the verdict cards, the claims table and the regret
figure; :mod:`boundcheck.report.sweep` for a sweep; :mod:`boundcheck.report.reproduce` for a
reproduce), never of new markup for the same things. A notebook shows a fragment inside its own page, so the
reports' style sheet is scoped under one class (:func:`scoped_css`): a page-wide rule (``body``, ``table``,
``h2``) would restyle the whole notebook.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

__all__ = ["SCOPE", "scoped_css", "verify_fragment", "sweep_fragment", "reproduce_fragment", "power_fragment",
           "power_view"]

#: the class of the element every fragment is wrapped in; every rule of its style sheet starts with it
SCOPE = "boundcheck-result"

# the report's banner bleeds into the page's padding (negative margins); a notebook cell has none to bleed into,
# and is narrower than the report's page: a wide table scrolls inside the fragment ("body" is the fragment itself)
_NOTEBOOK_CSS = """
body { overflow-x: auto; }
.banner { margin: 0 0 8px; border-radius: 6px; }
figure img { max-width: 100%; }
"""


def _prefix(selector: str, scope: str) -> str:
    """One selector moved under ``.scope``: the page-level ones (``:root``, ``html``, ``body``) become the scope
    itself, so that the variables and the font they set reach every element of the fragment."""
    s = selector.strip()
    if s in (":root", "html", "body"):
        return f".{scope}"
    if s == "*":
        return f".{scope}, .{scope} *"
    for page in ("body ", "html "):
        if s.startswith(page):
            return f".{scope} {s[len(page):]}"
    return f".{scope} {s}"


def scoped_css(css: str, scope: str = SCOPE) -> str:
    """``css`` with every rule's selectors prefixed by ``.scope`` (at-rules such as ``@media`` keep their
    condition and have their inner rules scoped). Comments are dropped. Covers the plain style sheets of the
    reports (rules and nested at-rules, no strings holding braces)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    out, i, head = [], 0, re.compile(r"\s*([^{}]+)\{")
    while True:
        m = head.match(css, i)
        if m is None:
            break
        sel = m.group(1).strip()
        if sel.startswith("@"):  # an at-rule's block holds whole rules: find its closing brace
            depth, j = 1, m.end()
            while depth and j < len(css):
                depth += {"{": 1, "}": -1}.get(css[j], 0)
                j += 1
            out.append(f"{sel} {{ {scoped_css(css[m.end():j - 1], scope)} }}")
            i = j
        else:
            j = css.index("}", m.end())
            out.append(", ".join(_prefix(s, scope) for s in sel.split(",")) + " {" + css[m.end():j] + "}")
            i = j + 1
    return "\n".join(out)


def _fragments():
    from .templating import html_env

    return html_env().get_template("notebook/fragments.html.j2").module


def _wrap(css: str, body) -> str:
    from markupsafe import Markup

    return str(_fragments().wrap(SCOPE, Markup(scoped_css(css + _NOTEBOOK_CSS)), Markup(body)))


def verify_fragment(results_dir: str | Path, link: str | None = None) -> str:
    """A verify's headline, verdict cards and claims table (the HTML report's own sections) and its regret
    figure (drawn from the stored tables), as one fragment; ``link``: the full report, when one was written."""
    from .context import load
    from .figures import _draw, fig_regret
    from .html import CSS
    from .verify import model
    from .wording import headline

    ctx = load(Path(results_dir))
    with tempfile.TemporaryDirectory(prefix="boundcheck-figure-") as tmp:
        fig, _ = _draw(fig_regret, ctx, Path(tmp))  # read into the page (base64) before the folder goes
        view = {"status": "out" if not ctx.in_theory else ctx.verdict, "headline": headline(ctx),
                "glance": model.glance(ctx), "verdict_section": model.verdict_section(ctx),
                "figures": model.figures([fig]) if fig is not None else [], "link": link}
        return _wrap(CSS, _fragments().verify(view))


def sweep_fragment(table, meta: dict) -> str:
    """A sweep's page (:func:`boundcheck.report.sweep.sweep_body`: its figure and its cells' table)."""
    from .sweep import page_css, sweep_body

    return _wrap(page_css(), sweep_body(table, meta))


def reproduce_fragment(summary: dict) -> str:
    """A reproduce's headline and its claims table (the replication report's own table)."""
    from markupsafe import Markup

    from .html import CSS
    from .reproduce.model import claim_view, headline
    from .reproduce.render import claims_html, extra_css

    claims = Markup(claims_html([claim_view(c) for c in summary["claims"]]))
    return _wrap(CSS + extra_css(), _fragments().reproduce(headline(summary), claims))


def power_view(summary: dict) -> dict:
    """A power summary as numbers and words: for each planted defect, the probability that each claim catches
    it at N runs (the baseline row is the correct algorithm: its probabilities are false alarms), and each
    claim's smallest detectable effect."""
    from .wording import describe_detectable, fmt

    claims = summary.get("claims") or {}
    return {"theorem": str(summary.get("theorem")), "scenario": str(summary.get("scenario")),
            "runs": str(summary.get("runs")), "method": str(summary.get("method", "")), "claims": list(claims),
            "defects": [{"name": name, "description": str(d.get("description")),
                         "probability": [fmt((d.get("probability") or {}).get(c), 2) for c in claims]}
                        for name, d in (summary.get("defects") or {}).items()],
            "detectable": [{"claim": c, "effect": describe_detectable(info.get("detectable")),
                            "catches": ", ".join(info.get("catches") or []) or "nothing"}
                           for c, info in claims.items()]}


def power_fragment(summary: dict) -> str:
    """A power table (:func:`power_view`) as one fragment."""
    from .html import CSS

    return _wrap(CSS, _fragments().power(power_view(summary)))
