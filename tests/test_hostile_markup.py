"""The escaping every value from a file gets before the UI renders it: markdown (answers, labels,
captions) and plotly text (titles, labels, legends). The browser test shows it in the real app;
these check the helpers on any text."""

from __future__ import annotations

import html
import re
from datetime import date
from decimal import Decimal
from html.parser import HTMLParser

from hypothesis import given
from hypothesis import strategies as st

from elastic.model.plan import Direction, GroupBy, Intent, IntentPlan, Interval, Metric
from elastic.model.records import Transaction
from elastic.model.results import AggregateResult, Bucket, Group, TrendResult
from elastic.visible_text import visible
from llm.answering.answer import Citation
from ui.answer_text import inert_text, link_citations, plain_figure_text, plain_markdown
from ui.figures import groups_figure, metric_label, trend_figure
from ui.tables import transactions_html

HOSTILE = (
    '<a href="http://evil.example/plotly">Fees</a>',
    "[Click me](http://evil.example/c)",
    "![pixel](http://evil.example/b.png)",
    "<img src=x onerror=alert(1)>",
    "**Acct** & <b>co</b> `code` $x^2$ :red[Alert] :material/home:",
    "www.evil.example phish@evil.example https://evil.example/x",
    "# Heading\n- item\n1. item\n> quote\n| a | b |",
)
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_PUNCTUATION = re.compile(r"[!-/:-@\[-`{-~]")
_AUTOLINK = re.compile(r"://|(?i:www)\.|@\w")


def read_back(markdown: str) -> str:
    """What a reader sees of escaped markdown: escapes resolved, word joiners invisible."""
    return _ESCAPE.sub(r"\1", markdown).replace("\u2060", "")


@given(st.one_of(st.text(), st.sampled_from(HOSTILE)))
def test_plain_markdown_is_shown_exactly_as_written(text: str) -> None:
    shown = plain_markdown(text)
    assert read_back(shown) == visible(text, keep_marks=True)  # what draws nothing is dropped
    assert not _PUNCTUATION.search(_ESCAPE.sub("", shown))  # every one escaped
    assert not _AUTOLINK.search(shown.replace("\\", ""))


@given(st.one_of(st.text(), st.sampled_from(HOSTILE)))
def test_figure_text_has_no_markup_and_reads_back(text: str) -> None:
    shown = plain_figure_text(text)
    assert "<" not in shown and ">" not in shown
    assert html.unescape(shown) == visible(text, keep_marks=True)


def test_answers_keep_their_emphasis_but_lose_every_link_and_image() -> None:
    citation = Citation(n=1, kind="transactions", source="3 transactions")
    text = link_citations(
        "You spent **$5** at " + " ".join(HOSTILE) + " [1] [2](http://evil.example/2)",
        0,
        [citation],
    )
    assert "**\\$5**" in text
    assert text.count("<span") == 1 and "<a " not in text and "<img" not in text
    without_chip = re.sub(r"<span[^>]*>1</span>", "", text)
    assert not re.search(r"(?<!\\)\[", without_chip)  # no link, image or reference can open
    assert not _AUTOLINK.search(without_chip.replace("\\", ""))


def test_figures_show_names_as_text() -> None:
    plan = IntentPlan(intent=Intent.aggregate, group_by=GroupBy.category, categories=[HOSTILE[0]])
    groups = [Group(name, Decimal(10 + i), 1) for i, name in enumerate(HOSTILE)]
    result = AggregateResult(Metric.sum, Direction.out, Decimal(100), 7, "USD", groups)
    bars = groups_figure(plan, result, as_pie=False)
    pie = groups_figure(plan, result, as_pie=True)
    trend = trend_figure(
        plan,
        TrendResult(
            Interval.month,
            Direction.out,
            "USD",
            [],
            splits={name: [Bucket(date(2024, 1, 1), Decimal(1), 1)] for name in HOSTILE},
        ),
    )
    texts = [
        *bars.data[0].y,
        *pie.data[0].labels,
        *(trace.name for trace in trend.data),
        bars.layout.title.text,
        trend.layout.title.text,
    ]
    assert not any("<" in t or ">" in t for t in texts)
    assert sorted(html.unescape(t) for t in bars.data[0].y) == sorted(HOSTILE)
    assert HOSTILE[0] in html.unescape(bars.layout.title.text)
    assert read_back(metric_label(plan, result)).endswith(f"{HOSTILE[0]} · all dates")


@given(st.lists(st.integers(min_value=1, max_value=7), max_size=30))
def test_streamed_text_is_inert_however_it_is_split(cuts: list[int]) -> None:
    """A model's answer streamed in pieces cut anywhere, even inside a URL or a mask: what is
    shown after each piece is inert, and so is the whole."""
    text = "Fee $35 on ***8831, see [docs](http://evil.example/x) or www.evil.example <img src=x>"
    pieces, start = [], 0
    for size in cuts:
        pieces.append(text[start : start + size])
        start += size
    pieces.append(text[start:])
    for end in range(1, len(pieces) + 1):
        shown = inert_text("".join(pieces[:end]))
        assert "<" not in shown and not re.search(r"(?<!\\)\[", shown)
        assert not _AUTOLINK.search(shown.replace("\\", ""))
    assert "\\$35" in shown and "\\*\\*\\*8831" in shown


class _TableReader(HTMLParser):
    """The tags and the text of each cell of an HTML table, as a browser reads them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.titles: list[str] = []
        self.cells: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.titles.extend(value or "" for name, value in attrs if name == "title")
        if tag in ("td", "th"):
            self.cells.append("")

    def handle_data(self, data: str) -> None:
        if self.cells:
            self.cells[-1] += data


@given(st.one_of(st.text(), st.sampled_from(HOSTILE)), st.sampled_from(HOSTILE))
def test_transaction_tables_show_every_cell_as_text(description: str, merchant: str) -> None:
    row = Transaction(
        transaction_id="t-1",
        date=date(2025, 3, 14),
        description=description,
        amount=Decimal("-12.50"),
        currency="USD",
        category=HOSTILE[0],
        merchant=merchant,
        account_no="4402718831",
        account_name=HOSTILE[3],
        bank_name="First Bank",
    )
    reader = _TableReader()
    reader.feed(transactions_html([row]))
    assert reader.tags == {"div", "table", "thead", "tbody", "tr", "th", "td"}
    description = visible(description, keep_marks=True)  # what draws nothing is dropped
    assert description in reader.cells
    assert merchant in reader.cells and HOSTILE[0] in reader.cells
    assert description in reader.titles
