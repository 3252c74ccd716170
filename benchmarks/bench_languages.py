"""Languages other than English, on the Spanish and Japanese corpora of ``../shared/datasets/nonenglish``.

    PYTHONPATH=. /work/main/.venv/bin/python benchmarks/bench_languages.py [--workdir DIR] [--topics N] [--only es|ja]

Each corpus is imported into ``DIR/<lang>.db`` and enriched (``n_topics=N`` when given), unless that file
already holds an enriched corpus, which is then read as it is. Printed, per corpus:

- the largest topic's share of the records, and every topic's label and share;
- the labels holding a stop word of any language of the corpus (stopwords-iso, and corpuskit's English
  list), and the labels that are nothing else;
- name-query recall for ten names chosen by frequency (:func:`frequent_names`; on the English demo
  too): the records ``query(name)`` (and ``query(name*)``) finds, against
  the records a regular expression finds on the folded text: the name starting a word (a word and its
  inflected or longer forms: ``maduro``, ``Maduros``) or inside a #hashtag or @handle (``#AMLO2022``,
  ``@NicolasMaduro``);
- entity and sentiment coverage per language: the share of records scored for sentiment and of records
  with at least one entity (English-only stages leave other languages NULL and counted);
and once, the segmentation accuracy on ``tests/data/segmentation_labelled.tsv`` (exact, and with no
wrong cut) per language and kind.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "datasets" / "nonenglish"
#: how many names per corpus the recall is measured on, chosen from the data by :func:`frequent_names`
N_NAMES = 10
_WORDS = re.compile(r"[^\W\d_]{4,}")
_KATAKANA = re.compile(r"[\u30a1-\u30fa\u30fc]{3,}")


def frequent_names(corpus, n: int = N_NAMES) -> list[str]:
    """The ``n`` names the corpus writes most, chosen by frequency, not by hand: words of four letters or
    more that are capitalised in at least 90% of their occurrences, a fifth of them inside a sentence
    (after a lower-case word: a name, not a word that starts a sentence) and no stop word of any language of the corpus, ranked by how many records write them;
    in a corpus where more records hold katakana than Latin words (Japanese), the runs of three
    katakana or more, ranked the same way."""
    from corpuskit.text.folding import search_fold
    from corpuskit.text.stopwords import stop_words
    from corpuskit.text.terms import STOP_WORDS

    languages = [r[0] for r in corpus.conn.execute(
        "SELECT language FROM records GROUP BY language ORDER BY count(*) DESC LIMIT 3")]
    stops = stop_words(tuple(languages) + ("en",)) | STOP_WORDS
    capitalised, total, records, inside = {}, {}, {}, {}
    cased = kana = 0
    for title, text in corpus.conn.execute("SELECT title, content_text FROM records ORDER BY id"):
        text = f"{title or ''} {text or ''}"
        seen = set()
        for match in _WORDS.finditer(text):
            word, before = match.group(0), text[max(0, match.start() - 2):match.start()]
            if word[0].lower() == word[0].upper():
                continue  # a script without case
            key = search_fold(word)
            inside[key] = inside.get(key, 0) + (word[0].isupper() and len(before) == 2 and before[1] == " "
                                                 and (before[0].islower() or before[0] == ","))
            total[key] = total.get(key, 0) + 1
            capitalised[key] = capitalised.get(key, 0) + (word[0].isupper() and not word.isupper())
            seen.add(key)
        runs = _KATAKANA.findall(text)
        kana += bool(runs)
        cased += any(not k.startswith("\x00") for k in seen)
        for word in runs:
            seen.add("\x00" + word)
        for key in seen:
            records[key] = records.get(key, 0) + 1
    if cased >= kana:
        ranked = [k for k in records if not k.startswith("\x00") and k not in stops
                  and capitalised.get(k, 0) >= 0.9 * total[k] and inside.get(k, 0) >= 0.2 * total[k]]
    else:
        ranked = [k for k in records if k.startswith("\x00")]
    ranked.sort(key=lambda k: (-records[k], k))
    return [k.lstrip("\x00") for k in ranked[:n]]


def _es(corpus) -> None:
    rows = []
    for name in ("train.jsonl", "test.jsonl"):
        with (SHARED / "nonen_es_newstweets" / name).open(encoding="utf-8") as fh:
            rows.extend(fh.readlines())
    path = Path(corpus.path).with_suffix(".jsonl")
    path.write_text("".join(rows), encoding="utf-8")
    print(corpus.import_file(path, source="twitter", progress=False).summary())


def _ja(corpus) -> None:
    report = corpus.import_file(SHARED / "nonen_ja_koume" / "dayukoume.csv", source="twitter", progress=False,
                                mapping=["contentText=tweet", "publishedAt=created_at", "author=username",
                                         "sourceId=id", "language=language"])
    print(report.summary())


def build(path: Path, lang: str, topics: int | None):
    from corpuskit import open_corpus

    corpus = open_corpus(str(path))
    if corpus.conn.execute("SELECT count(*) FROM enrichment").fetchone()[0] == 0:
        if corpus.count() == 0:
            (_es if lang == "es" else _ja)(corpus)
        options = {"n_topics": topics} if topics else {}
        summary = corpus.enrich(progress=False, **options)
        print(f"enriched in {summary['seconds']:.0f} s; topics {summary['topics']}; "
              f"note: {summary.get('topicsNote')}")
    return corpus


def topic_figures(corpus) -> None:
    from corpuskit.enrich.pipeline import language_counts
    from corpuskit.text.stopwords import corpus_languages, stop_words
    from corpuskit.text.terms import STOP_WORDS

    total = corpus.count()
    rows = corpus.conn.execute(
        "SELECT t.display_name, count(e.record_id) FROM topics t JOIN enrichment e ON e.topic_id = t.id "
        "WHERE t.active = 1 GROUP BY t.id ORDER BY count(e.record_id) DESC, t.id").fetchall()
    languages = corpus_languages(language_counts(corpus.conn))
    stops = stop_words(tuple(languages) + ("en",)) | STOP_WORDS
    print(f"languages (>= 2% of records): {', '.join(languages)}")
    print(f"topics: {len(rows)}; largest topic share: {rows[0][1] / total:.3f}" if rows else "topics: 0")
    with_stop, only_stop = [], []
    for label, n in rows:
        words = re.findall(r"[^\W\d_]+", label.split(":", 1)[-1].lower())
        hits = [w for w in words if w in stops]
        if hits:
            with_stop.append(f"{label} ({', '.join(hits)})")
        if words and len(hits) == len(words):
            only_stop.append(label)
        print(f"  {n / total:6.3f}  {label}")
    print(f"labels holding a stop word: {len(with_stop)} of {len(rows)}: {'; '.join(with_stop) or '-'}")
    print(f"labels that are only stop words: {len(only_stop)}: {'; '.join(only_stop) or '-'}")


def name_recall(corpus, names, stem: str | None = None) -> float:
    """Recall of ``query(name)`` (and of ``name*``, and of ``query(name, stem=stem)``) against a regular
    expression over the folded text: the name as a word with an inflection of up to two letters
    (``Laschets``, ``Reserve's``; not a derived word such as ``colombianos``), or inside a #hashtag or
    @handle; Japanese, which has no word boundaries, anywhere. Returns the plain query's recall."""
    from corpuskit.text.folding import search_fold

    texts = {r[0]: search_fold(f"{r[1] or ''} {r[2] or ''}") for r in corpus.conn.execute(
        "SELECT id, title, content_text FROM records")}
    totals = {"truth": 0, "query": 0, "prefix": 0, "stem": 0}
    for name in names:
        key = search_fold(name)
        if key.isascii():
            pattern = re.compile(rf"(?<![^\W_]){re.escape(key)}\w{{0,2}}(?![^\W_])|[#@]\w*{re.escape(key)}")
        else:
            pattern = re.compile(re.escape(key))
        truth = {sid for sid, text in texts.items() if pattern.search(text)}
        found = {
            "query": {int(i) for i in corpus.query(name).ids()},
            "prefix": {int(i) for i in corpus.query(name + "*").ids()},
            "stem": {int(i) for i in corpus.query(name, stem=stem).ids()} if stem else set(),
        }
        totals["truth"] += len(truth)
        line = f"  {name:<12s} regex {len(truth):5d}"
        for kind, ids in found.items():
            totals[kind] += len(ids & truth)
            line += f"  {kind} {len(ids & truth) / max(1, len(truth)):.3f}"
        print(line + f"  query outside regex {len(found['query'] - truth)}")
    n = max(1, totals["truth"])
    print(f"name-query recall over {totals['truth']} records: {totals['query'] / n:.3f} (query), "
          f"{totals['prefix'] / n:.3f} (query with a trailing *)"
          + (f", {totals['stem'] / n:.3f} (query with stem={stem!r})" if stem else ""))
    return totals["query"] / n


def coverage(corpus) -> None:
    rows = corpus.conn.execute(
        "SELECT r.language, count(*), sum(e.sentiment_score IS NOT NULL), "
        "sum(EXISTS (SELECT 1 FROM mentions m WHERE m.record_id = r.id)) FROM records r "
        "JOIN enrichment e ON e.record_id = r.id GROUP BY r.language ORDER BY count(*) DESC, r.language"
    ).fetchall()
    for lang, n, scored, with_entity in rows[:8]:
        print(f"  {lang:<4s} {n:6d} records  sentiment {scored / n:.3f}  entities {with_entity / n:.3f}")


def segmentation() -> None:
    from corpuskit.text.segmentation_eval import read_labelled, segmentation_scores

    result = segmentation_scores(read_labelled(ROOT / "tests" / "data" / "segmentation_labelled.tsv"))
    print("segmentation (tests/data/segmentation_labelled.tsv): n, exact (cuts between letters), "
          "no wrong cut, strict (every cut)")
    for (lang, kind), (n, exact, safe, strict) in result["scores"].items():
        print(f"  {lang:<4s} {kind:<8s} {n:4d}  {exact:.3f}  {safe:.3f}  {strict:.3f}")
    parts = [(v[1], k) for k, v in result["scores"].items() if k != ("all", "all")]
    worst = min(parts)
    print(f"  mean over the {len(parts)} language-and-kind parts {sum(p[0] for p in parts) / len(parts):.3f}; "
          f"worst part {'/'.join(worst[1])} {worst[0]:.3f}")


def demo_names(workdir: Path) -> None:
    """Name-query recall on the English demo corpus (records only: the recall needs no stage)."""
    from corpuskit import open_corpus
    from corpuskit.ingest.demo import store_demo

    path = workdir / "demo.db"
    corpus = open_corpus(str(path))
    if corpus.count() == 0:
        store_demo(corpus.file, seed=7, records=20000, days=60, events=True)
    names = frequent_names(corpus)
    print(f"\n== en (demo, 20,000 records, seed 7): names by frequency: {', '.join(names)}")
    name_recall(corpus, names, stem="en")
    corpus.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, help="where the corpora are built (default: a temporary folder)")
    parser.add_argument("--topics", type=int, help="n_topics for the enrichment (default: chosen from the data)")
    parser.add_argument("--only", choices=("es", "ja"))
    args = parser.parse_args(argv)
    if not SHARED.exists():
        print(f"{SHARED} is absent: nothing to measure", file=sys.stderr)
        return 1
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench_languages_"))
    workdir.mkdir(parents=True, exist_ok=True)
    segmentation()
    if not args.only:
        demo_names(workdir)
    for lang in ("es", "ja"):
        if args.only and lang != args.only:
            continue
        print(f"\n== {lang}: {workdir / (lang + '.db')}")
        corpus = build(workdir / f"{lang}.db", lang, args.topics)
        topic_figures(corpus)
        names = frequent_names(corpus)
        print(f"name queries (names by frequency: {', '.join(names)}; regex: the name starting a word, "
              "or inside a #hashtag or @handle):")
        name_recall(corpus, names, stem="es" if lang == "es" else None)
        print("coverage per language:")
        coverage(corpus)
        corpus.close()
    print(json.dumps({"workdir": str(workdir)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
