"""Every closed value list a filter accepts, defined once."""

SIGNAL_KINDS = ("volume_spike", "sentiment_shift", "novelty", "divergence")
SEVERITIES = ("high", "medium", "low")
SIGNAL_STATUSES = ("open", "resolved")
ENTITY_TYPES = ("person", "org", "product", "place", "concept")
STORY_KINDS = ("lead_story", "beat_narrative", "dispatch", "entity_narrative")
SENTIMENT_LABELS = ("positive", "neutral", "negative")
OBSERVATION_TYPES = ("convergence", "divergence", "anomaly", "milestone", "trend")
# validation (corpuskit.validate): what a sample is stratified by (a period by D, W or M), how its
# strata share the sample, the levels of measurement a codebook declares, the labels validate compares
SAMPLE_STRATA = ("topic", "source", "sentiment", "D", "W", "M")
SAMPLE_ALLOCATIONS = ("proportional", "equal")
MEASUREMENT_LEVELS = ("nominal", "ordinal", "interval", "ratio")
LABEL_KINDS = ("sentiment", "topic", "entities")
