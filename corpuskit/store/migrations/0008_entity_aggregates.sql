-- 0008 entity aggregates: per-entity sums over every mention, written by analyse.
--
-- The /v1 entity list, detail and trending answers need, per entity, sums over all
-- of its mentions (joined to their records, topics and sentiment). Computed on
-- request they read every mention of the corpus. analyse writes them here, with the
-- inputs they were computed from (meta key 'entity_aggregates'); a reader uses them
-- only while those inputs are unchanged (see corpuskit.analysis.entity_aggregates).
CREATE TABLE IF NOT EXISTS entity_aggregates (
    entity_id  INTEGER PRIMARY KEY,
    mentions   INTEGER NOT NULL,       -- sum(mentions.mention_count)
    sources    INTEGER NOT NULL,       -- distinct source kinds of the mentioning records
    top_topic  TEXT,                   -- display name of the topic with most mentions (ties: name)
    by_source  TEXT NOT NULL,          -- JSON {source: mentions}
    by_label   TEXT NOT NULL,          -- JSON {sentiment label, '' when unscored: mentioning records}
    by_topic   TEXT NOT NULL           -- JSON {topic id: mentions in records assigned to it}
);

-- A topic's record volume counts records whose enrichment names the topic, or, without
-- one, whose import named it (records.topic, a hint most records lack): the hinted
-- ones are found through this index instead of a scan of every record.
CREATE INDEX IF NOT EXISTS records_topic ON records(topic) WHERE topic IS NOT NULL;
