"""Parameter specs (ercot_nb.params): one spec per signature parameter, validation in fit."""
from __future__ import annotations

import inspect
import re
import time

import numpy as np
import pytest

from ercot_nb import algorithms, datasets
from ercot_nb.cli import main
from ercot_nb.algorithms import estimator_params
from ercot_nb.datasets import dataset_params
from ercot_nb.knee import KNEE_RULES
from ercot_nb.params import Param, parse_assignments

ALGORITHMS = algorithms.available()


def _signature(function) -> dict[str, inspect.Parameter]:
    return {name: p for name, p in inspect.signature(function).parameters.items() if name != "self"}


@pytest.mark.parametrize("name", ALGORITHMS)
def test_every_estimator_parameter_has_one_spec_with_the_signature_default(name):
    cls = algorithms.get(name)
    signature = _signature(cls.__init__)
    specs = estimator_params(name)
    assert [spec.name for spec in specs] == list(signature)
    assert estimator_params(cls) is specs
    for spec in specs:
        default = signature[spec.name].default
        assert spec.default == default and type(spec.default) is type(default), spec.name
        assert spec.help.strip() and spec.label.strip()
        assert spec.validate(spec.default, name) == default or spec.default is None


@pytest.mark.parametrize("name", datasets.available())
def test_every_dataset_parameter_has_one_spec_with_the_signature_default(name):
    signature = _signature(datasets._LOADERS[name])
    specs = dataset_params(name)
    assert [spec.name for spec in specs] == list(signature)
    for spec in specs:
        assert spec.default == signature[spec.name].default, spec.name
        assert spec.help.strip()


def test_knee_rules_are_listed_once():
    from ercot_nb import cli

    from ercot_nb import knee as _knee

    spec = {p.name: p for p in estimator_params("ERCOT")}["knee"]
    assert spec.choices is KNEE_RULES is _knee.KNEE_RULES
    assert not hasattr(cli, "KNEE_RULES")  # the command line checks --knee with the spec, keeps no copy
    assert "mock" not in {p.name: p for p in estimator_params("penaltyEC")}["knee"].choices


@pytest.mark.parametrize("name", ALGORITHMS)
@pytest.mark.parametrize("seed, error", [(-1, ValueError), (1.5, TypeError), ("abc", TypeError),
                                         (True, TypeError), (np.float64(3), TypeError)])
def test_bad_seed_is_refused_naming_the_parameter(name, seed, error):
    data = datasets.load("syn1", n_steps=2, n_per_cluster=5)
    model = algorithms.make(name, n_clusters=2, seed=seed)
    with pytest.raises(error, match=rf"^{name}: seed must be an int >= 0 or a numpy.random.Generator or None, got {re.escape(repr(seed))}"):
        model.fit(data)


@pytest.mark.parametrize("name", ["ERCOT", "staticEC", "penaltyEC"])
@pytest.mark.parametrize("value, error", [("0.5", TypeError), (None, TypeError), (1.5, ValueError),
                                          (float("nan"), ValueError)])
def test_bad_crossover_rate_is_refused_naming_the_parameter(name, value, error):
    data = datasets.load("syn1", n_steps=2, n_per_cluster=5)
    with pytest.raises(error, match=rf"{name}: crossover_rate must be a finite number in \[0, 1\], got"):
        algorithms.make(name, crossover_rate=value).fit(data)


@pytest.mark.parametrize("name", ["ERCOT", "staticEC", "penaltyEC", "AFFECT", "E2SC"])
def test_huge_max_clusters_is_refused_at_once(name):
    data = datasets.load("syn1", n_steps=2)  # 200 samples per step
    started = time.perf_counter()
    with pytest.raises(ValueError, match=r"max_clusters must be an int in \[2, 1000\], got 1000000"):
        algorithms.make(name, max_clusters=10**6, seed=0).fit(data)
    assert time.perf_counter() - started < 5.0


def test_numpy_scalars_are_accepted_and_text_never_parsed_by_validate():
    spec = {p.name: p for p in estimator_params("ERCOT")}
    assert spec["pop_size"].validate(np.int64(20), "ERCOT") == 20
    assert spec["crossover_rate"].validate(1, "ERCOT") == 1.0
    assert type(spec["crossover_rate"].validate(1, "ERCOT")) is float
    with pytest.raises(ValueError, match=r"pop_size must be an even int in \[4, 100000\], got 21"):
        spec["pop_size"].validate(21, "ERCOT")
    with pytest.raises(TypeError, match="n_clusters must be an int .* or None, got 3.0 \\(float\\)"):
        spec["n_clusters"].validate(3.0, "ERCOT")


def test_parse_command_line_text():
    specs = estimator_params("ERCOT")
    parsed = parse_assignments("ERCOT", specs, ["crossover_rate=0.5", "seed=none", "refine=no",
                                                 "n_clusters=None", "knee=chord", "pop-size=20"])
    assert parsed == {"crossover_rate": 0.5, "seed": None, "refine": False, "n_clusters": None,
                      "knee": "chord", "pop_size": 20}
    with pytest.raises(TypeError, match="crossover_rate must be a finite number .*got 'half'"):
        parse_assignments("ERCOT", specs, ["crossover_rate=half"])
    with pytest.raises(TypeError, match="ERCOT has no parameter 'colour'"):
        parse_assignments("ERCOT", specs, ["colour=red"])
    dims = {p.name: p for p in dataset_params("bird_flocks")}["dims"]
    assert dims.parse("3", "bird_flocks") == 3
    gap = {p.name: p for p in dataset_params("gapminder")}["features"]
    assert gap.parse("pop,lifeExp", "gapminder") == ("pop", "lifeExp")


def test_affect_alpha_accepts_estimate_or_a_number():
    spec = {p.name: p for p in estimator_params("AFFECT")}["alpha"]
    assert spec.validate("estimate", "AFFECT") == "estimate"
    assert spec.validate(0.3, "AFFECT") == 0.3
    with pytest.raises(TypeError, match="alpha must be a finite number in \\[0, 1\\] or 'estimate'"):
        spec.validate("guess", "AFFECT")


def test_dataset_load_validates_against_the_specs():
    with pytest.raises(ValueError, match="bird_flocks: dims must be one of 2, 3, got 4"):
        datasets.load("bird_flocks", dims=4)
    with pytest.raises(TypeError, match="syn1: seed must be"):
        datasets.load("syn1", seed="abc")


def test_param_rejects_an_empty_help():
    with pytest.raises(ValueError, match="help must not be empty"):
        Param("x", "int", 1, "x", " ")


def test_cli_param_option(capsys):
    # the refused run first: on a cold numba cache a valid run prints its step-0 preview to stderr
    # (before it returns), and an unread capture would hand that line back with the error
    rc = main(["run", "--dataset", "syn1", "--param", "crossover_rate=1.5"])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.startswith("ercot-nb: error: ERCOT: crossover_rate must be a finite number in [0, 1], got 1.5")
    assert "Traceback" not in err
    rc = main(["run", "--dataset", "syn1", "--data-param", "n_steps=2", "--data-param", "n_per_cluster=10",
               "--algorithm", "staticec", "--param", "pop_size=10", "--param", "n_evaluations=20",
               "--param", "crossover_rate=0.5"])
    assert rc == 0, capsys.readouterr().err


def test_a_subclass_with_the_same_init_inherits_the_specs():
    from ercot_nb import StaticEC

    class Tweaked(StaticEC):
        def fit(self, data):
            return super().fit(data)

    assert estimator_params(Tweaked) == estimator_params(StaticEC)

    class Renamed(StaticEC):
        def __init__(self, depth=3):
            self.depth = depth

    with pytest.raises(ValueError, match="no parameter specs for Renamed"):
        estimator_params(Renamed)


def _all_specs():
    for name in ALGORITHMS:
        for spec in estimator_params(name):
            yield name, spec
    for name in datasets.available():
        for spec in dataset_params(name):
            yield name, spec


def test_every_choice_has_words_and_keeps_its_code_value():
    """Dropdowns showed code names ("per_solution"); each choice is declared with words."""
    for owner, spec in _all_specs():
        if spec.kind not in ("choice", "subset"):
            assert spec.labels == (), (owner, spec.name)
            continue
        assert [value for value, _ in spec.labels] == list(spec.choices), (owner, spec.name)
        for value, words in spec.labels:
            assert words.strip() and "_" not in words, (owner, spec.name, words)
            assert spec.choice_label(value) == words
    mode = {p.name: p for p in estimator_params("ERCOT")}["mutation_mode"]
    assert mode.choice_label("per_solution") == "per solution"
    assert mode.validate("per_solution", "ERCOT") == "per_solution"  # the code value is what runs
    assert mode.parse("per_gene", "ERCOT") == "per_gene"  # and what the command line takes
    with pytest.raises(ValueError, match="one of 'per_solution', 'per_gene'"):
        mode.validate("per solution", "ERCOT")  # words are not values


def test_choice_words_must_label_exactly_the_choices():
    with pytest.raises(ValueError, match="labels .* 'b'"):
        Param("x", "choice", "a", "x", "An x.", choices=("a", "b"), labels={"a": "A"})
    with pytest.raises(ValueError, match="labels"):
        Param("x", "choice", "a", "x", "An x.", choices=("a",), labels={"a": "A", "c": "C"})
    with pytest.raises(ValueError, match="labels"):
        Param("x", "int", 1, "x", "An x.", labels={1: "one"})
    spec = Param("x", "choice", 2, "x", "An x.", choices=(2, 3), labels={2: "2-D", 3: "3-D"})
    assert spec.labels == ((2, "2-D"), (3, "3-D")) and hash(spec)
    assert Param("y", "choice", "a", "y", "A y.", choices=("a",)).choice_label("a") == "a"
