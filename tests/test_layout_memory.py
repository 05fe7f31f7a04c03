"""A column reading chosen by hand is remembered per user and per layout."""

from __future__ import annotations

from pathlib import Path

from elastic.ingest import bank_csv
from elastic.ingest.layout_memory import LayoutMemory

CARD = "When;What;How much\n03/05/2025;KITE SHOP;12,50\n04/05/2025;KITE SHOP ONLINE;2,00\n"


def test_a_reading_is_kept_for_the_layout_and_the_user(tmp_path: Path):
    first, later, other = tmp_path / "may.csv", tmp_path / "june.csv", tmp_path / "other.csv"
    first.write_text(CARD)
    later.write_text("When;What;How much\n05/06/2025;KITE SHOP;7,00\n")
    other.write_text("Date,Text,Sum\n2025-06-05,KITE,7.00\n")
    chosen = bank_csv.ColumnMapping(
        date="When", description=("What",), amount="How much", sign="spend_positive"
    )
    memory = LayoutMemory(tmp_path / "layouts", "alice@example.com")
    assert memory.get(first) is None
    assert memory.remember(first, chosen)
    assert memory.get(later) == chosen  # same columns, another month
    assert memory.get(other) is None  # another layout
    assert LayoutMemory(tmp_path / "layouts", "bob@example.com").get(later) is None
    assert [str(r.amount) for r in bank_csv.read(later, memory.get(later)).rows] == ["-7.00"]


def test_a_damaged_memory_is_ignored(tmp_path: Path):
    path = tmp_path / "may.csv"
    path.write_text(CARD)
    memory = LayoutMemory(tmp_path / "layouts", "alice")
    memory.remember(path, bank_csv.ColumnMapping(date="When", amount="How much"))
    for stored in (tmp_path / "layouts").iterdir():
        stored.write_text("{not json")
    assert memory.get(path) is None


def test_the_command_reads_a_layout_the_way_its_user_chose(tmp_path: Path):
    """``finsync ingest`` and the Ingest page share the remembered readings."""
    import json

    from typer.testing import CliRunner

    from scripts.cli import app
    from settings import Settings

    data = tmp_path / "data"
    june = tmp_path / "june.csv"
    june.write_text("When;What;How much\n05/06/2025;KITE SHOP;7,00\n06/06/2025;CAFE;3,00\n")
    chosen = bank_csv.ColumnMapping(
        date="When", description=("What",), amount="How much", sign="spend_positive"
    )
    LayoutMemory(Settings(data_dir=data).layouts_dir, "carol").remember(june, chosen)
    env = {"FINSYNC_DATA_DIR": str(data), "FINSYNC_EMBEDDER": "local"}
    runner = CliRunner()
    landed = runner.invoke(app, ["ingest", str(june), "--user", "carol"], env=env)
    assert "2 indexed" in landed.output, landed.output
    asked = runner.invoke(
        app,
        ["ask", "How much did I spend?", "--user", "carol", "--json", "--as-of", "2025-06-30"],
        env=env,
    )
    answer = json.loads(asked.output.splitlines()[-1])
    assert answer["data"]["value"] == 10.0, answer["answer"]
