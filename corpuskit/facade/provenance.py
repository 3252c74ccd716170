"""The :class:`~corpuskit.corpus.Corpus` methods on one noun. What was run and how: the runs, the manifest,
the methods paragraph, the comparison of two corpora."""
from __future__ import annotations

import pandas as pd


class ProvenanceMethods:
    """What was run and how: the runs, the manifest, the methods paragraph, the comparison of two corpora."""

    def runs(self, stage: str | None = None) -> pd.DataFrame:
        """Every stage run, oldest first: ``id, stage, status, settings`` (dict), ``model,
        startedAt, finishedAt``. Every derived row names the run that made it."""
        from corpuskit import frames

        return frames.runs(self, stage=stage)

    def manifest(self) -> dict:
        """What produced this corpus's tables, for a paper's methods section.

        See :func:`corpuskit.manifest.build_manifest`: the record count and a
        content digest, a digest per derived table, each stage's last run
        (id, settings, model, package versions) and the current environment.
        """
        from corpuskit.manifest import build_manifest

        return build_manifest(self)

    def methods(self) -> str:
        """A methods paragraph to paste into a paper, written from this corpus's runs: each
        instrument the last enrich run used (language detector, sentiment scorer, entity extractor,
        embedder) with its version, training data, measured accuracy and the benchmark it came
        from, what to cite, the corpus's digests and how to cite corpuskit. See
        :func:`corpuskit.methods.methods`."""
        from corpuskit.methods import methods

        return methods(self)

    def compare_with(self, other, tables=None, examples: int = 3):
        """How this corpus (A) and ``other`` (B: a :class:`Corpus` or a corpus file's path, opened
        read-only) differ, table by table; a :class:`~corpuskit.compare.Comparison`.

        For the records and every table the manifest digests, rows are matched by the table's key
        and counted as same, changed, only in A or only in B; ``.summary`` is a DataFrame (one row
        per table: ``table, rowsA, rowsB, same, changed, onlyA, onlyB, digestEqual``), ``.columns``
        the changed columns with the largest numeric difference, ``.examples(table)`` up to
        ``examples`` rows of each kind with the differing values side by side, ``.identical``,
        ``.to_text()`` and ``.to_dict()``. ``tables`` limits it to some tables (names as in the
        manifest, plus ``records``). See :mod:`corpuskit.compare`.
        """
        from corpuskit.compare import compare

        return compare(self, other, tables=tables, examples=examples, driver=self.driver)
