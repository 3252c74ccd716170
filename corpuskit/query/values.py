"""Every closed value list a filter accepts, defined once.

The signal kinds are not here: they are the registered kinds of
:mod:`corpuskit.analysis.signals.kinds` (``SIGNAL_KINDS``), declared by their detectors.
"""
import re

SEVERITIES = ("high", "medium", "low")
SIGNAL_STATUSES = ("open", "resolved")
ENTITY_TYPES = ("person", "org", "product", "place", "concept")
STORY_KINDS = ("lead_story", "beat_narrative", "dispatch", "entity_narrative")
SENTIMENT_LABELS = ("positive", "neutral", "negative")
OBSERVATION_TYPES = ("convergence", "divergence", "anomaly", "milestone", "trend")
#: The source kinds both API specs name; each has special handling somewhere (URLs, collectors).
#: Any other lower-case slug (:data:`SOURCE_SLUG`) is a valid source name too.
SOURCE_KINDS = (
    "reddit", "bluesky", "arxiv", "hackernews", "youtube", "google_news", "news",
    "exa", "webset", "huggingface", "twitter", "gdelt",
)
#: A source name: a lower-case letter, then up to 39 lower-case letters, digits, ``_`` or ``-``.
SOURCE_SLUG = r"^[a-z][a-z0-9_-]{0,39}$"
_SLUG = re.compile(SOURCE_SLUG)


def is_source_name(source) -> bool:
    """Whether ``source`` is a valid source name (a lower-case slug, see :data:`SOURCE_SLUG`)."""
    return isinstance(source, str) and _SLUG.fullmatch(source) is not None

# validation (corpuskit.validate): what a sample is stratified by (a period by D, W or M), how its
# strata share the sample, the levels of measurement a codebook declares, the labels validate compares
SAMPLE_STRATA = ("topic", "source", "sentiment", "D", "W", "M")
SAMPLE_ALLOCATIONS = ("proportional", "equal")
MEASUREMENT_LEVELS = ("nominal", "ordinal", "interval", "ratio")
LABEL_KINDS = ("sentiment", "topic", "entities")
