"""HTML of the explorer's panes, from the frames :class:`~corpuskit.explorer.state.ExplorerState` answers.

Every value is escaped; a record's link is an anchor to its own URL.
"""
from __future__ import annotations

import html

import pandas as pd


def error_html(message: str | None) -> str:
    """A query's syntax error with its caret line, monospaced ('' when the query parses)."""
    if not message:
        return ""
    return f'<pre class="ck-error" style="color:#b00020;margin:0">{html.escape(message)}</pre>'


def busy_html(what: str, done: int | None = None, total: int | None = None) -> str:
    """The busy indicator while ``what`` is computed; with ``done`` of ``total`` records read, a
    progress bar and the two counts."""
    if done is None or not total:
        return f'<span class="ck-busy">⏳ {html.escape(what)}…</span>'
    return (f'<span class="ck-busy">⏳ {html.escape(what)}: <progress class="ck-progress" value="{done}" '
            f'max="{total}"></progress> {done:,} of {total:,} records…</span>')


def _cell(value) -> str:
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return ""
    if isinstance(value, pd.Timestamp):
        return value.strftime("%Y-%m-%d %H:%M")
    if isinstance(value, float):
        return f"{value:.4g}"
    return html.escape(str(value))


def table_html(frame: pd.DataFrame, css: str, empty: str, max_chars: int = 240) -> str:
    """``frame`` as an HTML table (class ``css``); ``empty`` is shown for a frame without rows. A
    ``url`` column becomes links; long texts are cut at ``max_chars``."""
    if frame is None or not len(frame):
        return f'<div class="{css} ck-empty"><i>{html.escape(empty)}</i></div>'
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    rows = []
    for record in frame.itertuples(index=False):
        cells = []
        for col, value in zip(frame.columns, record):
            if col == "url" and isinstance(value, str) and value:
                cells.append(f'<a href="{html.escape(value)}" target="_blank" rel="noopener">link</a>')
                continue
            text = _cell(value)
            if isinstance(value, str) and len(value) > max_chars:
                text = html.escape(value[:max_chars]) + "…"
            cells.append(text)
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return (f'<table class="{css}" style="font-size:12px;border-collapse:collapse">'
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")


def kwic_html(frame: pd.DataFrame, term: str) -> str:
    """KWIC lines, the match bold between its left and right context."""
    if not term:
        return '<div class="ck-kwic ck-empty"><i>type a term to see its lines</i></div>'
    if not len(frame):
        return f'<div class="ck-kwic ck-empty"><i>no line holds {html.escape(term)!s}</i></div>'
    rows = "".join(
        f'<tr><td style="text-align:right">{html.escape(r.left)}</td><td><b>{html.escape(r.match)}</b></td>'
        f"<td>{html.escape(r.right)}</td><td>{_cell(r.publishedAt)}</td><td>{r.recordId}</td></tr>"
        for r in frame.itertuples(index=False))
    return f'<table class="ck-kwic" style="font-size:12px">{rows}</table>'


def status_html(state, counts: dict) -> str:
    """The line above the panes: each query's records in the selection, and which selection."""
    parts = [f'<b>{w.upper()}</b>: <span class="ck-count-{w}">{counts[w]}</span> records' for w in ("a", "b") if w in counts]
    if not parts:
        parts = ["type a query in box A"]
    return (f'<div class="ck-status">{" · ".join(parts)} in <span class="ck-selection">'
            f"{html.escape(state.selection_label())}</span></div>")
