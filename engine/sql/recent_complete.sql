-- Whether a window of matches read in index order (message id, newest
-- first) holds the newest by time, so `order: recent` need not read
-- further: no message older by id than the window's oldest (?2) is newer
-- by created_at than the oldest row kept from it (?1). The ids below ?2 in
-- its own block of 256 are looked at one by one; the blocks below it
-- through session_search_time_blocks, whose ?3 blocks newest after ?1 are
-- looked at. Answers 0 when the window holds the newest; 1 when a message
-- older by id may be newer (a wider window may hold them); 2 when none of
-- the ?3 blocks looked at is below ?2's, but there are more (only reading
-- every match can tell). Any message counts, visible or not, so a 0 is
-- never wrong.
SELECT CASE
  WHEN EXISTS (SELECT 1 FROM messages WHERE id >= (?2 >> 8) << 8 AND id < ?2 AND created_at > ?1) THEN 1
  ELSE (SELECT CASE WHEN coalesce(min(block) < ?2 >> 8, 0) THEN 1 WHEN count(*) >= ?3 THEN 2 ELSE 0 END
        FROM (SELECT block FROM session_search_time_blocks WHERE newest > ?1 ORDER BY newest LIMIT ?3))
END
