"""The Explorer as each student's app, on The Littlest JupyterHub.

Copied to /opt/tljh/config/jupyterhub_config.d/ by deploy/tljh/install.sh; TLJH loads it after
its own config.yaml (deploy/tljh/config.yaml: memory limit, idle culling).
"""
c = get_config()  # noqa: F821 - defined by JupyterHub when it loads this file

# Each student lands on the Explorer as a Voila app (JupyterLab stays at /user/NAME/lab).
c.Spawner.default_url = "/voila/render/explorer.ipynb"
c.Spawner.notebook_dir = "/opt/ercot-nb/app"
c.Spawner.environment = {
    # the numba kernels compiled once by install.sh, loaded by every student's kernel
    "NUMBA_CACHE_DIR": "/opt/ercot-nb/numba-cache",
    "NUMBA_CPU_NAME": "generic",
}
# Starting many servers at once: bounded, the others wait with a message (JupyterHub's own queue).
c.JupyterHub.concurrent_spawn_limit = 4
c.Spawner.start_timeout = 300
c.Spawner.http_timeout = 300
