"""The shipped tweet sentiment model: a multinomial logistic regression on :mod:`tweet_features`.

Stored as ``models/tweet_sentiment.npz`` (coefficients, intercepts, vocabularies as UTF-8
text, idf, dense scaling: plain arrays, read with ``allow_pickle=False``) and
``models/tweet_sentiment.json`` (settings, classes, cross-validation figures), written by
``tools/train_sentiment.py``. :class:`TweetSentimentScorer` loads them on first use.
"""
from __future__ import annotations

import io
import json
import threading
from importlib import resources
from numbers import Integral
from pathlib import Path

import numpy as np

from corpuskit.enrich.base import SentimentScorer
from corpuskit.enrich.calibration import Calibration, apply_calibration, apply_offsets
from corpuskit.enrich.estimator import InstanceOf, Interval
from corpuskit.enrich.tweet_features import TweetFeaturizer
from corpuskit.errors import ValidationError

MODEL_FILE = "tweet_sentiment.npz"
INFO_FILE = "tweet_sentiment.json"
#: the model's classes, in the column order of :meth:`TweetSentimentScorer.predict_proba`
CLASSES = ("negative", "neutral", "positive")
_LOADING = threading.Lock()
#: the arrays of the last model read, by (digest of its file, its featurizer settings)
_READ: dict[tuple, tuple] = {}


def save_model(folder, featurizer: TweetFeaturizer, coef, intercept, info: dict) -> tuple[Path, Path]:
    """Write the model's arrays and its settings/figures into ``folder``; returns both paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    npz, js = folder / MODEL_FILE, folder / INFO_FILE
    info = {**info, "featurizer": featurizer.settings(), "classes": list(CLASSES)}
    with open(npz, "wb") as fh:  # a file handle: np.savez would stamp no date, but keep it explicit
        np.savez_compressed(fh, coef=np.asarray(coef, dtype=np.float32),
                            intercept=np.asarray(intercept, dtype=np.float64), **featurizer.state())
    js.write_text(json.dumps(info, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return npz, js


def _model_dir():
    return resources.files("corpuskit.enrich") / "models"


def load_info(folder=None) -> dict:
    """The settings and figures saved beside the model (the shipped one unless ``folder``)."""
    base = Path(folder) if folder is not None else _model_dir()
    return json.loads((base / INFO_FILE).read_text(encoding="utf-8"))


def _read_arrays(path: Path, settings: dict) -> tuple:
    """``(featurizer, intercept, coef transposed)`` of the model file ``path``, shared read-only by
    every scorer of the process that reads the same bytes with the same featurizer ``settings``."""
    import hashlib

    data = path.read_bytes()
    key = (hashlib.sha256(data).hexdigest(), json.dumps(settings, sort_keys=True))
    found = _READ.get(key)
    if found is None:
        with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
            featurizer = TweetFeaturizer.from_state(settings, arrays)
            intercept = arrays["intercept"]
            coef = np.ascontiguousarray(arrays["coef"].T)
        for array in (intercept, coef, featurizer.word_idf_, featurizer.char_idf_, featurizer.dense_mean_,
                      featurizer.dense_scale_):
            array.flags.writeable = False
        _READ.clear()  # one model a process is the rule: a second replaces the first
        found = _READ[key] = (featurizer, intercept, coef)
    return found


class TweetSentimentScorer(SentimentScorer):
    """Sentiment from the shipped model trained on labelled English tweets.

    The score is ``P(positive) - P(negative)`` in [-1, 1]; the label is the class of
    highest probability, moved by the model's class offsets when it carries them
    (:meth:`score_and_label_many`, :meth:`labels_of`), not a cut on the score; :meth:`predict_proba` gives
    the three probabilities in :data:`CLASSES` order. The offsets and the probability
    calibration that :meth:`calibrated_proba` applies were chosen by leaving one SemEval year
    out (``tools/train_sentiment.py``, the ``calibration`` entry of ``tweet_sentiment.json``).
    Empty text scores 0.0 and is labelled neutral. English only (``languages``).

    Parameters
    ----------
    model_dir : str or None
        Folder holding ``tweet_sentiment.npz`` and ``.json`` (default: the shipped model).
    max_chars : int
        Characters of each text read (default 1,000, as VADER's cap).
    batch_size : int
        Texts featurized at once.
    """

    model_name = "tweet-sentiment-lr-1"
    languages = frozenset({"en"})
    _parameter_constraints = {"model_dir": [None, InstanceOf(str, Path)], "max_chars": [Interval(Integral, 1)],
                              "batch_size": [Interval(Integral, 1)]}

    def __init__(self, model_dir=None, max_chars: int = 1000, batch_size: int = 2000):
        self.model_dir = model_dir
        self.max_chars = max_chars
        self.batch_size = batch_size

    def _load(self):
        if getattr(self, "coef_", None) is not None:
            return
        # one load per scorer even when threads (a local Dask cluster) score at once; reading the
        # arrays' headers in several threads together also trips CPython 3.11's "AST constructor
        # recursion depth mismatch"
        with _LOADING:
            if getattr(self, "coef_", None) is None:
                self._read_model()

    def _read_model(self):
        self._validate_params()
        base = Path(self.model_dir) if self.model_dir is not None else _model_dir()
        path = base / MODEL_FILE
        if not Path(str(path)).exists():
            raise ValidationError(f"no sentiment model at {path}: train one with "
                                  "python tools/train_sentiment.py DATA_DIR --out FOLDER "
                                  "(in a corpuskit source checkout)")
        info = load_info(base)
        self.featurizer_, self.intercept_, coef = _read_arrays(Path(str(path)), info["featurizer"])
        self.info_ = info
        cal = info.get("calibration") or {}
        self.offsets_ = np.asarray(cal.get("offsets", np.zeros(len(CLASSES))), dtype=float)
        self.calibration_ = None if "temperature" not in cal else Calibration(
            float(cal["temperature"]), np.asarray(cal["bias"], dtype=float), np.asarray(cal["priors"], dtype=float))
        self.coef_ = coef   # last: a scorer with coefficients is whole

    def training_priors(self) -> np.ndarray:
        """The class priors the model's probabilities are calibrated to, in :data:`CLASSES` order:
        equal thirds for a model trained with balanced class weights (the weighting makes every
        class count the same), in proportion to the square roots of the training data's class counts
        for square-root balanced weights, else the training data's class shares. What
        :func:`corpuskit.enrich.priors.em_priors` adjusts from."""
        self._load()
        weighting = self.info_["classifier"].get("class_weight")
        if weighting == "balanced":
            return np.full(len(CLASSES), 1.0 / len(CLASSES))
        counts = np.array([self.info_["class_counts"][c] for c in CLASSES], dtype=float)
        if weighting == "sqrt_balanced":  # each class counts n * sqrt(N / (k n)), in proportion to sqrt(n)
            counts = np.sqrt(counts)
        return counts / counts.sum()

    def labels_of(self, proba) -> np.ndarray:
        """Class index of each row of :meth:`predict_proba`: ``argmax(log p + offsets)`` (the plain
        argmax for a model without offsets)."""
        self._load()
        return apply_offsets(proba, self.offsets_) if np.any(self.offsets_) else np.asarray(proba).argmax(axis=1)

    def calibrate_proba(self, proba) -> np.ndarray:
        """Rows of :meth:`predict_proba` calibrated by the model's temperature and biases (unchanged for
        a model without a calibration); they assume :meth:`calibrated_priors`."""
        self._load()
        return np.asarray(proba) if self.calibration_ is None else apply_calibration(proba, self.calibration_)

    def calibrated_priors(self) -> np.ndarray:
        """The class priors :meth:`calibrated_proba` is calibrated to: the class shares of the held-out
        tweets the calibration was fitted on (:meth:`training_priors` without a calibration)."""
        self._load()
        return self.training_priors() if self.calibration_ is None else self.calibration_.priors.copy()

    def fit(self, texts=None):
        """Load the model (nothing is learned from the corpus); returns self."""
        self._load()
        return self

    def predict_proba(self, texts) -> np.ndarray:
        """Class probabilities, one row per text, columns in :data:`CLASSES` order (rows sum to 1;
        an empty text is certainly neutral)."""
        self._load()
        texts = [(t or "")[: self.max_chars] for t in texts]
        out = np.zeros((len(texts), len(CLASSES)))
        out[:, CLASSES.index("neutral")] = 1.0
        filled = [i for i, t in enumerate(texts) if t.strip()]
        for start in range(0, len(filled), self.batch_size):
            part = filled[start:start + self.batch_size]
            x = self.featurizer_.transform([texts[i] for i in part])
            logits = np.asarray(x @ self.coef_, dtype=float) + self.intercept_
            logits -= logits.max(axis=1, keepdims=True)
            p = np.exp(logits)
            out[part] = p / p.sum(axis=1, keepdims=True)
        return out

    def score_many(self, texts) -> np.ndarray:
        """``P(positive) - P(negative)`` of each text."""
        p = self.predict_proba(texts)
        return p[:, CLASSES.index("positive")] - p[:, CLASSES.index("negative")]

    def score(self, text: str) -> float:
        """``P(positive) - P(negative)`` of one text (0.0 for empty text)."""
        return float(self.score_many([text])[0])

    def score_and_label_many(self, texts) -> tuple[np.ndarray, list[str]]:
        """Scores and labels (the most probable class, moved by the model's offsets: :meth:`labels_of`)
        from one pass over ``texts``."""
        p = self.predict_proba(texts)
        scores = p[:, CLASSES.index("positive")] - p[:, CLASSES.index("negative")]
        return scores, [CLASSES[i] for i in self.labels_of(p)]

    def __getstate__(self):
        # Workers reload the arrays; keep pickles small.
        return {"model_dir": self.model_dir, "max_chars": self.max_chars, "batch_size": self.batch_size}
