-- Enrichment: sentiment, entities and mentions, topics (beats) and assignments, embeddings.

CREATE TABLE enrichment (
    record_id       INTEGER PRIMARY KEY REFERENCES records(id) ON DELETE CASCADE,
    sentiment_score REAL NOT NULL,
    sentiment_label TEXT NOT NULL CHECK (sentiment_label IN ('positive', 'neutral', 'negative')),
    topic_id        INTEGER REFERENCES topics(id),   -- primary (highest-confidence) topic, or NULL
    themes          TEXT NOT NULL DEFAULT '[]',      -- JSON array: the beat keywords found in the text
    run_id          TEXT NOT NULL
);
CREATE INDEX enrichment_topic ON enrichment(topic_id);
CREATE INDEX enrichment_label ON enrichment(sentiment_label);

CREATE TABLE topics (
    id           INTEGER PRIMARY KEY,
    name         TEXT NOT NULL UNIQUE,        -- identifier used in /api/v1 filters and paths
    display_name TEXT NOT NULL,
    description  TEXT NOT NULL DEFAULT '',
    category     TEXT NOT NULL DEFAULT 'general',
    keywords     TEXT NOT NULL DEFAULT '[]',  -- JSON array
    subreddits   TEXT NOT NULL DEFAULT '[]',  -- JSON array
    active       INTEGER NOT NULL DEFAULT 1,
    discovered   INTEGER NOT NULL DEFAULT 0,  -- 1 when found from the corpus text, 0 from a beat file
    created_at   TEXT NOT NULL
);

CREATE TABLE topic_assignments (
    record_id  INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
    topic_id   INTEGER NOT NULL REFERENCES topics(id) ON DELETE CASCADE,
    confidence REAL NOT NULL,
    PRIMARY KEY (record_id, topic_id)
);
CREATE INDEX topic_assignments_topic ON topic_assignments(topic_id, record_id);

CREATE TABLE entities (
    id         INTEGER PRIMARY KEY,           -- also the legacy numeric key
    slug       TEXT NOT NULL UNIQUE,          -- canonical slug
    name       TEXT NOT NULL,                 -- canonical display name (case-sensitive)
    type       TEXT NOT NULL CHECK (type IN ('person', 'org', 'product', 'place', 'concept')),
    first_seen TEXT,
    last_seen  TEXT,
    mention_count INTEGER NOT NULL DEFAULT 0,
    updated_at TEXT NOT NULL
);
CREATE INDEX entities_type ON entities(type, mention_count);

CREATE TABLE entity_aliases (
    alias_key TEXT PRIMARY KEY,               -- normalised alias (lower case, no @, no possessive)
    entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    surface   TEXT NOT NULL                   -- one surface form as seen
);

CREATE TABLE mentions (
    record_id     INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
    entity_id     INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    surface       TEXT NOT NULL,              -- the text as written in the record (first occurrence)
    mention_count INTEGER NOT NULL,
    positions     TEXT NOT NULL,              -- JSON array of offsets into title + newline + contentText (contentText alone when the title is empty or equal)
    PRIMARY KEY (record_id, entity_id)
);
CREATE INDEX mentions_entity ON mentions(entity_id, record_id);

CREATE TABLE models (
    name       TEXT PRIMARY KEY,              -- e.g. 'embedder'
    kind       TEXT NOT NULL,                 -- model name, e.g. 'corpuskit-tfidf-svd-512'
    dimensions INTEGER,
    state      BLOB NOT NULL,                 -- serialised fitted state
    settings   TEXT NOT NULL DEFAULT '{}',
    run_id     TEXT,
    created_at TEXT NOT NULL
);

CREATE VIRTUAL TABLE record_vectors USING vec0(
    record_id INTEGER PRIMARY KEY,
    embedding float[512] distance_metric=cosine
);
