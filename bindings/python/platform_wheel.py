"""The setup.py of the packages with native code: tags the wheel for this
platform but any Python 3 (`py3-none-<platform>`).

sqlite-session-search carries the SQLite extension, sqlite-session-search-cli
the `session-search` program; no Python loads either as a module, so the
wheel depends on the platform, not on the interpreter. `make python` copies
this file into each package's build folder as its setup.py.
"""

from setuptools import Distribution, setup
from setuptools.command.bdist_wheel import bdist_wheel


class BinaryDistribution(Distribution):
    """A distribution with native code, installed into platlib."""

    def has_ext_modules(self) -> bool:
        return True


class PlatformWheel(bdist_wheel):
    """A platform wheel without a Python ABI."""

    def get_tag(self) -> tuple:
        return "py3", "none", super().get_tag()[2]


setup(distclass=BinaryDistribution, cmdclass={"bdist_wheel": PlatformWheel})
