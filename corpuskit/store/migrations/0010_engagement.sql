-- 0010 engagement: typed engagement counts, reply/quote/repost links and the repost flag
-- on records (docs/corpus_file.md). NULL where the platform or file gives none; the
-- import fills them from every format that has them, the collectors from their payloads.
ALTER TABLE records ADD COLUMN likes INTEGER CHECK (likes IS NULL OR likes >= 0);
ALTER TABLE records ADD COLUMN reposts INTEGER CHECK (reposts IS NULL OR reposts >= 0);
ALTER TABLE records ADD COLUMN replies INTEGER CHECK (replies IS NULL OR replies >= 0);
ALTER TABLE records ADD COLUMN quotes INTEGER CHECK (quotes IS NULL OR quotes >= 0);
ALTER TABLE records ADD COLUMN views INTEGER CHECK (views IS NULL OR views >= 0);
ALTER TABLE records ADD COLUMN reply_to TEXT;
ALTER TABLE records ADD COLUMN quote_of TEXT;
ALTER TABLE records ADD COLUMN repost_of TEXT;
ALTER TABLE records ADD COLUMN is_repost INTEGER NOT NULL DEFAULT 0 CHECK (is_repost IN (0, 1));
