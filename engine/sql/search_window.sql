,
  -- The window of one search, appended to visible.sql's WITH: the :window
  -- newest matching messages (by id) that pass visibility and the filters,
  -- each with its rank, ranked or sorted by time by the page that follows
  -- (-1: every match), which bounds the work of a query that matches much
  -- of the history. It is read newest first (ascending FTS5 rowid, ~ the
  -- message id) and stops after :window rows.
  -- :caller, :visibility: see visible.sql; `all` and `agent` are checked
  -- per candidate (what visible.sql says of them, without building the
  -- list), `self` and `tree` against the walked list.
  -- :expression = the FTS5 expression; :roles = JSON array of roles or
  -- NULL; :since / :until = unix ms or NULL; :session_keys = JSON array of
  -- session keys or NULL.
  -- :scored_phrases = how many leading phrases of :expression are scored
  -- (NULL: all; the phrases after them only select rows).
  -- :scope_decides = 1 when no candidate's session is checked (the engine
  -- checks the rows returned instead): the FTS5 expression's scope word
  -- alone selects the sessions the caller may see (scope.rs,
  -- ScopeWord::decides), or the visibility is `all`.
  -- :read_messages = 1 when each candidate's message row is read (to check
  -- its session or filter it, or for its time with `recent` or its session
  -- when grouped); else only the page reads rows, and the candidates have
  -- no session or time (a filter on them then drops every candidate: the
  -- engine sets :read_messages whenever one is given).
  -- sessions_rank's second argument is the largest rowid in the index, the
  -- oldest message. :keep = how many rows the page keeps, of every
  -- candidate read in this order (NULL: every candidate's rank is needed):
  -- a candidate that cannot rank among the best :keep of those before it
  -- gets infinity instead of its rank, its length never read.
  -- :other_forms = NULL, or for the fill of a question the bits of the
  -- scored phrases that are other forms of a term (rank.rs,
  -- Bm25::with_other_forms): every phrase then counts by its own IDF.
  -- :speaker = NULL, or the role whose messages' ranks are multiplied by
  -- :speaker_weight (rank.rs, SPEAKER_WEIGHT): the fill of a question about
  -- that role's words (question.rs, Question::speaker); :keep is then NULL
  -- and :read_messages 1.
  -- The limits are written `:window + 0` (and `:page_rows + 0` in the
  -- pages): a bare parameter in a LIMIT makes SQLite 3.54 (the wrapper's
  -- bundled build) prepare the statement again whenever its value changes,
  -- which re-parses this text on almost every run.
  candidates(id, session_key, rank, created_at) AS (
    SELECT ~f.rowid, m.session_key,
           sessions_rank(session_search_fts, (SELECT ~min(id) FROM messages),
                         :scored_phrases, :keep, :other_forms)
             * CASE WHEN m.role = :speaker THEN :speaker_weight ELSE 1 END,
           m.created_at
    FROM session_search_fts f
    -- A NULL key finds no row without searching the table.
    LEFT JOIN messages m ON m.id = CASE WHEN :read_messages THEN ~f.rowid END
    WHERE session_search_fts MATCH :expression
      AND (:scope_decides OR CASE :visibility
            -- Per candidate, one index lookup: no list of sessions is built.
            WHEN 'all' THEN EXISTS (SELECT 1 FROM caller)
              AND EXISTS (SELECT 1 FROM sessions s WHERE s.session_key = m.session_key)
            WHEN 'agent' THEN EXISTS (
              SELECT 1 FROM sessions s
              WHERE s.agent_id = (SELECT agent_id FROM caller) AND s.session_key = m.session_key)
            ELSE m.session_key IN (SELECT session_key FROM visible)
          END)
      AND (:roles IS NULL OR m.role IN (SELECT value FROM json_each(:roles)))
      AND (:since IS NULL OR m.created_at >= :since)
      AND (:until IS NULL OR m.created_at <= :until)
      AND (:session_keys IS NULL OR m.session_key IN (SELECT value FROM json_each(:session_keys)))
    ORDER BY f.rowid
    LIMIT :window + 0)
