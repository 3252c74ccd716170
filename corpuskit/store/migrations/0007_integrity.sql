-- 0007 integrity: duplicates by a content key that includes the publication time,
-- and runs that remember which process runs them.

-- The content key (records.content_hash) now hashes source, author, title, text
-- AND publishedAt; schema.py recomputes it for every stored record after this file.
-- Its index covers every record and is not unique: `import --dedupe content`
-- checks records that have a sourceId too, and `--dedupe none` keeps repeated rows.
DROP INDEX records_source_hash;
CREATE INDEX records_source_hash ON records(source, content_hash);

-- The process that runs a stage: a run whose process is gone is marked failed
-- the next time the corpus is opened (corpuskit/store/runs.py).
ALTER TABLE runs ADD COLUMN pid INTEGER;
ALTER TABLE runs ADD COLUMN host TEXT;
ALTER TABLE runs ADD COLUMN process_started TEXT;

-- Runs left 'running' by a corpuskit that did not record its process cannot be
-- checked: they were abandoned (the cause of caches switched off for good).
UPDATE runs SET status = 'failed', finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
WHERE status = 'running';

-- Tweets imported by the twitter_export layout got URLs built from the display
-- name ('https://twitter.com/Rachel Roh/status/ID'), which is not a handle: the
-- form that needs no handle replaces them.
UPDATE records SET url = 'https://twitter.com/i/web/status/' || source_id
WHERE source = 'twitter' AND source_id IS NOT NULL
  AND url = 'https://twitter.com/' || author || '/status/' || source_id;
