,
  -- The window of one search, appended to visible.sql's WITH: the ?10
  -- newest matching messages (by id) that pass visibility and the filters,
  -- each with its rank, ranked or sorted by time by the page that follows
  -- (-1: every match), which bounds the work of a query that matches much
  -- of the history. It is read newest first (ascending FTS5 rowid, ~ the
  -- message id) and stops after ?10 rows.
  -- ?1, ?2: see visible.sql; `all` and `agent` are checked per candidate
  -- (what visible.sql says of them, without building the list), `self` and
  -- `tree` against the walked list. ?3 = FTS5 expression, ?4 = JSON array
  -- of roles or NULL, ?5 / ?6 = since / until (unix ms) or NULL, ?7 = JSON
  -- array of session keys or NULL, ?11 = how many leading phrases of ?3 are
  -- scored (NULL: all; the phrases after them only select rows), ?12 =
  -- 1 when no candidate's session is checked (the engine checks the rows
  -- returned instead): the FTS5 expression's scope word alone selects the
  -- sessions the caller may see (scope.rs, ScopeWord::decides), or the
  -- visibility is `all`.
  -- ?13 = 1 when each candidate's message row is read (to check its session
  -- or filter it, or for its time with `recent` or its session when
  -- grouped); else only the page reads rows, and the candidates have no
  -- session or time (a filter on them then drops every candidate: the
  -- engine sets ?13 whenever one is given).
  -- sessions_rank's second argument is the largest rowid in the index, the
  -- oldest message. ?14 = how many rows the page keeps, of every candidate
  -- read in this order (NULL: every candidate's rank is needed): a candidate
  -- that cannot rank among the best ?14 of those before it gets infinity
  -- instead of its rank, its length never read. ?15 = NULL, or for the fill
  -- of a question the bits of the scored phrases that are other forms of a
  -- term (rank.rs, Bm25::with_other_forms): every phrase then counts by its
  -- own IDF.
  -- The limits are written `?10 + 0` (and `?9 + 0` in the pages): a bare
  -- parameter in a LIMIT makes SQLite 3.54 (the wrapper's bundled build)
  -- prepare the statement again whenever its value changes, which re-parses
  -- this text on almost every run.
  candidates(id, session_key, rank, created_at) AS (
    SELECT ~f.rowid, m.session_key,
           sessions_rank(session_search_fts, (SELECT ~min(id) FROM messages), ?11, ?14, ?15), m.created_at
    FROM session_search_fts f
    -- A NULL key finds no row without searching the table.
    LEFT JOIN messages m ON m.id = CASE WHEN ?13 THEN ~f.rowid END
    WHERE session_search_fts MATCH ?3
      AND (?12 OR CASE ?2
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
    LIMIT ?10 + 0)
