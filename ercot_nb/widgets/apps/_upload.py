"""A file upload button that refuses files above a size limit in the browser, before sending them.

ipywidgets' ``FileUpload`` reads any chosen file and sends it to the kernel
as one websocket message; a file above the Jupyter server's message limit
(10 MiB by default) closes the connection and is lost without a word.
:class:`CsvUpload` checks the size in the browser first: a file within
``limit`` is sent (its :attr:`~CsvUpload.value` then looks like
``FileUpload``'s), a larger one only its name and size
(:attr:`~CsvUpload.refused`), for the app to say so.
"""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import anywidget
import traitlets

__all__ = ["CsvUpload"]

_ESM = """
function render({ model, el }) {
  const button = document.createElement("button");
  button.className = "jupyter-widgets jupyter-button widget-button widget-upload mod-primary";
  button.style.width = "auto";
  const input = document.createElement("input");
  input.type = "file";
  input.style.display = "none";
  el.classList.add("ercot-csv-upload");
  el.append(button, input);
  let sending = "";
  const update = () => {
    button.textContent = sending ? "Sending " + sending + " …" : model.get("description");
    button.title = model.get("tooltip");
    button.disabled = model.get("disabled") || !!sending;
    input.accept = model.get("accept");
  };
  for (const name of ["description", "tooltip", "disabled", "accept"]) {
    model.on("change:" + name, update);
  }
  update();
  button.addEventListener("click", () => { input.value = ""; input.click(); });
  input.addEventListener("change", () => {
    const file = input.files && input.files[0];
    input.value = "";
    if (!file) { return; }
    const meta = { name: file.name, type: file.type, size: file.size, last_modified: file.lastModified };
    if (file.size > model.get("limit")) {   // never sent: the server would drop the connection
      model.send({ event: "refused", ...meta });
      return;
    }
    sending = file.name;
    update();
    file.arrayBuffer().then(
      (buffer) => { model.send({ event: "file", ...meta }, undefined, [buffer]); },
      () => { model.send({ event: "unreadable", ...meta }); },
    ).finally(() => { sending = ""; update(); });
  });
}
export default { render };
"""


class CsvUpload(anywidget.AnyWidget):
    """Upload button for one file, refusing files above ``limit`` bytes before sending them.

    Parameters
    ----------
    limit : int
        Largest file (bytes) the browser sends.
    description : str
        The button's text.
    accept : str
        File types offered by the browser's dialog (as ``<input accept>``).
    tooltip : str
        The button's hover text.

    Attributes
    ----------
    value : tuple of dict
        The received file, as ``ipywidgets.FileUpload`` gives it: ``name``,
        ``type``, ``size``, ``content`` (memoryview), ``last_modified``.
    refused : dict
        ``name`` and ``size`` of the last file refused for its size (set anew
        for each refusal).
    unreadable : dict
        ``name`` of the last file the browser could not read.
    """

    _esm = traitlets.Unicode(_ESM).tag(sync=True)
    description = traitlets.Unicode("Choose file").tag(sync=True)
    tooltip = traitlets.Unicode("").tag(sync=True)
    accept = traitlets.Unicode("").tag(sync=True)
    disabled = traitlets.Bool(False).tag(sync=True)
    limit = traitlets.Int(0).tag(sync=True)
    value = traitlets.Tuple()
    refused = traitlets.Dict()
    unreadable = traitlets.Dict()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.on_msg(self._on_message)

    def _on_message(self, _widget: Any, content: dict[str, Any], buffers: list[Any]) -> None:
        if not isinstance(content, dict):
            return
        event = content.get("event")
        name = str(content.get("name") or "uploaded.csv")
        size = content.get("size")
        size = int(size) if isinstance(size, (int, float)) else 0
        # each reset first: the same file chosen again is news again
        if event == "refused":
            self.refused = {}
            self.refused = {"name": name, "size": size}
        elif event == "unreadable":
            self.unreadable = {}
            self.unreadable = {"name": name}
        elif event == "file" and buffers:
            stamp = content.get("last_modified")
            modified = (datetime.fromtimestamp(stamp / 1000, timezone.utc)
                        if isinstance(stamp, (int, float)) else datetime.now(timezone.utc))
            self.value = ()
            self.value = ({"name": name, "type": str(content.get("type") or ""),
                           "size": len(buffers[0]), "content": memoryview(buffers[0]),
                           "last_modified": modified},)
