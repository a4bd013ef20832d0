-- The sessions visible to a caller, evaluated inside every read query
-- before any limit. :caller = the caller's session_key, :visibility =
-- the visibility:
--   self   the caller's session
--   tree   the caller and every session it spawned, transitively
--   agent  every session of the caller's agent
--   all    every session
-- An unknown caller sees nothing (the engine reports it as an error first).
WITH RECURSIVE
  caller(session_key, agent_id) AS (
    SELECT session_key, agent_id FROM sessions WHERE session_key = :caller),
  -- Each session has one spawned_by, so a session below the caller is
  -- reached by one path only, unless the caller lies on a spawned_by cycle;
  -- never walking back into the caller ends every walk and lets UNION ALL
  -- skip UNION's duplicate check (a third of the walk's time).
  tree(session_key) AS (
    SELECT session_key FROM caller WHERE :visibility = 'tree'
    UNION ALL
    SELECT s.session_key FROM sessions s JOIN tree t ON s.spawned_by = t.session_key
    WHERE s.session_key <> :caller),
  visible(session_key) AS (
    SELECT session_key FROM caller WHERE :visibility = 'self'
    UNION ALL
    SELECT session_key FROM tree
    UNION ALL
    SELECT s.session_key FROM sessions s JOIN caller c ON s.agent_id = c.agent_id WHERE :visibility = 'agent'
    UNION ALL
    SELECT s.session_key FROM sessions s WHERE :visibility = 'all' AND EXISTS (SELECT 1 FROM caller))
