"""The widget views: each shows one view of the app's state in a live figure.

Every view of the registry (:data:`ercot_nb.figures.VIEWS`) has a widget here
(:mod:`.front_ends` says which): the generic :class:`~.registry.RegistryView`
applies a registered view's parts and per-step changes by name, and tuned
widgets take over where a growing run or controls of their own need it:
partition (2-D/3-D scatter, or a video frame through ``partition_slot``),
Pareto front, alpha, scores and Sankey.  ``_base`` is their shared frame (a
view renders one :class:`~ercot_nb.widgets._state.AppState` and keeps no
copy of it) and ``_figure_widget`` the Plotly ``FigureWidget`` they update
in place.
"""
