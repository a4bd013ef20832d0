-- Whether a window of matches read in index order (message id, newest
-- first) holds the newest by time, so `order: recent` need not read
-- further: no message older by id than the window's oldest (?2) is newer
-- by created_at than the oldest row kept from it (?1). Only the ?3 newest
-- messages newer than ?1 are looked at. Answers 0 when the window holds the
-- newest; 1 when a message older by id is newer (a wider window may hold
-- them); 2 when none of the ?3 looked at is, but there are more (only
-- reading every match can tell). Any message counts, visible or not, so a
-- 0 is never wrong.
SELECT CASE WHEN coalesce(min(id) < ?2, 0) THEN 1 WHEN count(*) >= ?3 THEN 2 ELSE 0 END
FROM (SELECT id FROM messages WHERE created_at > ?1 ORDER BY created_at DESC LIMIT ?3)
