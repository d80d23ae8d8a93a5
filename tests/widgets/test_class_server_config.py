"""The class server's configuration files (deploy/) load, with JupyterHub's and Voila's own loaders.

Each option named must be one the class it configures declares (a misspelt option is ignored by
traitlets with a warning, silently losing e.g. the memory limit), the memory limit must parse
as JupyterHub parses it, the app the students land on must exist, and every file the image and
the TLJH install copy must be in the repository.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

jupyterhub = pytest.importorskip("jupyterhub", reason="pip install 'ercot-nb[test]' (jupyterhub)")
from jupyterhub.app import JupyterHub  # noqa: E402
from jupyterhub.spawner import LocalProcessSpawner, Spawner  # noqa: E402
from traitlets.config import Config, PyFileConfigLoader  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
CLASSES = {"JupyterHub": JupyterHub, "Spawner": Spawner, "LocalProcessSpawner": LocalProcessSpawner}


def _check_names(config: Config) -> None:
    for section, values in config.items():
        assert section in CLASSES, f"unknown config section {section}"
        declared = CLASSES[section].class_traits(config=True)
        for name in values:
            assert name in declared, f"{section}.{name} is not a JupyterHub option"


def _mem_limit(text: str) -> int:
    return Spawner(mem_limit=text).mem_limit  # as JupyterHub parses it: 600M -> 600 * 1024**2


def _app_of(url: str) -> Path:
    match = re.fullmatch(r"/voila/render/(\w+\.ipynb)", url)
    assert match, url
    assert (REPO / "widgets" / match.group(1)).is_file()
    return REPO / "widgets" / match.group(1)


def test_tljh_hub_config_loads_and_names_only_jupyterhub_options():
    loader = PyFileConfigLoader("ercot_nb.py", path=str(DEPLOY / "tljh" / "jupyterhub_config.d"))
    config = loader.load_config()
    _check_names(config)
    spawner = LocalProcessSpawner(config=config)
    _app_of(spawner.default_url)
    assert spawner.environment["NUMBA_CACHE_DIR"] == "/opt/ercot-nb/numba-cache"
    assert JupyterHub(config=config).concurrent_spawn_limit == 4


def test_tljh_and_z2jh_limits_match_the_measured_size_and_cull_idle_servers():
    tljh = yaml.safe_load((DEPLOY / "tljh" / "config.yaml").read_text())
    values = yaml.safe_load((DEPLOY / "z2jh" / "values.yaml").read_text())
    limit = _mem_limit(tljh["limits"]["memory"])
    assert limit == _mem_limit(values["singleuser"]["memory"]["limit"])
    # one student: the Explorer kernel (~310 MB resident after a run) and its Jupyter server
    assert 450 * 10**6 <= limit <= 1024 * 10**6
    assert tljh["services"]["cull"]["enabled"] and values["cull"]["enabled"]
    assert tljh["services"]["cull"]["timeout"] == values["cull"]["timeout"] > 0
    _app_of(values["singleuser"]["defaultUrl"])
    _check_names(Config(values["hub"]["config"]))
    install = (DEPLOY / "tljh" / "install.sh").read_text()
    for key in ("limits.memory", "services.cull.timeout"):
        setting = re.search(rf"tljh-config set {re.escape(key)} (\S+)", install).group(1)
        section, *rest = key.split(".")
        expected = tljh[section]
        for part in rest:
            expected = expected[part]
        assert str(expected) == setting, key


def test_the_voila_config_selects_the_template_without_a_cdn():
    from voila.configuration import VoilaConfiguration

    config = Config(json.loads((DEPLOY / "voila.json").read_text()))
    voila = VoilaConfiguration(config=config)
    template = DEPLOY / "voila-template" / voila.template
    assert json.loads((template / "conf.json").read_text())["base_template"] == "lab"
    page = (REPO / "ercot_nb" / "widgets" / "serve" / "templates" / "index.html.j2").read_text()
    assert "fontawesome" in page  # the CDN links it removes from Voila's lab page
    assert config.VoilaExecutor.iopub_timeout >= 60


def test_every_file_the_image_and_the_install_copy_exists():
    for script in (DEPLOY / "image" / "Dockerfile", DEPLOY / "tljh" / "install.sh"):
        text = script.read_text().replace('"$REPO/', "").replace("$REPO/", "")
        copied = re.findall(r"(?:cp|-r) ((?:[\w./-]+\.(?:ipynb|json|j2|txt)\s*)+)", text)
        paths = [path for group in copied for path in group.split()]
        assert paths, script
        for path in paths:
            base = REPO if not path.startswith("../") else DEPLOY / "image"
            assert (base / path).is_file(), f"{script.name} copies {path}, which is missing"


def test_plain_voila_with_the_shipped_config_serves_a_page_without_a_cdn(tmp_path):
    """As the hub's image installs them: deploy/voila.json where Voila reads its config, the
    template in a Jupyter data folder; plain `voila NOTEBOOK` then serves a page with no CDN link."""
    import shutil
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    import nbformat

    template = tmp_path / "share" / "voila" / "templates" / "ercot-nb"
    template.mkdir(parents=True)
    shutil.copy(DEPLOY / "voila-template" / "ercot-nb" / "conf.json", template)
    shutil.copy(REPO / "ercot_nb" / "widgets" / "serve" / "templates" / "index.html.j2", template)
    folder = tmp_path / "app"
    folder.mkdir()
    shutil.copy(DEPLOY / "voila.json", folder)
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("print('plain voila page')")]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, folder / "app.ipynb")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    (tmp_path / "home").mkdir()
    env = {**__import__("os").environ, "JUPYTER_PATH": str(tmp_path / "share"), "HOME": str(tmp_path / "home")}
    server = subprocess.Popen([sys.executable, "-m", "voila", "app.ipynb", f"--port={port}", "--no-browser",
                               "--Voila.ip=127.0.0.1"], cwd=folder, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=120).read().decode()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.5)
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert "plain voila page" in page
    assert "fontawesome" not in page and "cdn.jsdelivr" not in page
