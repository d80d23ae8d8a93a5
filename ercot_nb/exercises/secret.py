"""The course secret: the grading file of an nbgrader course and the seeds derived from it.

A course written by ``ercot-nb teacher nbgrader`` holds ``ercot_grading.json`` (never handed
out): a random secret, and whether students get variants. Held-out cases and each student's
variant are seeded from it (HMAC-SHA256), so the student package alone cannot reproduce them.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
from pathlib import Path
from typing import Any

__all__ = ["GRADING_FILE", "derived_seed", "held_out_seed", "read_grading"]

GRADING_FILE = "ercot_grading.json"
"""The course secret and options, in the course folder (never handed out)."""


def read_grading(root: str | os.PathLike[str]) -> dict[str, Any]:
    """The course options of ``root/ercot_grading.json``: ``{"secret": hex, "variants": bool}``."""
    path = Path(root) / GRADING_FILE
    try:
        grading = json.loads(path.read_text(encoding="utf-8"))
        bytes.fromhex(grading["secret"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a course grading file ({type(exc).__name__}); write the course "
                         "again with ercot-nb teacher nbgrader") from None
    return {"secret": grading["secret"], "variants": bool(grading.get("variants", False))}


def derived_seed(secret: str, *words: str) -> int:
    """A 63-bit seed from the course secret and ``words`` (HMAC-SHA256): unknown without the secret."""
    digest = hmac.new(bytes.fromhex(secret), "/".join(words).encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def held_out_seed(grading: dict[str, Any], exercise: str, part: str, student: str | None = None) -> int:
    """Seed of the held-out cases of ``exercise/part``: per student when the course has variants."""
    who = student if (grading["variants"] and student is not None) else "course"
    return derived_seed(grading["secret"], "held-out", exercise, part, who)
