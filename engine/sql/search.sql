-- The page of one search (after visible.sql and search_window.sql): the
-- ?9 best hits of the window, best first; ?8 = 'relevance' (rank, then
-- newer) or 'recent' (newer first). Sorting reads only ids and ranks; the
-- content is read for the page (the engine redacts its excerpt).
SELECT m.session_key, m.id, m.message_id, m.role, m.created_at, hit.rank, m.content,
       totals.window_rows, totals.window_oldest, NULL AS session_hits
FROM (
  SELECT id, rank, created_at FROM candidates
  ORDER BY CASE WHEN ?8 = 'recent' THEN -created_at ELSE rank END, created_at DESC, id DESC
  LIMIT ?9 + 0
) AS hit
JOIN messages m ON m.id = hit.id, totals
ORDER BY CASE WHEN ?8 = 'recent' THEN -hit.created_at ELSE hit.rank END, hit.created_at DESC, hit.id DESC
