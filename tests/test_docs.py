"""The documentation site: it builds with warnings as errors, every internal link resolves,
and in Chromium the search finds ERCOT and a tutorial shows its interactive Plotly figure.

The build command is the one docs/conf.py documents. Set ERCOT_NB_DOCS_OUT to keep the
built site (the GitHub Pages workflow publishes that folder after this test passes).
"""
from __future__ import annotations

import html
import html.parser
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
CHROMIUM = Path("/usr/bin/chromium")
sys.path.insert(0, str(DOCS / "_ext"))

import ercot_docs  # noqa: E402  (docs/_ext, the site's Sphinx helpers)


# ----------------------------------------------------------------------------- fast checks
def test_figure_json_cannot_close_its_script_element():
    figure = {"data": [{"type": "scatter", "name": "</script><script>alert(1)</script>&"}],
              "layout": {"height": 300, "title": {"text": "<b>x</b>"}}}
    html_text = ercot_docs.figure_html(figure)
    body = html_text.split('class="ercot-plotly-figure">', 1)[1].rsplit("</script>", 1)[0]
    assert "<" not in body and ">" not in body and "&" not in body
    assert json.loads(body) == figure  # \u003c etc. decode back to the same figure
    assert 'style="height:300px; width:100%;"' in html_text
    assert "height:450px" in ercot_docs.figure_html({"data": [], "layout": {"height": "9e99"}})
    with pytest.raises(TypeError, match="JSON object"):
        ercot_docs.figure_html([1, 2])


def test_plotly_loader_snippet_is_recognised_and_nothing_else():
    loader = ('<script>window.PlotlyConfig = {MathJaxConfig: "local"};</script>\n'
              '<script type="module">import "https://cdn.plot.ly/plotly-4.1.1.min"</script>\n')
    assert ercot_docs.is_plotly_loader(loader)
    assert not ercot_docs.is_plotly_loader(loader + "<div>a table</div>")
    assert not ercot_docs.is_plotly_loader("<table><tr><td>cdn.plot.ly</td></tr></table>")


def test_readme_names_the_binder_repository_in_one_place():
    """Every Binder URL of the README is a link definition, all for one repository."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    import re

    urls = re.findall(r"https://mybinder\.org/v2/gh/[^\s)\]]+", text)
    definitions = re.findall(r"^\[binder-[a-z]+\]:\s*(https://mybinder\.org/\S+)\s*$", text, re.M)
    assert sorted(urls) == sorted(definitions) and len(definitions) == 2, urls
    assert len({re.match(r"https://mybinder\.org/v2/gh/([^/]+/[^/]+)/", u).group(1) for u in urls}) == 1


# ----------------------------------------------------------------------------- the build
class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for key in ("id", "name") if tag == "a" else ("id",):
            if values.get(key):
                self.ids.add(values[key])
        for key in ("href", "src"):
            if values.get(key) and not (tag == "iframe" and key == "src"):
                self.links.append(values[key])


def broken_internal_links(site: Path) -> list[str]:
    """Relative href/src of every page that miss their file or their #anchor."""
    pages: dict[Path, _Links] = {}

    def parsed(path: Path) -> _Links:
        if path not in pages:
            parser = _Links()
            parser.feed(path.read_text(encoding="utf-8", errors="replace"))
            pages[path] = parser
        return pages[path]

    broken = []
    for page in sorted(site.rglob("*.html")):
        if "_static" in page.parts or "_downloads" in page.parts:
            continue
        for link in parsed(page).links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith("//"):
                continue  # external (not checked: the build runs offline)
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            where = f"{page.relative_to(site)}: {link}"
            if not target.is_file():
                broken.append(f"{where} (no file)")
            elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in parsed(target).ids:
                broken.append(f"{where} (no anchor)")
    return broken


def test_tutorial_gallery_has_a_thumbnail_a_launch_and_a_download_per_tutorial(tmp_path):
    import re

    import shutil

    (tmp_path / "notebooks").mkdir()
    for path in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"):
        shutil.copy(path, tmp_path / "notebooks" / path.name)
    notebooks = sorted((tmp_path / "notebooks").glob("*.ipynb"))
    binder = "https://mybinder.org/v2/gh/O/r/HEAD?urlpath=lab/tree/notebooks/01_quickstart.ipynb"
    thumbs = tmp_path / "notebooks" / "_thumbs"
    table = ercot_docs.gallery_markdown(notebooks, thumbs, tmp_path, binder)
    rows = table.splitlines()[2:]
    assert len(rows) == len(notebooks) >= 9
    for notebook, row in zip(notebooks, rows):
        assert row.startswith(f"| ![{notebook.stem}](notebooks/_thumbs/{notebook.stem}.svg) | [")
        assert f"urlpath=lab/tree/notebooks/{notebook.name})" in row
        assert f"{{download}}`download <notebooks/{notebook.name}>`" in row
        svg = (thumbs / f"{notebook.stem}.svg").read_text()
        assert svg.startswith("<svg") and re.search(r"<(circle|polyline|text)", svg)
    evil = ercot_docs.thumbnail_svg(None, '<script>"x"</script>')
    assert "<script>" not in evil and "&lt;script&gt;" in evil


def _guide_table(heading: str) -> list[list[str]]:
    """Rows of the first Markdown table under ``## heading`` of the teacher's guide."""
    text = (DOCS / "grading.md").read_text(encoding="utf-8").split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line.strip("|").split("|") for line in text.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row] for row in rows[2:]]


def test_teachers_guide_points_limits_and_flags_are_those_the_grader_uses(tmp_path):
    """The guide's points table is nbgrader's count of the course; limits and flags are the grader's."""
    import re

    from ercot_nb.exercises import autograde, list_exercises, teacher
    from ercot_nb.exercises.registry import get_exercise

    teacher.write_nbgrader_course(tmp_path, source=ROOT)
    counted = {}
    for name in list_exercises():
        nb = json.loads((tmp_path / "source" / name / f"{name}.ipynb").read_text(encoding="utf-8"))
        counted[name] = sum(c["metadata"]["nbgrader"].get("points", 0) for c in nb["cells"]
                            if c["metadata"].get("nbgrader", {}).get("grade"))
    rows = {row[0]: row for row in _guide_table("Points")}
    assert {name: int(rows[name][3]) for name in list_exercises()} == counted
    assert int(rows["all four"][3]) == sum(counted.values()) == 19
    for name in list_exercises():
        visible = dict(re.findall(r"(\w+) (\d+)", rows[name][1]))
        hidden = dict(re.findall(r"(\w+) (\d+)", rows[name][2]))
        exercise = get_exercise(name)
        assert {k: int(v) for k, v in visible.items()} == exercise.points
        assert {k: int(v) for k, v in hidden.items()} == exercise.hidden_points
    limits = {row[0]: row[1] for row in _guide_table("Time limits")}
    assert limits == {name: f"{get_exercise(name).time_limit:g} s" for name in list_exercises()}
    assert f"get {autograde.SETUP_LIMIT} s" in (DOCS / "grading.md").read_text(encoding="utf-8")
    flags = {row[0].strip("`") for row in _guide_table("Flags")}
    assert flags == set(autograde.FLAGS)
    solutions_notes = (ROOT / "notebooks" / "exercises" / "solutions" / "README.md").read_text(encoding="utf-8")
    assert "19 points in all" in solutions_notes and "16 in all" not in solutions_notes


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = Path(os.environ.get("ERCOT_NB_DOCS_OUT") or tmp_path_factory.mktemp("docs") / "html")
    doctrees = tmp_path_factory.mktemp("doctrees")
    started = time.perf_counter()
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-b", "html",
         "-d", str(doctrees), str(DOCS), str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )
    print(f"docs build: {time.perf_counter() - started:.1f} s")
    assert build.returncode == 0, f"sphinx failed:\n{build.stdout[-4000:]}\n{build.stderr[-8000:]}"
    return out


@pytest.mark.slow
def test_site_builds_and_every_internal_link_resolves(site):
    assert (site / ".nojekyll").is_file(), "GitHub Pages needs .nojekyll (sphinx.ext.githubpages)"
    for page in ["index", "getting-started", "tutorials", "exercises", "teaching", "grading",
                 "algorithm", "benchmarks", "api/index", "notebooks/01_quickstart",
                 "notebooks/09_without_ground_truth", "notebooks/exercises/01_implement_f_sep"]:
        assert (site / f"{page}.html").is_file(), page
    assert not list(site.rglob("solutions*")), "the exercise solutions must stay out of the site"
    assert broken_internal_links(site) == []


@pytest.mark.slow
def test_pages_have_no_unrendered_markdown_and_link_binder_from_the_readme(site):
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    urls = dict(re.findall(r"^\[(binder-[a-z]+)\]:\s*(\S+)\s*$", readme, re.M))
    leftovers = []
    for page in sorted(site.rglob("*.html")):
        if "_static" in page.parts or "_downloads" in page.parts or page.name == "search.html":
            continue
        raw = page.read_text(encoding="utf-8")
        if "NBVAL_" in raw:  # the test runner's cell markers are not for readers
            leftovers.append(f"{page.relative_to(site)}: NBVAL_ marker")
        text = re.sub(r"<(script|style|pre)\b.*?</\1>", "", raw, flags=re.S)
        text = re.sub(r"<[^>]+>", "", text)
        leftovers += [f"{page.relative_to(site)}: {m}" for m in re.findall(r"\{\{[^}]*\}\}|\]\((?:https?:|\.\.?/)[^)]*\)", text)]
    assert leftovers == []
    start = (site / "getting-started.html").read_text(encoding="utf-8")
    for name in ("binder-tutorials", "binder-explorer"):
        assert f'href="{html.escape(urls[name])}"' in start, name


@pytest.mark.slow
def test_api_reference_documents_every_public_name(site):
    import importlib

    missing = []
    for name in ["ERCOT", "StaticEC"]:
        if f'id="ercot_nb.{name}"' not in (site / "api" / "estimators.html").read_text():
            missing.append(f"ercot_nb.{name}")
    for module in ["data", "datasets", "metrics", "baselines", "params", "events", "ensemble",
                   "knee", "hypervolume", "figures", "page", "widgets", "exercises"]:
        page = (site / "api" / f"{module}.html").read_text()
        for name in importlib.import_module(f"ercot_nb.{module}").__all__:
            if f'id="ercot_nb.{module}.{name}"' not in page:
                missing.append(f"ercot_nb.{module}.{name}")
    evolution = [n for n in importlib.import_module("ercot_nb.evolution").__all__ if n not in ("ERCOT", "StaticEC")]
    for module, names in {"result": ["ClusteringResult", "StepResult"], "algorithms": ["make", "estimator_params"],
                          "evolution": evolution}.items():
        page = (site / "api" / f"{module}.html").read_text()
        missing += [f"ercot_nb.{module}.{n}" for n in names if f'id="ercot_nb.{module}.{n}"' not in page]
    assert missing == []


@pytest.mark.slow
@pytest.mark.browser
def test_site_in_chromium_search_and_plotly_figures_work_offline(site):
    from playwright.sync_api import sync_playwright

    shots = Path(os.environ.get("ERCOT_NB_DOCS_SHOTS") or site.parent / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    outside: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM),
                                    args=["--no-sandbox", "--disable-gpu", "--allow-file-access-from-files"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(f"page error: {e}"))

            def block(route):  # the site must not need the network
                outside.append(route.request.url)
                route.abort()

            page.route("http://**/*", block)
            page.route("https://**/*", block)

            page.goto((site / "search.html").as_uri() + "?q=ERCOT")
            page.wait_for_selector("#search-results ul.search li", timeout=60_000)
            hits = page.locator("#search-results ul.search li").count()
            page.screenshot(path=str(shots / "search.png"))
            assert hits >= 5, hits

            drawn_per_page = {}
            for html_page in sorted(site.glob("notebooks/**/*.html")):
                page.goto(html_page.as_uri())
                n_figures = page.locator(".plotly-graph-div").count()
                if n_figures:  # every figure drawn by plotly.js (it adds .js-plotly-plot and an svg)
                    page.wait_for_function(
                        "n => document.querySelectorAll('.plotly-graph-div.js-plotly-plot .main-svg').length"
                        " >= n", arg=n_figures, timeout=60_000)
                drawn_per_page[html_page.stem] = n_figures
                clipped = page.evaluate("() => [...document.querySelectorAll('.ercot-plotly')]"
                                        ".filter(e => e.scrollWidth > e.clientWidth + 1).length")
                assert clipped == 0, f"{html_page.name}: {clipped} figure(s) wider than the page column"
                if html_page.stem in ("01_quickstart", "07_video_segmentation"):
                    page.locator(".plotly-graph-div").first.scroll_into_view_if_needed()
                    page.screenshot(path=str(shots / f"tutorial-{html_page.stem[:2]}.png"))
            print("Plotly figures drawn per page:", drawn_per_page)
            assert drawn_per_page["01_quickstart"] >= 5
            assert sum(n > 0 for n in drawn_per_page.values()) >= 11, drawn_per_page

            page.goto((site / "api" / "estimators.html").as_uri())
            page.wait_for_selector('[id="ercot_nb.ERCOT"]')
            page.screenshot(path=str(shots / "api-estimators.png"))
        finally:
            browser.close()
    assert errors == []
    assert outside == []
