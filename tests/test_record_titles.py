"""A record without a title is listed by the first sentence of its text, at most 120 characters
(docs/api.md: a choice the spec leaves open)."""
from __future__ import annotations

from corpuskit import open_corpus
from corpuskit.narrate.sentences import TITLE_FROM_TEXT_CHARS, record_title

LONG = ("The committee met on Tuesday to discuss the proposed changes to the regional transport budget, "
        "which many residents oppose strongly and loudly. Second sentence here.")


def test_title_kept_else_first_sentence():
    assert record_title("A real title", "Some text. More text.") == "A real title"
    assert record_title("", "Vaccines arrive in Lagos today. More tomorrow!") == "Vaccines arrive in Lagos today."
    assert record_title(None, "Fish &amp; chips\n\n  tonight") == "Fish & chips tonight"
    assert record_title("", "") == "" and record_title(None, None) == ""


def test_a_long_first_sentence_is_cut_at_a_word():
    title = record_title("", LONG)
    assert len(title) <= TITLE_FROM_TEXT_CHARS == 120
    assert title.endswith("\u2026")
    assert LONG.startswith(title[:-1]) and LONG[len(title) - 1] == " "   # a whole word, then the ellipsis
    assert "Second" not in title


def test_v1_record_lists_show_the_first_sentence(tmp_path):
    from tests.openapi_check import checked_call

    from corpuskit.api import create_app

    corpus = open_corpus(tmp_path / "c.db")
    corpus.add_records([
        {"source": "twitter", "sourceId": "1", "contentText": "Kabul airport closes. Crowds gather outside.",
         "publishedAt": "2021-08-15T10:00:00Z", "author": "a"},
        {"source": "twitter", "sourceId": "2", "contentText": LONG, "publishedAt": "2021-08-15T11:00:00Z",
         "author": "b"},
        {"source": "hackernews", "sourceId": "3", "title": "Show HN: a thing", "contentText": "Body. More.",
         "publishedAt": "2021-08-15T12:00:00Z", "author": "c"},
    ])
    key = corpus.create_key("enterprise", per_minute=10**6, per_day=10**7)
    app = create_app(corpus)
    bearer = {"Authorization": f"Bearer {key}"}
    status, _, body = checked_call(app, "bearer", "/v1/records?limit=10", bearer)
    assert status == 200
    titles = [item["title"] for item in body["items"]]
    assert titles == ["Show HN: a thing", record_title("", LONG), "Kabul airport closes."]
    assert all(0 < len(t) <= 120 for t in titles)
    rid = body["items"][2]["id"]
    status, _, detail = checked_call(app, "bearer", f"/v1/records/{rid}", bearer)
    assert status == 200 and detail["title"] == "Kabul airport closes."
    assert detail["content"] == "Kabul airport closes. Crowds gather outside."
    corpus.close()
