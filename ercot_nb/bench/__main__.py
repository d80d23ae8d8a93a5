"""``python -m ercot_nb.bench speed|apps|quality``."""
import sys

from .cli import main

sys.exit(main())
