"""A tiny HTML builder that escapes by default.

Every value becomes text through :func:`escape` (``html.escape`` with quotes)
unless it is already :class:`Markup`, the one type that means "this is HTML".
:func:`element` builds a tag from escaped attributes and children, and
:func:`document` wraps a page in the shared shell (``lang``, viewport, title,
inline style, no script, no external asset).

>>> str(element("p", "<b>", class_="x"))
'<p class="x">&lt;b&gt;</p>'
"""
from __future__ import annotations

import base64
import hashlib
import html
import re

VOID_TAGS = frozenset({"br", "hr", "img", "input", "link", "meta", "wbr"})

STYLE = """
:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--muted:#57606a;--line:#d0d7de;--soft:#f6f8fa;
--link:#0550ae;--get:#116329}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#9198a1;--line:#3d444d;
--soft:#161b22;--link:#4493f8;--get:#3fb950}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0 auto;max-width:62rem;padding:1rem 1.25rem 3rem;font:16px/1.5 system-ui,-apple-system,
"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--link)}
h1{font-size:1.75rem;line-height:1.25;margin:.5rem 0 .25rem}
h2{font-size:1.35rem;margin:2rem 0 .5rem;padding-bottom:.25rem;border-bottom:1px solid var(--line)}
h3{font-size:1.15rem;margin:1.5rem 0 .5rem}
h4{font-size:1rem;margin:1.25rem 0 .25rem;overflow-wrap:anywhere}
p,ul,ol,dl{margin:.5rem 0}
.lede{color:var(--muted);margin-top:0}
code,pre{font:14px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
code{overflow-wrap:break-word}
pre{background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:.6rem .75rem;
overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}
.scroll{overflow-x:auto;margin:.5rem 0}
table{border-collapse:collapse;font-size:.95rem}
.wide table{width:100%}
caption{text-align:left;font-weight:600;padding:.25rem 0}
th,td{border:1px solid var(--line);padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:var(--soft)}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.figures{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.5rem;margin:.75rem 0;
padding:0;list-style:none}
.figures li{border:1px solid var(--line);border-radius:6px;padding:.4rem .6rem;background:var(--soft)}
.figures strong{display:block;font-size:1.3rem;font-variant-numeric:tabular-nums}
.figures span{color:var(--muted);font-size:.9rem}
h4.op{border-top:1px solid var(--line);padding-top:1rem;margin-top:2rem}
h3+h4.op{border-top:0;padding-top:0;margin-top:.75rem}
.method{display:inline-block;font-weight:700;color:var(--get);margin-right:.35rem}
.note{color:var(--muted);font-size:.95rem}
ul.inline{list-style:none;padding:0;margin:.25rem 0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
.toc{display:grid;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr));gap:0 2rem}
.toc h3{margin:.75rem 0 .25rem}
.toc p{margin:.25rem 0 .1rem;color:var(--muted);font-size:.9rem}
time span{white-space:nowrap}
@media (max-width:30rem){body{padding:.75rem .75rem 2rem}th,td{padding:.25rem .35rem}
table{font-size:.9rem}h1{font-size:1.5rem}pre,code{font-size:13px}}
footer{margin-top:2.5rem;color:var(--muted);font-size:.9rem;border-top:1px solid var(--line);padding-top:.5rem}
"""

#: The Content-Security-Policy of every page: its one inline style, nothing else.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; style-src 'sha256-"
    + base64.b64encode(hashlib.sha256(STYLE.encode("utf-8")).digest()).decode("ascii")
    + "'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


class Markup(str):
    """A string of HTML that is already escaped (never build one from outside input)."""

    __slots__ = ()


def escape(value) -> Markup:
    """``value`` as HTML text: ``Markup`` unchanged, anything else ``html.escape``-d (quotes too)."""
    if isinstance(value, Markup):
        return value
    return Markup(html.escape("" if value is None else str(value), quote=True))


def join(parts, sep: str = "") -> Markup:
    """Escaped parts joined (``None`` parts skipped, lists flattened)."""
    out = []
    for part in parts:
        if part is None:
            continue
        if isinstance(part, (list, tuple)):
            out.append(join(part))
        else:
            out.append(escape(part))
    return Markup(escape(sep).join(out))


def _attribute_name(name: str) -> str:
    name = name.rstrip("_").replace("_", "-")
    if not re.fullmatch(r"[a-z][a-z0-9-]*", name):
        raise ValueError(f"not an attribute name: {name!r}")
    return name


def element(tag: str, *children, **attrs) -> Markup:
    """``<tag attrs>children</tag>``: attribute values and children escaped unless Markup.

    ``class_=`` gives ``class``, ``aria_label=`` gives ``aria-label``; an
    attribute whose value is None or False is left out, True writes it bare.
    """
    if not re.fullmatch(r"[a-z][a-z0-9]*", tag):
        raise ValueError(f"not a tag name: {tag!r}")
    rendered = []
    for name, value in attrs.items():
        if value is None or value is False:
            continue
        name = _attribute_name(name)
        rendered.append(f" {name}" if value is True else f' {name}="{escape(value)}"')
    opening = f"<{tag}{''.join(rendered)}>"
    if tag in VOID_TAGS:
        if children:
            raise ValueError(f"<{tag}> takes no children")
        return Markup(opening)
    return Markup(f"{opening}{join(children)}</{tag}>")


def link(href: str, *children, **attrs) -> Markup:
    """``<a href=...>children</a>``."""
    return element("a", *children, href=href, **attrs)


def code(text) -> Markup:
    return element("code", text)


def inline_list(items, label: str | None = None) -> Markup:
    """A list laid out as one wrapping line (a row of links)."""
    return element("ul", [element("li", item) for item in items], class_="inline", aria_label=label)


def prose(text) -> Markup:
    """Plain text with ```code``` spans (as OpenAPI descriptions write them), escaped."""
    pieces = str(text or "").split("`")
    if len(pieces) % 2 == 0:  # an unmatched backtick: keep it as text
        return escape(text)
    return join(code(piece) if i % 2 else piece for i, piece in enumerate(pieces))


def table(headers, rows, caption=None, numeric=(), wide=False) -> Markup:
    """A table in a horizontally scrolling, keyboard-focusable box.

    ``headers`` are column titles; ``rows`` lists of cells (text or Markup);
    ``numeric`` the column indexes to right-align; ``wide`` stretches it to the
    page width (for tables with prose in them).
    """
    head = element("tr", [element("th", h, scope="col", class_="num" if i in numeric else None)
                          for i, h in enumerate(headers)])
    body = [element("tr", [element("td", cell, class_="num" if i in numeric else None)
                           for i, cell in enumerate(row)]) for row in rows]
    label = caption if isinstance(caption, str) else ", ".join(str(h) for h in headers)
    return element("div", element("table", element("caption", caption) if caption else None,
                                  element("thead", head), element("tbody", body)),
                   class_="scroll wide" if wide else "scroll", role="region", tabindex="0", aria_label=label)


def fmt_int(n) -> str:
    """``20000`` -> ``20,000``; None -> an en dash."""
    return "\u2013" if n is None else f"{int(n):,}"


def document(title: str, body, lang: str = "en", description: str | None = None) -> bytes:
    """A whole page as UTF-8 bytes: doctype, ``<html lang>``, head with title and style, body."""
    head = element("head",
                   element("meta", charset="utf-8"),
                   element("meta", name="viewport", content="width=device-width, initial-scale=1"),
                   element("meta", name="description", content=description) if description else None,
                   element("meta", name="color-scheme", content="light dark"),
                   element("title", title),
                   element("style", Markup(STYLE)))
    page = Markup("<!DOCTYPE html>\n") + element("html", head, element("body", body), lang=lang)
    return (page + "\n").encode("utf-8")
