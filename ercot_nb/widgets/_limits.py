"""How large a file the app can upload, and sizes in messages (light: no widget imports).

A file chosen in the browser reaches the kernel as one websocket message, and
the Jupyter server (tornado) refuses a message above its
``websocket_max_message_size`` — 10 MiB unless the server sets another — by
closing the connection: the page reconnects and the file is silently lost.
So the upload button refuses a larger file in the browser, before sending it,
with a message; the limit is the server's, less room for the message around
the file.  ``ercot-nb app`` (:mod:`.app_server`) raises its server's limit to
:data:`APP_MESSAGE_LIMIT` and tells its kernels through
:data:`MESSAGE_LIMIT_ENV`; elsewhere (JupyterLab) the default applies.
"""
from __future__ import annotations

import os

__all__ = ["MAX_UPLOAD_BYTES", "ENVELOPE_BYTES", "APP_MESSAGE_LIMIT", "JUPYTER_MESSAGE_LIMIT",
           "MESSAGE_LIMIT_ENV", "upload_limit", "sizes"]

MAX_UPLOAD_BYTES = 50 * 2**20
"""Largest CSV file the picker reads (50 MiB), where the server lets it through."""

ENVELOPE_BYTES = 2**20
"""Room left in a websocket message for what surrounds the file (names, ids)."""

APP_MESSAGE_LIMIT = MAX_UPLOAD_BYTES + ENVELOPE_BYTES
"""The websocket message limit of ``ercot-nb app``'s server."""

JUPYTER_MESSAGE_LIMIT = 10 * 2**20
"""tornado's default ``websocket_max_message_size``: a Jupyter server that sets none."""

MESSAGE_LIMIT_ENV = "ERCOT_NB_MESSAGE_LIMIT"
"""Environment variable: the websocket message limit of the server running the kernel."""


def upload_limit() -> int:
    """Largest file (bytes) an upload can send to this kernel.

    Returns
    -------
    int
        :data:`MAX_UPLOAD_BYTES` under ``ercot-nb app``; under a Jupyter
        server with the default message limit, 9 MiB.
    """
    try:
        server = int(os.environ.get(MESSAGE_LIMIT_ENV, JUPYTER_MESSAGE_LIMIT))
    except ValueError:
        server = JUPYTER_MESSAGE_LIMIT
    return max(0, min(MAX_UPLOAD_BYTES, server - ENVELOPE_BYTES))


def sizes(*values: int) -> list[str]:
    """File sizes for one message, rounded only as far as they stay distinct.

    ``sizes(52428860, 52428800)`` gives ``["52,428,860 bytes (50.0 MiB)",
    "52,428,800 bytes (50.0 MiB)"]``, not "50 MiB" twice; ``sizes(60 * 2**20,
    50 * 2**20)`` gives ``["60.0 MiB", "50.0 MiB"]``.

    Parameters
    ----------
    *values : int
        Sizes in bytes.

    Returns
    -------
    list of str
    """
    for digits in (1, 2):
        texts = [f"{value / 2**20:.{digits}f} MiB" for value in values]
        if len(set(texts)) == len(set(values)):
            return texts
    return [f"{value:,} bytes ({value / 2**20:.1f} MiB)" if value >= 2**20 else f"{value:,} bytes"
            for value in values]
