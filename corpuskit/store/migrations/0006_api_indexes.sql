-- 0006 api: indexes the HTTP interfaces need to answer fast.

-- /api/v1/status (per-source record count and last capture time): a covering
-- index scan instead of a full scan of the records table.
CREATE INDEX records_source_captured ON records(source, captured_at);
