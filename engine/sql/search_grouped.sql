,
  -- How many rows the window read and the oldest id among them (for
  -- `recent`, see search.rs). Read twice, the window is materialized.
  totals(window_rows, window_oldest) AS (SELECT count(*), min(id) FROM candidates)
-- The page of one search grouped by session (after visible.sql and
-- search_window.sql): the best hit of each session in the window, with the
-- number of its session's hits there, the :page_rows best of them first;
-- :order = 'relevance' (rank, then newer) or 'recent' (newer first).
SELECT m.session_key, m.id, m.message_id, m.role, m.created_at, hit.rank, m.content,
       totals.window_rows, totals.window_oldest, hit.session_hits
FROM (
  SELECT id, rank, created_at, session_hits
  FROM (
    SELECT id, rank, created_at,
           count(*) OVER (PARTITION BY session_key) AS session_hits,
           row_number() OVER (
             PARTITION BY session_key
             ORDER BY CASE WHEN :order = 'recent' THEN -created_at ELSE rank END, created_at DESC, id DESC
           ) AS nth
    FROM candidates
  )
  WHERE nth = 1
  ORDER BY CASE WHEN :order = 'recent' THEN -created_at ELSE rank END, created_at DESC, id DESC
  LIMIT :page_rows + 0
) AS hit
JOIN messages m ON m.id = hit.id, totals
ORDER BY CASE WHEN :order = 'recent' THEN -hit.created_at ELSE hit.rank END, hit.created_at DESC, hit.id DESC
