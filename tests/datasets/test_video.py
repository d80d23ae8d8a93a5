"""Tests of the procedural video scenes and load_video (ercot_nb.datasets._video)."""
from __future__ import annotations

import sys

import numpy as np
import pytest

from ercot_nb import ERCOT, datasets
from ercot_nb.datasets import _video, load_video, oracle_partition
from ercot_nb.metrics import mean_scores, rand_index

SCENES = {  # name: (W, H, frames, true number of segments per frame)
    "video_bt": (320, 240, 12, [4, 4, 4, 5, 5, 5, 4, 4, 4, 5, 5, 5]),
    "video_mo": (160, 120, 9, [7] * 9),
    "video_rc": (640, 360, 8, [3, 3, 3, 3, 4, 4, 4, 4]),
}
ORACLE_BAND = (0.85, 0.95)  # documented in the report: nearest-true-mean mRI, seed 0


@pytest.fixture(scope="module")
def full():
    return {name: datasets.load(name, seed=0) for name in SCENES}


def _label_maps(dataset):
    height, width = dataset.metadata["frame_shape"]
    return [snapshot.labels.reshape(height, width) for snapshot in dataset]


# --- contract ---------------------------------------------------------------


@pytest.mark.parametrize("name", list(SCENES))
def test_contract_at_paper_size(full, name):
    width, height, n_frames, _ = SCENES[name]
    data = full[name]
    assert name in datasets.available()
    assert len(data) == n_frames and data.times == list(range(1, n_frames + 1))
    assert data.feature_names == ["r", "g", "b"]
    ids = np.arange(width * height, dtype=np.int64)
    for snapshot in data:
        assert snapshot.ids.dtype == np.int64 and np.array_equal(snapshot.ids, ids)
        assert snapshot.X.shape == (width * height, 3)
        assert snapshot.X.min() >= 0.0 and snapshot.X.max() <= 1.0
        assert snapshot.labels.dtype == np.int64
    meta = data.metadata
    assert meta["kind"] == "video" and meta["frame_shape"] == (height, width)
    assert all(type(v) is int for v in meta["frame_shape"])
    assert meta["k"] is None and meta["source"] == "procedural"
    assert meta["params"]["seed"] == 0 and meta["params"]["scale"] == 1.0
    assert set(meta["params"]) >= {"seed", "scale", "noise", "position", "n_frames"}
    assert name in meta["description"] and "id = row * W + col" in meta["description"]
    assert len(meta["segment_names"]) == max(SCENES[name][3])
    assert len(meta["true_means"]) == len(meta["true_mean_labels"]) == n_frames


def test_paper_numbers():
    assert _video.video_bt(0, scale=0.1).metadata["paper"] == {
        "ERCOT_mRI": 0.7335, "staticEC_mRI": 0.7157}
    assert _video.video_mo(0, scale=0.1).metadata["paper"] == {
        "ERCOT_mRI": 0.7163, "staticEC_mRI": 0.6399,
        "ERCOT_seconds_per_step": 1.9953, "staticEC_seconds_per_step": 1.2170}
    assert _video.video_rc(0, scale=0.1).metadata["paper"] == {
        "ERCOT_mRI": 0.7526, "staticEC_mRI": 0.7297}


def test_position_features_follow_row_major_ids():
    data = datasets.load("video_mo", scale=0.25, position=True, position_weight=2.0)
    height, width = data.metadata["frame_shape"]
    assert data.feature_names == ["r", "g", "b", "row", "col"]
    snapshot = data[3]
    rows, cols = np.divmod(snapshot.ids, width)
    assert np.allclose(snapshot.X[:, 3], 2.0 * rows / (height - 1))
    assert np.allclose(snapshot.X[:, 4], 2.0 * cols / (width - 1))
    plain = datasets.load("video_mo", scale=0.25)
    assert np.array_equal(snapshot.X[:, :3], plain[3].X)  # colours unchanged
    assert data.metadata["true_means"][3].shape == (7, 5)


# --- determinism and noise ----------------------------------------------------


def test_same_seed_identical_other_seed_differs():
    a = datasets.load("video_bt", seed=3, scale=0.25)
    b = datasets.load("video_bt", seed=3, scale=0.25)
    c = datasets.load("video_bt", seed=4, scale=0.25)
    for sa, sb, sc in zip(a, b, c):
        assert np.array_equal(sa.X, sb.X)
        assert np.array_equal(sa.labels, sc.labels)  # geometry is fixed ...
    assert not np.allclose(a[0].X, c[0].X, atol=0.01)  # ... textures and light are seeded


def test_noise_changes_only_the_sensor_noise():
    quiet = datasets.load("video_rc", seed=1, scale=0.25, noise=0.0)
    noisy = datasets.load("video_rc", seed=1, scale=0.25, noise=0.1)
    for index, (q, n) in enumerate(zip(quiet, noisy)):
        assert np.allclose(quiet.metadata["true_means"][index], noisy.metadata["true_means"][index])
        residual = n.X - q.X
        inside = (q.X > 0.3) & (q.X < 0.7)  # away from clipping
        assert residual[inside].std() == pytest.approx(0.1, rel=0.05)
        assert abs(residual[inside].mean()) < 0.005


def test_true_means_are_noise_free_segment_means():
    data = datasets.load("video_bt", seed=2, scale=0.5, noise=0.0)
    for index, snapshot in enumerate(data):
        present = data.metadata["true_mean_labels"][index]
        assert present.tolist() == np.unique(snapshot.labels).tolist()
        expected = np.array([snapshot.X[snapshot.labels == s].mean(axis=0) for s in present])
        assert np.allclose(data.metadata["true_means"][index], expected)


# --- exact ground truth -----------------------------------------------------------


@pytest.mark.parametrize("name", list(SCENES))
def test_number_of_segments_per_frame(full, name):
    expected = SCENES[name][3]
    assert [np.unique(s.labels).size for s in full[name]] == expected
    small = datasets.load(name, scale=0.25)
    assert [np.unique(s.labels).size for s in small] == expected


def test_mo_only_the_chair_moves_and_only_at_t_4_6_8(full):
    maps = _label_maps(full["video_mo"])
    for t in range(2, 10):
        before, after = maps[t - 2], maps[t - 1]
        changed = before != after
        if t in (4, 6, 8):
            assert changed.sum() > 50, t
            # every changed pixel was or became chair; nothing else relabels
            assert np.all((before[changed] == 6) | (after[changed] == 6)), t
        else:
            assert not changed.any(), t
        # the chair keeps its size up to rasterisation
        assert abs((after == 6).sum() - (before == 6).sum()) < 0.1 * (before == 6).sum()
    for label in range(6):  # the static segments are identical whenever the chair is elsewhere
        chair_ever = np.any([m == 6 for m in maps], axis=0)
        assert all(np.array_equal((m == label) & ~chair_ever, (maps[0] == label) & ~chair_ever)
                   for m in maps)


def test_mo_window_is_exactly_its_rectangle(full):
    # window: x in [0.15, 0.45), y in [0.10, 0.40) in frame heights, x = (col + .5) / 120
    window = _label_maps(full["video_mo"])[0] == 2
    rows, cols = np.nonzero(window)
    assert (rows.min(), rows.max(), cols.min(), cols.max()) == (12, 47, 18, 53)
    assert window.sum() == 36 * 36


def test_bt_only_the_lamp_changes(full):
    maps = _label_maps(full["video_bt"])
    lamp_on = [bool((m == 4).any()) for m in maps]
    assert lamp_on == [False] * 3 + [True] * 3 + [False] * 3 + [True] * 3
    for before, after in zip(maps, maps[1:]):
        changed = before != after
        assert set(np.unique(before[changed])) | set(np.unique(after[changed])) <= {3, 4}
    lamp = maps[3] == 4
    assert np.all(maps[0][lamp] == 3)  # an unlit lamp belongs to the lighthouse
    assert 200 < lamp.sum() < 500  # radius 0.045 frame heights: ~pi * 10.8^2 pixels


def test_bt_water_is_dynamic_objects_are_static():
    data = datasets.load("video_bt", seed=0, noise=0.0, scale=0.5)
    maps = _label_maps(data)
    height, width = data.metadata["frame_shape"]
    first, second = (s.X.reshape(height, width, 3) for s in data[:2])
    step = np.abs(second - first).mean(axis=2)
    water, boat = maps[0] == 1, maps[0] == 2
    # the light drifts slowly everywhere, the water texture ripples on top of it
    assert step[water].mean() > 3 * step[boat].mean()


def test_rc_objects_move_and_the_walker_enters(full):
    maps = _label_maps(full["video_rc"])
    car_cols = [np.nonzero(m == 1)[1].mean() for m in maps]
    assert np.all(np.diff(car_cols) == pytest.approx(0.09 * 360, abs=1.0))  # 0.09 H per frame
    ball = [np.argwhere(m == 2).mean(axis=0) for m in maps]
    assert all(b[0] < a[0] and b[1] < a[1] for a, b in zip(ball, ball[1:]))  # up and left
    walker = [(m == 3).sum() for m in maps]
    assert walker[:4] == [0] * 4 and all(w > 0 for w in walker[4:])
    assert maps[4][:, -1].tolist().count(3) > 0  # it comes in at the right edge


def test_rc_background_scrolls():
    data = datasets.load("video_rc", seed=0, noise=0.0, scale=0.5, n_frames=2)
    height, width = data.metadata["frame_shape"]
    first, second = (s.X.reshape(height, width, 3).mean(axis=2) for s in data)
    rows = slice(int(0.88 * height), height)  # bottom band: background only at t = 1, 2
    margin = 20

    def match(shift):  # correlation of frame 2 with frame 1 moved left by ``shift`` pixels
        moved = first[rows, margin + shift : width - margin + shift]
        return np.corrcoef(second[rows, margin:-margin].ravel(), moved.ravel())[0, 1]

    # the texture moves 0.06 frame heights (10.8 pixels here) per frame to the left;
    # correlation ignores the slow change of the light's level between the frames
    best = max(range(-margin, margin), key=match)
    assert abs(best - 0.06 * height) <= 1
    assert match(best) > 0.99 > match(0) + 0.1


@pytest.mark.parametrize("name", list(SCENES))
def test_downscaled_geometry_matches_full_size(full, name):
    small = datasets.load(name, scale=0.5)
    height, width = small.metadata["frame_shape"]
    assert (height, width) == (SCENES[name][1] // 2, SCENES[name][0] // 2)
    for big_map, small_map in zip(_label_maps(full[name]), _label_maps(small)):
        blocks = big_map.reshape(height, 2, width, 2).transpose(0, 2, 1, 3)
        blocks = blocks.reshape(height, width, 4)
        # where a 2 x 2 block is one segment at full size, the small pixel has that segment
        pure = (blocks == blocks[..., :1]).all(axis=2)
        assert pure.mean() > 0.9
        assert np.array_equal(small_map[pure], blocks[..., 0][pure])
        n_segments = max(big_map.max(), small_map.max()) + 1
        share_big = np.bincount(big_map.ravel(), minlength=n_segments) / big_map.size
        share_small = np.bincount(small_map.ravel(), minlength=n_segments) / small_map.size
        assert np.allclose(share_big, share_small, atol=0.01)


# --- oracle -----------------------------------------------------------------------


@pytest.mark.parametrize("name", list(SCENES))
def test_oracle_is_good_but_not_perfect(full, name):
    data = full[name]
    oracle = oracle_partition(data)
    score = mean_scores(data, oracle)["mRI"]
    assert ORACLE_BAND[0] < score < ORACLE_BAND[1], score
    one_cluster = np.mean([rand_index(s.labels, np.zeros(s.n_samples)) for s in data])
    assert one_cluster < ORACLE_BAND[0] - 0.2


# --- parameters ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params, match",
    [
        ({"scale": 0.0}, "scale"),
        ({"scale": 1.5}, "scale"),
        ({"scale": 0.01}, "scale"),
        ({"noise": -0.1}, "noise"),
        ({"noise": float("nan")}, "noise"),
        ({"n_frames": 0}, "n_frames"),
        ({"position_weight": 0}, "position_weight"),
    ],
)
def test_bad_scene_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        datasets.load("video_mo", **params)


def test_a_fractional_frame_count_is_a_type_error():
    with pytest.raises(TypeError, match="n_frames must be an int"):
        datasets.load("video_mo", n_frames=2.5)


def test_position_must_be_bool():
    with pytest.raises(TypeError, match="position"):
        datasets.load("video_mo", scale=0.25, position="yes")


def test_n_frames_extends_the_motion():
    data = datasets.load("video_rc", scale=0.25, n_frames=10)
    assert len(data) == 10
    walker = [(s.labels == 3).sum() for s in data]
    assert walker[-1] > 0 and np.unique(data[-1].labels).size == 4


# --- ERCOT smoke fit -----------------------------------------------------------


def test_ercot_fits_a_downscaled_scene():
    data = datasets.load("video_mo", seed=0, scale=0.25, n_frames=2)
    model = ERCOT(seed=0).fit(data)
    assert len(model.labels_) == 2
    for labels, snapshot in zip(model.labels_, data):
        assert len(labels) == snapshot.n_samples == 40 * 30
        assert 2 <= np.unique(labels).size <= 8
    assert mean_scores(data, model.labels_)["mRI"] > 0.75


# --- load_video ------------------------------------------------------------------


def _clip(n_frames=6, height=24, width=40):
    """Frames whose colour changes per frame and across the width."""
    frames = np.zeros((n_frames, height, width, 3), dtype=np.uint8)
    for t in range(n_frames):
        frames[t, :, : width // 2] = (200, 20 * t, 30)
        frames[t, :, width // 2 :] = (20, 90, 240 - 20 * t)
    return frames


def test_array_source_contract():
    clip = _clip()
    data = load_video(clip)
    assert len(data) == 6 and data.times == list(range(1, 7))
    assert data.feature_names == ["r", "g", "b"] and not data.has_labels
    assert np.array_equal(data[0].ids, np.arange(24 * 40))
    assert np.allclose(data[2].X, clip[2].reshape(-1, 3) / 255.0)
    meta = data.metadata
    assert meta["kind"] == "video" and meta["frame_shape"] == (24, 40)
    assert meta["source_frame_shape"] == (24, 40) and meta["source"] == "array"
    assert meta["fps"] is None and meta["frame_indices"] == list(range(6))
    assert data.name == "video" and load_video(clip, name="mine").name == "mine"
    assert "description" in meta and meta["params"]["stride"] == 1


def test_array_dtypes_grey_and_alpha():
    clip = _clip(2)
    as_float = load_video(clip / 255.0)
    assert np.allclose(as_float[1].X, load_video(clip)[1].X)
    grey = load_video(clip[..., 0])
    assert np.array_equal(grey[0].X[:, 0], grey[0].X[:, 2])
    rgba = np.concatenate([clip, np.full(clip.shape[:3] + (1,), 7, np.uint8)], axis=3)
    assert np.array_equal(load_video(rgba)[1].X, load_video(clip)[1].X)
    deep = load_video(clip.astype(np.uint16) * 257)
    assert np.allclose(deep[0].X, load_video(clip)[0].X)


def test_block_mean_and_area_average():
    rng = np.random.default_rng(0)
    clip = rng.random((2, 12, 18, 3))
    half = load_video(clip, size=(9, 6))
    expected = clip[1].reshape(6, 2, 9, 2, 3).mean(axis=(1, 3))
    assert np.allclose(half[1].X, expected.reshape(-1, 3))
    assert half.metadata["frame_shape"] == (6, 9)
    assert half.metadata["source_frame_shape"] == (12, 18)
    # 18 -> 12 columns: each output column covers 1.5 input columns
    odd = load_video(clip[:, :1, :, :], size=(12, 1))
    row = clip[0, 0]
    assert np.allclose(odd[0].X[0], (row[0] + 0.5 * row[1]) / 1.5)
    assert np.allclose(odd[0].X[1], (0.5 * row[1] + row[2]) / 1.5)
    assert np.allclose(odd[0].X.mean(axis=0), row.mean(axis=0))  # area is conserved
    scaled = load_video(clip, size=0.5)
    assert scaled.metadata["frame_shape"] == (6, 9)
    assert np.allclose(scaled[0].X, half[0].X)


def test_frames_and_stride_selection():
    clip = _clip(10)
    data = load_video(clip, stride=3)
    assert data.metadata["frame_indices"] == [0, 3, 6, 9]
    assert np.allclose(data[1].X, clip[3].reshape(-1, 3) / 255)
    assert load_video(clip, frames=2, stride=3).metadata["frame_indices"] == [0, 3]
    assert load_video(clip, frames=slice(2, 8), stride=2).metadata["frame_indices"] == [2, 4, 6]
    assert load_video(clip, frames=slice(-3, None)).metadata["frame_indices"] == [7, 8, 9]


def test_position_features():
    data = load_video(_clip(2), size=(20, 12), position=True)
    assert data.feature_names == ["r", "g", "b", "row", "col"]
    assert data[0].X[:, 3].max() == pytest.approx(0.5) and data[0].X[:, 4].min() == 0.0
    last = data[0].X[-1]
    assert last[3] == pytest.approx(0.5) and last[4] == pytest.approx(0.5)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"stride": 0}, "stride"),
        ({"frames": 0}, "frames"),
        ({"frames": slice(0, 4, -1)}, "frames"),
        ({"size": (0, 5)}, "size"),
        ({"size": (80, 24)}, "size"),
        ({"size": 1.5}, "size"),
        ({"size": "big"}, "size"),
        ({"frames": slice(20, 30)}, "no frame selected"),
        ({"position_weight": -1.0}, "position_weight"),
    ],
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        load_video(_clip(), **kwargs)


@pytest.mark.parametrize("kwargs", [{"stride": 1.5}, {"stride": True}, {"frames": True}, {"position_weight": True},
                                    {"position": 1}])
def test_arguments_of_the_wrong_type_are_type_errors_naming_them(kwargs):
    (name,) = kwargs
    with pytest.raises(TypeError, match=rf"load_video: {name} must be"):
        load_video(_clip(), **kwargs)


def test_bad_arrays():
    with pytest.raises(ValueError, match="source array"):
        load_video(np.zeros((4, 5)))
    with pytest.raises(ValueError, match="no frame selected"):
        load_video(np.zeros((0, 4, 4, 3)))
    with pytest.raises(ValueError, match=r"shape \(H, W\)"):
        load_video(np.zeros((2, 4, 4, 2)))
    nan = np.zeros((2, 4, 4, 3))
    nan[1, 2, 2, 0] = np.nan
    with pytest.raises(ValueError, match="frame 1 of source array.*non-finite"):
        load_video(nan)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        load_video(np.full((2, 4, 4, 3), 2.0))
    with pytest.raises(ValueError, match="dtype"):
        load_video(np.zeros((2, 4, 4, 3), dtype=np.int32))
    with pytest.raises(TypeError, match="source"):
        load_video(42)


# --- files (imageio) -------------------------------------------------------------------


iio = pytest.importorskip("imageio.v3")


def test_mp4_round_trip(tmp_path):
    clip = _clip(8, height=48, width=64)
    path = tmp_path / "clip.mp4"
    iio.imwrite(path, clip, fps=10)
    data = load_video(path)
    assert len(data) == 8 and data.metadata["frame_shape"] == (48, 64)
    assert data.metadata["fps"] == pytest.approx(10.0)
    assert data.metadata["source"] == str(path) and data.name == "clip"
    # lossy codec: compare away from the colour edge in the middle
    frame = data[5].X.reshape(48, 64, 3)
    truth = clip[5] / 255.0
    assert np.abs(frame[:, 4:28] - truth[:, 4:28]).mean() < 0.04
    assert np.abs(frame[:, 36:60] - truth[:, 36:60]).mean() < 0.04
    small = load_video(path, size=(16, 12), stride=3, frames=2)
    assert small.metadata["frame_indices"] == [0, 3]
    assert small.metadata["frame_shape"] == (12, 16)
    assert small.metadata["source_frame_shape"] == (48, 64)
    assert np.abs(small[1].X.reshape(12, 16, 3)[:, 1:7] - clip[3, 0, 0] / 255).mean() < 0.05


def test_gif_round_trip(tmp_path):
    clip = _clip(4)
    path = tmp_path / "clip.gif"
    iio.imwrite(path, clip, duration=100, loop=0)
    data = load_video(str(path))
    assert len(data) == 4
    assert np.abs(data[3].X - clip[3].reshape(-1, 3) / 255).max() < 0.02  # palette
    assert data.metadata["fps"] == pytest.approx(10.0)


def test_image_folder_and_list(tmp_path):
    clip = _clip(3)
    paths = []
    for t in range(3):
        paths.append(tmp_path / f"frame_{t:02d}.png")
        iio.imwrite(paths[-1], clip[t])
    (tmp_path / "notes.txt").write_text("not an image")
    folder = load_video(tmp_path)
    assert len(folder) == 3 and folder.name == tmp_path.name
    assert np.allclose(folder[2].X, clip[2].reshape(-1, 3) / 255)  # PNG is lossless
    listed = load_video([paths[2], paths[0]])
    assert np.allclose(listed[0].X, clip[2].reshape(-1, 3) / 255)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="no image files"):
        load_video(empty)


def test_corrupt_file_names_the_file(tmp_path):
    path = tmp_path / "broken.mp4"
    path.write_bytes(np.random.default_rng(0).bytes(4096))
    with pytest.raises(ValueError, match="broken.mp4") as info:
        load_video(path)
    assert info.value.__cause__ is not None  # the reader's error is chained
    assert len(str(info.value)) < 500  # not ffmpeg's whole log


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # imageio tries legacy plugins
def test_corrupt_image_in_list_names_it(tmp_path):
    good = tmp_path / "a.png"
    iio.imwrite(good, _clip(1)[0])
    bad = tmp_path / "b.png"
    bad.write_bytes(b"not a png at all")
    with pytest.raises(ValueError, match="b.png"):
        load_video([good, bad])


def test_missing_file(tmp_path):
    path = tmp_path / "nowhere.mp4"
    with pytest.raises(FileNotFoundError, match="nowhere.mp4"):
        load_video(path)
    with pytest.raises(FileNotFoundError, match="gone.png"):
        load_video([tmp_path / "gone.png"])


def test_without_imageio_files_fail_clearly_arrays_work(monkeypatch, tmp_path):
    path = tmp_path / "clip.gif"
    iio.imwrite(path, _clip(2), duration=100)
    for module in [m for m in sys.modules if m == "imageio" or m.startswith("imageio.")]:
        monkeypatch.delitem(sys.modules, module)
    monkeypatch.setitem(sys.modules, "imageio", None)
    with pytest.raises(ImportError, match=r'pip install "ercot-nb\[video\]"'):
        load_video(path)
    assert len(load_video(_clip(2))) == 2
