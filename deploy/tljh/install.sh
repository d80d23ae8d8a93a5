#!/usr/bin/env bash
# Turn a fresh The Littlest JupyterHub (https://tljh.jupyter.org) into the ercot-nb class server.
# Run as root from the repository root:  sudo bash deploy/tljh/install.sh
set -euo pipefail
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
USER_ENV=/opt/tljh/user
export NUMBA_CACHE_DIR=/opt/ercot-nb/numba-cache NUMBA_CPU_NAME=generic

"$USER_ENV/bin/pip" install --no-cache-dir -r "$REPO/binder/requirements.txt"
mkdir -p "$NUMBA_CACHE_DIR" /opt/ercot-nb/app
(cd /tmp && "$USER_ENV/bin/python" -m ercot_nb.warmup)       # the numba cache, built once
cp "$REPO/widgets/explorer.ipynb" "$REPO/widgets/compare.ipynb" /opt/ercot-nb/app/
mkdir -p "$USER_ENV/share/jupyter/voila/templates/ercot-nb" "$USER_ENV/etc/jupyter"
cp "$REPO/deploy/voila-template/ercot-nb/conf.json" "$REPO/ercot_nb/widgets/serve/templates/index.html.j2" \
   "$USER_ENV/share/jupyter/voila/templates/ercot-nb/"
cp "$REPO/deploy/voila.json" "$USER_ENV/etc/jupyter/voila.json"
chmod -R a+rX /opt/ercot-nb && chmod -R a+rwX "$NUMBA_CACHE_DIR"

cp "$REPO/deploy/tljh/jupyterhub_config.d/ercot_nb.py" /opt/tljh/config/jupyterhub_config.d/
tljh-config set limits.memory 600M
tljh-config set limits.cpu 1
tljh-config set services.cull.enabled true
tljh-config set services.cull.timeout 900
tljh-config set services.cull.every 60
tljh-config reload
