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
writes only sentences taken verbatim from the cited records' display text
(see :mod:`corpuskit.narrate.quotes`), each followed by its marker, plus one
*framing* sentence in plain English built from the development the story is
about (the signal's numbers, the beat's fastest-growing cluster, what changed
for the entity; see :func:`framing_sentence`). The framing is the story's lede
(its opening sentence), carries no marker, and is recorded in ``metadata.framing``
with what it is traced to; the body does not repeat it (it holds the quotes, so a
reader of the lede and the body reads the opening sentence once). A writer may also return ``writerNote`` (a dict,
stored as ``metadata.writerNote``) and ``writer`` (the name of the writer that
actually wrote the text, e.g. after a fallback).
"""
from __future__ import annotations

import re

from corpuskit.errors import ValidationError
from corpuskit.narrate import attribution, prose, quotes
from corpuskit.narrate.evidence import StoryEvidence

TEXT_FIELDS = ("headline", "lede", "body", "summary")


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
    """The framing paragraph and headline of a story, in plain English (see :mod:`corpuskit.narrate.prose`).

    ``{"text", "headline", "tracedTo"}``, or None when the evidence has no
    trigger, beat or entity to speak of. The development a story is about:

    - a dispatch or the lead: its signal;
    - a beat narrative: its strongest open signal, else its fastest-growing
      cluster (``evidence.cluster`` with ``recent``/``earlier`` counts), else
      its record count;
    - an entity narrative: what changed for the entity (``figures["change"]``:
      mentions against the window before, sentiment, co-occurring entities).
    """
    sig = evidence.signal
    if evidence.kind == "entity_narrative" and evidence.entity is not None:
        change = evidence.figures.get("change") or {
            "mentions": evidence.figures.get("mentions", 0), "records": evidence.figures.get("records", 0),
            "windowDays": evidence.figures.get("windowDays", 0), "previousMentions": 0}
        headline, text = prose.entity_prose(evidence.entity, change, evidence.figures.get("period"))
        traced = {"figures": "entity"}
        if sig is not None:
            _, signal_text = prose.signal_prose(sig, evidence.beat, evidence.entity)
            text = f"{text} {signal_text}"
            traced["signal"] = sig["id"]
        return {"text": text, "headline": headline, "tracedTo": traced}
    if sig is not None and evidence.kind in ("dispatch", "lead_story", "beat_narrative"):
        headline, text = prose.signal_prose(sig, evidence.beat, evidence.entity or evidence.signal_entity)
        return {"text": text, "headline": headline, "tracedTo": {"signal": sig["id"]}}
    if evidence.kind == "beat_narrative" and evidence.beat is not None:
        cluster = evidence.cluster
        if cluster and cluster.get("recent") and prose.clean_terms(cluster.get("top_terms")):
            headline, text = prose.cluster_prose(evidence.beat, cluster, evidence.figures.get("windowDays", 0),
                                                 evidence.figures.get("period"))
            return {"text": text, "headline": headline, "tracedTo": {"cluster": cluster["id"]}}
        headline, text = prose.beat_volume_prose(evidence.beat, evidence.figures)
        return {"text": text, "headline": headline, "tracedTo": {"figures": "beat"}}
    return None


def story_terms(evidence: StoryEvidence) -> set[str]:
    """The subject's phrases for quote relevance (see :func:`corpuskit.narrate.quotes.subject_terms`)."""
    cluster = evidence.cluster if evidence.kind == "beat_narrative" and evidence.signal is None else None
    if cluster is not None and not cluster.get("recent"):
        cluster = None  # the beat's largest cluster, not a development the story is about
    return quotes.subject_terms(evidence.entity, evidence.beat, evidence.signal, cluster)


class ExtractiveWriter(StoryWriter):
    """Writes stories from the cited records' own sentences (no network, no model).

    The lede is a framing sentence in plain English (:func:`framing_sentence`);
    the body is the quoted sentences, each with its marker. Quotes are chosen by
    :mod:`corpuskit.narrate.quotes`: relevant to the story's subject, no near
    duplicates, no fragments, spread over authors and sources. The headline
    and the lede are the framing's headline and sentence; the summary is the
    framing sentence. Without a framing (a custom evidence kind) the lede is
    the first quote and the headline that quote cut to ``headline_words``.

    Parameters
    ----------
    body_sentences : int
        Most quoted sentences in the body.
    max_per_record : int
        Most sentences quoted from one record.
    paragraph_sentences : int
        Quoted sentences per body paragraph.
    headline_words : int
        Longest headline cut from a quote (only without a framing).
    """

    name = "extractive"

    def __init__(self, body_sentences: int = 6, max_per_record: int = 1, paragraph_sentences: int = 3,
                 headline_words: int = 14):
        self.body_sentences = body_sentences
        self.max_per_record = max_per_record
        self.paragraph_sentences = paragraph_sentences
        self.headline_words = headline_words

    def choose(self, evidence: StoryEvidence) -> list[quotes.Candidate]:
        """The quotes for ``evidence``, in the order they appear (see :mod:`corpuskit.narrate.quotes`)."""
        cands = quotes.candidates(evidence.records)
        if not attribution.about_abuse(story_terms(evidence) | set(evidence.terms)):
            cands = [c for c in cands if not attribution.is_abusive(c.text)]
        if not cands:
            raise ValidationError(f"no quotable sentence in the records of {evidence.story_key}")
        centrality = [getattr(r, "centrality", None) for r in evidence.records]
        centrality = [r.confidence if c is None else c for r, c in zip(evidence.records, centrality)]
        matrix = quotes.score(cands, centrality, story_terms(evidence))
        newest = max(range(len(evidence.records)),
                     key=lambda i: (evidence.records[i].published_at, evidence.records[i].id)) + 1
        chosen = quotes.select(cands, matrix, self.body_sentences, self.max_per_record, newest=newest)
        return [cands[i] for i in chosen]

    @staticmethod
    def _sayers(evidence: StoryEvidence, cand: quotes.Candidate) -> list[str]:
        """The source names of the story's records that said ``cand`` (a near-duplicate sentence), its own first."""
        names = [prose.source_name(evidence.records[cand.ordinal - 1].source)]
        for ordinal, rec in enumerate(evidence.records, 1):
            if ordinal != cand.ordinal and any(quotes.near_duplicate(cand.tokens, quotes.tokens_of(x))
                                               for x in quotes.record_sentences(rec.text)):
                names.append(prose.source_name(rec.source))
        return names

    def write(self, evidence: StoryEvidence) -> dict:
        chosen = self.choose(evidence)
        quoted = [f"{attribution.attribute(c.text, self._sayers(evidence, c), title=c.from_title)} [{c.ordinal}]"
                  for c in chosen]
        paragraphs = [" ".join(quoted[j:j + self.paragraph_sentences])
                      for j in range(0, len(quoted), self.paragraph_sentences)]
        framing = framing_sentence(evidence)
        if framing is not None:  # the lede: the body does not say it again
            headline, lede = framing["headline"], framing["text"]
            headline_source = dict(framing["tracedTo"])
            key = [t for t in evidence.figures.get("keyTerms") or [] if t.lower() not in headline.lower()]
            if key:  # name what the evidence is distinctively about (see corpuskit.narrate.headlines)
                # a headline that already says "talk of ..." adds the key terms without saying it twice
                joint = "also" if "talk of" in headline else "talk of"
                headline = f"{headline}; {joint} {prose.join_words(key)}"
                headline_source["keyTerms"] = key
        else:
            lede = attribution.attribute(chosen[0].text, self._sayers(evidence, chosen[0]), title=chosen[0].from_title)
            headline = " ".join(attribution.whole(chosen[0].text)[0].rstrip(".!?").split()[:self.headline_words])
            headline_source = {"record": evidence.records[chosen[0].ordinal - 1].id}
        framings = [{"text": framing["text"], "tracedTo": framing["tracedTo"]}] if framing else []
        return {
            "headline": headline,
            "lede": lede,
            "body": "\n\n".join(paragraphs),
            "summary": lede,
            "framing": framings,
            "headlineSource": headline_source,
        }
