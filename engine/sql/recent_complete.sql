-- Whether a window of matches read in index order (message id, newest
-- first) holds the newest by time, so `order: recent` need not read
-- further: no message older by id than the window's oldest
-- (:window_oldest) is newer by created_at than the oldest row kept from it
-- (:oldest_time). The ids below :window_oldest in its own block of 256 are
-- looked at one by one; the blocks below it through
-- session_search_time_blocks, whose :blocks blocks newest after
-- :oldest_time are looked at. Answers 0 when the window holds the newest;
-- 1 when a message older by id may be newer (a wider window may hold
-- them); 2 when none of the :blocks blocks looked at is below
-- :window_oldest's, but there are more (only reading every match can
-- tell). Any message counts, visible or not, so a 0 is never wrong.
SELECT CASE
  WHEN EXISTS (SELECT 1 FROM messages
               WHERE id >= (:window_oldest >> 8) << 8 AND id < :window_oldest
                 AND created_at > :oldest_time) THEN 1
  ELSE (SELECT CASE WHEN coalesce(min(block) < :window_oldest >> 8, 0) THEN 1 WHEN count(*) >= :blocks THEN 2 ELSE 0 END
        FROM (SELECT block FROM session_search_time_blocks WHERE newest > :oldest_time ORDER BY newest LIMIT :blocks))
END
