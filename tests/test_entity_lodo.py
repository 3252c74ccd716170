"""The leave-one-dataset-out entity benchmark and the CRF's multi-set training: type mapping, scoring,
and every choice made without the left-out set."""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT / "tools")]

import entity_lodo  # noqa: E402
import train_crf  # noqa: E402
from entity_lodo import score  # noqa: E402

from corpuskit.enrich.crf import Featurizer, load_info  # noqa: E402


def test_each_set_is_scored_on_its_own_types_mapped_to_ours():
    words = "Anna met Acme staff in Paris with a Nokia phone".split()
    btc = [(words, ["B-PER", "O", "B-ORG", "O", "O", "B-LOC", "O", "O", "O", "O"])]
    # the CRF's labels are WNUT-17's: corporation -> org, location -> place
    predicted = [[(0, 0, "person"), (2, 2, "corporation"), (5, 5, "location"), (8, 8, "product")]]
    f = score("BTC", btc, predicted)
    # BTC annotates no product: the predicted Nokia is not held against it
    assert f["typed"] == (1.0, 1.0, 1.0)
    wrong = [[(0, 0, "location"), (2, 2, "corporation"), (5, 5, "location")]]
    t, u = score("BTC", btc, wrong)["typed"], score("BTC", btc, wrong)["untyped"]
    assert round(t[2], 3) == 0.667 and u[2] == 1.0


def test_wnut16_other_is_neither_gold_nor_a_false_positive_and_musicartist_takes_either_type():
    words = "Adele and Coldplay at Glastonbury Festival".split()
    gold = [(words, ["B-musicartist", "O", "B-musicartist", "O", "B-other", "I-other"])]
    predicted = [[(0, 0, "person"), (2, 2, "group"), (4, 5, "location")]]
    f = score("WNUT-16", gold, predicted)
    assert f["typed"] == (1.0, 1.0, 1.0)
    missed = score("WNUT-16", gold, [[(0, 0, "person")]])
    assert missed["typed"][1] == 0.5


def test_word_clusters_are_features_only_when_given():
    plain = Featurizer().sentence(["Paris", "rocks"])[0]
    clustered = Featurizer(clusters={"paris": ("17", "3")}).sentence(["Paris", "rocks"])[0]
    assert not any(f.startswith(("cf=", "cc=")) for f in plain)
    assert "cf=17" in clustered and "cc=3" in clustered


WNUT = [("I met Emily Smith in Paris".split(), ["O", "O", "B-person", "I-person", "O", "B-location"]),
        ("Apple sells the iPhone".split(), ["B-corporation", "O", "O", "B-product"]),
        ("we love Lyon and John".split(), ["O", "O", "B-location", "O", "B-person"])]
BTC = [("Anna Berg visits Oslo today".split(), ["B-PER", "I-PER", "O", "B-LOC", "O"]),
       ("Acme hires in Leeds".split(), ["B-ORG", "O", "O", "B-LOC"])]


def _conll(path, docs):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n\n".join("\n".join(f"{w}\t{t}" for w, t in zip(*d)) for d in docs) + "\n")
    return path


def test_other_schemes_are_mapped_to_the_crf_labels_and_gpl_data_cannot_be_trained_on(tmp_path):
    btc = train_crf.load_set("BTC", "btc", [_conll(tmp_path / "b.conll", BTC)])
    assert btc.docs[0][1] == ["B-person", "I-person", "O", "B-location", "O"]
    assert btc.docs[1][1][0] == "B-corporation" and btc.types == ("org", "person", "place")
    wnut16 = _conll(tmp_path / "w16.conll", [("Go Lakers".split(), ["O", "B-sportsteam"])])
    with pytest.raises(ValueError, match="sportsteam"):
        train_crf.load_set("WNUT-16", "wnut17", [wnut16])  # a GPL file passed off as WNUT-17
    with pytest.raises(ValueError, match="evaluation only"):
        train_crf.load_set("WNUT-16", "wnut16", [wnut16])


def test_a_left_out_set_is_scored_on_its_own_types():
    gold = [("Acme sells Zap in Oslo".split(), ["B-corporation", "O", "O", "O", "B-location"])]
    predicted = [[(0, 0, "corporation"), (2, 2, "product"), (4, 4, "location")]]
    assert train_crf.score(gold, predicted, ("org", "person", "place"))["typed"]["precision"] == 1.0
    assert round(train_crf.score(gold, predicted)["typed"]["precision"], 3) == 0.667


class RecordingFitter(train_crf.Fitter):
    """The real fitter, noting the sets each CRF is fitted on."""

    def __init__(self, iterations):
        super().__init__(iterations)
        self.calls = []

    def __call__(self, sets, c1, c2):
        self.calls.append(tuple(sorted(s.name for s in sets)))
        return super().__call__(sets, c1, c2)


def _sets(tmp_path):
    return [train_crf.load_set("A", "wnut17", [_conll(tmp_path / "a.conll", WNUT * 3)]),
            train_crf.load_set("B", "btc", [_conll(tmp_path / "b.conll", BTC * 3)]),
            train_crf.load_set("C", "wnut17", [_conll(tmp_path / "c.conll", WNUT[::-1] * 3)])]


def test_each_set_is_scored_by_a_crf_never_fitted_on_it(tmp_path):
    sets = _sets(tmp_path)
    fitter = RecordingFitter(iterations=5)
    chosen = train_crf.choose_setting(sets, [0.01, 0.1], [0.05], (1.0, 0.7), fitter=fitter, log=lambda line: None)
    assert fitter.calls == [("B", "C"), ("A", "C"), ("A", "B")] * 2
    assert set(chosen["figures"]) == {"A", "B", "C"} and chosen["c1"] in (0.01, 0.1)
    assert chosen["chosen_by"].startswith("leave one dataset out")
    fitter(sets[:2], 0.01, 0.05)
    assert len(fitter.fitted) == 6  # each (sets, c1, c2) fitted once, however often it is asked for


def test_the_strict_benchmark_never_gives_the_procedure_the_left_out_dataset(tmp_path, monkeypatch, capsys):
    shared = tmp_path / "shared"
    _conll(shared / "wnut17" / "train.conll", WNUT * 3)
    _conll(shared / "wnut17" / "dev.conll", WNUT)
    for part in ("train", "dev", "test"):
        _conll(shared / "ner_more" / "ner_btc" / f"btc.{part}.conll", BTC * 2)
    _conll(shared / "ner_more" / "ner_wnut16" / "test.conll", [("Go Lakers".split(), ["O", "B-sportsteam"])])
    given = []
    real = entity_lodo.procedure

    def procedure(training, fitter, *args, **kwargs):
        given.append(sorted(s.name for s in training))
        return real(training, fitter, *args, **kwargs)

    monkeypatch.setattr(entity_lodo, "procedure", procedure)
    assert entity_lodo.run(shared, iterations=3, c1s=(0.05,), c2s=(0.05,), folds=2) == 0
    # the pooled run (also WNUT-16's: it has no training part), then WNUT-17 left out, then BTC left out
    assert given == [["BTC", "WNUT-17"], ["BTC"], ["WNUT-17"]]
    out = capsys.readouterr().out
    assert "dataset left out" in out and "worst:" in out and "BTC left out: 2-fold cross-validation on WNUT-17" in out


def test_the_shipped_model_was_trained_on_permissively_licensed_sets_only():
    info = load_info()
    assert {r["licence"] for r in info["training_sets"]} == {"CC-BY 4.0"}
    assert {r["kind"] for r in info["training_sets"]} <= set(train_crf.KINDS)
    files = [f for r in info["training_sets"] for f in r["files"]]
    assert not any("wnut16" in f or f == "test.conll" for f in files)
    assert "CC-BY 4.0" in info["data"] and info["chosen_by"].startswith("leave one dataset out")
