"""The user's files as people know them: by the name they had and the month they cover.

A kept statement PDF is stored as ``<storage key>/<digest>.pdf`` (``elastic/statement_store.py``)
and its documents remember the name it was imported with (``file_name``); an export's rows are
stored under its name. Every surface (chat citations, tables, Sources, ``finsync forget``, the
JSON API) shows ``SourceFile.name`` or ``label`` and accepts them back, never the stored path.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date

from elastic.backend import SearchBackend
from elastic.model.results import StatementInfo
from llm.answering.wording import Wording, account_label, wording

STATEMENT, EXPORT = "statement", "export"


@dataclass(frozen=True)
class SourceFile:
    """One file the user's data came from."""

    key: str  # ``source_file`` as stored: what the backend forgets by
    name: str  # its name, made unique among the user's files when two share one
    kind: str  # STATEMENT (a kept PDF) or EXPORT
    period: str  # the month (or months) its data covers, worded
    first: date | None
    last: date | None
    rows: int  # transactions that came from it
    pages: int  # statement pages (0 for an export)
    statements: tuple[StatementInfo, ...] = ()

    @property
    def label(self) -> str:
        """The name and, for a statement, its month: ``march.pdf · March 2025``."""
        if self.kind != STATEMENT or self.period in self.name:
            return self.name
        return f"{self.name} · {self.period}"

    def answers_to(self, given: str) -> bool:
        """Whether ``given`` names this file: as shown, with its month, or as stored."""
        return given in (self.name, self.label, self.key)


def _statement_name(info: StatementInfo) -> str:
    """The name a statement's PDF had; for one stored before names were kept, what it is."""
    if info.file_name:
        return info.file_name
    return f"{info.bank_name} {account_label(info.account_name, info.account_no)}".strip()


def _months(w: Wording, first: date, last: date) -> str:
    if (first.year, first.month) == (last.year, last.month):
        return w.month_label(first)
    return w.text("period.range", start=w.month_label(first), end=w.month_label(last))


def _unique(files: list[SourceFile], w: Wording) -> list[SourceFile]:
    """Names two files share get the period, then the account, then the stored name's digest,
    until each is one file's."""
    steps = (
        lambda f: f.period,
        lambda f: ", ".join(
            dict.fromkeys(account_label(s.account_name, s.account_no) for s in f.statements)
        ),
        lambda f: f.key.rsplit("/", 1)[-1].removesuffix(".pdf")[:8],
    )
    for step in steps:
        by_name: dict[str, list[int]] = defaultdict(list)
        for index, file in enumerate(files):
            by_name[file.name].append(index)
        clashes = [indexes for indexes in by_name.values() if len(indexes) > 1]
        if not clashes:
            break
        for indexes in clashes:
            for index in indexes:
                file = files[index]
                extra = step(file)
                if not extra:
                    continue
                base, _, given = file.name.partition(" (")
                more = f"{given.removesuffix(')')}, {extra}" if given else extra
                files[index] = replace(file, name=f"{base} ({more})")
    return files


def list_sources(backend: SearchBackend, user_id: str, language: str = "en") -> list[SourceFile]:
    """The user's files by name, then by the period they cover."""
    w = wording(language)
    stats = backend.file_stats(user_id)
    statements: dict[str, list[StatementInfo]] = defaultdict(list)
    for info in backend.statements(user_id):
        statements[info.source_file].append(info)
    files = []
    for key in sorted({*backend.source_files(user_id), *statements}):
        infos = sorted(statements.get(key, []), key=lambda s: s.statement_from)
        rows = stats.get(key)
        if infos:
            first, last = infos[0].statement_from, infos[-1].statement_to
            period = w.period_name(first, last)
            files.append(
                SourceFile(
                    key,
                    _statement_name(infos[0]),
                    STATEMENT,
                    period,
                    first,
                    last,
                    rows.rows if rows else 0,
                    sum(s.pages for s in infos),
                    tuple(infos),
                )
            )
        elif rows is not None:
            period = _months(w, rows.first_month, rows.last_month)
            files.append(
                SourceFile(
                    key, key, EXPORT, period, rows.first_month, rows.last_month, rows.rows, 0
                )
            )
        else:
            files.append(SourceFile(key, key, EXPORT, "", None, None, 0, 0))
    files = _unique(files, w)
    return sorted(
        files, key=lambda f: (f.name.partition(" (")[0].casefold(), f.first or date.min, f.name)
    )


def source_labels(files: Iterable[SourceFile]) -> dict[str, str]:
    """Stored ``source_file`` → its label, for whatever shows where a row came from."""
    return {file.key: file.label for file in files}


def resolve(files: Sequence[SourceFile], given: Iterable[str]) -> tuple[list[str], list[str]]:
    """The stored names of the files ``given`` names (as shown, with their month, or as
    stored), and the names that are none of them, as given."""
    keys: list[str] = []
    unknown: list[str] = []
    for name in dict.fromkeys(given):
        found = [file.key for file in files if file.answers_to(name)]
        if found:
            keys.extend(key for key in found if key not in keys)
        else:
            unknown.append(name)
    return keys, unknown
