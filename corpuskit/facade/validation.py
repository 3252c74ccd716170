"""The :class:`~corpuskit.corpus.Corpus` methods on one noun. Validation against human codes: samples,
coding, agreement, adjudication, gold and scores (docs/validate.md)."""
from __future__ import annotations

import pandas as pd


class ValidationMethods:
    """Validation against human codes: samples, coding, agreement, adjudication, gold and scores (docs/validate.md)."""

    def sample(self, n: int, by: str | None = None, seed: int = 0, name: str | None = None, ids=None,
               since=None, until=None, source: str | None = None, topic: str | None = None,
               allocation: str = "proportional", codebook=None, query=None):
        """Draw a random sample of ``n`` records for hand coding; stored under ``name`` when given.

        ``by``: None (simple random sample), ``topic``, ``source``, ``sentiment``
        (label) or a period ``D``/``W``/``M`` (stratified; ``allocation``
        ``proportional`` with largest-remainder rounding, or ``equal``: stratum
        sizes are exact and sum to ``n``). ``ids`` (record ids), ``since``/``until``,
        ``source``, ``topic`` and ``query`` (the query language, as :meth:`query` takes it)
        restrict what is drawn from. Reproducible from
        ``seed``. A stored sample keeps its design (created at the corpus clock)
        and its records in coding order; ``codebook`` (a YAML/JSON path, mapping
        or :class:`~corpuskit.validate.Codebook`) is stored with it. Returns a
        :class:`~corpuskit.validate.Sample`; ValidationError when too few records match.
        """
        from corpuskit.validate import draw_sample

        return draw_sample(self.file, n, by=by, seed=seed, name=name, ids=ids, since=since, until=until,
                           source=source, topic=topic, allocation=allocation, codebook=codebook,
                           query=query)

    def coding_sheet(self, sample: str, path, codebook=None) -> int:
        """Write ``sample``'s coding sheet (CSV: recordId, text, an empty column per codebook
        variable, note); returns the rows. ``codebook`` is stored with the sample first."""
        from corpuskit.validate import write_coding_sheet

        return write_coding_sheet(self.file, sample, path, codebook=codebook)

    def codebook(self, sample: str, codebook=None):
        """The codebook of ``sample``; with ``codebook`` (path, mapping, Codebook) store it first."""
        from corpuskit.validate import sample_codebook, set_codebook

        if codebook is not None:
            return set_codebook(self.file, sample, codebook)
        return sample_codebook(self.file, sample)

    def import_codes(self, path, sample: str, coder: str, replace: bool = False) -> int:
        """Import ``coder``'s filled coding sheet (CSV) into ``sample``; returns the codes stored.

        One transaction: any bad cell (a value outside the codebook, an unknown
        record, one outside the sample, a code given twice) rejects the sheet with
        :class:`~corpuskit.validate.CodeError` naming each failing line.
        """
        from corpuskit.validate import import_sheet

        return import_sheet(self.file, path, sample, coder, replace=replace)

    def add_codes(self, sample: str, coder: str, codes, replace: bool = False) -> int:
        """Store ``coder``'s codes: ``{record_id: {variable: value}}`` or rows
        ``(record_id, variable, value[, note])``; all or none (see :meth:`import_codes`)."""
        from corpuskit.validate import add_codes

        if isinstance(codes, dict):
            rows = [(rid, var, value, "") for rid, values in codes.items() for var, value in values.items()]
        else:
            rows = [tuple(r) + ("",) * (4 - len(r)) for r in codes]
        return add_codes(self.file, sample, coder, [(i + 1, *r) for i, r in enumerate(rows)], replace=replace)

    def codes(self, sample: str | None = None) -> pd.DataFrame:
        """Codes: ``sample, recordId, coder, variable, value, note, codedAt`` (every sample's when None)."""
        from corpuskit.validate import codes_frame

        return codes_frame(self.file, sample)

    def coder(self, sample: str, coder: str, codebook=None):
        """The ipywidgets coder of ``coder`` on ``sample`` (display ``.widget``); resumes where they stopped."""
        from corpuskit.validate import Coder

        return Coder(self.file, sample, coder, codebook=codebook)

    def agreement(self, sample: str, variable: str | None = None, resamples: int = 1000,
                  seed: int = 0) -> pd.DataFrame:
        """Krippendorff's alpha, percent agreement and (two coders) Cohen's kappa per variable,
        each with a seeded 95% bootstrap interval over records."""
        from corpuskit.validate import agreement

        return agreement(self.file, sample, variable=variable, resamples=resamples, seed=seed)

    def disagreements(self, sample: str, variable: str | None = None) -> pd.DataFrame:
        """Records where coders differ: ``recordId, variable`` and each coder's value."""
        from corpuskit.validate import disagreements

        return disagreements(self.file, sample, variable=variable)

    def adjudicate(self, sample: str, method: str = "majority", variable: str | None = None,
                   decisions: dict | None = None, by: str | None = None,
                   tie_break: str | None = None) -> pd.DataFrame:
        """Store a gold value per record (``majority``, ``coder:NAME`` or explicit ``decisions`` by
        ``by``), with how each was reached; see :func:`corpuskit.validate.adjudicate`."""
        from corpuskit.validate import adjudicate

        return adjudicate(self.file, sample, method=method, variable=variable, decisions=decisions, by=by,
                          tie_break=tie_break)

    def gold(self, sample: str | None = None) -> pd.DataFrame:
        """Stored gold values: ``sample, recordId, variable, value, method, decidedBy, codes, decidedAt``."""
        from corpuskit.validate import gold

        return gold(self.file, sample)

    def validate(self, kind: str, sample: str, variable: str | None = None, resamples: int = 1000,
                 seed: int = 0):
        """corpuskit's ``kind`` labels (sentiment, topic, entities) against the gold values of ``sample``:
        per-class precision/recall/F1, macro-F1, confusion matrix, alpha and the corrected corpus
        shares, each with a bootstrap interval (a :class:`~corpuskit.validate.ValidationResult`)."""
        from corpuskit.validate import validate_labels

        return validate_labels(self.file, kind, sample, variable=variable, resamples=resamples, seed=seed)
