"""A transaction read from a statement PDF, end to end in headless Chromium: its citation opens
the statement page it was read from, and of several rows behind a number the one chosen opens
on its page (a dialog's own rerun, which only a browser runs). Screenshots go to
``test-artifacts/screenshots``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.app_server import AppServer, copy_data_dir, start_app
from tests.test_browser import (  # noqa: F401 (fixtures)
    Steps,
    ask,
    browser,
    last_answer,
    page,
    steps,
)
from tests.test_statement_ui import samples, statement_dir  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(statement_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:  # noqa: F811
    """The app over a copy of a store holding two sample statements."""
    data_dir = copy_data_dir(statement_dir, tmp_path_factory.mktemp("statement-browser") / "data")
    app = start_app(data_dir, "statement-app-server.log")
    try:
        yield app
    finally:
        app.stop()


def test_a_statement_row_opens_on_its_page(page: Page, steps: Steps) -> None:  # noqa: F811
    with steps.step("one-row"):
        ask(page, "How much did I spend at Mercury Energy?")
        expect(last_answer(page)).to_contain_text("not reconciled with the balances printed")
        last_answer(page).locator(".fs-cite").first.click()
        viewer = page.get_by_role("dialog")
        expect(viewer.locator("figure.fs-page-image img")).to_be_visible()
        expect(viewer).to_contain_text("nz_everyday_2023-02.pdf · February 2023")
        expect(viewer).to_contain_text("MERCURY ENERGY")
        # Never the name the file is kept under (its content's digest).
        expect(viewer).not_to_contain_text(re.compile(r"[0-9a-f]{16,}\.pdf"))

    with steps.step("several-rows"):
        page.keyboard.press("Escape")
        expect(viewer).to_be_hidden()
        ask(page, "How much did I spend at Tesco?")
        last_answer(page).locator(".fs-cite").first.click()
        viewer = page.get_by_role("dialog")
        expect(viewer.locator("table.fs-tx")).to_be_visible()
        expect(viewer.locator("figure.fs-page-image")).to_have_count(0)
        viewer.get_by_test_id("stSelectbox").click()
        page.get_by_role("option", name=re.compile(r"Tesco")).first.click()
        expect(viewer.locator("figure.fs-page-image img")).to_be_visible()
        expect(viewer).to_contain_text("Harbour & Crane Bank")
