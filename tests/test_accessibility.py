"""Accessibility in a real headless Chromium, on a wide screen and a phone: axe-core finds no
serious or critical violation on the chat (a listing, a trend, an Arabic question), a citation
dialog, the Sources page and the Ingest page; every listed amount is on screen; a citation opens
and closes from the keyboard. Screenshots go to ``test-artifacts/screenshots/{page}-{width}.png``.

axe-core comes from npm: ``scripts/setup.sh test`` installs it into ``.cache/npm``.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator

import pandas as pd
import pytest
from playwright.sync_api import Browser, Page, expect

from llm.answering.wording import bucket_label, money
from llm.embeddings import LocalEmbedder
from scripts.sample_data import SampleSet
from tests.app_server import (
    ROOT,
    AppServer,
    sample_app,
    sample_transactions,
    spent,
)
from tests.test_browser import (
    ANSWER_TIMEOUT_MS,
    SCREENSHOTS,
    UI_TIMEOUT_MS,
    answers_done,
    ask,
    fresh_conversation,
    last_answer,
    wait_until_idle,
)
from tests.test_browser import browser as browser  # the same headless Chromium fixture

pytestmark = pytest.mark.browser

AXE = ROOT / ".cache" / "npm" / "node_modules" / "axe-core" / "axe.min.js"
WIDTHS = (1400, 390)
PHONE_HEIGHT = 844
LISTING = "List my 5 largest purchases in March 2025"
TREND = "Show monthly grocery spending for 2024"
ARABIC = "كم أنفقت على البقالة في ٢٠٢٤؟"
SERIOUS = ("serious", "critical")
MONEY_OUT, MONEY_IN = "rgb(185, 28, 28)", "rgb(21, 128, 61)"  # ui/styles.py: #B91C1C, #15803D


@pytest.fixture(scope="module")
def server(
    sample_set: SampleSet, embedder: LocalEmbedder, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[AppServer]:
    with sample_app(sample_set, embedder, tmp_path_factory, "a11y", "app-server-a11y.log") as app:
        yield app


@pytest.fixture(scope="module")
def transactions(sample_set: SampleSet) -> pd.DataFrame:
    return sample_transactions(sample_set)


def open_app(browser: Browser, server: AppServer, width: int, path: str = "") -> Page:
    """A new session of the app at ``width`` px (phones get a phone's height), from the first
    screen: no conversation kept by an earlier test comes back."""
    fresh_conversation(server)
    height = PHONE_HEIGHT if width < 600 else 1000
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    page.set_default_timeout(UI_TIMEOUT_MS)
    page.goto(f"{server.url}/{path}")
    expect(page.get_by_test_id("stApp")).to_be_visible(timeout=ANSWER_TIMEOUT_MS)
    expect(page.get_by_test_id("stApp")).to_have_attribute(
        "data-test-script-state", "notRunning", timeout=ANSWER_TIMEOUT_MS
    )
    return page


def screenshot(page: Page, name: str, width: int) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}-{width}.png"), full_page=True)


def serious_violations(page: Page, name: str) -> list[str]:
    """axe-core's serious and critical findings on the page as shown now, one line each."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    results = page.evaluate("async () => await window.axe.run(document)")
    return [
        f"{name}: {violation['id']} ({violation['impact']}) {violation['help']} — "
        + "; ".join(" ".join(node["target"]) for node in violation["nodes"][:5])
        for violation in results["violations"]
        if violation["impact"] in SERIOUS
    ]


@pytest.mark.parametrize("width", WIDTHS)
def test_pages_have_no_serious_accessibility_violations(
    browser: Browser, server: AppServer, transactions: pd.DataFrame, width: int
) -> None:
    assert AXE.exists(), "install axe-core: scripts/setup.sh test"
    found: list[str] = []
    page = open_app(browser, server, width)
    try:
        ask(page, LISTING)
        expect(last_answer(page).locator("table.fs-tx")).to_be_visible()
        ask(page, TREND)
        chart = last_answer(page).locator(".js-plotly-plot")
        expect(chart).to_be_visible(timeout=UI_TIMEOUT_MS)
        groceries = transactions[
            (transactions["category"] == "Groceries")
            & (transactions["date"].dt.year == 2024)
            & (transactions["amount"] < 0)
        ]
        by_month = -groceries.groupby(groceries["date"].dt.to_period("M"))["amount"].sum()
        highest = by_month.idxmax().to_timestamp().date()
        summary = f"highest {bucket_label(highest, 'month')} ({money(by_month.max())})"
        expect(last_answer(page)).to_contain_text(summary)
        screenshot(page, "chat", width)
        found += serious_violations(page, "chat")

        ask(page, ARABIC)
        total, _ = spent(transactions, "2024-01-01", "2024-12-31", category="Groceries")
        expect(last_answer(page)).to_contain_text(f"{total:,.2f}")  # in the asker's language
        screenshot(page, "chat-arabic", width)
        found += serious_violations(page, "chat-arabic")

        last_answer(page).locator(".fs-cite").first.click()
        dialog = page.get_by_role("dialog")
        expect(dialog).to_contain_text("Transactions behind the number")
        expect(dialog.locator("table.fs-tx")).to_be_visible()
        wait_until_idle(page)
        screenshot(page, "citation", width)
        found += serious_violations(page, "citation")
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()

        page.goto(f"{server.url}/sources")
        expect(page.get_by_role("heading", name="Sources")).to_be_visible()
        expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
        wait_until_idle(page)
        found += serious_violations(page, "sources-statements")
        page.get_by_role("tab", name="Transactions").click()
        expect(page.locator("table.fs-tx")).to_be_visible()
        wait_until_idle(page)
        screenshot(page, "sources", width)
        found += serious_violations(page, "sources-transactions")

        page.goto(f"{server.url}/ingest")
        expect(page.locator("input[type=file]")).to_be_attached()
        wait_until_idle(page)
        screenshot(page, "ingest", width)
        found += serious_violations(page, "ingest")
    finally:
        page.context.close()
    assert not found, "\n".join(found)


@pytest.mark.parametrize("width", WIDTHS)
def test_every_listed_amount_is_on_screen(browser: Browser, server: AppServer, width: int) -> None:
    """No row's amount is cut off or needs a sideways scroll: on a phone the table keeps date,
    merchant and amount; on a wide screen the amount sits well inside the chat column."""
    page = open_app(browser, server, width)
    try:
        ask(page, LISTING)
        answer = last_answer(page)
        table = answer.locator("table.fs-tx")
        expect(table).to_be_visible()
        wait_until_idle(page)
        screenshot(page, "listing", width)
        amounts = table.locator("tbody td.fs-k-amount")
        expect(amounts).to_have_count(5)
        column = answer.bounding_box()
        assert column is not None
        for cell in amounts.all():
            expect(cell).to_be_visible()
            expect(cell).to_have_text(re.compile(r"^[+-]\$[\d,]+\.\d\d$"))
            box = cell.bounding_box()
            assert box is not None
            assert box["x"] >= 0 and box["x"] + box["width"] <= width, (cell.inner_text(), box)
            assert box["x"] + box["width"] <= column["x"] + column["width"], (box, column)
            text_width = cell.evaluate("cell => cell.scrollWidth <= cell.clientWidth")
            assert text_width, f"{cell.inner_text()} is cut off"
            colour = cell.evaluate("cell => getComputedStyle(cell).color")
            assert colour == (MONEY_OUT if cell.inner_text().startswith("-") else MONEY_IN)
        for header in ("Date", "Merchant", "Amount"):
            expect(table.get_by_role("columnheader", name=header)).to_be_visible()
        wrapper = answer.locator(".fs-tx-wrap")
        scrolls = wrapper.evaluate("box => box.scrollWidth > box.clientWidth")
        if width <= 480:
            assert not scrolls, "the phone layout needs no sideways scroll"
            expect(table.get_by_role("columnheader", name="Description")).to_be_hidden()
        else:
            expect(table.get_by_role("columnheader", name="Description")).to_be_visible()
    finally:
        page.context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_the_first_minutes_screens_have_no_serious_accessibility_violations(
    browser: Browser, server: AppServer, sample_set: SampleSet, width: int
) -> None:
    """The first screen (overview tiles, examples), an answer's next steps, tools and details,
    a trend's table, a German page, Forget's confirmation and the Ingest form with a file."""
    found: list[str] = []
    page = open_app(browser, server, width)
    try:
        expect(page.locator(".st-key-overview")).to_be_visible()
        screenshot(page, "first-screen", width)
        found += serious_violations(page, "first-screen")

        ask(page, "How much did I spend on groceries in 2025?")
        answer = last_answer(page)
        expect(answer.get_by_role("button", name="By month")).to_be_visible()
        answer.get_by_role("button", name=re.compile(r"^\d[\d,]* ms$")).click()  # details
        expect(page.get_by_text("Understood as")).to_be_visible()
        screenshot(page, "answer-tools", width)
        found += serious_violations(page, "answer-tools")
        page.keyboard.press("Escape")

        answer.get_by_role("button", name="By month").click()
        expect(answers_done(page)).to_have_count(2, timeout=ANSWER_TIMEOUT_MS)
        wait_until_idle(page)
        last_answer(page).get_by_role("tab", name="Table").click()
        expect(last_answer(page).get_by_test_id("stDataFrame")).to_be_visible()
        screenshot(page, "trend-table", width)
        found += serious_violations(page, "trend-table")

        fresh_conversation(server)  # the German session starts from the first screen
        german = page.context.browser.new_context(
            viewport=page.viewport_size, locale="de-DE"
        ).new_page()
        german.goto(server.url)
        expect(german.get_by_text("Ihr Geld auf einen Blick")).to_be_visible(
            timeout=ANSWER_TIMEOUT_MS
        )
        examples = german.locator(".st-key-examples").get_by_role("button")
        expect(examples).to_have_count(4)
        expect(examples.first).to_contain_text("Wie viel habe ich")
        wait_until_idle(german)
        screenshot(german, "first-screen-de", width)
        found += serious_violations(german, "first-screen-de")
        german.context.close()

        page.goto(f"{server.url}/sources")
        page.get_by_text("Forget data").click()
        page.get_by_role("button", name="Forget this file…").click()
        dialog = page.get_by_role("dialog")
        expect(dialog).to_contain_text("cannot be undone")
        wait_until_idle(page)
        screenshot(page, "forget-dialog", width)
        found += serious_violations(page, "forget-dialog")
        dialog.get_by_role("button", name="Cancel").click()
        expect(dialog).to_be_hidden()

        page.goto(f"{server.url}/ingest")
        lloyds = sample_set.exports[0].parent / "lloyds_current.csv"
        page.locator("input[type=file]").set_input_files(str(lloyds))
        expect(page.get_by_text("Account, bank and currency")).to_be_visible()
        wait_until_idle(page)
        screenshot(page, "ingest-form", width)
        found += serious_violations(page, "ingest-form")
    finally:
        page.context.close()
    assert not found, "\n".join(found)


def _tab_to(page: Page, script: str, what: str) -> None:
    """Press Tab until ``script`` (a JS expression over ``el``, the focused element) holds."""
    for _ in range(200):
        page.keyboard.press("Tab")
        if page.evaluate(
            f"() => {{ const el = document.activeElement; return !!el && ({script}); }}"
        ):
            return
    raise AssertionError(f"Tab never reached {what}")


def test_a_citation_opens_from_the_keyboard_and_gives_focus_back(
    browser: Browser, server: AppServer
) -> None:
    page = open_app(browser, server, 1400)
    try:
        ask(page, "How much did I spend on groceries in 2024?")
        chip = last_answer(page).locator(".fs-cite").first
        expect(chip).to_have_attribute("aria-label", re.compile(r"^Source 1: .+"))
        expect(page.get_by_role("button", name=re.compile(r"^Source 1: "))).to_have_count(1)
        opened = chip.get_attribute("data-fs-cite")
        _tab_to(page, "el.matches('.fs-cite')", "a citation chip")
        focused = page.evaluate("() => document.activeElement.getAttribute('data-fs-cite')")
        assert focused == opened, "Tab reached another citation first"

        page.keyboard.press("Enter")
        dialog = page.get_by_role("dialog")
        expect(dialog).to_contain_text("Transactions behind the number")
        wait_until_idle(page)
        screenshot(page, "keyboard-dialog", 1400)

        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()
        page.wait_for_function(
            "ref => document.activeElement"
            " && document.activeElement.getAttribute('data-fs-cite') === ref",
            arg=opened,
        )
        expect(answers_done(page)).to_have_count(1)
    finally:
        page.context.close()


def test_a_statement_is_paged_and_rows_downloaded_from_the_keyboard_on_a_phone(
    browser: Browser, server: AppServer
) -> None:
    page = open_app(browser, server, 390)
    try:
        ask(page, "What is the overdraft fee?")
        _tab_to(page, "el.matches('.fs-cite')", "a citation chip")
        page.keyboard.press("Enter")
        dialog = page.get_by_role("dialog")
        caption = dialog.get_by_text(re.compile(r"· page (\d+) of (\d+)"))
        expect(caption).to_be_visible()
        cited, pages = map(int, re.search(r"page (\d+) of (\d+)", caption.inner_text()).groups())
        other = cited - 1 if cited > 1 else cited + 1
        assert pages > 1, "the sample statements have several pages"

        _tab_to(
            page,
            "el.matches('input') && (el.getAttribute('aria-label') || '').startsWith('Page')",
            "the page number",
        )
        page.keyboard.press("Control+A")
        page.keyboard.type(str(other))
        page.keyboard.press("Enter")
        expect(dialog.get_by_text(re.compile(rf"· page {other} of {pages}"))).to_be_visible()
        wait_until_idle(page)
        screenshot(page, "keyboard-paged", 390)
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()

        ask(page, "How much did I spend on groceries in 2024?")
        _tab_to(
            page,
            "el.matches('.fs-cite') && el.closest('[data-testid=stChatMessage]') "
            "=== [...document.querySelectorAll('[data-testid=stChatMessage]')].pop()",
            "the newest answer's citation",
        )
        page.keyboard.press("Enter")
        expect(dialog).to_contain_text("Transactions behind the number")
        _tab_to(
            page,
            "el.matches('button') && el.innerText.includes('Download CSV')",
            "the download button",
        )
        with page.expect_download() as download:
            page.keyboard.press("Enter")
        rows = download.value.path().read_text(encoding="utf-8").splitlines()
        assert rows[0].startswith("Date,Merchant,Amount") and len(rows) > 1
    finally:
        page.context.close()


def _luminance(colour: str) -> float:
    channels = [int(colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(a: str, b: str) -> float:
    light, dark = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_chart_colours_stand_out_from_the_page() -> None:
    """WCAG's 3:1 for graphics: every series colour against both theme backgrounds."""
    theme = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["theme"]
    backgrounds = (theme["backgroundColor"], theme["secondaryBackgroundColor"])
    weak = [
        f"{colour} on {background}: {_contrast(colour, background):.2f}"
        for colour in theme["chartCategoricalColors"]
        for background in backgrounds
        if _contrast(colour, background) < 3
    ]
    assert not weak, weak
