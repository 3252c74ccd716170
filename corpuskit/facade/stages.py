"""The :class:`~corpuskit.corpus.Corpus` methods on one noun. The stages: enrich, analyse, narrate, and all
three as one run."""
from __future__ import annotations

from corpuskit.errors import ValidationError


class StageMethods:
    """The stages: enrich, analyse, narrate, and all three as one run."""

    def enrich(self, **kwargs):
        """Run the enrichment stage (sentiment, entities, topics, embeddings)."""
        from corpuskit.enrich.pipeline import enrich_corpus

        return enrich_corpus(self.file, **kwargs)

    def analyse(self, **kwargs):
        """Run the analysis stage (clusters, signals, snapshots, observations, aggregates)."""
        from corpuskit.analysis.pipeline import analyse_corpus

        return analyse_corpus(self.file, **kwargs)

    def narrate(self, **kwargs):
        """Run the narrative stage (stories, versions, arcs).

        ``period=`` (``2016-03``), ``since=``/``until=`` or ``every=`` (day, week, month, year)
        write the stories of those periods of the corpus's history instead, each as at the
        period's end (see :mod:`corpuskit.narrate.periods`).
        """
        from corpuskit.narrate.pipeline import narrate_corpus

        return narrate_corpus(self.file, **kwargs)

    def run(self, progress: bool = True, stages=None, n_topics=None, seed: int | None = None,
            refit: bool = False, seed_words=None, beats=None, merge_topics: bool | None = None) -> dict:
        """Run every stage in order (enrich, analyse, narrate); returns ``{stage: summary}``.

        ``stages`` picks a subset, still run in the given order. The topic options go to the
        enrich stage (see :class:`~corpuskit.enrich.settings.EnrichSettings`): ``n_topics`` (a
        number or ``"auto"``), ``seed``, ``refit``, ``seed_words`` (guided topics: a file, list or
        dict of a few words per expected topic), ``beats`` (a beat file instead of discovery) and
        ``merge_topics`` (``False``: keep every discovered topic, so ``n_topics`` topics).
        """
        known = ("enrich", "analyse", "narrate")
        topic_options = {k: v for k, v in (("n_topics", n_topics), ("seed", seed), ("seed_words", seed_words),
                                           ("beats", beats), ("merge_topics", merge_topics)) if v is not None}
        if refit:
            topic_options["refit"] = True
        results = {}
        for name in stages or known:
            if name not in known:
                raise ValidationError(f"unknown stage {name!r}; stages are {', '.join(known)}")
            options = topic_options if name == "enrich" else {}
            results[name] = self._run_stage(name, progress, options)
        enriched = results.get("enrich")
        if enriched and enriched.get("nonEnglishShare", 0) > 0.5:
            from corpuskit.methods import language_note

            results["languageNote"] = language_note(self, enriched["nonEnglishShare"])
        return results

    def _run_stage(self, name: str, progress: bool, options: dict):
        """One stage of :meth:`run`; analyse and narrate leave out the stop words of every language of
        the corpus from their terms, as topic discovery does (:mod:`corpuskit.text.stopwords`)."""
        if name == "enrich":
            return self.enrich(progress=progress, **options)
        from corpuskit.enrich.pipeline import language_counts
        from corpuskit.text.stopwords import corpus_languages, vocabulary_languages

        with vocabulary_languages(corpus_languages(language_counts(self.conn))):
            return getattr(self, name)(progress=progress, **options)
