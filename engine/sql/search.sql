-- Hits of one search, after visibility and filters, best first.
-- ?1, ?2: see visible.sql; `all` and `agent` are checked per candidate
-- (what visible.sql says of them, without building the list), `self` and
-- `tree` against the walked list. ?3 = FTS5 expression, ?4 = JSON array of roles or
-- NULL, ?5 / ?6 = since / until (unix ms) or NULL, ?7 = JSON array of
-- session keys or NULL, ?8 = 'relevance' or 'recent', ?9 = limit, ?11 = 1
-- to group by session (the best row of each session, with the number of
-- its rows in the window), else 0, ?12 = how many leading phrases of ?3
-- are scored (NULL: all; the tier markers after them only select rows), ?13 =
-- 1 when the FTS5 expression's scope word alone selects the caller's tree
-- (scope.rs, ScopeWord::decides_tree: the tree is then not walked), ?10 =
-- the window: only the ?10 newest matching messages (by id) that pass
-- visibility and the filters are ranked or sorted by time (-1: all), which
-- bounds the work of a query that matches much of the history.
-- The limits are written `?9 + 0` and `?10 + 0`: a bare parameter in a
-- LIMIT makes SQLite 3.54 (the wrapper's bundled build) prepare the statement again whenever
-- its value changes, which re-parses this text on almost every run.
-- The window is read newest first (ascending FTS5 rowid, ~ the message
-- id) and stops after ?10 rows; each row also says how many rows the window
-- read and the oldest id among them (for `recent`, see search.rs); sorting reads only ids and ranks, and the
-- content is read for the page (the engine redacts its excerpt). sessions_rank's second argument is the largest
-- rowid in the index, the oldest message.
SELECT m.session_key, m.id, m.message_id, m.role, m.created_at, hit.rank, m.content,
       hit.window_rows, hit.window_oldest, hit.session_hits
FROM (
  SELECT id, rank, created_at, window_rows, window_oldest, session_hits
  FROM (
    SELECT id, rank, created_at, count(*) OVER () AS window_rows, min(id) OVER () AS window_oldest,
           CASE WHEN ?11 THEN count(*) OVER (PARTITION BY session_key) END AS session_hits,
           CASE WHEN ?11 THEN row_number() OVER (
             PARTITION BY session_key
             ORDER BY CASE WHEN ?8 = 'recent' THEN -created_at ELSE rank END, created_at DESC, id DESC)
           ELSE 1 END AS nth
    FROM (
    SELECT m.id AS id, m.session_key AS session_key,
           sessions_rank(session_search_fts, (SELECT ~min(id) FROM messages), ?12) AS rank, m.created_at AS created_at
    FROM session_search_fts f
    JOIN messages m ON m.id = ~f.rowid
    WHERE session_search_fts MATCH ?3
      AND (?13 OR CASE ?2
            -- Per candidate, one index lookup: no list of sessions is built.
            WHEN 'all' THEN EXISTS (SELECT 1 FROM caller)
              AND EXISTS (SELECT 1 FROM sessions s WHERE s.session_key = m.session_key)
            WHEN 'agent' THEN EXISTS (
              SELECT 1 FROM sessions s
              WHERE s.agent_id = (SELECT agent_id FROM caller) AND s.session_key = m.session_key)
            ELSE m.session_key IN (SELECT session_key FROM visible)
          END)
      AND (?4 IS NULL OR m.role IN (SELECT value FROM json_each(?4)))
      AND (?5 IS NULL OR m.created_at >= ?5)
      AND (?6 IS NULL OR m.created_at <= ?6)
      AND (?7 IS NULL OR m.session_key IN (SELECT value FROM json_each(?7)))
    ORDER BY f.rowid
    LIMIT ?10 + 0
    )
  )
  WHERE nth = 1
  ORDER BY CASE WHEN ?8 = 'recent' THEN -created_at ELSE rank END, created_at DESC, id DESC
  LIMIT ?9 + 0
) AS hit
JOIN messages m ON m.id = hit.id
ORDER BY CASE WHEN ?8 = 'recent' THEN -hit.created_at ELSE hit.rank END, hit.created_at DESC, hit.id DESC
