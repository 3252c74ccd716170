"""An optional story writer that asks an OpenAI-compatible chat endpoint, and only keeps what it can check.

:class:`LLMWriter` sends the quotes the extractive writer selected (each as a
numbered record, ``[n]`` being the record's marker) and the story's facts (its
plain-English framing) to ``POST <url>/v1/chat/completions`` (llama.cpp's
``llama-server``, Ollama, vLLM, or a hosted service), and asks for a JSON
object ``{"headline": ..., "body": ...}`` whose body cites every sentence.

The draft is **accepted** only when all of these hold (:func:`check_draft`):

- the reply is a JSON object (optionally in a code fence) with a non-empty
  string ``body``;
- every sentence of the body ends with one or more markers ``[n]``, and every
  ``n`` is a record the writer was given (no uncited sentence, no invented
  citation);
- each sentence is *supported* by the records it cites: at least
  :data:`MIN_SUPPORT` of its informative words (``corpuskit.text.term_tokens``)
  occur in the cited records' text (lexical overlap);
- no sentence and no headline carries debris (:func:`corpuskit.narrate.prose.prose_debris`);
- the headline, when given, is supported by the given records and the facts
  by the same overlap test (otherwise the extractive headline is kept).

Otherwise the story is written by the fallback (the :class:`ExtractiveWriter`
by default) and ``metadata.writerNote`` records why (``{"fallbackFrom",
"model", "reason"}``); an accepted draft records ``{"model", "calls",
"support"}``. ``metadata.writer`` names the writer that wrote the text.

Network rules: a request times out after ``timeout`` seconds; timeouts,
connection errors, HTTP 429 and 5xx are retried ``retries`` times with
exponential backoff (``backoff * 2**attempt`` seconds); other HTTP errors and
malformed replies are not retried. A run spends at most ``max_calls``
requests and ``max_tokens`` tokens (the reply's ``usage.total_tokens``, else
characters / 4); past either, every further story falls back
(reason ``budget``). The key is sent as ``Authorization: Bearer`` and never
logged, stored or shown in ``repr``.

Settings come from the arguments: ``url`` (e.g. ``http://127.0.0.1:8080`` for
llama.cpp, ``http://127.0.0.1:11434`` for Ollama), ``model`` and ``api_key``;
the ``corpuskit`` command takes them from ``CORPUSKIT_LLM_URL``,
``CORPUSKIT_LLM_MODEL`` and ``CORPUSKIT_LLM_KEY``.
"""
from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from urllib.parse import urlsplit, urlunsplit

from corpuskit.errors import ValidationError
from corpuskit.narrate import prose
from corpuskit.narrate.evidence import StoryEvidence
from corpuskit.narrate.sentences import split_sentences
from corpuskit.narrate.writer import ExtractiveWriter, StoryWriter, framing_sentence
from corpuskit.text import display_text, term_tokens

MIN_SUPPORT = 0.6
_UNIT = re.compile(r"(.+?)((?:\s*\[\d+\])+)[.!?]?(?=\s|$)", re.DOTALL)
_MARK = re.compile(r"\[(\d+)\]")
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)
_RECORD_CHARS = 700

SYSTEM_PROMPT = (
    "You are a careful news editor. Write a short news story only from the numbered records you are given. "
    "Every sentence of the body must end with the marker(s) of the record(s) it is based on, like [2] or [1][3], "
    "and must not state anything those records do not say. Use only the markers given. Do not invent names, "
    "numbers or quotes. Reply with one JSON object and nothing else: "
    '{"headline": "<at most 14 words>", "body": "<3 to 6 sentences, each ending with its markers>"}'
)


class DraftRejected(Exception):
    """A draft failed a check; the message is the reason recorded with the fallback."""


def _support(sentence: str, texts: list[str]) -> float:
    words = set(term_tokens(sentence))
    if not words:
        return 0.0
    source = set()
    for text in texts:
        source.update(term_tokens(text))
    return len(words & source) / len(words)


def check_draft(draft: dict, given: dict[int, str], facts: str = "", min_support: float = MIN_SUPPORT) -> dict:
    """Check a parsed draft against the records it was given (``{marker: text}``).

    Returns ``{"body", "headline" (or None), "support": [per sentence]}``;
    raises :class:`DraftRejected` with the reason (rules in the module docstring).
    """
    body = draft.get("body") if isinstance(draft, dict) else None
    if not isinstance(body, str) or not body.strip():
        raise DraftRejected("malformed reply: no body")
    support, paragraphs = [], []
    for paragraph in (p.strip() for p in body.split("\n\n")):
        if not paragraph:
            continue
        end, units = 0, []
        for match in _UNIT.finditer(paragraph):
            units.append((match.group(1), [int(n) for n in _MARK.findall(match.group(2))]))
            end = match.end()
        rest = paragraph[end:].strip()
        if rest:
            raise DraftRejected(f"uncited sentence: {rest[:80]!r}")
        for text, marks in units:
            pieces = split_sentences(text)
            if len(pieces) > 1:
                raise DraftRejected(f"uncited sentence: {pieces[0][:80]!r}")
            bad = [n for n in marks if n not in given]
            if bad:
                raise DraftRejected(f"cites [{bad[0]}], a record it was not given")
            found = prose.prose_debris(text)
            if found:
                raise DraftRejected(f"debris in a sentence: {found[0]}")
            score = _support(text, [given[n] for n in marks])
            if score < min_support:
                raise DraftRejected(f"sentence not supported by its citations ({score:.2f} < {min_support}): "
                                    f"{text.strip()[:80]!r}")
            support.append(round(score, 3))
        paragraphs.append(paragraph)
    if not support:
        raise DraftRejected("malformed reply: empty body")
    headline = draft.get("headline")
    if isinstance(headline, str) and headline.strip():
        headline = display_text(headline).strip().strip('"')
        if prose.prose_debris(headline) or _support(headline, list(given.values()) + [facts]) < min_support:
            headline = None
    else:
        headline = None
    return {"body": "\n\n".join(paragraphs), "headline": headline, "support": support}


def parse_reply(payload) -> tuple[dict, int | None]:
    """``(draft dict, total tokens or None)`` from a chat-completions reply; raises :class:`DraftRejected`."""
    try:
        content = payload["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise DraftRejected("malformed reply: no choices[0].message.content") from None
    if not isinstance(content, str):
        raise DraftRejected("malformed reply: content is not text")
    content = content.strip()
    fenced = _FENCE.match(content)
    if fenced:
        content = fenced.group(1)
    try:
        draft = json.loads(content)
    except ValueError:
        raise DraftRejected("malformed reply: content is not JSON") from None
    if not isinstance(draft, dict):
        raise DraftRejected("malformed reply: content is not a JSON object")
    usage = payload.get("usage") if isinstance(payload, dict) else None
    tokens = usage.get("total_tokens") if isinstance(usage, dict) else None
    return draft, tokens if isinstance(tokens, int) and tokens >= 0 else None


class LLMWriter(StoryWriter):
    """A writer that drafts with an OpenAI-compatible chat endpoint and falls back when a draft fails a check.

    Parameters
    ----------
    url, model, api_key : str, optional
        The endpoint's base URL (``http://host:port``, ``.../v1`` or the full
        ``.../v1/chat/completions``), the model name, and the key (the
        ``corpuskit`` command passes ``CORPUSKIT_LLM_URL``, ``CORPUSKIT_LLM_MODEL``,
        ``CORPUSKIT_LLM_KEY``).
    timeout : float
        Seconds per request.
    retries : int
        Further attempts after a timeout, connection error, 429 or 5xx.
    backoff : float
        Seconds before the first retry; doubled for each further one.
    max_calls, max_tokens : int
        The per-run budget (requests, tokens). :class:`~corpuskit.narrate.pipeline.Narrator`
        resets it at the start of every run (:meth:`reset_budget`).
    min_support : float
        Share of a sentence's informative words that must occur in the records it cites.
    reply_tokens : int
        ``max_tokens`` asked of the endpoint per reply.
    fallback : StoryWriter, optional
        Writes the story when a draft is rejected; also selects the quotes sent
        (when it has a ``choose`` method). :class:`ExtractiveWriter` by default.

    Attributes
    ----------
    calls_, tokens_ : int
        Requests made and tokens spent in the current run.
    log_ : list of dict
        One entry per story: ``{"story", "accepted", "reason"}`` (never the key).
    """

    name = "llm"

    def __init__(self, url: str | None = None, model: str | None = None, api_key: str | None = None,
                 timeout: float = 60.0, retries: int = 2, backoff: float = 1.0, max_calls: int = 100,
                 max_tokens: int = 200_000, min_support: float = MIN_SUPPORT, reply_tokens: int = 600,
                 fallback: StoryWriter | None = None):
        self.url = url
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_calls = max_calls
        self.max_tokens = max_tokens
        self.min_support = min_support
        self.reply_tokens = reply_tokens
        self.fallback = fallback

    def __repr__(self) -> str:
        key = "set" if self._key() else "none"
        try:
            url = self._endpoint()
        except ValidationError:
            url = None
        return f"LLMWriter(url={url!r}, model={self._model()!r}, key={key})"

    # -- settings -------------------------------------------------------------
    def _base(self) -> str:
        return (self.url or "").strip()

    def _model(self) -> str:
        return (self.model or "").strip()

    def _key(self) -> str:
        return (self.api_key or "").strip()

    def _endpoint(self) -> str:
        parts = urlsplit(self._base())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValidationError("the LLM writer needs an http(s) URL: pass url= or set CORPUSKIT_LLM_URL")
        netloc = parts.netloc.rsplit("@", 1)[-1]  # never keep credentials from the URL
        path = parts.path.rstrip("/")
        if not path.endswith("/chat/completions"):
            path = (path if path.endswith("/v1") else path + "/v1") + "/chat/completions"
        return urlunsplit((parts.scheme, netloc, path, "", ""))

    def settings(self) -> dict:
        """What a run records about this writer (endpoint and model; never the key)."""
        return {"url": self._endpoint(), "model": self._model(), "timeout": self.timeout, "retries": self.retries,
                "maxCalls": self.max_calls, "maxTokens": self.max_tokens, "minSupport": self.min_support}

    def reset_budget(self) -> "LLMWriter":
        """Start a new run's budget (called by the narrate stage)."""
        self.calls_ = 0
        self.tokens_ = 0
        self.log_ = []
        return self

    def _fallback(self) -> StoryWriter:
        return self.fallback if self.fallback is not None else ExtractiveWriter()

    # -- the request ------------------------------------------------------------
    def _post(self, body: dict) -> dict:
        data = json.dumps(body).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key():
            headers["Authorization"] = f"Bearer {self._key()}"
        last = "no attempt"
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            if self.calls_ >= self.max_calls or self.tokens_ >= self.max_tokens:
                raise DraftRejected("budget: the run's calls or tokens are spent")
            self.calls_ += 1
            request = urllib.request.Request(self._endpoint(), data=data, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as reply:  # noqa: S310 (http(s) only)
                    raw = reply.read(2_000_000)
            except urllib.error.HTTPError as exc:
                last = f"HTTP {exc.code}"
                if exc.code == 429 or exc.code >= 500:
                    continue
                raise DraftRejected(f"endpoint answered {last}") from None
            except (TimeoutError, OSError) as exc:  # URLError, refused, reset, socket timeout
                reason = getattr(exc, "reason", exc)
                last = "timed out" if isinstance(reason, TimeoutError) or "timed out" in str(reason) else \
                    f"connection failed ({type(reason).__name__})"
                continue
            try:
                return json.loads(raw.decode("utf-8"))
            except ValueError:
                raise DraftRejected("malformed reply: not JSON") from None
        raise DraftRejected(f"endpoint unavailable after {self.retries + 1} attempts: {last}")

    def _prompt(self, evidence: StoryEvidence, given: dict[int, str], facts: str) -> list[dict]:
        lines = [f"Story subject: {facts}" if facts else "Story:", "", "Records:"]
        for n, text in given.items():
            rec = evidence.records[n - 1]
            lines.append(f"[{n}] ({prose.source_name(rec.source)}, {rec.published_at[:10]}) {text}")
        return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "\n".join(lines)}]

    # -- the writer --------------------------------------------------------------
    def write(self, evidence: StoryEvidence) -> dict:
        if not hasattr(self, "calls_"):
            self.reset_budget()
        fallback = self._fallback()
        try:
            result = self._draft(evidence, fallback)
        except DraftRejected as exc:
            reason = str(exc)
            self.log_.append({"story": evidence.story_key, "accepted": False, "reason": reason})
            out = dict(fallback.write(evidence))
            out["writer"] = getattr(fallback, "name", type(fallback).__name__)
            out["writerNote"] = {"fallbackFrom": self.name, "model": self._model(), "reason": reason}
            return out
        self.log_.append({"story": evidence.story_key, "accepted": True, "reason": None})
        return result

    def _draft(self, evidence: StoryEvidence, fallback) -> dict:
        chooser = getattr(fallback, "choose", None) or ExtractiveWriter().choose
        chosen = chooser(evidence)
        given = {}
        for c in chosen:
            if c.ordinal not in given:
                given[c.ordinal] = display_text(evidence.records[c.ordinal - 1].text)[:_RECORD_CHARS]
        framing = framing_sentence(evidence)
        facts = framing["text"] if framing else ""
        body = {"model": self._model(), "messages": self._prompt(evidence, given, facts), "temperature": 0,
                "seed": 0, "max_tokens": self.reply_tokens}
        payload = self._post(body)
        draft, tokens = parse_reply(payload)
        content = json.dumps(payload)
        self.tokens_ += tokens if tokens is not None else (len(json.dumps(body)) + len(content)) // 4
        checked = check_draft(draft, given, facts, self.min_support)
        paragraphs = [checked["body"]]   # the framing is the lede: the body does not repeat it
        first = split_sentences(_MARK.sub("", checked["body"].split("\n\n")[0]))[0]
        headline = checked["headline"] or (framing["headline"] if framing else " ".join(first.split()[:14]))
        lede = framing["text"] if framing else first
        return {
            "headline": headline, "lede": lede, "body": "\n\n".join(paragraphs), "summary": lede,
            "framing": [{"text": framing["text"], "tracedTo": framing["tracedTo"]}] if framing else [],
            "headlineSource": {"writer": self.name} if checked["headline"] else dict(framing["tracedTo"])
            if framing else {"writer": self.name},
            "writer": f"{self.name}:{self._model()}" if self._model() else self.name,
            "writerNote": {"model": self._model(), "calls": self.calls_, "support": checked["support"],
                           "minSupport": self.min_support},
        }
