"""Features of the shipped tweet sentiment model: n-gram counts and dense lexicon cues.

Every text is read as :func:`corpuskit.text.analysis_text` with emoji kept (URLs and
@handles dropped, #hashtags as their words), lower-cased, with literal ``\\uXXXX``
escapes decoded (older tweet dumps carry them). Three blocks:

- **words**: word 1..n-grams; with ``negation`` on, words after a negator ("not",
  "don't", "never", ...) up to the next punctuation mark carry a ``_NEG`` suffix;
- **chars**: character n-grams within word boundaries (``char_wb``);
- **lexicon**: dense cues from VADER's lexicon read without VADER's rules (fast):
  sums and extremes of positive and negative word valences (a negated word's valence
  flipped), counts of negated words, emoji polarity (VADER's emoji descriptions scored
  by the same lexicon), exclamation and question marks, elongated words ("sooo") and
  upper-case words of the raw text; with ``vader`` on, VADER's own compound, positive,
  negative and neutral scores are added (slower: VADER runs on the text).

The n-gram blocks are weighted ``log(1 + count) * idf`` and each scaled to unit length;
the dense block is standardised by the training data's mean and spread and multiplied
by ``lexicon_weight``. The vocabularies, idf and scaling are learned by :meth:`fit`
and are plain arrays, so a fitted featurizer saves as numbers and strings.
"""
from __future__ import annotations

import re
from array import array
from collections import Counter

import numpy as np
import scipy.sparse as sp

from corpuskit.text import analysis_text
from corpuskit.text.patterns import HANDLE, URL

_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
_WORD = re.compile(r"[^\W_](?:[^\W_]|['’](?=[^\W_]))*|[!?]|[\U0001F000-\U0001FAFF\u2600-\u27BF]")
_CLAUSE_END = re.compile(r"^[.,:;!?]$")
_ELONGATED = re.compile(r"([a-zA-Z])\1\1")
_CAPS = re.compile(r"\b[A-Z]{3,}\b")
_REPEAT = re.compile(r"(\w)\1{2,}")
#: the words a link and an @handle become with ``placeholders`` on (analysis text drops both)
URL_TOKEN, USER_TOKEN = "urltoken", "usertoken"
_NEGATORS = frozenset(
    "not no never nothing nobody none nowhere neither nor cannot cant dont doesnt didnt isnt arent wasnt "
    "werent wont wouldnt shouldnt couldnt aint hasnt havent hadnt mustnt neednt without".split())

#: names of the dense lexicon cues, in column order
LEXICON_COLUMNS = ("pos_sum", "neg_sum", "pos_max", "neg_min", "pos_count", "neg_count", "negated",
                   "emoji_pos", "emoji_neg", "exclamations", "questions", "elongated", "caps")
VADER_COLUMNS = ("vader_compound", "vader_pos", "vader_neg", "vader_neu")


def clean_text(text) -> str:
    """The lower-cased analysis text a tweet is featurized from."""
    text = text or ""
    if "\\u" in text:
        text = _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)
    return analysis_text(text, emoji=True).lower()


def squeeze(clean: str) -> str:
    """A run of three or more of one letter cut to two ("sooo goood" -> "soo good")."""
    return _REPEAT.sub(r"\1\1", clean)


def marked_text(raw) -> str:
    """``raw`` with each link and @handle replaced by a placeholder word (:data:`URL_TOKEN`,
    :data:`USER_TOKEN`), so the n-grams see that there was one."""
    raw = raw or ""
    if "." in raw or "/" in raw:
        raw = URL.sub(f" {URL_TOKEN} ", raw)
    if "@" in raw:
        raw = HANDLE.sub(f" {USER_TOKEN} ", raw)
    return raw


def _clean_texts(raw) -> tuple[str, str]:
    """``(clean_text(raw), clean_vader(raw))``, reading the text once when it has no ``\\u`` escape
    (then both start from the same analysis text)."""
    raw = raw or ""
    text = _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), raw) if "\\u" in raw else raw
    analysed = analysis_text(text, emoji=True)
    return analysed.lower(), (analysed if text is raw else analysis_text(raw, emoji=True))[:1000]


def _negator(token: str) -> bool:
    return token.replace("'", "").replace("’", "") in _NEGATORS or token.endswith(("n't", "n’t"))


def word_tokens(clean: str, negation: bool) -> list[str]:
    """Tokens of a cleaned text; with ``negation``, words in a negator's scope end in ``_NEG``."""
    tokens = _WORD.findall(clean)
    if not negation:
        return tokens
    out, scope = [], False
    for tok in tokens:
        if _CLAUSE_END.match(tok):
            scope = False
            out.append(tok)
        elif _negator(tok):
            scope = True
            out.append(tok)
        else:
            out.append(tok + "_NEG" if scope else tok)
    return out


class _Lexicon:
    """VADER's word and emoji valences, read once."""

    def __init__(self):
        from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

        analyzer = SentimentIntensityAnalyzer()
        self.analyzer = analyzer
        self.words = dict(analyzer.lexicon)
        self.emoji = {}
        for char, description in analyzer.emojis.items():
            value = sum(self.words.get(w, 0.0) for w in description.lower().split())
            if value:
                self.emoji[char] = value


_LEXICON: list = []


def lexicon() -> _Lexicon:
    """The shared VADER lexicon (loaded on first use)."""
    if not _LEXICON:
        _LEXICON.append(_Lexicon())
    return _LEXICON[0]


def lexicon_row(raw: str, tokens: list[str], vader: bool, vader_text: str | None = None) -> list[float]:
    """The dense cues of one text (``tokens`` from :func:`word_tokens` with negation marks);
    ``vader_text`` is :func:`clean_vader` of ``raw`` when the caller has it already."""
    lex = lexicon()
    words, emoji = lex.words, lex.emoji
    pos_sum = neg_sum = pos_max = neg_min = 0.0
    pos_n = neg_n = negated = emo_pos = emo_neg = 0
    for tok in tokens:
        flip = tok.endswith("_NEG")
        word = tok[:-4] if flip else tok
        value = words.get(word)
        if value is None:
            value = emoji.get(word)
            if value is not None:
                if value > 0:
                    emo_pos += 1
                else:
                    emo_neg += 1
            continue
        if flip:
            negated += 1
            value = -0.74 * value  # VADER's own damping of a negated word
        if value > 0:
            pos_sum += value
            pos_n += 1
            pos_max = max(pos_max, value)
        elif value < 0:
            neg_sum += value
            neg_n += 1
            neg_min = min(neg_min, value)
    raw = raw or ""
    row = [pos_sum, neg_sum, pos_max, neg_min, pos_n, neg_n, negated, emo_pos, emo_neg,
           min(raw.count("!"), 5), min(raw.count("?"), 5), len(_ELONGATED.findall(raw)),
           len(_CAPS.findall(raw))]
    if vader:
        scores = lex.analyzer.polarity_scores(clean_vader(raw) if vader_text is None else vader_text)
        row += [scores["compound"], scores["pos"], scores["neg"], scores["neu"]]
    return row


def clean_vader(raw: str) -> str:
    """The text VADER reads (as :class:`~corpuskit.enrich.sentiment.VaderScorer`, capped)."""
    return analysis_text(raw, emoji=True)[:1000]


def _vocabulary(docs_tokens, min_df: int, max_features: int) -> list[str]:
    """Terms in at least ``min_df`` documents, the ``max_features`` most frequent (ties by term)."""
    df = Counter()
    for toks in docs_tokens:
        df.update(set(toks))
    kept = [(n, t) for t, n in df.items() if n >= min_df]
    kept.sort(key=lambda x: (-x[0], x[1]))
    return sorted(t for _, t in kept[:max_features])


def _ngrams(tokens: list[str], low: int, high: int) -> list[str]:
    out = []
    for n in range(low, high + 1):
        out.extend(" ".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
    return out


def _char_ngrams(clean: str, low: int, high: int) -> list[str]:
    out = []
    for word in clean.split():
        padded = f" {word} "
        for n in range(low, high + 1):
            if n > len(padded):
                break
            out.extend(padded[i:i + n] for i in range(len(padded) - n + 1))
    return out


#: distinct words whose char n-gram indices a fitted featurizer remembers
_CHAR_MEMO = 300_000


def _csr(docs_indices, n_columns: int):
    """CSR counts (float32, column indices sorted per row) of one iterable of column indices per row."""
    flat, lengths = array("i"), []  # 4 bytes an index, not a Python int
    for ids in docs_indices:
        before = len(flat)
        flat.extend(ids)
        lengths.append(len(flat) - before)
    n_rows = len(lengths)
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    if not flat:
        return sp.csr_matrix((np.zeros(0, dtype=np.float32), np.zeros(0, dtype=np.int32), indptr),
                             shape=(n_rows, n_columns))
    # one (row, column) key per index: sorted distinct keys are the rows in order, columns sorted
    keys = np.repeat(np.arange(n_rows, dtype=np.int64), lengths) * n_columns + np.frombuffer(flat, dtype=np.intc)
    distinct, counts = np.unique(keys, return_counts=True)
    rows = distinct // n_columns
    np.cumsum(np.bincount(rows, minlength=n_rows), out=indptr[1:])
    return sp.csr_matrix((counts.astype(np.float32), (distinct - rows * n_columns).astype(np.int32), indptr),
                         shape=(n_rows, n_columns))


class TweetFeaturizer:
    """Word and character n-grams plus lexicon cues (see the module docstring).

    Parameters mirror the saved settings: ``word_ngrams`` and ``char_ngrams`` are
    ``(low, high)`` pairs (``char_ngrams=None`` drops the block), ``negation`` marks
    negated words, ``lexicon`` adds the dense cues (``vader`` adds VADER's scores to
    them), ``lexicon_weight`` scales the dense block, ``min_df`` and ``max_words`` /
    ``max_chars`` cap the vocabularies. ``squeeze`` cuts letters repeated three times or more to two
    (:func:`squeeze`) in the text the n-grams and lexicon cues read; ``placeholders`` gives the n-grams
    a word for each link and @handle (:func:`marked_text`). Both off by default (the model shipped as
    ``tweet-sentiment-lr-1`` has neither).
    """

    def __init__(self, word_ngrams=(1, 2), char_ngrams=(2, 5), negation=True, lexicon=True, vader=False,
                 lexicon_weight=0.3, min_df=2, max_words=100_000, max_chars=150_000, squeeze=False,
                 placeholders=False):
        self.word_ngrams = tuple(word_ngrams)
        self.char_ngrams = tuple(char_ngrams) if char_ngrams else None
        self.negation = negation
        self.lexicon = lexicon
        self.vader = vader
        self.lexicon_weight = lexicon_weight
        self.min_df = min_df
        self.max_words = max_words
        self.max_chars = max_chars
        self.squeeze = squeeze
        self.placeholders = placeholders

    def settings(self) -> dict:
        """The parameters, as saved beside the model."""
        return {"word_ngrams": list(self.word_ngrams),
                "char_ngrams": list(self.char_ngrams) if self.char_ngrams else None,
                "negation": self.negation, "lexicon": self.lexicon, "vader": self.vader,
                "lexicon_weight": self.lexicon_weight, "min_df": self.min_df,
                "max_words": self.max_words, "max_chars": self.max_chars,
                **({"squeeze": True} if self.squeeze else {}),
                **({"placeholders": True} if self.placeholders else {})}

    def _parts(self, texts, char_grams: bool = True):
        both = [_clean_texts(t) for t in texts]
        cleaned = [c for c, _ in both]
        if self.placeholders:  # the placeholder words are in no lexicon: the cues read the same text
            cleaned = [clean_text(marked_text(t)) for t in texts]
        if self.squeeze:
            cleaned = [squeeze(c) for c in cleaned]
        tokens = [word_tokens(c, self.negation) for c in cleaned]
        words = [_ngrams(t, *self.word_ngrams) for t in tokens]
        chars = None
        if self.char_ngrams:
            chars = [_char_ngrams(c, *self.char_ngrams) for c in cleaned] if char_grams else cleaned
        dense = None
        if self.lexicon:
            marked = tokens if self.negation else [word_tokens(c, True) for c in cleaned]
            dense = np.array([lexicon_row(t, m, self.vader, v) for t, m, (_, v) in zip(texts, marked, both)],
                             dtype=float)
        return words, chars, dense

    def parts(self, texts) -> tuple:
        """The n-grams and raw dense cues of ``texts`` (what :meth:`fit_parts` and
        :meth:`transform_parts` read): cross-validation computes them once for all folds."""
        return self._parts(list(texts))

    def fit(self, texts):
        """Learn the vocabularies, idf and dense scaling from ``texts``; returns self."""
        return self.fit_parts(self.parts(texts))

    def fit_parts(self, parts):
        """:meth:`fit` from :meth:`parts`; returns self."""
        words, chars, dense = parts
        n = len(words)
        self.words_ = _vocabulary(words, self.min_df, self.max_words)
        self.chars_ = _vocabulary(chars, self.min_df, self.max_chars) if chars is not None else []
        self.word_idf_ = self._idf(self._counts(words, self.words_), n)
        self.char_idf_ = self._idf(self._counts(chars, self.chars_), n) if chars is not None else np.zeros(0)
        if dense is not None:
            self.dense_mean_ = dense.mean(axis=0)
            spread = dense.std(axis=0)
            self.dense_scale_ = np.where(spread > 0, spread, 1.0)
        else:
            self.dense_mean_ = self.dense_scale_ = np.zeros(0)
        self._index()
        return self

    def _index(self):
        self.word_index_ = {t: i for i, t in enumerate(self.words_)}
        self.char_index_ = {t: i for i, t in enumerate(self.chars_)}

    @staticmethod
    def _idf(counts, n: int) -> np.ndarray:
        df = np.bincount(counts.indices, minlength=counts.shape[1])
        return np.log((1 + n) / (1 + df)) + 1.0

    @staticmethod
    def _counts(docs, vocabulary, index=None):
        index = index if index is not None else {t: i for i, t in enumerate(vocabulary)}
        get = index.get
        return _csr(((j for j in map(get, grams) if j is not None) for grams in docs), len(vocabulary))

    def _char_counts(self, cleaned):
        """The char n-gram counts of cleaned texts, from each distinct word's vocabulary
        indices (remembered: a corpus repeats its words), as :meth:`_counts` of
        :func:`_char_ngrams` gives them."""
        memo = self.__dict__.setdefault("_char_memo", {})
        get, (low, high) = self.char_index_.get, self.char_ngrams

        def doc(clean):  # one list a text: the counter reads it faster than a generator
            out = []
            for word in clean.split():
                ids = memo.get(word)
                if ids is None:
                    ids = [j for j in map(get, _char_ngrams(word, low, high)) if j is not None]
                    if len(memo) < _CHAR_MEMO:
                        memo[word] = ids
                out += ids
            return out

        return _csr(map(doc, cleaned), len(self.chars_))

    @property
    def n_features_(self) -> int:
        return len(self.words_) + len(self.chars_) + len(self.dense_mean_)

    def transform(self, texts):
        """The feature matrix (CSR, float32) of ``texts``: :meth:`transform_parts` of :meth:`parts`,
        with the char n-grams counted word by word (the same matrix, faster)."""
        words, cleaned, dense = self._parts(list(texts), char_grams=False)
        chars = self._char_counts(cleaned) if cleaned is not None else None
        return self._matrix(self._counts(words, self.words_, self.word_index_), chars, dense)

    def transform_parts(self, parts):
        """:meth:`transform` from :meth:`parts`."""
        words, chars, dense = parts
        return self._matrix(self._counts(words, self.words_, self.word_index_),
                            None if chars is None else self._counts(chars, self.chars_, self.char_index_), dense)

    def _matrix(self, word_counts, char_counts, dense):
        blocks = [self._weighted(word_counts, self.word_idf_)]
        if char_counts is not None:
            blocks.append(self._weighted(char_counts, self.char_idf_))
        if dense is not None:
            scaled = (dense - self.dense_mean_) / self.dense_scale_ * self.lexicon_weight
            blocks.append(sp.csr_matrix(scaled.astype(np.float32)))
        return sp.hstack(blocks, format="csr", dtype=np.float32)

    @staticmethod
    def _weighted(counts, idf):
        counts = counts.copy()
        counts.data = np.log1p(counts.data)
        counts = counts @ sp.diags(idf.astype(np.float32))
        norms = np.sqrt(np.asarray(counts.multiply(counts).sum(axis=1)).ravel())
        norms[norms == 0] = 1.0
        return sp.csr_matrix(sp.diags(1.0 / norms) @ counts, dtype=np.float32)

    def state(self) -> dict:
        """The fitted state as plain arrays (vocabularies as UTF-8 bytes, one term a line)."""
        return {"words": np.frombuffer("\n".join(self.words_).encode("utf-8"), dtype=np.uint8),
                "chars": np.frombuffer("\n".join(self.chars_).encode("utf-8"), dtype=np.uint8),
                "word_idf": self.word_idf_.astype(np.float32), "char_idf": self.char_idf_.astype(np.float32),
                "dense_mean": self.dense_mean_.astype(np.float64),
                "dense_scale": self.dense_scale_.astype(np.float64)}

    @classmethod
    def from_state(cls, settings: dict, arrays) -> "TweetFeaturizer":
        """A fitted featurizer from :meth:`settings` and :meth:`state`."""
        self = cls(**settings)

        def terms(name):
            raw = bytes(arrays[name]).decode("utf-8")
            return raw.split("\n") if raw else []

        self.words_, self.chars_ = terms("words"), terms("chars")
        self.word_idf_, self.char_idf_ = arrays["word_idf"], arrays["char_idf"]
        self.dense_mean_, self.dense_scale_ = arrays["dense_mean"], arrays["dense_scale"]
        self._index()
        return self

