-- 0014 record counts: the counts behind the topic, source, sentiment and day filters, written by analyse.
--
-- Counted on request, a filter on a topic, a source or a sentiment label reads every record it
-- selects (seconds at a million records). analyse keeps the counts here, with the inputs they were
-- computed from (meta key 'record_counts'); a reader uses them only while those inputs are unchanged
-- and counts live otherwise (see corpuskit.query.stored_counts and corpuskit.analysis.record_counts).

-- Records per published day, primary topic, source and sentiment label.
CREATE TABLE IF NOT EXISTS record_counts (
    day        TEXT NOT NULL,             -- records.day (UTC day of published_at)
    topic_id   INTEGER NOT NULL,          -- enrichment.topic_id, 0 when the record has none
    topic_hint TEXT NOT NULL,             -- records.topic when topic_id is 0 (the import hint), else ''
    source     TEXT NOT NULL,             -- records.source
    sentiment  TEXT NOT NULL,             -- enrichment.sentiment_label, '' when never enriched
    records    INTEGER NOT NULL,
    PRIMARY KEY (topic_id, topic_hint, source, sentiment, day)
);
CREATE INDEX IF NOT EXISTS record_counts_source ON record_counts(source, sentiment, records);
CREATE INDEX IF NOT EXISTS record_counts_day ON record_counts(day);

-- Topic assignments per topic and published day (a record may be assigned several topics).
CREATE TABLE IF NOT EXISTS topic_day_counts (
    topic_id INTEGER NOT NULL,
    day      TEXT NOT NULL,
    records  INTEGER NOT NULL,
    PRIMARY KEY (topic_id, day)
);
CREATE INDEX IF NOT EXISTS topic_day_counts_day ON topic_day_counts(day);

-- A topic's most confident records (/v1/topics/{id} samples five) in confidence order, instead
-- of a sort of every assignment of the topic.
CREATE INDEX IF NOT EXISTS topic_assignments_confidence ON topic_assignments(topic_id, confidence);
