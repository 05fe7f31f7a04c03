"""A date or amount written so that no search can use it ("2024-13-01", "Q5", "$12.345"): why,
where, and the phrase probably meant, as messages the composer words in the asker's language."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from elastic.model.plan import Message


@dataclass(frozen=True)
class Problem:
    """Why a phrase cannot be used (``key`` of the answer templates' messages and its fields;
    the phrase itself is filled in as the user wrote it), where it sits in the normalised
    question, and the phrase probably meant when that is obvious: a day (``fix_has_year``
    says whether it is written with its year) or words."""

    key: str
    span: tuple[int, int]
    fields: dict[str, str | int | date | Message] = field(default_factory=dict)
    fix: date | str | None = None
    fix_has_year: bool = True

    def message(self, written: str) -> Message:
        """What is wrong, quoting the phrase as ``written``."""
        return Message(key=self.key, fields={"phrase": written, **self.fields})

    def suggestion(self, question: str, written: str) -> Message | None:
        """``question`` with the phrase ``written`` put right, when the fix is obvious."""
        if self.fix is None or written not in question:
            return None
        before, _, after = question.partition(written)
        key = "ask_corrected"
        if isinstance(self.fix, date):
            key = "ask_corrected_day" if self.fix_has_year else "ask_corrected_day_any_year"
        return Message(key=key, fields={"before": before, "fix": self.fix, "after": after})
