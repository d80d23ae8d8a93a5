"""Issue 14 in a real browser: click a front member at step 5, "use this partition from here on", then "how sure?".

The Explorer app (Voila) in headless Chromium, as a student uses it: scrub to
step 5, click a member of the first front with another number of clusters
than the knee, press the button, and check that the run shown continues from
that member: the Sankey's clusters and flows before step 5 are unchanged and
those after it changed.  Then "Run the seeds" (3 seeds) shows their
consensus, each point drawn with its agreement as opacity.  Uses the fixtures of tests/browser/conftest.py.
"""
from __future__ import annotations

import json
import time
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .app_harness import open_app
from .test_voila_explorer import STATUS, TIME_LABEL

STEP = 5  # 0-based step index: time 6 of the syn3 scenario the app opens with

SANKEY = """() => {
    const plot = [...document.querySelectorAll('.js-plotly-plot')]
        .find(p => p.querySelector('.gtitle')?.textContent.includes('cluster flow'));
    const flow = (plot.data || []).find(trace => trace.type === 'sankey');
    return JSON.stringify({
        nodes: Array.from(flow.node.customdata || []).map(row => Array.from(row).slice(0, 3)),
        links: Array.from(flow.link.customdata || []).map((row, i) => [row[4], row[1], row[3], flow.link.value[i]]),
    });
}"""

# the per-point opacities of the partition plot's cluster traces (the first plot)
AGREEMENT = """() => JSON.stringify(document.querySelector('.js-plotly-plot').data
    .filter(trace => (trace.name || '').startsWith('cluster ') && trace.x && trace.x.length)
    .map(trace => typeof trace.marker.opacity === 'number' ? [trace.marker.opacity]
        : Array.from(trace.marker.opacity)))"""

PARETO = """() => [...document.querySelectorAll('.js-plotly-plot')]
    .find(p => p.querySelector('.gtitle')?.textContent.includes('final population'))"""

# the pixel position of a first-front member whose number of clusters differs from the knee's
FRONT_MEMBER = f"""() => {{
    const plot = ({PARETO})();
    const knee = plot.data.find(trace => trace.name === 'knee (chosen)');
    const kneeK = knee.customdata[0][1];
    const box = plot.getBoundingClientRect();
    const xa = plot._fullLayout.xaxis, ya = plot._fullLayout.yaxis;
    const found = [];
    for (const trace of plot.data) {{
        if (!/ clusters?$/.test(trace.name || '') || !trace.customdata) continue;
        for (let i = 0; i < trace.customdata.length; i++) {{
            const row = trace.customdata[i];
            if (row[1] === kneeK || trace.marker.symbol[i] !== 'circle') continue;
            found.push({{member: row[0], k: row[1], knee: knee.customdata[0][0], kneeK,
                x: box.left + xa._offset + xa.l2p(trace.x[i]), y: box.top + ya._offset + ya.l2p(trace.y[i])}});
        }}
    }}
    found.sort((a, b) => Math.abs(a.k - kneeK) - Math.abs(b.k - kneeK));  // the nearest other k
    return found.length ? JSON.stringify(found[0]) : null;
}}"""


def by_step(sankey: dict) -> tuple[dict, dict]:
    nodes: dict[int, list] = {}
    for step, label, size in sankey["nodes"]:
        nodes.setdefault(int(step), []).append((int(label), int(size)))
    links: dict[int, list] = {}
    for step, source, target, value in sankey["links"]:
        links.setdefault(int(step), []).append((int(source), int(target), int(value)))
    return ({k: sorted(v) for k, v in nodes.items()}, {k: sorted(v) for k, v in links.items()})


def test_use_a_front_member_from_step_5_on(app_url, browser_context, console_errors, shot, capsys):
    started = time.monotonic()
    context = browser_context(height=2300)
    page = open_app(context, app_url)
    try:
        page.wait_for_function(f"() => ({STATUS})().includes('finished')", timeout=90_000)
        before = by_step(json.loads(page.evaluate(SANKEY)))
        n_steps = len(before[0])

        # scrub to step 5 (time 6) with the keyboard
        handle = page.locator(".widget-slider .noUi-handle").first
        handle.focus()
        for _ in range(n_steps - 1 - STEP):
            handle.press("ArrowLeft")
        page.wait_for_function(f"() => ({TIME_LABEL})() === '{STEP + 1}'", timeout=30_000)
        page.wait_for_function(
            f"() => ({PARETO})()?.querySelector('.gtitle')?.textContent.includes('time {STEP + 1}')",
            timeout=30_000)

        # click a first-front member with another number of clusters than the knee
        target = json.loads(page.evaluate(FRONT_MEMBER))
        page.mouse.click(target["x"], target["y"])
        page.wait_for_function(
            "() => document.querySelector('.js-plotly-plot .gtitle')?.textContent"
            f".includes('member {target['member']} at time {STEP + 1}')", timeout=30_000)

        use = page.get_by_role("button", name="Use this partition from here on")
        page.wait_for_function(
            "() => [...document.querySelectorAll('button')].some(b => "
            "b.textContent.includes('Use this partition from here on') && !b.disabled)",
            timeout=20_000)
        use.click()
        page.wait_for_function(
            f"() => ({STATUS})().includes('member {target['member']} at time {STEP + 1}')"
            f" && ({STATUS})().includes('finished')", timeout=90_000)
        # the new run is shown: its partition at step 5 is the member's, and so is its Sankey
        page.wait_for_function(
            "() => document.querySelector('.js-plotly-plot .gtitle')?.textContent"
            f".includes('partition at time {STEP + 1} ({target['k']} clusters)')", timeout=30_000)
        deadline = time.monotonic() + 30
        while True:
            after = by_step(json.loads(page.evaluate(SANKEY)))
            if after != before or time.monotonic() > deadline:
                break
            page.wait_for_timeout(250)

        # how sure? repeat the run shown with 3 seeds: the consensus is shown, each point's
        # opacity its agreement
        page.locator(".lm-TabBar-tab", has_text="How sure?").first.click()  # a side panel's tab
        seeds = page.locator(".widget-inline-hbox", has_text="seeds").locator("input").first
        seeds.fill("3")
        seeds.press("Enter")
        page.get_by_role("button", name="Run the seeds").click()
        page.wait_for_function(
            f"() => ({STATUS})().includes('3 seeds of #2') && ({STATUS})().includes('finished')",
            timeout=120_000)
        page.wait_for_function(
            "() => document.querySelector('.js-plotly-plot .gtitle')?.textContent.includes('agreement')",
            timeout=30_000)
        # the seeds may agree on every point of the step shown (the last one): look from the
        # first step on for one where some point is drawn fainter
        slider = page.locator(".ercot-nb-scrubber [role=slider]").first
        for t in range(n_steps):
            slider.focus()
            slider.press("Home" if t == 0 else "ArrowRight")
            page.wait_for_function(
                f"() => ({TIME_LABEL})() === '{t + 1}' && document.querySelector('.js-plotly-plot .gtitle')"
                f"?.textContent.includes('at time {t + 1} (')", timeout=30_000)
            try:  # the opacities come with the title's message or just after it
                page.wait_for_function(f"() => JSON.parse(({AGREEMENT})()).flat().some(value => value < 1)",
                                       timeout=3_000)
                break
            except PlaywrightTimeout:
                continue  # every point of step t agrees, or it is not drawn: the assertions say which
        opacities = json.loads(page.evaluate(AGREEMENT))
    finally:
        page.screenshot(path=str(shot), full_page=True)  # end state, or the failure
    elapsed = time.monotonic() - started
    with capsys.disabled():
        print(f"\nadopt flow in the browser: {elapsed:.1f} s; member {target['member']} "
              f"({target['k']} clusters, knee {target['knee']} with {target['kneeK']}); screenshot: {shot}")
    nodes_before, links_before = before
    nodes_after, links_after = after
    # before step 5 nothing changed: the same clusters (label, size) and the same flows
    for t in range(STEP):
        assert nodes_after[t] == nodes_before[t], f"step {t} changed"
        assert links_after.get(t) == links_before.get(t), f"flows into step {t} changed"
    # step 5 is the member's partition, and the steps after it were fitted again from there
    assert len(nodes_after[STEP]) == target["k"] != len(nodes_before[STEP])
    assert any(nodes_after[t] != nodes_before[t] or links_after.get(t) != links_before.get(t)
               for t in range(STEP + 1, n_steps)), "the steps after step 5 did not change"
    # every point drawn with its agreement: one opacity per point, some below full
    points = [value for trace in opacities for value in trace]
    assert opacities and all(len(trace) > 1 for trace in opacities), opacities
    assert all(0 < value <= 1 for value in points) and min(points) < 1
    assert not console_errors, f"errors in the page console: {console_errors[:3]}"
