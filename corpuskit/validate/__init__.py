"""Validation: samples for hand coding, codebooks, codes, agreement, and automatic labels against people.

The loop (see ``docs/validate.md``): draw a sample (:func:`draw_sample`), write
a coding sheet or open the notebook :class:`Coder`, store codes checked against
a :class:`Codebook`, measure :func:`agreement` between coders, settle
:func:`disagreements` into gold values (:func:`adjudicate`), and compare
corpuskit's labels with them (:func:`validate_labels`), which also gives the
corpus shares corrected for the measured error rates.
"""
from corpuskit.validate.adjudicate import adjudicate, gold
from corpuskit.validate.agreement import agreement, cohen_kappa, disagreements, percent_agreement
from corpuskit.validate.alpha import krippendorff_alpha, krippendorff_alpha_interval
from corpuskit.validate.codebook import LEVELS, Codebook, CodebookError, Variable, load_codebook
from corpuskit.validate.coder import Coder
from corpuskit.validate.codes import CodeError, add_codes, code_matrix, codes_frame, import_sheet
from corpuskit.validate.labels import ValidationResult, corrected_shares, validate_labels
from corpuskit.validate.samples import (Sample, allocate, draw_sample, load_sample, sample_codebook,
                                        set_codebook, write_coding_sheet)

__all__ = ["Codebook", "CodebookError", "CodeError", "Coder", "LEVELS", "Sample", "ValidationResult",
           "Variable", "add_codes", "adjudicate", "agreement", "allocate", "code_matrix", "codes_frame",
           "cohen_kappa", "corrected_shares", "disagreements", "draw_sample", "gold", "import_sheet",
           "krippendorff_alpha", "krippendorff_alpha_interval", "load_codebook", "load_sample",
           "percent_agreement", "sample_codebook", "set_codebook", "validate_labels", "write_coding_sheet"]
