#!/usr/bin/env bash
# Binder parity check: build the environment the way repo2docker builds it from binder/,
# then check it. Usage, from anywhere:  bash binder/check.sh [WORKDIR]
#
#  1. a fresh virtual environment (Python 3.11, binder/runtime.txt) with
#     `pip install -r binder/requirements.txt`, run from the repository root as
#     repo2docker does (its `.` line installs this package, not editable);
#  2. binder/postBuild, with CONDA_DIR pointing at that environment (on Binder it is
#     /srv/conda, where postBuild keeps the numba cache);
#  3. under binder/start (the launch environment: NUMBA_CPU_NAME, NUMBA_CACHE_DIR):
#     the first fit in a fresh Jupyter kernel with NUMBA_DEBUG_CACHE=1 (binder/first_fit.py:
#     must load every kernel from the cache and compile nothing), then the tutorials and the
#     exercises under nbval (pytest and nbval are added to the environment for this step
#     only, after the first-fit check).
# Needs network access to the package index (or its mirror) and about 2 GB of disk; takes
# several minutes, so CI runs only its pieces (tests/test_binder.py).
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${1:-$(mktemp -d /tmp/ercot-binder-check.XXXXXX)}"
mkdir -p "$WORK"
WORK="$(cd "$WORK" && pwd)"
PY="python$(sed -n 's/^python-//p' "$REPO/binder/runtime.txt")"
command -v "$PY" >/dev/null || { echo "binder/check.sh: $PY not found (binder/runtime.txt)" >&2; exit 2; }
stamp() { date -u +%H:%M:%S; }

# A scratch home and no inherited numba/Python settings, like a fresh container.
export HOME="$WORK/home"
mkdir -p "$HOME"
unset PYTHONPATH VIRTUAL_ENV $(compgen -e | grep '^NUMBA_' || true)
export PIP_DISABLE_PIP_VERSION_CHECK=1

echo "[$(stamp)] 1. environment: $PY -m venv $WORK/env; pip install -r binder/requirements.txt"
"$PY" -m venv "$WORK/env"
export CONDA_DIR="$WORK/env" PATH="$WORK/env/bin:$PATH"
started=$SECONDS
(cd "$REPO" && python -m pip install --quiet -r binder/requirements.txt)
echo "[$(stamp)]    installed in $((SECONDS - started)) s: $(python -m pip list 2>/dev/null | grep -icE '^(ercot-nb|numba|numpy|voila) ') of ercot-nb/numba/numpy/voila present"
(cd "$HOME" && python -c "import ercot_nb, sys; assert ercot_nb.__file__.startswith(sys.prefix), ercot_nb.__file__; print('   ercot_nb from', ercot_nb.__file__)")

echo "[$(stamp)] 2. binder/postBuild (CONDA_DIR=$CONDA_DIR)"
started=$SECONDS
(cd "$REPO" && bash binder/postBuild)
echo "[$(stamp)]    postBuild took $((SECONDS - started)) s; cache: $(find "$CONDA_DIR/numba-cache" -name '*.nbi' | wc -l) index files, $(find "$CONDA_DIR/numba-cache" -name '*.nbc' | wc -l) data files"

echo "[$(stamp)] 3a. first fit in a fresh kernel, under binder/start, NUMBA_DEBUG_CACHE=1"
"$REPO/binder/start" env NUMBA_DEBUG_CACHE=1 python "$REPO/binder/first_fit.py"

echo "[$(stamp)] 3b. tutorials and exercises under nbval, under binder/start"
python -m pip install --quiet "pytest>=7.4" "nbval>=0.11"
started=$SECONDS
(cd "$REPO" && "$REPO/binder/start" python -m pytest -p no:cacheprovider -q \
    -o addopts="" -o testpaths="" --nbval-lax --nbval-current-env \
    notebooks/*.ipynb notebooks/exercises/*.ipynb)
echo "[$(stamp)]    nbval took $((SECONDS - started)) s"
echo "[$(stamp)] binder/check.sh: all checks passed ($WORK)"
