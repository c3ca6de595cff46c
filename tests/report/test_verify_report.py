"""Reports: HTML and LaTeX built from a small real results directory, never by rerunning.

Two studies are run once per session (6 runs, T = 30): an in-theory one and an out-of-theory negative
control (β × 0.1). The headless-Chromium and pdflatex tests skip, with the reason, when the tool is
missing (CI installs chromium, texlive-latex-* and poppler-utils).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from boundcheck.cli import main
from boundcheck.report import write_reports

FIGURES = ("regret", "tightness", "claims", "gamma", "prior_selection", "eliminations")
TABLES = ("claims", "bound_terms", "regret")


def _verify(out: Path, *extra: str) -> None:
    rc = main(["verify", "--theorem", "pe_gp_ucb", "--runs", "6", "--horizon", "30", "--jobs", "1",
               "--out", str(out), "--no-report", *extra])
    assert rc in (0, 1), f"verify failed with exit code {rc}"
    assert (out / "results" / "summary.json").exists()


@pytest.fixture(scope="session")
def study(tmp_path_factory) -> tuple[Path, dict[str, Path]]:
    out = tmp_path_factory.mktemp("report_in_theory")
    _verify(out)
    return out, write_reports(out / "results", out)


@pytest.fixture(scope="session")
def control(tmp_path_factory) -> tuple[Path, dict[str, Path]]:
    out = tmp_path_factory.mktemp("report_out_of_theory")
    _verify(out, "--beta-scale", "0.1")
    return out, write_reports(out / "results", out)


class _VisibleText(HTMLParser):
    """Text a reader sees in <body>, in order (no <style>/<script>/<title>)."""

    def __init__(self) -> None:
        super().__init__()
        self.skip = 0
        self.in_body = False
        self.chunks: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "body":
            self.in_body = True
        if tag in ("style", "script", "title", "head"):
            self.skip += 1

    def handle_endtag(self, tag):
        if tag in ("style", "script", "title", "head"):
            self.skip -= 1

    def handle_data(self, data):
        if self.in_body and not self.skip and data.strip():
            self.chunks.append(data.strip())


def _first_visible_line(html: str) -> str:
    p = _VisibleText()
    p.feed(html)
    return p.chunks[0] if p.chunks else ""


def _title(html: str) -> str:
    m = re.search(r"<title>(.*?)</title>", html, re.S)
    return m.group(1) if m else ""


def _first_body_line(tex: str) -> str:
    body = tex.split(r"\begin{document}", 1)[1]
    return next(line for line in body.splitlines() if line.strip())


# ----------------------------------------------------------------------------------------- basic output
def test_write_reports_produces_both_files(study):
    out, paths = study
    assert paths == {"html": out / "index.html", "tex": out / "report.tex"}
    assert paths["html"].stat().st_size > 10_000 and paths["tex"].stat().st_size > 2_000
    for name in FIGURES:
        assert (out / "figures" / f"{name}.png").stat().st_size > 1_000, name
        assert not (out / "figures" / f"{name}.pdf").exists(), name  # rendered once, as PNG, for both reports
    for name in TABLES:
        assert (out / "tables" / f"{name}.tex").exists(), name


def test_html_is_self_contained_with_mathml_and_embedded_figures(study):
    out, paths = study
    html = paths["html"].read_text(encoding="utf-8")
    assert "<math" in html
    imgs = re.findall(r"<img\b[^>]*\bsrc=\"([^\"]*)\"", html)
    pngs = sorted((out / "figures").glob("*.png"))
    assert len(imgs) == len(pngs) == len(FIGURES)
    assert all(src.startswith("data:image/png;base64,") for src in imgs)
    # nothing is fetched: no external src/href, no stylesheet or script links, no CSS imports
    assert not re.search(r"""\b(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", html, re.I)
    assert not re.search(r"<(?:link|script)\b[^>]*\b(?:src|href)\s*=", html, re.I)
    assert "@import" not in html and "url(" not in html


def test_html_formulas_are_sympys_mathml_of_the_checked_expressions(study):
    from sympy.printing.mathml import mathml

    import theory

    _, paths = study
    html = paths["html"].read_text(encoding="utf-8")
    th = theory.get("pe_gp_ucb")
    for name, expr in th.bound_terms.items():
        assert mathml(expr, printer="presentation") in html, name


def test_every_claim_is_reported_in_both_formats(study):
    import json

    out, paths = study
    summary = json.loads((out / "results" / "summary.json").read_text())
    html = paths["html"].read_text(encoding="utf-8")
    tex = paths["tex"].read_text(encoding="ascii")
    claims_tex = (out / "tables" / "claims.tex").read_text()
    for c in summary["claims"]:
        assert c["id"] in html
        escaped = c["id"].replace("_", r"\_")
        assert escaped in claims_tex and escaped in tex
        assert f"{c['violations']}/{c['runs']}" in claims_tex


def test_verdict_shows_p_value_share_and_sensitivity(study):
    """Per claim its p-value, its share of the false-alarm budget and its interval; a sensitivity
    table (smallest detectable effect and the planted defects each claim catches)."""
    import json

    out, paths = study
    summary = json.loads((out / "results" / "summary.json").read_text())
    html = paths["html"].read_text(encoding="utf-8")
    assert "p-value" in html and "share" in html and "false-alarm budget" in html
    assert 'id="sensitivity"' in html and "smallest detectable effect" in html
    ce = next(c for c in summary["claims"] if c["id"] == "confidence_event")
    from boundcheck.report.wording import fmt

    assert fmt(ce["budget_share"], 2) in html and "no_prediction_step" in html  # caught by, from the power table
    assert "Sanity identities" in html and "S1_eq4_and_2B" in html
    claims_tex = (out / "tables" / "claims.tex").read_text()
    assert " p " in claims_tex or "& p &" in claims_tex
    assert "Sensitivity of this verification" in paths["tex"].read_text()


def test_latex_is_ascii_escaped_and_relative(study):
    out, paths = study
    tex = paths["tex"].read_bytes().decode("ascii")  # raises if anything slipped through unescaped
    assert r"\documentclass" in tex and r"\end{document}" in tex
    assert str(out) not in tex and "/tmp" not in tex and str(Path.home()) not in tex
    graphics = re.findall(r"\\includegraphics\[[^\]]*\]\{([^}]*)\}", tex)
    assert len(graphics) == len(FIGURES) and all(g.startswith("figures/") and g.endswith(".png") for g in graphics)
    assert all(f"\\input{{tables/{t}.tex}}" in tex for t in TABLES)
    # no raw underscore outside math, macros and \input paths: every claim id is escaped
    for line in (out / "tables" / "claims.tex").read_text().splitlines():
        if not line.startswith("%"):
            assert not re.search(r"(?<!\\)_", line), line
    packages = set(re.findall(r"\\usepackage(?:\[[^\]]*\])?\{([^}]*)\}", tex))
    allowed = {"fontenc", "lmodern", "amsmath,amssymb", "booktabs,longtable,array", "graphicx", "geometry",
               "hyperref", "bookmark"}  # bookmark: hyperref's companion (texlive-latex-base), the outline in one pass
    assert packages <= allowed, packages - allowed


def test_tex_escaping_helpers():
    from boundcheck.report.context import parse_rich
    from boundcheck.report.latex import tex

    assert tex("a & 50% $x$ #1 {y} ~ ^ _ \\") == (
        r"a \& 50\% \$x\$ \#1 \{y\} \textasciitilde{} \textasciicircum{} \_ \textbackslash{}")
    assert tex("X_t") == r"X\textsubscript{t}"
    assert tex("pe_gp_ucb") == r"pe\_gp\_ucb"  # identifiers keep their underscores
    assert tex("σ²_{t−1} ≤ C") == (r"\ensuremath{\sigma}\textsuperscript{2}\textsubscript{t\ensuremath{-}1} "
                                   r"\ensuremath{\le} C")
    assert parse_rich("S^p_t") == ["S", ("sup", ["p"]), ("sub", ["t"])]
    assert parse_rich("D1_preservation") == ["D1_preservation"]


def test_all_theory_text_maps_to_ascii_latex():
    import theory
    from boundcheck.report.latex import tex
    from boundcheck.world import get_scenario, scenario_names

    texts = []
    for th in theory.all_theorems():
        texts += [th.title, th.source, th.anytime_note, *th.notes]
        texts += [c.statement + c.source for c in th.claims]
        texts += [c.location + c.paper + c.implemented + c.reason for c in th.corrections]
        texts += [a.text for a in th.assumptions] + [m for _, m in th.symbols.values()]
    for name in scenario_names():
        sc = get_scenario(name)
        texts += [sc.description, *sc.notes, sc.out_of_theory_reason]
    for t in texts:
        out = tex(t)
        out.encode("ascii")  # every character mapped
        if "?" not in t:
            assert "?" not in out, t  # no unknown character replaced


# --------------------------------------------------------------------------------------- theory status
def test_in_theory_report_does_not_claim_out_of_theory(study):
    _, paths = study
    html = paths["html"].read_text(encoding="utf-8")
    assert "outside the theorem" not in _first_visible_line(html).lower()
    assert "in theory" in _first_visible_line(html).lower()
    assert "outside the theorem" not in _first_body_line(paths["tex"].read_text()).lower()


def test_out_of_theory_run_says_so_in_its_first_line(control):
    out, paths = control
    html = paths["html"].read_text(encoding="utf-8")
    assert "outside the theorem" in _title(html).lower()
    first = _first_visible_line(html)
    assert "outside the theorem" in first.lower() and "0.1" in first  # the reason: β scaled by 0.1
    line = _first_body_line(paths["tex"].read_text())
    assert "outside the theorem" in line.lower() and "0.1" in line


# ------------------------------------------------------------------------------------------ report CLI
def test_report_command_rebuilds_without_rerunning(study, tmp_path):
    src, _ = study
    out = tmp_path / "copy"
    shutil.copytree(src, out)
    chunks = sorted((out / "results" / "chunks").glob("*.parquet"))
    assert chunks
    before = {p.name: p.stat().st_mtime_ns for p in chunks}
    stored = {p.name: p.stat().st_mtime_ns for p in (out / "results").glob("*.*")}
    (out / "index.html").unlink()
    (out / "report.tex").unlink()
    shutil.rmtree(out / "figures")
    assert main(["report", str(out)]) == 0
    assert (out / "index.html").stat().st_size > 10_000 and (out / "report.tex").exists()
    assert len(list((out / "figures").glob("*.png"))) == len(FIGURES)
    after = {p.name: p.stat().st_mtime_ns for p in sorted((out / "results" / "chunks").glob("*.parquet"))}
    assert after == before, "report must not recompute or rewrite any chunk"
    for name, mtime in stored.items():
        if name != "summary.json":  # read, never rewritten either
            assert (out / "results" / name).stat().st_mtime_ns == mtime, name
    assert (out / "results" / "summary.json").stat().st_mtime_ns == stored["summary.json"]


# ----------------------------------------------------------------------------------- browser and LaTeX
def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(_chromium() is None, reason="chromium not on PATH (CI: apt-get install chromium)")
def test_html_renders_in_headless_chromium(study, tmp_path):
    import matplotlib.image as mpimg

    _, paths = study
    shot = tmp_path / "shot.png"
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", "--window-size=1400,6000",
           paths["html"].resolve().as_uri()]
    subprocess.run(cmd, check=False, capture_output=True, timeout=120)
    assert shot.exists(), "chromium wrote no screenshot"
    img = mpimg.imread(shot)[..., :3]
    assert img.shape[0] >= 6000 and img.shape[1] >= 1400
    assert img.std() > 0.05, "the rendered page is blank"
    inked = (img.mean(axis=2) < 0.9).mean()
    assert inked > 0.02, f"only {inked:.1%} of the page has content"


def _latex_tools() -> list[str]:
    return [t for t in ("pdflatex", "pdfinfo", "pdftotext") if shutil.which(t) is None]


@pytest.mark.skipif(bool(_latex_tools()), reason=f"{', '.join(_latex_tools())} not on PATH "
                    "(CI: apt-get install texlive-latex-base texlive-latex-recommended texlive-latex-extra "
                    "poppler-utils)")
@pytest.mark.parametrize("which", ["study", "control"])
def test_latex_compiles_with_pdflatex(which, request, tmp_path):
    src, _ = request.getfixturevalue(which)
    out = tmp_path / "tex"
    out.mkdir()
    for part in ("report.tex", "tables", "figures"):  # the report moves as a unit: relative paths only
        (shutil.copytree if (src / part).is_dir() else shutil.copy)(src / part, out / part)
    # one pass is the whole build: nothing asks for a rerun, and nothing runs into the margin
    r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "report.tex"], cwd=out,
                       capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stdout[-3000:]
    log = (out / "report.log").read_text(errors="replace")
    assert not re.search(r"Rerun to get|Label\(s\) may have changed|Table widths have changed", log), log[-3000:]
    overfull = re.findall(r"^Overfull \\[hv]box.*$", log, re.M)
    assert not overfull, overfull
    info = subprocess.run(["pdfinfo", "report.pdf"], cwd=out, capture_output=True, text=True).stdout
    pages = int(re.search(r"Pages:\s+(\d+)", info).group(1))
    assert 4 <= pages <= 40, pages
    text = subprocess.run(["pdftotext", "-layout", "report.pdf", "-"], cwd=out, capture_output=True,
                          text=True).stdout
    flat = re.sub(r"[\s_]+", "", text)  # OT1 fonts (no lmodern) draw underscores as rules
    for needle in ("failures/runs", "regret_bound_anytime", "confidence_event", "CI(confidence)", "verdict",
                   "Correctionsledger", "Configurationandprovenance"):
        assert re.sub(r"[\s_]+", "", needle) in flat, needle
    assert re.search(r"\b(holds|violated|inconclusive)\b", text)
    first = next(line for line in text.splitlines() if line.strip())
    assert ("outside the theorem" in first.lower()) == (which == "control"), first


# ------------------------------------------------------------------------------------- report polish
def test_verdict_table_gives_the_statement_its_width_and_provenance_the_worker_count(study):
    """The statement column has a width of its own (rows were ~10 lines tall), and the provenance
    prints the resolved number of workers, not ``loky / -1``."""
    from boundcheck.report.wording import workers_text

    _, paths = study
    html = paths["html"].read_text(encoding="utf-8")
    assert '<table class="claims">' in html and '<td class="stmt">' in html
    assert "table.claims td.stmt" in html  # the CSS that gives it the width
    assert "backend / workers" in html and "1 worker" in html  # the fixture runs with --jobs 1
    assert workers_text({"jobs": -1, "workers": 16}) == "16 workers (jobs = -1)"
    assert "not stored" in workers_text({"jobs": -1})  # a study stored before the count was


# ------------------------------------------------------------------------------ one page over many studies
_VERDICT_RGB = {"holds": (0x2e, 0x7d, 0x32), "inconclusive": (0xef, 0x6c, 0x00), "violated": (0xc6, 0x28, 0x28)}


@pytest.fixture(scope="session")
def other_theorem(tmp_path_factory) -> Path:
    """Two more theorems' studies (papers 002 and 005), without reports (their rows say so)."""
    out = tmp_path_factory.mktemp("index_others")
    for th in ("gp_ucb", "comb_gp_ucb"):
        rc = main(["verify", "--theorem", th, "--runs", "6", "--horizon", "30", "--jobs", "1", "--out",
                   str(out / th), "--no-report"])
        assert rc in (0, 1), (th, rc)
    return out


@pytest.fixture(scope="session")
def index(study, control, other_theorem, tmp_path_factory) -> tuple[Path, dict]:
    """``report --index`` over the four studies, plus a copy of one whose summary was damaged."""
    import contextlib
    import io
    import json

    broken = tmp_path_factory.mktemp("index_broken")
    shutil.copytree(study[0] / "results", broken / "damaged" / "results")
    (broken / "damaged" / "results" / "summary.json").write_text('{"theorem": "pe_gp_ucb"}')
    out = tmp_path_factory.mktemp("index_out")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main(["report", "--index", str(study[0]), str(control[0]), str(other_theorem), str(broken),
                   "--out-index", str(out), "--json"])
    assert rc == 0
    return out, json.loads(buf.getvalue())


class _Rows(HTMLParser):
    """The studies table's body rows, as lists of cell texts, in page order."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.links: list[str] = []
        self.cell: list[str] | None = None
        self.in_body = False

    def handle_starttag(self, tag, attrs):
        if tag == "tbody":
            self.in_body = True
        elif tag == "tr" and self.in_body:
            self.rows.append([])
        elif tag == "td" and self.in_body:
            self.cell = []
        elif tag == "a" and self.in_body:
            self.links.append(dict(attrs)["href"])

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.rows[-1].append(" ".join(self.cell))
            self.cell = None
        elif tag == "tbody":
            self.in_body = False

    def handle_data(self, data):
        if self.cell is not None and data.strip():
            self.cell.append(data.strip())


def _table_rows(html: str) -> _Rows:
    p = _Rows()
    p.feed(html[html.index('id="studies"'):])
    return p


def test_index_lists_every_study_with_its_verdict_and_report(index, study, control):
    import json

    out, res = index
    assert {Path(res[k]).name for k in ("html", "tex", "table")} == {"studies.html", "studies.tex",
                                                                      "studies-table.tex"}
    rows = res["studies"]
    assert sorted((r["theorem"], r["in_theory"]) for r in rows) == [("comb_gp_ucb", True), ("gp_ucb", True),
                                                                    ("pe_gp_ucb", False), ("pe_gp_ucb", True)]
    for r in rows:  # the stored summary's numbers, not recomputed ones
        s = json.loads((Path(r["folder"]) / "summary.json").read_text())
        assert (r["verdict"], r["runs"], r["horizon"]) == (s["verdict"], s["runs"], s["horizon"])
        assert r["tightness"] == pytest.approx(s["tightness"]["median"])
    assert len(res["skipped"]) == 1 and "damaged" in res["skipped"][0][0]  # listed, not fatal
    html = (out / "studies.html").read_text(encoding="utf-8")
    p = _table_rows(html)
    assert len(p.rows) == 4 and all(len(r) == 9 for r in p.rows)
    assert [r[0] for r in p.rows] == ["comb_gp_ucb", "gp_ucb", "pe_gp_ucb", "pe_gp_ucb"]  # sorted by theorem
    assert sum("outside" in r[3] for r in p.rows) == 1
    assert sum("(no report)" in r[8] for r in p.rows) == 2
    assert len(p.links) == 2 and all((out / link).resolve() in (study[1]["html"].resolve(),
                                                               control[1]["html"].resolve()) for link in p.links)
    # offline: nothing fetched; the sorting is inline
    assert not re.search(r"""\b(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", html, re.I)
    assert "<script>" in html and "<script src" not in html
    assert "Results folders not read" in html
    tex = (out / "studies-table.tex").read_bytes().decode("ascii")
    assert len(re.findall(r"\\\\$", tex, re.M)) == 1 + 4  # the header and one line per study


def test_index_refuses_bad_input_with_exit_2(tmp_path, capsys, study):
    assert main(["report", "--index", str(tmp_path / "missing")]) == 2
    assert main(["report", "--index", str(tmp_path)]) == 2  # no results below it
    assert "no verify results below" in capsys.readouterr().err
    assert main(["report", str(study[0]), "--index", str(tmp_path)]) == 2
    assert main(["report"]) == 2
    assert not list(tmp_path.iterdir())  # nothing written


@pytest.mark.skipif(_chromium() is None, reason="chromium not on PATH (CI: apt-get install chromium)")
def test_index_renders_and_sorts_in_headless_chromium(index, tmp_path):
    """The page as a browser shows it: the screenshot has one row of verdict badges per study, and the inline
    script sorts (``#sort=tightness-desc``: the DOM after it ran has the rows by tightness, largest first)."""
    import matplotlib.image as mpimg
    import numpy as np

    out, res = index
    page = (out / "studies.html").resolve().as_uri()
    base = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}"]
    shot = tmp_path / "index.png"
    subprocess.run([*base, f"--screenshot={shot}", "--window-size=1400,900", page], check=False,
                   capture_output=True, timeout=120)
    assert shot.exists(), "chromium wrote no screenshot"
    img = mpimg.imread(shot)[..., :3]
    # the verdict badges' colours: the pixel rows that hold one form one band per table row
    hit = np.zeros(img.shape[0], dtype=bool)
    for rgb in _VERDICT_RGB.values():
        hit |= (np.abs(img - np.array(rgb) / 255.0).max(axis=2) < 0.02).sum(axis=1) >= 20
    bands = int(hit[0]) + int(np.count_nonzero(hit[1:] & ~hit[:-1]))
    assert bands == len(res["studies"]), bands
    dom = subprocess.run([*base, "--dump-dom", page + "#sort=tightness-desc"], check=False, capture_output=True,
                         text=True, timeout=120).stdout
    assert 'data-sorted="tightness-desc"' in dom
    shown = [float(v) for v in re.findall(r'<td class="num" data-sort="([0-9.e+-]+)"', dom)]
    expected = sorted((r["tightness"] for r in res["studies"] if r["tightness"]), reverse=True)
    assert shown == pytest.approx(expected)


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not on PATH")
def test_index_latex_builds_in_one_pass(index):
    out, _ = index
    r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "studies.tex"], cwd=out,
                       capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stdout[-3000:]
    log = (out / "studies.log").read_text(errors="replace")
    assert not re.search(r"Rerun|have changed|^Overfull", log, re.M), log[-3000:]
