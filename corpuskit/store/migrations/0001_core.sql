-- Core: records, corpus metadata, stage runs, API keys and rate-limit counters.
-- Timestamps are UTC ISO 8601 strings 'YYYY-MM-DDTHH:MM:SSZ' (they sort as text).

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE runs (
    id          TEXT PRIMARY KEY,          -- e.g. 'enrich-20261122T101500Z-1a2b3c'
    stage       TEXT NOT NULL,             -- import, demo, enrich, analyse, narrate, collect
    settings    TEXT NOT NULL DEFAULT '{}',-- JSON
    model       TEXT,
    started_at  TEXT NOT NULL,
    finished_at TEXT,
    status      TEXT NOT NULL DEFAULT 'running'  -- running, done, failed
);

CREATE TABLE records (
    id            INTEGER PRIMARY KEY,
    source        TEXT NOT NULL,
    source_id     TEXT,
    content_hash  TEXT NOT NULL,
    content_type  TEXT NOT NULL DEFAULT 'post',
    title         TEXT NOT NULL DEFAULT '',
    content_text  TEXT NOT NULL,
    url           TEXT NOT NULL DEFAULT '',
    author        TEXT NOT NULL DEFAULT '',
    published_at  TEXT NOT NULL,
    captured_at   TEXT NOT NULL,
    subreddit     TEXT,
    language      TEXT NOT NULL DEFAULT 'en',
    topic         TEXT,                    -- topic hint given at import (--topic), else NULL
    metadata      TEXT NOT NULL DEFAULT '{}',  -- JSON object
    run_id        TEXT,
    day           TEXT GENERATED ALWAYS AS (substr(published_at, 1, 10)) VIRTUAL
);
CREATE UNIQUE INDEX records_source_sid ON records(source, source_id) WHERE source_id IS NOT NULL;
CREATE UNIQUE INDEX records_source_hash ON records(source, content_hash) WHERE source_id IS NULL;
CREATE INDEX records_published ON records(published_at, id);
CREATE INDEX records_captured ON records(captured_at, id);
CREATE INDEX records_source_published ON records(source, published_at, id);
CREATE INDEX records_day ON records(day);

CREATE TABLE api_keys (
    id           INTEGER PRIMARY KEY,
    name         TEXT NOT NULL DEFAULT '',
    prefix       TEXT NOT NULL,            -- first characters, shown in listings
    key_hash     TEXT NOT NULL UNIQUE,     -- sha256 hex of the full key
    tier         TEXT NOT NULL CHECK (tier IN ('free', 'research', 'enterprise')),
    per_minute   INTEGER NOT NULL,
    per_day      INTEGER NOT NULL,
    created_at   TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at   TEXT
);

CREATE TABLE rate_counters (
    key_id  INTEGER NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
    window  TEXT NOT NULL,                 -- 'm:YYYY-MM-DDTHH:MM' or 'd:YYYY-MM-DD'
    count   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (key_id, window)
);
