"""The optional LLM writer against a fake OpenAI-compatible server on 127.0.0.1: acceptance, fallback, budget."""
from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from corpuskit.narrate.citations import trace_body
from corpuskit.narrate.evidence import EvidenceRecord, StoryEvidence
from corpuskit.narrate.llm import DraftRejected, LLMWriter, check_draft, parse_reply
from corpuskit.narrate.pipeline import narrate_corpus
from tests.narrate_fixtures import build_fixture

KEY = "sk-test-secret-0123456789"
RECORD_LINE = re.compile(r"^\[(\d+)\] \([^)]*\) (.+)$", re.MULTILINE)


def _draft_for(mode: str, user: str) -> str:
    """The model's reply content for one request, by mode."""
    records = [(int(n), text) for n, text in RECORD_LINE.findall(user)]
    first = [(n, " ".join(text.split()[:10]).rstrip(".,;:!?")) for n, text in records[:3]]
    body = " ".join(f"{words}. [{n}]" for n, words in first)
    headline = " ".join(records[0][1].split()[:6])
    if mode == "uncited":
        body += " And then something happened that nobody cited."
    elif mode == "hallucinated":
        body += f" {first[0][1]}. [{max(n for n, _ in records) + 7}]"
    elif mode == "unsupported":
        body = f"Martian volcanoes erupted over the weekend, astronomers announced. [{first[0][0]}] " + body
    elif mode == "malformed":
        return "Here is your story: " + body
    elif mode == "fenced":
        return "```json\n" + json.dumps({"headline": headline, "body": body}) + "\n```"
    return json.dumps({"headline": headline, "body": body})


class FakeLLM:
    """A chat-completions server whose behaviour follows ``modes`` (one per request, the last repeats)."""

    def __init__(self):
        self.modes = ["good"]
        self.requests = []
        self.delay = 0.0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length))
                fake.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
                mode = fake.modes[min(len(fake.requests) - 1, len(fake.modes) - 1)]
                if mode == "slow":
                    time.sleep(fake.delay)
                if mode == "error500":
                    self.send_response(500)
                    self.end_headers()
                    self.wfile.write(b'{"error": "overloaded"}')
                    return
                if mode == "error400":
                    self.send_response(400)
                    self.end_headers()
                    self.wfile.write(b'{"error": "bad model"}')
                    return
                if mode == "garbage":
                    payload = b"<html>not json</html>"
                elif mode == "nochoices":
                    payload = json.dumps({"id": "x", "choices": []}).encode()
                else:
                    content = _draft_for("good" if mode == "slow" else mode, body["messages"][-1]["content"])
                    payload = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}],
                                          "usage": {"total_tokens": 321}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                try:
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake():
    server = FakeLLM()
    yield server
    server.close()


def _evidence():
    texts = [
        "Zephyr Labs announced a new accelerator that doubles memory bandwidth for training clusters.",
        "Analysts expect supply of advanced packaging from Zephyr Labs to stay tight through the next quarter.",
        "Engineers compared the Zephyr Labs chip power draw with last year's flagship accelerator design.",
    ]
    records = [EvidenceRecord(i + 1, "news", "", t, "", f"author{i}", f"2026-01-0{i + 1}T00:00:00Z", "{}",
                              confidence=0.5) for i, t in enumerate(texts)]
    entity = {"id": 1, "slug": "zephyr-labs", "name": "Zephyr Labs", "type": "org", "aliases": []}
    change = {"mentions": 9, "previousMentions": 3, "records": 9, "windowDays": 30, "sentiment": 0.2,
              "previousSentiment": 0.1, "with": []}
    return StoryEvidence(kind="entity_narrative", story_key="entity:zephyr-labs", records=records, entity=entity,
                         figures={"mentions": 9, "records": 9, "sources": 1, "windowDays": 30, "change": change})


def _writer(fake, **kw):
    kw = {"url": fake.url, "model": "fake-7b", "api_key": KEY, "timeout": 5, "retries": 1, "backoff": 0.01, **kw}
    return LLMWriter(**kw)


def test_a_good_draft_is_accepted_and_cites_only_given_records(fake):
    writer = _writer(fake)
    out = writer.write(_evidence())
    assert out["writer"] == "llm:fake-7b"
    assert out["writerNote"]["support"] and min(out["writerNote"]["support"]) >= 0.6
    assert out["lede"].startswith("Zephyr Labs was mentioned 9 times")  # the framing is the lede
    assert out["lede"] not in out["body"]  # and the body does not repeat it
    assert re.findall(r"\[(\d+)\]", out["body"])
    req = fake.requests[0]
    assert req["path"] == "/v1/chat/completions" and req["auth"] == f"Bearer {KEY}"
    assert req["body"]["model"] == "fake-7b" and req["body"]["temperature"] == 0
    assert "[1]" in req["body"]["messages"][-1]["content"]
    assert writer.calls_ == 1 and writer.tokens_ == 321 and writer.log_[0]["accepted"]


@pytest.mark.parametrize("mode, reason", [
    ("uncited", "uncited sentence"),
    ("hallucinated", "a record it was not given"),
    ("unsupported", "not supported by its citations"),
    ("malformed", "content is not JSON"),
    ("garbage", "malformed reply: not JSON"),
    ("nochoices", "no choices"),
    ("error400", "HTTP 400"),
])
def test_a_bad_draft_falls_back_to_the_extractive_writer_and_says_why(fake, mode, reason):
    fake.modes = [mode]
    out = _writer(fake).write(_evidence())
    assert out["writer"] == "extractive"
    assert out["writerNote"]["fallbackFrom"] == "llm" and reason in out["writerNote"]["reason"]
    assert KEY not in json.dumps(out)
    ev = _evidence()
    texts = {i + 1: r.text for i, r in enumerate(ev.records)}
    assert trace_body(out["body"], texts, [f["text"] for f in out["framing"]]) == []
    assert len(fake.requests) == 1  # not retried


def test_a_fenced_json_reply_is_read(fake):
    fake.modes = ["fenced"]
    assert _writer(fake).write(_evidence())["writer"] == "llm:fake-7b"


def test_a_timeout_is_retried_then_falls_back(fake):
    fake.modes, fake.delay = ["slow"], 1.0
    t0 = time.perf_counter()
    out = _writer(fake, timeout=0.2, retries=1).write(_evidence())
    assert out["writer"] == "extractive" and "timed out" in out["writerNote"]["reason"]
    assert len(fake.requests) == 2 and time.perf_counter() - t0 < 3


def test_a_server_error_is_retried_with_backoff(fake):
    fake.modes = ["error500", "good"]
    writer = _writer(fake, retries=2, backoff=0.05)
    t0 = time.perf_counter()
    out = writer.write(_evidence())
    assert out["writer"] == "llm:fake-7b" and len(fake.requests) == 2
    assert time.perf_counter() - t0 >= 0.05


def test_a_refused_connection_falls_back():
    out = LLMWriter(url="http://127.0.0.1:9", model="m", retries=0, timeout=1).write(_evidence())
    assert out["writer"] == "extractive" and "connection failed" in out["writerNote"]["reason"]


def test_the_budget_caps_calls_per_run(fake):
    writer = _writer(fake, max_calls=1)
    assert writer.write(_evidence())["writer"] == "llm:fake-7b"
    out = writer.write(_evidence())
    assert out["writer"] == "extractive" and out["writerNote"]["reason"].startswith("budget")
    assert len(fake.requests) == 1
    writer.reset_budget()
    assert writer.write(_evidence())["writer"] == "llm:fake-7b"
    tokens = _writer(fake, max_tokens=300)  # one reply costs 321 tokens
    assert tokens.write(_evidence())["writer"].startswith("llm")
    assert tokens.write(_evidence())["writerNote"]["reason"].startswith("budget")


def test_settings_come_from_the_arguments_and_never_show_the_key(fake):
    writer = LLMWriter(url=fake.url + "/v1/", model="env-model", api_key=KEY, retries=0)
    assert KEY not in repr(writer) and KEY not in json.dumps(writer.settings())
    assert writer.settings()["url"] == fake.url + "/v1/chat/completions"
    assert writer.write(_evidence())["writer"] == "llm:env-model"
    assert fake.requests[0]["auth"] == f"Bearer {KEY}"
    with pytest.raises(Exception, match="CORPUSKIT_LLM_URL"):
        LLMWriter().settings()


def test_the_narrate_stage_records_the_writer_and_never_the_key(corpus, fake):
    build_fixture(corpus)
    fake.modes = ["good", "uncited"]  # the first story accepted, every later one rejected
    narrate_corpus(corpus, progress=False, writer=_writer(fake))
    rows = corpus.conn.execute("SELECT story_key, metadata FROM stories ORDER BY id").fetchall()
    metas = [json.loads(r[1]) for r in rows]
    assert metas[0]["writer"] == "llm:fake-7b" and "support" in metas[0]["writerNote"]
    assert all(m["writer"] == "extractive" and "uncited" in m["writerNote"]["reason"] for m in metas[1:])
    settings = corpus.conn.execute("SELECT settings FROM runs WHERE stage = 'narrate'").fetchone()[0]
    assert "fake-7b" in settings and KEY not in settings
    dump = "".join(str(tuple(r)) for t in ("stories", "runs") for r in corpus.conn.execute(f"SELECT * FROM {t}"))
    assert KEY not in dump
    for sid, body, meta in corpus.conn.execute("SELECT id, body, metadata FROM stories").fetchall():
        meta = json.loads(meta)
        if meta["writer"] == "extractive":
            texts = dict(corpus.conn.execute(
                "SELECT c.ordinal, r.content_text FROM story_citations c JOIN records r ON r.id = c.record_id "
                "WHERE c.story_id = ?", (sid,)).fetchall())
            assert trace_body(body, texts, [f["text"] for f in meta["framing"]]) == []


def test_check_draft_rules():
    given = {1: "The council approved the new cycling lanes on Main Street.",
             2: "Residents complained about parking losses near the market."}
    ok = check_draft({"headline": "Council approves cycling lanes", "body":
                      "The council approved new cycling lanes on Main Street. [1] "
                      "Residents complained about parking losses. [2]"}, given)
    assert ok["support"] == [1.0, 1.0] and ok["headline"] == "Council approves cycling lanes"
    assert check_draft({"body": "The council approved cycling lanes [1][2]."}, given)["support"]
    with pytest.raises(DraftRejected, match="uncited"):
        check_draft({"body": "The council approved lanes. Residents complained. [1]"}, given)
    with pytest.raises(DraftRejected, match="not given"):
        check_draft({"body": "The council approved cycling lanes. [3]"}, given)
    with pytest.raises(DraftRejected, match="not supported"):
        check_draft({"body": "The mayor resigned after the scandal erupted. [1]"}, given)
    with pytest.raises(DraftRejected, match="debris"):
        check_draft({"body": "The council approved cycling lanes, see www.example.com today. [1]"}, given)
    with pytest.raises(DraftRejected, match="no body"):
        check_draft({"headline": "x"}, given)
    # an unsupported headline is dropped, the body still accepted
    assert check_draft({"headline": "Aliens land in Paris", "body": "The council approved lanes. [1]"},
                       given)["headline"] is None
    with pytest.raises(DraftRejected, match="not JSON"):
        parse_reply({"choices": [{"message": {"content": "plain words"}}]})


def test_the_cli_writer_option_reads_the_environment(tmp_path, fake, monkeypatch, capsys):
    from corpuskit import open_corpus
    from corpuskit.cli import main

    db = tmp_path / "c.db"
    c = open_corpus(db)
    build_fixture(c)
    c.close()
    monkeypatch.setenv("CORPUSKIT_LLM_URL", fake.url)
    monkeypatch.setenv("CORPUSKIT_LLM_MODEL", "cli-model")
    monkeypatch.setenv("CORPUSKIT_LLM_KEY", KEY)
    assert main(["narrate", "--db", str(db), "--quiet", "--writer", "llm"]) == 0
    out = capsys.readouterr()
    assert KEY not in out.out + out.err and fake.requests and fake.requests[0]["auth"] == f"Bearer {KEY}"
    c = open_corpus(db)
    writers = {json.loads(m)["writer"] for (m,) in c.conn.execute("SELECT metadata FROM stories")}
    assert writers == {"llm:cli-model"}
    c.close()
