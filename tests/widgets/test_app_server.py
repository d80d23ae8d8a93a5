"""The Host rule of the app server (the served requests are in tests/browser/test_app_host.py)."""
from __future__ import annotations

import os
import re
import socket
from pathlib import Path

import pytest

pytest.importorskip("voila")

from ercot_nb.widgets.serve.app_server import HostRule  # noqa: E402


@pytest.mark.parametrize("host, allowed", [
    ("127.0.0.1:8866", True), ("localhost:8866", True), ("LOCALHOST", True), ("[::1]:8866", True),
    ("127.0.0.2", True), ("evil.example:8866", False), ("localhost.evil.example", False),
    ("192.0.2.7:8866", False), ("", False), ("lab.example:8866", True),
])
def test_local_server_answers_local_names_and_the_allowed_ones(host, allowed):
    assert HostRule("127.0.0.1", ["lab.example"]).allows(host) is allowed


def test_a_server_on_every_interface_answers_addresses_and_its_own_names():
    rule = HostRule("0.0.0.0")
    assert rule.allows("192.0.2.7:8866") and rule.allows("[2001:db8::1]:8866")
    assert rule.allows(f"{socket.gethostname()}:8866")
    assert not rule.allows("evil.example:8866")


def test_a_server_on_one_address_answers_it_and_not_others():
    rule = HostRule("192.0.2.2")
    assert rule.allows("192.0.2.2:8866") and rule.allows("localhost")
    assert not rule.allows("192.0.2.7:8866") and not rule.allows("evil.example")
    assert HostRule("192.0.2.2", ["*"]).allows("evil.example")


def test_the_culler_skips_kernels_shut_down_since_it_listed_them(caplog):
    import asyncio

    from ercot_nb.widgets.serve.app_server import CappedKernelManager

    manager = CappedKernelManager()
    manager._closing.add("closing-id")

    async def cull() -> None:
        await manager.cull_kernel_if_idle("gone-id")  # a closed page's kernel: already removed
        await manager.cull_kernel_if_idle("closing-id")  # one being shut down right now

    asyncio.run(cull())
    assert not [record for record in caplog.records if record.levelname == "ERROR"]


def test_a_kernel_started_for_a_page_closed_meanwhile_is_shut_down_and_its_notebook_not_run(monkeypatch):
    import asyncio

    from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager

    from ercot_nb.widgets.serve import app_server

    shut: list[str] = []

    async def start(self, *args, **kwargs):  # noqa: ANN002, ANN003 - a kernel that takes a moment to start
        await asyncio.sleep(0.01)
        return kwargs["kernel_id"]

    async def shutdown(self, kernel_id, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003
        shut.append(kernel_id)

    monkeypatch.setattr(AsyncMappingKernelManager, "start_kernel", start)
    monkeypatch.setattr(AsyncMappingKernelManager, "shutdown_kernel", shutdown)
    manager = app_server.CappedKernelManager()

    async def open_page(closed_while_starting: bool):
        page = app_server.OpeningPage()
        token = app_server._OPENING.set(page)  # as the app's page handler does
        try:
            starting = asyncio.ensure_future(manager.start_kernel(kernel_name="python3"))
            await asyncio.sleep(0)
            page.gone = closed_while_starting  # the browser closed the tab meanwhile
            try:
                return page, await starting
            except app_server.PageGone:
                return page, None
        finally:
            app_server._OPENING.reset(token)

    open_page_, kernel = asyncio.run(open_page(False))
    assert kernel is not None and open_page_.kernel_id == kernel and shut == []
    closed, kernel = asyncio.run(open_page(True))
    assert kernel is None and shut == [closed.kernel_id]  # shut down: Voila never runs its notebook
    assert closed.kernel_id not in manager._started_at and manager.live_kernels() == 0
    assert asyncio.run(manager.start_kernel(kernel_name="python3"))  # no page (the API): as before


def test_the_app_page_loads_only_the_lab_extensions_it_uses(tmp_path):
    # nbgrader's and notebook 7's lab extensions expect JupyterLab's shared modules and put
    # console errors on every Voila page; the app's page config lists only what it uses
    from voila.utils import filter_extension

    from ercot_nb.widgets.serve.app_server import APP_LAB_EXTENSIONS, ErcotVoila

    app = ErcotVoila()
    app.initialize(["--no-browser", "--port=0", str(tmp_path)])
    allowed = app.voila_configuration.extension_allowlist
    assert sorted(allowed) == sorted(APP_LAB_EXTENSIONS)
    installed = [{"name": name} for name in
                 ("@jupyter/nbgrader", "@jupyter-notebook/lab-extension", *APP_LAB_EXTENSIONS)]
    loaded = {x["name"] for x in filter_extension(installed, extension_allowlist=allowed)}
    assert loaded == set(APP_LAB_EXTENSIONS)
    # every extension the page needs is one that is installed (a wrong name would drop it)
    from jupyterlab_server.config import get_federated_extensions
    from voila.utils import get_voila_labextensions_path

    available = get_federated_extensions(get_voila_labextensions_path())  # no argument in voila 0.5.8
    assert {"@voila-dashboards/widgets-manager8", "anywidget", "jupyterlab-plotly"} <= set(available)
    assert {"@voila-dashboards/widgets-manager8", "anywidget", "jupyterlab-plotly"} <= set(allowed)

    mine = ErcotVoila()
    mine.initialize(["--no-browser", "--port=0", "--VoilaConfiguration.extension_allowlist=x",
                     str(tmp_path)])
    assert mine.voila_configuration.extension_allowlist == ["x"]  # a server's own choice stays


def test_the_package_apps_load_no_plotly_lab_extension(tmp_path):
    """The Explorer's and Compare's figures are anywidgets: jupyterlab-plotly's 4.8 MB chunk is
    not loaded for them (about 0.3 s of a first page on two cores); a teacher's own notebook
    (``--notebook``) keeps it, for figures shown with ``fig.show()``."""
    from ercot_nb.widgets.serve.app_server import APP_LAB_EXTENSIONS, ErcotVoila
    from ercot_nb.widgets.serve.launcher import find_app_notebook, voila_command

    own = voila_command(find_app_notebook(), 8866, own_app=True)
    theirs = voila_command(tmp_path / "mine.ipynb", 8866)
    assert "--ErcotVoila.own_app=True" in own and not any("own_app" in part for part in theirs)
    app = ErcotVoila()
    app.initialize(["--no-browser", "--port=0", "--ErcotVoila.own_app=True", str(tmp_path)])
    allowed = app.voila_configuration.extension_allowlist
    assert sorted(allowed) == sorted(set(APP_LAB_EXTENSIONS) - {"jupyterlab-plotly"})


def test_a_local_app_serves_plotly_bundle_and_its_pages_import_it_early(tmp_path, monkeypatch):
    """The page's head imports the bundle the server serves (the browser evaluates it while the
    kernel runs the notebook) and the kernels are told its path, for the figures' same URL.
    (Served, and fetched once by a real page: tests/browser/test_app_first_partition.py.)"""
    from ercot_nb.widgets import _bundle
    from ercot_nb.widgets.serve.app_server import TEMPLATES, ErcotVoila

    monkeypatch.delenv(_bundle.BUNDLE_PATH_ENV, raising=False)
    monkeypatch.setenv(_bundle.SHARED_BUNDLE_ENV, "1")
    app = ErcotVoila()
    app.initialize(["--no-browser", "--port=0", "--Voila.base_url=/base/", str(tmp_path)])
    assert os.environ[_bundle.BUNDLE_PATH_ENV] == "/base/ercot-nb/widgetbundle.js"
    assert app.template_paths[0] == str(TEMPLATES)
    assert app.config.VoilaConfiguration.resources["ercot_nb_bundle"] == "/base/ercot-nb/widgetbundle.js"
    # the template renders the import in the head, escaped
    import jinja2
    source = (TEMPLATES / "index.html.j2").read_text()
    head = source.split("{%- block html_head_js -%}")[1].split("{%- endblock html_head_js -%}")[0]
    rendered = jinja2.Environment(autoescape=False).from_string(head.replace("{{ super() }}", "")).render(
        resources={"ercot_nb_bundle": '/a"b/ercot-nb/widgetbundle.js'})
    assert '<script type="module" async src="/a&#34;b/ercot-nb/widgetbundle.js"></script>' in rendered


def test_a_remote_app_keeps_voila_page_and_serves_no_bundle(tmp_path, monkeypatch):
    from ercot_nb.widgets import _bundle
    from ercot_nb.widgets.serve.app_server import TEMPLATES, ErcotVoila

    monkeypatch.delenv(_bundle.BUNDLE_PATH_ENV, raising=False)
    monkeypatch.delenv(_bundle.SHARED_BUNDLE_ENV, raising=False)
    app = ErcotVoila()
    app.initialize(["--no-browser", "--port=0", str(tmp_path)])
    assert _bundle.BUNDLE_PATH_ENV not in os.environ
    assert app.template_paths[0] == str(TEMPLATES)  # the lab page without a CDN, and no bundle import
    assert "ercot_nb_bundle" not in app.config.VoilaConfiguration.get("resources", {})
