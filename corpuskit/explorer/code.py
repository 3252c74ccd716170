"""The Python that reproduces an explorer view: the public calls the panes made, in order."""
from __future__ import annotations


def _call(name: str, q: str, since, until) -> str:
    bounds = "".join(f", {k}={v!r}" for k, v in (("since", since), ("until", until)) if v)
    return f"{name} = corpus.query({q!r}{bounds})"


def view_code(state) -> str:
    """The code of ``state``'s view (a :class:`~corpuskit.explorer.state.ExplorerState`): the chart's
    ``over_time`` per query, then the selection's counts, records page, KWIC and keyness, and its
    signals and stories. It runs where ``corpus`` is the explored corpus and prints the counts."""
    lines = ["# the explorer's view; `corpus` is the explored corpus (corpuskit.open_corpus(its file))"]
    since, until = state.range()
    used = [w for w in ("a", "b") if state.composed(w)]
    for which in used:
        lines.append(_call(f"{which}_all", state.composed(which), state.filters.since, state.filters.until))
        lines.append(f"attention_{which} = {which}_all.over_time(freq={state.freq!r}, since={since!r}, until={until!r})")
    if not used:
        lines.append("# no query: type one in box A")
        return "\n".join(lines) + "\n"
    sel_since, sel_until = state.bounds()
    lines.append(f"# the selection: {state.selection_label()}")
    for which in used:
        lines.append(_call(which, state.composed(which), sel_since, sel_until))
    lines.append("print({" + ", ".join(f"{w!r}: len({w}.ids())" for w in used) + "})")
    focus = state.focus if state.focus in used else used[0]
    lines.append(f"records = {focus}.records(limit={state.page_size}, offset={state.page * state.page_size})")
    if state.term:
        lines.append(f"lines = {focus}.kwic({state.term!r}, limit=50)")
    other = "b" if focus == "a" else "a"
    if state.against == "other" and other in used:
        lines.append(f"key_terms = {focus}.compare({other}, n=20)")
    else:
        lines.append(f"key_terms = {focus}.terms(n=20)")
    lines.append(f"signals = corpus.signals(since={sel_since!r}, until={sel_until!r})")
    lines.append("stories = corpus.stories()")
    stamp = 'stories["publishAt"].dt.strftime("%Y-%m-%dT%H:%M:%SZ")'
    for op, bound in ((">=", sel_since), ("<=", sel_until)):
        if bound:
            lines.append(f"stories = stories[{stamp} {op} {bound!r}]")
    if state.filters.topics:
        lines.append(f"signals = signals[signals['topic'].isin({list(state.filters.topics)!r})]")
        lines.append(f"stories = stories[stories['topic'].isin({list(state.filters.topics)!r})]")
    return "\n".join(lines) + "\n"
