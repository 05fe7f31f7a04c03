"""The chat draws a comparison as side-by-side bars (Streamlit ``AppTest``, real embedded store):
one bar per side, its value checked against the pandas reference, and the same values said in
the caption under the chart."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from elastic.model.plan import Intent, IntentPlan
from llm.answering.wording import money
from llm.embeddings import LocalEmbedder
from scripts.sample_data import SampleSet
from tests import pandas_reference as ref
from tests.app_server import APP, ingest_sample_into
from tests.test_hostile_markup import read_back


@pytest.fixture(scope="module")
def data_dir(
    sample_set: SampleSet, embedder: LocalEmbedder, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    return ingest_sample_into(tmp_path_factory.getbasetemp() / "ui-sample", sample_set, embedder)


def test_a_comparison_draws_one_bar_per_side(
    data_dir: Path, sample_set: SampleSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("FINSYNC_ES_URL", "FINSYNC_GCP_PROJECT", "FINSYNC_USER", "FINSYNC_EMBEDDER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FINSYNC_DATA_DIR", str(data_dir))
    at = AppTest.from_file(str(APP), default_timeout=180)
    at.run()
    at.chat_input[0].set_value("Did we spend more on dining in Q1 2025 or Q2 2025?").run()
    assert not at.exception, at.exception

    (chart,) = at.get("plotly_chart")
    figure = json.loads(chart.proto.spec)
    (bars,) = figure["data"]
    assert bars["type"] == "bar" and bars["x"] == ["Q1 2025", "Q2 2025"]
    plan = IntentPlan.model_validate(
        {
            "intent": Intent.aggregate,
            "categories": ["Dining"],
            "compare": [
                {"date_from": "2025-01-01", "date_to": "2025-03-31"},
                {"date_from": "2025-04-01", "date_to": "2025-06-30"},
            ],
        }
    )
    want = ref.compare(ref.load(sample_set.transactions_csv), plan)
    assert [Decimal(str(y)) for y in bars["y"]] == [side["value"] for side in want["sides"]]
    assert figure["layout"]["title"]["text"] == "Spending — Dining"
    first, second = (money(side["value"]) for side in want["sides"])
    (summary,) = [c.value for c in at.caption if c.value.startswith("Spending")]
    assert read_back(summary).startswith(f"Spending. Q1 2025: {first}, Q2 2025: {second}; change")
