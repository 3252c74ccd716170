-- 0013 entity resolution and hashtags.
--
-- The extractor's mentions are kept as extracted in mention_origins (one row per record and
-- extracted entity, the "origin"); resolution (corpuskit.enrich.resolve) maps every origin to the
-- entities it stands for and rebuilds `mentions` from them, so a merge or a split is replayed from
-- the raw extraction and never loses a mention. `tagged` counts the positions written as a hashtag.
CREATE TABLE IF NOT EXISTS mention_origins (
    record_id     INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
    origin_id     INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    surface       TEXT NOT NULL,
    mention_count INTEGER NOT NULL,
    positions     TEXT NOT NULL,
    tagged        INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (record_id, origin_id)
);
CREATE INDEX IF NOT EXISTS mention_origins_origin ON mention_origins(origin_id);
INSERT OR IGNORE INTO mention_origins(record_id, origin_id, surface, mention_count, positions)
    SELECT record_id, entity_id, surface, mention_count, positions FROM mentions;

-- Every extracted entity folded into another (or into none: a hashtag that names no thing), with why.
CREATE TABLE IF NOT EXISTS entity_merges (
    origin_id  INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    origin_name TEXT NOT NULL,            -- the extracted name
    origin_type TEXT NOT NULL,            -- the extracted type
    entity_id  INTEGER REFERENCES entities(id) ON DELETE CASCADE,  -- NULL: a hashtag only
    reason     TEXT NOT NULL,             -- diacritics, spelling, hashtag, handle, surname, first name,
                                          -- short form, absorbed fragment, hashtag only, user merge
    mentions   INTEGER NOT NULL,          -- the origin's mentions moved
    PRIMARY KEY (origin_id, entity_id)
);
CREATE INDEX IF NOT EXISTS entity_merges_entity ON entity_merges(entity_id);

-- A researcher's overrides, kept across every enrich: merge b into a, or split b off (it joins no one).
CREATE TABLE IF NOT EXISTS entity_overrides (
    id         INTEGER PRIMARY KEY,
    action     TEXT NOT NULL CHECK (action IN ('merge', 'split')),
    target     TEXT NOT NULL,             -- slug of the entity kept (merge) or split from (split)
    alias      TEXT NOT NULL,             -- slug of the entity merged in or split off
    created_at TEXT NOT NULL,
    UNIQUE (action, target, alias)
);

-- Hashtags as their own facet: which records carry which tag (lower case, without '#').
CREATE TABLE IF NOT EXISTS record_hashtags (
    record_id INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
    tag       TEXT NOT NULL,
    written   TEXT NOT NULL,              -- the first spelling in the record
    PRIMARY KEY (record_id, tag)
);
CREATE INDEX IF NOT EXISTS record_hashtags_tag ON record_hashtags(tag);

CREATE TABLE IF NOT EXISTS hashtags (
    tag        TEXT PRIMARY KEY,          -- lower case, without '#'
    written    TEXT NOT NULL,             -- the most used spelling
    records    INTEGER NOT NULL,
    first_seen TEXT,
    last_seen  TEXT,
    entities   TEXT NOT NULL DEFAULT '[]' -- JSON list of entity slugs it resolves to ([]: a hashtag only)
);

-- Each extracted entity's own name and type, as extracted (resolution renames the entity it keeps).
CREATE TABLE IF NOT EXISTS entity_origins (
    origin_id INTEGER PRIMARY KEY REFERENCES entities(id) ON DELETE CASCADE,
    name      TEXT NOT NULL,
    type      TEXT NOT NULL
);
INSERT OR IGNORE INTO entity_origins(origin_id, name, type) SELECT id, name, type FROM entities;
