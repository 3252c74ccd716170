"""A floor on the default extractor's quality on WNUT 2017 dev, so a regression in the labeller fails.

Dev is read only here (nothing is chosen on it). Skips when ../shared/datasets is absent.
"""
from __future__ import annotations


import pytest

from tests.conftest import SHARED_DATASETS, need_shared
from wnut_eval import conll_documents, score_extractor  # tools/ (see tests/conftest.py)

DEV = SHARED_DATASETS / "wnut17" / "dev.conll"


@pytest.fixture(scope="module")
def dev_docs():
    return conll_documents(need_shared(DEV))


def test_default_extractor_holds_its_floor_on_wnut_dev(dev_docs):
    from corpuskit.enrich.entity_extractor import HybridExtractor

    assert len(dev_docs) == 1009 and sum(len(g) for _, _, g in dev_docs) == 836
    precision, recall, f1 = score_extractor(HybridExtractor(), dev_docs)["typed"]
    assert f1 >= 0.40, f"typed F1 {f1:.3f} (P {precision:.3f} R {recall:.3f}) on WNUT 2017 dev, floor 0.40"


def test_the_floor_catches_a_wrong_type_mapping(dev_docs):
    # the regression the floor is for: calling every CRF location an org must fail it
    from corpuskit.enrich.base import Mention
    from corpuskit.enrich.entity_extractor import HybridExtractor

    class LocationsAsOrgs:
        def __init__(self):
            self.inner = HybridExtractor()

        def extract_many(self, texts):
            return [[Mention(key=m.key, name=m.name, type="org" if m.type == "place" else m.type,
                             surface=m.surface, positions=m.positions, aliases=m.aliases) for m in found]
                    for found in self.inner.extract_many(texts)]

    assert score_extractor(LocationsAsOrgs(), dev_docs)["typed"][2] < 0.40


def test_scoring_counts_exact_spans_and_types():
    from corpuskit.enrich.base import Mention

    docs = [("Paris is in France", [(0, 5), (6, 8), (9, 11), (12, 18)], {(0, 0, "location"), (3, 3, "location")})]
    right = [[Mention(key="paris", name="Paris", type="place", surface="Paris", positions=(0,), aliases=("Paris",)),
              Mention(key="france", name="France", type="org", surface="France", positions=(12,), aliases=("France",))]]

    class Fixed:
        def extract_many(self, texts):
            return right

    figures = score_extractor(Fixed(), docs)
    assert figures["typed"] == (0.5, 0.5, 0.5) and figures["untyped"] == (1.0, 1.0, 1.0)


def test_a_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such CoNLL file"):
        conll_documents(tmp_path / "absent.conll")
