"""Every closed value list a filter accepts, defined once."""

SIGNAL_KINDS = ("volume_spike", "sentiment_shift", "novelty", "divergence")
SEVERITIES = ("high", "medium", "low")
SIGNAL_STATUSES = ("open", "resolved")
ENTITY_TYPES = ("person", "org", "product", "place", "concept")
STORY_KINDS = ("lead_story", "beat_narrative", "dispatch", "entity_narrative")
SENTIMENT_LABELS = ("positive", "neutral", "negative")
OBSERVATION_TYPES = ("convergence", "divergence", "anomaly", "milestone", "trend")
