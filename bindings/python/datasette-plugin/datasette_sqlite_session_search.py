"""Datasette plugin: loads the session-search extension into every
connection Datasette opens, so SQL queries and canned queries can call
`sessions_search()` and the other `sessions_*` functions."""

import sqlite3

import sqlite_session_search
from datasette import hookimpl


@hookimpl
def prepare_connection(conn: sqlite3.Connection) -> None:
    """Load the extension into a new connection."""
    sqlite_session_search.load(conn)
