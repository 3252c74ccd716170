-- 0018 published by id: each record's publication time, looked up by its id without reading the record.
--
-- The explorer charts a query over time from the ids the full-text index matches: each match's
-- published_at looked up in the records table reads the page of the record's text (tens of thousands
-- of pages for a common term at a million records). This index holds only the id and the time, so
-- those lookups read a few hundred small pages (see corpuskit.query.subsets.query_seconds).
CREATE INDEX IF NOT EXISTS records_id_published ON records(id, published_at);
