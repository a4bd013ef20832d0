"""sqlite-utils plugin: loads the session-search extension into every
connection sqlite-utils opens, so `sessions_search()` and the other
`sessions_*` functions work in `sqlite-utils query`."""

import sqlite3

import sqlite_session_search
from sqlite_utils import hookimpl


@hookimpl
def prepare_connection(conn: sqlite3.Connection) -> None:
    """Load the extension into a new connection."""
    sqlite_session_search.load(conn)
