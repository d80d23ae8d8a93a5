"""Animation controls in a real browser: the time label, the slider and the buttons never overlap."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ercot_nb import TemporalDataset, figures
from .plot_helpers import tiny_video

CHROMIUM = Path("/usr/bin/chromium")

pytestmark = pytest.mark.browser  # skipped where /usr/bin/chromium is missing (tests/conftest.py)


def overlap(a: dict, b: dict) -> bool:
    """Whether two bounding boxes (x, y, width, height) intersect."""
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def control_boxes(page, path: Path) -> dict[str, list[dict]]:
    page.goto(path.as_uri())
    page.wait_for_selector(".slider-group .slider-grip-rect")
    boxes = {}
    for name, selector in (("buttons", ".updatemenu-button"), ("grip", ".slider-grip-rect"),
                           ("labels", ".slider-label")):
        boxes[name] = [element.bounding_box() for element in page.query_selector_all(selector)]
    # the current value ("time: ...") is the slider label above the rail
    rail = page.query_selector(".slider-rail-rect").bounding_box()
    boxes["current"] = [box for box in boxes["labels"] if box["y"] + box["height"] <= rail["y"]]
    return boxes


@pytest.fixture(scope="module")
def page():
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        yield browser.new_page(viewport={"width": 1100, "height": 900})
        browser.close()


def animations():
    rng = np.random.default_rng(0)
    data = TemporalDataset.from_arrays([rng.normal(size=(40, 2)) for _ in range(12)],
                                       times=[2000 + t for t in range(12)], name="blobs")
    truth = figures.ground_truth_result(data)
    video = tiny_video()
    return {
        "partition": figures.partition_animation(data, truth),
        "video": figures.video_segmentation_animation(None, video),
    }


@pytest.mark.parametrize("kind", ["partition", "video"])
def test_the_time_label_and_the_slider_keep_clear_of_the_buttons(page, tmp_path, kind):
    path = figures.save_html(animations()[kind], tmp_path / f"{kind}.html")
    boxes = control_boxes(page, path)
    assert len(boxes["buttons"]) == 2 and len(boxes["current"]) == 1 and boxes["grip"]
    for button in boxes["buttons"]:
        assert not overlap(button, boxes["current"][0]), (kind, "time label under a button")
        assert not overlap(button, boxes["grip"][0]), (kind, "slider grip under a button")
