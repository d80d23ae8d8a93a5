"""The ``partition`` view: the samples of a step coloured by cluster (2-D; ``partition3d`` is its 3-D twin)."""
from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go

from ..layers import Parts
from ..partition import PartitionLayer, partition_animation
from ..protocol import Change, View, ViewData
from ..style import step_index, title_layout

__all__ = ["Partition", "VIEW"]


class Partition(View):
    """The partition of one step (or of a member of its final population), 2-D or 3-D.

    Options: ``features``, ``projection`` (2-D view: ``"pca"`` or
    ``"features"``, the first two features; default PCA for 3+ features),
    ``show_centroids``, ``webgl``, ``max_points`` (at most this many samples
    per step drawn, a fixed choice of ids; None: all), ``agreement`` (an
    :class:`ercot_nb.ensemble.Ensemble` of runs on the data: each point's
    opacity is the share of its runs that agree on its cluster, on the
    knee's partition of the steps whose ids are the data's; None: plain).
    """

    member = True

    def __init__(self, dims: int) -> None:
        self.dims = dims
        self.key = "partition" if dims == 2 else "partition3d"
        self.title = "Partition" if dims == 2 else "Partition in 3-D"
        self.hint = ("Each point is a sample, coloured by its cluster (a cluster keeps its colour over time); "
                     "X marks the centroids." if dims == 2 else
                     "The first three features; drag to rotate. Colours follow the aligned cluster labels.")
        self.options = {"features": None, "show_centroids": True, "webgl": None, "max_points": None,
                        "agreement": None}
        if dims == 2:
            self.options["projection"] = None

    def applies(self, data: ViewData) -> bool:
        return data.dataset is not None and not data.is_video and (self.dims == 2 or data.n_features >= 3)

    def layer(self, data: ViewData, **options: Any) -> PartitionLayer:
        """The run's partition layer with these options (made once per data)."""
        options.pop("agreement", None)  # drawn per step, not a layer's
        key = (self.key, "layer", tuple(sorted(options.items())))  # options as given: not completed per call
        try:
            hash(key)
        except TypeError:  # unhashable option values (a list of features)
            return self._layer(data, options)
        return data.memo(key, lambda: self._layer(data, options))

    def projection(self, data: ViewData, projection: str | None) -> str | None:
        """The layer's projection of the option: ``"3d"``, ``"pca"`` or None (the features)."""
        if self.dims == 3:
            return "3d"
        if projection not in (None, "pca", "features"):
            raise ValueError(f"projection must be None, 'pca' or 'features', got {projection!r}")
        if projection is None:
            return "pca" if data.n_features >= 3 else None
        return None if projection == "features" or data.n_features < 2 else projection

    def _layer(self, data: ViewData, options: dict[str, Any]) -> PartitionLayer:
        o = self.with_defaults(options)
        projection = self.projection(data, o.get("projection"))
        features = None if o["features"] is None else tuple(o["features"])
        key = (self.key, projection, features, o["show_centroids"], o["webgl"], o["max_points"])
        return data.memo(key, lambda: PartitionLayer(
            data.dataset, data.result, features=features, projection=projection,
            show_centroids=o["show_centroids"], webgl=o["webgl"], max_points=o["max_points"]))

    @staticmethod
    def agreement(data: ViewData, t: int, member: int | None, ensemble: Any) -> Any:
        """The ensemble drawn at step ``t``: None for a member, a step past it or other ids."""
        if ensemble is None or member is not None:
            return None
        t = step_index(data.result, t)
        if t >= len(ensemble) or not np.array_equal(ensemble.ids[t], data.dataset[t].ids):
            return None
        return ensemble

    def parts(self, data: ViewData, t: int = 0, member: int | None = None, **options: Any) -> Parts:
        agreement = self.agreement(data, t, member, options.get("agreement"))
        return self.layer(data, **options).parts(t, member, agreement=agreement)

    def step_change(self, data: ViewData, t: int, **options: Any) -> Change:
        return self.member_change(data, t, None, **options)

    def member_change(self, data: ViewData, t: int, member: int | None, **options: Any) -> Change:
        # the traces as plain dicts (no plotly object per step and member); the layout differs
        # between steps and members by its title only (axes are fixed over all steps)
        agreement = self.agreement(data, t, member, options.get("agreement"))
        traces, title = self.layer(data, **options).plain(t, member, agreement=agreement)
        return Change(data=list(traces), layout={"title": title_layout(title)})

    def notes(self, data: ViewData, **options: Any) -> list[str]:
        layer = self.layer(data, **options)
        if not layer.subsampled:
            return []
        return [f"The scatter plots show at most {layer.max_points_shown:,} of the {layer.max_points:,} "
                "samples per step (a fixed random choice of ids); the other views use all samples."]

    def report(self, data: ViewData, **options: Any) -> list[go.Figure]:
        o = self.with_defaults(options)
        projection = self.projection(data, o.get("projection"))
        return [partition_animation(data.dataset, data.result, projection=projection, features=o["features"],
                                    show_centroids=o["show_centroids"], webgl=o["webgl"])]


VIEW = Partition(2)
