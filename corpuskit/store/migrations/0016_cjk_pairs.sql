-- The full-text index stores a Chinese or Japanese run as its overlapping character pairs (see
-- corpuskit/store/fulltext.py), where it stored the whole run as one token. The Python step of this
-- migration (store/schema.py) indexes again every record whose title or text holds such a run.
SELECT 1;
