"""A user id is a name, never a path: refused at the door when unusable, and kept files are
reached only by their owner."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from elastic.statement_store import StatementStore
from elastic.user_ids import MAX_LENGTH, InvalidUserId, checked_user_id, storage_key
from scripts.sample_data import SampleSet
from tests.reliability import record
from tests.test_cli import finsync

pytestmark = pytest.mark.reliability

REFUSED = {
    "empty": "",
    "blank": "   ",
    "one dot": ".",
    "two dots": "..",
    "slash": "alice/../bob",
    "backslash": "alice\\bob",
    "escape": "alice\x1b]52;c;SGVsbG8=\x07",
    "bidi override": "alice\u202egnp.exe",
    "zero width": "ali\u200bce",
    "spaces around": " alice",
    "too long": "a" * (MAX_LENGTH + 1),
}


@pytest.mark.parametrize("raw", REFUSED.values(), ids=REFUSED.keys())
def test_unusable_ids_are_refused_with_a_reason(raw: str) -> None:
    with pytest.raises(InvalidUserId) as refused:
        checked_user_id(raw)
    assert "user id" in str(refused.value) and "\n" not in str(refused.value)
    with pytest.raises(InvalidUserId):
        storage_key(raw)


@pytest.mark.parametrize(
    "raw", ["local", "john+doe@example.com", "müller@example.de", "john..doe", "a" * MAX_LENGTH]
)
def test_usable_ids_are_kept_exactly(raw: str) -> None:
    assert checked_user_id(raw) == raw


def test_ids_that_differ_only_in_punctuation_or_accents_get_folders_of_their_own() -> None:
    pairs = [
        ("john_doe@example.com", "john+doe@example.com"),
        ("müller@example.de", "möller@example.de"),
        ("Alice", "alice"),
    ]
    for one, other in pairs:
        assert storage_key(one) != storage_key(other)
        record("users", f"ids {one!r} and {other!r}", "folders of their own", leaks=0)
    assert all(len(storage_key(a)) == 32 and storage_key(a).isalnum() for a, _ in pairs)


def test_kept_statements_are_reached_only_by_their_owner(tmp_path: Path) -> None:
    store = StatementStore(tmp_path / "statements")
    pdf = tmp_path / "march.pdf"
    pdf.write_bytes(b"%PDF-1.4 a statement")
    alice, bob = "john_doe@example.com", "john+doe@example.com"
    name = store.name_for(pdf, alice)
    store.keep(pdf, name, alice)
    assert store.path(name, alice).read_bytes() == pdf.read_bytes()
    for stranger_name in (name, f"../{name}", f"{storage_key(bob)}/../{name}"):
        with pytest.raises(ValueError):
            store.path(stranger_name, bob)
    assert store.remove([name], bob) == [] and store.remove(None, bob) == []
    assert store.path(name, alice).exists()

    # A folder whose recorded owner is someone else is not the caller's, whatever its name.
    (store.root / storage_key(alice) / "OWNER").write_text(bob, encoding="utf-8")
    with pytest.raises(ValueError):
        store.path(name, alice)
    (store.root / storage_key(alice) / "OWNER").write_text(alice, encoding="utf-8")

    assert store.remove(None, alice) == [name]
    assert not (store.root / storage_key(alice)).exists() and store.root.exists()


def test_the_command_refuses_ids_that_would_reach_the_whole_store(
    tmp_path: Path, sample_set: SampleSet
) -> None:
    data = tmp_path / "data"
    env = {"FINSYNC_DATA_DIR": str(data)}
    statement = shutil.copy(sample_set.statement_pdfs[0], tmp_path / "march.pdf")
    landed = finsync("ingest", statement, "--user", "alice", env=env, cwd=tmp_path)
    assert landed.returncode == 0, landed.stderr[-2000:]
    kept = sorted(p.relative_to(data) for p in data.rglob("*.pdf"))
    assert len(kept) == 1

    for raw in ("..", ".", "", "a" * 300, "../alice", "bob\x1b[2J"):
        for command in (["forget", "--all"], ["ingest", statement], ["ask", "how much?"]):
            result = finsync(*command, "--user", raw, env=env, cwd=tmp_path)
            assert result.returncode == 2, (command, raw, result.stderr)
            assert "user id" in result.stderr and "Traceback" not in result.stderr
            assert "\x1b" not in result.stderr
        record(
            "users",
            f"--user {raw[:20]!r}{'…' if len(raw) > 20 else ''} on forget --all, ingest and ask",
            "refused with the reason, exit 2; nothing in the store touched",
            backend="embedded",
            leaks=0,
            tracebacks_shown=0,
        )
    assert sorted(p.relative_to(data) for p in data.rglob("*.pdf")) == kept

    (listed,) = finsync("forget", "--list", "--user", "alice", env=env, cwd=tmp_path).stdout.split(
        "\n", 1
    )[:1]
    # The file as it was imported, with its statement month: never the path it is kept under.
    alices_file, month, contents = listed.split("\t")
    assert (alices_file, month) == ("march.pdf", "January 2024")
    assert contents.startswith("statement, 3 pages")
    stranger = finsync("forget", alices_file, "--user", "bob", env=env, cwd=tmp_path)
    assert stranger.returncode == 1 and "is not one of bob's files" in stranger.stderr
    assert "forgot 0 stored document(s) and 0 kept PDF(s)" in stranger.stdout
    nothing = finsync("forget", "--all", "--user", "bob", env=env, cwd=tmp_path)
    assert nothing.returncode == 1
    assert sorted(p.relative_to(data) for p in data.rglob("*.pdf")) == kept
    record(
        "users",
        "forget another user's stored PDF by its name, and --all for a user with nothing",
        "nothing removed, the name reported as not the caller's, exit 1",
        backend="embedded",
        leaks=0,
        tracebacks_shown=0,
    )

    own = finsync("forget", "--all", "--user", "alice", env=env, cwd=tmp_path)
    assert own.returncode == 0, own.stderr
    assert f"forgot {alices_file}" in own.stdout and "1 kept PDF(s) of 1 file(s)" in own.stdout
    assert not list(data.rglob("*.pdf")) and (data / "statements").is_dir()
