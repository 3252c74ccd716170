"""A methods paragraph a researcher can paste, written from the corpus's own runs.

:func:`instruments` reads the instruments the last enrich run recorded (``runs.settings``:
``scorer``, ``extractor``, ``detector``; the embedder from ``models``); :func:`methods` writes one
paragraph naming each with its version, what it is, its training data, its measured accuracy with
the benchmark it came from and what to cite (:mod:`corpuskit.enrich.instruments`), then the corpus's
record count, content digest and manifest digest, and how to cite corpuskit. Nothing in it is typed
by hand for one instrument: swap the scorer and the paragraph, the codebook and the plot label
change with it.
"""
from __future__ import annotations

import json

from corpuskit.enrich.corpus_priors import adjustment_sentence
from corpuskit.enrich.instruments import instrument
from corpuskit.store.runs import enrich_settings  # noqa: F401  (re-exported: corpuskit.methods.enrich_settings)

#: The enrich run's settings keys that name an instrument, in the paragraph's order.
ROLES = ("detector", "scorer", "extractor")


def instruments(corpus) -> dict:
    """``{role: model_name}`` for ``detector``, ``scorer``, ``extractor`` and ``embedder`` as the last
    enrich run recorded them (``None`` where none ran)."""
    settings = enrich_settings(corpus.conn)
    out = {role: settings.get(role) for role in ROLES}
    row = corpus.conn.execute("SELECT kind FROM models WHERE name = 'embedder'").fetchone()
    out["embedder"] = row[0] if row else None
    return out


_OPENING = {"detector": "Languages the file did not give were detected by", "scorer": "Sentiment was scored by",
            "extractor": "Entities were extracted by", "embedder": "Records were embedded by"}
_NOT_RUN = {"detector": "No language detection was run.", "scorer": "No sentiment was scored.",
            "extractor": "No entities were extracted.", "embedder": "No records were embedded."}


def _sentence(info: dict) -> str:
    """One instrument's sentence."""
    if info["name"] is None:
        return _NOT_RUN[info["role"]]
    text = f"{_OPENING[info['role']]} {info['name']} ({info['what']})"
    text += f"; training data: {info['training']}" if info["training"] else ""
    if info["accuracy"]:
        text += f"; accuracy: {info['accuracy']}"
        text += f", measured by {info['benchmark']}" if info["benchmark"] else ""
    text += f"; cite {info['cite']}" if info["cite"] else ""
    return text + "."


def methods(corpus) -> str:
    """The methods paragraph of ``corpus`` (see the module docstring)."""
    from corpuskit.manifest import build_manifest, citation, manifest_digest

    used = instruments(corpus)
    manifest = build_manifest(corpus)
    cite = citation(corpus)
    records = manifest["records"]
    parts = [f"The corpus holds {records['count']:,} records (content digest {records['contentDigest']}; "
             f"corpuskit {cite['version']}, manifest digest {manifest_digest(manifest)})."]
    parts += [_sentence(instrument(role, used[role])) for role in (*ROLES, "embedder")]
    topics = topics_sentence(corpus.conn)
    if topics:
        parts.append(topics)
    adjusted = adjustment_sentence(corpus.conn)
    if adjusted:
        parts.append(adjusted)
    languages = manifest["languages"]
    skipped = languages["skipped"]
    if skipped["sentiment"] or skipped["entities"]:
        parts.append(f"{languages['nonEnglishShare']:.0%} of the records are in a known language other than "
                     f"English; the instruments that cover only some languages left those they do not cover "
                     f"unscored ({skipped['sentiment']:,} without sentiment, {skipped['entities']:,} without "
                     f"entities).")
    parts.append(f"Cite corpuskit as: {cite['apa']}")
    return " ".join(parts)


def topics_sentence(conn) -> str | None:
    """How the topics were discovered, as the discovery recorded it (``topics.discovery``): the method
    used and, when LSA k-means was the floor under NMF, the criterion and both scores; None when the
    topics were given (a beat file) rather than discovered."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'topics.discovery'").fetchone()
    discovery = json.loads(row[0]) if row and row[0] else None
    if not discovery or not discovery.get("method"):
        return None
    names = {"nmf": "NMF over the TF-IDF of words and word pairs",
             "kmeans": "k-means over the records' embeddings (LSA k-means)",
             "nmf-kmeans": "NMF refined by k-means over the records' embeddings",
             "lsa-kmeans": "LSA k-means (k-means over the first components of the records' TF-IDF + SVD embeddings)"}
    method = discovery["method"]
    text = f"Topics were discovered by {names.get(method, method)} with k = {discovery.get('k')}"
    floor = discovery.get("floor")
    if floor:
        won = floor["used"] == "lsa-kmeans"
        whose, other = ("its", "nmf") if won else ("NMF's", "lsa-kmeans")
        text += (f"; LSA k-means with the same k was the floor under NMF, and {whose} "
                 f"partition was used, scoring {floor[floor['used']]:.4f} against "
                 f"{floor[other]:.4f} by {floor['criterion']} "
                 f"(computed on the records alone; corpuskit.enrich.topic_floor)")
    return text + "."


def language_note(corpus, share: float) -> str:
    """The run note for a corpus mostly in languages the English-only instruments skip, naming the
    instruments the run used."""
    from corpuskit.enrich.instruments import label

    used = instruments(corpus)
    return (f"{share:.0%} of the records are in a language other than English: sentiment "
            f"({label('scorer', used['scorer'])}) and entities ({label('extractor', used['extractor'])}) "
            "skipped those their instruments do not cover (NULL, counted in manifest()['languages']); see "
            "docs/languages.md for multilingual options")
