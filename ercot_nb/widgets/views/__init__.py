"""The widget views: each shows one view of the app's state in a live figure.

Every view of the registry (:data:`ercot_nb.figures.VIEWS`) is drawn by one
live renderer, :class:`~.registry.RegistryView`, which applies a registered
view's parts and per-step changes by name (:mod:`.front_ends` says which
widget shows which view).  The partition (2-D/PCA/3-D scatter, or a video
frame through ``partition_slot``), Pareto, alpha, scores and Sankey widgets
are RegistryViews with controls of their own (the axes, the objectives, "use
this partition", the metric...) that choose the view and its options.  ``_base`` is their shared frame (a
view renders one :class:`~ercot_nb.widgets._state.AppState` and keeps no
copy of it) and ``_figure_widget`` the Plotly ``FigureWidget`` they update
in place.
"""
