-- Languages: sentiment is NULL for a record in a language the scorer does not cover, and a record
-- whose entities were not extracted (the extractor does not cover its language) says so.
-- SQLite cannot drop a NOT NULL constraint, so the enrichment table is rebuilt (nothing references it).

CREATE TABLE enrichment_0011 (
    record_id        INTEGER PRIMARY KEY REFERENCES records(id) ON DELETE CASCADE,
    sentiment_score  REAL,                            -- NULL: the scorer does not cover the record's language
    sentiment_label  TEXT CHECK (sentiment_label IN ('positive', 'neutral', 'negative')),
    topic_id         INTEGER REFERENCES topics(id),   -- primary (highest-confidence) topic, or NULL
    themes           TEXT NOT NULL DEFAULT '[]',      -- JSON array: the beat keywords found in the text
    run_id           TEXT NOT NULL,
    entities_skipped INTEGER NOT NULL DEFAULT 0       -- 1: the extractor does not cover the record's language
);
INSERT INTO enrichment_0011(record_id, sentiment_score, sentiment_label, topic_id, themes, run_id)
    SELECT record_id, sentiment_score, sentiment_label, topic_id, themes, run_id FROM enrichment;
DROP TABLE enrichment;
ALTER TABLE enrichment_0011 RENAME TO enrichment;
CREATE INDEX IF NOT EXISTS enrichment_topic ON enrichment(topic_id);
CREATE INDEX IF NOT EXISTS enrichment_label ON enrichment(sentiment_label);
CREATE INDEX IF NOT EXISTS records_language ON records(language);
