"""What a new user reads on the console, and the figures it shares with the reports.

Every mark has a legend; a sanity identity reads BROKEN only on a counterexample (not applicable stays "not
applicable", on the console and in the LaTeX and HTML reports); the plain progress lines end on the finished
state; "time taken" is one figure on the console, in the HTML and in the LaTeX report (a rerun that recomputes
nothing keeps it, says so, and leaves current reports as they are); no table title wraps at 80 columns;
``report --index`` alone indexes ``reports/``; ``make verify`` prints no setuptools banner.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from rich.console import Console

from boundcheck.cli import main, power, render, scenario, verify

ROOT = Path(__file__).resolve().parents[2]
VERIFY = ["verify", "--theorem", "gp_ucb", "--runs", "25", "--horizon", "20", "--jobs", "1"]


def _time_taken(text: str) -> str:
    m = re.search(r"time taken (\d+\.\d) s", text)
    assert m, text[-800:]
    return m.group(1)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """One small verify through the command line, with its reports: (out folder, console output)."""
    out = tmp_path_factory.mktemp("console") / "out"
    capture = pytest.MonkeyPatch()
    import io

    buf = io.StringIO()
    capture.setattr("sys.stdout", buf)
    try:
        assert main([*VERIFY, "--out", str(out)]) == 0
    finally:
        capture.undo()
    return out, buf.getvalue()


def _summary(out: Path) -> dict:
    return json.loads((out / "results" / "summary.json").read_text())


def _render(summary: dict, monkeypatch, capsys, width: int = 140) -> str:
    monkeypatch.setattr(render, "console", lambda: Console(highlight=False, width=width))
    verify._render_summary(summary)
    return capsys.readouterr().out


# ---------------------------------------------------------------------------------------------- legends
def test_the_main_claims_star_has_a_legend(study, monkeypatch, capsys):
    summary = _summary(study[0])
    for c in summary["claims"]:  # a main claim that is judged (at T = 20 the bounds are vacuous identities)
        c["main"] = c["id"] == "confidence_event"
    text = _render(summary, monkeypatch, capsys)
    assert "confidence_event *" in text
    assert "* the theorem's own conclusion" in text
    for c in summary["claims"]:
        c["main"] = False
    assert "* the theorem's own conclusion" not in _render(summary, monkeypatch, capsys)  # no star, no legend


def test_every_column_abbreviation_of_the_claims_table_is_explained(study, monkeypatch, capsys):
    text = _render(_summary(study[0]), monkeypatch, capsys)
    assert "p: the claim's own p-value" in text and "share: its part of the false-alarm budget" in text


def test_an_assumption_no_predicate_checks_has_a_legend_for_its_mark(capsys):
    app = {"theorem": "t", "applies": True, "rows": [{"predicate": "p", "ok": None, "how": "stated"}]}
    scenario._render_scenario_applicability(lambda s: Console(highlight=False, width=140).print(s), app)
    out = capsys.readouterr().out
    assert "–   p: stated" in out and "–: no predicate checks this assumption" in out


# ------------------------------------------------------------------------------------ identities' words
@pytest.mark.parametrize("verdict, word", [("holds", "ok"), ("violated", "BROKEN"),
                                           ("not applicable", "not applicable"), ("inconclusive", "inconclusive")])
def test_an_identity_reads_broken_only_on_a_counterexample(study, verdict, word, monkeypatch, capsys):
    summary = _summary(study[0])
    ident = next(c for c in summary["claims"] if c["kind"] == "identity" and c["id"] == "D2_intermediate")
    ident["verdict"] = verdict
    line = next(x for x in _render(summary, monkeypatch, capsys).splitlines() if x.startswith("sanity identities"))
    assert f"D2_intermediate {word}" in line
    assert ("BROKEN" in line) == (verdict == "violated")

    from boundcheck.report.templating import tex_env
    from boundcheck.report.verify import html_section, model

    ctx = SimpleNamespace(claims=[ident], theorem_id="gp_ucb", scenario_name="s")
    tex = tex_env().get_template("verify/claims.tex.j2").render(t=model.claims_table(ctx))
    assert ("BROKEN" in tex) == (verdict == "violated")
    if verdict == "not applicable":
        assert "not applicable" in tex
    hctx = SimpleNamespace(claims=[ident], claim_meta=lambda cid: ("", ""), summary={}, in_theory=True,
                           undecided=lambda: [])
    monkeypatch.setattr(model, "applicability", lambda ctx: {"incomplete": "", "settled_otherwise": [],
                                                             "not_applicable": [], "also": []})
    page = html_section("verdict", model.verdict_section(hctx))
    assert "BROKEN" not in page and f">{verdict}<" in page  # the badge says the verdict itself


# ------------------------------------------------------------------------------------------- progress
def test_the_last_plain_progress_line_is_the_finished_state(monkeypatch, capsys):
    monkeypatch.setattr(render, "PLAIN_PROGRESS_EVERY", 0.0)
    on_chunk, on_progress = render.plain_progress("t")
    on_chunk(0, 8)
    on_progress(700, 800)  # a line: 88 %, no chunk stored yet
    monkeypatch.setattr(render, "PLAIN_PROGRESS_EVERY", 1e9)  # no further line for a long while ...
    on_chunk(7, 8)
    on_progress(800, 800)
    on_chunk(8, 8)  # ... but the finished state is always the last one
    lines = capsys.readouterr().err.splitlines()
    assert "88% of the run-steps, 0/8 chunks stored" in lines[-2]
    assert "100% of the run-steps, 8/8 chunks stored" in lines[-1]


def test_a_command_too_short_for_a_progress_line_prints_none_at_the_end(capsys):
    on_chunk, on_progress = render.plain_progress("t")
    on_chunk(0, 2)
    on_progress(100, 100)
    on_chunk(2, 2)
    assert capsys.readouterr().err == ""


# ---------------------------------------------------------------------------------------- time taken
def test_time_taken_is_one_figure_on_the_console_and_in_both_reports(study):
    out, console = study
    shown = _time_taken(console)
    html = (out / "index.html").read_text()
    tex = (out / "report.tex").read_text()
    assert re.search(rf"time taken</t[dh]><td>{re.escape(shown)} s<", html), shown
    assert f"time taken & {shown} s" in tex
    assert f"{_summary(out)['elapsed_s']:.1f}" == shown


def test_a_rerun_that_recomputes_nothing_keeps_the_time_and_the_reports(study, tmp_path, capsys):
    out = tmp_path / "out"
    shutil.copytree(study[0], out)
    files = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file() and "results" not in p.parts}
    assert main([*VERIFY, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert _time_taken(text) == _time_taken(study[1]) and "nothing recomputed" in text
    assert {p: p.stat().st_mtime_ns for p in files} == files  # current reports are left as they are
    # a report file that is not as written (deleted, edited) is written again
    (out / "figures" / "regret.png").unlink()
    (out / "report.tex").write_text("edited")
    assert main([*VERIFY, "--out", str(out)]) == 0
    capsys.readouterr()
    assert (out / "figures" / "regret.png").is_file() and (out / "report.tex").read_text() != "edited"


def test_reports_are_rewritten_when_what_they_show_changes(study, tmp_path, capsys):
    out = tmp_path / "out"
    shutil.copytree(study[0], out)
    before = (out / "index.html").stat().st_mtime_ns
    assert main([*VERIFY, "--runs", "50", "--out", str(out)]) == 0  # 25 more runs: another summary
    capsys.readouterr()
    assert (out / "index.html").stat().st_mtime_ns != before
    assert "runs = 50" in (out / "index.html").read_text() or "50 runs" in (out / "index.html").read_text()


# ------------------------------------------------------------------------------------- titles at 80 columns
def _titles_fit(show, monkeypatch, capsys) -> None:
    """Render at 80 columns; every table title must appear whole on one line."""
    from rich.table import Table

    titles = []
    real_init = Table.__init__

    def init(self, *a, **kw):
        real_init(self, *a, **kw)
        if self.title:
            titles.append(str(self.title))

    monkeypatch.setattr(Table, "__init__", init)
    monkeypatch.setattr(render, "console", lambda: Console(highlight=False, width=80))
    show()
    lines = capsys.readouterr().out.splitlines()
    assert titles
    for title in titles:
        plain = re.sub(r"\[/?[^\]]*\]", "", title)
        assert len(plain) <= 80, plain
        assert any(plain in line for line in lines), f"the title {plain!r} is wrapped:\n" + "\n".join(lines)


def test_a_title_longer_than_its_table_is_not_wrapped_to_the_tables_width(capsys):
    from rich.table import Table

    table = Table(title="a title of sixty characters, longer than its narrow table")
    table.add_column("x")
    table.add_row("1")
    render.print_table(Console(highlight=False, width=80), table)
    assert "a title of sixty characters, longer than its narrow table" in capsys.readouterr().out


def test_no_verify_table_title_wraps_at_80_columns(study, monkeypatch, capsys):
    summary = _summary(study[0])
    summary["main_algorithm"] = "AVeryLongNameOfAUsersAlgorithmClass"
    _titles_fit(lambda: verify._render_summary(summary), monkeypatch, capsys)


def test_no_power_or_list_table_title_wraps_at_80_columns(monkeypatch, capsys):
    table = json.loads((ROOT / "boundcheck" / "papers" / "srinivas" / "power" / "gp_ucb.json").read_text())
    _titles_fit(lambda: power._render_power(copy.deepcopy(table)), monkeypatch, capsys)
    _titles_fit(lambda: main(["list"]), monkeypatch, capsys)


# ------------------------------------------------------------------------------------------ report --index
def test_report_index_without_a_folder_indexes_reports(study, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    shutil.copytree(study[0], tmp_path / "reports" / "gp_ucb")
    assert main(["report", "--index"]) == 0
    assert "index of 1 study" in capsys.readouterr().out
    assert (tmp_path / "reports" / "studies.html").is_file()
    assert main(["report", "--out-index", "x"]) == 2  # --out-index alone is still an error
    assert "needs --index" in capsys.readouterr().err


# -------------------------------------------------------------------------------------------- make verify
def test_make_silences_the_setuptools_editable_install_banner():
    makefile = (ROOT / "Makefile").read_text()
    assert 'QUIET_EDITABLE := PYTHONWARNINGS="ignore:Editable installation"' in makefile
    installs = [line for line in makefile.splitlines() if "pip install" in line and " -e " in line]
    assert installs and all(line.strip().startswith("$(QUIET_EDITABLE) ") for line in installs), installs
