"""Serving the notebook apps with Voila: the ``ercot-nb app`` launcher and the server it starts."""
