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

from pathlib import Path
from typing import Any, Callable, Optional

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


def _load_with(conn: object, enable: Callable[[bool], Any], load_ext: Callable[[str], Any]) -> None:
    """Enable extension loading, load, and disable it again."""
    path = loadable_path()
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
    ``apsw``. Extension loading is enabled only for the load itself. Raises
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
