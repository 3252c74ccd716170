"""Topics of a corpus in another language read that language's vocabulary: the embedder the topics are
fitted on leaves out its stop words as the topic terms do."""
from __future__ import annotations

from corpuskit.enrich.embeddings import TfidfSvdEmbedder
from corpuskit.text.stopwords import vocabulary_languages

SPANISH = ["el gobierno de la ciudad anunció que los precios de la gasolina suben",
           "la selección de fútbol ganó el partido de la noche en el estadio",
           "los precios del gas y de la luz suben en junio para los hogares",
           "el partido de fútbol de la liga terminó con un gol en el estadio"] * 5


def test_the_embedder_leaves_out_the_stop_words_of_the_corpus_languages():
    english_only = TfidfSvdEmbedder(dimensions=4).fit(SPANISH).vocabulary_
    assert {"la", "el", "que", "los", "del"} <= set(english_only)     # English's list alone keeps them
    with vocabulary_languages(["es"]):
        spanish = TfidfSvdEmbedder(dimensions=4).fit(SPANISH)
    assert not {"de", "la", "el", "que", "los", "del", "en"} & set(spanish.vocabulary_)
    assert {"precios", "gasolina", "futbol", "estadio"} <= set(spanish.vocabulary_)
    # the vocabulary is the model's: embedding later, outside the block, reads the same words
    assert not spanish.transform(["la de el que"]).any() and spanish.transform(["gasolina"]).any()
