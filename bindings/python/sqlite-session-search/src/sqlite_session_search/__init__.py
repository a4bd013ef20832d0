"""The session-search SQLite extension, packaged for Python.

Exact full-text search over agents' past conversations: the ``sessions``
tokenizer, the transcript schema and the ``sessions_*`` SQL functions.

    import sqlite3
    import sqlite_session_search

    db = sqlite3.connect("agent.db")
    sqlite_session_search.load(db)
    db.execute("SELECT sessions_init()")

``load`` works with connections of the standard ``sqlite3`` module (where it
can load extensions), ``pysqlite3``, ``sqlean`` and ``apsw``;
``loadable_path()`` is the extension file itself, for any other SQLite host.
"""

import atexit
import functools
import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, Optional

__version__ = "0.1.0"

__all__ = [
    "ExtensionLoadingUnavailable",
    "LoadError",
    "__version__",
    "load",
    "loadable_path",
]

ALTERNATIVES = (
    "use a SQLite module that can: `pip install pysqlite3-binary` "
    "(import pysqlite3.dbapi2 as sqlite3), `pip install apsw`, "
    "`pip install sqlean.py` (import sqlean as sqlite3), "
    "or a Python built with --enable-loadable-sqlite-extensions"
)


class LoadError(RuntimeError):
    """The extension could not be loaded into a connection."""


class ExtensionLoadingUnavailable(LoadError):
    """The connection's SQLite module cannot load extensions at all."""


def loadable_path() -> str:
    """Absolute path of the bundled extension (``session_search.so``).

    Give it to any SQLite host's ``load_extension``; the entry point needs no
    naming.
    """
    return str(Path(__file__).resolve().with_name("session_search.so"))


def _unavailable(conn: object, why: str) -> ExtensionLoadingUnavailable:
    kind = f"{type(conn).__module__}.{type(conn).__qualname__}"
    return ExtensionLoadingUnavailable(
        f"cannot load the session-search extension: this {kind} cannot load "
        f"SQLite extensions ({why}); {ALTERNATIVES}"
    )


# The file loaded into each SQLite library of this process, by the module
# that carries it. A loaded copy of the extension serves one library (it
# refuses a second), and pysqlite3, sqlean and apsw each carry their own: the
# first library gets the bundled file, each other a copy under another path,
# in a private folder removed at exit.
_PATHS: Dict[str, str] = {}


def _path_for(conn: object) -> str:
    library = type(conn).__module__.split(".")[0]
    if library not in _PATHS:
        if not _PATHS:
            _PATHS[library] = loadable_path()
        else:
            folder = _copies()
            copy = Path(folder) / f"session_search_{library}.so"
            shutil.copyfile(loadable_path(), copy)
            _PATHS[library] = str(copy)
    return _PATHS[library]


@functools.lru_cache(maxsize=None)
def _copies() -> str:
    """The private folder of the copies, made at the first."""
    folder = tempfile.mkdtemp(prefix="sqlite-session-search-")
    atexit.register(shutil.rmtree, folder, True)
    return folder


def _load_with(conn: object, enable: Callable[[bool], Any], load_ext: Callable[[str], Any]) -> None:
    """Enable extension loading, load, and disable it again."""
    path = _path_for(conn)
    try:
        enable(True)
    except Exception as e:
        if type(e).__name__ == "NotSupportedError":
            raise _unavailable(conn, str(e)) from e
        raise
    try:
        load_ext(path)
    except Exception as e:
        raise LoadError(f"cannot load the session-search extension from {path}: {e}") from e
    finally:
        enable(False)


def load(conn: Any) -> None:
    """Load the extension into ``conn``.

    ``conn`` is a connection of ``sqlite3``, ``pysqlite3``, ``sqlean`` or
    ``apsw``, and connections of several of them may be used in one process
    (each library gets its own copy of the extension). Extension loading is
    enabled only for the load itself. Raises
    ``ExtensionLoadingUnavailable`` (a ``LoadError``) naming the alternatives
    when the connection's module cannot load extensions, and ``LoadError``
    when loading fails.
    """
    enable: Optional[Callable[[bool], Any]]
    load_ext: Optional[Callable[[str], Any]]
    if hasattr(conn, "enableloadextension"):  # apsw
        enable = getattr(conn, "enableloadextension")
        load_ext = getattr(conn, "loadextension", None)
    else:  # sqlite3 and its DB-API look-alikes
        enable = getattr(conn, "enable_load_extension", None)
        load_ext = getattr(conn, "load_extension", None)
    if enable is None or load_ext is None:
        raise _unavailable(conn, "it has no enable_load_extension")
    _load_with(conn, enable, load_ext)
