"""The hostile corpus in the real app, in headless Chromium: names, descriptions and statement
text full of markup, links, images and scripts are shown as text. While questions surface them
(a listing, spend by category and by merchant, a monthly trend, a clarification, statement text),
citations are opened and the Sources page is browsed, every request the browser makes goes to
the app itself and no link or image in the page points anywhere else; the page's
Content-Security-Policy refuses an outside image as a second line of defence."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from elastic.engines import open_backend
from elastic.ingest.landing import ingest_file
from elastic.statement_store import StatementStore
from llm.embeddings import LocalEmbedder
from settings import Settings
from tests import hostile_inputs as hostile
from tests.app_server import AppServer, start_app
from tests.reliability import record
from tests.test_browser import (
    ANSWER_TIMEOUT_MS,
    UI_TIMEOUT_MS,
    Steps,
    answers_done,
    ask,
    last_answer,
    wait_until_idle,
)
from tests.test_browser import browser as browser  # the same headless Chromium fixture

pytestmark = [pytest.mark.browser, pytest.mark.reliability]

CSV = Path(__file__).parent / "fixtures" / "hostile" / "csv"
FILES = ("markup_names.csv", "formula_cells.csv")
HOSTILE_BANK = "![pixel](http://evil.example/b.png)"  # the bank of markup_names.csv
HOSTILE_ACCOUNT = '**Acct** <a href="http://evil.example/a">x</a>'

# Every URL an element of the page refers to, light DOM and shadow roots, HTML and SVG.
_REFERENCES_JS = """
() => {
  const found = [];
  const attributes = ["href", "src", "xlink:href", "srcset", "data", "action", "poster"];
  const visit = (root) => {
    for (const element of root.querySelectorAll("*")) {
      for (const name of attributes) {
        const value = element.getAttribute(name);
        if (value) found.push([element.tagName.toLowerCase(), name, value]);
      }
      if (element.shadowRoot) visit(element.shadowRoot);
    }
  };
  visit(document);
  return found;
}
"""

# An outside image, loaded the way injected markup would load one: the policy must refuse it.
_PROBE_JS = """
() => new Promise((resolve) => {
  document.addEventListener("securitypolicyviolation",
    (event) => resolve(event.effectiveDirective), {once: true});
  const image = new Image();
  image.src = "http://evil.example/csp-probe.png";
  setTimeout(() => resolve(null), 5000);
})
"""


@pytest.fixture(scope="module")
def server(
    embedder: LocalEmbedder, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[AppServer]:
    """The app over the hostile corpus and statements, for the app's local user."""
    data_dir = tmp_path_factory.mktemp("hostile-browser") / "data"
    settings = Settings(data_dir=data_dir, es_url=None)
    backend = open_backend(settings)
    store = StatementStore(settings.statements_dir)
    try:
        backend.prepare(embedder.dims, embedder.model_name)
        for name in FILES:
            assert ingest_file(backend, CSV / name, settings.user).indexed > 0
        for write in (hostile.markup_statement, hostile.injection_statement):
            pdf = write(data_dir.parent / f"{write.__name__}.pdf")
            assert ingest_file(backend, pdf, settings.user, embedder, store).indexed == 1
    finally:
        backend.close()
    app = start_app(data_dir, log_name="app-server-hostile.log")
    try:
        yield app
    finally:
        app.stop()


def outside(url: str, origin: str) -> bool:
    """Whether ``url`` leaves the app: anything but its own origin, or data and blob URLs."""
    parts = urlsplit(url)
    if parts.scheme in ("data", "blob", "about") or url.startswith("#"):
        return False
    return f"{parts.scheme}://{parts.netloc}" != origin


def outside_references(page: Page, origin: str) -> list[list[str]]:
    """Elements whose link, image or other reference resolves outside the app."""
    found = []
    for tag, name, value in page.evaluate(_REFERENCES_JS):
        urls = [part.split()[0] for part in value.split(",") if part.split()]
        if name != "srcset":
            urls = [value.strip()]
        if any(outside(urljoin(page.url, url), origin) for url in urls):
            found.append([tag, name, value])
    return found


def shown(locator: Locator) -> str:
    """The text as a reader sees it: the invisible word joiners that keep URLs from becoming
    links left out."""
    return locator.inner_text().replace("\u2060", "")


def test_hostile_names_stay_text_and_nothing_reaches_outside(
    browser: Browser, server: AppServer, request: pytest.FixtureRequest
) -> None:
    origin = server.url
    requests: list[str] = []
    alerts: list[str] = []
    context = browser.new_context(viewport={"width": 1400, "height": 1500})
    context.on("request", lambda req: requests.append(req.url))
    page = context.new_page()
    page.on("dialog", lambda dialog: (alerts.append(dialog.message), dialog.dismiss()))
    page.set_default_timeout(UI_TIMEOUT_MS)
    steps = Steps(page, request.node.name)
    references: list[list[str]] = []

    def check_page() -> None:
        references.extend(outside_references(page, origin))

    try:
        with steps.step("welcome"):
            page.goto(origin)
            expect(page.get_by_test_id("stChatInputTextArea")).to_be_visible(
                timeout=ANSWER_TIMEOUT_MS
            )
            caption = page.get_by_text("evil.example/b.png").first
            expect(caption).to_be_visible()
            assert HOSTILE_BANK in shown(caption) and HOSTILE_ACCOUNT in shown(caption)
            check_page()

        with steps.step("clarify"):
            ask(page, "blorp")  # first: not a follow-up; suggestions name the user's data
            suggestions = last_answer(page).get_by_role("button")
            expect(suggestions.first).to_be_visible()
            assert any("<" in text for text in suggestions.all_inner_texts())
            check_page()

        with steps.step("listing"):
            ask(page, "List my transactions in 2024")
            expect(last_answer(page).locator("table.fs-tx")).to_be_visible()
            check_page()

        with steps.step("by-category"):
            ask(page, "How much did I spend by category in 2024?")
            chart = last_answer(page).locator(".js-plotly-plot")
            expect(chart).to_be_visible(timeout=UI_TIMEOUT_MS)
            expect(chart).to_contain_text('<a href="http://evil.example/plotly">Fees</a>')
            expect(chart).to_contain_text("<b>Bold</b> & <i>Co</i>")
            check_page()

        with steps.step("by-merchant"):
            ask(page, "How much did I spend by merchant in 2024?")
            chart = last_answer(page).locator(".js-plotly-plot")
            expect(chart).to_be_visible(timeout=UI_TIMEOUT_MS)
            expect(chart).to_contain_text('<img src="http://evil.example/m.png"')
            check_page()

        with steps.step("merchant-filter"):
            ask(page, "How much did I spend at www.evil.example in 2024?")
            answer = last_answer(page)
            assert "at www.evil.example" in shown(answer)
            check_page()

        with steps.step("rows-behind"):
            answer.locator(".fs-cite").first.click()
            viewer = page.get_by_role("dialog")
            expect(viewer).to_contain_text("Transactions behind the number")
            assert "www.evil.example" in shown(viewer)
            check_page()
            page.keyboard.press("Escape")
            expect(viewer).to_be_hidden()

        with steps.step("trend"):
            ask(page, "Show monthly spending in 2024")
            expect(last_answer(page).locator(".js-plotly-plot")).to_be_visible(
                timeout=UI_TIMEOUT_MS
            )
            check_page()

        with steps.step("statement-text"):
            page.get_by_role("button", name="Clear chat").click()  # a new topic, no follow-up
            expect(answers_done(page)).to_have_count(0)
            wait_until_idle(page)
            ask(page, "What is the wire transfer fee?")
            answer = last_answer(page)
            assert "http://evil.example/pdf-link) Wire transfer fee $25.00" in shown(answer)
            check_page()

        with steps.step("statement-viewer"):
            answer.locator(".fs-cite").first.click()
            viewer = page.get_by_role("dialog")
            expect(viewer).to_contain_text("Statement page")
            expect(viewer.locator("mark")).to_contain_text("Wire transfer fee $25.00")
            expect(viewer).to_contain_text('<script>alert("pdf")</script>')
            check_page()
            page.keyboard.press("Escape")
            expect(viewer).to_be_hidden()

        with steps.step("sources"):
            page.get_by_role("link", name="Sources").click()
            expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
            page.get_by_role("button", name="Open page").click()
            viewer = page.get_by_role("dialog")
            expect(viewer).to_contain_text("Statement page")
            check_page()
            page.keyboard.press("Escape")
            page.get_by_role("tab", name="Transactions").click()
            wait_until_idle(page)
            expect(page.get_by_text(re.compile(r"^Transactions 1–"))).to_be_visible()
            check_page()

        tracebacks = page.get_by_test_id("stException").count()
        leaving = sorted({url for url in requests if outside(url, origin)})
        with steps.step("content-security-policy"):
            refused_by = page.evaluate(_PROBE_JS)
    finally:
        context.close()

    assert requests and leaving == []
    assert references == []
    assert alerts == []
    assert tracebacks == 0
    assert refused_by == "img-src"
    record(
        "markup",
        "hostile corpus in the browser",
        f"{len(requests)} requests, {len(leaving)} outside; {len(references)} outside references",
        backend="embedded",
        outside_requests=len(leaving),
        tracebacks_shown=tracebacks,
    )
