"""The ``session-search`` program, packaged for Python's installers.

The wheel carries the native program; the ``session-search`` command this
package installs runs it with the same arguments, standard streams and exit
status.
"""

import os
import sys
from pathlib import Path

__version__ = "0.1.0"

__all__ = ["__version__", "binary", "main"]


def binary() -> Path:
    """The path of the native ``session-search`` program in this package."""
    return Path(__file__).resolve().parent / "bin" / "session-search"


def main() -> None:
    """Replaces this process with the native program, given this process's
    arguments (so signals, streams and the exit status are the program's)."""
    program = str(binary())
    os.execv(program, [program, *sys.argv[1:]])
