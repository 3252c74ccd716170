"""The methods of the :class:`~corpuskit.corpus.Corpus` facade, one module per noun (records, stages,
topics, signals, entities, networks, stories, series, provenance, validation, keys). Each is a mixin
over ``self.file`` (the :class:`~corpuskit.store.corpus_file.CorpusFile`); ``Corpus`` combines them."""
