-- The window of a search not grouped by session (after visible.sql and
-- search_window.sql): its candidates, which the engine reads as they come
-- and keeps only the page of (search.rs, `Page`). Sorting and counting
-- them in SQL would open temporary tables, a page cache each, whose
-- allocation and release cost a search that returns a few rows more than
-- the rows themselves.
SELECT id, rank, created_at FROM candidates
