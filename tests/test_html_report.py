"""The report a person reads: report.html after a run, rebuilt byte for byte from the saved
chunks by ``houseedge report``, and rendered in a real browser (headless Chromium)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from sim import cli

EXPERIMENT = """
name = "tiny-faro"
game = "faro"
rounds = 3000
chunk_rounds = 1000
seed = 11
[variants.faro]
preset = "faro"
[variants.old-pharo]
preset = "old-pharo"
[[strategies]]
name = "flat king"
use = "flat-rank"
params = { ranks = "K" }
[[strategies]]
name = "call the turn"
use = "call-turn"
[[strategies]]
name = "seven-up"
use = "seven_up.py:SevenUp"
rounds = 1000
"""
SEVEN_UP = Path(__file__).resolve().parent.parent / "experiments" / "seven_up.py"
TIMESTAMP = re.compile(rb'"?finished"?[^\n]*\n|<dd>\d{4}-\d\d-\d\dT[^<]*</dd>')


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("html")
    (tmp / "exp.toml").write_text(EXPERIMENT)
    shutil.copy(SEVEN_UP, tmp / "seven_up.py")
    out = tmp / "out"
    assert cli.main(["run", str(tmp / "exp.toml"), "--out", str(out), "--quiet"]) == 0
    return out


def _outputs(folder: Path) -> dict[str, bytes]:
    return {p.name: TIMESTAMP.sub(b"", p.read_bytes()) for p in sorted(folder.iterdir())
            if p.is_file()}


def test_a_run_writes_a_self_contained_page(run_dir):
    page = (run_dir / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>")
    # Viewable offline: nothing is fetched (no scripts, styles, images or fonts by URL).
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert "<img" not in page and page.count("<svg") >= 3
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert "report.html" in manifest["files"]
    assert "docs/rules/faro.md" in page and "not offered" in page


def test_report_rebuilds_every_output_byte_for_byte(run_dir, tmp_path, capsys):
    before = _outputs(run_dir)
    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    for path in copy.iterdir():  # keep only what a rebuild reads: the chunks and the manifest
        if path.is_file() and path.name != "manifest.json":
            path.unlink()
    assert cli.main(["report", str(copy)]) == 0
    assert "rebuilt" in capsys.readouterr().out
    assert _outputs(copy) == before


def test_report_of_a_folder_without_a_run_is_one_line(tmp_path, capsys):
    assert cli.main(["report", str(tmp_path)]) == cli.EXIT_BAD_INPUT
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "not the output folder of a" in err


def test_charts_redraws_every_chart(run_dir, tmp_path, capsys):
    assert cli.main(["charts", str(run_dir), "--out", str(tmp_path), "--format", "svg"]) == 0
    drawn = sorted(p.stem for p in tmp_path.glob("*.svg"))
    made = sorted(Path(n).stem for n in json.loads((run_dir / "manifest.json").read_text())
                  ["files"] if n.endswith(".png"))
    assert drawn == made and "convergence" in drawn


# --------------------------------------------------------------------- in a browser
class _Dom(HTMLParser):
    """Rows of the headline table and the charts on the page, from the browser's DOM."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.in_headline = self.in_body = False
        self.rows = 0
        self.charts: list[str] = []
        self.svg_in_chart = 0
        self.figure: str | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and "headline" in (attrs.get("class") or "").split():
            self.in_headline = True
        if self.in_headline and tag == "tbody":
            self.in_body = True
        if self.in_body and tag == "tr":
            self.rows += 1
        if tag == "figure" and "chart" in (attrs.get("class") or ""):
            self.figure = attrs.get("data-file")
            self.charts.append(self.figure)
        if tag == "svg" and self.figure:
            self.svg_in_chart += 1
            self.figure = None

    def handle_endtag(self, tag):
        if tag == "tbody":
            self.in_body = False
        if tag == "table":
            self.in_headline = False


def _chromium() -> str | None:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None and os.environ.get("CI"):
        pytest.fail("chromium is not installed: CI must run the browser test (.ci/run installs "
                    "it)")
    return found


def test_the_page_renders_in_a_browser(run_dir, tmp_path):
    chromium = _chromium()
    if chromium is None:
        pytest.skip("chromium not installed (apt-get install chromium)")
    url = (run_dir / "report.html").resolve().as_uri()
    flags = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--user-data-dir={tmp_path / 'profile'}"]
    shot = tmp_path / "report.png"
    subprocess.run([*flags, "--window-size=1280,2400", f"--screenshot={shot}", url],
                   check=True, capture_output=True, timeout=120)
    dom = subprocess.run([*flags, "--dump-dom", url], check=True, capture_output=True,
                         text=True, timeout=120).stdout
    from matplotlib.image import imread

    pixels = imread(shot)[..., :3]
    assert pixels.shape[0] >= 2000 and pixels.shape[1] >= 1200
    ink = (pixels.mean(axis=2) < 0.9).mean()  # share of pixels that are not near white
    assert ink > 0.02 and np.std(pixels) > 0.05, f"blank screenshot? ink {ink:.3f}"
    parsed = _Dom()
    parsed.feed(dom)
    assert parsed.rows == 2 * 3  # a row per variant x strategy
    manifest = json.loads((run_dir / "manifest.json").read_text())
    charts = [n for n in manifest["files"] if n.endswith(".png")]
    assert sorted(parsed.charts) == sorted(charts) and parsed.svg_in_chart == len(charts)
    keep = os.environ.get("HOUSEEDGE_SCREENSHOT")
    if keep:
        shutil.copy(shot, keep)


def test_a_one_chunk_run_says_why_it_has_no_convergence_chart(tmp_path):
    path = tmp_path / "one.toml"
    path.write_text('game = "faro"\nrounds = 500\n[[strategies]]\nuse = "flat-rank"\n')
    assert cli.main(["run", str(path), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    files = json.loads((tmp_path / "out" / "manifest.json").read_text())["files"]
    assert "convergence.png" not in files and "edge.png" in files
    assert "No convergence chart" in (tmp_path / "out" / "report.html").read_text()


# --------------------------------------------------------------------- what a reader sees
def _section(page: str, title: str) -> str:
    """The HTML of the page's section headed ``title``."""
    start = page.index(f"<h2>{title}</h2>")
    return page[start:page.index("</section>", start)]


def test_comparison_z_cells_are_coloured_as_the_headlines_are(run_dir):
    page = (run_dir / "report.html").read_text()
    comparisons = _section(page, "Paired comparisons")
    colours = set(re.findall(r"background-color: (#\w+)", comparisons))
    assert colours and colours <= {"#d9f2d9", "#fff2bf", "#f8c9c4"}


def test_a_formatted_z_column_is_coloured_by_the_headline_thresholds():
    import pandas as pd

    from sim.outputs import html

    table = html.plain_table(pd.DataFrame({"row": ["a", "b", "c", "d"],
                                           "z": ["+0.39", "-2.50", "+3.10", ""]}), "t")
    styles = dict(re.findall(r"#T_t_(row\d)_col1 \{\s*background-color: (#\w+)", table))
    assert styles == {"row0": "#d9f2d9", "row1": "#fff2bf", "row2": "#f8c9c4"}


BANKROLL = """
name = "tiny-bankroll"
game = "faro"
rounds = 2000
chunk_rounds = 1000
seed = 3
[[strategies]]
name = "flat king"
use = "flat-rank"
params = { ranks = "K" }
[session]
bankroll = 20
rounds = 30
rounds_per_hour = 30
target_risks = [0.01, 0.05]
sessions = 2000
chunk_sessions = 1000
"""


def test_a_probability_reads_in_percent_to_three_figures():
    from sim.outputs.risk_report import percent

    assert [percent(p) for p in (0.00448991, 0.25323, 1.0, 0.0, 1e-9, float("nan"))] == \
        ["0.449%", "25.3%", "100%", "0%", "< 0.001%", ""]


def test_the_bankroll_section_leads_with_the_answers_in_percent_and_folds_the_full_table(
        tmp_path):
    import pandas as pd

    from sim.outputs.risk_report import percent

    (tmp_path / "b.toml").write_text(BANKROLL)
    out = tmp_path / "out"
    assert cli.main(["run", str(tmp_path / "b.toml"), "--out", str(out), "--quiet",
                     "--no-charts"]) == 0
    section = _section((out / "report.html").read_text(), "Bankroll and risk")
    first = section.index("<table")
    folded = section.index("<details")
    assert first < folded, "the answers come before the full table"
    answers = section[first:section.index("</table>", first)]
    heads = re.findall(r'<th [^>]*class="col_heading[^>]*>([^<]*)</th>', answers)
    assert heads[:7] == ["variant", "strategy", "method", "P(ruin) in 30 rounds", "± SE", "z",
                         "P(ahead)"]
    assert {"bankroll for 1% risk", "bankroll for 5% risk", "EV per hour",
            "SD per hour"} <= set(heads)
    risk = pd.read_csv(out / "risk.csv")
    cells = re.findall(r'<td [^>]*class="data row(\d+) col3"[^>]*>([^<]*)</td>', answers)
    assert [text for _, text in cells] == [percent(p) for p in risk["p_ruin"]]
    assert len(cells) == len(risk) and all(text.endswith("%") for _, text in cells)
    # The full table below, folded: every column of risk.csv, as it was.
    full = section[folded:]
    assert full.index("<summary>") < full.index("<table")
    full_heads = re.findall(r'<th [^>]*class="col_heading[^>]*>([^<]*)</th>', full)
    assert full_heads == list(risk.columns)


def test_charts_redraws_the_risk_charts_too(tmp_path, capsys):
    (tmp_path / "b.toml").write_text(BANKROLL)
    out = tmp_path / "out"
    assert cli.main(["run", str(tmp_path / "b.toml"), "--out", str(out), "--quiet"]) == 0
    made = sorted(Path(n).stem for n in json.loads((out / "manifest.json").read_text())
                  ["files"] if n.endswith(".png"))
    assert {"risk_fan", "risk_ruin", "risk_results"} <= set(made)
    pdfs = tmp_path / "pdf"
    pdfs.mkdir()
    assert cli.main(["charts", str(out), "--out", str(pdfs), "--format", "pdf"]) == 0
    assert sorted(p.stem for p in pdfs.glob("*.pdf")) == made
    assert all(p.read_bytes().startswith(b"%PDF") for p in pdfs.glob("risk_*.pdf"))
    # Measured again from the same seed: the same chart as the run drew.
    pngs = tmp_path / "png"
    pngs.mkdir()
    assert cli.main(["charts", str(out), "--out", str(pngs)]) == 0
    assert (pngs / "risk_ruin.png").read_bytes() == (out / "risk_ruin.png").read_bytes()
