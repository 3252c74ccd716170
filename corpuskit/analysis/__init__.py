"""Analysis: clusters, signals, snapshots, trends, observations, entity and corpus aggregates.

Each aggregate lives in its own module (``corpus_stats``, ``entity_stats``,
``snapshots``, ``trends``, ``observations``, ``clusters``, ``signals``);
:func:`analyse_corpus` runs the stage that fills the analysis tables.
"""


def analyse_corpus(corpus, progress: bool = True, seed: int = 0, **settings) -> dict:
    """Run the analysis stage; see :func:`corpuskit.analysis.pipeline.analyse_corpus`."""
    from corpuskit.analysis.pipeline import analyse_corpus as run

    return run(corpus, progress=progress, seed=seed, **settings)


__all__ = ["analyse_corpus"]
