"""The JSON that platforms and their tools write, recognised by its keys and turned into records.

Each format is detected from the first objects of a file (:func:`sniff`), with no
mapping; docs/corpus_file.md lists the fields each one reads. Documents that hold
many posts (a Twitter API v2 page, a Telegram Desktop export, a YouTube
``commentThreads`` answer, a Bluesky feed) are opened into their posts by
:func:`expand`; every post then goes through its format's converter in
:mod:`corpuskit.ingest.converters`.

=============  ===========  ===========================================================
format         source       recognised by
=============  ===========  ===========================================================
twitter_v1     twitter      ``id_str``, ``created_at`` and a ``user`` object
twitter_v2     twitter      a page ``{data: [...], includes}`` or a tweet with ``author_id``
pushshift      reddit       ``subreddit``, ``created_utc`` and ``title`` or ``body``
bluesky        bluesky      a Jetstream commit, a repo operation, an ``at://`` URI, a PostView
mastodon       mastodon     ``content``, ``created_at`` and an ``account`` with ``acct``
telegram       telegram     a Desktop export ``{name, type, id, messages: [...]}``
youtube        youtube      ``kind`` ``youtube#commentThread...`` or ``youtube#comment...``
=============  ===========  ===========================================================
"""
from __future__ import annotations

from corpuskit.errors import RowRejected
from corpuskit.ingest.converters import CONVERTERS, POST
from corpuskit.ingest.layouts import JSON_FORMATS

#: the source each format implies
SOURCES = {"twitter_v1": "twitter", "twitter_v2": "twitter", "pushshift": "reddit",
           "bluesky": "bluesky", "mastodon": "mastodon", "telegram": "telegram",
           "youtube": "youtube"}
_SNIFF = 50


# -- detection ------------------------------------------------------------------------
def detect_kind(obj: dict) -> str | None:
    """The format of one post object (after :func:`expand`), or None."""
    if not isinstance(obj, dict):
        return None
    if "id_str" in obj and "created_at" in obj and isinstance(obj.get("user"), dict):
        return "twitter_v1"
    if "text" in obj and "id" in obj and ("author_id" in obj or "edit_history_tweet_ids" in obj):
        return "twitter_v2"
    if "subreddit" in obj and "created_utc" in obj and ("title" in obj or "body" in obj):
        return "pushshift"
    if str(obj.get("kind", "")).startswith("youtube#comment"):
        return "youtube"
    if "content" in obj and "created_at" in obj and isinstance(obj.get("account"), dict):
        return "mastodon"
    if "_telegram_chat" in obj:
        return "telegram"
    if isinstance(obj.get("commit"), dict) or obj.get("$type") == POST or \
            str(obj.get("uri", "")).startswith("at://") or \
            (isinstance(obj.get("record"), dict) and ("repo" in obj or "did" in obj)) or \
            (("did" in obj or "repo" in obj) and "rkey" in obj):
        return "bluesky"
    if "id" in obj and "type" in obj and ("time" in obj or obj.get("deleted")):
        return "hackernews"
    return None


def expand(obj: dict):
    """The posts inside one JSON object: itself, or the posts of a document that holds many.

    A Twitter v2 page gives its tweets, each with the page's ``includes`` attached
    (``_includes``); a Telegram export its messages (each with ``_telegram_chat``, the
    chat's name and id), also for a full export's ``chats.list``; a YouTube list answer its
    items; a Bluesky feed (``{feed: [{post}]}``) or a search answer (``{posts}``) its posts.
    """
    if isinstance(obj.get("data"), list) and ("includes" in obj or "meta" in obj):
        includes = obj.get("includes") if isinstance(obj.get("includes"), dict) else {}
        for tweet in obj["data"]:
            yield {**tweet, "_includes": includes} if isinstance(tweet, dict) else tweet
        return
    if isinstance(obj.get("messages"), list) and ("type" in obj or "name" in obj):
        yield from _telegram_messages(obj)
        return
    chats = obj.get("chats")
    if isinstance(chats, dict) and isinstance(chats.get("list"), list):
        for chat in chats["list"]:
            if isinstance(chat, dict) and isinstance(chat.get("messages"), list):
                yield from _telegram_messages(chat)
        return
    if str(obj.get("kind", "")).endswith("ListResponse") and isinstance(obj.get("items"), list):
        yield from obj["items"]
        return
    if isinstance(obj.get("feed"), list):
        for item in obj["feed"]:
            yield item.get("post", item) if isinstance(item, dict) else item
        return
    if isinstance(obj.get("posts"), list) and ("cursor" in obj or "hitsTotal" in obj or len(obj) == 1):
        yield from obj["posts"]   # searchPosts {cursor, hitsTotal, posts}, getPosts {posts}
        return
    if isinstance(obj.get("post"), dict) and isinstance(obj["post"].get("record"), dict):
        yield obj["post"]
        return
    yield obj


def _telegram_messages(chat: dict):
    info = {"name": chat.get("name"), "id": chat.get("id"), "type": chat.get("type")}
    for message in chat["messages"]:
        yield {**message, "_telegram_chat": info} if isinstance(message, dict) else message


def sniff(objects) -> str | None:
    """The format of the first posts among ``objects`` (``(number, object)`` pairs), or None.

    Reads at most 50 objects; returns the first format any of them has (never
    ``hackernews``, which ``import-dump`` reads).
    """
    seen = 0
    for _, obj in objects:
        if not isinstance(obj, dict):
            continue
        for post in expand(obj):
            kind = detect_kind(post) if isinstance(post, dict) else None
            if kind in JSON_FORMATS:
                return kind
            seen += 1
            if seen >= _SNIFF:
                return None
    return None


def converter(kind: str):
    """The function turning one post of format ``kind`` into a raw record."""
    return CONVERTERS[kind]


def expand_youtube(obj: dict):
    """A comment thread and the replies it carries, each as a post; any other object as itself."""
    yield obj
    if obj.get("kind") == "youtube#commentThread":
        video = (obj.get("snippet") or {}).get("videoId")
        for reply in (obj.get("replies") or {}).get("comments") or ():
            if isinstance(reply, dict):
                yield {**reply, "_videoId": video}


def posts(objects):
    """``(number, post or RowRejected)`` for every post of ``(number, object)`` pairs.

    A file of one post per line keeps its line numbers; posts inside a document (a page,
    an export, a thread with its replies) are numbered by their position among the
    file's posts (1, 2, ...).
    """
    count = 0
    for number, obj in objects:
        if not isinstance(obj, dict):
            count += 1
            yield number, obj
            continue
        items = [item for post in expand(obj)
                 for item in (expand_youtube(post) if isinstance(post, dict) else (post,))]
        many = len(items) != 1 or items[0] is not obj
        for item in items:
            count += 1
            yield (count if many else number), (item if isinstance(item, dict)
                                                else RowRejected("not a JSON object"))
