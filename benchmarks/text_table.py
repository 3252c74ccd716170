"""A plain-text table for the benchmark scripts' output."""
from __future__ import annotations


def table(rows, header) -> str:
    """Rows under a header, columns padded to their widest cell, a dashed rule under the header."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = lambda r: "  ".join(str(x).ljust(w) for x, w in zip(r, widths))  # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])
