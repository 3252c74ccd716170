"""The leave-one-dataset-out entity benchmark: type mapping, scoring and the choice made without the left-out set."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT / "tools")]

from entity_lodo import choose, score  # noqa: E402

from corpuskit.enrich.crf import Featurizer  # noqa: E402


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


def test_the_setting_is_chosen_without_the_left_out_set():
    figures = {(False, 1.0): {"A": {"typed": (0, 0, 0.9)}, "B": {"typed": (0, 0, 0.2)}, "C": {"typed": (0, 0, 0.3)}},
               (True, 0.7): {"A": {"typed": (0, 0, 0.1)}, "B": {"typed": (0, 0, 0.4)}, "C": {"typed": (0, 0, 0.5)}}}
    assert choose(figures, "A") == (True, 0.7)  # A's own 0.9 is never read
    assert choose(figures, "B") == (False, 1.0)


def test_word_clusters_are_features_only_when_given():
    plain = Featurizer().sentence(["Paris", "rocks"])[0]
    clustered = Featurizer(clusters={"paris": ("17", "3")}).sentence(["Paris", "rocks"])[0]
    assert not any(f.startswith(("cf=", "cc=")) for f in plain)
    assert "cf=17" in clustered and "cc=3" in clustered
