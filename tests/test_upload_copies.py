"""Nothing of an upload outlives its import: copies live in the user's own folder under the data
directory and go when the import ends, when the user forgets all their data, and when the
server stops (or, after a crash, when the next one starts)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.uploads import UploadStore
from elastic.user_ids import storage_key
from llm.embeddings import LocalEmbedder
from llm.ingesting import FileDefaults, Importer
from llm.pipeline import ChatPipeline
from llm.services import statement_store
from llm.understanding.offline_router import OfflineRouter
from settings import Settings
from tests.app_server import UPLOAD_CSV, start_app
from tests.reliability import record

pytestmark = pytest.mark.reliability


def _dead_pid() -> int:
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


def _copy(folder: Path, name: str = "upload.csv") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(UPLOAD_CSV, encoding="utf-8")
    return path


def test_copies_live_in_the_users_own_folder_and_go_with_forget(tmp_path: Path) -> None:
    store = UploadStore(tmp_path / "uploads")
    alice = store.folder("alice", "s1")
    assert alice == tmp_path / "uploads" / str(os.getpid()) / storage_key("alice") / "s1"
    first, second = _copy(alice, "a.csv"), _copy(alice, "b.csv")
    bob = _copy(store.folder("bob", "s2"))
    elsewhere = _copy(tmp_path / "uploads" / str(os.getppid()) / storage_key("alice") / "s9")

    store.discard(first)
    assert not first.exists() and second.exists()  # the folder stays while it holds a copy
    store.discard(second)
    assert not alice.exists()

    _copy(alice)
    store.forget("alice")
    assert not alice.exists() and not elsewhere.exists() and bob.exists()
    record("files", "Forget all my data with uploads kept", "the user's copies gone, others' kept")


def test_an_import_reads_a_copy_of_its_own_and_previews_go_with_the_page(tmp_path: Path) -> None:
    store = UploadStore(tmp_path / "uploads")
    session = store.folder("alice", "s1")
    shown, dropped = _copy(session / "digest-a", "a.csv"), _copy(session / "digest-b", "b.csv")
    importing = store.for_import(shown)
    assert importing.read_bytes() == shown.read_bytes() and importing.parent.parent == session

    store.keep_previews(session, {"digest-a"})
    assert shown.exists() and importing.exists() and not dropped.parent.exists()
    store.discard(importing)  # the import ended: the page still previews its own copy
    assert not importing.parent.exists() and shown.exists()
    store.keep_previews(session, set())
    assert not list(session.iterdir())


def test_a_stopping_process_and_dead_ones_leave_nothing(tmp_path: Path) -> None:
    store = UploadStore(tmp_path / "uploads")
    own = _copy(store.folder("alice", "s1"))
    crashed = _copy(tmp_path / "uploads" / str(_dead_pid()) / "k" / "s")
    running = _copy(tmp_path / "uploads" / str(os.getppid()) / "k" / "s")

    store.sweep()
    assert own.exists() and running.exists() and not crashed.exists()
    store.sweep(stopping=True)
    assert not own.exists() and running.exists()


def test_an_import_deletes_its_copy(tmp_path: Path, embedder: LocalEmbedder) -> None:
    settings = Settings(data_dir=tmp_path / "data", es_url=None)
    backend = EmbeddedBackend(settings)
    backend.prepare(embedder.dims, embedder.model_name)
    try:
        pipeline = ChatPipeline(backend, embedder, OfflineRouter)
        importer = Importer(pipeline, settings, statement_store(settings), "alice")
        copy = _copy(importer.upload_folder("s1") / "digest", "kites.csv")
        report = importer.land(copy, FileDefaults(), None, lambda done, total, label: None)
        assert report.indexed == 2 and not copy.exists() and not copy.parent.exists()
    finally:
        backend.close()


def test_the_served_app_sweeps_upload_copies_when_it_starts_and_stops(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    crashed = _copy(data_dir / "uploads" / str(_dead_pid()) / "k" / "s")
    server = start_app(data_dir, log_name="upload-sweep.log")
    try:
        assert not crashed.exists()
        during = _copy(data_dir / "uploads" / str(server.process.pid) / "k" / "s")
    finally:
        server.stop()
    assert not during.exists() and not during.parents[2].exists(), server.log_tail()
    record(
        "files",
        "upload copies left by a crashed server, and the server's own when it stops",
        "both swept: nothing of an upload outlives its server",
        backend="embedded",
    )
