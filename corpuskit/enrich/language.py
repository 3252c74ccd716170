"""Language detection: an ISO 639-1 code for every record whose file or collector gave none.

The detector is py3langid (a maintained fork of langid.py): its naive-Bayes
model ships inside the wheel (no download, works offline), it needs only
numpy, and it classifies about 25,000 Hacker News titles a second on one core.
Its model knows 142 labels; this detector keeps the 116 that have an ISO
639-1 code (the code :attr:`records.language` holds), so a record is never
labelled with a three-letter code such as ``pcm`` that other tools do not know.

Short or ambiguous texts get ``"und"`` (undetermined, ISO 639-2) rather than a
guess: when the best language's probability (py3langid's length-calibrated
softmax over the kept labels) is below ``min_confidence``. The default 0.2 was
chosen by five-fold cross-validation on labelled real text (``python
benchmarks/bench_language.py``; see docs/languages.md for the figures and the
limits of that check).
"""
from __future__ import annotations

import copy
from functools import lru_cache
from numbers import Integral, Real

import numpy as np

from corpuskit.enrich.estimator import Estimator, Interval
from corpuskit.text import analysis_text

__all__ = ["LanguageDetector", "UNDETERMINED", "covers", "default_detector"]

#: the code of a record whose language could not be told (ISO 639-2 ``und``)
UNDETERMINED = "und"
#: the confidence below which a text's language is ``und`` (chosen by cross-validation)
MIN_CONFIDENCE = 0.2


def covers(languages, language: str | None) -> bool:
    """Whether a step that covers ``languages`` (a set of codes, or None for every language)
    should read a record in ``language``: yes when the step covers every language, when the
    record's language is in the set, and when it is undetermined (``und``, empty) -- an
    undetermined text is mostly too short to tell, and is read as the step's language."""
    if languages is None or not language or language == UNDETERMINED:
        return True
    return language in languages


class LanguageDetector(Estimator):
    """py3langid restricted to ISO 639-1 languages, answering ``und`` below ``min_confidence``.

    Parameters
    ----------
    min_confidence : float
        Probability of the best language below which the answer is ``"und"``.
    max_chars : int
        Characters of a text read (its analysis text: URLs, handles and markup removed).
    """

    model_name = "py3langid-0.4-iso639-1"
    _parameter_constraints = {"min_confidence": [Interval(Real, 0, 1)],
                              "max_chars": [Interval(Integral, 1)]}

    def __init__(self, min_confidence: float = MIN_CONFIDENCE, max_chars: int = 1000):
        self.min_confidence = min_confidence
        self.max_chars = max_chars

    def fit(self, texts=None):
        """Load the bundled model (the texts teach it nothing); returns self."""
        self._validate_params()
        # the model is read once per process; each detector holds its own copy of the identifier
        # over the shared, read-only arrays
        identifier = copy.copy(_bundled_identifier())
        self.identifier_ = identifier
        self.languages_ = tuple(identifier.labels)
        return self

    def _identifier(self):
        if getattr(self, "identifier_", None) is None:
            self.fit()
        return self.identifier_

    def rank(self, text: str) -> tuple[str, float]:
        """The most likely language of ``text`` and its probability (``("und", 0.0)`` for a text
        with no letters)."""
        text = analysis_text(text or "")[: self.max_chars]
        if not any(c.isalpha() for c in text):
            return UNDETERMINED, 0.0
        language, confidence = self._identifier().classify(text)
        return language, float(confidence)

    def probabilities(self, text: str) -> dict[str, float]:
        """``{language: probability}`` of ``text`` over the kept labels (empty for a text with no letters)."""
        text = analysis_text(text or "")[: self.max_chars]
        if not any(c.isalpha() for c in text):
            return {}
        return {language: float(p) for language, p in self._identifier().rank(text)}

    def detect(self, text: str) -> str:
        """The ISO 639-1 code of ``text``'s language, or ``"und"`` when unsure or empty."""
        language, confidence = self.rank(text)
        return language if confidence >= self.min_confidence else UNDETERMINED

    def detect_many(self, texts) -> list[str]:
        """:meth:`detect` of each text."""
        return [self.detect(t) for t in texts]

    def settings(self) -> dict:
        """The parameters, as a run records them."""
        return {"min_confidence": self.min_confidence, "max_chars": self.max_chars}

    def __getstate__(self):
        # a worker reloads the model (a few MB): keep pickles small
        return {"min_confidence": self.min_confidence, "max_chars": self.max_chars}


@lru_cache(maxsize=1)
def _bundled_identifier():
    """py3langid's bundled model restricted to the ISO 639-1 labels, its arrays read-only."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(sorted({c for c in identifier.labels if len(c) == 2}))
    # the column slice is a strided view: a contiguous copy scores five times faster
    identifier.nb_ptc = np.ascontiguousarray(identifier.nb_ptc)
    for name in ("nb_ptc", "nb_pc", "tk_nextmove", "tk_output"):
        value = getattr(identifier, name)
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
    return identifier


def default_detector() -> LanguageDetector:
    """The detector enrichment uses by default."""
    return LanguageDetector()
