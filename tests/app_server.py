"""Test helpers for the app: the sample data ingested into a data directory, the sample's numbers
computed independently (pandas), and ``streamlit run app.py`` as a subprocess on a free port
(embedded backend, offline models) that is stopped by its process id."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest

from elastic.engines import open_backend
from elastic.ingest import Importer
from elastic.statement_store import StatementStore
from llm.embeddings import Embedder
from scripts.sample_data import SampleSet
from settings import Settings

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app.py"
ARTIFACTS = ROOT / "test-artifacts"
READY_MARKER = ".ingested"

# An upload for the ingest tests: two good rows at a merchant the sample does not have (spend in
# May 2025: $200.00) and one bad row, reported as line 4.
UPLOAD_CSV = """date,description,amount,currency,category,merchant,account_no,account_name,bank_name
2025-05-03,ZEPHYR KITES CA,-123.45,USD,Hobbies,Zephyr Kites,9900112233,Kite Card,Test Bank
2025-05-17,ZEPHYR KITES CA,-76.55,USD,Hobbies,Zephyr Kites,9900112233,Kite Card,Test Bank
2025-05-20,ZEPHYR KITES CA,not-a-number,USD,Hobbies,Zephyr Kites,9900112233,Kite Card,Test Bank
"""


def app_environment(data_dir: Path) -> dict[str, str]:
    """The environment the app runs with: this data dir, the embedded store, no cloud."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FINSYNC_")}
    env["FINSYNC_DATA_DIR"] = str(data_dir)
    env["PYTHONPATH"] = str(ROOT)
    return env


def ingest_sample_into(data_dir: Path, sample: SampleSet, embedder: Embedder) -> Path:
    """``data_dir`` with the sample set ingested for the default user (done once, then reused)."""
    if (data_dir / READY_MARKER).exists():
        return data_dir
    settings = Settings(data_dir=data_dir, es_url=None)
    backend = open_backend(settings)
    try:
        backend.prepare(embedder.dims, embedder.model_name)
        importer = Importer(
            backend, settings.user, embedder, StatementStore(settings.statements_dir)
        )
        tx = importer.land(sample.transactions_csv)
        st = importer.land_all(sample.statement_pdfs)
    finally:
        backend.close()
    if tx.problems or st.problems:
        raise RuntimeError(f"sample ingest reported problems: {tx.problems + st.problems}")
    (data_dir / READY_MARKER).touch()
    return data_dir


def sample_transactions(sample: SampleSet) -> pd.DataFrame:
    """The sample CSV read independently of the app, to check the numbers it shows."""
    frame = pd.read_csv(sample.transactions_csv, dtype={"account_no": str, "amount": str})
    frame["amount"] = frame["amount"].map(Decimal)
    frame["date"] = pd.to_datetime(frame["date"])
    return frame


def spent(frame: pd.DataFrame, start: str, end: str, **equals: str) -> tuple[Decimal, int]:
    """Spend (money out, transfers excluded, positive; docs/ARCHITECTURE.md) and its count."""
    rows = frame[
        (frame["date"] >= start)
        & (frame["date"] <= end)
        & (frame["amount"] < 0)
        & (frame["category"] != "Transfers")
    ]
    for column, value in equals.items():
        rows = rows[rows[column] == value]
    return -sum(rows["amount"], Decimal(0)), len(rows)


def copy_data_dir(source: Path, target: Path) -> Path:
    """A private copy, so a test that uploads data does not change what others see."""
    shutil.copytree(source, target)
    return target


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class AppServer:
    process: subprocess.Popen[bytes]
    url: str
    log_path: Path
    data_dir: Path

    def log_tail(self, lines: int = 60) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        return ""

    def stop(self) -> None:
        """Stop the server's own process group (it was started in a new session)."""
        if self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=15)


def start_app(
    data_dir: Path, log_name: str = "app-server.log", timeout_s: float = 120
) -> AppServer:
    """``finsync serve`` on a free port, started from elsewhere than the project (it must find
    its own configuration); returns once the server answers its health check."""
    port = free_port()
    ARTIFACTS.mkdir(exist_ok=True)
    log_path = ARTIFACTS / log_name
    command = [sys.executable, "-m", "scripts.cli", "serve", "--port", str(port)]
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command,
            cwd=data_dir,
            env=app_environment(data_dir),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = AppServer(process, f"http://127.0.0.1:{port}", log_path, data_dir)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the app exited early:\n{server.log_tail()}")
        try:
            with urllib.request.urlopen(f"{server.url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return server
        except (urllib.error.URLError, OSError):
            time.sleep(0.5)
    server.stop()
    raise TimeoutError(f"the app did not start within {timeout_s:.0f}s:\n{server.log_tail()}")


@contextlib.contextmanager
def sample_app(
    sample: SampleSet,
    embedder: Embedder,
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    log_name: str = "app-server.log",
) -> Iterator[AppServer]:
    """The app over a private copy of the ingested sample (a test may add to it), stopped
    afterwards."""
    ingested = ingest_sample_into(tmp_path_factory.getbasetemp() / "ui-sample", sample, embedder)
    app = start_app(copy_data_dir(ingested, tmp_path_factory.mktemp(name) / "data"), log_name)
    try:
        yield app
    finally:
        app.stop()
