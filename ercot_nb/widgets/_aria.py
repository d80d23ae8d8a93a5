"""An invisible widget that names icon-only controls for screen readers.

ipywidgets draws some controls without any text a screen reader can read:
the ``Play`` widget's buttons are bare icons, and a slider whose description
is empty is a nameless ``role="slider"`` handle whose value is read out as a
bare index ("3"), not as the time it stands for.  :class:`AriaNames` sits in
the box that holds such controls and sets their ``aria-label`` (and a
slider's ``aria-valuetext``) in the page, in Voila and in JupyterLab alike.
"""
from __future__ import annotations

from collections.abc import Mapping

import anywidget
import ipywidgets as W
import traitlets

__all__ = ["AriaNames"]


class AriaNames(anywidget.AnyWidget):
    """Invisible; names the controls of the box it sits in (the nearest element of class ``scope``).

    Parameters
    ----------
    scope : str
        A CSS class of the enclosing box (``box.add_class(scope)``); selectors are looked up in it.
    names : mapping of str to str
        ``{CSS selector: accessible name}``: set as ``aria-label`` on every match.
    valuetext : mapping of str to str
        ``{selector of a slider handle: selector of an element}``: the slider's
        ``aria-valuetext`` follows that element's text (e.g. the time label).

    Notes
    -----
    The page sets the attributes with ``setAttribute`` (no HTML is parsed), again
    whenever the box changes (ipywidgets redraws a Play button's icon, noUiSlider
    rewrites ``aria-valuetext`` on every move).
    """

    _esm = """
    function apply(box, model) {
      for (const [selector, name] of Object.entries(model.get("names"))) {
        for (const node of box.querySelectorAll(selector)) {
          if (node.getAttribute("aria-label") !== name) node.setAttribute("aria-label", name);
        }
      }
      for (const [selector, source] of Object.entries(model.get("valuetext"))) {
        const text = box.querySelector(source)?.textContent.trim();
        if (!text) continue;
        for (const node of box.querySelectorAll(selector)) {
          if (node.getAttribute("aria-valuetext") !== text) node.setAttribute("aria-valuetext", text);
        }
      }
    }
    export default {
      render({ model, el }) {
        el.style.display = "none";
        let box = null, pending = false;
        const observer = new MutationObserver(() => schedule());
        const run = () => {
          pending = false;
          if (box === null) {
            box = el.closest("." + model.get("scope"));
            if (box === null) return;  // not in its box yet: the page still assembles it
            observer.disconnect();
            observer.observe(box, { subtree: true, childList: true, characterData: true,
                                    attributes: true, attributeFilter: ["aria-valuetext", "class"] });
          }
          apply(box, model);
        };
        const schedule = () => { if (!pending) { pending = true; requestAnimationFrame(run); } };
        observer.observe(document.body, { subtree: true, childList: true });
        model.on("change:names change:valuetext", schedule);
        schedule();
        return () => observer.disconnect();
      },
    };
    """
    scope = traitlets.Unicode("").tag(sync=True)
    names = traitlets.Dict().tag(sync=True)
    valuetext = traitlets.Dict().tag(sync=True)

    def __init__(self, scope: str, names: Mapping[str, str],
                 valuetext: Mapping[str, str] | None = None) -> None:
        super().__init__(scope=scope, names=dict(names), valuetext=dict(valuetext or {}),
                         layout=W.Layout(display="none"))
