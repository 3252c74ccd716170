"""Topic and cluster terms: class-based TF-IDF over the normalised text, and readable labels.

Terms come from :func:`corpuskit.text.term_analyzer`: lowercase words of the
analysis text (no URL parts, HTML entities, handles, contraction fragments,
stop words or pure numbers) and bigrams of words that were adjacent in the
text. For group ``c`` and term ``t`` the score is
``tf(t, c) * log(1 + A / f(t))`` where ``tf(t, c)`` is the term's frequency
in the group divided by the group's term count, ``f(t)`` its frequency over
every group and ``A`` the average term count per group (BERTopic's c-TF-IDF).

A term describes at most the ``OWNERS`` (2) groups it is most distinctive
of (the highest c-TF-IDF), so groups seldom repeat one another's terms. The top terms are
then made distinct (:func:`distinct_terms`): a bigram takes
the place of its words when people say the phrase (the bigram makes up at
least ``PHRASE_SHARE`` of the group's uses of the chosen words it replaces;
measured on the real files, a looser rule let rare phrases crowd out terms
that are said together and cost half the NPMI coherence), and a term
sharing a word (or its plural) with one already chosen is dropped. Past the first
term, terms are chosen for distinctiveness and for being said together
(:func:`_coherent`). A label (:func:`readable_label`) reads "Head: second, third"
from the terms that name something (:func:`label_terms`: no light verb, weak word
or title format such as "Ask HN", :func:`format_prefixes`), in the casing the
records use mid-sentence ("NASA: rocket launch, orbit").
"""
from __future__ import annotations

import re
from collections import Counter

import numpy as np
from scipy import sparse

from corpuskit.errors import ValidationError
from corpuskit.stats.comparisons import VD_LARGE, rank_effect
from corpuskit.text import term_analyzer
from corpuskit.text.terms import MISCELLANEOUS, generic_word, label_word
from corpuskit.text.unicode import CJK_RUN, fold

#: a bigram replaces a chosen word when it makes up at least this share of that word's uses
PHRASE_SHARE = 0.3
#: two chosen words become their phrase when it is said this often and the rarer word is hardly ever said
#: outside it ("york" in "new york"; not "messenger", said alone as often as in "facebook messenger")
PHRASE_USES = 10
PHRASE_RARER = 0.8
_CANDIDATES = 80
_POOL = 30
#: a term is among the top terms of at most this many groups (those it is most distinctive of)
OWNERS = 2
#: how strongly a term's co-occurrence with the terms already chosen weighs against its distinctiveness
COHERENCE_POWER = 2


def _stems(term: str) -> set:
    """The forms a term's words may share with another term's: the word, without a plural ``s``,
    and without ``-ed`` / ``-ing`` ("released" meets "release", "using" meets "use")."""
    out = set()
    for w in term.split():
        w = w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
        out.add(w)
        if len(w) > 4 and w.endswith("ed"):
            out.update((w[:-1], w[:-2]))
        elif len(w) > 4 and w.endswith("ing"):
            out.update((w[:-3], w[:-3] + "e"))
    return out


def class_term_counts(texts, labels, max_features: int = 30000, min_df: int = 1):
    """``(classes, per-class term counts (dense), vocabulary)`` of the texts with label >= 0."""
    return _class_counts(texts, labels, max_features, min_df)[:3]


def _class_counts(texts, labels, max_features, min_df):
    from sklearn.feature_extraction.text import CountVectorizer

    labels = np.asarray(labels)
    keep = labels >= 0
    classes = sorted(set(labels[keep].tolist()))
    if not classes:
        return classes, np.zeros((0, 0)), np.array([], dtype=str), None
    kept = [t or "" for t, k in zip(texts, keep) if k]
    vectorizer = CountVectorizer(analyzer=term_analyzer((1, 2)), max_features=max_features,
                                 min_df=min(min_df, max(1, len(kept) // 50)))
    try:
        counts = vectorizer.fit_transform(kept)
    except ValueError:  # no usable words at all
        return classes, np.zeros((len(classes), 0)), np.array([], dtype=str), None
    index = {c: i for i, c in enumerate(classes)}
    rows = np.array([index[c] for c in labels[keep]])
    membership = sparse.csr_matrix((np.ones(len(rows)), (rows, np.arange(len(rows)))),
                                   shape=(len(classes), len(rows)))
    per_class = np.asarray((membership @ counts).todense(), dtype=float)
    return classes, per_class, np.array(vectorizer.get_feature_names_out()), counts.tocsc()


def ctfidf(per_class: np.ndarray) -> np.ndarray:
    """The c-TF-IDF scores of per-class term counts (see the module docstring)."""
    words = per_class.sum(axis=1, keepdims=True)
    tf = per_class / np.maximum(words, 1)
    idf = np.log(1 + words.mean() / np.maximum(per_class.sum(axis=0), 1))
    return tf * idf


def distinct_terms(terms, n: int, counts: dict | None = None) -> list[str]:
    """The first ``n`` of ``terms`` (best first) with no word said twice (see the module docstring).

    ``counts`` (term -> occurrences in the group) lets a bigram replace its words only
    when it carries ``PHRASE_SHARE`` of their uses; without it any bigram may. A chosen word
    hardly ever said outside a phrase with another chosen word (``york`` and ``new``) is
    that phrase: it stands for both when it carries ``PHRASE_SHARE`` of the other word's
    uses too, else it stands beside the other word ("new, new york": the group says "new"
    mostly about other things), the one case where a word is said twice.
    """
    chosen: list[str] = []
    for term in terms:
        words = _stems(term)
        overlap = [c for c in chosen if _stems(c) & words]
        if " " in term and overlap and all(" " not in c for c in overlap):
            share = counts is None or counts.get(term, 0) >= PHRASE_SHARE * (
                max(counts.get(c, 0) for c in overlap) or 1)
            if share:
                chosen[chosen.index(overlap[0])] = term
                chosen = [c for c in chosen if c not in overlap[1:]]
            elif len(overlap) == len(term.split()) and _said_together(term, overlap, counts):
                rarer = min(overlap, key=lambda c: (counts.get(c, 0), c))
                chosen[chosen.index(rarer)] = term
        elif not overlap:
            phrase = _phrase_with(term, chosen, counts) if counts is not None and " " not in term else None
            if phrase is None:
                chosen.append(term)
            elif counts.get(phrase[0], 0) >= PHRASE_SHARE * counts.get(phrase[1], 0):
                chosen[chosen.index(phrase[1])] = phrase[0]
            else:
                chosen.append(phrase[0])
        if len(chosen) >= n:
            break
    return chosen


def _phrase_with(word: str, chosen: list[str], counts: dict):
    """``(phrase, chosen word)`` when ``word`` is hardly said outside a phrase with a chosen single word."""
    for c in chosen:
        if " " in c:
            continue
        for phrase in (f"{c} {word}", f"{word} {c}"):
            if _said_together(phrase, [c, word], counts):
                return phrase, c
    return None


def _said_together(phrase: str, words, counts: dict) -> bool:
    """True when the group says ``phrase`` at least ``PHRASE_USES`` times and for at least
    ``PHRASE_RARER`` of the uses of the rarer of its ``words``."""
    uses = counts.get(phrase, 0)
    return uses >= PHRASE_USES and uses >= PHRASE_RARER * min(counts.get(w, 0) for w in words)


def class_tfidf_terms(texts, labels, top_n: int = 10, max_features: int = 30000,
                      exclude=()) -> dict[int, list[str]]:
    """The ``top_n`` distinct c-TF-IDF terms of each label (labels < 0, noise, are ignored).

    Ties are broken alphabetically; a label whose texts hold no usable term gets ``[]``. A term
    made only of the words in ``exclude`` (a title format's: "ask", "hn") is never chosen.
    """
    classes, per_class, vocab, docs = _class_counts(texts, labels, max_features, 1)
    if len(vocab) and exclude:
        words = set(exclude)
        per_class = per_class.copy()
        per_class[:, [j for j, t in enumerate(vocab) if set(str(t).split()) <= words]] = 0
    return terms_from_counts(classes, per_class, vocab, docs, top_n)


def terms_from_counts(classes, per_class, vocab, docs, top_n: int = 10) -> dict[int, list[str]]:
    """:func:`class_tfidf_terms` from counts already made: ``per_class`` term counts (one row per
    class), the ``vocab`` and the document-term counts ``docs`` of the labelled documents."""
    if not len(vocab):
        return {c: [] for c in classes}
    scores = ctfidf(per_class)
    index = {str(t): j for j, t in enumerate(vocab)}
    # a term describes at most the OWNERS groups it is most distinctive of
    owners = np.argsort(-scores, axis=0, kind="stable")[:OWNERS]
    out = {}
    for i, c in enumerate(classes):
        row = scores[i]
        nonzero = np.flatnonzero((row > 0) & (owners == i).any(axis=0))
        order = sorted(nonzero, key=lambda j: (-row[j], vocab[j]))[:_CANDIDATES]
        counts = {str(vocab[j]): per_class[i, j] for j in nonzero}
        candidates = distinct_terms([str(vocab[j]) for j in order], _POOL, counts)
        out[c] = _coherent(candidates, [row[index[t]] for t in candidates], docs, index, top_n)
    return out


def _coherent(candidates, weights, docs, index, top_n):
    """``top_n`` of the candidates: the most distinctive first, then greedily the term with the
    highest ``rel * (1 + npmi) ** 2``, ``rel`` its c-TF-IDF relative to the first term's and
    ``npmi`` its mean NPMI (document co-occurrence) with the terms already chosen: a topic's
    terms are distinctive and said together."""
    if len(candidates) <= 1:
        return candidates[:top_n]
    cols = docs[:, [index[t] for t in candidates]]
    cols.data[:] = 1.0
    n = docs.shape[0]
    single = np.asarray(cols.sum(axis=0)).ravel() / n
    joint = np.asarray((cols.T @ cols).todense(), dtype=float) / n
    with np.errstate(divide="ignore", invalid="ignore"):
        npmi = np.log(joint / np.outer(single, single)) / -np.log(joint)
    npmi = np.where(joint > 0, np.nan_to_num(npmi, nan=1.0, posinf=1.0, neginf=-1.0), -1.0)
    rel = np.asarray(weights, dtype=float) / max(weights[0], 1e-12)
    chosen, left = [0], list(range(1, len(candidates)))
    while left and len(chosen) < top_n:
        best = max(left, key=lambda j: (rel[j] * (1 + npmi[j, chosen].mean()) ** COHERENCE_POWER, -j))
        chosen.append(best)
        left.remove(best)
    return [candidates[j] for j in chosen]


def _title_cased(text: str) -> bool:
    words = [w for w in re.findall(r"[A-Za-z][\w'-]*", text or "") if len(w) > 3]
    return len(words) >= 3 and sum(w[0].isupper() for w in words) / len(words) > 0.6


def _marked(form: str) -> bool:
    """True for a casing that says more than Title Case: ``NASA``, ``iPhone``, ``GitHub``."""
    return any(ch.isupper() for ch in form[1:]) or (form[:1].islower() and form != form.lower())


def _sentence_start(text: str, at: int) -> bool:
    """True when position ``at`` of ``text`` starts the text or a sentence (a capital there is grammar)."""
    before = text[:at].rstrip(" \t\"'(\u201c\u2018")
    return not before or before[-1] in ".!?:\n|"


def surface_form(term: str, texts) -> str:
    """``term`` in the casing the texts use most (``nasa`` -> ``NASA``); lowercase if never seen.

    Headline-style texts (most words capitalised) and the first word of a sentence only
    vouch for marked casings (``NASA``, ``iPhone``): their capitals say nothing about
    ``Time``, ``Free`` or ``Best``, so there the other texts decide ("America" said
    mid-sentence in one record beats headlines).
    """
    return _surface_form(term, _CasingSample(texts))


class _CasingSample:
    """Texts read once for :func:`surface_form`: each text, its lowercase form and whether it is a headline."""

    def __init__(self, texts):
        self.texts = [t or "" for t in texts]
        # None for a text that is not ASCII: its case folding may differ from lower(), so never skip it
        self.lowered = [t.lower() if t.isascii() else None for t in self.texts]
        self._headline: dict[int, bool] = {}

    def headline(self, i: int) -> bool:
        if i not in self._headline:
            self._headline[i] = _title_cased(self.texts[i])
        return self._headline[i]


def _surface_form(term: str, sample: _CasingSample) -> str:
    words = term.split()
    if not words:
        return term
    pattern = re.compile(r"(?<![\w])" + r"\s+".join(map(re.escape, words)) + r"(?![\w])", re.IGNORECASE)
    first = words[0].lower()
    seen: Counter = Counter()
    for i, text in enumerate(sample.texts):
        if sample.lowered[i] is not None and first not in sample.lowered[i]:
            continue   # cannot match: skip the regex
        for m in pattern.finditer(text):
            form = re.sub(r"\s+", " ", m.group(0))
            if (sample.headline(i) or _sentence_start(text, m.start())) and not _marked(form):
                continue   # no say in the casing
            seen[form] += 1
    if not seen:
        return term
    form, _ = max(seen.items(), key=lambda kv: (kv[1], kv[0] == term, kv[0]))
    return form


def label_terms(terms, parts: int = 3, formats=(), names=()) -> list[str]:
    """The first ``parts`` of ``terms`` that name something (what :func:`readable_label` says).

    Passed over: light verbs and weak words (:func:`corpuskit.text.terms.label_word`:
    "says", "new", "time"), the texts' ``formats`` (:func:`format_prefixes`: "ask hn"),
    a single word common in general English (:func:`corpuskit.text.terms.generic_word`:
    "simple", "work", "man") unless it is among ``names`` (terms the corpus or the
    gazetteers know as names: "facebook", "china"), and a term sharing a word with one
    already picked ("New: New York"). When no term is left the generic words are taken,
    and when none of those either, the terms as they come.
    """
    skip = set(formats)
    named = set(names)
    usable = [t for t in terms if t and label_word(t) and t not in skip]
    wanted = ([t for t in usable if not generic_word(t) or t in named] or usable
              or [t for t in terms if t and t not in skip] or [t for t in terms if t])
    picked: list[str] = []
    for t in wanted:
        if not any(_stems(t) & _stems(c) for c in picked):
            picked.append(t)
        if len(picked) == parts:
            break
    return picked


def name_terms(terms, sample) -> set:
    """The generic terms among ``terms`` that are names: in the entity gazetteers
    ("facebook", "china"), written in a marked casing ("US"), a phrase the texts capitalise outside
    headlines ("New York"), or a word capitalised mid-sentence in
    ``sample``'s sentence-case texts (a :class:`_CasingSample` or texts; see ``NAME_CAPITAL_SHARE``)."""
    from corpuskit.enrich.entities import alias_key

    if not isinstance(sample, _CasingSample):
        sample = _CasingSample(list(sample)[:400])
    table = _gazetteer_keys()
    out = set()
    for t in terms:
        if not t or not generic_word(t):
            continue
        form = _surface_form(t, sample)
        if alias_key(t) in table or _marked(form) or (" " in t and form != t) or (
                " " not in t and _capitalised_in_prose(t, sample)):
            out.add(t)   # a phrase in capitals outside headlines is a name: "New York"
    return out


#: a common word is a name when the texts written in sentence case capitalise it mid-sentence at least
#: this often (and NAME_USES times): a title-case corpus (Hacker News) says nothing about it either way
NAME_CAPITAL_SHARE = 0.9
NAME_USES = 3
_SENTENCE_CASE = 0.4


def _capitalised_in_prose(word: str, sample: "_CasingSample") -> bool:
    pattern = re.compile(r"(?<![\w])" + re.escape(word) + r"(?![\w])", re.IGNORECASE)
    upper = lower = 0
    for i, text in enumerate(sample.texts):
        if sample.lowered[i] is not None and word not in sample.lowered[i]:
            continue
        long_words = [w for w in re.findall(r"[A-Za-z][\w'-]*", text) if len(w) > 3]
        if not long_words or sum(w[0].isupper() for w in long_words) / len(long_words) >= _SENTENCE_CASE:
            continue   # title case: its capitals are style
        for m in pattern.finditer(text):
            if _sentence_start(text, m.start()):
                continue
            upper += m.group(0)[0].isupper()
            lower += not m.group(0)[0].isupper()
    return upper >= NAME_USES and upper >= NAME_CAPITAL_SHARE * (upper + lower)


_GAZETTEER_KEYS: list = []


def _gazetteer_keys() -> frozenset:
    if not _GAZETTEER_KEYS:
        from corpuskit.enrich.entities import load_gazetteers

        _GAZETTEER_KEYS.append(frozenset(load_gazetteers()[0]))
    return _GAZETTEER_KEYS[0]


#: a label's Chinese or Japanese term grows by a character to either side while at least this share of
#: the sample texts holding it hold the longer string (``チク`` -> ``チクショー``), up to CJK_MAX_CHARS
#: and while the longer string is held by at least CJK_GROW_TEXTS texts
CJK_GROW_SHARE = 0.8
CJK_GROW_TEXTS = 3
CJK_MAX_CHARS = 12


def cjk_label_form(term: str, texts) -> str | None:
    """The readable form of a term made of CJK character pairs (the vocabulary's tokens for Chinese and
    Japanese, :func:`corpuskit.text.unicode.split_cjk`), or None for any other term: the string its
    overlapping pairs spell (``チク クシ`` -> ``チクシ``), grown one character at a time to the side and
    with the character that most of the ``texts`` holding it share (at least :data:`CJK_GROW_SHARE`, and
    :data:`CJK_GROW_TEXTS` texts),
    so that a label reads a word (``チクショー``), not a pair cut out of one."""
    words = term.split()
    if not words or not all(CJK_RUN.fullmatch(w) for w in words):
        return None
    form = words[0]
    for w in words[1:]:
        form += w[1:] if form[-1] == w[0] else w
    holding = [t for t in texts if form in t]
    while holding and len(form) < CJK_MAX_CHARS:
        counts: Counter = Counter()
        for text in holding:
            seen = set()
            for m in re.finditer(re.escape(form), text):
                for side, i in ((0, m.start() - 1), (1, m.end())):
                    if 0 <= i < len(text) and CJK_RUN.fullmatch(text[i]):
                        seen.add((side, text[i]))
            counts.update(seen)
        if not counts:
            break
        (side, char), n = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        if n < CJK_GROW_SHARE * len(holding) or n < CJK_GROW_TEXTS:
            break
        form = char + form if side == 0 else form + char
        holding = [t for t in holding if form in t]
    return form


def _label_forms(terms, sample: "_CasingSample") -> list[str]:
    """The forms of ``terms`` a label shows, a CJK term grown into a word (:func:`cjk_label_form`) and a
    form held inside an earlier one left out (two pairs of the same word)."""
    forms: list[str] = []
    for t in terms:
        grown = cjk_label_form(t, sample.texts)
        if grown is None:
            forms.append(_surface_form(t, sample))
        elif not any(grown in f for f in forms):
            forms.append(grown)
    return forms


def readable_label(terms, texts=(), parts: int = 3, formats=()) -> str:
    """A label a person would write: ``"Head: second, third"`` from :func:`label_terms`.

    The head is the first term in its usual casing with a capital first letter (unless its
    first word has a capital inside it: 'iPhone');
    the others keep their usual casing. ``texts`` (a sample of the group's
    records) supply the casing; without them terms stay lowercase. A word common in general
    English stands in the label only as a name: held by the entity gazetteers, or written with
    a capital mid-sentence by the texts (:func:`name_terms`).
    """
    sample = _CasingSample(list(texts)[:400])
    terms = label_terms(terms, parts, formats, names=name_terms(terms, sample))
    if not terms:
        return ""
    forms = _label_forms(terms, sample)
    first = forms[0].split(" ")[0]
    # a name written with a capital inside it keeps its casing ('iPhone', 'eBay'), not 'IPhone'
    head = forms[0] if any(ch.isupper() for ch in first[1:]) else forms[0][:1].upper() + forms[0][1:]
    return head if len(forms) == 1 else f"{head}: {', '.join(forms[1:])}"


#: a label's head is held by at least this share of the topic's records: a name said by few of the topic's
#: records does not name it, and a topic with no
#: term that can head a label held that widely is a catch-all, "Miscellaneous: a, b" (Hacker News: "data"
#: in 7% of 3,740 records). The bar is a share of the topic's size, not of its best-held term's share: the
#: best-held term is often a word that cannot stand in a label ("says" in 80% of a Reddit topic, "new" in
#: 96% of a Hacker News one), and a bar set by it turned away "NASA" (10%) there
HEAD_SUPPORT = 0.1
#: the second and third terms of a label qualify its head and may be rarer: each is held by at least this
#: share of the topic's records (a quarter of the head's bar) so that a term said in a handful of records
#: does not stand there
LABEL_SUPPORT = 0.025
#: a head names the topic's core, not a pocket of it: a term whose records sit farther from the topic's
#: centroid than its other records, by a large effect (Vargha-Delaney A at most 1 - VD_LARGE = 0.29: a
#: record saying it is nearer the centre than one that does not in under 29% of pairs) shown at the 5%
#: level (one-sided Mann-Whitney), cannot head the label. A catch-all holds a frequent name in a pocket
#: (Hacker News: "uber" in 10.1% of a topic about work and money, its records at mean cosine 0.09 from the
#: centroid against 0.26 for the others, A = 0.15); a real topic's name is its centre ("google": 0.48
#: against 0.14, A = 0.99; the least central head kept there, "python", A = 0.59)
HEAD_POCKET_EFFECT = 1 - VD_LARGE
HEAD_POCKET_P = 0.05
#: a label term is said by at least this many distinct authors (or by all the topic's authors, when it has
#: fewer) and by distinct authors for at least LABEL_AUTHOR_SHARE of the records saying it, or of the
#: topic's authors when it has fewer authors than the term has records: a phrase pushed by a few accounts
#: names no topic, and in a corpus of a few prolific accounts (25 Spanish news outlets, 33,605 tweets) a
#: term said by a quarter of the outlets does (a share of its records turned away every term there, and
#: 19 of 20 topics were labelled "Miscellaneous")
LABEL_MIN_AUTHORS = 5
LABEL_AUTHOR_SHARE = 0.25


def topic_label(terms, texts, authors=None, formats=(), sources=(), closeness=None) -> str:
    """The label of a discovered topic from its distinct ``terms`` (best first) and its records' ``texts``.

    A label term is said by at least ``LABEL_MIN_AUTHORS`` distinct ``authors`` (one per text; None or ""
    counts as a distinct unknown author; no ``authors``, no author rule; fewer when the topic has fewer)
    for at least ``LABEL_AUTHOR_SHARE`` of the records saying it (of the topic's authors, when they
    are fewer), is not the name of one of the corpus's ``sources``
    (a term that is the platform's own name, "Hacker News" on Hacker News, says nothing about a topic),
    is no light verb, weak word or title format (:func:`label_terms`). The head is the most distinctive
    such term that is not a word common in general English (unless the texts or gazetteers make it a
    name, :func:`name_terms`: "Google", "Earth") and that is held by at least ``HEAD_SUPPORT`` of the
    topic's records and, given ``closeness`` (per text, its cosine to the topic's centroid), whose
    records are not a pocket far from the topic's centre (``HEAD_POCKET_EFFECT``, :func:`_pocket`);
    after it come up to two more such terms held by at least ``LABEL_SUPPORT`` of the
    records (:func:`readable_label`). A topic with no term that can head its label is a catch-all:
    ``"Miscellaneous: a, b"`` from its top two distinct terms.
    """
    texts = list(texts)
    analyse = term_analyzer((1, 2))
    held = [set(analyse(t)) for t in texts]
    n = max(1, len(held))
    support = {t: sum(t in h for h in held) / n for t in terms}
    platforms = {re.sub(r"[^a-z0-9]", "", fold(str(s))) for s in sources if s}
    named = [t for t in terms if re.sub(r"[^a-z0-9]", "", fold(t)) not in platforms]
    if authors is not None:
        authors = list(authors)
        pool = len({a if a else ("", i) for i, a in enumerate(authors)})
        named = [t for t in named if _author_backed(t, held, authors, pool)]
    skip = set(formats)
    usable = [t for t in named if t and label_word(t) and t not in skip]
    sample = _CasingSample(texts[:400])
    names = name_terms(usable, sample)
    head = next((t for t in usable if support[t] >= HEAD_SUPPORT and (not generic_word(t) or t in names)
                 and not _pocket(t, held, closeness)), None)
    if head is not None:
        rest = [t for t in usable if t != head and support[t] >= LABEL_SUPPORT]
        label = readable_label([head] + rest, texts, formats=formats)
        if label:
            return label
    pool = named or list(terms)
    parts = label_terms(pool, 2, formats, names=set(pool))   # its top two, as they come
    return f"{MISCELLANEOUS}: {', '.join(_label_forms(parts, sample))}" if parts else MISCELLANEOUS


def _pocket(term: str, held, closeness) -> bool:
    """Whether the records saying ``term`` sit farther from the topic's centroid than its other records
    (``closeness``: per record, its cosine to the centroid; None, no test), by at least the effect and
    at the level of ``HEAD_POCKET_EFFECT`` and ``HEAD_POCKET_P``."""
    if closeness is None:
        return False
    closeness = np.asarray(closeness, dtype=float)
    if len(closeness) != len(held):
        raise ValidationError(f"closeness has {len(closeness)} values for {len(held)} texts")
    says = np.fromiter((term in h for h in held), dtype=bool, count=len(held))
    effect, p = rank_effect(closeness[says], closeness[~says])
    return bool(effect <= HEAD_POCKET_EFFECT and p < HEAD_POCKET_P)


def _author_backed(term: str, held, authors, pool: int) -> bool:
    """Whether enough distinct authors say ``term`` (``pool``: the distinct authors of the topic)."""
    said = [i for i, h in enumerate(held) if term in h]
    who = {authors[i] if authors[i] else ("", i) for i in said}
    return (len(who) >= min(LABEL_MIN_AUTHORS, pool)
            and len(who) >= LABEL_AUTHOR_SHARE * min(len(said), pool))


def inline_label(label: str) -> str:
    """A ``"Head: second, third"`` label as it reads inside a sentence: ``"Head (second, third)"``.

    Labels without that form (a beat file's "Markets & Economy") are returned unchanged.
    """
    head, sep, rest = (label or "").partition(": ")
    return f"{head} ({rest})" if sep and head and rest else (label or "")


def slug(terms, parts: int = 2) -> str:
    """A name from the first ``parts`` terms: lowercase ASCII words joined by hyphens, diacritics
    folded (``vacunación`` -> ``vacunacion``); a term in another script adds nothing (the caller
    names such a topic ``topic``, ``topic-2``, ...)."""
    out = "-".join(re.sub(r"[^a-z0-9]+", "-", fold(t)).strip("-") for t in terms[:parts])
    return re.sub(r"-+", "-", out).strip("-")


#: a title prefix before a colon ("Ask HN:", "Show HN:") is the corpus's format, not a subject (labels pass
#: over it), when it opens at least FORMAT_SHARE of the texts (and FORMAT_MIN of them) and at least
#: FORMAT_OPENING of the texts that say it at all: a name ("Tesla: ...") is also said mid-sentence. On Hacker News "Ask HN" opens 8.7% of the
#: titles and "Show HN" 5.8%; the next prefix opens 0.3%, on the Reddit file none opens 0.2%.
FORMAT_SHARE = 0.01
FORMAT_MIN = 20
FORMAT_OPENING = 0.8
#: a rarer prefix shaped like a format ("Offer HN:" beside "Ask HN:") is one when it opens at least half
#: of the texts that say it: on Hacker News "Offer HN" opens 2 of the 3 titles that say it (the third
#: reports on an offer: "Results: Offer HN ...")
FAMILY_OPENING = 0.5
_PREFIX = re.compile(r"^\s*([^\W\d_][\w'&.\-]*(?:[ \t]+[\w'&.\-]+){0,2})[ \t]*:\s")


def format_prefixes(texts) -> list[str]:
    """The title prefixes that are the texts' format, lowercase, sorted.

    A prefix is a format when it opens at least ``FORMAT_SHARE`` of the texts (see there), or when it
    has the structure of one: a word followed by the words that end a format found so ("Offer HN:",
    "Tell HN:", "Launch HN:" beside "Ask HN:" and "Show HN:"), however rare, provided it opens at
    least ``FAMILY_OPENING`` of the texts that say it (so a "Tesla HN" said mid-title would not be).
    """
    texts = [t or "" for t in texts]
    opened = Counter(m.group(1).lower() for t in texts if (m := _PREFIX.match(t)))
    floor = max(FORMAT_MIN, FORMAT_SHARE * len(texts))
    opening = _opening_share(texts, opened)
    out = {prefix for prefix, count in opened.items() if count >= floor and opening(prefix) >= FORMAT_OPENING}
    tails = {tuple(prefix.split()[1:]) for prefix in out if len(prefix.split()) > 1}
    out |= {prefix for prefix in opened if prefix not in out and len(prefix.split()) > 1
            and tuple(prefix.split()[1:]) in tails and opening(prefix) >= FAMILY_OPENING}
    return sorted(out)


def _opening_share(texts, opened):
    """``share(prefix)``: of the texts that say ``prefix`` anywhere, the share it opens."""
    def share(prefix: str) -> float:
        said = re.compile(r"(?<![\w])" + r"\s+".join(map(re.escape, prefix.split())) + r"(?![\w])", re.IGNORECASE)
        return opened[prefix] / max(1, sum(1 for t in texts if said.search(t)))
    return share

