"""The declared columns of every exported table: the one source of the codebook.

:data:`COLUMNS` maps each table of an export to its columns, in order. Each
:class:`Column` says its type, what it means, how it was produced and the
stage that produced it; :mod:`corpuskit.ingest.export_tables` reads the
columns in this order and :func:`corpuskit.ingest.codebook.codebook` writes
the codebook from this table, so the two cannot drift (a test compares them).

Types: ``int`` (64-bit), ``float`` (double), ``str``, ``bool``, ``timestamp``
(UTC instant), ``date`` (a UTC day), ``list<int>``, ``list<str>`` and ``json``
(an object or array kept as JSON text). Any column may be null where the
meaning says so.
"""
from __future__ import annotations

from dataclasses import dataclass

TYPES = ("int", "float", "str", "bool", "timestamp", "date", "list<int>", "list<str>", "json")
#: The stage whose run made a column; ``import`` covers every way records arrive (import, demo,
#: collect), ``export`` the columns the export itself derives.
STAGES = ("import", "enrich", "analyse", "narrate", "validate", "export")


@dataclass(frozen=True)
class Column:
    """One exported column: ``name``, ``type`` (:data:`TYPES`), ``meaning``, ``produced``
    (how the value was made) and ``stage`` (:data:`STAGES`). ``sql_column``, for the record
    columns that exist only in some corpora, names the ``records`` column it is read from."""

    name: str
    type: str
    meaning: str
    produced: str
    stage: str
    sql_column: str | None = None
    personal: str | None = None


#: Columns a pseudonymised export changes: ``author`` columns become a salted hash, ``text``
#: columns lose handles and profile URLs, ``terms`` columns (labels and term lists derived from the
#: text) also lose every word equal to an author's name (see :mod:`corpuskit.ingest.pseudonymise`).
_AUTHOR = {"author"}
_TEXT = {("records", "title"), ("records", "contentText"), ("records", "url"), ("records", "metadata"),
         ("stories", "lede"), ("stories", "body"), ("story_citations", "quote"),
         ("story_citations", "quotedText"), ("coordination", "evidence")}
_TERMS = {("records", "entities"), ("topics", "name"), ("topics", "displayName"), ("topics", "description"),
          ("topics", "keywords"), ("entities", "slug"), ("entities", "name"), ("mentions", "surface"),
          ("entity_merges", "originName"), ("hashtags", "tag"), ("hashtags", "written"),
          ("clusters", "topTerms"), ("clusters", "summaryLabel"), ("signals", "headline"),
          ("signals", "detail"), ("stories", "slug"), ("stories", "headline"), ("snapshots", "topEntities"),
          ("records", "primaryTopic"), ("records", "secondaryTopic")}


def _c(name, type_, meaning, produced, stage, sql_column=None) -> Column:
    assert type_ in TYPES and stage in STAGES, (name, type_, stage)
    return Column(name, type_, meaning, produced, stage, sql_column)


def _mark(table: str, cols) -> tuple[Column, ...]:
    kind = table.removeprefix("network_")
    return tuple(Column(c.name, c.type, c.meaning, c.produced, c.stage, c.sql_column,
                        "author" if c.name in _AUTHOR or (kind, c.name) in _NETWORK_ACCOUNTS
                        else "terms" if table.startswith("network_") and c.name in ("source", "target") else "text" if (table, c.name) in _TEXT
                        else "terms" if (table, c.name) in _TERMS else None)
                 for c in cols)


_AS_IMPORTED = "as imported (the record field of the corpuskit layout)"
_COORDINATION = ("Corpus.coordination() with its defaults (the normalised text, the estimated window, 20 draws of "
                 "the time-shuffled null, Benjamini-Hochberg at 0.05) over the records the filters select; "
                 "docs/api.md, Coordination")
#: Each network kind's (source, target): what they are. The tables ``network_<kind>`` are the edge lists
#: of ``Corpus.network(kind)`` over the records the filters select (docs/api.md, Networks).
NETWORK_ENDS = {
    "mention": ("the author", "the @handle mentioned (the corpus's spelling of an author of that name)"),
    "reply": ("the author of the reply", "the author of the post replied to"),
    "repost": ("the author of the repost", "the author of the post reposted"),
    "quote": ("the author of the quote", "the author of the post quoted"),
    "cohashtag": ("a hashtag (the lesser of the two)", "a hashtag carried by the same record"),
    "coentity": ("an entity slug (the lesser of the two)", "an entity slug mentioned in the same record"),
    "shared_url": ("an author (the lesser of the two)", "an author who shared a URL the other shared"),
    "coauthor_topic": ("the author", "the primary topic of the author's records"),
}
#: The network ends that are accounts (pseudonymised as authors).
_NETWORK_ACCOUNTS = {("mention", "source"), ("mention", "target"), ("reply", "source"), ("reply", "target"),
                     ("repost", "source"), ("repost", "target"), ("quote", "source"), ("quote", "target"),
                     ("shared_url", "source"), ("shared_url", "target"), ("coauthor_topic", "source")}


def _network_columns(kind: str) -> tuple[Column, ...]:
    made = f"Corpus.network({kind!r}) over the records the filters select"
    source, target = NETWORK_ENDS[kind]
    weight = "distinct URLs both shared" if kind == "shared_url" else "records that make the edge"
    return (_c("source", "str", source, made, "export"), _c("target", "str", target, made, "export"),
            _c("weight", "int", weight, made, "export"),
            _c("first", "timestamp", "the earliest publishedAt of the edge's records (UTC)", made, "export"),
            _c("last", "timestamp", "the latest publishedAt of the edge's records (UTC)", made, "export"),
            _c("records", "list<int>", "the edge's record ids, ascending (join records.recordId)", made, "export"))
RECORD_ID = _c("recordId", "int", "the record's key; every `recordId` of every table joins here",
               "assigned by the corpus when the record was stored", "import")

# The typed engagement columns some corpora's records table has (a corpus made before they
# existed has none): each is exported when ``records`` has the column, and left out otherwise.
ENGAGEMENT = (
    _c("likes", "int", "likes (favourites, upvotes) the post had when collected", _AS_IMPORTED, "import", "likes"),
    _c("reposts", "int", "reposts (retweets, boosts) the post had when collected", _AS_IMPORTED, "import",
       "reposts"),
    _c("replies", "int", "replies the post had when collected", _AS_IMPORTED, "import", "replies"),
    _c("quotes", "int", "quote posts of the post when collected", _AS_IMPORTED, "import", "quotes"),
    _c("views", "int", "views (impressions) the post had when collected", _AS_IMPORTED, "import", "views"),
    _c("replyTo", "str", "the platform id of the post this one replies to", _AS_IMPORTED, "import", "reply_to"),
    _c("quoteOf", "str", "the platform id of the post this one quotes", _AS_IMPORTED, "import", "quote_of"),
    _c("repostOf", "str", "the platform id of the post this one reposts", _AS_IMPORTED, "import", "repost_of"),
    _c("isRepost", "bool", "true when the record is a repost (retweet, boost) of another post", _AS_IMPORTED,
       "import", "is_repost"),
)

COLUMNS: dict[str, tuple[Column, ...]] = {
    "records": (
        RECORD_ID,
        _c("source", "str", "the platform or source kind (reddit, hackernews, twitter, ...)", _AS_IMPORTED,
           "import"),
        _c("sourceId", "str", "the post's id on its platform (null when the file gave none)", _AS_IMPORTED,
           "import"),
        _c("title", "str", "the post's title ('' when it has none)", _AS_IMPORTED, "import"),
        _c("contentText", "str", "the post's text as stored (the original, not the normalised form)",
           _AS_IMPORTED, "import"),
        _c("url", "str", "the post's address ('' when unknown)", _AS_IMPORTED, "import"),
        _c("author", "str", "the author's name or handle ('' when unknown)", _AS_IMPORTED, "import"),
        _c("publishedAt", "timestamp", "when the post was published (UTC)",
           "parsed from the file's date and normalised to UTC", "import"),
        _c("subreddit", "str", "the subreddit (Reddit records; null otherwise)", _AS_IMPORTED, "import"),
        _c("language", "str", "the record's language code", "given by the file, else detected in enrich by {detector}",
           "import"),
        _c("contentType", "str", "post, comment, paper, article, video or story", _AS_IMPORTED, "import"),
        _c("capturedAt", "timestamp", "when the copy was collected or imported (UTC)", _AS_IMPORTED, "import"),
        _c("topic", "str", "the topic hint given at import (--topic), else null; not the assigned topic",
           _AS_IMPORTED, "import"),
        _c("metadata", "json", "the file's other columns for this record, as a JSON object",
           "columns the import layout does not map, kept as given", "import"),
        *ENGAGEMENT,
        _c("sentimentScore", "float", "sentiment from -1 (negative) to 1 (positive); null when not scored",
           "scored by {scorer}", "enrich"),
        _c("sentimentLabel", "str", "positive, neutral or negative; null when not scored",
           "the score cut at the scorer's thresholds", "enrich"),
        _c("primaryTopicId", "int", "the record's primary topic (joins topics.topicId); null for none",
           "the highest-confidence topic assignment", "enrich"),
        _c("primaryTopic", "str", "the primary topic's name", "topics.name of primaryTopicId", "enrich"),
        _c("primaryTopicConfidence", "float", "the primary topic's assignment confidence, 0..1",
           "the topic assigner: weighted keyword, subreddit and embedding similarity to the topic", "enrich"),
        _c("secondaryTopicId", "int", "the next most confident other topic assigned (joins topics.topicId); "
           "null when the record has one topic or none", "the second topic assignment by confidence", "enrich"),
        _c("secondaryTopic", "str", "the secondary topic's name", "topics.name of secondaryTopicId", "enrich"),
        _c("secondaryTopicConfidence", "float", "the secondary topic's assignment confidence, 0..1",
           "as primaryTopicConfidence", "enrich"),
        _c("clusterId", "int", "the record's cluster in the latest clustering run (joins clusters.clusterId); "
           "null when it is in none (noise, or its topic was not clustered)",
           "HDBSCAN over the record embeddings of its primary topic", "analyse"),
        _c("entityIds", "list<int>", "the entities the record mentions (joins entities.entityId), most "
           "mentioned first; null before enrichment", "the entity extractor, resolved to canonical entities",
           "enrich"),
        _c("entities", "list<str>", "the canonical names of entityIds, in the same order",
           "entities.name of each entityId", "enrich"),
    ),
    "topics": (
        _c("topicId", "int", "the topic's key", "assigned when the topic was made", "enrich"),
        _c("name", "str", "the topic's identifier", "from a beat file, or discovered from the corpus text",
           "enrich"),
        _c("displayName", "str", "the topic's readable name", "from a beat file or the discovered terms",
           "enrich"),
        _c("description", "str", "what the topic covers", "from a beat file ('' for discovered topics)",
           "enrich"),
        _c("category", "str", "the topic's category", "from a beat file", "enrich"),
        _c("keywords", "list<str>", "the keywords that define the topic",
           "from a beat file, or its top terms when discovered", "enrich"),
        _c("active", "bool", "whether the topic is in use", "from a beat file", "enrich"),
        _c("discovered", "bool", "true when found from the corpus text rather than a beat file",
           "topic discovery", "enrich"),
        _c("createdAt", "timestamp", "when the topic was made (UTC)", "the enrichment run's clock", "enrich"),
    ),
    "topic_assignments": (
        RECORD_ID,
        _c("topicId", "int", "an assigned topic (joins topics.topicId)", "the topic assigner", "enrich"),
        _c("confidence", "float", "the assignment's confidence, 0..1",
           "weighted keyword, subreddit and embedding similarity to the topic", "enrich"),
        _c("rank", "int", "1 for the record's most confident assignment, 2 for the next, ...",
           "the order of confidence (ties by topicId)", "export"),
        _c("isPrimary", "bool", "true for the record's primary topic (records.primaryTopicId)",
           "the enrichment's primary topic", "enrich"),
    ),
    "entities": (
        _c("entityId", "int", "the entity's key", "assigned when the entity was first found", "enrich"),
        _c("slug", "str", "the entity's canonical slug", "from its canonical name", "enrich"),
        _c("name", "str", "the entity's canonical name", "the most common spelling, after merging aliases",
           "enrich"),
        _c("type", "str", "person, org, product, place or concept", "the entity extractor", "enrich"),
        _c("mentionCount", "int", "mentions in the whole corpus", "sum of mentions.mentionCount", "enrich"),
        _c("firstSeen", "timestamp", "publication time of its first mentioning record (UTC)",
           "min publishedAt over its mentions", "enrich"),
        _c("lastSeen", "timestamp", "publication time of its last mentioning record (UTC)",
           "max publishedAt over its mentions", "enrich"),
    ),
    "mentions": (
        RECORD_ID,
        _c("entityId", "int", "the entity mentioned (joins entities.entityId)", "the entity extractor",
           "enrich"),
        _c("surface", "str", "the text as written in the record (first occurrence)", "the entity extractor",
           "enrich"),
        _c("mentionCount", "int", "how often the record mentions the entity", "the entity extractor", "enrich"),
        _c("positions", "list<int>", "character offsets of the mentions into title + newline + contentText "
           "(contentText alone when the title is empty or equal to it)", "the entity extractor", "enrich"),
    ),
    "entity_merges": (
        _c("originId", "int", "the extracted entity folded into another (joins entities.entityId)",
           "the entity extractor", "enrich"),
        _c("originName", "str", "its name as extracted", "the entity extractor", "enrich"),
        _c("originType", "str", "its type as extracted", "the entity extractor", "enrich"),
        _c("entityId", "int", "the entity it now counts for (null: a hashtag that names no thing)",
           "entity resolution", "enrich"),
        _c("reason", "str", "diacritics, spelling, handle, hashtag, surname, first name, short form, "
           "absorbed fragment, hashtag only or user merge", "entity resolution (and the researcher's overrides)",
           "enrich"),
        _c("mentionCount", "int", "the extracted entity's mentions in the whole corpus", "the entity extractor",
           "enrich"),
    ),
    "hashtags": (
        _c("tag", "str", "the hashtag, lower case, without '#'", "the #tags of the record text", "enrich"),
        _c("written", "str", "its most used spelling", "the #tags of the record text", "enrich"),
        _c("recordCount", "int", "records carrying it in the whole corpus", "count of records", "enrich"),
        _c("firstSeen", "timestamp", "publication time of its first record (UTC)", "min publishedAt", "enrich"),
        _c("lastSeen", "timestamp", "publication time of its last record (UTC)", "max publishedAt", "enrich"),
        _c("entities", "list<str>", "slugs of the entities the tag names (empty: a hashtag only)",
           "entity resolution", "enrich"),
    ),
    "clusters": (
        _c("clusterId", "int", "the cluster's key", "assigned by the clustering run", "analyse"),
        _c("runId", "str", "the clustering run (the latest)", "the analyse run", "analyse"),
        _c("topicId", "int", "the topic clustered (joins topics.topicId)", "clusters are made per topic",
           "analyse"),
        _c("clusterLabel", "int", "HDBSCAN's label within the topic", "HDBSCAN", "analyse"),
        _c("lineageId", "str", "follows the cluster across runs", "member overlap with the previous run",
           "analyse"),
        _c("recordCount", "int", "records in the cluster (in the whole corpus)", "HDBSCAN", "analyse"),
        _c("topTerms", "list<str>", "the cluster's distinctive terms", "class-based TF-IDF", "analyse"),
        _c("summaryLabel", "str", "a readable label built from the top terms", "the top terms", "analyse"),
        _c("silhouette", "float", "the cluster's silhouette score, -1..1", "on the reduced embeddings",
           "analyse"),
        _c("createdAt", "timestamp", "when the cluster was made (UTC)", "the analyse run's clock", "analyse"),
    ),
    "cluster_members": (
        _c("clusterId", "int", "a cluster (joins clusters.clusterId)", "HDBSCAN", "analyse"),
        RECORD_ID,
    ),
    "signals": (
        _c("signalId", "int", "the signal's key", "assigned when the signal was first detected", "analyse"),
        _c("kind", "str", "volume_spike, sentiment_shift, novelty or divergence", "the detector", "analyse"),
        _c("topicId", "int", "the topic the signal is about (joins topics.topicId); null for none",
           "the detector's series", "analyse"),
        _c("entityId", "int", "the entity the signal is about (joins entities.entityId); null for none",
           "the detector's series", "analyse"),
        _c("source", "str", "the source a per-source series is about; null for none", "the detector's series",
           "analyse"),
        _c("severity", "str", "high, medium or low", "the sigma score against the stated thresholds",
           "analyse"),
        _c("sigmaScore", "float", "how far the observation is from its baseline, in sigmas",
           "the detector's test against its baseline window", "analyse"),
        _c("headline", "str", "a one-line description", "built from the signal's subject and figures",
           "analyse"),
        _c("detail", "json", "the detector's figures (baseline, test, sigma, peakDay, ...)", "the detector",
           "analyse"),
        _c("detectedAt", "timestamp", "when the episode was detected (UTC)", "the detector", "analyse"),
        _c("status", "str", "open or resolved", "the detector's open/resolve rule", "analyse"),
        _c("resolvedAt", "timestamp", "when it resolved (UTC); null while open", "the detector", "analyse"),
        _c("acknowledged", "bool", "whether a user acknowledged it", "set through the API", "analyse"),
        _c("storyId", "int", "the story the signal triggered (joins stories.storyId); null for none",
           "the narrate stage", "narrate"),
        _c("runId", "str", "the analyse run that last updated the signal", "the analyse run", "analyse"),
    ),
    "signal_evidence": (
        _c("signalId", "int", "the signal (joins signals.signalId)", "the detector", "analyse"),
        _c("refKind", "str", "record, entity, topic or story: which key column is set", "the detector",
           "analyse"),
        _c("recordId", "int", "the evidence record (joins records.recordId) when refKind is record, else null",
           "the records that made the signal", "analyse"),
        _c("entityId", "int", "the evidence entity (joins entities.entityId) when refKind is entity, else null",
           "the detector", "analyse"),
        _c("topicId", "int", "the evidence topic (joins topics.topicId) when refKind is topic, else null",
           "the detector", "analyse"),
        _c("storyId", "int", "the evidence story (joins stories.storyId) when refKind is story, else null",
           "the narrate stage", "narrate"),
    ),
    "stories": (
        _c("storyId", "int", "the story version's key", "one row per version", "narrate"),
        _c("storyKey", "str", "the story's identity across versions (kind|subject)", "the story writer",
           "narrate"),
        _c("version", "int", "the version number, 1 first", "a regenerated story is a new version", "narrate"),
        _c("isCurrent", "bool", "true for the story's current version", "the narrate stage", "narrate"),
        _c("kind", "str", "lead_story, beat_narrative, dispatch or entity_narrative", "the narrate stage",
           "narrate"),
        _c("slug", "str", "the version's slug", "from the headline", "narrate"),
        _c("headline", "str", "the headline", "the story writer (extractive by default)", "narrate"),
        _c("lede", "str", "the opening paragraph", "the story writer", "narrate"),
        _c("body", "str", "the body: paragraphs separated by a blank line; a quoted sentence is followed by "
           "[n], n = story_citations.ordinal", "the story writer (extractive: the cited records' own "
           "sentences)", "narrate"),
        _c("topicId", "int", "the story's topic (joins topics.topicId); null for none", "the narrate stage",
           "narrate"),
        _c("entityId", "int", "the story's entity (joins entities.entityId); null for none",
           "the narrate stage", "narrate"),
        _c("triggerSignalId", "int", "the signal that triggered the story (joins signals.signalId); null for "
           "none", "the narrate stage", "narrate"),
        _c("signalSeverity", "str", "the triggering signal's severity; null for none", "the narrate stage",
           "narrate"),
        _c("publishAt", "timestamp", "the story's publication time (UTC)", "the corpus clock", "narrate"),
        _c("generatedAt", "timestamp", "when the version was written (UTC)", "the narrate run's clock",
           "narrate"),
        _c("runId", "str", "the narrate run that wrote the version", "the narrate run", "narrate"),
    ),
    "story_citations": (
        _c("storyId", "int", "the story version (joins stories.storyId)", "the story writer", "narrate"),
        _c("recordId", "int", "the cited record (joins records.recordId)", "the story writer", "narrate"),
        _c("ordinal", "int", "the citation's [n] marker in the body", "the story writer", "narrate"),
        _c("sentenceIndex", "int", "0-based position, among the body's cited sentences in reading order, of "
           "the sentence followed by [ordinal]; null when the body carries no [ordinal] marker",
           "read from stories.body", "export"),
        _c("quote", "str", "that sentence as it stands in the body (without the marker); null as "
           "sentenceIndex", "read from stories.body", "export"),
        _c("quotedText", "str", "the record's own words inside the sentence (the sentence without its "
           "attribution, such as 'A Reddit post said: \u201c...\u201d'); null as sentenceIndex",
           "read from stories.body", "export"),
        _c("confidence", "float", "how surely the sentence is traced to the record, 0..1", "the story writer",
           "narrate"),
        _c("inferred", "bool", "true when the citation was inferred rather than quoted", "the story writer",
           "narrate"),
        _c("credibility", "float", "the source's credibility score, 0..1", "narrate/credibility", "narrate"),
    ),
    "snapshots": (
        _c("topicId", "int", "the topic (joins topics.topicId)", "snapshots are per topic and day", "analyse"),
        _c("date", "date", "the UTC day", "the records' publication day", "analyse"),
        _c("totalRecords", "int", "records assigned to the topic that day (every source)",
           "a count over topic assignments", "analyse"),
        _c("volumeBySource", "json", "records per source that day, as a JSON object", "a count", "analyse"),
        _c("sentimentPositive", "int", "positive records that day", "a count of sentiment labels", "analyse"),
        _c("sentimentNeutral", "int", "neutral records that day", "a count of sentiment labels", "analyse"),
        _c("sentimentNegative", "int", "negative records that day", "a count of sentiment labels", "analyse"),
        _c("avgSentiment", "float", "mean sentiment score that day; null without a scored record",
           "a mean of sentimentScore", "analyse"),
        _c("platformCount", "int", "distinct sources that day", "a count", "analyse"),
        _c("topEntities", "json", "the most mentioned entities that day: [{name, mentions, type}]",
           "a count of mentions", "analyse"),
        _c("signalCount", "int", "signals detected on the topic that day", "a count", "analyse"),
    ),
    "codes": (
        _c("sample", "str", "the name of the coding sample", "corpus.sample(name=...)", "validate"),
        RECORD_ID,
        _c("coder", "str", "who gave the code", "as entered by the coder", "validate"),
        _c("variable", "str", "the codebook variable coded", "the sample's codebook", "validate"),
        _c("value", "str", "the value given, one of the variable's allowed values", "hand coding", "validate"),
        _c("note", "str", "the coder's note ('' when none)", "hand coding", "validate"),
        _c("codedAt", "timestamp", "when the code was stored (UTC)", "the wall clock at coding", "validate"),
    ),
    "gold": (
        _c("sample", "str", "the name of the coding sample", "corpus.sample(name=...)", "validate"),
        RECORD_ID,
        _c("variable", "str", "the codebook variable", "the sample's codebook", "validate"),
        _c("value", "str", "the gold value", "corpus.adjudicate(...)", "validate"),
        _c("method", "str", "how it was reached: unanimous, majority, single, tie, coder or decision",
           "corpus.adjudicate(...)", "validate"),
        _c("decidedBy", "str", "the coder or adjudicator who decided a tie or a decision ('' otherwise)",
           "corpus.adjudicate(...)", "validate"),
        _c("codes", "json", "each coder's value, as a JSON object", "the codes adjudicated", "validate"),
        _c("decidedAt", "timestamp", "when the gold value was stored (UTC)", "the wall clock", "validate"),
    ),
    "coordination": (
        _c("group", "int", "the coordinated group (1 is the largest)", _COORDINATION, "export"),
        _c("author", "str", "an account of the group", _COORDINATION, "export"),
        _c("records", "int", "the account's posts that co-share an item with another member within the window",
           _COORDINATION, "export"),
        _c("shared", "int", "the distinct items among those posts", _COORDINATION, "export"),
        _c("first", "timestamp", "the first of those posts (UTC)", _COORDINATION, "export"),
        _c("last", "timestamp", "the last of those posts (UTC)", _COORDINATION, "export"),
        _c("evidence", "json", "the account's record ids per shared item, earliest item first: [{item, records}]",
           _COORDINATION, "export"),
    ),
    **{f"network_{kind}": _network_columns(kind) for kind in NETWORK_ENDS},
}

COLUMNS = {table: _mark(table, cols) for table, cols in COLUMNS.items()}
TABLES = tuple(COLUMNS)

#: Per table: what a row is, and which rows a filtered export keeps.
TABLE_NOTES = {
    "records": ("One row per record, oldest first (publishedAt, then recordId).",
                "the records the filters select"),
    "topics": ("One row per topic.", "every topic (a vocabulary table: not filtered)"),
    "topic_assignments": ("One row per (record, assigned topic).", "rows whose record is kept"),
    "entities": ("One row per canonical entity.", "every entity (a vocabulary table: not filtered)"),
    "mentions": ("One row per (record, entity) mention.", "rows whose record is kept"),
    "entity_merges": ("One row per extracted entity resolution folded into another (a hashtag naming two "
                      "things has two rows).", "every row (a vocabulary table: not filtered)"),
    "hashtags": ("One row per hashtag.", "every hashtag (a vocabulary table: not filtered)"),
    "clusters": ("One row per cluster of the latest clustering run.",
                 "every cluster of that run (not filtered; recordCount counts the whole corpus)"),
    "cluster_members": ("One row per (cluster, record) of the latest clustering run.",
                        "rows whose record is kept"),
    "signals": ("One row per signal.", "signals with at least one evidence record kept"),
    "signal_evidence": ("One row per piece of a signal's evidence: a record, entity, topic or story.",
                        "record rows whose record is kept; the other rows of every kept signal"),
    "stories": ("One row per story version (isCurrent marks the current one).",
                "versions citing at least one kept record"),
    "story_citations": ("One row per citation of a story version.", "rows whose record is kept"),
    "snapshots": ("One row per topic and UTC day with records (the stored daily aggregates).",
                  "rows of the --topic topic, on days within --since/--until; --source does not apply "
                  "(a snapshot counts every source)"),
    "codes": ("One row per code a coder gave (sample, record, coder, variable).", "rows whose record is kept"),
    "gold": ("One row per adjudicated (sample, record, variable).", "rows whose record is kept"),
    "coordination": ("One row per (coordinated group, account): accounts that posted the same text within a short "
                     "window, again and again, more often than a null shuffling each account's own posting times "
                     "allows; by group, then account.", "computed over the records the filters select"),
    **{f"network_{kind}": (f"One row per edge of the {kind} network, heaviest first (weight, then source, target).",
                           "computed over the records the filters select") for kind in NETWORK_ENDS},
}


def columns(table: str, present: frozenset | set | None = None) -> tuple[Column, ...]:
    """The columns of ``table`` that an export writes: every declared one, except the optional
    record columns (``sql_column`` set) whose ``records`` column is not in ``present``."""
    return tuple(c for c in COLUMNS[table]
                 if c.sql_column is None or (present is not None and c.sql_column in present))


#: Record columns written beside the record fields that an import into another corpus skips
#: (they are derived by the stages or the corpus, not part of the record).
DERIVED_RECORD_COLUMNS = tuple(c.name for c in COLUMNS["records"] if c.stage != "import") + ("recordId",)
