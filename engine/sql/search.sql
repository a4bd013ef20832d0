-- The page of one search (after visible.sql and search_window.sql): the
-- ?9 best hits of the window, best first; ?8 = 'relevance' (rank, then
-- newer) or 'recent' (newer first). Sorting reads only ids, ranks and, for
-- `recent`, times; the message rows are read for the page: with
-- `relevance`, for every candidate ranked at least as well as the ?9th
-- (ties at its rank are then told apart by time), and the engine redacts
-- the excerpt of its content.
SELECT m.session_key, m.id, m.message_id, m.role, m.created_at, hit.rank, m.content,
       totals.window_rows, totals.window_oldest, NULL AS session_hits
FROM (
  SELECT id, rank FROM candidates
  WHERE CASE WHEN ?8 = 'recent' THEN 1
        ELSE rank <= (SELECT max(rank) FROM (SELECT rank FROM candidates ORDER BY rank LIMIT ?9 + 0))
        END
  ORDER BY CASE WHEN ?8 = 'recent' THEN -created_at END, id DESC
  LIMIT CASE WHEN ?8 = 'recent' THEN ?9 + 0 ELSE -1 END
) AS hit
JOIN messages m ON m.id = hit.id, totals
ORDER BY CASE WHEN ?8 = 'recent' THEN -m.created_at ELSE hit.rank END, m.created_at DESC, m.id DESC
LIMIT ?9 + 0
