"""Cross-validation of the whole default extractor on WNUT 2017 train (a 150-document slice, so it
takes seconds): fold models are fitted on the other folds only, cached and reused, the held-out
fold's common words never reach the extractor, and the figures pool every fold.
Skips when ../shared/datasets is absent."""
from __future__ import annotations

import pytest

from corpuskit.enrich import entity_extractor
from corpuskit.enrich.entity_extractor import HybridExtractor
from extractor_cv import cross_validate_extractor, fold_taggers, line  # tools/ (see tests/conftest.py)
from tests.conftest import SHARED_DATASETS, need_shared
from train_crf import common_words, folds, read_conll

TRAIN = SHARED_DATASETS / "wnut17" / "train.conll"
#: the shipped CRF's cut-off, chosen when it was trained (0.8 since the retraining on WNUT 2017 + BTC)
SHIPPED_MAX_OUTSIDE = 0.8


@pytest.fixture(scope="module")
def small_train(tmp_path_factory):
    blocks = need_shared(TRAIN).read_text(encoding="utf-8").strip().split("\n\n")[:150]
    path = tmp_path_factory.mktemp("wnut") / "train.conll"
    path.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def fold_dir(small_train, tmp_path_factory):
    """A folder holding the three fold models of ``small_train`` (fitted once for the module)."""
    folder = tmp_path_factory.mktemp("folds")
    fold_taggers(small_train, 3, folder, iterations=30)
    return folder


def test_fold_models_see_only_their_training_part_and_are_reused(small_train, fold_dir):
    docs = read_conll(small_train)
    taggers = fold_taggers(small_train, 3, fold_dir, iterations=30)
    assert [held for held, _, _ in taggers] == folds(len(docs), 3)
    for held, tagger, words in taggers:
        part = [d for i, d in enumerate(docs) if i not in set(held)]
        assert words == common_words(part)
        assert tagger.featurizer_.common == words and tagger.max_outside_ == SHIPPED_MAX_OUTSIDE
    models = sorted(fold_dir.glob("fold*of3_*_it30.crfsuite"))
    assert len(models) == 3
    stamps = [m.stat().st_mtime_ns for m in models]
    fold_taggers(small_train, 3, fold_dir, iterations=30)
    assert [m.stat().st_mtime_ns for m in models] == stamps  # read, not refitted


def test_pooled_and_per_fold_figures(small_train, fold_dir):
    taggers = fold_taggers(small_train, 3, fold_dir, iterations=30)
    shipped = entity_extractor._common_words()
    figures = cross_validate_extractor(small_train, HybridExtractor, taggers)
    assert entity_extractor._common_words() == shipped  # the fold's words were only lent
    assert len(figures["folds"]) == 3
    p, r, f1 = figures["typed"]
    assert 0 < f1 < 1 and 0 < p <= 1 and 0 < r <= 1
    assert figures["untyped"][2] >= f1
    assert "by fold" in line(figures)
    # the gazetteer alone (no CRF) is a different, weaker extractor under the same folds
    plain = cross_validate_extractor(small_train, lambda: HybridExtractor(crf=False), taggers)
    assert plain["typed"][2] < f1
