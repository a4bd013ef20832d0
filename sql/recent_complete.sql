-- Whether a window of matches read in index order (message id, newest
-- first) holds the newest by time, so `order: recent` need not read
-- further: no message older by id than the window's oldest (?2) is newer
-- by created_at than the oldest row kept from it (?1). Only the ?3 newest
-- messages by time are looked at; with ?3 or more newer than ?1 the answer
-- is no, and the search reads a wider window. Any message counts, visible
-- or not, so a yes is never wrong.
SELECT count(*) < ?3 AND coalesce(min(id) >= ?2, 1)
FROM (SELECT id FROM messages WHERE created_at > ?1 ORDER BY created_at DESC LIMIT ?3)
