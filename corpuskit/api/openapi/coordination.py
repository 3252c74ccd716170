"""The OpenAPI parts of the coordination extension, shared by both documents: the group schema (with
each interface's record id) and the parameters, built from :mod:`corpuskit.api.coordination`."""
from __future__ import annotations

from corpuskit.api import coordination as c
from corpuskit.api.openapi.building import (array, boolean, enum, integer, number, obj, query, string,
                                            timestamp, timestamp_param)
from corpuskit.networks.shares import BY
from corpuskit.query import MAX_QUERY_LENGTH


def group_schema(record_id: dict) -> dict:
    """One coordinated group; ``record_id`` is the interface's record id schema."""
    member = obj({"account": string(), "records": integer(1), "shared": integer(1), "first": timestamp(),
                  "last": timestamp()})
    item = obj({"item": string(description="the shared text, URL or hashtag set, as compared"),
                "first": timestamp(description="its first post by a member"),
                "accounts": integer(2, description="members who posted it"),
                "records": array(record_id, description="the members' posts of it, ascending")})
    return obj({"group": integer(1, description="1 is the largest group"), "accounts": integer(2),
                "records": integer(1, description="the members' coordinated posts"),
                "first": timestamp(), "last": timestamp(), "members": array(member, description="by account"),
                "itemCount": integer(1), "items": array(item, description="the first shared items by first post")})


def settings_schema() -> dict:
    """The run's settings, as :func:`corpuskit.networks.coordination_summary` states them."""
    return obj({"by": enum(BY), "window": integer(0, description="seconds"), "windowEstimated": boolean(),
                "minRepeats": integer(1), "nNull": integer(1), "alpha": number(), "seed": integer(0),
                "pairsTested": integer(), "significantPairs": integer()})


def parameters() -> list:
    """``by, window, min_repeats, items, since, until, query`` (paging is each interface's)."""
    d = c.DESCRIPTIONS
    return [query("by", enum(BY), d["by"]),
            query("window", integer(1, maximum=c.WINDOW_MAX), d["window"]),
            query("min_repeats", integer(1, default=c.REPEATS[0], maximum=c.REPEATS[1]), d["min_repeats"]),
            query("items", integer(1, default=c.ITEMS[0], maximum=c.ITEMS[1]), d["items"]),
            query("since", timestamp_param(), d["since"]), query("until", timestamp_param(), d["until"]),
            query("query", string(maxLength=MAX_QUERY_LENGTH), d["query"])]


DESCRIPTION = ("Extension (not in the original specs): accounts that post the same text, URL or hashtag set "
               "within a short window more often than a null that shuffles each account's own posting times "
               "allows (Benjamini-Hochberg over the pairs tested); groups are the connected components of the "
               "significant pairs. Computed on the first request and kept until the data change. docs/api.md, "
               "\"Coordination\".")
