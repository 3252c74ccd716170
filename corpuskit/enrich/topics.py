"""Topics (beats): definitions, discovery, and per-record assignment.

Beats come from a definition file (a JSON list of objects with ``name``,
``displayName``, ``description``, ``category``, ``keywords``, ``subreddits``,
``active``), from the corpus's ``beats`` metadata (the demo stores its beats
there), or, when there are none, are discovered from the corpus's own text
(:func:`discover_beats`: NMF over the normalised text with the number of
topics chosen from the data, near-duplicates merged, each topic named by its
most distinctive terms). Every record is scored against every beat from three
pieces of evidence, keyword hits, subreddit membership and cosine similarity
to the beat's centroid; beats above ``min_confidence`` are assigned, the best
one is the record's primary topic; a record with none is an outlier (no topic).

Discovered topics are assigned with :data:`DISCOVERED_ASSIGNMENT`: a record
fitting no topic at ``min_confidence`` stays an outlier rather than being
forced into the nearest one, and a second or third topic needs
``secondary_confidence`` (``benchmarks/bench_topics.py`` prints, per
confidence band, the share of secondary assignments whose record holds one of
the topic's terms: the figure behind the threshold).
"""
from __future__ import annotations

import io
import json
import re
import time
from dataclasses import dataclass, field
from numbers import Integral, Real
from pathlib import Path

import numpy as np

from corpuskit.enrich.base import l2_normalise
from corpuskit.enrich.estimator import Estimator, Interval, Weights
from corpuskit.errors import BeatDefinitionError, ValidationError
from corpuskit.numerics import as64, mean_rows, rounded, unit_rows

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
_WORD = re.compile(r"(?u)\b\w[\w+#]*\b")
#: places a topic confidence is stored (and decided) with
CONFIDENCE_DECIMALS = 4


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


@dataclass
class SeedTopic:
    """A topic the researcher expects: a few ``words`` (words or two-word phrases, lowercase) and an
    optional ``label``; discovery keeps it as a topic and adds the corpus's own terms to it."""

    words: list
    label: str | None = None


def load_seed_words(source) -> list[SeedTopic]:
    """Seed topics from a text file, a list or a dict.

    A file holds one topic per line: ``Label: word, word, phrase`` or just ``word, word`` (blank lines
    and lines starting with ``#`` are skipped). A list holds word lists (or comma-separated texts);
    a dict maps labels to word lists. Words are lowercased; each is a word or a two-word phrase.
    """
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.exists():
            raise ValidationError(f"seed-words file {path} does not exist")
        entries = []
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            label, _, words = line.rpartition(":")
            entries.append((label.strip() or None, words, f"{path}:{number}"))
    elif isinstance(source, dict):
        entries = [(str(k), v, f"seed topic {k!r}") for k, v in source.items()]
    elif isinstance(source, (list, tuple)):
        entries = [(None, v, f"seed topic {i + 1}") for i, v in enumerate(source)]
    else:
        raise ValidationError(f"seed words must be a file, a list or a dict, not {type(source).__name__}")
    topics = []
    for label, words, where in entries:
        words = words.split(",") if isinstance(words, str) else list(words)
        if not all(isinstance(w, str) for w in words):
            raise ValidationError(f"{where}: seed words must be texts")
        words = [" ".join(w.lower().split()) for w in words]
        words = list(dict.fromkeys(w for w in words if w))
        if not words:
            raise ValidationError(f"{where}: a seed topic needs at least one word")
        if any(len(w.split()) > 2 for w in words):
            raise ValidationError(f"{where}: a seed word is a word or a two-word phrase")
        topics.append(SeedTopic(words=words, label=label))
    if not topics:
        raise ValidationError("the seed words name no topic")
    return topics


def _seed_classes(terms_of, seeds: list[SeedTopic]) -> np.ndarray:
    """Per record, the seed topic whose words it says most (first on ties), or -1."""
    out = np.full(len(terms_of), -1, dtype=np.int64)
    for i, terms in enumerate(terms_of):
        hits = [len(terms.intersection(s.words)) for s in seeds]
        if max(hits) > 0:
            out[i] = int(np.argmax(hits))
    return out


def beats_from_rows(rows) -> list[Beat]:
    """Beats from stored ``topics`` rows."""
    return [Beat(name=r["name"], display_name=r["display_name"], description=r["description"],
                 category=r["category"], keywords=json.loads(r["keywords"]),
                 subreddits=json.loads(r["subreddits"]), active=bool(r["active"]),
                 discovered=bool(r["discovered"])) for r in rows]


def _keyword_tokens(phrase: str) -> str:
    return " ".join(_WORD.findall(phrase.lower()))


class BeatAssigner(Estimator):
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
        A beat is assigned to a record at or above this confidence; a record
        with no beat at this level is an outlier (no primary topic).
    secondary_confidence : float, optional
        The least confidence of a second or third assignment (default:
        ``min_confidence``).
    max_topics : int
        At most this many assignments per record.
    weights : tuple
        ``(w_keywords, w_subreddit, w_similarity)``.
    similarity_full : float
        Cosine that counts as full similarity evidence.
    """

    model_name = "corpuskit-beats-1"
    _parameter_constraints = {
        "min_confidence": [Interval(Real, 0)], "max_topics": [Interval(Integral, 1)],
        "weights": [Weights(3)], "similarity_full": [Interval(Real, 1e-9)],
        "secondary_confidence": [None, Interval(Real, 0)]}

    def __init__(self, min_confidence: float = 0.25, max_topics: int = 3,
                 weights=(0.45, 0.25, 0.45), similarity_full: float = 0.45,
                 secondary_confidence: float | None = None):
        self.min_confidence = min_confidence
        self.secondary_confidence = secondary_confidence
        self.max_topics = max_topics
        self.weights = weights
        self.similarity_full = similarity_full

    _MEMO_LIMIT = 200_000

    def _prepare(self, beats):
        self.beats_ = list(beats)
        self.memo_: dict[str, frozenset] = {}   # text -> phrases: fit, assign and themes read each text
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
        found = self.memo_.get(text)
        if found is None:
            found = self._find_phrases(text)
            if len(self.memo_) < self._MEMO_LIMIT:
                self.memo_[text] = found
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
        """Fit beat centroids on the corpus (or take ``centroids`` as given); returns self."""
        self._validate_params()
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
                    centroids[b] = mean_rows(vectors[rows])
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
                    refined[b] = mean_rows(vectors[rows])
            self.centroids_ = l2_normalise(refined)
        return self

    def _confidence(self, kw, sub, vectors) -> np.ndarray:
        w_kw, w_sub, w_sim = self.weights
        sim = as64(vectors) @ as64(self.centroids_).T
        sim = np.clip(sim / self.similarity_full, 0.0, 1.0)
        # rounded to the 4 places an assignment is stored with, so a cut-off decides on that value
        return rounded(np.clip(w_kw * kw + w_sub * sub + w_sim * sim, 0.0, 1.0), CONFIDENCE_DECIMALS)

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
        second = self.min_confidence if self.secondary_confidence is None else self.secondary_confidence
        for i in range(len(conf)):
            picks = [(int(b), float(conf[i, b])) for r, b in enumerate(order[i])
                     if conf[i, b] >= (self.min_confidence if r == 0 else max(second, self.min_confidence))
                     and conf[i, b] > 0]
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


#: assigner settings for discovered topics (see the module docstring), chosen by cross-validation on
#: unlabelled criteria only (``benchmarks/cv_topic_assignment.py``: held-out NPMI of the terms each
#: topic's records give, stability of the primary topics across three discovery seeds, coverage): of the
#: cut-offs 0.05-0.3 and keyword weights 0-0.5 (similarity weight the rest), the settings within one
#: standard error of the best held-out NPMI and of the best stability on all of the demo, Hacker News and
#: Reddit are 0.1/0, 0.15/0, 0.15/0.15 and 0.2/0.15; 0.1 with similarity alone covers most records
#: (demo 97%, Reddit 96%, Hacker News 67%; was 92%, 83%, 57% at 0.25 with keyword weight 0.3). Keeping
#: the topic discovery placed a record in was stable only on the demo. A second topic needs 0.6: with
#: similarity alone, of the second topics scoring 0.6 or more 90% (Hacker News) to 98% (demo) of the
#: records hold one of the topic's top-10 terms, of those at 0.5-0.6 only 57% to 92%
#: (``benchmarks/bench_topics.py``).
DISCOVERED_ASSIGNMENT = {"min_confidence": 0.1, "secondary_confidence": 0.6, "weights": (0.0, 0.0, 1.0),
                         "max_topics": 3}
#: assigner settings for topics discovered with the number the researcher gave: every record goes to its
#: nearest topic (no cut-off). Chosen by leaving one labelled set out with k = the gold classes
#: (``benchmarks/bench_topics.py --lodo``): of the cut-offs 0, 0.05 and 0.1, 0 gave the best NMI on three
#: of four sets (Reddit subreddits 0.419 against 0.347 at 0.1) and was chosen on every set left out
GIVEN_K_ASSIGNMENT = dict(DISCOVERED_ASSIGNMENT, min_confidence=0.0)


# -- discovery -----------------------------------------------------------------------------------

#: two discovered topics are one when the cosine of their centroids (mean embeddings) is at least
#: MERGE_CENTROID and the cosine of their c-TF-IDF term vectors is at least MERGE_TERMS. On the
#: Reddit science/technology file (22 NMF topics) the near-duplicates ("new study, suggests",
#: "study finds, new", "people, likely, suggests") score 0.46-0.51 (centroids) and 0.43-0.50
#: (terms); the closest distinct pair ("new study" vs "years, million, ago") 0.37 and 0.35.
MERGE_CENTROID = 0.45
MERGE_TERMS = 0.4
#: a term in more than this share of the records names the corpus, not one of its topics
SUBJECT_SHARE = 0.3
def _min_df(n: int) -> int:
    """Fewest records a discovery term must occur in: 3, or 1-2 for corpora under 150 records."""
    return min(3, max(1, n // 50))


def _term_matrix(texts):
    """TF-IDF (sublinear) of words and adjacent-word bigrams of the normalised texts."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    from corpuskit.text import term_analyzer

    n = len(texts)
    for min_df, max_df in ((_min_df(n), SUBJECT_SHARE), (1, 1.0)):
        try:
            tv = TfidfVectorizer(analyzer=term_analyzer((1, 2)), min_df=min_df, max_df=max_df,
                                 sublinear_tf=True, max_features=20000)
            matrix = tv.fit_transform(texts)
        except ValueError:
            continue
        if matrix.nnz:
            return matrix.tocsr(), tv.get_feature_names_out()
    return None, None


#: the ways discovery can divide the records into topics: NMF over the term matrix, k-means over the
#: records' embeddings (LSA: the embedder is TF-IDF reduced by SVD), the classical short-text baseline,
#: or NMF's topics refined by k-means over the embeddings (started from their centroids)
TOPIC_METHODS = ("nmf", "kmeans", "nmf-kmeans")  # NMF chosen: ``benchmarks/bench_topics.py --lodo``
#: k-means restarts (seeded; the lowest inertia is kept)
KMEANS_RESTARTS = 4


def kmeans_classes(vectors, k: int, seed: int = 0, dimensions: int | None = None,
                   start=None) -> np.ndarray:
    """Each row's k-means cluster (``0..k-1``) over the unit-length embeddings ``vectors``.

    With ``dimensions``, only the first ``dimensions`` columns are used (the embedder's SVD components
    come largest first, so that is a ``dimensions``-d LSA), rows rescaled to unit length. With ``start``
    (a class per row, ``0..k-1``, -1 for none), k-means starts from the centroids of those classes (one
    run) instead of ``KMEANS_RESTARTS`` seeded starts. Fitted in float64 with rounded inputs, so the
    partition does not depend on the BLAS kernel."""
    from sklearn.cluster import KMeans

    data = as64(vectors)
    if dimensions:
        data = data[:, :dimensions]
    data = rounded(unit_rows(data))
    k = max(1, min(k, len(data)))
    init, restarts = "k-means++", KMEANS_RESTARTS
    if start is not None:
        start = np.asarray(start)
        classes = [c for c in range(k) if (start == c).any()]
        if len(classes) == k:
            init, restarts = np.vstack([data[start == c].mean(axis=0) for c in classes]), 1
    model = KMeans(n_clusters=k, n_init=restarts, init=init, random_state=seed, algorithm="lloyd")
    return model.fit_predict(data).astype(np.int64)


def _nmf(matrix, k, seed, max_iter=300):
    import warnings

    from sklearn.decomposition import NMF
    from sklearn.exceptions import ConvergenceWarning

    model = NMF(n_components=k, init="nndsvda", random_state=seed, max_iter=max_iter, tol=1e-3)
    # max_iter is the fit's budget, seeded and the same on every run; reaching it is not an error the
    # reader of a notebook can act on (the topics' own quality checks judge the result)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():  # loss report: sqrt of a rounding -0.0
        warnings.simplefilter("ignore", ConvergenceWarning)
        weights = model.fit_transform(matrix)
    return weights, model.components_


def default_n_topics(n: int) -> int:
    """The most topics discovery considers: ``clip(round(sqrt(n / 30)), 3, 25)``.

    The top of the grid :func:`choose_n_topics` searches; merging near-duplicates
    and dissolving small topics may then keep fewer.
    """
    return int(np.clip(round(np.sqrt(max(n, 0) / 30)), 3, 25))


#: :func:`choose_n_topics` fits NMF on a seeded sample of at most this many records per grid point
K_SAMPLE = 6000
#: grid points between 3 and :func:`default_n_topics` (geometric, so the small k are finer)
K_GRID = 6
#: the finest k whose mean NPMI is at most this much below the grid's best is chosen
K_TOLERANCE = 0.1
#: a k whose largest topic holds more than this share of the sample has not divided the corpus (on the
#: Reddit file k = 3 and 4 give one topic of 50-51%: r/technology against r/science)
K_MAX_SHARE = 0.4


def _npmi_columns(binary, columns) -> list[float]:
    """The NPMI of each topic's term columns of a binary document-term matrix."""
    n = binary.shape[0]
    scores = []
    for cols in columns:
        if len(cols) < 2:
            continue
        sub = binary[:, cols]
        single = np.asarray(sub.sum(axis=0)).ravel() / n
        joint = np.asarray((sub.T @ sub).todense(), dtype=float) / n
        with np.errstate(divide="ignore", invalid="ignore"):
            npmi = np.log(joint / np.outer(single, single)) / -np.log(joint)
        npmi = np.where(joint >= 1.0, 1.0, np.where(joint > 0, npmi, -1.0))
        upper = np.triu_indices(len(cols), 1)
        scores.append(float(np.mean(npmi[upper])))
    return scores


def choose_n_topics(texts, seed: int = 0, details: dict | None = None) -> int:
    """How many topics the corpus supports, chosen by topic coherence across k.

    For each k of a geometric grid of ``K_GRID`` values from 3 to
    :func:`default_n_topics` (the size bound), NMF is fitted on a seeded sample
    of at most ``K_SAMPLE`` records, each record goes to its strongest topic,
    each topic is described by its top 10 c-TF-IDF terms (as discovery describes
    it) and the k is scored by the mean NPMI of its topics' terms over the
    sample. A k whose largest topic holds more than ``K_MAX_SHARE`` of the
    records has not divided the corpus (one background topic of common words
    holds most of it: on short texts common words co-occur at chance, so such a
    k scores well without finding topics) and is passed over unless every k
    does so. Coherence falls as topics get finer; the rule takes the largest
    remaining k whose mean NPMI is within ``K_TOLERANCE`` of the best: as fine
    as the corpus allows at little cost in coherence. ``details``, when given,
    gets the ``grid`` of ``[k, mean NPMI, largest topic's share]``.
    """
    from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer

    from corpuskit.enrich.topic_terms import terms_from_counts
    from corpuskit.text import term_analyzer

    texts = list(texts)
    n = len(texts)
    upper = default_n_topics(n)
    grid = sorted({round(float(k)) for k in np.geomspace(3, upper, K_GRID)}) if upper > 3 else [upper]
    if details is not None:
        details["grid"] = []
    if len(grid) == 1 or n < 10 * upper:
        return upper
    if n > K_SAMPLE:
        texts = [texts[i] for i in np.sort(np.random.default_rng(seed).choice(n, K_SAMPLE, replace=False))]
    try:
        vectorizer = CountVectorizer(analyzer=term_analyzer((1, 2)), min_df=_min_df(len(texts)),
                                     max_df=SUBJECT_SHARE, max_features=20000)
        counts = vectorizer.fit_transform(texts).tocsr()
    except ValueError:
        return upper
    vocab = vectorizer.get_feature_names_out()
    index = {str(t): j for j, t in enumerate(vocab)}
    matrix = TfidfTransformer(sublinear_tf=True).fit_transform(counts)
    binary = counts.copy()
    binary.data[:] = 1.0
    binary = binary.tocsc().astype(np.float64)
    table = []
    for k in grid:
        if k > min(matrix.shape):
            break
        weights, _ = _nmf(matrix, k, seed, max_iter=200)
        labels = np.where(weights.max(axis=1) > 0, weights.argmax(axis=1), -1)
        keep = np.flatnonzero(labels >= 0)
        classes = sorted(set(labels[keep].tolist()))
        member = np.searchsorted(classes, labels[keep])
        per_class = np.vstack([np.asarray(counts[keep[member == i]].sum(axis=0)).ravel()
                               for i in range(len(classes))]).astype(float)
        terms = terms_from_counts(classes, per_class, vocab, counts[keep].tocsc(), top_n=10)
        per_topic = _npmi_columns(binary, [[index[t] for t in ts] for ts in terms.values()])
        share = float(np.bincount(member).max() / len(texts))
        table.append([k, round(float(np.mean(per_topic)) if per_topic else -1.0, 4), round(share, 3)])
    if details is not None:
        details["grid"] = table
    eligible = [row for row in table if row[2] <= K_MAX_SHARE] or table
    if not eligible:
        return upper
    best = max(score for _, score, _ in eligible)
    return max(k for k, score, _ in eligible if score >= best - K_TOLERANCE)


def _merge_groups(labels, vectors, per_class) -> list[list[int]]:
    """Groups of class indices to merge (union of pairs passing both thresholds)."""
    from corpuskit.enrich.topic_terms import ctfidf

    nc = per_class.shape[0]
    centroids = unit_rows(np.vstack([mean_rows(vectors[labels == c]) for c in range(nc)]))
    terms = unit_rows(ctfidf(per_class))
    cen_sim, term_sim = rounded(centroids @ centroids.T), rounded(terms @ terms.T)
    parent = list(range(nc))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a in range(nc):
        for b in range(a + 1, nc):
            if cen_sim[a, b] >= MERGE_CENTROID and term_sim[a, b] >= MERGE_TERMS:
                parent[root(b)] = root(a)
    groups: dict[int, list[int]] = {}
    for c in range(nc):
        groups.setdefault(root(c), []).append(c)
    return sorted(groups.values())


def _split_seeded(members, seeded) -> list[list[int]]:
    """A merge group holding several seed topics, split so each seed topic keeps its own group
    (the group's other classes join the first seed topic)."""
    seeds = [c for c in members if c in seeded]
    if len(seeds) < 2:
        return [members]
    first = [c for c in members if c not in seeded or c == seeds[0]]
    return [first] + [[c] for c in seeds[1:]]


def _label_kept_members(beats, centroids, texts, vectors, given_at, member_rows, formats=(), sources=(),
                        authors=None):
    """Label each discovered beat (but the seed topics at ``given_at``, which keep their given label)
    from the records the discovered-topic assigner (``DISCOVERED_ASSIGNMENT`` with these ``centroids``)
    makes its primary topic, not from NMF's member set: NMF places every record somewhere, the
    assigner leaves those that fit no topic out (a third of Hacker News), and those strays dilute
    every term's share of the topic (Windows held by 13% of the records the assigner keeps, under
    10% of NMF's members). Each kept record's cosine to the beat's centroid (``centroids``, unit
    length) lets the label pass over a name said in a pocket far from the beat's centre
    (:data:`~corpuskit.enrich.topic_terms.HEAD_POCKET_EFFECT`). A beat the assigner keeps no record for
    is labelled from its NMF members (``member_rows``)."""
    from corpuskit.enrich.topic_terms import topic_label

    assigner = BeatAssigner(**DISCOVERED_ASSIGNMENT).fit(beats, [], [], None, centroids=centroids)
    picks = assigner.assign(texts, [None] * len(texts), vectors)
    primary = np.array([p[0][0] if p else -1 for p in picks], dtype=np.int64)
    for b, beat in enumerate(beats):
        if b in given_at and beat.display_name:
            continue
        # a seed topic without a given label is labelled from its NMF members, as before the assigner
        rows = np.flatnonzero(primary == b) if b not in given_at else primary[:0]
        closeness = unit_rows(np.asarray(vectors)[rows]) @ as64(centroids[b]) if len(rows) else None
        if not len(rows):
            rows = member_rows[b]
        beat.display_name = topic_label(beat.keywords, [texts[i] for i in rows], formats=formats,
                                        sources=sources,
                                        authors=None if authors is None else [authors[i] for i in rows],
                                        closeness=closeness)


def _floored(found, vectors, k: int, seed: int, info) -> np.ndarray:
    """NMF's classes ``found`` (-1: none), or LSA k-means's with the same ``k`` when the internal criterion
    of :mod:`~corpuskit.enrich.topic_floor` says they divide the records better; ``info["floor"]`` says
    which was used and both scores."""
    from corpuskit.enrich.topic_floor import FLOOR_CRITERION, FLOOR_DIMENSIONS, compare

    started = time.perf_counter()
    lsa = kmeans_classes(vectors, k, seed, FLOOR_DIMENSIONS)
    scores = compare(vectors, found, lsa, seed)
    nmf_score, lsa_score = scores[FLOOR_CRITERION]
    used = "lsa-kmeans" if lsa_score > nmf_score else "nmf"
    info["floor"] = {"criterion": FLOOR_CRITERION, "nmf": nmf_score, "lsa-kmeans": lsa_score, "used": used,
                     "dimensions": FLOOR_DIMENSIONS, "criteria": scores,
                     "seconds": round(time.perf_counter() - started, 1)}
    return lsa if used == "lsa-kmeans" else found


def _nmf_classes(texts, vectors, matrix, seeded_rows, seeds, n_topics, seed, min_topic_share,
                 info, merge: bool = True, method: str = "nmf",
                 dimensions: int | None = None, floor: bool = True) -> tuple[np.ndarray, dict]:
    """Steps 2 and 3 of :func:`discover_beats`: ``(labels, seed_of)``, each record's class (-1 for
    none) and ``{class: index in seeds}`` of the classes that are seed topics.

    The records of a seed topic (``seeded_rows``) are its class; NMF places the others; near-duplicate
    classes merge and small ones dissolve (never a seed topic). ``info`` gets ``k``,
    ``gridSeconds`` (and the grid, through :func:`choose_n_topics`), ``merged`` and ``dissolved``.
    """
    from corpuskit.enrich.topic_terms import class_term_counts

    n = len(texts)
    grid_started = time.perf_counter()
    chosen = n_topics or choose_n_topics(texts, seed=seed, details=info)
    info["gridSeconds"] = round(time.perf_counter() - grid_started, 1)
    rest = np.flatnonzero(seeded_rows < 0)
    k = max(1, min(chosen - len(seeds), len(rest), matrix.shape[1]))
    labels = seeded_rows.copy()
    if len(rest) and chosen > len(seeds):
        if method == "kmeans" and len(vectors):
            labels[rest] = kmeans_classes(vectors[rest], k, seed, dimensions) + len(seeds)
        else:
            weights, _ = _nmf(matrix[rest], k, seed)
            found = np.where(weights.max(axis=1) > 0, weights.argmax(axis=1), -1)
            if method == "nmf-kmeans" and len(vectors):
                found = kmeans_classes(vectors[rest], k, seed, dimensions, start=found)
            elif method == "nmf" and floor and len(vectors) and k > 1:
                found = _floored(found, vectors[rest], k, seed, info)
            labels[rest] = np.where(found >= 0, found + len(seeds), -1)
    used = (info.get("floor") or {}).get("used")
    info.update(k=k, method=(used or method) if len(vectors) else "nmf")
    present = sorted(set(labels.tolist()) - {-1})
    seeded = {present.index(c) for c in range(len(seeds)) if c in present}   # the seed topics' classes
    seed_of = {present.index(c): c for c in range(len(seeds)) if c in present}
    labels = np.array([present.index(x) if x >= 0 else -1 for x in labels], dtype=np.int64)
    if not merge:
        return labels, seed_of
    if len(present) > 1 and len(vectors):
        _, per_class, vocab = class_term_counts(texts, labels)
        if len(vocab):
            groups = _merge_groups(labels, vectors, per_class)
            # two seed topics stay two: the researcher asked for both
            groups = [g for members in groups for g in _split_seeded(members, seeded)]
            info["merged"] = [g for g in groups if len(g) > 1]
            remap = {c: g for g, members in enumerate(groups) for c in members}
            labels = np.array([remap[x] if x >= 0 else -1 for x in labels], dtype=np.int64)
            seed_of = {remap[c]: s for c, s in seed_of.items()}
            seeded = set(seed_of)
    sizes = np.bincount(labels[labels >= 0], minlength=labels.max() + 1) if (labels >= 0).any() else []
    floor = max(5, int(np.ceil(min_topic_share * n)))
    for c, size in enumerate(sizes):
        if 0 < size < floor and (np.asarray(sizes) >= floor).any() and c not in seeded:
            labels[labels == c] = -1
            info["dissolved"].append(int(c))
    return labels, seed_of


def _without_format_terms(matrix, vocab, format_words):
    """The term matrix without the columns of a title format's words ("Ask HN"): the corpus's layout,
    not a subject, neither pulls records together nor becomes a term (unchanged when every column is one)."""
    keep_cols = np.array([not set(str(t).split()) <= format_words for t in vocab])
    return matrix[:, np.flatnonzero(keep_cols)] if keep_cols.any() else matrix


def discover_beats(texts, vectors, n_topics: int | None = None, seed: int = 0,
                   n_terms: int = 10, min_topic_share: float = 0.01,
                   details: dict | None = None, seed_words=None,
                   dedupe: bool = True, authors=None,
                   sources=(), merge: bool = True, method: str = "nmf",
                   dimensions: int | None = None, floor: bool = True) -> tuple[list[Beat], np.ndarray, np.ndarray]:
    """Find beats in a corpus that has none: ``(beats, centroids, labels)``.

    0. with ``dedupe`` (the default), each group of near-duplicate texts
       (:mod:`corpuskit.text.near_duplicates`: a copy-paste campaign, a flood of
       one post with small edits) counts once: the steps below fit, count and
       choose terms on the group's first text only, and every member of the group
       gets that text's label. Forty copies of one post can then neither form a
       topic nor name one;

    1. TF-IDF of the normalised texts' words and bigrams, without the terms in
       more than ``SUBJECT_SHARE`` of the records (they name the whole corpus:
       a corpus about one subject then splits into its sub-subjects);
    2. NMF (seeded) with ``n_topics`` topics, by default the k chosen from the
       data by :func:`choose_n_topics` (coherence across a grid of k up to the
       size bound :func:`default_n_topics`); with ``method="kmeans"``, k-means over the
       records' embeddings instead (:func:`kmeans_classes`, their first ``dimensions``
       components when given). With ``method="nmf"`` and ``floor`` (the default), LSA k-means
       with the same k is the floor: when an internal criterion computed on the records alone
       (:mod:`~corpuskit.enrich.topic_floor`) says its partition is the better one, discovery uses it
       (``details["floor"]`` and ``details["method"]`` say which was used);
    3. the data then decides how many remain: each record goes to its
       strongest NMF topic; near-duplicate topics merge (centroid cosine at
       least ``MERGE_CENTROID`` and c-TF-IDF term cosine at least
       ``MERGE_TERMS``); a topic with fewer than ``min_topic_share`` of the
       records (and at least 5) is dissolved, its records left to the assigner
       (they join a topic that fits, or none). With ``merge=False`` neither happens: every
       non-empty NMF topic is kept;
    4. a topic's centroid is the mean embedding of its members that hold one of its terms;
       each topic is described by its ``n_terms`` distinct c-TF-IDF terms
       (:mod:`corpuskit.enrich.topic_terms`) and labelled from those that are said widely in it,
       by enough distinct ``authors`` (one per text, when given), are not the name of one of the
       corpus's ``sources`` and name something; a catch-all topic is labelled "Miscellaneous: a, b"
       (:func:`~corpuskit.enrich.topic_terms.topic_label`).

    ``seed_words`` (:func:`load_seed_words`) guide discovery: each record saying a seed topic's
    words is that seed topic's before NMF runs on the others (with ``k`` less the seed topics); a
    seed topic is never dissolved, its keywords are its seed words followed by the corpus's own
    distinct terms for it, and its label is the given one (else made from its terms).

    Beats are ordered largest first and marked ``discovered``; ``labels`` give
    each record's beat index (-1 for none). A ``details`` dict, when given, is
    filled with the NMF ``k``, the ``grid`` behind it (:func:`choose_n_topics`),
    the ``merged`` groups, the ``dissolved`` topics, the ``nearDuplicates`` set aside
    (texts counted once with their group's first), and the ``seconds`` taken
    (``gridSeconds`` of them choosing k).
    """
    from corpuskit.enrich.topic_terms import (
        class_tfidf_terms,
        format_prefixes,
        label_terms,
        slug,
        topic_label,
    )

    vectors = np.asarray(vectors, dtype=np.float32)
    texts = list(texts)
    n = len(texts)
    if dedupe and n > 1:
        from corpuskit.text.near_duplicates import near_duplicate_groups

        groups = near_duplicate_groups(texts, seed=seed)
        reps = np.flatnonzero(groups == np.arange(n))
        if len(reps) < n:
            inner: dict = {}
            beats, centroids, rep_labels = discover_beats(
                [texts[i] for i in reps], vectors[reps] if len(vectors) else vectors, n_topics=n_topics,
                seed=seed, n_terms=n_terms, min_topic_share=min_topic_share, details=inner,
                seed_words=seed_words, dedupe=False, sources=sources, merge=merge, method=method,
                dimensions=dimensions, floor=floor,
                authors=None if authors is None else [authors[i] for i in reps])
            inner["nearDuplicates"] = int(n - len(reps))
            if details is not None:
                details.update(inner)
            return beats, centroids, rep_labels[np.searchsorted(reps, groups)]
    started = time.perf_counter()
    matrix, vocab = _term_matrix(texts) if n else (None, None)
    formats = format_prefixes(texts)
    format_words = {w for f in formats for w in f.split()}
    if matrix is not None and format_words:
        matrix = _without_format_terms(matrix, vocab, format_words)
    info = {"k": None, "grid": [], "merged": [], "dissolved": [], "nearDuplicates": 0}
    labels = np.full(n, -1, dtype=np.int64)
    seeds = list(seed_words or [])
    from corpuskit.text import term_analyzer

    analyse = term_analyzer((1, 2))
    seeded_rows = _seed_classes([set(analyse(t)) for t in texts], seeds) if seeds else np.full(n, -1)
    seed_of: dict = {}
    if matrix is not None:
        labels, seed_of = _nmf_classes(texts, vectors, matrix, seeded_rows, seeds, n_topics, seed,
                                       min_topic_share, info, merge, method, dimensions, floor)
    terms = (class_tfidf_terms(texts, labels, top_n=n_terms, exclude=format_words)
             if (labels >= 0).any() else {})
    for c, s_index in seed_of.items():   # the seed words first, then the corpus's own terms
        words = seeds[s_index].words
        terms[c] = (words + [t for t in terms.get(c, []) if not set(t.split()) & set(" ".join(words).split())])[:max(n_terms, len(words))]
    sizes = np.bincount(labels[labels >= 0], minlength=max(terms, default=-1) + 1)
    order = [c for c in np.argsort(-sizes, kind="stable") if sizes[c] > 0 and terms.get(int(c))]
    beats, centroids, used, member_rows = [], [], set(), []
    for c in order:
        top = terms[int(c)]
        members = labels == c
        given = seeds[seed_of[int(c)]].label if int(c) in seed_of else None
        name = slug([given] if given else label_terms(top, 2, formats)) or "topic"
        base, suffix = name, 2
        while name in used:
            name, suffix = f"{base}-{suffix}", suffix + 1
        used.add(name)
        rows = np.flatnonzero(members)
        member_rows.append(rows)
        # with vectors, a discovered topic is labelled once, from the records the assigner keeps
        # (:func:`_label_kept_members`); without them, from NMF's members here
        display = given or (None if len(vectors) else topic_label(
            top, [texts[i] for i in rows], formats=formats, sources=sources,
            authors=None if authors is None else [authors[i] for i in rows]))
        beats.append(Beat(
            name=name, display_name=display,
            description=f"Discovered from the corpus: {int(sizes[c])} records about {', '.join(top)}.",
            category="discovered", keywords=top, subreddits=[], active=True, discovered=True))
        if len(vectors):
            # the centroid of the members that say one of the topic's terms: records NMF placed
            # here only weakly (no term of the topic) do not pull the topic towards themselves
            wanted = set(top)
            vouched = [i for i in rows if wanted.intersection(analyse(texts[i]))]
            centroids.append(mean_rows(vectors[vouched if len(vouched) >= 3 else rows]))
        else:
            centroids.append(np.zeros(512, np.float32))
    if not beats:
        beats = [Beat(name="general", display_name="General", description="Every record.",
                      category="discovered", discovered=True)]
        centroids = [mean_rows(vectors) if len(vectors) else np.zeros(512, np.float32)]
        order = []
    remap = {int(c): i for i, c in enumerate(order)}
    new_labels = np.array([remap.get(int(x), -1) for x in labels], dtype=np.int64)
    if order and len(vectors):
        given_at = {i for i, c in enumerate(order) if int(c) in seed_of}
        _label_kept_members(beats, l2_normalise(np.vstack(centroids)), texts, vectors, given_at, member_rows,
                            formats=formats, sources=sources, authors=authors)
    info["seconds"] = round(time.perf_counter() - started, 1)
    if details is not None:
        details.update(info)
    return beats, l2_normalise(np.vstack(centroids)), new_labels
