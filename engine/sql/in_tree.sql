-- Whether session ?1 is in the `tree` of caller ?2 (visible.sql): the
-- caller itself or a session below it, found by walking up spawned_by from
-- ?1 until the caller, the top, or 1000 steps (a chain that long, or a
-- cycle not through the caller, answers 0: never visible by mistake).
WITH RECURSIVE up(key, n) AS (
  SELECT ?1, 0
  UNION ALL
  SELECT s.spawned_by, up.n + 1 FROM sessions s JOIN up ON s.session_key = up.key
  WHERE up.key <> ?2 AND s.spawned_by IS NOT NULL AND up.n < 1000)
SELECT EXISTS (SELECT 1 FROM up WHERE key = ?2)
