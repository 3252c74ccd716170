"""The coordinated groups on both interfaces (an extension: ``/api/v1/coordination``, ``/v1/coordination``).

:func:`coordination_groups` validates the parameters both share, runs
:func:`corpuskit.networks.coordination` once per setting and data version and summarises its groups as
:func:`corpuskit.networks.coordination_summary` does; each interface pages and names record ids its own way.
The bounds below are read by the OpenAPI builders.
"""
from __future__ import annotations

import bottle

from corpuskit.api import params
from corpuskit.api.response_cache import cached_page
from corpuskit.networks.shares import BY

#: The co-share window in seconds (at most a day; absent: estimated from the corpus).
WINDOW_MAX = 86400
#: The fewest distinct items two accounts must co-share to be tested (default, maximum).
REPEATS = (2, 100)
#: The shared items listed per group (default, maximum).
ITEMS = (10, 100)
#: The parameters, as the OpenAPI documents describe them.
DESCRIPTIONS = {
    "by": "What two accounts share: the normalised text (default), a URL or the set of hashtags.",
    "window": f"Co-share window in seconds, 1..{WINDOW_MAX} (larger is clamped); absent: estimated from "
              "the corpus (CooRnet's quantile of the time to an item's median share).",
    "min_repeats": f"Fewest distinct items two accounts must co-share, default {REPEATS[0]}; above "
                   f"{REPEATS[1]} is clamped.",
    "items": f"Shared items listed per group (earliest first), default {ITEMS[0]}; above {ITEMS[1]} is clamped.",
    "since": "ISO 8601 timestamp or date: only records published from then (inclusive).",
    "until": "ISO 8601 timestamp or date: only records published until then (inclusive; a bare date covers "
             "its whole day).",
    "query": "A query-language string: only the records it matches (400 on bad syntax, naming the position).",
}


def coordination_groups(corpus, limit: int, offset: int, record_id) -> dict:
    """``{groups, total, settings}`` for the request's parameters (400 on a bad one), the groups
    ``offset .. offset + limit``, each record id written by ``record_id``. The groups are computed
    once per setting and data version; pages and item counts are cut from them."""
    from corpuskit.networks import coordination
    from corpuskit.networks.summary import summarise_groups

    since, until = params.time_range("since", "until")
    setting = dict(by=params.enum_param("by", BY, default="text"),
                   window=params.int_param("window", None, minimum=1, maximum=WINDOW_MAX),
                   min_repeats=params.int_param("min_repeats", REPEATS[0], minimum=1, maximum=REPEATS[1]),
                   since=since, until=until)
    query = params.query_param("query")
    items = params.int_param("items", ITEMS[0], minimum=1, maximum=ITEMS[1])   # every 400 before the run
    key = ("coordination", tuple(sorted(setting.items())), bottle.request.query.get("query"))
    found = cached_page(corpus.conn, key, lambda: coordination(corpus.conn, query=query, **setting))
    summary = summarise_groups(corpus.conn, found, limit=limit, offset=offset, items=items)
    for group in summary["groups"]:
        for item in group["items"]:
            item["records"] = [record_id(r) for r in item["records"]]
    return summary
