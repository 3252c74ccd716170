"""Each platform's post, as its API or export writes it, turned into a raw record.

One function per format (:data:`CONVERTERS`); :mod:`corpuskit.ingest.platforms`
recognises the format and opens documents into posts. A converter returns a raw
record (engagement counts and reply, quote and repost links as typed fields; see
docs/corpus_file.md for the fields each reads) or raises :class:`RowRejected`
with the reason.
"""
from __future__ import annotations

from corpuskit.errors import RowRejected
from corpuskit.ingest.collectors.bluesky import post_to_record as bluesky_post_view
from corpuskit.ingest.collectors.bluesky import quoted_uri
from corpuskit.ingest.layouts import tweet_url
from corpuskit.text.markup import html_to_text

POST = "app.bsky.feed.post"
_REMOVED = {"[deleted]", "[removed]"}


def extra_fields(obj: dict, used) -> dict:
    """The scalar and short-list fields of ``obj`` not in ``used`` (what ``metadata`` keeps)."""
    extra = {}
    for key, value in obj.items():
        if key in used or value is None or value == "":
            continue
        if isinstance(value, (str, int, float, bool)):
            extra[key] = value
        elif isinstance(value, list) and len(value) <= 50 and all(
                isinstance(v, (str, int, float, bool)) for v in value):
            extra[key] = value
    return extra


def _lang(code) -> str | None:
    """A platform's language tag as the record's code (``en-US`` -> ``en``; ``und`` -> None)."""
    if not isinstance(code, str) or not code.strip() or code.strip().lower() in ("und", "zxx", "qme"):
        return None
    return code.strip().split("-")[0].lower()


# -- Twitter API v1.1 ---------------------------------------------------------------
def _v1_text(tweet: dict) -> str:
    extended = tweet.get("extended_tweet")
    if isinstance(extended, dict) and extended.get("full_text"):
        return extended["full_text"]
    return tweet.get("full_text") or tweet.get("text") or ""


def twitter_v1_to_record(obj: dict) -> dict:
    """A Twitter API v1.1 tweet as a raw record (a retweet is marked, its text the original's)."""
    user = obj.get("user") or {}
    handle = user.get("screen_name") or ""
    tweet_id = obj.get("id_str") or (str(obj["id"]) if obj.get("id") is not None else "")
    original = obj.get("retweeted_status") if isinstance(obj.get("retweeted_status"), dict) else None
    text = _v1_text(obj)
    if original is not None:
        by = (original.get("user") or {}).get("screen_name")
        text = f"RT @{by}: {_v1_text(original)}" if by else _v1_text(original)
    meta = {"userId": user.get("id_str"), "userName": user.get("name"),
            "inReplyToUser": obj.get("in_reply_to_screen_name"),
            "sourceApp": html_to_text(obj.get("source")) or None}
    counts = {} if original is not None else {   # a retweet's counts are its original's
        "likes": obj.get("favorite_count"), "reposts": obj.get("retweet_count"),
        "replies": obj.get("reply_count"), "quotes": obj.get("quote_count")}
    return {
        "sourceId": tweet_id or None,
        "title": "",
        "contentText": text,
        "url": tweet_url(tweet_id, handle) if tweet_id else "",
        "author": handle,
        "publishedAt": obj.get("created_at"),
        "language": _lang(obj.get("lang")),
        "contentType": "comment" if obj.get("in_reply_to_status_id_str") else "post",
        "replyTo": obj.get("in_reply_to_status_id_str"),
        "quoteOf": obj.get("quoted_status_id_str"),
        "repostOf": (original.get("id_str") or str(original.get("id") or "")) if original else None,
        "isRepost": original is not None,
        **counts,
        "metadata": {k: v for k, v in meta.items() if v not in (None, "")},
    }


# -- Twitter API v2 -----------------------------------------------------------------
def twitter_v2_to_record(obj: dict) -> dict:
    """A Twitter API v2 tweet (from a page, with its ``includes``) as a raw record."""
    includes = obj.get("_includes") or {}
    users = {u.get("id"): u for u in includes.get("users") or () if isinstance(u, dict)}
    tweets = {t.get("id"): t for t in includes.get("tweets") or () if isinstance(t, dict)}
    author = obj.get("author") if isinstance(obj.get("author"), dict) else users.get(obj.get("author_id"), {})
    handle = author.get("username") or ""
    refs = {r.get("type"): r.get("id") for r in obj.get("referenced_tweets") or () if isinstance(r, dict)}
    note = obj.get("note_tweet") if isinstance(obj.get("note_tweet"), dict) else {}
    text = note.get("text") or obj.get("text") or ""
    repost_of = refs.get("retweeted")
    if repost_of and repost_of in tweets:   # the page's copy of the original is not truncated
        original = tweets[repost_of]
        by = users.get(original.get("author_id"), {}).get("username")
        full = (original.get("note_tweet") or {}).get("text") or original.get("text") or ""
        text = f"RT @{by}: {full}" if by else full
    metrics = obj.get("public_metrics") if isinstance(obj.get("public_metrics"), dict) else {}
    counts = {} if repost_of else {
        "likes": metrics.get("like_count"), "reposts": metrics.get("retweet_count"),
        "replies": metrics.get("reply_count"), "quotes": metrics.get("quote_count"),
        "views": metrics.get("impression_count")}
    meta = {"authorId": obj.get("author_id"), "conversationId": obj.get("conversation_id"),
            "inReplyToUserId": obj.get("in_reply_to_user_id"), "authorName": author.get("name")}
    tweet_id = str(obj.get("id") or "")
    return {
        "sourceId": tweet_id or None,
        "title": "",
        "contentText": text,
        "url": tweet_url(tweet_id, handle) if tweet_id else "",
        "author": handle or str(obj.get("author_id") or ""),
        "publishedAt": obj.get("created_at"),
        "language": _lang(obj.get("lang")),
        "contentType": "comment" if refs.get("replied_to") else "post",
        "replyTo": refs.get("replied_to"),
        "quoteOf": refs.get("quoted"),
        "repostOf": repost_of,
        "isRepost": bool(repost_of),
        **counts,
        "metadata": {k: v for k, v in meta.items() if v not in (None, "")},
    }


# -- Pushshift ------------------------------------------------------------------------
def _reddit_id(fullname) -> str | None:
    """A Reddit fullname as the sourceId the importers give it: a post's bare id, a comment's ``t1_``."""
    if not isinstance(fullname, str) or not fullname:
        return None
    return fullname[3:] if fullname.startswith("t3_") else fullname


def pushshift_to_record(obj: dict) -> dict:
    """A Pushshift submission or comment as a raw record."""
    if "body" in obj and "title" not in obj:
        body = (obj.get("body") or "").strip()
        if body in _REMOVED:
            raise RowRejected(f"comment body is {body}")
        cid = str(obj.get("id") or "")
        link = str(obj.get("link_id") or "")
        permalink = obj.get("permalink")
        url = (f"https://www.reddit.com{permalink}" if permalink else
               f"https://www.reddit.com/comments/{link[3:]}/_/{cid}" if link.startswith("t3_") else "")
        used = {"id", "body", "author", "created_utc", "subreddit", "permalink"}
        return {
            "sourceId": f"t1_{cid}" if cid else None,
            "title": "",
            "contentText": body,
            "url": url,
            "author": obj.get("author") or "",
            "publishedAt": obj.get("created_utc"),
            "subreddit": obj.get("subreddit"),
            "contentType": "comment",
            "replyTo": _reddit_id(obj.get("parent_id")),
            "metadata": extra_fields(obj, used),
        }
    selftext = (obj.get("selftext") or "").strip()
    if selftext in _REMOVED:
        selftext = ""
    sid = str(obj.get("id") or "")
    permalink = obj.get("permalink")
    used = {"id", "title", "selftext", "author", "created_utc", "subreddit", "permalink", "url"}
    meta = extra_fields(obj, used)
    if obj.get("url") and not obj.get("is_self"):
        meta["linkUrl"] = obj["url"]
    return {
        "sourceId": sid or None,
        "title": obj.get("title") or "",
        "contentText": selftext or obj.get("title") or "",
        "url": f"https://www.reddit.com{permalink}" if permalink
        else (f"https://www.reddit.com/comments/{sid}" if sid else ""),
        "author": obj.get("author") or "",
        "publishedAt": obj.get("created_utc"),
        "subreddit": obj.get("subreddit"),
        "contentType": "post",
        "metadata": meta,
    }


# -- Bluesky --------------------------------------------------------------------------
def bluesky_to_record(obj: dict) -> dict:
    """A Bluesky post as a raw record: a Jetstream or repo-operation line, a flat line, or a PostView."""
    if isinstance(obj.get("author"), dict) and isinstance(obj.get("record"), dict):
        return bluesky_post_view(obj)
    if obj.get("kind") in ("identity", "account"):   # Jetstream's non-commit events
        raise RowRejected(f"not a post (a Jetstream {obj['kind']} event)")
    commit = obj.get("commit") if isinstance(obj.get("commit"), dict) else None
    if commit is not None:
        did = obj.get("did")
        operation = commit.get("operation") or "create"
        collection, rkey = commit.get("collection"), commit.get("rkey")
        record, cid = commit.get("record") or {}, commit.get("cid")
    else:
        did = obj.get("repo") or obj.get("did")
        operation = obj.get("action") or obj.get("operation") or "create"
        collection, rkey = obj.get("collection"), obj.get("rkey")
        if obj.get("path"):
            collection, _, rkey = str(obj["path"]).partition("/")
        uri = str(obj.get("uri") or "")
        if uri.startswith("at://"):
            parts = uri[5:].split("/")
            if len(parts) == 3:
                did, collection, rkey = did or parts[0], collection or parts[1], rkey or parts[2]
        record = obj.get("record") if isinstance(obj.get("record"), dict) else obj
        cid = obj.get("cid")
    collection = collection or record.get("$type") or POST
    if operation not in ("create", "update"):
        raise RowRejected(f"not a post creation (operation {operation!r})")
    if collection != POST:
        raise RowRejected(f"not a post (collection {collection!r})")
    if not did or not rkey:
        raise RowRejected("no repo DID or rkey")
    langs = record.get("langs") or []
    handle = obj.get("handle") or (obj.get("author") if isinstance(obj.get("author"), str) else None)
    reply = record.get("reply") or {}
    parent = (reply.get("parent") or {}).get("uri") if reply else None
    meta = {"did": did, "rkey": rkey, "cid": cid, "langs": langs, "handle": handle,
            "timeUs": obj.get("time_us"),
            "replyParent": parent,
            "replyRoot": (reply.get("root") or {}).get("uri") if reply else None,
            "embedType": (record.get("embed") or {}).get("$type")}
    return {
        "sourceId": f"at://{did}/{POST}/{rkey}",
        "title": "",
        "contentText": record.get("text") or "",
        "url": f"https://bsky.app/profile/{handle or did}/post/{rkey}",
        "author": handle or did,
        "publishedAt": record.get("createdAt"),
        "language": _lang(langs[0]) if langs else None,
        "contentType": "comment" if reply else "post",
        "replyTo": parent,
        "quoteOf": quoted_uri(record.get("embed")),
        "metadata": {k: v for k, v in meta.items() if v not in (None, "", [])},
    }


# -- Mastodon -------------------------------------------------------------------------
def mastodon_to_record(obj: dict) -> dict:
    """A Mastodon API status as a raw record; a reblog is marked and carries the original's text."""
    account = obj.get("account") or {}
    original = obj.get("reblog") if isinstance(obj.get("reblog"), dict) else None
    shown = original or obj
    text = html_to_text(shown.get("content"))
    warning = shown.get("spoiler_text") or ""
    if not text and (shown.get("media_attachments") or []):
        raise RowRejected("media only, no text")
    meta = {"id": obj.get("id"), "accountId": account.get("id"), "accountUrl": account.get("url"),
            "visibility": obj.get("visibility"), "sensitive": obj.get("sensitive") or None,
            "spoilerText": warning or None, "inReplyToAccountId": obj.get("in_reply_to_account_id")}
    counts = {} if original is not None else {
        "likes": obj.get("favourites_count"), "reposts": obj.get("reblogs_count"),
        "replies": obj.get("replies_count")}
    quote = obj.get("quote") if isinstance(obj.get("quote"), dict) else {}
    quoted = quote.get("quoted_status") if isinstance(quote.get("quoted_status"), dict) else quote
    return {
        "sourceId": obj.get("uri") or obj.get("url") or (str(obj["id"]) if obj.get("id") else None),
        "title": "",
        "contentText": text,
        "url": obj.get("url") or obj.get("uri") or "",
        "author": account.get("acct") or account.get("username") or "",
        "publishedAt": obj.get("created_at"),
        "language": _lang(obj.get("language") or shown.get("language")),
        "contentType": "comment" if obj.get("in_reply_to_id") else "post",
        "replyTo": obj.get("in_reply_to_id"),
        "quoteOf": quoted.get("uri") if isinstance(quoted, dict) else None,
        "repostOf": (original.get("uri") or original.get("id")) if original else None,
        "isRepost": original is not None,
        **counts,
        "metadata": {k: v for k, v in meta.items() if v not in (None, "")},
    }


# -- Telegram Desktop export ------------------------------------------------------------
def telegram_text(text) -> str:
    """A Telegram export's ``text``: a string, or a list of strings and entity objects with ``text``."""
    if isinstance(text, str):
        return text
    if isinstance(text, list):
        return "".join(part if isinstance(part, str) else str(part.get("text") or "")
                       for part in text if isinstance(part, (str, dict)))
    return ""


def telegram_to_record(obj: dict) -> dict:
    """One message of a Telegram Desktop export (``result.json``) as a raw record."""
    chat = obj.get("_telegram_chat") or {}
    if obj.get("type", "message") != "message":
        raise RowRejected(f"a {obj.get('type')} message (an event, not a post)")
    text = telegram_text(obj.get("text")).strip()
    if not text:
        raise RowRejected("no text (a media message without a caption)")
    chat_id, message_id = chat.get("id"), obj.get("id")
    key = (lambda n: f"{chat_id}/{n}" if chat_id is not None else str(n))
    forwarded = obj.get("forwarded_from")
    meta = {"chat": chat.get("name"), "chatId": chat_id, "chatType": chat.get("type"),
            "fromId": obj.get("from_id"), "forwardedFrom": forwarded, "edited": obj.get("edited"),
            "date": obj.get("date")}
    reactions = obj.get("reactions")
    if isinstance(reactions, list):
        meta["reactions"] = sum(int(r.get("count") or 0) for r in reactions if isinstance(r, dict))
    return {
        "sourceId": key(message_id) if message_id is not None else None,
        "title": "",
        "contentText": text,
        "url": "",
        "author": obj.get("from") or obj.get("actor") or chat.get("name") or "",
        # date_unixtime is UTC; date is the exporting computer's local time, with no zone
        "publishedAt": obj.get("date_unixtime") or obj.get("date"),
        "contentType": "comment" if obj.get("reply_to_message_id") else "post",
        "replyTo": key(obj["reply_to_message_id"]) if obj.get("reply_to_message_id") else None,
        "isRepost": bool(forwarded),
        "metadata": {k: v for k, v in meta.items() if v not in (None, "")},
    }


# -- YouTube comments -------------------------------------------------------------------
def youtube_comment_to_record(obj: dict) -> dict:
    """A YouTube ``commentThread`` (its top-level comment) or ``comment`` as a raw record.

    A thread's ``replies.comments`` become their own records through :func:`expand_youtube`.
    """
    thread = None
    if obj.get("kind") == "youtube#commentThread":
        thread = obj.get("snippet") or {}
        obj = thread.get("topLevelComment") or {}
    snippet = obj.get("snippet") or {}
    video = snippet.get("videoId") or (thread or {}).get("videoId") or obj.get("_videoId")
    comment_id = obj.get("id") or ""
    text = snippet.get("textOriginal") or html_to_text(snippet.get("textDisplay"))
    parent = snippet.get("parentId")
    channel = snippet.get("authorChannelId")
    meta = {"videoId": video, "channelId": snippet.get("channelId"),
            "authorChannelId": channel.get("value") if isinstance(channel, dict) else channel,
            "updatedAt": snippet.get("updatedAt")}
    return {
        "sourceId": comment_id or None,
        "title": "",
        "contentText": text,
        "url": (f"https://www.youtube.com/watch?v={video}&lc={comment_id}" if video and comment_id
                else ""),
        "author": snippet.get("authorDisplayName") or "",
        "publishedAt": snippet.get("publishedAt"),
        "contentType": "comment",
        "likes": snippet.get("likeCount"),
        "replies": thread.get("totalReplyCount") if thread is not None else None,
        "replyTo": parent or video,   # a reply answers its comment, a top-level comment the video
        "metadata": {k: v for k, v in meta.items() if v not in (None, "")},
    }


CONVERTERS = {"twitter_v1": twitter_v1_to_record, "twitter_v2": twitter_v2_to_record,
              "pushshift": pushshift_to_record, "bluesky": bluesky_to_record,
              "mastodon": mastodon_to_record, "telegram": telegram_to_record,
              "youtube": youtube_comment_to_record}
