"""Maps the top-level grammar/ and reports/ folders into the installed package, and
installs the man pages, made from gridd/manual at build time, in <prefix>/share/man."""

import sys
import tomllib
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # gridd.manual from this tree: it needs none of gridd's deps
from gridd.manual.build import write_pages  # noqa: E402


class _Distribution(Distribution):
    """setuptools' editable wheel installs data files only where the distribution answers
    has_data(), which it does not (pypa/setuptools#3399): without this, `pip install -e`
    would leave the man pages out."""

    def has_data(self) -> bool:
        return self.has_data_files()


VERSION = tomllib.loads((HERE / "pyproject.toml").read_text())["project"]["version"]
PAGES = write_pages(HERE / "build" / "man", VERSION)

setup(
    distclass=_Distribution,
    packages=find_packages(include=["gridd", "gridd.*"]) + ["gridd.grammar", "gridd.reports"],
    package_dir={"gridd.grammar": "grammar", "gridd.reports": "reports"},
    package_data={"gridd.grammar": ["*.lark"], "gridd.reports": ["*.sql", "schema/*.sql"],
                  "gridd.web": ["templates/*.html", "static/*"]},
    data_files=[(f"share/man/{section}", sorted(str(p.relative_to(HERE)) for p in paths))
                for section, paths in sorted(PAGES.items())],
)
