"""Every record's id and publication second, held in memory while an explorer is open.

Typing a query selects its ids from the full-text index alone (tens of milliseconds at a million
records); their publication times, for the chart and the pages of records, would take one index
lookup per match. :class:`RecordTimes` reads every record's id and second once, in id order, and
answers a selection's times by binary search over those two arrays.

Records are only ever added (no stage deletes or re-dates one; :mod:`corpuskit.query.remembered`
relies on the same), so after any write to the corpus the records above the newest id held are read
and appended; a newest id below the one held, or the newest held with another time (removed, and its
id given to a record added since), reads everything again. A record removed below the newest stays
in the arrays, where no selection asks for it.

A timestamp not of the stored form ``YYYY-MM-DDTHH:MM:SSZ`` is held as :data:`NOT_A_SECOND`, and a
selection holding one gets no times (the explorer then asks the database, as before).
"""
from __future__ import annotations

import numpy as np

#: The second held for a timestamp not of the stored form.
NOT_A_SECOND = np.iinfo(np.int64).min
#: Ids read per statement (the busy line's progress steps).
CHUNK = 200_000
_STAMP = 20
# a stored stamp and the comma after it: digits but at these places, where these marks are
_DIGITS = np.array([0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18])
_MARKS = np.array([4, 7, 10, 13, 16, 19, 20])
_MARK_BYTES = np.frombuffer(b"--T::Z,", dtype=np.uint8)
# the days of each month (index 1 to 12), February's 29th checked against the year apart
_MONTH_DAYS = np.array([0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], dtype=np.uint8)
# the pairs of a range of ids as two texts (one row, not a row per record), read in id order from the
# id index of migration 0018 (the order is checked); a comma follows each stamp but the last, so
# 21 characters a stamp, each of the stored form, prove every stamp is 20 characters
_CHUNK_SQL = ("SELECT group_concat(id, ','), group_concat(published_at, ','), count(*) "
              "FROM records INDEXED BY records_id_published WHERE id > ? AND id <= ?")


class RecordTimes:
    """``ids`` (ascending) and ``seconds`` (the Unix second each record was published) of every record
    of the corpus on ``conn``, read on first use (:meth:`refresh`) and kept up to date."""

    def __init__(self, conn):
        self.conn = conn
        self.ids = np.zeros(0, dtype=np.int64)
        self.seconds = np.zeros(0, dtype=np.int64)
        self._seen = None     # (PRAGMA data_version, this connection's changes) when last brought up to date

    def refresh(self, progress=None) -> None:
        """Read the records added since the last call (every record on the first); ``progress`` is
        called with the records read and the records to read while more than one chunk is read."""
        seen = (self.conn.execute("PRAGMA data_version").fetchone()[0], self.conn.total_changes)
        if seen == self._seen:
            return
        newest = self.conn.execute("SELECT max(id) FROM records").fetchone()[0]
        held = int(self.ids[-1]) if len(self.ids) else None
        if held is not None and (newest is None or newest < held or self._given_again(held)):
            self.ids, self.seconds, held = self.ids[:0], self.seconds[:0], None
        if newest is not None and (held is None or newest > held):
            self._read_above(-1 if held is None else held, newest, progress)
        self._seen = seen

    def _given_again(self, held: int) -> bool:
        """Whether the newest record held was removed and its id given to a record added since (its
        time then differs)."""
        row = self.conn.execute("SELECT published_at FROM records WHERE id = ?", (held,)).fetchone()
        return row is None or _second(row[0]) != self.seconds[-1]

    def _read_above(self, last: int, newest: int, progress) -> None:
        total = self.conn.execute("SELECT count(*) FROM records WHERE id > ?", (last,)).fetchone()[0] \
            if progress is not None else 0
        ids, seconds, done = [self.ids], [self.seconds], 0
        while last < newest:
            top = last + CHUNK
            id_text, stamp_text, n = self.conn.execute(_CHUNK_SQL, (last, top)).fetchone()
            if n:
                pair = _parse(id_text, stamp_text, n) or self._one_by_one(last, top)
                ids.append(pair[0])
                seconds.append(pair[1])
                done += n
                if total > CHUNK:
                    progress(done, total)
                last = top
            else:     # a gap in the ids: on to the next record
                last = self.conn.execute("SELECT min(id) - 1 FROM records WHERE id > ?", (last,)).fetchone()[0]
                if last is None:
                    break
        ids, seconds = np.concatenate(ids), np.concatenate(seconds)
        if len(ids) > 1 and not (ids[1:] > ids[:-1]).all():     # an aggregate's order is not promised
            order = np.argsort(ids, kind="stable")
            ids, seconds = ids[order], seconds[order]
        self.ids, self.seconds = ids, seconds

    def _one_by_one(self, last: int, top: int) -> tuple[np.ndarray, np.ndarray]:
        """A chunk holding a timestamp not of the stored form, read a row at a time."""
        rows = self.conn.execute("SELECT id, published_at FROM records WHERE id > ? AND id <= ? ORDER BY id",
                                 (last, top)).fetchall()
        ids = np.array([r[0] for r in rows], dtype=np.int64)
        return ids, np.array([_second(r[1]) for r in rows], dtype=np.int64)

    def seconds_of(self, ids: np.ndarray) -> np.ndarray | None:
        """The second each record of ``ids`` (ascending) was published, after :meth:`refresh`; None
        when one is not held (removed meanwhile) or its timestamp is not of the stored form."""
        self.refresh()
        at = np.searchsorted(self.ids, ids)
        if len(ids) and (at[-1] >= len(self.ids) or not (self.ids[at] == ids).all()):
            return None
        seconds = self.seconds[at]
        if (seconds == NOT_A_SECOND).any():
            return None
        return seconds


def _parse(id_text: str, stamp_text: str, n: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The ids and seconds of ``n`` records given as comma-joined texts; None when a timestamp is
    not of the stored form (then the chunk is read a row at a time)."""
    ids = np.fromstring(id_text, dtype=np.int64, sep=",")
    try:
        raw = stamp_text.encode("ascii")
    except UnicodeEncodeError:
        return None
    if len(ids) != n or len(raw) != (_STAMP + 1) * n - 1:
        return None
    block = np.frombuffer(raw + b",", dtype=np.uint8).reshape(n, _STAMP + 1)
    if not (block[:, _MARKS] == _MARK_BYTES).all():
        return None
    digit = block[:, :_STAMP - 1] - np.uint8(ord("0"))     # a byte below "0" wraps above 9
    if not (digit[:, _DIGITS] <= 9).all():
        return None
    month, day, hour, minute, second = (digit[:, at] * np.uint8(10) + digit[:, at + 1] for at in (5, 8, 11, 14, 17))
    if not ((month >= 1) & (month <= 12) & (day >= 1) & (day <= _MONTH_DAYS[np.minimum(month, 12)])
            & (hour < 24) & (minute < 60) & (second < 60)).all():
        return None
    year = (digit[:, 0].astype(np.int64) * 1000 + digit[:, 1].astype(np.int64) * 100
            + digit[:, 2].astype(np.int64) * 10 + digit[:, 3])
    leap_day = (month == 2) & (day == 29)
    if leap_day.any():
        y = year[leap_day]
        if not ((y % 4 == 0) & ((y % 100 != 0) | (y % 400 == 0))).all():
            return None
    month, day = month.astype(np.int64), day.astype(np.int64)
    return ids, (_days(year, month, day) * 86400 + hour.astype(np.int64) * 3600 + minute.astype(np.int64) * 60
                 + second.astype(np.int64))


def _days(year: np.ndarray, month: np.ndarray, day: np.ndarray) -> np.ndarray:
    """Days since 1970-01-01 of real dates of the proleptic Gregorian calendar (numpy's)."""
    y = year - (month <= 2)
    era = y // 400
    of_era = y - era * 400
    of_year = (153 * (month + np.where(month > 2, -3, 9)) + 2) // 5 + day - 1
    of_cycle = of_era * 365 + of_era // 4 - of_era // 100 + of_year
    return era * 146097 + of_cycle - 719468


def _second(stamp) -> int:
    """The Unix second of one stored timestamp, :data:`NOT_A_SECOND` when it is not of the stored form."""
    if not isinstance(stamp, str) or len(stamp) != _STAMP or stamp[-1] != "Z":
        return NOT_A_SECOND
    try:
        return int(np.datetime64(stamp[:-1], "s").astype(np.int64))
    except ValueError:     # not a second of the calendar ("2016-02-30T00:00:00Z")
        return NOT_A_SECOND
