"""Gemini proposes column readings through the real SDK on a loopback server; a proposal is
used only when the file then reads at least as well as it does offline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from elastic.ingest import bank_csv
from llm.gemini_columns import GeminiColumns
from tests.gemini_setup import loopback_vertex
from tests.vertex_loopback import Reply, VertexLoopback

# No column holds dates the offline reader knows ("Q3/05"): only a proposal can read it...
# and the proposal must then read the rows, which these cannot: the file stays unread.
UNDATED = "Ref;Text;Sum\nA1;KITE SHOP;-12,50\nA2;POCKET MONEY;20,00\n"
# Every amount is positive and no running balance says which way they went: the offline
# reading is unsure (money in, or card spend?).
CARD = "When;What;How much;Left\n03/05/2025;KITE SHOP;12,50;87,50\n04/05/2025;CAFE;2,00;90,00\n"


@pytest.fixture
def columns(server: VertexLoopback) -> GeminiColumns:
    settings, client = loopback_vertex(server, vertex_timeout_s=0.5, vertex_retries=1)
    return GeminiColumns(settings, client, backoff_s=0.01)


def roles(**chosen: str) -> Reply:
    names = ("date", "description", "amount", "debit", "credit", "merchant", "balance", "currency")
    return Reply(text=json.dumps({name: chosen.get(name, "") for name in names}))


def test_a_proposal_that_reads_the_file_is_used(server, columns, tmp_path: Path):
    path = tmp_path / "card.csv"
    path.write_text(CARD)
    server.always(roles(date="When", description="What", amount="How much", balance="Left"))
    mapping = columns.propose(path)
    assert mapping is not None
    assert (mapping.date, mapping.amount, mapping.balance) == ("When", "How much", "Left")
    (call,) = server.calls("generateContent")
    assert "<<<ROWS>>>" in call.user_text and "KITE SHOP" in call.user_text
    schema = call.body["generationConfig"]["responseSchema"]
    assert schema["properties"]["date"]["enum"] == ["When", "What", "How much", "Left", ""]


@pytest.mark.parametrize(
    "reply",
    [
        roles(date="Ref", description="Text", amount="Sum"),  # reads no date: rows fail
        roles(date="Colour", amount="Sum"),  # a column the file does not have
        Reply(text="not json"),
        Reply.error(503),
    ],
)
def test_a_proposal_the_file_does_not_confirm_is_dropped(server, columns, tmp_path, reply):
    path = tmp_path / "undated.csv"
    path.write_text(UNDATED)
    server.always(reply)
    assert columns.propose(path) is None


def test_no_call_for_a_file_read_offline_without_doubt(server, columns, tmp_path: Path):
    path = tmp_path / "plain.csv"
    path.write_text("Date,Description,Amount\n2025-05-03,KITE SHOP,-12.50\n2025-05-04,CAFE,2.00\n")
    assert bank_csv.inspect(path).mapping is not None
    assert columns.propose(path) is None
    assert not server.calls("generateContent")
