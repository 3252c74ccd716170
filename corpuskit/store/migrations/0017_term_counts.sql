-- 0017 term counts: every keyness term's occurrences over the whole corpus, written by analyse.
--
-- Keyness of a selection against the rest of the corpus counted every record's terms on request
-- (seconds per 100k records). analyse keeps the corpus-wide counts here; the rest is then the corpus
-- minus the selection, and only the selection's texts are read (see corpuskit/analysis/term_counts.py).
-- The counts are stamped with the newest record id and the 'records_edits' counter below (meta key
-- 'term_counts'); a reader uses them only while both are unchanged and counts live otherwise.

-- Occurrences of each term (a word, or two words with one space between) in every record.
CREATE TABLE IF NOT EXISTS term_counts (
    term TEXT PRIMARY KEY,
    n    INTEGER NOT NULL
) WITHOUT ROWID;

-- Records are mostly appended, which the newest id tells. A record deleted, its text changed, or one
-- written below the newest id counts in meta 'records_edits', whoever makes the change, so any table
-- kept from the records' texts sees it in its stamp.
CREATE TRIGGER IF NOT EXISTS records_edits_delete AFTER DELETE ON records BEGIN
    INSERT INTO meta(key, value) VALUES ('records_edits', '1')
        ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
CREATE TRIGGER IF NOT EXISTS records_edits_update AFTER UPDATE OF title, content_text ON records BEGIN
    INSERT INTO meta(key, value) VALUES ('records_edits', '1')
        ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
CREATE TRIGGER IF NOT EXISTS records_edits_insert AFTER INSERT ON records
    WHEN new.id < (SELECT max(id) FROM records) BEGIN
    INSERT INTO meta(key, value) VALUES ('records_edits', '1')
        ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END
