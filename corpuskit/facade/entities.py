"""The :class:`~corpuskit.corpus.Corpus` methods on one noun. Entities, their aliases and edits, hashtags and
mentions."""
from __future__ import annotations

import pandas as pd


class EntityMethods:
    """Entities, their aliases and edits, hashtags and mentions."""

    def entities(self, type: str | None = None, since=None, limit: int | None = None) -> pd.DataFrame:
        """Entities ranked by mentions (most first, then id).

        Columns: ``id, name, type`` (person, org, product, place, concept),
        ``slug, mentions`` and ``records`` (mentions and mentioning records
        since ``since``, or ever), ``mentionCount`` (all time),
        ``recentMentions`` (the 7 days to the corpus clock), ``growthFactor``
        (recent weekly rate over the 28 days before, add-one smoothed),
        ``firstSeen, lastSeen`` (the ``slug`` is what the ``/v1`` by-slug path takes).
        ``limit`` keeps the top N. :class:`ValidationError` for an unknown
        type, a bad ``since`` or a ``limit`` below 1.
        """
        from corpuskit import frames

        return frames.entities(self, type=type, since=since, limit=limit)

    def entity_profile(self, name_or_slug: str, level: float = 0.95) -> dict:
        """One entity by name, slug, alias or id: a dict.

        Keys: ``id, name, type, types, slug, lede,
        mentionCount, recentMentions, baselineMentions, growthFactor,
        sentimentDistribution, prominenceRank, noveltyActive, sourceDiversity,
        firstSeen, lastSeen, beats`` (topic names, most mentions first),
        ``narrative`` (its current story or None), ``mentionTrend`` (a
        DataFrame ``day, mentions, mentions_low, mentions_high``: the 30 days to the
        corpus clock, oldest first, with Poisson intervals) and ``sentimentTrend`` (a
        DataFrame ``weekStart, avgScore, sampleSize, avgScore_low, avgScore_high``: t
        intervals). Intervals at ``level``. :class:`NotFoundError` when nothing matches.
        """
        from corpuskit import frames

        return frames.entity_profile(self, name_or_slug, level=level)

    def entity_aliases(self, name: str) -> pd.DataFrame:
        """Every surface form of one entity (by name, slug, alias or id) with its count.

        One row per form as the texts write it: ``surface``, ``mentions`` (how many mentions are
        written so), ``name, type`` (the extracted entity it came from) and ``reason`` (why that
        extracted entity was folded in: diacritics, spelling, handle, hashtag, surname, first name,
        nickname, short form, absorbed fragment, user merge; None for the entity's own), most
        written first. :class:`NotFoundError` when nothing matches.
        """
        from corpuskit import frames

        return frames.entity_aliases(self, name)

    def merge_entities(self, a: str, b: str) -> dict:
        """Merge the extracted entity ``b`` into ``a`` (names or slugs as extracted, or any alias) and
        re-resolve; the override is kept for every later ``enrich``. Returns the resolution counts.
        :class:`ValidationError` for an unknown name."""
        from corpuskit.enrich.resolve import add_override, resolve_entities

        add_override(self.file, "merge", a, b)
        return resolve_entities(self.file)

    def split_entity(self, name: str, alias: str) -> dict:
        """Split the extracted entity ``alias`` off ``name``: it joins no entity by resolution's rules
        again (a ``merge_entities`` still may) and the override is kept for every later ``enrich``.
        Returns the resolution counts. :class:`ValidationError` for an unknown name."""
        from corpuskit.enrich.resolve import add_override, resolve_entities

        add_override(self.file, "split", name, alias)
        return resolve_entities(self.file)

    def hashtags(self, since=None, limit: int | None = None) -> pd.DataFrame:
        """Hashtags, most records first: ``tag`` (lower case, no ``#``), ``written`` (the most used
        spelling), ``records``, ``firstSeen, lastSeen`` and ``entities`` (slugs of the entities the
        tag resolves to; empty for a tag that names no thing). ``since`` counts records from then on."""
        from corpuskit import frames

        return frames.hashtags(self, since=since, limit=limit)

    def mentions(self, entity: str | None = None) -> pd.DataFrame:
        """Entity mentions, one row per (record, entity), oldest record first.

        Columns: ``recordId, entityId, entity`` (canonical name),
        ``entityType, surface`` (as written), ``mentionCount`` (in that
        record), ``source, publishedAt``. ``entity`` (a name, slug, alias or
        id) keeps one entity's; :class:`ValidationError` when it matches none.
        """
        from corpuskit import frames

        return frames.mentions(self, entity=entity)
