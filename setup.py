"""Build hook: ship the app notebooks and the tutorials inside the wheel.

Their sources stay in the repository's ``widgets/`` and ``notebooks/``
folders; ``build_py`` copies them into ``ercot_nb/apps/`` and
``ercot_nb/tutorials/`` of the build (the files listed by
``ercot_nb.widgets.serve.shipped``: ``APPS`` and ``TUTORIAL_FILES``), where
``ercot-nb app`` and ``ercot-nb tutorials`` find them.  An editable install
copies only Voila's template (pyproject.toml's data-files).  The rest of the
configuration is in pyproject.toml.
"""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
# The lists below mirror ercot_nb.widgets.serve.shipped.APPS and TUTORIAL_FILES (checked by
# tests/browser/test_app_wheel.py); importing the package here would need its dependencies.
APPS = ("explorer", "compare")
TUTORIAL_FILES = ("*.ipynb", "exercises/*.ipynb", "exercises/README.md",
                  "paper_results/**/*.md", "paper_results/**/runs.csv", "paper_results/**/figures.html")


class BuildWithNotebooks(build_py):
    """build_py, plus the copies of widgets/*.ipynb and the tutorials."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):  # an editable install reads the checkout
            # ... except for Voila's template (pyproject's data-files): Voila finds it only in a
            # Jupyter data folder.  setuptools' editable wheel leaves data files out (measured with
            # setuptools 84.2), so they go into it here, as copies.
            self.run_command("install_data")
            return
        package = Path(self.build_lib) / "ercot_nb"
        for name in APPS:
            self._copy(ROOT / "widgets" / f"{name}.ipynb", package / "apps" / f"{name}.ipynb")
        source = ROOT / "notebooks"
        for pattern in TUTORIAL_FILES:
            for path in sorted(source.glob(pattern)):
                relative = path.relative_to(source)
                if path.is_file() and "runs" not in relative.parts[:-1]:
                    self._copy(path, package / "tutorials" / relative)

    def _copy(self, source, target):
        if not source.is_file():
            raise FileNotFoundError(f"{source} is missing: build from a checkout or an sdist")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)


setup(cmdclass={"build_py": BuildWithNotebooks})
