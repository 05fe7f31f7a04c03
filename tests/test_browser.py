"""End to end in a real headless Chromium: the app served by ``streamlit run`` over the embedded
store with the sample data. Every step saves a screenshot to ``test-artifacts/screenshots``."""

from __future__ import annotations

import re
import shutil
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pandas as pd
import pytest
from playwright.sync_api import Browser, Locator, Page, expect, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from streamlit.proto.BackMsg_pb2 import BackMsg

from llm.answering.wording import money
from llm.embeddings import LocalEmbedder
from scripts.sample_data import SampleSet
from tests.app_server import (
    ARTIFACTS,
    UPLOAD_CSV,
    AppServer,
    sample_app,
    sample_transactions,
    spent,
)
from tests.reliability import record

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = ARTIFACTS / "screenshots"
ANSWER_TIMEOUT_MS = 180_000  # the first statement question loads the embedding model
UI_TIMEOUT_MS = 30_000


@pytest.fixture(scope="module")
def server(
    sample_set: SampleSet, embedder: LocalEmbedder, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[AppServer]:
    """The app over a private copy of the ingested sample (the upload test adds to it)."""
    with sample_app(sample_set, embedder, tmp_path_factory, "browser") as app:
        yield app


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert CHROMIUM.exists(), "install Debian's Chromium: apt-get install -y chromium"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="module")
def transactions(sample_set: SampleSet) -> pd.DataFrame:
    return sample_transactions(sample_set)


class Steps:
    """Named steps of one test; each ends with a screenshot, passed or failed."""

    def __init__(self, page: Page, test_name: str) -> None:
        self.page = page
        self.test_name = test_name
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        try:
            yield
        finally:
            with suppress(PlaywrightTimeoutError):  # a failed step is still worth a picture
                wait_until_idle(self.page)
            path = SCREENSHOTS / f"{self.test_name}-{name}.png"
            self.page.screenshot(path=str(path), full_page=True)


def fresh_conversation(server: AppServer) -> None:
    """The user's kept conversation goes: each test starts from the first screen."""
    shutil.rmtree(server.data_dir / "chats", ignore_errors=True)


@pytest.fixture
def page(browser: Browser, server: AppServer) -> Iterator[Page]:
    fresh_conversation(server)
    context = browser.new_context(viewport={"width": 1400, "height": 1500})
    chat = context.new_page()
    chat.set_default_timeout(UI_TIMEOUT_MS)
    chat.goto(server.url)
    expect(chat.get_by_test_id("stChatInputTextArea")).to_be_visible(timeout=ANSWER_TIMEOUT_MS)
    try:
        yield chat
    finally:
        context.close()


@pytest.fixture
def steps(page: Page, request: pytest.FixtureRequest) -> Steps:
    for old in SCREENSHOTS.glob(f"{request.node.name}-*.png"):
        old.unlink()
    return Steps(page, request.node.name)


def wait_until_idle(page: Page) -> None:
    """Until the script run is over, so no element of the previous run is still on screen."""
    app = page.get_by_test_id("stApp")
    expect(app).to_have_attribute("data-test-script-state", "notRunning")


def answers_done(page: Page) -> Locator:
    """The finished answers' tool lines (copy, regenerate, details), one per answer."""
    return page.locator("[class*='st-key-tools-']")


def ask(page: Page, question: str) -> None:
    """Send ``question`` and wait until its answer is complete."""
    done = answers_done(page).count()
    box = page.get_by_test_id("stChatInputTextArea")
    box.fill(question)
    box.press("Enter")
    expect(answers_done(page)).to_have_count(done + 1, timeout=ANSWER_TIMEOUT_MS)
    wait_until_idle(page)


def last_answer(page: Page) -> Locator:
    return page.get_by_test_id("stChatMessage").last


def test_questions_of_each_intent(page: Page, steps: Steps, transactions: pd.DataFrame) -> None:
    example = page.get_by_role("button", name=re.compile(r"^Show my monthly spending on "))
    with steps.step("empty"):
        expect(example).to_be_visible()

    with steps.step("trend"):
        example.click()
        expect(answers_done(page)).to_have_count(1, timeout=ANSWER_TIMEOUT_MS)
        chart = last_answer(page).locator(".js-plotly-plot")
        expect(chart).to_be_visible(timeout=UI_TIMEOUT_MS)  # plotly loads with the first chart
        expect(chart.locator(".gtitle")).to_contain_text("Monthly spending")

    groceries, _ = spent(transactions, "2024-01-01", "2024-12-31", category="Groceries")
    with steps.step("aggregate"):
        ask(page, "How much did I spend on groceries in 2024?")
        metric = last_answer(page).get_by_test_id("stMetricValue").first
        expect(metric).to_have_text(money(groceries))

    with steps.step("listing"):
        ask(page, "List the five largest card payments in March 2025")
        expect(last_answer(page).locator("table.fs-tx tbody tr")).to_have_count(5)
        expect(last_answer(page)).to_contain_text("The 5 largest of")

    with steps.step("text_qa"):
        ask(page, "What is the overdraft fee on my checking account?")
        expect(last_answer(page)).to_contain_text("Overdraft fee: $35.00")


def test_a_toggle_in_one_answer_reruns_only_that_answers_numbers(page: Page, steps: Steps) -> None:
    """An answer's chart and table sit in a fragment: its pie toggle asks the server to rerun
    that fragment, never the page, and the other answer keeps its bars."""
    reruns: list[str] = []  # per rerun the browser asks for, its fragment ("" = the whole page)

    def sent(payload: str | bytes) -> None:
        message = BackMsg.FromString(payload) if isinstance(payload, bytes) else None
        if message is not None and message.WhichOneof("type") == "rerun_script":
            reruns.append(message.rerun_script.fragment_id)

    page.on("websocket", lambda socket: socket.on("framesent", sent))
    with steps.step("answers"):
        page.reload()  # a new session, over a socket the listener hears
        ask(page, "How much did I spend in total in 2024 by category?")
        ask(page, "How much did I spend in total in 2025 by category?")
    answers = page.get_by_test_id("stChatMessage")
    first, second = answers.nth(1), answers.nth(3)
    expect(second.locator(".js-plotly-plot .barlayer .point").first).to_be_visible()

    with steps.step("pie"):
        before = len(reruns)
        first.get_by_text("Show as pie chart").click()
        expect(first.locator(".js-plotly-plot .pielayer .slice").first).to_be_visible()
        wait_until_idle(page)
    assert reruns[before:] and all(reruns[before:]), reruns[before:]
    expect(second.locator(".js-plotly-plot .pielayer .slice")).to_have_count(0)
    expect(second.locator(".js-plotly-plot .barlayer .point").first).to_be_visible()
    expect(answers_done(page)).to_have_count(2)


def test_two_questions_sent_back_to_back_are_both_answered_in_order(
    page: Page, steps: Steps, transactions: pd.DataFrame
) -> None:
    """The second question arrives while the first is answered, which stops that script run:
    both must still be answered, the first first."""
    questions = {
        "How much did I spend on groceries in 2024?": "Groceries",
        "How much did I spend on travel in 2024?": "Travel",
    }
    box = page.get_by_test_id("stChatInputTextArea")
    with steps.step("sent"):
        for question in questions:
            box.fill(question)
            box.press("Enter")

    with steps.step("answered"):
        expect(answers_done(page)).to_have_count(2, timeout=ANSWER_TIMEOUT_MS)
        wait_until_idle(page)
        messages = page.get_by_test_id("stChatMessage")
        expect(messages).to_have_count(4)
        for turn, (question, category) in enumerate(questions.items()):
            total, _ = spent(transactions, "2024-01-01", "2024-12-31", category=category)
            expect(messages.nth(2 * turn)).to_contain_text(question)
            metric = messages.nth(2 * turn + 1).get_by_test_id("stMetricValue").first
            expect(metric).to_have_text(money(total))


def test_citations_open_the_source_viewer(page: Page, steps: Steps) -> None:
    with steps.step("answer"):
        ask(page, "What is the overdraft fee on my checking account?")
        chip = last_answer(page).locator(".fs-cite").first
        expect(chip).to_have_text("1")

    with steps.step("statement-viewer"):
        chip.click()
        viewer = page.get_by_role("dialog")
        expect(viewer).to_contain_text("Statement page")
        expect(viewer.locator("figure.fs-page-image img")).to_be_visible()
        expect(viewer.locator("mark")).to_contain_text("Overdraft fee: $35.00")
        expect(viewer).to_contain_text("***8831")
        expect(viewer).not_to_contain_text("4402718831")

    with steps.step("transactions-viewer"):
        page.keyboard.press("Escape")
        expect(viewer).to_be_hidden()
        ask(page, "How much did I spend on groceries in 2024?")
        last_answer(page).locator(".fs-cite").first.click()
        viewer = page.get_by_role("dialog")
        expect(viewer).to_contain_text("Transactions behind the number")
        expect(viewer.locator("table.fs-tx")).to_be_visible()


@pytest.mark.reliability
def test_pages_refuse_framing_and_statement_pages_have_no_address(
    page: Page, steps: Steps, server: AppServer
) -> None:
    """Every response says no frame may hold the app, and a statement page reaches the browser
    as data inside the page, never as a ``/media`` address anyone with the link could open."""
    for path in ("/", "/_stcore/health", "/chat"):
        with urllib.request.urlopen(server.url + path, timeout=10) as response:
            assert response.headers["X-Frame-Options"] == "DENY", path
            assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"], path
    media: list[str] = []
    page.on(
        "response",
        lambda response: (
            media.append(response.url) if response.url.startswith(f"{server.url}/media/") else None
        ),
    )

    with steps.step("statement-page"):
        ask(page, "What is the overdraft fee on my checking account?")
        last_answer(page).locator(".fs-cite").first.click()
        image = page.get_by_role("dialog").locator("figure.fs-page-image img")
        expect(image).to_be_visible()
        assert (image.get_attribute("src") or "").startswith("data:image/png;base64,")
    assert media == []

    framing = page.context.new_page()  # a page of another origin, framing the app
    framing.set_content(f'<iframe src="{server.url}/sources" width="900" height="700"></iframe>')
    framing.wait_for_timeout(3000)
    (framed,) = framing.frames[1:]
    assert "stApp" not in framed.content() and "Forget" not in framed.content()
    framing.screenshot(path=SCREENSHOTS / "framed-app-refused.png")
    record(
        "markup",
        "the app framed by another page; a statement page image",
        "framing refused (CSP frame-ancestors, X-Frame-Options); the image is data, no /media",
        backend="embedded",
        outside_requests=0,
    )


def test_uploaded_csv_is_askable_in_the_chat(
    page: Page, steps: Steps, tmp_path: Path, server: AppServer
) -> None:
    upload = tmp_path / "kites.csv"
    upload.write_text(UPLOAD_CSV, encoding="utf-8")

    with steps.step("uploaded"):
        page.get_by_role("link", name="Ingest").click()
        page.locator("input[type=file]").set_input_files(str(upload))
        expect(page.get_by_text("kites.csv").first).to_be_visible()
        expect(page.get_by_text("Detected finsync-csv: 2 transactions")).to_be_visible()

    with steps.step("report"):
        page.get_by_role("button", name=re.compile(r"^Ingest 1 file")).click()
        report = page.get_by_test_id("stMainBlockContainer")
        expect(report.get_by_role("heading", name="Report")).to_be_visible(
            timeout=ANSWER_TIMEOUT_MS
        )
        expect(report.get_by_test_id("stMetricValue").first).to_have_text("2")
        expect(report).to_contain_text("line 4")
        # The import's copy went with it; the page's own copy, while the file is on the page,
        # is in the user's folder under the data directory, never the system temp folder.
        uploads = server.data_dir / "uploads"
        assert not list(uploads.rglob("import-*/*"))
        assert [p.name for p in uploads.rglob("*") if p.is_file()] == ["kites.csv"]

    with steps.step("answer"):
        page.get_by_role("link", name="Chat").click()
        ask(page, "How much did I spend at Zephyr Kites in May 2025?")
        expect(last_answer(page).get_by_test_id("stMetricValue").first).to_have_text("$200.00")
