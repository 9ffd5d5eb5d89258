"""Maps the top-level grammar/, reports/ and schemas/ folders into the installed package, and
installs the man pages, made from gridd/manual at build time, in <prefix>/share/man."""

import sys
import tomllib
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_ext import build_ext
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

    def has_ext_modules(self) -> bool:
        """libdrmaa and the shepherd are built by build_ext (the wheel is then tagged for
        this platform)."""
        return True


class _BuildExt(build_ext):
    """Builds libdrmaa.so.1.0 and drmaa.h (gridd/drmaa/build.py) and the shepherd program
    (gridd/execd/shepherd.py) into the package: in the build tree for a wheel, in the
    source tree for an editable install."""

    def run(self) -> None:
        super().run()
        from gridd.drmaa.build import build
        from gridd.execd import shepherd

        build(self._where("drmaa"), Path(self.build_temp))
        shepherd.build(self._where("execd") / shepherd.PROGRAM.name)

    def _where(self, package: str) -> Path:
        return (HERE if self.inplace else Path(self.build_lib)) / "gridd" / package

    def get_outputs(self) -> list[str]:
        from gridd.drmaa.build import HEADER, LIBRARY
        from gridd.execd.shepherd import PROGRAM

        return [*super().get_outputs(),
                *(str(self._where("drmaa") / name) for name in (LIBRARY, HEADER)),
                str(self._where("execd") / PROGRAM.name)]


VERSION = tomllib.loads((HERE / "pyproject.toml").read_text())["project"]["version"]
PAGES = write_pages(HERE / "build" / "man", VERSION)

setup(
    distclass=_Distribution,
    cmdclass={"build_ext": _BuildExt},
    packages=find_packages(include=["gridd", "gridd.*"]) + ["gridd.grammar", "gridd.reports",
                                                            "gridd.schemas"],
    package_dir={"gridd.grammar": "grammar", "gridd.reports": "reports",
                 "gridd.schemas": "schemas"},
    package_data={"gridd.grammar": ["*.lark"], "gridd.reports": ["*.sql", "schema/*.sql"],
                  "gridd.schemas": ["*.json"],
                  "gridd.web": ["templates/*.html", "static/*"]},
    data_files=[(f"share/man/{section}", sorted(str(p.relative_to(HERE)) for p in paths))
                for section, paths in sorted(PAGES.items())],
)
