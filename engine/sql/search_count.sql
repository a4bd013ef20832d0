-- How many candidates one search's window read (after visible.sql and
-- search_window.sql): the messages a query term matches among those the
-- caller may see under the search's filters, at most :window.
SELECT count(*) FROM candidates
