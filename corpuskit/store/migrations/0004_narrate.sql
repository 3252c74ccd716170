-- Narratives: story versions, citations, slugs, arcs.

CREATE TABLE stories (
    id               INTEGER PRIMARY KEY,     -- one row per version
    story_key        TEXT NOT NULL,           -- identity of the story across versions (kind|subject)
    version          INTEGER NOT NULL,
    is_current       INTEGER NOT NULL DEFAULT 1,
    kind             TEXT NOT NULL CHECK (kind IN ('lead_story', 'beat_narrative', 'dispatch', 'entity_narrative')),
    slug             TEXT NOT NULL UNIQUE,    -- this version's slug
    headline         TEXT NOT NULL,
    lede             TEXT NOT NULL,
    body             TEXT NOT NULL,
    topic_id         INTEGER REFERENCES topics(id),
    entity_id        INTEGER REFERENCES entities(id),
    category         TEXT NOT NULL DEFAULT 'general',
    signal_severity  TEXT,
    trigger_signal_id INTEGER REFERENCES signals(id),
    featured         INTEGER NOT NULL DEFAULT 0,
    signal_count     INTEGER NOT NULL DEFAULT 0,
    source_count     INTEGER NOT NULL DEFAULT 0,
    read_min         INTEGER NOT NULL DEFAULT 1,
    metadata         TEXT NOT NULL DEFAULT '{}',   -- JSON; includes summary
    refs             TEXT NOT NULL DEFAULT '[]',   -- JSON [{refType, refSlug, displayText}]
    external_citations TEXT NOT NULL DEFAULT '[]', -- JSON [{url, title}]
    evidence_hash    TEXT NOT NULL,
    generated_at     TEXT NOT NULL,
    publish_at       TEXT NOT NULL,
    run_id           TEXT NOT NULL,
    UNIQUE (story_key, version)
);
CREATE INDEX stories_current ON stories(is_current, kind, generated_at);
CREATE INDEX stories_topic ON stories(topic_id, generated_at);
CREATE INDEX stories_entity ON stories(entity_id, generated_at);
CREATE INDEX stories_key ON stories(story_key, version);

CREATE TABLE story_citations (
    story_id   INTEGER NOT NULL REFERENCES stories(id) ON DELETE CASCADE,
    ordinal    INTEGER NOT NULL,              -- the [n] marker in the body
    record_id  INTEGER NOT NULL REFERENCES records(id),
    confidence REAL NOT NULL,
    inferred   INTEGER NOT NULL DEFAULT 0,
    credibility REAL NOT NULL DEFAULT 0,      -- the source's credibilityScore (narrate/credibility)
    PRIMARY KEY (story_id, ordinal)
);

-- Every slug ever used (older versions, non-canonical forms) -> story_key, for 301s.
CREATE TABLE story_slugs (
    slug      TEXT PRIMARY KEY,
    story_key TEXT NOT NULL
);
CREATE INDEX story_slugs_key ON story_slugs(story_key);
CREATE INDEX story_citations_record ON story_citations(record_id);

CREATE TABLE arcs (
    id              INTEGER PRIMARY KEY,
    arc_key         TEXT NOT NULL UNIQUE,     -- beat:<name> | entity:<slug> | lineage:<id>
    slug            TEXT NOT NULL UNIQUE,
    title           TEXT NOT NULL,
    arc_status      TEXT NOT NULL,            -- active, dormant, concluded (rule in narrate/arcs)
    story_count     INTEGER NOT NULL,
    last_updated_at TEXT NOT NULL,
    run_id          TEXT NOT NULL
);

CREATE TABLE arc_stories (
    arc_id    INTEGER NOT NULL REFERENCES arcs(id) ON DELETE CASCADE,
    story_key TEXT NOT NULL,
    PRIMARY KEY (arc_id, story_key)
);
