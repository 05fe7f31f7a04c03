"""Gemini as the categoriser of last resort, driven through the real SDK on a loopback server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.ingest.landing import FileDefaults, ingest_file
from elastic.model.plan import Direction, Intent, IntentPlan
from elastic.statement_store import StatementStore
from llm.gemini_categories import GeminiCategoriser
from settings import Settings
from tests.gemini_setup import loopback_vertex
from tests.vertex_loopback import Reply, VertexLoopback

CATEGORIES = ["Groceries", "Dining", "Health"]


@pytest.fixture
def categoriser(server: VertexLoopback) -> GeminiCategoriser:
    settings, client = loopback_vertex(server, vertex_timeout_s=0.5, vertex_retries=1)
    return GeminiCategoriser(settings, CATEGORIES, client, backoff_s=0.01)


def test_an_allowed_answer_is_taken_once_per_merchant(server, categoriser):
    server.always(Reply(text=json.dumps({"category": "Health"})))
    assert categoriser("Zahnarzt Dr Weiss", "LASTSCHRIFT ZAHNARZT DR WEISS") == "Health"
    assert categoriser("Zahnarzt Dr Weiss", "another descriptor") == "Health"
    (call,) = server.calls("generateContent")
    assert "<<<DESCRIPTOR>>>" in call.user_text and "Zahnarzt" in call.user_text
    schema = call.body["generationConfig"]["responseSchema"]
    assert schema["properties"]["category"]["enum"] == [*CATEGORIES, ""]


@pytest.mark.parametrize(
    "reply",
    [Reply(text=json.dumps({"category": "Weapons"})), Reply(text="not json"), Reply.error(500)],
)
def test_a_bad_or_failed_answer_is_no_category(server, categoriser, reply):
    server.always(reply)
    assert categoriser("Mystery Shop", "MYSTERY SHOP 123") is None


def test_ingest_uses_it_only_for_rows_nothing_else_knows(server, categoriser, tmp_path: Path):
    server.always(Reply(text=json.dumps({"category": "Health"})))
    csv = tmp_path / "export.csv"
    csv.write_text(
        "Date,Description,Amount\n"
        "2025-03-01,LASTSCHRIFT WEISS UND PARTNER GBR,-80.00\n"
        "2025-03-02,TESCO STORES 2231 LONDON,-12.00\n"
    )
    backend = EmbeddedBackend(Settings(data_dir=tmp_path / "data"))
    backend.prepare(384, "test")
    report = ingest_file(
        backend,
        csv,
        "u",
        defaults=FileDefaults(currency="EUR", account_name="Giro", bank_name="B"),
        fallback=categoriser,
        store=StatementStore(tmp_path),
    )
    assert report.indexed == 2 and not report.problems, report
    rows = backend.listing("u", IntentPlan(intent=Intent.listing, direction=Direction.any)).rows
    categories = {r.description: (r.category, r.category_inferred) for r in rows}
    assert categories == {
        "LASTSCHRIFT WEISS UND PARTNER GBR": ("Health", True),
        "TESCO STORES 2231 LONDON": ("Groceries", True),
    }
    assert len(server.calls("generateContent")) == 1  # Tesco is known to the rules
    backend.close()
