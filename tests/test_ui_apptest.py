"""Component tests of the Streamlit app (``AppTest``) against a real embedded store holding the
sample data: the numbers on screen are checked against the sample CSV computed independently."""

from __future__ import annotations

import json
import re
import shutil
import time
from datetime import date, timedelta
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pandas as pd
import pytest
from google.oauth2.credentials import Credentials
from streamlit.testing.v1 import AppTest

from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.ingest.landing import FileDefaults, ingest_file
from elastic.masking import mask_account_numbers
from elastic.model.plan import Direction, Intent, IntentPlan, Interval, Metric
from elastic.model.results import Bucket, TrendResult
from llm import vertex_client
from llm.answering.answer import Citation
from llm.answering.wording import money, wording
from llm.embeddings import LocalEmbedder
from llm.first_screen import FirstScreen
from llm.pipeline import ChatPipeline
from llm.redaction import hidden_spans
from llm.services import build_pipeline
from scripts.sample_data import SampleSet
from settings import Settings
from tests.app_server import (
    APP,
    UPLOAD_CSV,
    copy_data_dir,
    free_port,
    ingest_sample_into,
    sample_transactions,
    spent,
)
from tests.vertex_loopback import Reply, VertexLoopback
from ui.answer_text import (
    highlight_passage,
    link_citations,
    parse_citation_ref,
    plain_markdown,
)
from ui.figures import trend_figure

TIMEOUT_S = 180
GROCERIES_2024 = {
    "intent": "aggregate",
    "date_from": "2024-01-01",
    "date_to": "2024-12-31",
    "categories": ["Groceries"],
    "direction": "out",
    "metric": "sum",
}
FULL_CHECKING_NUMBER = "4402718831"  # the sample checking account; only ***8831 may show


@pytest.fixture(scope="module")
def data_dir(
    sample_set: SampleSet, embedder: LocalEmbedder, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    return ingest_sample_into(tmp_path_factory.getbasetemp() / "ui-sample", sample_set, embedder)


@pytest.fixture(scope="module")
def transactions(sample_set: SampleSet) -> pd.DataFrame:
    return sample_transactions(sample_set)


def first_screen_of(data_dir: Path) -> FirstScreen:
    """The first screen the app should show for the data in ``data_dir`` today."""
    pipeline = build_pipeline(Settings(data_dir=data_dir, es_url=None))
    try:
        return pipeline.first_screen(Settings().user, date.today())
    finally:
        pipeline.backend.close()


def use_data_dir(monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> None:
    """The app reads its settings from the environment: this store, embedded, offline; and
    no conversation kept by an earlier test comes back."""
    for name in ("FINSYNC_ES_URL", "FINSYNC_GCP_PROJECT", "FINSYNC_USER", "FINSYNC_EMBEDDER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FINSYNC_DATA_DIR", str(data_dir))
    shutil.rmtree(Settings(data_dir=data_dir).chats_dir, ignore_errors=True)


def started(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, at.exception
    return at


@pytest.fixture
def app(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    use_data_dir(monkeypatch, data_dir)
    return started(AppTest.from_file(str(APP), default_timeout=TIMEOUT_S))


def page(function_name: str, module: str) -> AppTest:
    """One page on its own, as ``st.navigation`` would run it."""
    script = f"from {module} import {function_name}\n{function_name}()"
    return AppTest.from_string(script, default_timeout=TIMEOUT_S)


def ask(at: AppTest, question: str) -> AppTest:
    at.chat_input[0].set_value(question).run()
    assert not at.exception, at.exception
    return at


def report_shown(at: AppTest, timeout_s: float = TIMEOUT_S) -> AppTest:
    """Rerun the Ingest page until the background import's report replaces its progress bar."""
    deadline = time.monotonic() + timeout_s
    while not any(h.value == "Report" for h in at.subheader):
        assert time.monotonic() < deadline, "the import did not finish"
        time.sleep(0.2)
        at.run()
        assert not at.exception, at.exception
    return at


def answer_markdown(at: AppTest, turn: int) -> str:
    """The answer text of chat turn ``turn`` (the markdown that carries the citation chips)."""
    message = at.chat_message[2 * turn + 1]
    texts = [m.value for m in message.markdown if "fs-cite" in m.value]
    assert texts, [m.value for m in message.markdown]
    return texts[0]


def shown_tables(at: AppTest) -> list[pd.DataFrame]:
    """The transaction tables on the page as a reader sees them, with amounts (shown signed,
    "-$12.50" or "+$2,500.00") read back as numbers."""
    frames = []
    for element in at.html:
        if 'class="fs-tx"' in element.value:
            (frame,) = pd.read_html(StringIO(element.value))
            frame["Amount"] = [float(re.sub(r"[^0-9.+-]", "", text)) for text in frame["Amount"]]
            frames.append(frame)
    return frames


def test_empty_chat_pictures_the_money_and_offers_examples_from_the_data(
    app: AppTest, data_dir: Path, transactions: pd.DataFrame
) -> None:
    """Before the first question: a tile per account with its newest balance, the newest month
    against the one before, its top categories and largest payments, and example questions
    built from the data; every figure as pandas computes it from the sample CSV."""
    screen = first_screen_of(data_dir)
    labels = [b.label for b in app.button if b.key and b.key.startswith("example-")]
    assert labels == [plain_markdown(e.text) for e in screen.examples] and len(labels) == 4
    assert not app.chat_message
    metrics = {m.label: m.value for m in app.metric}
    for account in ("Everyday Checking", "High-Yield Savings", "Platinum Card"):
        rows = transactions[transactions["account_name"] == account]
        (label,) = [label for label in metrics if label.startswith(plain_markdown(account))]
        assert metrics[label] == money(Decimal(rows.iloc[-1]["balance"]))
    june, _ = spent(transactions, "2025-06-01", "2025-06-30")
    may, _ = spent(transactions, "2025-05-01", "2025-05-31")
    assert metrics["Spending in June 2025"] == money(june)
    (month,) = [m for m in app.metric if m.label == "Spending in June 2025"]
    assert month.delta == f"{(june - may) / may * 100:+.1f}%"
    tile = next(b for b in app.button if b.label.startswith("How much did I spend in June 2025"))
    tile.click().run()
    assert not app.exception, app.exception
    assert money(june).replace("$", "\\$") in answer_markdown(app, 0)
    assert app.chat_message[0].markdown[0].value == tile.label


def test_the_backend_is_an_answers_detail_not_the_sidebars(app: AppTest) -> None:
    sidebar = " ".join(c.value for c in app.sidebar.caption)
    assert "SQLite" not in sidebar and LocalEmbedder.model_name not in sidebar
    assert [b.label for b in app.sidebar.button] == ["Clear chat"]
    ask(app, "How much did I spend on groceries in 2024?")
    details = " ".join(c.value for c in app.chat_message[1].caption)
    assert "the embedded SQLite store" in details and "offline rules" in details
    assert LocalEmbedder.model_name in details
    steps = " ".join(m.value for m in app.chat_message[1].markdown)
    assert "Understood as **a total**" in steps and "Searching:" in steps
    assert not app.chat_message[1].status  # no progress bar left over an answer


def test_aggregate_answer_has_metric_citation_and_rows_behind(
    app: AppTest, transactions: pd.DataFrame
) -> None:
    total, count = spent(transactions, "2024-01-01", "2024-12-31", category="Groceries")
    ask(app, "How much did I spend on groceries in 2024?")
    text = answer_markdown(app, 0)
    assert money(total).replace("$", "\\$") in text
    assert 'data-fs-cite="0:1"' in text  # [1] became a clickable chip
    assert [m.value for m in app.metric] == [money(total), f"{count:,}"]

    app.button(key="cite-0-1").click().run()
    rows = shown_tables(app)[-1]  # the viewer dialog renders after the chat
    assert len(rows) == count
    assert set(rows["Category"]) == {"Groceries"}


def test_trend_answer_draws_a_line_per_month(app: AppTest, transactions: pd.DataFrame) -> None:
    total, _ = spent(transactions, "2024-01-01", "2024-12-31", category="Groceries")
    ask(app, "Show monthly grocery spending for 2024")
    charts = app.get("plotly_chart")
    assert len(charts) == 1
    figure = json.loads(charts[0].proto.spec)
    (trace,) = figure["data"]
    assert len(trace["x"]) == 12
    assert Decimal(str(round(sum(trace["y"]), 2))) == total
    assert "Monthly spending" in figure["layout"]["title"]["text"]


def test_grouped_aggregate_has_chart_and_pie_toggle(
    app: AppTest, transactions: pd.DataFrame
) -> None:
    ask(app, "How much did I spend in total in 2024 by category?")
    assert len(app.get("plotly_chart")) == 1
    spend = transactions[
        (transactions["date"].dt.year == 2024)
        & (transactions["amount"] < 0)
        & (transactions["category"] != "Transfers")
    ]
    by_category = -spend.groupby("category")["amount"].sum()
    summary = " ".join(c.value for c in app.caption).replace("\\", "")
    assert f"largest {by_category.idxmax()} ({money(by_category.max())})" in summary
    assert f"smallest {by_category.idxmin()} ({money(by_category.min())})" in summary
    app.toggle(key="turn-0-pie").set_value(True).run()
    figure = json.loads(app.get("plotly_chart")[0].proto.spec)
    assert figure["data"][0]["type"] == "pie"


def test_listing_is_a_table_with_masked_accounts_and_a_download(app: AppTest) -> None:
    ask(app, "List the five largest card payments in March 2025")
    (frame,) = shown_tables(app)
    assert len(frame) == 5
    assert list(frame["Amount"]) == sorted(frame["Amount"])  # largest money out first
    assert all(account.endswith("***4321") for account in frame["Account"])
    assert [b.label for b in app.download_button] == ["Download CSV"]


def test_statement_citation_opens_the_page_with_the_passage_marked(app: AppTest) -> None:
    ask(app, "What is the overdraft fee on my checking account?")
    assert "$35.00" in answer_markdown(app, 0).replace("\\$", "$")
    app.button(key="cite-0-1").click().run()
    page_text = " ".join(h.value for h in app.html)
    assert page_text.count('<img src="data:image/png;base64,') == 1, "the page as an image"
    assert '<mark id="fs-cited">Overdraft fee: $35.00' in page_text
    header = " ".join(m.value for m in app.markdown)
    assert "Everyday Checking \\*\\*\\*8831" in header
    assert FULL_CHECKING_NUMBER not in header + page_text


def test_sidebar_account_filter_scopes_every_question(
    app: AppTest, transactions: pd.DataFrame
) -> None:
    total, _ = spent(transactions, "2024-01-01", "2024-12-31", account_name="Everyday Checking")
    app.sidebar.multiselect(key="filter-accounts").select("Everyday Checking").run()
    ask(app, "How much did I spend in 2024?")
    assert app.metric[0].value == money(total)


def test_follow_up_reuses_the_previous_plan(app: AppTest, transactions: pd.DataFrame) -> None:
    ask(app, "How much did I spend on groceries in 2024?")
    ask(app, "and in 2025?")
    total, _ = spent(transactions, "2025-01-01", "2025-12-31", category="Groceries")
    assert app.metric[-2].value == money(total)


def test_what_a_follow_up_carried_over_is_a_chip_that_can_be_taken_away(
    app: AppTest, transactions: pd.DataFrame
) -> None:
    """ "and in 2025?" keeps Groceries: a chip says so; taking it away asks again over every
    category, with the 2025 it named itself."""
    ask(app, "How much did I spend on groceries in 2024?")
    assert not [b for b in app.button if (b.key or "").startswith("carried-0-")]  # nothing carried
    ask(app, "and in 2025?")
    (chip,) = [b for b in app.button if (b.key or "").startswith("carried-1-")]
    assert (chip.key, chip.label) == ("carried-1-subject", "Groceries ✕")
    chip.click().run()
    assert not app.exception, app.exception
    assert len(app.chat_message) == 6
    assert app.chat_message[4].markdown[0].value == plain_markdown("and in 2025?")
    everything, _ = spent(transactions, "2025-01-01", "2025-12-31")
    assert app.metric[-2].value == money(everything)
    assert not [b for b in app.button if (b.key or "").startswith("carried-2-")]


def test_the_app_speaks_the_language_of_the_conversation(app: AppTest) -> None:
    spanish = wording("es")
    ask(app, "¿Cuánto gasté en el supermercado en 2024?")
    assert app.chat_input[0].placeholder == spanish.text("chrome.placeholder")
    assert spanish.text("chrome.sources") in [c.value for c in app.caption]
    assert "Sources" not in [c.value for c in app.caption]
    ask(app, "How much did I spend on groceries in 2024?")
    assert app.chat_input[0].placeholder == wording("en").text("chrome.placeholder")


def test_clear_chat_empties_the_history(app: AppTest) -> None:
    app.button(key="example-1").click().run()
    assert len(app.chat_message) == 2
    app.sidebar.button[0].click().run()
    assert not app.chat_message
    assert any(b.key == "example-0" for b in app.button)


def test_a_failing_question_shows_an_error_and_keeps_the_chat(
    app: AppTest, monkeypatch: pytest.MonkeyPatch
) -> None:
    ask(app, "List the five largest card payments in March 2025")

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("backend exploded")

    with monkeypatch.context() as patch:
        patch.setattr(ChatPipeline, "ask", broken)
        ask(app, "How much did I spend on travel in 2024?")
    assert len(app.chat_message) == 4
    assert "something went wrong" in app.error[0].value
    ask(app, "How much did I spend on travel in 2024?")
    assert len(app.chat_message) == 6 and app.metric


def test_an_unreachable_backend_shows_a_banner_not_a_crash(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_data_dir(monkeypatch, data_dir)
    monkeypatch.setenv("FINSYNC_ES_URL", f"http://127.0.0.1:{free_port()}")  # nobody listens
    at = started(AppTest.from_file(str(APP), default_timeout=TIMEOUT_S))
    assert "cannot reach Elasticsearch" in at.error[0].value
    assert not at.chat_input


def test_sources_page_lists_statements_and_pages_transactions(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, sample_set: SampleSet
) -> None:
    use_data_dir(monkeypatch, data_dir)
    at = started(page("sources_page", "ui.pages.sources_page"))
    statements = at.dataframe[0].value
    assert len(statements) == len(sample_set.statement_pdfs)
    assert not statements["Account"].str.contains(FULL_CHECKING_NUMBER).any()
    first = shown_tables(at)[0]
    assert len(first) == 50
    next(b for b in at.button if b.label == "Next page").click().run()
    second = shown_tables(at)[0]
    assert len(second) == 50
    assert second["Date"].max() <= first["Date"].min()
    assert "Transactions 51–100 of" in " ".join(c.value for c in at.caption)
    recurring = at.dataframe[1].value  # the Recurring tab: every series, cost and price change
    netflix = recurring[recurring["Merchant"] == "Netflix"].iloc[0]
    assert (netflix["How often"], netflix["Amount"], netflix["Status"]) == (
        "monthly",
        17.99,
        "active",
    )
    assert "15.49 → 17.99" in netflix["Price changes"]
    assert "8 recurring payments, 8 still running, costing $2,457.00 a month." in [
        c.value for c in at.caption
    ]


def test_uploaded_csv_is_reported_and_immediately_askable(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_data_dir(monkeypatch, copy_data_dir(data_dir, tmp_path / "data"))
    ingest = started(page("ingest_page", "ui.pages.ingest_page"))
    ingest.file_uploader(key="uploads").upload("kites.csv", UPLOAD_CSV.encode(), "text/csv").run()
    assert not ingest.exception, ingest.exception
    # Before anything lands: the detected format and the rows as they will land.
    captions = [c.value for c in ingest.caption]
    assert "Detected **finsync\\-csv**: 2 transactions." in captions  # a format shown as text
    assert "1 row cannot be read; the report will list them." in captions
    assert not ingest.warning  # the file names its account, bank and currency
    preview = shown_tables(ingest)[0]
    assert list(preview["Merchant"]) == ["Zephyr Kites", "Zephyr Kites"]
    assert list(preview["Category"]) == ["Hobbies", "Hobbies"]  # the user's own word, kept
    assert list(preview["Source"]) == ["kites.csv, line 2", "kites.csv, line 3"]
    next(b for b in ingest.button if b.label.startswith("Ingest 1 file")).click().run()
    assert not ingest.exception, ingest.exception
    report_shown(ingest)
    assert [m.value for m in ingest.metric][:4] == ["2", "0", "0", "1"]
    frames = [frame.value for frame in ingest.dataframe]
    (summary,) = [f for f in frames if "Landed" in f.columns]
    assert list(summary["Format"]) == ["finsync-csv"]
    (problems,) = [f for f in frames if "Reason" in f.columns]
    assert list(problems["Location"]) == ["line 4"]

    chat = started(AppTest.from_file(str(APP), default_timeout=TIMEOUT_S))
    ask(chat, "How much did I spend at Zephyr Kites in May 2025?")
    assert chat.metric[0].value == "$200.00"


def test_sign_in_is_required_when_oidc_is_configured(data_dir: Path) -> None:
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT_S)
    at.secrets["auth"] = {
        "redirect_uri": "http://localhost:8501/oauth2callback",
        "cookie_secret": "test-only",
        "client_id": "client",
        "client_secret": "secret",
        "server_metadata_url": "https://id.example.com/.well-known/openid-configuration",
    }
    at.run()
    assert not at.exception, at.exception
    assert [b.label for b in at.button] == ["Sign in"]
    assert not at.chat_input


def test_gemini_routes_and_its_wording_streams_in(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, transactions: pd.DataFrame
) -> None:
    """Gemini through the real SDK against the loopback Vertex server: it routes the question,
    and its checked sentences stream in as the pipeline hands them over and become the answer."""
    total, count = spent(transactions, "2024-01-01", "2024-12-31", category="Groceries")
    wording = f"Groceries took {money(total)} of your money in 2024, over {count} purchases [1]."
    real_client = vertex_client.make_client

    def client_with_test_token(settings: Settings, credentials: object = None) -> object:
        return real_client(settings, Credentials(token="test-token"))  # no cloud login here

    use_data_dir(monkeypatch, data_dir)
    monkeypatch.setattr(vertex_client, "make_client", client_with_test_token)
    with VertexLoopback() as vertex:
        monkeypatch.setenv("FINSYNC_GCP_PROJECT", "test-project")
        monkeypatch.setenv("FINSYNC_VERTEX_BASE_URL", vertex.url)
        monkeypatch.setenv("FINSYNC_EMBEDDER", "local")  # the store holds local vectors
        vertex.script(Reply.plan(GROCERIES_2024))
        vertex.always(Reply(text=wording, chunk_chars=9))
        at = started(AppTest.from_file(str(APP), default_timeout=TIMEOUT_S))
        ask(at, "How much did I spend on groceries in 2024?")
        actions = [r.action for r in vertex.requests]
    assert actions == ["generateContent", "streamGenerateContent"]
    text = answer_markdown(at, 0)
    assert text.startswith(f"Groceries took {money(total)}".replace("$", "\\$"))
    assert 'data-fs-cite="0:1"' in text
    assert at.metric[0].value == money(total)
    assert "Gemini (gemini-2.5-flash)" in " ".join(c.value for c in at.chat_message[1].caption)
    assert any("Writing" in m.value for m in at.chat_message[1].markdown)


# --- the pure helpers behind the pages -----------------------------------------------------------


def test_citation_chips_escape_everything_else() -> None:
    citation = Citation(n=1, kind="statement", source='Bank "A" <b>', page=2)
    html_text = link_citations(
        "Fee <script>x</script> is $35 on ***8831 [1] and [7].", 3, [citation]
    )
    assert "<script>" not in html_text and "&lt;script&gt;" in html_text
    assert (
        'data-fs-cite="3:1"' in html_text
        and 'title="Bank &quot;A&quot; &lt;b&gt;, page 2"' in html_text
    )
    assert "[7]" in html_text  # not a citation of this answer: left as written
    assert "\\$35" in html_text and "\\*\\*\\*8831" in html_text
    assert parse_citation_ref("3:1") == (3, 1) and parse_citation_ref("x:1") is None


def test_passages_are_found_across_line_breaks() -> None:
    marked, found = highlight_passage(
        "Fees\nOverdraft fee: $35.00 per\nitem. <b>", "fee: $35.00 per item."
    )
    assert found and '<mark id="fs-cited">fee: $35.00 per\nitem.</mark>' in marked
    assert marked.endswith("&lt;b&gt;")


def test_account_numbers_keep_only_their_last_four_digits() -> None:
    text = "Account number: 4402 7188 31\nCard 5412-7500-9361-4321 on 2025-03-01, store 57442131"
    # A store number is not an account number: it keeps its digits.
    assert mask_account_numbers(text, ["4402718831"]) == (
        "Account number: ***8831\nCard ***4321 on 2025-03-01, store 57442131"
    )
    hidden = [text[a:b] for a, b in hidden_spans(text, "4402718831")]
    # what shows: "88 31", "4321"
    assert hidden == ["4402 71", "5412-7500-9361-"]


def test_a_split_trend_draws_one_line_per_category() -> None:
    def buckets(*values: str) -> list[Bucket]:
        months = [date(2024, 1, 1), date(2024, 2, 1)]
        return [Bucket(m, Decimal(v), 1) for m, v in zip(months, values, strict=True)]

    plan = IntentPlan(intent=Intent.trend, date_from=date(2024, 1, 1), date_to=date(2024, 2, 29))
    result = TrendResult(
        interval=Interval.month,
        direction=Direction.out,
        currency="USD",
        series=buckets("30.00", "50.00"),
        splits={"Groceries": buckets("20.00", "40.00"), "Dining": buckets("10.00", "10.00")},
    )
    figure = trend_figure(plan, result)
    assert [trace.name for trace in figure.data] == ["Dining", "Groceries"]
    assert list(figure.data[1].y) == [20.0, 40.0]
    assert figure.layout.title.text == "Monthly spending — Jan 1, 2024 – Feb 29, 2024"
    assert figure.layout.yaxis.tickprefix == "$"


def test_trend_ticks_are_its_buckets_and_no_point_is_cut_at_the_edge() -> None:
    months = [date(2025, m, 1) for m in range(1, 7)]
    series = [Bucket(m, Decimal("10.00"), 1) for m in months]
    plan = IntentPlan(intent=Intent.trend, interval=Interval.month)
    axis = trend_figure(plan, TrendResult(Interval.month, Direction.out, "USD", series)).layout
    assert list(axis.xaxis.ticktext) == [
        "January 2025",
        "February 2025",
        "March 2025",
        "April 2025",
        "May 2025",
        "June 2025",
    ]
    low, high = axis.xaxis.range
    assert low < date(2025, 1, 1) and high > date(2025, 6, 1)
    weeks = [date(2024, 1, 1) + timedelta(weeks=n) for n in range(52)]
    series = [Bucket(w, Decimal("1.00"), 1) for w in weeks]
    plan = IntentPlan(intent=Intent.trend, interval=Interval.week)
    axis = trend_figure(plan, TrendResult(Interval.week, Direction.out, "USD", series)).layout
    assert len(axis.xaxis.tickvals) <= 12
    assert axis.xaxis.ticktext[0] == "week of Jan 1, 2024"


def test_an_empty_month_of_an_average_is_a_gap_not_zero() -> None:
    months = [date(2024, 1, 1), date(2024, 2, 1), date(2024, 3, 1)]
    series = [Bucket(months[0], Decimal("12.50"), 2), Bucket(months[1], Decimal("0.00"), 0)]
    series.append(Bucket(months[2], Decimal("8.00"), 1))
    plan = IntentPlan(intent=Intent.trend, metric=Metric.avg, interval=Interval.month)
    result = TrendResult(Interval.month, Direction.out, "USD", series)
    assert list(trend_figure(plan, result).data[0].y) == [12.5, None, 8.0]
    total = trend_figure(plan.model_copy(update={"metric": Metric.sum}), result)
    assert list(total.data[0].y) == [12.5, 0.0, 8.0]


def test_a_layout_nothing_knows_is_read_by_content_and_its_reading_can_be_changed(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_data_dir(monkeypatch, copy_data_dir(data_dir, tmp_path / "data"))
    ingest = started(page("ingest_page", "ui.pages.ingest_page"))
    card = "When;What;How much\n03/05/2025;KITE SHOP;12,50\n04/05/2025;KITE SHOP ONLINE;2,00\n"
    ingest.file_uploader(key="uploads").upload("card.csv", card.encode(), "text/csv").run()
    assert not ingest.exception, ingest.exception
    # Read by what the columns hold; every amount positive is unsure, so it is asked.
    assert any("How much" in w.value and "read as amount" in w.value for w in ingest.warning)
    assert list(shown_tables(ingest)[0]["Amount"]) == [12.5, 2.0]
    key = next(s.key for s in ingest.selectbox if s.key.endswith("-map-date")).removesuffix(
        "-map-date"
    )
    assert ingest.selectbox(key=f"{key}-map-amount").value == "How much"
    ingest.radio(key=f"{key}-map-sign").set_value("spend_positive").run()
    assert not ingest.exception, ingest.exception
    assert list(shown_tables(ingest)[0]["Amount"]) == [-12.5, -2.0]
    next(b for b in ingest.button if b.label.startswith("Ingest 1 file")).click().run()
    report_shown(ingest)
    assert [m.value for m in ingest.metric][:1] == ["2"]
    # The next export of the same layout is read the way the person chose.
    again = started(page("ingest_page", "ui.pages.ingest_page"))
    later = "When;What;How much\n05/06/2025;KITE SHOP;7,00\n"
    again.file_uploader(key="uploads").upload("card-june.csv", later.encode(), "text/csv").run()
    assert not again.exception, again.exception
    assert list(shown_tables(again)[0]["Amount"]) == [-7.0]


def test_amounts_in_several_currencies_are_shown_per_currency(
    data_dir: Path, sample_set: SampleSet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = copy_data_dir(data_dir, tmp_path / "data")
    backend = EmbeddedBackend(Settings(data_dir=copy))
    lloyds = sample_set.exports[0].parent / "lloyds_current.csv"
    flags = FileDefaults(account_name="Lloyds Current", bank_name="Lloyds Bank", currency="GBP")
    assert ingest_file(backend, lloyds, Settings().user, defaults=flags).indexed == 21
    backend.close()
    use_data_dir(monkeypatch, copy)
    chat = started(AppTest.from_file(str(APP), default_timeout=TIMEOUT_S))
    ask(chat, "How much did I spend in March 2025?")
    captions = [c.value for c in chat.caption]
    assert "In GBP" in captions and "In USD" in captions
    values = [m.value for m in chat.metric]
    assert any(v.startswith("£") for v in values) and any(v.startswith("$") for v in values)


def test_the_new_kinds_are_drawn(app: AppTest, transactions: pd.DataFrame) -> None:
    """A share as its percent and both amounts with a ring, balances as a line per account,
    recurring payments as a table, the charges to check as their rows; each answer ends with
    the line of what it counted."""
    ask(app, "What % of my spending went to dining in 2024?")
    year = transactions[transactions["date"].dt.year == 2024]
    spend = year[(year["amount"] < 0) & (year["category"] != "Transfers")]
    dining, everything = (
        -spend[spend["category"] == "Dining"]["amount"].sum(),
        -spend["amount"].sum(),
    )
    assert [m.value for m in app.metric][-3:] == [
        f"{100 * dining / everything:.1f}%",
        money(dining),
        money(everything),
    ]
    ring = json.loads(app.get("plotly_chart")[-1].proto.spec)
    assert ring["data"][0]["type"] == "pie"
    assert any("How this was counted" in m.value for m in app.markdown)
    ask(app, "Chart my checking balance in 2025")
    line = json.loads(app.get("plotly_chart")[-1].proto.spec)
    assert line["data"][0]["name"] == "Everyday Checking" and len(line["data"][0]["x"]) == 181
    ask(app, "List my recurring payments")
    assert "Netflix" in list(app.dataframe[-1].value["Merchant"])
    ask(app, "Did anything charge me twice?")
    charged = shown_tables(app)[-1]
    assert list(charged["Amount"]) == [-64.37, -64.37]
