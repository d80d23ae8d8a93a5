"""Shared style: the cluster palette, deterministic figures, words for labels, escaped data text."""
from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from ercot_nb import ERCOT, TemporalDataset, figures
from .plot_helpers import FAST


def test_cluster_colors_are_distinct_and_indexed_by_label():
    colors = figures.cluster_colors(12)
    assert len(set(colors)) == 12
    assert all(figures.label_color(k) == c for k, c in enumerate(colors))
    n = len(figures.style.PALETTE)
    assert figures.label_color(n + 3) == figures.label_color(3)  # wraps around
    with pytest.raises(ValueError):
        figures.cluster_colors(-1)


def test_figures_are_deterministic_and_carry_no_uids(syn3):
    data, result = syn3
    def build():
        return [
            figures.partition_figure(data, result, 4),
            figures.partition_animation(data, result),
            figures.pareto_figure(result, 4),
            figures.alpha_figure(result, show_pairs=True),
            figures.scores_figure(data, {"ERCOT": result}),
            figures.n_clusters_figure(result, data),
        ]
    first, second = build(), build()
    for a, b in zip(first, second):
        text = a.to_json()
        assert text == b.to_json()
        assert '"uid"' not in text
        layout = json.loads(text)["layout"]
        assert layout["template"]["layout"]["paper_bgcolor"] == "white"
        assert layout["title"]["text"]
        assert layout["width"] <= 800 and layout["height"] <= 700


def test_builders_accept_a_fitted_estimator(syn3):
    data, _ = syn3
    model = ERCOT(seed=0, **FAST).fit(data[:3])
    assert len(figures.alpha_figure(model).data[0].x) == 3
    with pytest.raises(TypeError):
        figures.alpha_figure(ERCOT())


def visible_texts(fig) -> list[str]:
    """Every text a reader sees: titles, axis titles, legend names, annotations, hover templates."""
    layout = fig.layout.to_plotly_json()
    texts = [layout.get("title", {}).get("text", "")]
    for key, value in layout.items():
        if key.startswith(("xaxis", "yaxis")) or key == "legend":
            texts.append(value.get("title", {}).get("text", ""))
        if key == "scene":
            texts += [value.get(f"{axis}axis", {}).get("title", {}).get("text", "") for axis in "xyz"]
    texts += [a.get("text", "") for a in layout.get("annotations", ())]
    for tr in fig.data:
        texts += [tr.name or "", getattr(tr, "hovertemplate", None) or ""]
    return [text for text in texts if isinstance(text, str)]


CODE_NAME = re.compile(r"\b[a-z]+_[a-z0-9_]+\b|\bk = ")


def test_labels_are_words_not_code_names(syn3):
    data, result = syn3
    t = 5
    member = next(m for m in range(len(result[t].population)) if m != result[t].knee)
    built = [
        figures.pareto_figure(result, t), figures.pareto_frame(result, t),
        figures.pareto_comparison_figure(result, t, selected=member),
        figures.alpha_figure(result, show_pairs=True, t=t),
        figures.scores_figure(data, {"ERCOT": result}, "NMI", t=t),
        figures.n_clusters_figure(result, data), figures.sankey_figure(result, t=t),
        figures.partition_figure(data, result, t, member=member),
        figures.membership_figure(result, data),
    ]
    for fig in built:
        for text in visible_texts(fig):
            assert not CODE_NAME.search(text), (fig.layout.title.text, text)


def strings(value):
    """Every string inside a figure's JSON (the JSON text itself escapes "<")."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def test_text_from_data_is_escaped_in_every_figure():
    """Names, ids, labels and times from a file reach titles, legends and hover as text."""
    attack = "<img src=x onerror=alert(1)>"
    rng = np.random.default_rng(0)
    frames = []
    for t in range(3):
        for i in range(12):
            frames.append({"time": f"day {t}", "id": f"{attack}{i}", "a": rng.normal(), "b": rng.normal(),
                           "c": rng.normal(), "group": attack if i % 2 else "plain"})
    table = pd.DataFrame(frames).rename(columns={"a": attack})
    data = TemporalDataset.from_frame(table, time="time", id="id", features=[attack, "b", "c"],
                                      label="group", name=attack)
    truth = figures.ground_truth_result(data)
    truth.algorithm = attack
    built = [
        figures.partition_figure(data, truth, 1), figures.partition_figure(data, truth, 1, projection="3d"),
        figures.partition_animation(data, truth), figures.alpha_figure(truth, t=1),
        figures.scores_figure(data, {attack: truth}, t=1), figures.n_clusters_figure(truth, data),
        figures.sankey_figure(truth, t=1), figures.membership_figure(truth, data, only_movers=False),
    ]
    for fig in built:
        texts = list(strings(json.loads(fig.to_json())))
        assert not [text for text in texts if "<img" in text], fig.layout.title.text
        assert [text for text in texts if "&lt;img" in text]


def test_a_long_message_is_wrapped_to_fit_a_narrow_view() -> None:
    # a 340 px view cut "no final population: this run has no Pareto front (...)" on both sides
    from ercot_nb.figures.style import message_annotation

    text = "no final population: this run has no Pareto front (a baseline or a consensus keeps none)"
    lines = message_annotation(text)["text"].split("<br>")
    assert len(lines) > 1 and max(map(len, lines)) <= 40
    assert " ".join(lines) == text
    assert message_annotation("no flow yet")["text"] == "no flow yet"
