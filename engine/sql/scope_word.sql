-- The scope word of a `tree` or `self` search by caller ?1 (see
-- session_search_scopes in schema.sql): its own, when it is at most 3
-- levels below the top of its spawned_by chain or the chain has no top (a
-- cycle), else its ancestor's 3 levels below the top, which every session
-- of the caller's tree carries too. Returned after the caller's key: the
-- key whose word decides the tree when it is the word returned.
WITH RECURSIVE up(key, n) AS (
  SELECT ?1, 0
  UNION ALL
  SELECT p.spawned_by, up.n + 1 FROM sessions p JOIN up ON p.session_key = up.key
  WHERE p.spawned_by IS NOT NULL AND up.n < 1000)
SELECT ?1, 't' || lower(hex(key)) FROM up
WHERE n = (SELECT CASE WHEN max(n) >= 1000 OR max(n) <= 3 THEN 0 ELSE max(n) - 3 END FROM up)
