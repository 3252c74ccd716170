"""SQL fragments that say which records belong to what, for ``records r LEFT JOIN enrichment e``."""

# The one topic membership rule (docs/api.md, "Topic membership"): a record is in a topic by its
# primary topic, or, never enriched or left without one, by the topic it was imported with.
# Parameters: topic id, topic name.
PRIMARY_TOPIC_RULE = "(e.topic_id = ? OR (e.topic_id IS NULL AND r.topic = ?))"

# A record's entity names as a JSON array, most mentioned first (NULL until it is enriched).
ENTITY_NAMES = (
    "CASE WHEN e.record_id IS NULL THEN NULL ELSE (SELECT json_group_array(name) FROM ("
    "SELECT en.name AS name FROM mentions m JOIN entities en ON en.id = m.entity_id "
    "WHERE m.record_id = r.id ORDER BY m.mention_count DESC, en.name, en.id)) END")

# The same rule for one record ``r`` without the enrichment join, by topic name (used by the query
# language's ``topic:`` field, which compiles before any lookup): the enriched primary topic when the
# record has one, else the topic it was imported with. Parameters: topic name, topic name.
PRIMARY_TOPIC_BY_NAME = (
    "(CASE WHEN (SELECT e.topic_id FROM enrichment e WHERE e.record_id = r.id) IS NOT NULL "
    "THEN (SELECT t.name FROM enrichment e JOIN topics t ON t.id = e.topic_id WHERE e.record_id = r.id) = ? "
    "ELSE r.topic IS ? END)")
