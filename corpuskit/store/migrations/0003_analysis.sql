-- Analysis: clusters, signals (+ evidence and change events for the stream), snapshots, observations.

CREATE TABLE clusters (
    id            INTEGER PRIMARY KEY,
    run_id        TEXT NOT NULL,
    topic_id      INTEGER NOT NULL REFERENCES topics(id) ON DELETE CASCADE,
    cluster_label INTEGER NOT NULL,
    lineage_id    TEXT NOT NULL,              -- stable across runs for a cluster that survives
    record_count  INTEGER NOT NULL,
    top_terms     TEXT NOT NULL,              -- JSON array
    summary_label TEXT NOT NULL,
    metadata      TEXT NOT NULL DEFAULT '{}', -- JSON: silhouetteScore, x/y centroid, ...
    created_at    TEXT NOT NULL
);
CREATE INDEX clusters_run ON clusters(run_id, topic_id);
CREATE INDEX clusters_lineage ON clusters(lineage_id);

CREATE TABLE cluster_members (
    cluster_id INTEGER NOT NULL REFERENCES clusters(id) ON DELETE CASCADE,
    record_id  INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
    PRIMARY KEY (cluster_id, record_id)
);

CREATE TABLE signals (
    id            INTEGER PRIMARY KEY,
    signal_key    TEXT NOT NULL UNIQUE,       -- identity: kind|topic|subject|episode start; rerun updates
    kind          TEXT NOT NULL CHECK (kind IN ('volume_spike', 'sentiment_shift', 'novelty', 'divergence')),
    topic_id      INTEGER REFERENCES topics(id),
    entity_id     INTEGER REFERENCES entities(id),
    source        TEXT,                       -- for per-source series
    severity      TEXT NOT NULL CHECK (severity IN ('high', 'medium', 'low')),
    sigma_score   REAL NOT NULL,
    headline      TEXT NOT NULL,
    detail        TEXT NOT NULL DEFAULT '{}', -- JSON, keys per kind (see analysis/signals)
    detected_at   TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('open', 'resolved')),
    resolved_at   TEXT,
    acknowledged  INTEGER NOT NULL DEFAULT 0,
    narrative_id  INTEGER,                    -- current story triggered by this signal
    run_id        TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);
CREATE INDEX signals_detected ON signals(detected_at, id);
CREATE INDEX signals_topic ON signals(topic_id, detected_at);

CREATE TABLE signal_evidence (
    signal_id INTEGER NOT NULL REFERENCES signals(id) ON DELETE CASCADE,
    ref_kind  TEXT NOT NULL CHECK (ref_kind IN ('record', 'entity', 'topic', 'story')),
    ref_id    INTEGER NOT NULL,
    PRIMARY KEY (signal_id, ref_kind, ref_id)
);

-- Append-only log of signal changes; the /v1 stream's event ids are this table's ids.
CREATE TABLE signal_events (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    signal_id  INTEGER NOT NULL REFERENCES signals(id) ON DELETE CASCADE,
    change     TEXT NOT NULL CHECK (change IN ('new', 'updated')),
    created_at TEXT NOT NULL
);

CREATE TABLE snapshots (
    topic_id         INTEGER NOT NULL REFERENCES topics(id) ON DELETE CASCADE,
    date             TEXT NOT NULL,           -- YYYY-MM-DD
    total_records    INTEGER NOT NULL,
    volume_by_source TEXT NOT NULL,           -- JSON map
    sentiment_positive INTEGER NOT NULL,
    sentiment_neutral  INTEGER NOT NULL,
    sentiment_negative INTEGER NOT NULL,
    avg_sentiment    REAL,
    platform_count   INTEGER NOT NULL,
    top_entities     TEXT NOT NULL,           -- JSON array of {name, mentions, type}
    signal_count     INTEGER NOT NULL,
    input_hash       TEXT NOT NULL,           -- recompute only when the day's inputs change
    run_id           TEXT NOT NULL,
    PRIMARY KEY (topic_id, date)
);

CREATE TABLE observations (
    id              INTEGER PRIMARY KEY,
    observation_key TEXT NOT NULL UNIQUE,
    type            TEXT NOT NULL CHECK (type IN ('convergence', 'divergence', 'anomaly', 'milestone', 'trend')),
    headline        TEXT NOT NULL,
    detail          TEXT NOT NULL DEFAULT '{}',
    severity        TEXT NOT NULL CHECK (severity IN ('high', 'medium', 'low')),
    observed_at     TEXT NOT NULL,
    run_id          TEXT NOT NULL
);
CREATE INDEX observations_observed ON observations(observed_at, id);
