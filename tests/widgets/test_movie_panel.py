"""The Explorer's Movie tab: the shown run as a GIF to download (issue 36)."""
from __future__ import annotations

import base64
import io
import re

import imageio.v3 as iio

from ercot_nb.widgets import Explorer


def test_the_movie_tab_offers_the_shown_run_as_a_gif():
    explorer = Explorer("syn3", params={"pop_size": 20, "n_evaluations": 40}, data_params={"n_steps": 3},
                        views=("partition", "pareto"))
    assert explorer.movie.make() is None  # no run yet: the status says what to do
    assert "Run an algorithm first" in explorer.state.status.text
    explorer.run(wait=True)
    explorer.movie.make(wait=True)
    link = explorer.movie.link.value
    found = re.search(r"download='(ERCOT_1\.gif)' href='data:image/gif;base64,([^']+)'", link)
    assert found, link
    frames = iio.imread(io.BytesIO(base64.b64decode(found.group(2))), index=None, extension=".gif")
    assert frames.shape[0] == 3
    assert explorer.state.status.text.startswith("The movie of ERCOT #1 is ready")
    assert not explorer.movie.button.disabled
