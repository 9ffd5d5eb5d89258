"""Maps the top-level grammar/ and reports/ folders into the installed package."""

from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["gridd", "gridd.*"]) + ["gridd.grammar", "gridd.reports"],
    package_dir={"gridd.grammar": "grammar", "gridd.reports": "reports"},
    package_data={"gridd.grammar": ["*.lark"], "gridd.reports": ["*.sql", "schema/*.sql"]},
)
