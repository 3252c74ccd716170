-- 0012 validation: samples drawn for hand coding, their codebooks, the codes people give,
-- and the gold value per record and variable (see corpuskit.validate and docs/validate.md).
CREATE TABLE IF NOT EXISTS samples (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    design      TEXT NOT NULL,          -- JSON: n, by, seed, allocation, filters, strata sizes
    codebook    TEXT,                   -- JSON of the codebook, once one is attached
    created_at  TEXT NOT NULL           -- the corpus clock when the sample was drawn
);

CREATE TABLE IF NOT EXISTS sample_records (
    sample_id   INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,       -- 1.. in the order drawn
    record_id   INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
    stratum     TEXT,                   -- the stratum's value, NULL for a simple sample
    PRIMARY KEY (sample_id, position),
    UNIQUE (sample_id, record_id)
);

CREATE TABLE IF NOT EXISTS codes (
    id          INTEGER PRIMARY KEY,
    sample_id   INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
    record_id   INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
    coder       TEXT NOT NULL,
    variable    TEXT NOT NULL,
    value       TEXT NOT NULL,          -- one of the codebook's values, as text
    note        TEXT NOT NULL DEFAULT '',
    coded_at    TEXT NOT NULL,
    UNIQUE (sample_id, record_id, coder, variable)
);
CREATE INDEX IF NOT EXISTS codes_variable ON codes(sample_id, variable, record_id);

CREATE TABLE IF NOT EXISTS gold (
    sample_id   INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
    record_id   INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
    variable    TEXT NOT NULL,
    value       TEXT NOT NULL,
    method      TEXT NOT NULL,          -- unanimous, majority, coder, decision
    decided_by  TEXT NOT NULL DEFAULT '',-- the coder or adjudicator who decided a tie or a decision
    detail      TEXT NOT NULL DEFAULT '{}', -- JSON: each coder's value
    decided_at  TEXT NOT NULL,
    PRIMARY KEY (sample_id, record_id, variable)
);
