-- The scope word of a `tree` or `self` search by caller ?1 (see
-- session_search_scopes in schema.sql): its own, when it is at most 3
-- levels below the top of its spawned_by chain, else its ancestor's 3
-- levels below the top, which every session of the caller's tree carries
-- too; 'tz' when the chain has no top (a cycle), which every session whose
-- chain passes through the caller carries then. Returned after the caller's
-- key: the key whose word decides the tree when it is the word returned.
WITH RECURSIVE up(key, n) AS (
  SELECT ?1, 0
  UNION ALL
  SELECT p.spawned_by, up.n + 1 FROM sessions p JOIN up ON p.session_key = up.key
  WHERE p.spawned_by IS NOT NULL AND up.n < 1000),
top(n) AS (SELECT max(n) FROM up)
SELECT ?1, CASE WHEN top.n >= 1000 THEN 'tz' ELSE 't' || lower(hex(key)) END FROM up, top
WHERE up.n = CASE WHEN top.n >= 1000 OR top.n <= 3 THEN 0 ELSE top.n - 3 END
