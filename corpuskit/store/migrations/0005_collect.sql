-- Live collection: per source+query incremental state, per-source health.

CREATE TABLE collect_state (
    source     TEXT NOT NULL,
    query      TEXT NOT NULL DEFAULT '',
    state      TEXT NOT NULL DEFAULT '{}',    -- JSON: newest timestamp/id seen, page cursor
    updated_at TEXT NOT NULL,
    PRIMARY KEY (source, query)
);

CREATE TABLE source_health (
    source           TEXT PRIMARY KEY,
    last_ingested_at TEXT,
    last_attempt_at  TEXT,
    healthy          INTEGER NOT NULL DEFAULT 1,
    reason           TEXT NOT NULL DEFAULT ''
);
