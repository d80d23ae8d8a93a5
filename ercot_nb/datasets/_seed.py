"""The ``seed`` parameter every built-in dataset takes (declared once, used by each generator's specs)."""
from __future__ import annotations

from ..params import Param

DATA_SEED = Param("seed", "seed", 0, "data seed",
                  "Data seed, separate from the algorithm seed; the same seed gives identical arrays.",
                  optional=True)
