"""The widget views: each shows one view of the app's state in a live figure.

Partition (2-D/3-D scatter, or a video frame through ``partition_slot``),
Pareto front, alpha, scores and Sankey; ``_base`` is their shared frame and
``_figure_widget`` the Plotly ``FigureWidget`` they update in place.
"""
