"""A run's steps as an animated GIF and an MP4 (issue 36: take a run away): API, CLI, file rule."""
from __future__ import annotations

import imageio.v2 as imageio
import imageio.v3 as iio
import numpy as np
import pytest

from ercot_nb import ERCOT, datasets
from ercot_nb.cli import main
from ercot_nb.figures.movie import PAIR, movie_frames, write_movie
from ercot_nb.figures.protocol import ViewData
from ercot_nb.figures.views import view

FAST = dict(pop_size=20, n_evaluations=40, seed=0)


@pytest.fixture(scope="module")
def run3():
    data = datasets.load("syn3", seed=0, n_steps=3)
    return ERCOT(**FAST).fit(data).result_, data


def test_a_gif_has_one_frame_per_step_that_changes_with_the_step(run3, tmp_path):
    result, data = run3
    path = write_movie(result, data, tmp_path / "run.gif")
    frames = iio.imread(path, index=None)
    assert frames.shape[0] == len(result) and frames.shape[-1] in (3, 4)
    assert not np.array_equal(frames[0], frames[-1])  # the partition moves
    # partition and front side by side: wider than tall, not blank
    assert frames.shape[2] > 2 * frames.shape[1] and frames[0].std() > 10


def test_an_mp4_plays_its_steps(run3, tmp_path):
    result, data = run3
    path = write_movie(result, data, tmp_path / "run.mp4", view="partition", fps=4)
    with imageio.get_reader(path, format="FFMPEG") as reader:
        frames = [frame for frame in reader]
        assert reader.get_meta_data()["fps"] == 4
    assert len(frames) == len(result) and frames[0].shape[0] % 2 == 0


def test_the_file_rule_and_clear_errors(run3, tmp_path):
    result, data = run3
    mine = tmp_path / "mine.gif"
    mine.write_bytes(b"the user's file")
    with pytest.raises(ValueError, match="already exists"):
        write_movie(result, data, mine)
    assert mine.read_bytes() == b"the user's file"  # never replaced unless asked
    write_movie(result, data, mine, overwrite=True, view="n_clusters")
    assert iio.imread(mine, index=None).shape[0] == len(result)
    with pytest.raises(ValueError, match=r"\.gif or \.mp4"):
        write_movie(result, data, tmp_path / "run.avi")
    with pytest.raises(ValueError, match="unknown view 'scatter'.*partition\\+front"):
        write_movie(result, data, tmp_path / "run.gif", view="scatter")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.gif"]  # no temporary left


def test_a_video_run_draws_its_frames_and_front():
    data = datasets.load("video_mo", seed=0, n_frames=2, scale=0.1)
    result = ERCOT(**FAST).fit(data).result_
    frames = list(movie_frames(result, data, PAIR))
    assert len(frames) == 2 and frames[0].shape == frames[1].shape
    assert len({tuple(pixel) for pixel in frames[0][::7, ::7].reshape(-1, 3)}) > 50  # images, not just dots
    # the front is drawn as tall as the row of video panels (not below a readable 360 px): no
    # blank band under the panels (it was 500 px tall beside a 307 px row)
    height = frames[0].shape[0]
    video_width = int(view("video").figure(ViewData(result, data), 0).layout.width)
    assert height <= 400, frames[0].shape
    video = frames[0][:, :video_width]
    content = np.flatnonzero((video < 250).any(axis=(1, 2)))
    assert height - content[-1] < 70, (height, content[-1])


def test_cli_run_writes_a_movie(tmp_path, capsys):
    path = tmp_path / "syn3.gif"
    code = main(["run", "--dataset", "syn3", "--data-param", "n_steps=2", "--pop-size", "20",
                 "--evaluations", "40", "--movie", str(path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "movie written to" in out and iio.imread(path, index=None).shape[0] == 2
    code = main(["run", "--dataset", "syn3", "--movie", str(tmp_path / "syn3.png")])
    assert code == 2 and "--movie" in capsys.readouterr().err


def test_a_movie_that_another_writer_created_meanwhile_is_kept(run3, tmp_path, monkeypatch):
    """Of two writers of one new movie, one wins: the late one gets the one-line error."""
    from ercot_nb.figures import movie

    result, data = run3
    target = tmp_path / "run.gif"
    encode = movie._encode

    def racing_encode(frames, suffix, fps, path):
        target.write_bytes(b"someone else's")
        encode(frames, suffix, fps, path)

    monkeypatch.setattr(movie, "_encode", racing_encode)
    with pytest.raises(ValueError, match="another writer"):
        write_movie(result, data, target, view="n_clusters")
    assert target.read_bytes() == b"someone else's"
    with pytest.raises(ValueError, match="does not exist"):
        write_movie(result, data, tmp_path / "no" / "such" / "run.gif")
