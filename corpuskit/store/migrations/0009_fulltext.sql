-- Full-text index over records (see corpuskit/store/fulltext.py): title, body and tags as the text
-- normaliser gives them; rowid = records.id. Filled for existing records by the Python step of 0009.
CREATE VIRTUAL TABLE IF NOT EXISTS records_fts USING fts5(
    title, body, tags,
    tokenize = 'unicode61 remove_diacritics 2'
);

-- Kept in step on every delete and update, whoever makes it; new rows are indexed by the import
-- paths, and a record whose text changed is indexed again by fulltext.sync.
CREATE TRIGGER IF NOT EXISTS records_fts_delete AFTER DELETE ON records BEGIN
    DELETE FROM records_fts WHERE rowid = old.id;
END;
CREATE TRIGGER IF NOT EXISTS records_fts_update AFTER UPDATE OF title, content_text ON records BEGIN
    DELETE FROM records_fts WHERE rowid = old.id;
END
