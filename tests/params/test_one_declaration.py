"""One declaration per parameter: the spec on the owning class; everything else derived from it.

Signatures, the Parameters sections of the docstrings, the command line's flags and defaults
are generated from the specs; a scan of the source checks that nothing else declares one
(a default in an ``__init__``, a hand-written Parameters section, a CLI default or choice list,
a second tuple of a choice set).  The data model and the parameter machinery import no
algorithm module.
"""
from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import ercot_nb
from ercot_nb import algorithms, datasets

PACKAGE = Path(ercot_nb.__file__).parent
ALGORITHMS = algorithms.available()


def _specs(name):
    return algorithms.estimator_params(name)


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _estimator_classes():
    return {name: algorithms.get(name) for name in ALGORITHMS}


# -- the spec lives on the class -----------------------------------------------------------------

@pytest.mark.parametrize("name", ALGORITHMS)
def test_the_spec_is_a_class_attribute_of_the_estimator(name):
    cls = algorithms.get(name)
    assert "param_specs" in vars(cls) or any("param_specs" in vars(k) for k in cls.__mro__[1:])
    assert algorithms.estimator_params(name) is cls.param_specs
    assert algorithms.estimator_params(cls) is cls.param_specs


def test_dataset_specs_live_with_the_datasets():
    for name in datasets.available():
        specs = datasets.dataset_params(name)
        assert specs and specs[0].name == "seed"


def test_the_shared_evolutionary_base_is_public():
    from ercot_nb.evolution import EvolutionaryClustering
    from ercot_nb.baselines import PenaltyEC

    assert issubclass(PenaltyEC, EvolutionaryClustering) and issubclass(ercot_nb.ERCOT, EvolutionaryClustering)


# -- derived: signatures and docstrings ------------------------------------------------------------

@pytest.mark.parametrize("name", ALGORITHMS)
def test_the_signature_is_generated_from_the_spec(name):
    cls = algorithms.get(name)
    signature = inspect.signature(cls)
    specs = _specs(name)
    assert list(signature.parameters) == [spec.name for spec in specs]
    for spec in specs:
        parameter = signature.parameters[spec.name]
        assert parameter.default == spec.default and type(parameter.default) is type(spec.default)
    first = next(iter(signature.parameters.values()))
    assert first.kind is first.POSITIONAL_OR_KEYWORD  # ERCOT(3): n_clusters stays positional
    assert all(p.kind is p.KEYWORD_ONLY for p in list(signature.parameters.values())[1:])
    with pytest.raises(TypeError):
        cls(3, 4)  # the rest stays keyword-only
    with pytest.raises(TypeError, match="colour"):
        cls(colour="red")
    model = cls(n_clusters=3, seed=5)
    assert model.get_params()["n_clusters"] == 3 and model.get_params()["seed"] == 5
    assert repr(model) == f"{cls.__name__}(n_clusters=3, seed=5)"
    assert model.clone().get_params() == model.get_params()


@pytest.mark.parametrize("name", ALGORITHMS)
def test_the_parameters_section_is_generated_from_the_spec(name):
    cls = algorithms.get(name)
    doc = inspect.getdoc(cls)
    section = doc.split("Parameters\n----------\n", 1)[1].split("\n\n", 1)[0]
    names = [line.split(" : ")[0] for line in section.splitlines() if line and not line.startswith(" ")]
    assert names == [spec.name for spec in _specs(name)]
    flat = " ".join(doc.split())
    for spec in _specs(name):
        assert " ".join(spec.help.split()) in flat, spec.name  # the spec's own words, not a copy
        assert f"default={spec.default!r}".replace("'", '"') in flat or spec.default is None, spec.name


# -- nothing else declares a parameter -----------------------------------------------------------

def _estimator_modules():
    return sorted({Path(inspect.getfile(cls)) for cls in _estimator_classes().values()})


def test_no_estimator_writes_an_init_or_a_parameters_section_by_hand():
    names = {cls.__name__ for cls in _estimator_classes().values()} | {"EvolutionaryClustering",
                                                                       "_EvolutionaryClustering"}
    found = []
    for path in _estimator_modules():
        tree = _tree(path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id.endswith("_DOC")
                                                    for t in node.targets):
                found.append(f"{path.name}: a docstring block {node.targets[0].id}")
            if isinstance(node, ast.ClassDef) and node.name in names:
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                        found.append(f"{path.name}: {node.name}.__init__ written by hand")
                    doc = ast.get_docstring(node) or ""
                    if "Parameters\n----------" in doc:
                        found.append(f"{path.name}: {node.name}'s Parameters section written by hand")
    assert not sorted(set(found))


def _all_specs():
    specs = [spec for name in ALGORITHMS for spec in _specs(name)]
    specs += [spec for name in datasets.available() for spec in datasets.dataset_params(name)]
    return specs


def test_the_command_line_declares_no_default_or_choices_of_a_parameter():
    names = {spec.name for spec in _all_specs()}
    flags = {"--" + name.replace("_", "-") for name in names} | {"--evaluations"}
    found = []
    for node in ast.walk(_tree(PACKAGE / "cli.py")):
        if isinstance(node, ast.Dict):  # e.g. {"seed": 0, "max_clusters": 8}
            for key, value in zip(node.keys, node.values):
                if (isinstance(key, ast.Constant) and key.value in names and isinstance(value, ast.Constant)
                        and not isinstance(value.value, str)):
                    found.append(f"line {node.lineno}: {key.value}={value.value!r}")
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument":
            options = [a.value for a in node.args if isinstance(a, ast.Constant)]
            if not set(options) & flags:
                continue
            for keyword in node.keywords:
                if keyword.arg == "choices":
                    found.append(f"line {node.lineno}: choices of {options[0]}")
                if keyword.arg == "default" and not (isinstance(keyword.value, ast.Constant)
                                                     and keyword.value.value is None):
                    if not (isinstance(keyword.value, ast.Attribute) and keyword.value.attr == "SUPPRESS"):
                        found.append(f"line {node.lineno}: default of {options[0]}")
    assert not found


def _string_tuples():
    """Every tuple literal of two or more plain constants in the package, with where it is."""
    tuples = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Tuple) and len(node.elts) >= 2 and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, (str, int)) for e in node.elts):
                tuples.append((frozenset(e.value for e in node.elts), f"{path.relative_to(PACKAGE)}:{node.lineno}"))
    return tuples


def test_every_choice_set_is_written_once():
    choice_sets = {frozenset(spec.choices) for spec in _all_specs()
                   if len(spec.choices) >= 2 and all(isinstance(c, str) for c in spec.choices)}
    choice_sets.add(frozenset(ercot_nb.data.SCALINGS))
    tuples = _string_tuples()
    copies = {}
    for choices in choice_sets:
        where = [place for values, place in tuples if values == choices]
        if len(where) > 1:
            copies[tuple(sorted(map(str, choices)))] = where
    assert not copies


def test_the_mask_threshold_and_the_backends_are_declared_once():
    found = {"_MASK_ON": [], "MASK_ON": [], "BACKENDS": []}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(_tree(path)):
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name) and target.id in found:
                        found[target.id].append(str(path.relative_to(PACKAGE)))
    assert len(found["_MASK_ON"]) + len(found["MASK_ON"]) == 1, found
    assert len(found["BACKENDS"]) == 1, found


# -- the command line's defaults are the spec's -----------------------------------------------------

@pytest.mark.parametrize("name", ALGORITHMS)
def test_the_command_line_passes_the_specs_defaults(name):
    from ercot_nb import cli

    parser = cli.build_parser(algorithm=name)
    args = parser.parse_args(["run", "--dataset", "syn1", "--algorithm", name.lower(), "--n-clusters", "3"])
    estimator = cli._estimator(args)
    expected = algorithms.get(name)(n_clusters=3).get_params()
    assert estimator.get_params() == expected  # seed None (fresh entropy), AFFECT's own max_clusters


def test_the_command_line_has_a_flag_per_parameter_with_the_specs_words():
    from ercot_nb import cli

    text = cli.build_parser(algorithm="AFFECT")._subparsers._group_actions[0].choices["run"].format_help()
    flat = " ".join(text.split())
    for spec in _specs("AFFECT"):
        if spec.name == "progress":
            continue
        assert "--" + spec.name.replace("_", "-") in flat, spec.name
        assert " ".join(spec.help.split())[:30] in flat, spec.name
    assert "default: 10" in flat  # AFFECT's max_clusters, not ERCOT's 8


# -- layers: the data model and the machinery import no algorithm module -----------------------------

def _imports(folder: Path, package: str) -> set[str]:
    """Every ercot_nb module imported anywhere (top or inside a function) by the files of ``folder``."""
    found = set()
    for path in folder.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        here = list(parts[:-1]) if parts[-1] != "__init__" else list(parts[:-1])
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here[: len(here) - node.level + 1]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                if module == "ercot_nb" or module.startswith("ercot_nb."):
                    names = [f"{module}.{alias.name}" for alias in node.names]
                    found.update(names if module.count(".") < 1 else [module])
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names if alias.name.startswith("ercot_nb"))
    return found


@pytest.mark.parametrize("package, allowed", [
    ("data", ("ercot_nb.data", "ercot_nb._files", "ercot_nb._progress")),
    ("params", ("ercot_nb.params",)),
])
def test_the_lower_layers_import_no_algorithm_module(package, allowed):
    imported = _imports(PACKAGE / package, package)
    upward = sorted(m for m in imported if not any(m == a or m.startswith(a + ".") for a in allowed))
    assert not upward


def test_importing_the_data_model_imports_no_algorithm_module():
    import subprocess
    import sys

    code = ("import sys, ercot_nb.data, ercot_nb.params\n"
            "print(sorted(m for m in sys.modules if m.startswith('ercot_nb.') and not "
            "m.startswith(('ercot_nb.data', 'ercot_nb.params', 'ercot_nb._'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**__import__("os").environ, "PYTHONPATH": str(PACKAGE.parent)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# -- kernels: a missing kernel is an error, never a silent gap ----------------------------------------

def test_a_missing_kernel_fails_loudly(monkeypatch):
    from ercot_nb import kernels
    from ercot_nb.kernels import _numpy_twins

    monkeypatch.setattr(kernels, "_cache", {})
    monkeypatch.delattr(_numpy_twins, "crowding_distance")
    with pytest.raises(ImportError, match=r"backend 'numpy'.*crowding_distance"):
        kernels.get_backend("numpy")


@pytest.mark.parametrize("name", datasets.available())
def test_dataset_generators_take_their_defaults_from_their_specs(name):
    import textwrap

    loader = datasets._LOADERS[name]
    definition = ast.parse(textwrap.dedent(inspect.getsource(loader))).body[0]
    arguments = definition.args
    assert not arguments.defaults and not any(arguments.kw_defaults), "a default written in the signature"
    specs = datasets.dataset_params(name)
    assert loader.param_specs is specs
    signature = inspect.signature(loader)
    assert {n: p.default for n, p in signature.parameters.items()} == {s.name: s.default for s in specs}
    assert "Parameters\n" in loader.__doc__ and all(f"{s.name} : " in loader.__doc__ for s in specs)


def test_with_params_refuses_a_second_declaration():
    from ercot_nb.params import Param, with_params

    specs = (Param("n", "int", 3, "n", "How many."),)
    with pytest.raises(ValueError, match="write no default"):
        with_params(specs)(lambda n=3: n)
    with pytest.raises(ValueError, match="not those of its specs"):
        with_params(specs)(lambda m: m)
    assert with_params(specs)(lambda n: n)() == 3


@pytest.mark.parametrize("argv, words", [
    (["--algorithm", "k-meanscot", "--n-clusters", "3", "--pop-size", "20"], "--pop-size"),
    (["--scale", "log"], "--scale"),
    (["--knee", "sideways"], "knee must be one of 'ideal', 'chord', 'mock'"),
    (["--algorithm", "penaltyec", "--knee", "mock"], "knee='mock' is not available"),
])
def test_a_wrong_flag_is_one_line_and_exit_2(argv, words, capsys):
    from ercot_nb.cli import main

    code = main(["run", "--dataset", "syn1", "--data-param", "n_steps=2", *argv])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and words in err, err
