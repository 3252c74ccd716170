"""The :class:`~corpuskit.corpus.Corpus` methods on one noun. Stories, their quality, and the arcs they form."""
from __future__ import annotations

import pandas as pd


class StoryMethods:
    """Stories, their quality, and the arcs they form."""

    def stories(self, kind: str | None = None, current: bool = True, period: str | None = None) -> pd.DataFrame:
        """Stories, newest ``publishAt`` first (only current versions unless ``current=False``).

        ``period`` (``2016``, ``2016-03``, ``2016-W09``, ``2016-03-05``): only the stories written
        for that period by ``narrate(period=...)`` or ``narrate(every=...)``.

        Columns: ``id, slug, kind`` (lead_story, beat_narrative, dispatch,
        entity_narrative), ``version, isCurrent, headline, lede, topic,
        entity, signalSeverity, triggerSignalId, featured, citationCount,
        sourceCount, readMin, publishAt, generatedAt``.
        :class:`ValidationError` for an unknown kind.
        """
        from corpuskit import frames

        return frames.stories(self, kind=kind, current=current, period=period)

    def story_quality(self) -> pd.DataFrame:
        """What a reader gets from each current story, one row per story (see :mod:`corpuskit.narrate.quality`).

        Columns: ``id, storyKey, kind, headline, writer, quotes, onSubject``
        (quotes that name the story's subject), ``offSubject`` (those that do
        not), ``nearDuplicates`` (pairs of near-duplicate quotes),
        ``fragments``, ``debris`` (findings in the prose fields) and
        ``authors`` (distinct quoted authors). ``df.attrs["summary"]`` holds
        the corpus figures: ``onSubjectShare, nearDuplicatePairs, fragments,
        storiesWithDebris, authorsPerStory``.
        """
        from corpuskit.narrate.quality import story_quality, summarise

        rows = story_quality(self.conn)
        frame = pd.DataFrame(rows, columns=["id", "storyKey", "kind", "headline", "writer", "quotes", "onSubject",
                                            "offSubject", "nearDuplicates", "fragments", "debris", "authors"])
        frame.attrs["summary"] = summarise(rows)
        return frame

    def story(self, slug: str) -> dict:
        """One story version by its slug (another spelling of a known slug gives the current version): a dict.

        Keys: ``id, slug, kind, version, isCurrent, currentSlug`` (the slug
        of the current version), ``headline, lede, body`` (``[n]`` markers
        cite records), ``topic, entity, signalSeverity, triggerSignal,
        publishAt, generatedAt, metadata`` (framing sentences and what they
        are traced to), ``untraced`` (problems tracing the body to its
        records and framing: an empty list when every sentence is found),
        ``externalCitations``, ``versions`` (a DataFrame ``slug, version,
        generatedAt``, newest first) and ``citations``: a DataFrame
        ``ordinal`` (the ``[n]``), ``recordId, source, title, url,
        sentimentScore, inferred, confidence, credibilityScore``.
        :class:`NotFoundError` for an unknown slug.
        """
        from corpuskit import frames

        return frames.story(self, slug)

    def arcs(self) -> pd.DataFrame:
        """Arcs (the stories of one beat, entity or cluster lineage over time), most recently updated first.

        Columns: ``id, slug, title, arcStatus`` (active, dormant, concluded),
        ``storyCount, lastUpdatedAt, stories`` (list of ``{id, headline,
        publishAt, kind}`` for the current versions, oldest first).
        """
        from corpuskit import frames

        return frames.arcs(self)
