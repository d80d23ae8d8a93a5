"""A seeded random flow of user actions on the Explorer's page, checked after every action (issue 32).

:class:`Flow` drives one Explorer page (any front end of front_ends.py) as a user would,
in an order drawn from a seeded ``random.Random``: a small video (video_mo) run, then a 2-D
scenario run, and among them, in random order, scrubbing the time slider with the keyboard,
a click on a member of the Pareto front, "Use this partition from here on" and "How sure?".
It keeps a model of what the page must show (the dataset, the run shown, the time step) and
after every action waits until the page agrees with it, or records what it shows instead:

* every visible view that shows data names the current dataset in its title, and each view of
  one run (all but the scores, which compare the runs) names the shown run's algorithm;
* every time step a title names is the time slider's (the partition's "at time T");
* the 3-D/2-D toggle says what the partition plot is (a 3-D scene or a plane);
* no view is left on its placeholder once the run has steps;
* the member-dependent views agree with the partition shown (its number of clusters K):
  the number-of-clusters line, the cluster sizes and the cluster flow at the slider's step;
* the console logged no error.

Problems are collected (action, what was expected, what was shown), so that one run of the
flow reports every broken view at once; :meth:`Flow.report` lists them with the sequence
that led there (the repro).
"""
from __future__ import annotations

import json
import random
import re
import time
from dataclasses import dataclass, field

from .test_voila_explorer import STATUS, TIME_LABEL, _choose, _field, _tab

RUN_BUTTON = re.compile(r"Run$")
SETTLE_MS = 15_000  # how long the page may take to agree with the model after an action
SLIDER = ".ercot-nb-scrubber [role=slider]"

# What the page shows, checked against ``expect`` = {dataset, algorithm, ran, views}: a list of
# problems (empty when every check holds).  ``views`` are the view names in layout order.
CHECK = f"""(expect) => {{
    const problems = [];
    const plots = [...document.querySelectorAll('.js-plotly-plot')].filter(p => p.offsetParent !== null);
    if (plots.length !== expect.views.length)
        return [`${{plots.length}} views visible, not ${{expect.views.length}}`];
    const time = ({TIME_LABEL})();
    const named = plot => [...(plot.closest('[class*="ercot-nb-view-"]')?.classList || [])]
        .map(name => name.match(/^ercot-nb-view-(.+)$/)).find(Boolean)?.[1];
    const views = plots.map(plot => ({{
        name: named(plot), plot, title: plot.querySelector('.gtitle')?.textContent ?? '',
        placeholder: /Run an algorithm to|Load data to/.test(plot.textContent)}}));
    if (views.map(view => view.name).sort().join() !== [...expect.views].sort().join())
        return [`views visible: ${{views.map(view => view.name)}}, not ${{expect.views}}`];
    const partition = views.find(view => view.name === 'partition');
    for (const view of views) {{
        if (view.placeholder) {{
            if (expect.ran) problems.push(`${{view.name}} still on its placeholder: "${{view.title}}"`);
            continue;
        }}
        if (!view.title.includes(expect.dataset))
            problems.push(`${{view.name}} title does not name ${{expect.dataset}}: "${{view.title}}"`);
        if (expect.algorithm && view.name !== 'scores' && !view.title.includes(expect.algorithm))
            problems.push(`${{view.name}} title does not name the run's ${{expect.algorithm}}: "${{view.title}}"`);
        for (const match of view.title.matchAll(/time (\\d+)/g))
            if (match[1] !== time)
                problems.push(`${{view.name}} title at time ${{match[1]}}, the slider at ${{time}}: "${{view.title}}"`);
    }}
    if (!partition.title.includes('at time ' + time + ' '))
        problems.push(`the partition is not at the slider's time ${{time}}: "${{partition.title}}"`);
    if (expect.ran === !!partition.title.includes('ground truth'))
        problems.push(`the partition ${{expect.ran ? 'still shows' : 'does not show'}} the ground truth: "${{partition.title}}"`);
    const toggle = [...document.querySelectorAll('.widget-toggle-buttons')]
        .find(t => t.textContent.includes('first two features') && t.offsetParent !== null);
    if (toggle) {{
        const active = toggle.querySelector('button.mod-active')?.textContent ?? '';
        const scene = (partition.plot.data || []).some(trace => trace.type === 'scatter3d');
        if (active.includes('3-D') !== scene)
            problems.push(`the axes toggle says "${{active}}" but the partition is ${{scene ? '3-D' : '2-D'}}`);
    }}
    if (!expect.ran) return problems;
    const byName = Object.fromEntries(views.map(view => [view.name, view]));
    const line = (byName.n_clusters?.plot.data || []).find(trace => /chosen/.test(trace.name || ''));
    if (expect.step !== null) {{  // the slider was moved to this step: the time label follows it
        const now = +document.querySelector({json.dumps(SLIDER)}).getAttribute('aria-valuenow');
        const label = line ? String(Array.from(line.x)[expect.step]) : null;
        if (now !== expect.step || label !== time)
            problems.push(`the slider at step ${{now}} (time ${{label}}), the time label says ${{time}}; asked step ${{expect.step}}`);
    }}
    // the member-dependent views at the slider's step agree with the partition's K clusters
    const k = +(partition.title.match(/(\\d+) clusters?/) || [])[1];
    const step = line ? Array.from(line.x).map(String).indexOf(time) : -1;
    if (line && (step < 0 || +line.y[step] !== k))
        problems.push(`number of clusters at time ${{time}}: ${{step < 0 ? 'none' : line.y[step]}}, the partition shows ${{k}}`);
    if (byName.sizes && step >= 0) {{
        const sizes = byName.sizes.plot.data.filter(trace => /^cluster /.test(trace.name || ''))
            .filter(trace => +trace.y[Array.from(trace.x).map(String).indexOf(time)] > 0).length;
        if (sizes !== k) problems.push(`cluster sizes at time ${{time}}: ${{sizes}} clusters, the partition shows ${{k}}`);
    }}
    const sankey = (byName.flows?.plot.data || []).find(trace => trace.type === 'sankey');
    if (sankey && step >= 0) {{
        const nodes = Array.from(sankey.node.customdata || []).filter(row => +row[0] === step && +row[2] > 0).length;
        if (nodes !== k) problems.push(`cluster flow at time ${{time}}: ${{nodes}} clusters, the partition shows ${{k}}`);
    }}
    return problems;
}}"""

# every status line the page shows, kept in window.__statuses (a message lasts until the next)
RECORD_STATUSES = f"""() => {{
    if (window.__statuses) return;
    window.__statuses = [];
    const note = () => {{
        const text = ({STATUS})();
        if (text && window.__statuses[window.__statuses.length - 1] !== text) window.__statuses.push(text);
    }};
    new MutationObserver(note).observe(document.body, {{subtree: true, childList: true, characterData: true}});
    note();
}}"""

PARETO = """() => [...document.querySelectorAll('.js-plotly-plot')].filter(p => p.offsetParent !== null)
    .find(p => p.querySelector('.gtitle')?.textContent.includes('final population'))"""

# the first-front members of the Pareto plot that a click reaches (no other point, nor the knee's
# star, within 12 px): member, K, and where to click it
FRONT = f"""() => {{
    const plot = ({PARETO})();
    if (!plot) return '[]';
    const box = plot.getBoundingClientRect();
    const scale = box.width / plot.offsetWidth;  // a scaled layout (CSS transform): screen px per plot px
    const xa = plot._fullLayout.xaxis, ya = plot._fullLayout.yaxis;
    const points = [];
    for (const trace of plot.data) {{
        const knee = trace.name === 'knee (chosen)';
        if (!(knee || / clusters?$/.test(trace.name || '')) || !trace.customdata) continue;
        for (let i = 0; i < trace.customdata.length; i++) {{
            const symbol = typeof trace.marker.symbol === 'string' ? trace.marker.symbol : trace.marker.symbol[i];
            points.push({{member: trace.customdata[i][0], k: trace.customdata[i][1],
                front: !knee && symbol === 'circle', knee,
                x: box.left + scale * (xa._offset + xa.l2p(trace.x[i])),
                y: box.top + scale * (ya._offset + ya.l2p(trace.y[i]))}});
        }}
    }}
    const kneeMember = points.find(p => p.knee)?.member;
    const alone = p => points.every(q => q === p || (q.member === p.member && !q.knee)
        || Math.hypot(q.x - p.x, q.y - p.y) > 12);
    return JSON.stringify(points.filter(p => p.front && p.member !== kneeMember && alone(p)));
}}"""

SHOWN_RUN = """() => [...document.querySelectorAll('.widget-dropdown')]
    .find(d => d.querySelector('label')?.textContent === 'show run')?.querySelector('select').value"""


@dataclass
class Flow:
    """One page's flow: the model of what it shows, the actions done, the problems seen."""

    page: object
    views: tuple[str, ...]
    console: list[str]
    seed: int
    dataset: str = "syn3"
    algorithm: str | None = "ERCOT"  # of the run shown; None: the ground truth
    member: dict | None = None  # the Pareto member picked at the current step
    adopted: tuple[str, str] | None = None  # (time, member) of the shown run's adoption
    done: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    _errors_seen: int = 0
    seconds: list[tuple[float, float]] = field(default_factory=list)  # each action's, and its check's

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self._clock = time.monotonic()
        self._errors_seen = len(self.console)  # the flow's own: the test checks the others
        self.page.evaluate(RECORD_STATUSES)

    # -- checks ----------------------------------------------------------------------------
    def check(self, action: str, *, ran: bool = True, step: int | None = None) -> None:
        """After ``action``: wait until the page agrees with the model, or record what it shows.

        ``step``: the slider's step the action asked for (the time label and every view follow it).
        """
        self.done.append(action)
        expect = {"dataset": self.dataset, "algorithm": self.algorithm if ran else None,
                  "ran": ran, "views": list(self.views), "step": step}
        checking = time.monotonic()
        try:
            self.page.wait_for_function(f"(expect) => ({CHECK})(expect).length === 0", arg=expect,
                                        timeout=SETTLE_MS)
        except Exception:  # playwright's TimeoutError: say what is shown instead
            for problem in self.page.evaluate(f"(expect) => ({CHECK})(expect)", expect):
                self._problem(problem)
        errors = self.console[self._errors_seen:]
        self._errors_seen = len(self.console)
        for error in errors:
            self._problem(f"console error: {error[:300]}")
        now = time.monotonic()
        self.seconds.append((checking - self._clock, now - checking))
        self._clock = now

    def _problem(self, text: str) -> None:
        self.problems.append(f"after {len(self.done)}. {self.done[-1]}: {text}")

    def report(self) -> str:
        steps = "\n".join(f"  {i}. {action} ({act:.1f} s + check {check:.1f} s)"
                          for i, (action, (act, check)) in enumerate(zip(self.done, self.seconds), 1))
        found = "\n".join(f"  - {problem}" for problem in self.problems)
        return f"flow seed {self.seed}, actions:\n{steps}\nproblems:\n{found or '  none'}"

    def _status(self) -> str:
        return self.page.evaluate(STATUS)

    def _statuses(self) -> list[str]:
        return self.page.evaluate("() => window.__statuses.slice()")

    # -- actions ---------------------------------------------------------------------------
    def load(self, name: str, **entries) -> None:
        _choose(self.page, name, **entries)
        if entries.get("frames"):  # the form's entries were loaded: the data has that many steps
            self.page.wait_for_function(
                "(text) => [...document.querySelectorAll('.widget-html-content')]"
                ".some(n => n.textContent.includes(text))", arg=f"{entries['frames']} steps", timeout=60_000)
        self.dataset, self.algorithm, self.member, self.adopted = name, None, None, None
        self.check(f"load {name}" + "".join(f", {k}={v}" for k, v in entries.items()), ran=False)

    def run(self) -> None:
        page = self.page
        page.wait_for_function(  # a dropped run ends after its current step
            "() => !document.querySelector('.widget-button.mod-success').disabled", timeout=120_000)
        before = len(self._statuses())
        page.get_by_role("button", name=RUN_BUTTON).click()
        page.wait_for_function(  # a new "finished" line, after this click
            "(before) => window.__statuses.slice(before).some(s => s.includes('finished'))",
            arg=before, timeout=180_000)
        self.algorithm, self.member, self.adopted = "ERCOT", None, None
        self.check(f"Run on {self.dataset}")

    def scrub(self) -> None:
        page = self.page
        handle = page.locator(SLIDER).first
        low, high, now = (int(float(handle.get_attribute(name)))
                          for name in ("aria-valuemin", "aria-valuemax", "aria-valuenow"))
        key = self.rng.choice([key for key, moves in (("ArrowLeft", now > low), ("ArrowRight", now < high),
                                                      ("Home", now > low), ("End", now < high)) if moves])
        presses = self.rng.randint(1, 4) if key.startswith("Arrow") else 1
        target = {"Home": low, "End": high}.get(key, now + presses * (1 if key == "ArrowRight" else -1))
        target = min(max(target, low), high)
        handle.focus()
        for _ in range(presses):
            handle.press(key)
        self.member = None  # a member is picked at one step
        self.check(f"scrub {key} x{presses} (step {now} -> {target})", step=target)

    def pick_member(self) -> bool:
        """Click a first-front member on the Pareto plot (another K than the partition's, if any)."""
        page = self.page
        front = json.loads(page.evaluate(FRONT))
        shown = re.search(r"(\d+) clusters?", page.evaluate(
            "() => [...document.querySelectorAll('.js-plotly-plot')].find(p => p.offsetParent !== null)"
            ".querySelector('.gtitle')?.textContent ?? ''"))
        others = [m for m in front if shown is None or m["k"] != int(shown.group(1))]
        if not front:
            return False  # every member lies under another point or the knee's star
        target = self.rng.choice(others or front)
        time = page.evaluate(TIME_LABEL)
        page.mouse.click(target["x"], target["y"])
        self.member = {**target, "time": time}
        try:
            page.wait_for_function(
                "(text) => [...document.querySelectorAll('.js-plotly-plot')].find(p => p.offsetParent !== null)"
                ".querySelector('.gtitle')?.textContent.includes(text)",
                arg=f"member {target['member']} at time {time}", timeout=SETTLE_MS)
        except Exception:
            self.done.append(f"click Pareto member {target['member']} ({target['k']} clusters) at time {time}")
            self._problem("the partition's title does not name the member clicked")
            self.done.pop()
            self.member = None
        self.check(f"click Pareto member {target['member']} ({target['k']} clusters) at time {time}")
        shown = re.search(r"(\d+) clusters?", page.evaluate(
            "() => [...document.querySelectorAll('.js-plotly-plot')].find(p => p.offsetParent !== null)"
            ".querySelector('.gtitle')?.textContent ?? ''"))
        if shown is None or int(shown.group(1)) != target["k"]:  # the mark says what the partition shows
            self._problem(f"the member's mark says {target['k']} clusters, the partition shows "
                          f"{shown.group(1) if shown else 'none'}")
        return True

    def adopt(self) -> None:
        page, member = self.page, self.member
        page.wait_for_function(
            "() => [...document.querySelectorAll('button')].some(b => "
            "b.textContent.includes('Use this partition from here on') && !b.disabled)", timeout=SETTLE_MS)
        before = len(self._statuses())
        page.get_by_role("button", name="Use this partition from here on").click()
        page.wait_for_function(
            "([before, text]) => window.__statuses.slice(before).some(s => s.includes(text) && s.includes('finished'))",
            arg=[before, f"member {member['member']} at time {member['time']}"], timeout=120_000)
        self.adopted, self.member = (member["time"], str(member["member"])), None
        self.check(f"use member {member['member']} at time {member['time']} from here on")
        # the new run is shown at the member's step, with the member's partition there
        time = page.evaluate(TIME_LABEL)
        title = page.evaluate(
            "() => [...document.querySelectorAll('.js-plotly-plot')].find(p => p.offsetParent !== null)"
            ".querySelector('.gtitle')?.textContent ?? ''")
        if time != member["time"] or f"at time {member['time']} ({member['k']} cluster" not in title:
            self._problem(f"the adopted run is not shown at the member's step with its {member['k']} "
                          f"clusters: slider at {time}, partition \"{title}\"")

    def how_sure(self) -> None:
        page = self.page
        shown = page.evaluate(SHOWN_RUN)
        _tab(page, "Parameters")
        own = int(_field(page, "seed").input_value())
        _tab(page, "How sure?")
        n_seeds = 2  # the fewest: the flow is about what the page shows
        seeds = page.locator(".widget-inline-hbox", has_text="seeds").locator("input").first
        seeds.fill(str(n_seeds))
        seeds.press("Enter")
        before = len(self._statuses())
        page.get_by_role("button", name="Run the seeds").click()
        number = re.match(r"\S+ (#\d+)", shown).group(1)
        page.wait_for_function(
            "([before, text]) => window.__statuses.slice(before).some(s => s.includes(text) && s.includes('finished'))",
            arg=[before, f"{n_seeds} seeds of {number}"], timeout=120_000)
        _tab(page, "Data")
        self.algorithm, self.member = "consensus", None
        self.check(f"How sure? {n_seeds} seeds of {shown!r} (its seed {own})")
        fitting = [s for s in self._statuses()[before:] if "with seeds" in s]
        used = re.search(r"with seeds (\d+)-(\d+)", fitting[0]) if fitting else None
        if not fitting or not fitting[0].startswith(f"Fitting {shown}'s algorithm"):
            self._problem(f"How sure? does not say it repeats the run shown ({shown}): {fitting}")
        elif used is None or int(used.group(2)) - int(used.group(1)) + 1 != n_seeds \
                or int(used.group(1)) <= own <= int(used.group(2)):
            self._problem(f"How sure? with {n_seeds} seeds other than {own} used: {fitting[0]}")
        self.adopted = None

    # -- the random flow -------------------------------------------------------------------
    def play(self, *, video: str = "video_mo", flat: str = "syn2", length: int = 10) -> None:
        """A video run, then a 2-D run; around them scrubs, Pareto clicks, adoptions, How sure?."""
        self.load(video, frame_scale=0.25, frames=3)
        self.run()
        for action in self.rng.sample([self.scrub, self.pick_member], self.rng.randint(1, 2)):
            action()
        self.load(flat)
        self.run()
        pending = {"scrub", "pick_member", "adopt", "how_sure"}
        for count in range(length):
            if not pending and self.rng.random() < 0.5:
                break
            enabled = ["scrub", "run"]
            if self.algorithm == "ERCOT":
                enabled += ["pick_member", "how_sure"] + (["adopt"] if self.member else [])
            choice = self.rng.choice(sorted(set(enabled) & pending) or enabled)
            if choice == "how_sure" and "adopt" in pending:  # How sure? on an adopted run, too
                choice = "adopt" if self.member else "pick_member"
            if choice == "pick_member" and not self.pick_member():
                self.scrub()  # no member stands alone at this step: another step
                continue
            pending.discard(choice)
            if choice != "pick_member":
                getattr(self, choice)()
        if pending:
            self.problems.append(f"the flow never did {sorted(pending)} in {length} actions")
