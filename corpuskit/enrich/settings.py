"""How one enrichment run goes: :class:`EnrichSettings`, the options of
:func:`~corpuskit.enrich.pipeline.enrich_corpus` in one validated object."""
from __future__ import annotations

from dataclasses import dataclass, fields, replace

from corpuskit.enrich.language import LanguageDetector
from corpuskit.enrich.base import Embedder, SentimentScorer
from corpuskit.enrich.topics import BeatAssigner
from corpuskit.errors import ValidationError

#: records the embedder and the beats are fitted on at most (a seeded sample of a bigger corpus)
FIT_SAMPLE = 50_000
#: the values of ``topic_method``
TOPIC_METHOD_CHOICES = ("nmf", "kmeans", "nmf-kmeans")


@dataclass(frozen=True)
class EnrichSettings:
    """The options of one enrichment run.

    Parameters
    ----------
    progress : bool
        Show a progress bar.
    refit : bool
        Refit the embedder and beats, and re-enrich every record.
    beats : path, list or dict, optional
        Beat definitions (see :func:`corpuskit.enrich.topics.load_beats`);
        default: the corpus's ``beats`` metadata, else the stored topics, else
        beats discovered from the text.
    n_topics : int or "auto", optional
        Number of beats to discover when there are no definitions; default (``None`` or
        ``"auto"``): chosen from the data (:func:`corpuskit.enrich.topics.choose_n_topics`).
    seed_words : path, list or dict, optional
        Guided topics (:func:`corpuskit.enrich.topics.load_seed_words`): a few words per topic
        the researcher expects; discovery keeps each as a topic and adds the corpus's own terms.
        Stored with the corpus and used again by a later refit; changing them on an enriched
        corpus needs ``refit=True``. Not combined with ``beats``.
    merge_topics : bool, optional
        Whether discovery merges near-duplicate topics and dissolves topics under 1% of the records.
        Default (``None``): it does when the number of topics is chosen from the data, and does not
        when ``n_topics`` is given, so ``n_topics`` topics are kept. With ``True`` and ``n_topics`` the
        run's summary says in ``topicsNote`` how many were merged or dissolved and why.
    topic_method : {"nmf", "kmeans", "nmf-kmeans"}
        How discovery divides the records: NMF over the term matrix (default: chosen by leaving one
        labelled set out, ``benchmarks/bench_topics.py --lodo``, where it matched or beat LSA k-means
        on every set), k-means over the records' embeddings (LSA k-means,
        :func:`corpuskit.enrich.topics.kmeans_classes`), or NMF's topics refined by k-means. Under
        ``"nmf"``, LSA k-means with the same k is the floor: discovery uses its partition when the
        internal criteria of :mod:`corpuskit.enrich.topic_floor` prefer it (the summary's
        ``topicFloor`` and ``corpus.methods()`` say which was used).
    chunk_size : int
        Records per transaction.
    seed : int
        Seed of the embedder and of beat discovery.
    embedder, scorer, extractor, assigner : optional
        Replacements for the defaults (:func:`~corpuskit.enrich.defaults.default_embedder`,
        :func:`~corpuskit.enrich.defaults.default_scorer`,
        :func:`~corpuskit.enrich.defaults.default_extractor`,
        :func:`~corpuskit.enrich.defaults.default_assigner`), each an instance of
        its base class (:mod:`corpuskit.enrich.base`, or :class:`BeatAssigner`).
        ``scorer`` also takes a name: ``"default"`` or ``"model"`` (the shipped
        tweet model) or ``"vader"`` (VADER at the ±0.05 cut).
        ``extractor`` also takes a name: ``"default"``, ``"gazetteer"`` (the
        shipped gazetteers and rules only) or ``"spacy"`` (needs the spacy
        extra and a model: ``pip install 'corpuskit[spacy]' && python -m spacy
        download en_core_web_sm``).
    workers : int, optional
        Processes scoring sentiment and entities while the embedder is fitted
        (default 2 on a machine with 2+ CPUs for 3,000+ records, else 1).
        Results are identical for any number of workers.
    client : dask.distributed.Client or str, optional
        Score the chunks on a Dask cluster instead (a ``Client``, a scheduler
        address or a scheduler file; see :mod:`corpuskit.enrich.distributed`):
        the models are fitted or loaded here, each chunk is scored on a worker
        and written here, one transaction per chunk. Results are identical to
        the local path. Needs ``pip install 'corpuskit[dask]'``; not combined
        with ``workers``.
    fit_sample : int
        Records the embedder and the beats are fitted on at most: a bigger
        corpus is fitted on a seeded uniform sample of this size (so memory
        stays flat), then every record is embedded and assigned chunk by chunk.
    detector : LanguageDetector, optional
        Detects the language of each record whose file gave none (``und``) before it is
        scored (default :func:`~corpuskit.enrich.language.default_detector`).
    aliases : str or Path, optional
        An alias file of entity overrides (``Name = alias, ...`` merges, ``Name != alias, ...``
        splits; see :func:`~corpuskit.enrich.resolve.read_alias_file`), kept for every later run.
    sentiment_priors : {"training", "corpus"}
        ``"training"`` (default): each label is the scorer's own label (the most probable class,
        moved by class offsets when the model carries them), as trained.
        ``"corpus"``: the run ends by re-estimating the corpus's class priors by EM from the
        scorer's probabilities (Saerens, Latinne, Decaestecker 2002) and relabelling every scored
        record so the label shares match them; scores are unchanged
        (:mod:`corpuskit.enrich.corpus_priors`). Needs a scorer with ``predict_proba`` and
        ``training_priors`` (the default tweet model; its calibrated probabilities when it carries a
        calibration). Off by default: on the SemEval years left out it moved the shares away from
        the truth, with or without temperature scaling first (docs/sentiment.md).
    """

    progress: bool = True
    refit: bool = False
    beats: object = None
    n_topics: int | None = None
    seed_words: object = None
    merge_topics: bool | None = None
    topic_method: str = "nmf"
    chunk_size: int = 2000
    seed: int = 0
    embedder: object = None
    scorer: object = None
    extractor: object = None
    assigner: object = None
    workers: int | None = None
    client: object = None
    fit_sample: int = FIT_SAMPLE
    detector: object = None
    aliases: object = None
    sentiment_priors: str = "training"

    def discovery(self) -> tuple[bool, str]:
        """``(merge, method)`` the topic discovery of this run uses (``merge_topics`` and ``topic_method``
        resolved against ``n_topics``)."""
        given = self.n_topics is not None
        merge = (not given) if self.merge_topics is None else self.merge_topics
        return merge, self.topic_method

    def validate(self) -> EnrichSettings:
        """Raise ValidationError for a value no run accepts; returns self."""
        if not isinstance(self.chunk_size, int) or self.chunk_size < 1:
            raise ValidationError(f"chunk_size must be a positive integer, not {self.chunk_size!r}")
        if self.n_topics is not None and (isinstance(self.n_topics, bool) or not isinstance(self.n_topics, int)
                                          or self.n_topics < 1):
            raise ValidationError(f"n_topics must be a positive integer or 'auto', not {self.n_topics!r}")
        if self.seed_words is not None and self.beats is not None:
            raise ValidationError("seed_words guide discovered topics; a beats file replaces discovery: "
                                  "give one of them")
        if self.merge_topics is not None and not isinstance(self.merge_topics, bool):
            raise ValidationError(f"merge_topics must be True, False or None, not {self.merge_topics!r}")
        if self.topic_method not in TOPIC_METHOD_CHOICES:
            raise ValidationError(f"topic_method must be one of {', '.join(TOPIC_METHOD_CHOICES)}, "
                                  f"not {self.topic_method!r}")
        if not isinstance(self.fit_sample, int) or self.fit_sample < 1:
            raise ValidationError(f"fit_sample must be a positive integer, not {self.fit_sample!r}")
        if self.sentiment_priors not in ("training", "corpus"):
            raise ValidationError(f"sentiment_priors must be 'training' or 'corpus', not {self.sentiment_priors!r}")
        if self.client is not None and self.workers is not None:
            raise ValidationError("workers and client are exclusive: a Dask cluster brings its own workers")
        for name, base in (("scorer", SentimentScorer), ("embedder", Embedder), ("assigner", BeatAssigner),
                           ("detector", LanguageDetector)):
            step = getattr(self, name)
            if name == "scorer" and isinstance(step, str):
                continue  # a scorer's name: checked by make_scorer
            if step is not None and not isinstance(step, base):
                raise ValidationError(f"{name} {step!r} is not a {base.__name__}")
        return self

    @classmethod
    def of(cls, settings: EnrichSettings | None = None, **options) -> EnrichSettings:
        """``settings`` (default: the defaults) with ``options`` replacing fields, validated."""
        if settings is None:
            settings = cls()
        elif not isinstance(settings, cls):
            raise ValidationError(f"settings must be an EnrichSettings, not {settings!r}")
        unknown = sorted(set(options) - {f.name for f in fields(cls)})
        if unknown:
            raise TypeError(f"enrich got unexpected keyword arguments: {', '.join(unknown)}")
        if options.get("n_topics") == "auto":
            options["n_topics"] = None
        return replace(settings, **options).validate()
