"""An answer as text to paste elsewhere: its sentences without markup, its numbers as
tab-separated rows (a spreadsheet splits them into cells), and its sources."""

from __future__ import annotations

import re

from elastic.model.plan import Metric
from elastic.model.results import TrendResult
from llm.answering.answer import Answer, Note, Prose, Table
from llm.answering.wording import wording

_EMPHASIS = re.compile(r"\*\*|__|(?<!\w)_(?=\S)|(?<=\S)_(?!\w)")
_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!$|])")


def _plain(markdown: str) -> str:
    return _ESCAPED.sub(r"\1", _EMPHASIS.sub("", markdown))


def _rows(header: list[str], rows: list[list[str]]) -> str:
    return "\n".join("\t".join(cells) for cells in [header, *rows])


def _trend_rows(answer: Answer) -> list[str]:
    """A trend's buckets (per currency, per line when split): the numbers its chart draws."""
    result = answer.result
    if not isinstance(result, TrendResult):
        return []
    w = wording(answer.language)
    blocks = []
    for part in result.by_currency or [result]:
        lines = sorted(part.splits.items()) if part.splits else [("", part.series)]
        for name, buckets in lines:
            rows = []
            for bucket in buckets:
                value = bucket.shown(answer.plan.metric)
                shown = (
                    w.number(int(value))
                    if answer.plan.metric is Metric.count and value is not None
                    else w.money(value, part.currency)
                )
                label = w.bucket_label(bucket.period, part.interval.value)
                rows.append([label, shown, w.number(bucket.count)])
            header = [
                w.text("chart_tools.period"),
                f"{name} ({part.currency})" if name else part.currency,
                w.text("column.transactions"),
            ]
            blocks.append(_rows(header, rows))
    return blocks


def copy_text(answer: Answer) -> str:
    """What the copy button puts on the clipboard."""
    blocks: list[str] = []
    for part in answer.parts:
        if isinstance(part, Prose | Note):
            blocks.append(_plain(part.text))
        elif isinstance(part, Table):
            blocks.append(_rows(list(part.columns), [list(row) for row in part.rows]))
            if part.more:
                blocks.append(_plain(part.more))
    blocks += _trend_rows(answer)
    if answer.citations:
        blocks.append("\n".join(f"[{c.n}] {c.shown}" for c in answer.citations))
    return "\n\n".join(blocks)
