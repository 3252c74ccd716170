"""The notebook coder, driven through its click handlers (no browser): saves as you click, resumes."""
from __future__ import annotations

import pytest

from corpuskit.errors import ValidationError
from corpuskit.validate import Coder
from tests.validate_fixture import CODEBOOK, labelled_corpus


@pytest.fixture
def lab(tmp_path):
    c = labelled_corpus(40, path=tmp_path / "c.db")
    c.sample(4, seed=1, name="S", codebook=CODEBOOK)
    yield c
    c.close()


def test_clicks_save_and_advance(lab):
    coder = lab.coder("S", "alice")
    order = lab.sample(4, seed=1).ids()
    assert coder.record_id == order[0] and coder.position == 0
    assert f"id {order[0]}" in coder.header.value
    coder.note.value = "ironic"
    coder.buttons["sentiment"]["negative"].click()
    assert coder.position == 0                                 # one variable left on this record
    assert coder.buttons["sentiment"]["negative"].button_style == "success"
    coder.buttons["relevant"]["yes"].click()
    assert coder.position == 1                                 # both coded: on to the next record
    codes = lab.codes("S")
    assert codes[["recordId", "variable", "value", "note"]].values.tolist() == [
        [order[0], "relevant", "yes", "ironic"], [order[0], "sentiment", "negative", "ironic"]]
    assert coder.note.value == ""
    assert "1 of 4 records coded" in coder.status.value


def test_back_skip_change_and_resume(lab, tmp_path):
    coder = Coder(lab, "S", "alice")
    order = lab.sample(4, seed=1).ids()
    coder.skip_button.click()                                  # leave record 1 for later
    coder.buttons["sentiment"]["neutral"].click()
    coder.buttons["relevant"]["no"].click()                    # record 2 done -> record 3
    assert coder.record_id == order[2]
    coder.back_button.click()
    assert coder.record_id == order[1]
    assert coder.buttons["relevant"]["no"].button_style == "success"
    coder.buttons["sentiment"]["positive"].click()             # change a value: replaced, not doubled
    codes = lab.codes("S")
    assert codes.query("recordId == @order[1] and variable == 'sentiment'")["value"].tolist() == ["positive"]
    # a new coder session (a reopened notebook) resumes at the first record alice has not finished
    from corpuskit import open_corpus

    again = open_corpus(lab.path).coder("S", "alice")
    assert again.record_id == order[0]
    again.buttons["sentiment"]["neutral"].click()
    again.buttons["relevant"]["no"].click()
    assert again.record_id == order[2]                        # record 2 is done: skipped over
    bob = lab.coder("S", "bob")
    assert bob.record_id == order[0]                          # each coder has their own place


def test_end_of_sample_and_errors(lab):
    coder = lab.coder("S", "carol")
    for _ in range(4):
        coder.buttons["sentiment"]["neutral"].click()
        coder.buttons["relevant"]["yes"].click()
    assert coder.record_id is None and "end of the sample" in coder.header.value
    coder.buttons["sentiment"]["neutral"].click()             # nothing to code: ignored
    assert len(lab.codes("S").query("coder == 'carol'")) == 8
    assert lab.coder("S", "carol").record_id is None
    with pytest.raises(ValidationError, match="coder must be"):
        lab.coder("S", "")
    lab.sample(2, name="bare")
    with pytest.raises(ValidationError, match="no codebook"):
        lab.coder("bare", "alice")
    assert lab.coder("bare", "alice", codebook=CODEBOOK).record_id is not None
