"""The first minutes in a real headless Chromium: the first screen's picture of the money and
its tiles asking their questions, a click on a bar, a point or a slice opening the rows behind
it, the copy button putting the answer's text and numbers on the clipboard, and a reload keeping
the conversation. Numbers are checked against the sample CSV; screenshots at desktop and phone
widths go to ``test-artifacts/screenshots/``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal

import pandas as pd
import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from llm.answering.wording import money
from llm.embeddings import LocalEmbedder
from scripts.sample_data import SampleSet
from tests.app_server import AppServer, sample_app, sample_transactions, spent
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

WIDTHS = (1400, 390)


@pytest.fixture(scope="module")
def server(
    sample_set: SampleSet, embedder: LocalEmbedder, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[AppServer]:
    with sample_app(sample_set, embedder, tmp_path_factory, "first", "app-server-first.log") as app:
        yield app


@pytest.fixture(scope="module")
def transactions(sample_set: SampleSet) -> pd.DataFrame:
    return sample_transactions(sample_set)


def open_app(browser: Browser, server: AppServer, width: int = 1400) -> Page:
    fresh_conversation(server)
    height = 844 if width < 600 else 1600
    context = browser.new_context(viewport={"width": width, "height": height})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    page = context.new_page()
    page.set_default_timeout(UI_TIMEOUT_MS)
    page.goto(server.url)
    expect(page.get_by_test_id("stChatInputTextArea")).to_be_visible(timeout=ANSWER_TIMEOUT_MS)
    wait_until_idle(page)
    return page


def screenshot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    width = page.viewport_size["width"] if page.viewport_size else 0
    page.screenshot(path=str(SCREENSHOTS / f"{name}-{width}.png"), full_page=True)


def click_mark(page: Page, mark: Locator, at: float = 0.15) -> None:
    """A click on a bar, point or slice where a person would click: the pointer comes to it
    first, so plotly knows what is under it."""
    mark.scroll_into_view_if_needed()
    page.wait_for_timeout(500)  # a chart just drawn settles (its size, its hover layer)
    box = mark.bounding_box()
    assert box is not None
    x, y = box["x"] + max(box["width"] * at, min(3, box["width"] / 2)), box["y"] + box["height"] / 2
    page.mouse.move(x, y, steps=3)
    page.wait_for_timeout(300)  # plotly finds what is under the pointer on its next frame
    page.mouse.click(x, y)


def dialog_rows(page: Page) -> int:
    """How many transactions the open dialog says it lists."""
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("Transactions behind the number", timeout=UI_TIMEOUT_MS)
    found = re.search(r"([\d,]+) transactions? ·", dialog.inner_text())
    assert found, dialog.inner_text()[:300]
    return int(found[1].replace(",", ""))


@pytest.mark.parametrize("width", WIDTHS)
def test_the_first_screen_pictures_the_money_and_its_tiles_ask(
    browser: Browser, server: AppServer, transactions: pd.DataFrame, width: int
) -> None:
    page = open_app(browser, server, width)
    try:
        overview = page.locator(".st-key-overview")
        expect(overview.get_by_test_id("stMetric")).to_have_count(4)
        june, _ = spent(transactions, "2025-06-01", "2025-06-30")
        checking = transactions[transactions["account_name"] == "Everyday Checking"]
        balance = money(Decimal(checking.iloc[-1]["balance"]))
        expect(overview).to_contain_text(balance)
        expect(overview).to_contain_text(money(june))
        expect(page.locator(".st-key-examples").get_by_role("button")).to_have_count(4)
        screenshot(page, "first-screen")

        tile = overview.get_by_role("button", name=re.compile("^List my 3 largest payments"))
        tile.click()
        expect(answers_done(page)).to_have_count(1, timeout=ANSWER_TIMEOUT_MS)
        expect(last_answer(page).locator("table.fs-tx tbody tr")).to_have_count(3)
        expect(last_answer(page)).to_contain_text("The 3 largest of")
        expect(page.get_by_role("button", name="Edit")).to_have_count(1)
        wait_until_idle(page)
        screenshot(page, "tile-answered")
    finally:
        page.context.close()


def test_a_bar_a_point_and_a_slice_open_their_transactions(
    browser: Browser, server: AppServer, transactions: pd.DataFrame
) -> None:
    page = open_app(browser, server)
    try:
        ask(page, "How much did I spend in 2024 by category?")
        answer = last_answer(page)
        spend = transactions[
            (transactions["date"].dt.year == 2024)
            & (transactions["amount"] < 0)
            & (transactions["category"] != "Transfers")
        ]
        counts = spend.groupby("category").size()
        bars = answer.locator(".js-plotly-plot .barlayer .point")
        expect(bars.last).to_be_visible()
        # Bars are drawn largest at the top: the last mark is the largest group.
        click_mark(page, bars.last)
        wait_until_idle(page)
        assert dialog_rows(page) == counts[spend.groupby("category")["amount"].sum().idxmin()]
        screenshot(page, "bar-rows")
        page.keyboard.press("Escape")
        expect(page.get_by_role("dialog")).to_be_hidden()

        answer.get_by_text("Show as pie chart").click()
        slices = answer.locator(".js-plotly-plot .pielayer .slice")
        expect(slices.first).to_be_visible()
        wait_until_idle(page)
        click_mark(page, slices.first, at=0.85)
        wait_until_idle(page)
        largest = spend.groupby("category")["amount"].sum().idxmin()  # most money out
        assert dialog_rows(page) == counts[largest]
        screenshot(page, "slice-rows")
        page.keyboard.press("Escape")
        expect(page.get_by_role("dialog")).to_be_hidden()

        ask(page, "Show monthly grocery spending for 2024")
        points = last_answer(page).locator(".js-plotly-plot .scatterlayer .point")
        expect(points).to_have_count(12)
        click_mark(page, points.nth(2), at=0.5)  # March 2024
        wait_until_idle(page)
        _, march = spent(transactions, "2024-03-01", "2024-03-31", category="Groceries")
        assert dialog_rows(page) == march
    finally:
        page.context.close()


def test_copy_puts_the_answers_text_and_numbers_on_the_clipboard(
    browser: Browser, server: AppServer, transactions: pd.DataFrame
) -> None:
    page = open_app(browser, server)
    try:
        ask(page, "How much did I spend in 2024 by category?")
        copy = last_answer(page).get_by_role("button", name="Copy the answer's text and numbers")
        copy.click()
        expect(copy).to_contain_text("Copied")
        copied = page.evaluate("() => navigator.clipboard.readText()")
        total, count = spent(transactions, "2024-01-01", "2024-12-31")
        assert f"You spent {money(total)} from Jan 1, 2024 to Dec 31, 2024" in copied
        assert "Category\tSum\tTransactions" in copied
        dining, dinners = spent(transactions, "2024-01-01", "2024-12-31", category="Dining")
        assert f"Dining\t{money(dining)}\t{dinners}" in copied
        assert f"[1] {count:,} transactions" in copied
        screenshot(page, "copied")
    finally:
        page.context.close()


def test_a_reload_keeps_the_conversation(
    browser: Browser, server: AppServer, transactions: pd.DataFrame
) -> None:
    page = open_app(browser, server)
    try:
        ask(page, "How much did I spend on groceries in 2024?")
        last_answer(page).get_by_role("button", name="By month").click()
        expect(answers_done(page)).to_have_count(2, timeout=ANSWER_TIMEOUT_MS)
        wait_until_idle(page)
        page.reload()
        expect(answers_done(page)).to_have_count(2, timeout=ANSWER_TIMEOUT_MS)
        wait_until_idle(page)
        messages = page.get_by_test_id("stChatMessage")
        expect(messages.nth(0)).to_contain_text("How much did I spend on groceries in 2024?")
        groceries, _ = spent(transactions, "2024-01-01", "2024-12-31", category="Groceries")
        # The turns are answered again from their plans as the page is drawn (a loaded
        # machine may take a while): the same numbers come back.
        expect(messages.nth(1).get_by_test_id("stMetricValue").first).to_have_text(
            money(groceries), timeout=UI_TIMEOUT_MS
        )
        expect(messages.nth(2)).to_contain_text("By month")
        expect(messages.nth(3).locator(".js-plotly-plot")).to_be_visible(timeout=UI_TIMEOUT_MS)
        screenshot(page, "reloaded")

        page.get_by_role("button", name="Clear chat").click()
        expect(answers_done(page)).to_have_count(0, timeout=UI_TIMEOUT_MS)
        page.reload()
        expect(page.locator(".st-key-overview")).to_be_visible(timeout=ANSWER_TIMEOUT_MS)
        expect(answers_done(page)).to_have_count(0)
    finally:
        page.context.close()
