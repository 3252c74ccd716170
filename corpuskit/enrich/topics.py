"""Topics (beats): definitions, discovery, and per-record assignment.

Beats come from a definition file (a JSON list of objects with ``name``,
``displayName``, ``description``, ``category``, ``keywords``, ``subreddits``,
``active``), from the corpus's ``beats`` metadata (the demo stores its beats
there), or, when there are none, are discovered from the corpus's own text:
k-means on the embeddings, each cluster named by its most distinctive terms
(class-based TF-IDF). Every record is scored against every beat from three
pieces of evidence, keyword hits, subreddit membership and cosine similarity
to the beat's centroid; beats above ``min_confidence`` are assigned, the best
one is the record's primary topic.
"""
from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from corpuskit.enrich.base import l2_normalise
from corpuskit.errors import BeatDefinitionError

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
_WORD = re.compile(r"(?u)\b\w[\w+#]*\b")


@dataclass
class Beat:
    """One topic definition (the ``/api/v1/topics`` item)."""

    name: str
    display_name: str
    description: str = ""
    category: str = "general"
    keywords: list = field(default_factory=list)
    subreddits: list = field(default_factory=list)
    active: bool = True
    discovered: bool = False

    def text(self) -> str:
        """What the beat is about, as text (used when no record vouches for it yet)."""
        return " ".join([self.display_name, self.description, " ".join(self.keywords)])


def _strings(value, what: str, where: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BeatDefinitionError(f"{where}: {what} must be a list of strings, not {value!r}")
    return [v.strip() for v in value if v.strip()]


def load_beats(source) -> list[Beat]:
    """Read beat definitions from a JSON file path, a list of dicts, or ``{"beats": [...]}``.

    Raises :class:`BeatDefinitionError` naming the file and the entry when the
    file is missing, is not JSON, or an entry lacks a valid ``name`` or has
    fields of the wrong type; names must be unique.
    """
    label = "beat definitions"
    data = source
    if isinstance(source, (str, Path)):
        path = Path(source)
        label = str(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise BeatDefinitionError(f"beat file {path} does not exist") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise BeatDefinitionError(f"cannot read beat file {path}: {exc}") from exc
        except json.JSONDecodeError as exc:
            raise BeatDefinitionError(f"beat file {path} is not valid JSON: {exc}") from exc
    if isinstance(data, dict) and "beats" in data:
        data = data["beats"]
    if not isinstance(data, list):
        raise BeatDefinitionError(f"{label}: expected a list of beat objects, got {type(data).__name__}")
    beats, seen = [], set()
    for i, item in enumerate(data):
        where = f"{label}, entry {i + 1}"
        if not isinstance(item, dict):
            raise BeatDefinitionError(f"{where}: expected an object, got {item!r}")
        name = item.get("name")
        if not isinstance(name, str) or not _NAME.match(name):
            raise BeatDefinitionError(
                f"{where}: 'name' must be a non-empty identifier (letters, digits, - _ .), not {name!r}")
        if name in seen:
            raise BeatDefinitionError(f"{where}: duplicate beat name {name!r}")
        seen.add(name)
        display = item.get("displayName", item.get("display_name")) or name.replace("-", " ").title()
        active = item.get("active", True)
        if not isinstance(active, bool):
            raise BeatDefinitionError(f"{where}: 'active' must be true or false, not {active!r}")
        for key in ("description", "category"):
            if item.get(key) is not None and not isinstance(item[key], str):
                raise BeatDefinitionError(f"{where}: {key!r} must be a string")
        beats.append(Beat(
            name=name, display_name=str(display), description=item.get("description") or "",
            category=item.get("category") or "general",
            keywords=_strings(item.get("keywords"), "keywords", where),
            subreddits=[s.lower().removeprefix("r/") for s in _strings(item.get("subreddits"), "subreddits", where)],
            active=active, discovered=bool(item.get("discovered", False)),
        ))
    if not beats:
        raise BeatDefinitionError(f"{label}: no beats defined")
    return beats


def _keyword_tokens(phrase: str) -> str:
    return " ".join(_WORD.findall(phrase.lower()))


class BeatAssigner:
    """Scores records against beats and picks their topics.

    ``confidence = w_keywords * kw + w_subreddit * sub + w_similarity * sim``,
    where ``kw`` saturates at two distinct keyword hits, ``sub`` is 1 when the
    record's subreddit belongs to the beat, and ``sim`` is the cosine to the
    beat centroid rescaled so ``similarity_full`` counts as full evidence.
    Centroids are fitted from the records the keywords and subreddits vouch
    for (then refined once by self-training), or from the beat's own text
    when no record does.

    Parameters
    ----------
    min_confidence : float
        A beat is assigned to a record at or above this confidence.
    max_topics : int
        At most this many assignments per record.
    weights : tuple
        ``(w_keywords, w_subreddit, w_similarity)``.
    similarity_full : float
        Cosine that counts as full similarity evidence.
    """

    model_name = "corpuskit-beats-1"

    def __init__(self, min_confidence: float = 0.25, max_topics: int = 3,
                 weights=(0.45, 0.25, 0.45), similarity_full: float = 0.45):
        self.min_confidence = min_confidence
        self.max_topics = max_topics
        self.weights = weights
        self.similarity_full = similarity_full

    _MEMO_LIMIT = 200_000

    def _prepare(self, beats):
        self.beats_ = list(beats)
        self._memo: dict[str, frozenset] = {}   # text -> phrases: fit, assign and themes read each text
        owners: dict[str, list] = {}
        for b, beat in enumerate(self.beats_):
            for kw in beat.keywords:
                phrase = _keyword_tokens(kw)
                if phrase and b not in owners.setdefault(phrase, []):
                    owners[phrase].append(b)
        self.owners_ = owners
        self.subreddits_ = [set(beat.subreddits) for beat in self.beats_]
        self.unigrams_ = {p for p in owners if " " not in p}
        self.firsts_: dict[str, list] = {}
        for p in sorted(owners):
            if " " in p:
                self.firsts_.setdefault(p.split()[0], []).append((p, p.split()))

    def _phrases(self, text: str) -> frozenset:
        """The beat keyword phrases found in ``text`` as whole words (remembered per text)."""
        found = self._memo.get(text)
        if found is None:
            found = self._find_phrases(text)
            if len(self._memo) < self._MEMO_LIMIT:
                self._memo[text] = found
        return found

    def _find_phrases(self, text: str) -> frozenset:
        words = _WORD.findall(text.lower()) if text else []
        found = self.unigrams_.intersection(words)
        if self.firsts_:
            for j in [j for j, w in enumerate(words) if w in self.firsts_]:
                for phrase, parts in self.firsts_[words[j]]:
                    if words[j:j + len(parts)] == parts:
                        found.add(phrase)
        return frozenset(found)

    def themes(self, texts, limit: int = 5) -> list[list[str]]:
        """Per text, the beat keywords it contains (the record's ``themes``), sorted, at most ``limit``."""
        return [sorted(self._phrases(text))[:limit] for text in texts]

    def evidence(self, texts, subreddits) -> tuple[np.ndarray, np.ndarray]:
        """Keyword and subreddit evidence, each ``(n, n_beats)`` in [0, 1].

        Keyword evidence is half a point per distinct keyword of the beat found
        in the text (as whole words; a hyphen counts as a space), capped at 1.
        """
        n, nb = len(texts), len(self.beats_)
        kw = np.zeros((n, nb), dtype=np.float32)
        owners = self.owners_
        for i, text in enumerate(texts):
            for phrase in self._phrases(text):
                for b in owners[phrase]:
                    kw[i, b] += 0.5
        np.minimum(kw, 1.0, out=kw)
        sub = np.zeros((n, nb), dtype=np.float32)
        for i, s in enumerate(subreddits):
            if s:
                s = s.lower()
                for b, subs in enumerate(self.subreddits_):
                    if s in subs:
                        sub[i, b] = 1.0
        return kw, sub

    def fit(self, beats, texts, subreddits, vectors, embed=None, centroids=None):
        """Fit beat centroids on the corpus (or take ``centroids`` as given)."""
        self._prepare(beats)
        nb = len(self.beats_)
        if centroids is not None:
            self.centroids_ = l2_normalise(centroids)
            return self
        vectors = np.asarray(vectors, dtype=np.float32)
        kw, sub = self.evidence(texts, subreddits)
        prior = kw + sub
        centroids = np.zeros((nb, vectors.shape[1]), dtype=np.float32)
        if len(vectors):
            best = prior.argmax(axis=1)
            top = prior.max(axis=1)
            second = np.sort(prior, axis=1)[:, -2] if nb > 1 else np.zeros(len(prior))
            vouched = (top >= 0.5) & (top > second)
            for b in range(nb):
                rows = vouched & (best == b)
                if rows.any():
                    centroids[b] = vectors[rows].mean(axis=0)
        missing = ~centroids.any(axis=1)
        if missing.any() and embed is not None:
            centroids[missing] = embed([self.beats_[b].text() for b in np.flatnonzero(missing)])
        self.centroids_ = l2_normalise(centroids)
        if len(vectors):  # one self-training round: centroids of confidently assigned records
            conf = self._confidence(kw, sub, vectors)
            primary, top = conf.argmax(axis=1), conf.max(axis=1)
            refined = self.centroids_.copy()
            for b in range(nb):
                rows = (primary == b) & (top >= max(self.min_confidence, 0.4))
                if rows.sum() >= 3:
                    refined[b] = vectors[rows].mean(axis=0)
            self.centroids_ = l2_normalise(refined)
        return self

    def _confidence(self, kw, sub, vectors) -> np.ndarray:
        w_kw, w_sub, w_sim = self.weights
        sim = np.asarray(vectors, dtype=np.float32) @ self.centroids_.T
        sim = np.clip(sim / self.similarity_full, 0.0, 1.0)
        return np.clip(w_kw * kw + w_sub * sub + w_sim * sim, 0.0, 1.0)

    def confidence(self, texts, subreddits, vectors) -> np.ndarray:
        """``(n, n_beats)`` confidences in [0, 1]."""
        kw, sub = self.evidence(texts, subreddits)
        return self._confidence(kw, sub, vectors)

    def assign(self, texts, subreddits, vectors) -> list[list[tuple[int, float]]]:
        """Per record, ``[(beat index, confidence), ...]`` best first (may be empty)."""
        conf = self.confidence(texts, subreddits, vectors)
        active = np.array([b.active for b in self.beats_], dtype=bool)
        conf[:, ~active] = 0.0
        out = []
        order = np.argsort(-conf, axis=1, kind="stable")[:, : self.max_topics]
        for i in range(len(conf)):
            picks = [(int(b), round(float(conf[i, b]), 4)) for b in order[i]
                     if conf[i, b] >= self.min_confidence and conf[i, b] > 0]
            out.append(picks)
        return out

    def to_state(self) -> bytes:
        buf = io.BytesIO()
        np.savez(buf, names=np.array([b.name for b in self.beats_], dtype=str),
                 centroids=self.centroids_)
        return buf.getvalue()

    @staticmethod
    def centroids_from_state(state: bytes) -> tuple[list, np.ndarray]:
        with np.load(io.BytesIO(state), allow_pickle=False) as data:
            return data["names"].tolist(), data["centroids"]


# Words that fill titles without naming a subject; kept out of discovered beat names.
_FILLER = frozenset("""new says say said like just use using used ask hn show tell pdf amp don doesn
isn won aren didn ve ll way make makes time year years people know want need good best better does did
things thing really help going lot today week day days let look work works got getting get vs one two
first back old big small free launch launches yc via know think""".split())


def _nmf_topics(texts, k, seed):
    """NMF on TF-IDF: ``(labels, term lists)``; a record with no known term gets label -1."""
    from sklearn.decomposition import NMF
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, TfidfVectorizer

    stop = sorted(ENGLISH_STOP_WORDS | _FILLER)
    matrix = None
    for min_df, max_df in ((3, 0.5), (1, 1.0)):
        try:
            tv = TfidfVectorizer(stop_words=stop, token_pattern=r"(?u)\b[a-zA-Z][a-zA-Z0-9+#]+\b",
                                 min_df=min(min_df, max(1, len(texts) // 10)), max_df=max_df,
                                 ngram_range=(1, 2), sublinear_tf=True, max_features=20000)
            matrix = tv.fit_transform(texts)
            break
        except ValueError:
            continue
    if matrix is None or matrix.nnz == 0:
        return np.zeros(len(texts), dtype=np.int64), [["general"]]
    vocab = tv.get_feature_names_out()
    k = max(1, min(k, matrix.shape[0], matrix.shape[1]))
    nmf = NMF(n_components=k, init="nndsvda", random_state=seed, max_iter=300, tol=1e-3)
    with np.errstate(invalid="ignore"):  # NMF's loss report takes sqrt of a rounding -0.0
        weights = nmf.fit_transform(matrix)
    labels = np.where(weights.max(axis=1) > 0, weights.argmax(axis=1), -1).astype(np.int64)
    terms = [[str(vocab[i]) for i in np.argsort(-row, kind="stable")[:40] if row[i] > 0]
             for row in nmf.components_]
    return labels, terms


def _distinct_terms(terms, n):
    """Top terms without repeats: a bigram replaces the words it contains; a term sharing a
    word (or its plural) with one already chosen is skipped."""
    def stems(term):
        return {w.rstrip("s") for w in term.split()}

    chosen = []
    for term in terms:
        words = stems(term)
        overlap = [c for c in chosen if stems(c) & words]
        if " " in term and overlap and all(" " not in c for c in overlap):
            chosen[chosen.index(overlap[0])] = term
            chosen = [c for c in chosen if c not in overlap[1:]]
        elif not overlap:
            chosen.append(term)
        if len(chosen) >= n:
            break
    return chosen


def discover_beats(texts, vectors, n_topics: int | None = None, seed: int = 0,
                   n_terms: int = 8) -> tuple[list[Beat], np.ndarray, np.ndarray]:
    """Find beats in a corpus that has none: ``(beats, centroids, labels)``.

    NMF (seeded) on the corpus's TF-IDF finds ``k`` topics, ``k`` defaulting to
    ``clamp(round(sqrt(n / 40)), 3, 12)``; each is named by its top distinct
    terms; its centroid is the mean embedding of the records it dominates.
    Beats are ordered largest first and marked ``discovered``; ``labels`` give
    each record's beat index (-1 for a record with no known term).
    """
    vectors = np.asarray(vectors, dtype=np.float32)
    n = len(texts)
    k = n_topics or int(np.clip(round(np.sqrt(n / 40)), 3, 12))
    labels, terms = _nmf_topics(list(texts), k, seed)
    sizes = np.bincount(labels[labels >= 0], minlength=len(terms))
    order = [c for c in np.argsort(-sizes, kind="stable") if sizes[c] > 0]
    beats, centroids, used = [], [], set()
    for c in order:
        top = _distinct_terms(terms[c], n_terms) or ["general"]
        name = "-".join(re.sub(r"[^a-z0-9]+", "-", t.lower()).strip("-") for t in top[:2]) or "topic"
        base, suffix = name, 2
        while name in used:
            name, suffix = f"{base}-{suffix}", suffix + 1
        used.add(name)
        beats.append(Beat(
            name=name, display_name=", ".join(t.title() for t in top[:3]),
            description=f"Discovered from the corpus: {int(sizes[c])} records about {', '.join(top)}.",
            category="discovered", keywords=top, subreddits=[], active=True, discovered=True))
        centroids.append(vectors[labels == c].mean(axis=0) if len(vectors) else np.zeros(512, np.float32))
    if not beats:
        beats = [Beat(name="general", display_name="General", description="Every record.",
                      category="discovered", discovered=True)]
        centroids = [vectors.mean(axis=0) if len(vectors) else np.zeros(512, np.float32)]
    remap = {int(c): i for i, c in enumerate(order)}
    new_labels = np.array([remap.get(int(l), -1) for l in labels], dtype=np.int64)
    return beats, l2_normalise(np.vstack(centroids)), new_labels
