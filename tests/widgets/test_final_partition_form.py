"""The Explorer's parameter form offers ERCOT's final_partition (generated from the specs)."""
from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")

from ercot_nb.widgets.apps.run_panel import algorithm_form, make_algorithm  # noqa: E402


def test_form_offers_the_mixture_partition_and_passes_it_on():
    form = algorithm_form("ERCOT")
    field = form.fields["final_partition"]
    assert field.widget.value == "nearest"
    labels = dict((value, label) for label, value in field.widget.options)
    assert labels["mixture"] == "Gaussian mixture from the knee"
    field.widget.value = "mixture"
    assert make_algorithm("ERCOT", form).final_partition == "mixture"
    assert "final_partition" not in algorithm_form("staticEC").fields  # an option of ERCOT only


def test_form_offers_the_held_out_choice():
    form = algorithm_form("ERCOT")
    field = form.fields["final_partition"]
    labels = dict((value, label) for label, value in field.widget.options)
    assert labels["cv_mixture"] == "Gaussian mixture chosen on held-out pixels"
    field.widget.value = "cv_mixture"
    assert make_algorithm("ERCOT", form).final_partition == "cv_mixture"
