"""Progress bars that work in notebooks, terminals and without ipywidgets."""
from __future__ import annotations

import sys


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def progress_bar(total: int, desc: str, enabled: bool = True):
    """A tqdm bar: the notebook widget when ipywidgets works, plain text otherwise.

    ``tqdm.auto`` raises or warns ("IProgress not found") in a notebook
    without ipywidgets; this falls back to the text bar instead.
    """
    if not enabled:
        return _NoBar()
    try:
        from tqdm.auto import tqdm

        return tqdm(total=total, desc=desc, leave=True)
    except Exception:  # IProgress missing or a broken widget front end
        from tqdm.std import tqdm

        return tqdm(total=total, desc=desc, leave=True, file=sys.stderr)
