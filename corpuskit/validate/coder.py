"""A notebook coder: one record at a time, a button per codebook value, saved as you click.

``Coder(corpus, sample, coder)`` (or ``corpus.coder(sample, coder)``) shows the
record at the current position of the sample, with, for each codebook
variable, a row of buttons (one per value; the value already given is marked),
a note box, and back / skip buttons. A click stores the code at once
(replacing this coder's earlier value for that record and variable); when
every variable of the record is coded the coder moves on to the next record
this coder has not finished. Opening a coder again resumes at the first such
record. The note is saved with each click and when leaving a record.

Needs ``ipywidgets`` (``pip install 'corpuskit[notebooks]'``).
"""
from __future__ import annotations

from corpuskit.errors import MissingDependencyError, ValidationError
from corpuskit.query.coding import sample_members, sample_row
from corpuskit.validate.codebook import load_codebook
from corpuskit.validate.codes import add_codes
from corpuskit.validate.samples import sample_codebook, set_codebook


def _widgets():
    try:
        import ipywidgets
    except ImportError:
        raise MissingDependencyError("the notebook coder needs ipywidgets: "
                                     "pip install 'corpuskit[notebooks]'") from None
    return ipywidgets


class Coder:
    """The coding widget for ``coder`` on ``sample`` (see the module docstring).

    ``codebook`` (path, mapping or Codebook) is stored with the sample when
    given; otherwise the sample's own is used. ``widget`` is the ipywidgets box
    to display; ``buttons[variable][value]``, ``note``, ``back_button`` and
    ``skip_button`` are its parts, and ``position`` the index of the record shown.
    """

    def __init__(self, corpus, sample: str, coder: str, codebook=None):
        if not isinstance(coder, str) or not coder.strip():
            raise ValidationError(f"coder must be a non-empty name, not {coder!r}")
        widgets = _widgets()
        self.corpus, self.sample, self.coder = corpus, sample, coder.strip()
        self._sample_id = sample_row(corpus.conn, sample)["id"]
        if codebook is not None:
            self.codebook = set_codebook(corpus, sample, load_codebook(codebook))
        else:
            self.codebook = sample_codebook(corpus, sample)
            if self.codebook is None:
                raise ValidationError(f"sample {sample!r} has no codebook; pass codebook=")
        self.members = sample_members(corpus.conn, self._sample_id)
        self.header = widgets.HTML()
        self.text = widgets.HTML()
        self.buttons: dict = {}
        rows = []
        for variable in self.codebook.variables.values():
            self.buttons[variable.name] = {}
            row = []
            for value in variable.values:
                button = widgets.Button(description=value, tooltip=f"{variable.name} = {value}")
                button.on_click(lambda _b, n=variable.name, v=value: self.choose(n, v))
                self.buttons[variable.name][value] = button
                row.append(button)
            rows.append(widgets.HBox([widgets.Label(variable.name), *row]))
        self.note = widgets.Textarea(placeholder="note (optional)")
        self.back_button = widgets.Button(description="back")
        self.skip_button = widgets.Button(description="skip")
        self.back_button.on_click(lambda _b: self.go(self.position - 1))
        self.skip_button.on_click(lambda _b: self.go(self.position + 1))
        self.status = widgets.Label()
        self.widget = widgets.VBox([self.header, self.text, *rows, self.note,
                                    widgets.HBox([self.back_button, self.skip_button]), self.status])
        self.position = 0
        self._show(self.first_uncoded())

    # -- state ---------------------------------------------------------------
    def given(self, record_id: int) -> dict:
        """This coder's values for ``record_id``: ``{variable: (value, note)}``."""
        return {r[0]: (r[1], r[2]) for r in self.corpus.conn.execute(
            "SELECT variable, value, note FROM codes WHERE sample_id = ? AND record_id = ? AND coder = ?",
            (self._sample_id, record_id, self.coder))}

    def _done(self, record_id: int) -> bool:
        return set(self.codebook.variables) <= set(self.given(record_id))

    def first_uncoded(self, start: int = 0) -> int:
        """The first position from ``start`` whose record this coder has not finished (len when none)."""
        for i in range(start, len(self.members)):
            if not self._done(self.members[i][1]):
                return i
        return len(self.members)

    @property
    def record_id(self) -> int | None:
        """The id of the record shown (None past the last one)."""
        return self.members[self.position][1] if self.position < len(self.members) else None

    # -- actions -------------------------------------------------------------
    def choose(self, variable: str, value: str) -> None:
        """Store ``variable = value`` for the record shown (what a value button does)."""
        if self.record_id is None:
            return
        add_codes(self.corpus, self.sample, self.coder,
                  [(self.position + 1, self.record_id, variable, value, self.note.value)], replace=True)
        if self._done(self.record_id):
            nxt = self.first_uncoded(self.position + 1)
            self._show(nxt)
        else:
            self._show(self.position)

    def go(self, position: int) -> None:
        """Save the note and show the record at ``position`` (clamped to the sample)."""
        self._save_note()
        self._show(max(0, min(int(position), len(self.members))))

    def _save_note(self) -> None:
        if self.record_id is None:
            return
        with self.corpus.transaction():
            self.corpus.conn.execute(
                "UPDATE codes SET note = ? WHERE sample_id = ? AND record_id = ? AND coder = ?",
                (self.note.value, self._sample_id, self.record_id, self.coder))

    def _show(self, position: int) -> None:
        import html

        self.position = position
        done = sum(self._done(m[1]) for m in self.members)
        self.status.value = f"{self.coder}: {done} of {len(self.members)} records coded"
        if self.record_id is None:
            self.header.value = f"<b>{self.sample}</b>: end of the sample"
            self.text.value = ""
            self.note.value = ""
            given = {}
        else:
            _, rid, stratum, title, text = self.members[position]
            extra = f" · stratum {html.escape(str(stratum))}" if stratum is not None else ""
            self.header.value = (f"<b>{html.escape(self.sample)}</b>: record {position + 1} of "
                                 f"{len(self.members)} (id {rid}){extra}")
            body = html.escape(text) if not title or title == text else \
                f"<b>{html.escape(title)}</b><br>{html.escape(text)}"
            self.text.value = f"<div style='white-space: pre-wrap'>{body}</div>"
            given = self.given(rid)
            self.note.value = next((note for _, note in given.values() if note), "")
        for variable, buttons in self.buttons.items():
            chosen = given.get(variable, (None, ""))[0]
            for value, button in buttons.items():
                button.button_style = "success" if value == chosen else ""
