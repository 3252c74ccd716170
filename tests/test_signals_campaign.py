"""Distinct voices set severity: a burst from a handful of accounts, or mostly near-duplicates,
is capped and flagged as a possible campaign."""
from __future__ import annotations

import json

import pytest

from corpuskit import open_corpus
from corpuskit.analysis.signals import detect_signals
from corpuskit.analysis.signals.quality import (CAMPAIGN_SEVERITY, campaign_cap, campaign_reasons)
from tests.signal_fixture import build_fixture


def test_campaign_reasons_and_cap():
    assert campaign_reasons(20, 2, 0.1) == ["fewAuthors"]
    assert campaign_reasons(20, 12, 0.92) == ["nearDuplicates"]
    assert campaign_reasons(20, 2, 0.9) == ["fewAuthors", "nearDuplicates"]
    assert campaign_reasons(20, 15, 0.1) == []
    assert campaign_reasons(20, None, 0.1) == []        # no authors in the corpus: not judged on them
    assert campaign_reasons(3, 1, 1.0) == []            # too few records to judge
    assert campaign_cap("high", {"campaign": True}) == CAMPAIGN_SEVERITY == "low"
    assert campaign_cap("medium", {"campaign": True}) == "low"
    assert campaign_cap("high", {"campaign": False}) == "high"
    assert campaign_cap("high", {}) == "high"


def _word(i: int) -> str:
    letters = ""
    for _ in range(4):
        i, r = divmod(i, 26)
        letters += chr(97 + r)
    return "q" + letters


@pytest.mark.parametrize("voices", [2, 40])
def test_a_burst_from_two_accounts_is_capped_and_flagged(tmp_path, voices):
    """The fixture's planted ai-policy spike: written by two accounts it is a low, flagged
    campaign; by forty it keeps the severity its sigma gives."""
    c = open_corpus(tmp_path / "c.db")
    truth = build_fixture(c)
    day = next(p["day"] for p in truth["events"] if p["kind"] == "volume_spike")
    with c.transaction():
        ids = [r[0] for r in c.conn.execute("SELECT id FROM records WHERE day = ? ORDER BY id", (day,))]
        # the fixture's texts are word-number templates (near-duplicates once numbers go): give each
        # record of the day a distinct word so that only the authors differ between the two cases
        c.conn.executemany("UPDATE records SET author = ?, content_text = content_text || ' ' || ? WHERE id = ?",
                           [(f"acct{i % voices}", _word(i), rid) for i, rid in enumerate(ids)])
        c.conn.execute("UPDATE records SET author = 'u' || id WHERE day <> ?", (day,))
    detect_signals(c, "analyse-1")
    rows = c.conn.execute("SELECT severity, sigma_score, detail FROM signals WHERE kind = 'volume_spike' "
                          "AND substr(signal_key, -10) = ?", (day,)).fetchall()
    c.close()
    assert rows
    severity, sigma, detail = rows[0]
    quality = json.loads(detail)["quality"]
    assert quality["distinctAuthors"] == min(voices, quality["recordsChecked"])
    if voices == 2:
        assert quality["campaign"] and quality["campaignReason"] == ["fewAuthors"]
        assert severity == "low" and sigma >= 3
    else:
        assert not quality["campaign"] and severity in ("medium", "high")
