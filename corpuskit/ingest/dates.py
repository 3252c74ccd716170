"""How one import reads its dates: an explicit format or order, else one order for the whole file.

A slash date ``A/B/YYYY`` is month/day or day/month; a single value such as
``03/04/2020`` cannot say which. So an import decides once, for the file:

- ``date_format`` (``--date-format``, a ``strptime`` format) reads every string date by it;
- ``dayfirst=True`` (``--dayfirst``) or ``False`` (``--monthfirst``) fixes the order;
- otherwise the file's own dates decide: any first field above 12 (``13/04/2020``) means
  day-first, any second field above 12 (``04/13/2020``) means month-first. Both in one
  file is an error naming one row of each (nothing is imported). A file in which no slash
  date decides is read month-first, and the import report says so with a warning naming
  the column and an example row.

The importer reads a file once: until a row decides, an undecided slash date is read
month-first and its row is marked; when a later row decides day-first, the marked rows
are turned round in the staging table before anything is stored (see
:meth:`corpuskit.ingest.staging.Stage.swap_day_month`). Dates in other forms (ISO, epoch,
RFC 2822, Twitter's) never depend on the order.
"""
from __future__ import annotations

from corpuskit.clock import SLASH_DATE, iso, parse_timestamp, slash_iso, to_iso
from corpuskit.errors import ImportFormatError, ValidationError

#: bits of a row's guess mask: which of its dates were read month-first before the order was known
PUBLISHED, CAPTURED = 1, 2


class DateRules:
    """The date reader of one import; :meth:`parse` is its ``parse_date``.

    ``column`` names the date column in messages. After the import,
    :attr:`order` is ``"day-first"``, ``"month-first"`` or None (no slash dates),
    :attr:`decided_by` the ``(row, value)`` that decided it (None when it was
    given or guessed), and :meth:`warnings` the lines for the report.
    """

    def __init__(self, column: str = "publishedAt", date_format: str | None = None,
                 dayfirst: bool | None = None):
        _check_date_format(date_format)
        if dayfirst is not None and not isinstance(dayfirst, bool):
            raise ImportFormatError(f"dayfirst must be True, False or None, not {dayfirst!r}")
        self.column = column
        self.date_format = date_format
        self.dayfirst = dayfirst
        self.order = None if dayfirst is None else ("day-first" if dayfirst else "month-first")
        self._auto = date_format is None and dayfirst is None
        self.decided_by = None
        self.ambiguous = 0            # slash dates read before (or without) a deciding row
        self.example = None           # (row, value) of the first ambiguous date
        self.row = 0                  # set by the importer before each row
        self.guessed = 0              # mask of the current row's guessed dates
        self._field = PUBLISHED

    @property
    def automatic(self) -> bool:
        """Whether the order is inferred from the file (no format, no order given)."""
        return self.date_format is None and self.dayfirst is None

    def start(self, row: int) -> None:
        """Begin a row: its number names it in messages."""
        self.row = row
        self.guessed = 0
        self._field = PUBLISHED

    def parse(self, value) -> str:
        """``value`` as a stored timestamp, under this import's rules."""
        field, self._field = self._field, CAPTURED   # normalise parses publishedAt, then capturedAt
        if self.date_format is not None:
            return iso(parse_timestamp(value, date_format=self.date_format))
        if type(value) is not str or "/" not in value:
            return to_iso(value)
        match = SLASH_DATE.match(value.strip())
        if match is None:
            return to_iso(value)
        if not self._auto:
            return slash_iso(match, dayfirst=self.dayfirst)
        first, second = int(match.group(1)), int(match.group(2))
        if first > 12 and second <= 12:
            if self.order != "day-first":
                self._decide("day-first", value)
        elif second > 12 and first <= 12:
            if self.order != "month-first":
                self._decide("month-first", value)
        elif first <= 12 and second <= 12 and self.order is None:
            self.ambiguous += 1
            if self.example is None:
                self.example = (self.row, value)
            self.guessed |= field
        return slash_iso(match, dayfirst=self.order == "day-first")

    def _decide(self, order: str, value) -> None:
        if self.order is None:
            self.order, self.decided_by = order, (self.row, value)
        else:
            row, seen = self.decided_by
            raise ImportFormatError(
                f"column {self.column!r} mixes day-first and month-first dates: row {row} has "
                f"{seen!r} ({self.order}) and row {self.row} has {value!r} ({order}); nothing was "
                "imported. Fix the file, or read it with --date-format (date_format=)")

    def swap_needed(self) -> bool:
        """Whether rows guessed month-first must be turned round (the file turned out day-first)."""
        return self.automatic and self.order == "day-first" and self.ambiguous > 0

    def finish(self) -> None:
        """Settle the order at the end of the file: month-first when nothing decided."""
        if self.automatic and self.order is None and self.ambiguous:
            self.order = "month-first"

    def warnings(self) -> list[str]:
        """The report's warnings: an undecided file read month-first (empty otherwise)."""
        if not (self.automatic and self.ambiguous and self.decided_by is None):
            return []
        row, value = self.example
        return [f"dates in column {self.column!r} are ambiguous (no day or month above 12, "
                f"e.g. row {row}: {value!r}); read month-first. Pass --dayfirst "
                "(dayfirst=True) if they are day/month"]

    def note(self) -> str | None:
        """How the file's own dates decided the order (None when they did not, or it was given)."""
        if not (self.automatic and self.decided_by is not None):
            return None
        row, value = self.decided_by
        return f"slash dates in column {self.column!r} read {self.order} (row {row}: {value!r})"


def _check_date_format(date_format) -> None:
    """Raise ImportFormatError unless ``date_format`` is None or a format that reads what it writes."""
    if date_format is None:
        return
    if not isinstance(date_format, str) or "%" not in date_format:
        raise ImportFormatError(f"date_format must be a strptime format such as "
                                f"'%d/%m/%Y %H:%M', not {date_format!r}")
    try:
        sample = parse_timestamp("2001-02-03T04:05:06Z").strftime(date_format)
        parse_timestamp(sample, date_format=date_format)
    except (ValidationError, ValueError) as exc:
        raise ImportFormatError(f"date_format {date_format!r} is not a usable strptime "
                                f"format: {exc}") from None
