"""Story writers: evidence in, text fields out.

A writer is any object with a ``write(evidence) -> dict`` method returning
``{headline, lede, body, summary}`` (and optionally ``framing``, a list of
``{"text", "tracedTo"}`` for body paragraphs that quote no record, and
``headlineSource``). In ``body`` a writer cites ``evidence.records[i]`` with
the marker ``[i+1]``; the pipeline renumbers the markers in order of first
appearance and stores them as ``story_citations.ordinal``; records the body
never cites are not citations (unless it cites fewer than two, see
:func:`corpuskit.narrate.citations.renumber`). Subclass
:class:`StoryWriter` to plug in your own (an LLM call, a template engine).

The default, :class:`ExtractiveWriter`, needs no network and no model. It
writes only sentences taken verbatim from the cited records, each followed
by its marker, plus at most one *framing* sentence built from the trigger (the
signal's headline and numbers, the beat's largest cluster, or the beat's or
entity's record counts). A framing sentence stands alone in the first
paragraph, carries no marker, and is recorded in ``metadata.framing`` with
what it is traced to.
"""
from __future__ import annotations

import re

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

from corpuskit.errors import ValidationError
from corpuskit.narrate.evidence import StoryEvidence
from corpuskit.narrate.sentences import quotable, split_sentences

TEXT_FIELDS = ("headline", "lede", "body", "summary")
_MAX_SENTENCES_PER_RECORD = 40


class StoryWriter:
    """Base class of story writers. Override :meth:`write`.

    ``name`` is recorded with the run's settings.
    """

    name = "custom"

    def write(self, evidence: StoryEvidence) -> dict:
        """Return ``{headline, lede, body, summary}`` for ``evidence`` (see the module docstring)."""
        raise NotImplementedError(f"{type(self).__name__}.write(evidence) is not implemented")


def check_text(fields, n_records: int, label: str) -> dict:
    """Validate a writer's answer; raises :class:`ValidationError` naming the story."""
    if not isinstance(fields, dict):
        raise ValidationError(f"writer returned {type(fields).__name__} for {label}, expected a dict")
    for key in TEXT_FIELDS:
        if not isinstance(fields.get(key), str) or not fields[key].strip():
            raise ValidationError(f"writer returned no {key!r} for {label}")
    for n in (int(m) for m in re.findall(r"\[(\d+)\]", fields["body"])):
        if not 1 <= n <= n_records:
            raise ValidationError(f"writer cited [{n}] in {label}, which has {n_records} records")
    return fields


def framing_sentence(evidence: StoryEvidence) -> dict | None:
    """The one framing sentence for a story, with what it is traced to (or None)."""
    sig = evidence.signal
    if sig is not None and evidence.kind in ("dispatch", "lead_story", "beat_narrative"):
        numbers = []
        for key, value in sorted((sig.get("detail") or {}).items()):
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                numbers.append(f"{key} {value:g}")
        tail = f"; {', '.join(numbers[:3])}" if numbers else ""
        text = (f"{sig['headline'].rstrip('.')} ({sig['severity']} severity, "
                f"{sig['sigma_score']:.1f} sigma, detected {sig['detected_at'][:10]}{tail}).")
        return {"text": text, "tracedTo": {"signal": sig["id"]}}
    figures = evidence.figures
    if evidence.kind == "beat_narrative" and evidence.beat is not None:
        cluster = evidence.cluster
        if cluster and cluster.get("top_terms"):
            terms = ", ".join(cluster["top_terms"][:3])
            text = (f"The largest recent cluster on {evidence.beat['display_name']} groups "
                    f"{cluster['record_count']} records around {terms}.")
            return {"text": text, "tracedTo": {"cluster": cluster["id"]}}
        text = (f"{evidence.beat['display_name']} drew {figures.get('records', 0)} records from "
                f"{figures.get('sources', 0)} source kinds in the last {figures.get('windowDays', 0)} days.")
        return {"text": text, "tracedTo": {"figures": "beat"}}
    if evidence.kind == "entity_narrative" and evidence.entity is not None:
        text = (f"{evidence.entity['name']} was mentioned {figures.get('mentions', 0)} times in "
                f"{figures.get('records', 0)} records from {figures.get('sources', 0)} source kinds "
                f"in the last {figures.get('windowDays', 0)} days.")
        return {"text": text, "tracedTo": {"figures": "entity"}}
    return None


class ExtractiveWriter(StoryWriter):
    """Writes stories from the cited records' own sentences (no network, no model).

    Sentences of the cited records are scored by TF-IDF centrality (cosine to
    the mean sentence vector) plus ``term_weight`` times their overlap with the
    story's terms. Each record first contributes its best sentence (so every
    record is cited unless its best is weak, see ``min_relative_score``), then
    the best remaining sentences fill the body up to ``body_sentences``, at
    most ``max_per_record`` per record, skipping verbatim repeats and near
    repeats: a TF-IDF cosine or a word-set Jaccard overlap above
    ``redundancy`` with a sentence already chosen. The lede is the best-scoring chosen sentence and opens the
    body; the headline is the signal's headline, else the best cited record's
    title, else the lede cut to ``headline_words`` words.

    Parameters
    ----------
    body_sentences : int
        Target number of quoted sentences in the body.
    max_per_record : int
        Most sentences quoted from one record.
    redundancy : float
        Cosine above which a candidate repeats a chosen sentence.
    term_weight : float
        Weight of the overlap with the story's terms.
    min_relative_score : float
        A record whose best sentence scores below this fraction of the best
        sentence overall is not quoted (once two records are), and so not cited.
    paragraph_sentences : int
        Quoted sentences per body paragraph.
    headline_words : int
        Longest headline cut from a sentence or title.
    """

    name = "extractive"

    def __init__(self, body_sentences: int = 6, max_per_record: int = 2, redundancy: float = 0.5,
                 term_weight: float = 0.5, min_relative_score: float = 0.35, paragraph_sentences: int = 3,
                 headline_words: int = 14):
        self.body_sentences = body_sentences
        self.max_per_record = max_per_record
        self.redundancy = redundancy
        self.term_weight = term_weight
        self.min_relative_score = min_relative_score
        self.paragraph_sentences = paragraph_sentences
        self.headline_words = headline_words

    def _candidates(self, evidence):
        cands = []  # (ordinal, position, sentence)
        for ordinal, rec in enumerate(evidence.records, 1):
            for pos, sentence in enumerate(split_sentences(rec.text)[:_MAX_SENTENCES_PER_RECORD]):
                if quotable(sentence):
                    cands.append((ordinal, pos, sentence))
        return cands

    def _scores(self, evidence, cands):
        texts = [c[2] for c in cands]
        try:
            matrix = TfidfVectorizer(stop_words="english", sublinear_tf=True).fit_transform(texts).toarray()
        except ValueError:
            matrix = np.zeros((len(texts), 1))
        centroid = matrix.mean(axis=0)
        norm = np.linalg.norm(centroid)
        centrality = matrix @ (centroid / norm) if norm > 0 else np.zeros(len(texts))
        terms = {t.lower() for t in evidence.terms if t}
        overlap = np.zeros(len(texts))
        if terms:
            for i, text in enumerate(texts):
                words = set(re.findall(r"[a-z0-9]+", text.lower()))
                overlap[i] = len(words & terms) / len(terms)
        return np.round(centrality + self.term_weight * overlap, 9), matrix

    def write(self, evidence: StoryEvidence) -> dict:
        cands = self._candidates(evidence)
        if not cands:
            raise ValidationError(f"no quotable sentence in the records of {evidence.story_key}")
        scores, matrix = self._scores(evidence, cands)
        order = sorted(range(len(cands)), key=lambda i: (-scores[i], cands[i][0], cands[i][1]))
        chosen, used_text, per_record = [], set(), {}

        words = [set(re.findall(r"[a-z0-9']+", c[2].lower())) for c in cands]

        def admissible(i):
            ordinal, _, sentence = cands[i]
            if sentence in used_text or per_record.get(ordinal, 0) >= self.max_per_record:
                return False
            for j in chosen:
                if float(matrix[i] @ matrix[j]) > self.redundancy:
                    return False
                if len(words[i] & words[j]) > self.redundancy * len(words[i] | words[j]):
                    return False
            return True

        def take(i):
            chosen.append(i)
            used_text.add(cands[i][2])
            per_record[cands[i][0]] = per_record.get(cands[i][0], 0) + 1

        floor = self.min_relative_score * float(scores[order[0]])
        for ordinal in range(1, len(evidence.records) + 1):  # every record cited once
            for i in order:
                if cands[i][0] == ordinal and admissible(i):
                    if scores[i] >= floor or len(per_record) < 2:
                        take(i)
                    break
        for i in order:
            if len(chosen) >= max(self.body_sentences, len(per_record)):
                break
            if i not in chosen and admissible(i):
                take(i)
        chosen.sort(key=lambda i: (-scores[i], cands[i][0], cands[i][1]))
        quoted = [f"{cands[i][2]} [{cands[i][0]}]" for i in chosen]
        paragraphs = [" ".join(quoted[j:j + self.paragraph_sentences])
                      for j in range(0, len(quoted), self.paragraph_sentences)]
        framing = framing_sentence(evidence)
        if framing is not None:
            paragraphs.insert(0, framing["text"])
        lede = cands[chosen[0]][2]
        headline, headline_source = self._headline(evidence, chosen, cands, lede)
        summary = framing["text"] if framing is not None else lede
        return {
            "headline": headline,
            "lede": lede,
            "body": "\n\n".join(paragraphs),
            "summary": summary,
            "framing": [framing] if framing is not None else [],
            "headlineSource": headline_source,
        }

    def _headline(self, evidence, chosen, cands, lede):
        if evidence.signal is not None and evidence.kind in ("dispatch", "lead_story"):
            return evidence.signal["headline"], {"signal": evidence.signal["id"]}
        prefix = ""
        if evidence.kind == "entity_narrative" and evidence.entity is not None:
            prefix = evidence.entity["name"]
        elif evidence.kind == "beat_narrative" and evidence.beat is not None:
            prefix = evidence.beat["display_name"]
        subject = prefix.lower()
        cited = [evidence.records[cands[i][0] - 1] for i in chosen]
        titled = [r for r in cited if 4 <= len(r.title.split()) <= self.headline_words]
        about = [r for r in titled if subject and subject in r.title.lower()]
        if about or titled:
            rec = (about or titled)[0]
            text = rec.title
        else:
            sentences = [cands[i] for i in chosen]
            pick = next((c for c in sentences if subject and subject in c[2].lower()), sentences[0])
            rec = evidence.records[pick[0] - 1]
            text = " ".join(pick[2].rstrip(".!?").split()[:self.headline_words])
        if prefix and prefix.lower() not in text.lower():
            text = f"{prefix}: {text}"
        return text, {"record": rec.id}
